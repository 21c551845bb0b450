/* SPDX-License-Identifier: MIT */
/* The vector arithmetic of cvt_space_cpu.c's colour spaces written once for every vector width:
 * cvt_space_cpu.c includes this file once per width (AVX2, AVX-512) after defining
 *   SPACE_FN(name)    the name of a function of that width (space_avx2_name, space_512_name)
 *   SPACE_PFX         the intrinsics' prefix (_mm256_, _mm512_)
 *   SPACE_PS, SPACE_SI, SPACE_MASK   the float and 32-bit integer vectors and a comparison's mask
 *   SPACE_CMP(a, b, op), SPACE_SEL(m, a, b) (m ? b : a), SPACE_ROUNDZ(a) (rounded toward zero)
 *   SPACE_BASE, SPACE_FMA   the target attributes without and with FMA (the first a subset of
 *                     the second, so that a function of either inlines into the other's callers)
 * and undefines them at its end, so that the next width defines its own. Each width runs the
 * same operations in the same order, so both give the same bits. No include guard: it is meant
 * to be included more than once. */

#define SPACE_CAT_(a, b) a##b
#define SPACE_CAT(a, b) SPACE_CAT_(a, b)
#define V_(op) SPACE_CAT(SPACE_PFX, op)
#define VSET(k) V_(set1_ps)(k)
#define VADD(a, b) V_(add_ps)(a, b)
#define VSUB(a, b) V_(sub_ps)(a, b)
#define VMUL(a, b) V_(mul_ps)(a, b)
#define VDIV(a, b) V_(div_ps)(a, b)
#define VMAX(a, b) V_(max_ps)(a, b)
#define VMIN(a, b) V_(min_ps)(a, b)
#define ISET(k) V_(set1_epi32)(k)
#define IADD(a, b) V_(add_epi32)(a, b)
#define ISUB(a, b) V_(sub_epi32)(a, b)
#define IMUL(a, k) V_(mullo_epi32)(a, ISET(k))
/* (x k + c) >> 14: gip__cs_descale() with the rounding in c */
#define ID14(x, k, c) V_(srai_epi32)(IADD(IMUL(x, k), c), 14)

/* r, g, b from OpenCV's table of a hue sector (sec: 0 .. 5, as floats) and its four values
 * (HSV2RGB's and HLS2RGB's tab[]): b = tab[{1, 1, 3, 0, 0, 2}[sec]],
 * g = tab[{3, 0, 0, 2, 1, 1}[sec]], r = tab[{0, 2, 1, 1, 3, 0}[sec]]. */
SPACE_BASE static inline void SPACE_FN(sector_pick)(SPACE_PS sec, SPACE_PS tab0, SPACE_PS tab1,
                                                    SPACE_PS tab2, SPACE_PS tab3, SPACE_PS *r,
                                                    SPACE_PS *g, SPACE_PS *b)
{
#define SPACE_C(k, op) SPACE_CMP(sec, VSET(k), op)
    const SPACE_MASK lt1 = SPACE_C(1.0f, _CMP_LT_OQ), lt2 = SPACE_C(2.0f, _CMP_LT_OQ);
    const SPACE_MASK eq1 = SPACE_C(1.0f, _CMP_EQ_OQ), eq2 = SPACE_C(2.0f, _CMP_EQ_OQ);
    const SPACE_MASK eq3 = SPACE_C(3.0f, _CMP_EQ_OQ), eq4 = SPACE_C(4.0f, _CMP_EQ_OQ);
    const SPACE_MASK le2 = SPACE_C(2.0f, _CMP_LE_OQ), le3 = SPACE_C(3.0f, _CMP_LE_OQ);
    const SPACE_MASK le4 = SPACE_C(4.0f, _CMP_LE_OQ);
#undef SPACE_C
    *b = SPACE_SEL(lt2, SPACE_SEL(eq2, SPACE_SEL(le4, tab2, tab0), tab3), tab1);
    *g = SPACE_SEL(lt1, SPACE_SEL(le2, SPACE_SEL(eq3, tab1, tab2), tab0), tab3);
    *r = SPACE_SEL(lt1, SPACE_SEL(eq1, SPACE_SEL(le3, SPACE_SEL(eq4, tab0, tab3), tab1), tab2),
                   tab0);
}

/* r, g, b from h (not yet scaled), s and v: gip__rgb_from_hsv_vec()'s operations in their
 * order, its one fused multiply-add (fnmadd: -(s h) + 1, the same rounding). */
SPACE_FMA static inline void SPACE_FN(hsv_inv)(SPACE_PS h, SPACE_PS s, SPACE_PS v, SPACE_PS hscale,
                                               SPACE_PS *r, SPACE_PS *g, SPACE_PS *b)
{
    const SPACE_PS one = VSET(1.0f);
    h = VMUL(h, hscale);
    const SPACE_PS pre = SPACE_ROUNDZ(h);
    h = VSUB(h, pre);
    const SPACE_PS tab0 = v, tab1 = VMUL(v, VSUB(one, s));
    const SPACE_PS tab2 = VMUL(v, V_(fnmadd_ps)(s, h, one));
    const SPACE_PS tab3 = VMUL(v, V_(fnmadd_ps)(s, VSUB(one, h), one));
    SPACE_PS sec = SPACE_ROUNDZ(VMUL(pre, VSET(1.0f / 6.0f)));
    sec = VSUB(pre, VMUL(sec, VSET(6.0f)));
    SPACE_FN(sector_pick)(sec, tab0, tab1, tab2, tab3, r, g, b);
}

/* OpenCV's HSV and HLS hue before its division of r, g, b (bl: blue): the largest and the
 * smallest channel, their difference, the hue's numerator h and the sector's offset part
 * (hue = part + h 60 / diff). */
SPACE_BASE static inline void SPACE_FN(hue_parts)(SPACE_PS r, SPACE_PS g, SPACE_PS bl, SPACE_PS *mx,
                                                  SPACE_PS *mn, SPACE_PS *diff, SPACE_PS *h,
                                                  SPACE_PS *part)
{
    *mx = VMAX(VMAX(r, g), bl);
    *mn = VMIN(VMIN(r, g), bl);
    *diff = VSUB(*mx, *mn);
    const SPACE_MASK isr = SPACE_CMP(r, *mx, _CMP_EQ_OQ), isg = SPACE_CMP(g, *mx, _CMP_EQ_OQ);
    *h = SPACE_SEL(isr, SPACE_SEL(isg, VSUB(r, g), VSUB(bl, r)), VSUB(g, bl));
    *part = SPACE_SEL(isr, SPACE_SEL(isg, VSET(240.0f), VSET(120.0f)),
                      SPACE_SEL(SPACE_CMP(g, bl, _CMP_LT_OQ), V_(setzero_ps)(), VSET(360.0f)));
}

/* gip__hls_from_rgb_vec()'s HLS of r, g, b (bl: blue) in its order (its one fused
 * multiply-add): the hue (unscaled), l, and s; where keep is false (diff not above
 * GIP__CS_EPS) the hue and s are 0 instead. */
SPACE_FMA static inline void SPACE_FN(hls)(SPACE_PS r, SPACE_PS g, SPACE_PS bl, SPACE_PS *hue,
                                           SPACE_PS *l, SPACE_PS *s, SPACE_MASK *keep)
{
    SPACE_PS mx, mn, diff, h, part;
    SPACE_FN(hue_parts)(r, g, bl, &mx, &mn, &diff, &h, &part);
    const SPACE_PS sum = VADD(mx, mn);
    *l = VMUL(sum, VSET(0.5f));
    const SPACE_PS den =
        SPACE_SEL(SPACE_CMP(*l, VSET(0.5f), _CMP_LT_OQ), VSUB(VSET(2.0f), sum), sum);
    *hue = V_(fmadd_ps)(h, VDIV(VSET(60.0f), diff), part);
    *keep = SPACE_CMP(diff, VSET(GIP__CS_EPS), _CMP_GT_OQ);
    *s = VDIV(diff, den);
}

/* gip__ycc_from_rgb_i() (inverse: gip__rgb_from_ycc_i()) with half 32768 of u16 pixels in
 * 32-bit lanes (their sums stay in 32 bits): c0 .. c2 the source channels in memory order, o0
 * .. o2 the destination's, before saturation. */
SPACE_BASE static inline void SPACE_FN(ycc_u16)(SPACE_SI c0, SPACE_SI c1, SPACE_SI c2, int bidx,
                                                int yuv, int inverse, SPACE_SI *o0, SPACE_SI *o1,
                                                SPACE_SI *o2)
{
    const SPACE_SI round = ISET(1 << 13);
    if (!inverse) {
        const SPACE_SI delta = ISET((32768 << 14) + (1 << 13));
        const SPACE_SI r = bidx ? c0 : c2, g = c1, b = bidx ? c2 : c0;
        const SPACE_SI y = V_(srai_epi32)(
            IADD(IADD(IADD(IMUL(r, 4899), IMUL(g, 9617)), IMUL(b, 1868)), round), 14);
        const SPACE_SI ry = ISUB(r, y), by = ISUB(b, y);
        *o0 = y;
        *o1 = yuv ? ID14(by, 8061, delta) : ID14(ry, 11682, delta);
        *o2 = yuv ? ID14(ry, 14369, delta) : ID14(by, 9241, delta);
    } else {
        const SPACE_SI half = ISET(32768);
        const SPACE_SI y = c0, u = ISUB(c1, half), v = ISUB(c2, half);
        SPACE_SI r, g, b;
        if (yuv) {
            b = IADD(y, ID14(u, 33292, round));
            g = IADD(y, V_(srai_epi32)(IADD(IADD(IMUL(v, -9519), IMUL(u, -6472)), round), 14));
            r = IADD(y, ID14(v, 18678, round));
        } else { /* u: cr, v: cb */
            b = IADD(y, ID14(v, 29049, round));
            g = IADD(y, V_(srai_epi32)(IADD(IADD(IMUL(v, -5636), IMUL(u, -11698)), round), 14));
            r = IADD(y, ID14(u, 22987, round));
        }
        *o0 = bidx ? r : b, *o1 = g, *o2 = bidx ? b : r;
    }
}

#undef SPACE_CAT_
#undef SPACE_CAT
#undef V_
#undef VSET
#undef VADD
#undef VSUB
#undef VMUL
#undef VDIV
#undef VMAX
#undef VMIN
#undef ISET
#undef IADD
#undef ISUB
#undef IMUL
#undef ID14
#undef SPACE_FN
#undef SPACE_PFX
#undef SPACE_PS
#undef SPACE_SI
#undef SPACE_MASK
#undef SPACE_CMP
#undef SPACE_SEL
#undef SPACE_ROUNDZ
#undef SPACE_BASE
#undef SPACE_FMA
