/* SPDX-License-Identifier: MIT */
/* The registry's cvt: cv2.cvtColor's codes (channel order, alpha, gray, HSV, HLS, YCrCb, YUV,
 * XYZ) through gip_cvt_color(). */
#include "gip/color.h"
#include "internal.h"
#include "registry/registry.h"

/* cv2's code names in lower case, as written in pipelines ("cvt bgr2hsv"). */
static const gip_choice codes[] = {
    {"rgb2bgr", 1},
    {"bgr2rgb", 1},
    {"rgba2bgra", 2},
    {"bgra2rgba", 2},
    {"rgb2rgba", 3},
    {"bgr2bgra", 3},
    {"rgba2rgb", 4},
    {"bgra2bgr", 4},
    {"rgb2bgra", 5},
    {"bgr2rgba", 5},
    {"rgba2bgr", 6},
    {"bgra2rgb", 6},
    {"rgb2gray", 7},
    {"bgr2gray", 8},
    {"rgba2gray", 9},
    {"bgra2gray", 10},
    {"bgr2hsv", 13},
    {"rgb2hsv", 14},
    {"hsv2bgr", 15},
    {"hsv2rgb", 16},
    {"bgr2hsv_full", 17},
    {"rgb2hsv_full", 18},
    {"hsv2bgr_full", 19},
    {"hsv2rgb_full", 20},
    {"bgr2hls", 21},
    {"rgb2hls", 22},
    {"hls2bgr", 23},
    {"hls2rgb", 24},
    {"bgr2hls_full", 25},
    {"rgb2hls_full", 26},
    {"hls2bgr_full", 27},
    {"hls2rgb_full", 28},
    {"bgr2ycrcb", 29},
    {"rgb2ycrcb", 30},
    {"ycrcb2bgr", 31},
    {"ycrcb2rgb", 32},
    {"bgr2yuv", 33},
    {"rgb2yuv", 34},
    {"yuv2bgr", 35},
    {"yuv2rgb", 36},
    {"bgr2xyz", 37},
    {"rgb2xyz", 38},
    {"xyz2bgr", 39},
    {"xyz2rgb", 40},
    {"bgr2lab", 41},
    {"rgb2lab", 42},
    {"lab2bgr", 43},
    {"lab2rgb", 44},
    {"bgr2luv", 45},
    {"rgb2luv", 46},
    {"luv2bgr", 47},
    {"luv2rgb", 48},
    {NULL, 0},
};

/* Per code: the source channels (0: 3 or 4, alpha ignored) and the result's. */
static const struct {
    int scn, dcn;
} chans[] = {
    [1] = {3, 3},  [2] = {4, 4},  [3] = {3, 4},  [4] = {4, 3},  [5] = {3, 4},  [6] = {4, 3},
    [7] = {3, 1},  [8] = {3, 1},  [9] = {4, 1},  [10] = {4, 1}, [11] = {1, 3}, [12] = {1, 4},
    [13] = {0, 3}, [14] = {0, 3}, [15] = {3, 3}, [16] = {3, 3}, [17] = {0, 3}, [18] = {0, 3},
    [19] = {3, 3}, [20] = {3, 3}, [21] = {0, 3}, [22] = {0, 3}, [23] = {3, 3}, [24] = {3, 3},
    [25] = {0, 3}, [26] = {0, 3}, [27] = {3, 3}, [28] = {3, 3}, [29] = {0, 3}, [30] = {0, 3},
    [31] = {3, 3}, [32] = {3, 3}, [33] = {0, 3}, [34] = {0, 3}, [35] = {3, 3}, [36] = {3, 3},
    [37] = {0, 3}, [38] = {0, 3}, [39] = {3, 3}, [40] = {3, 3}, [41] = {0, 3}, [42] = {0, 3},
    [43] = {3, 3}, [44] = {3, 3}, [45] = {0, 3}, [46] = {0, 3}, [47] = {3, 3}, [48] = {3, 3},
};

static const gip_param decl[] = {
    GIP__PARAM_EX("code", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0,
                  codes, NULL, "the conversion, cv2.COLOR_* in lower case", "bgr2ycrcb"),
};

typedef struct cvt_step {
    int32_t code;
} cvt_step;

static gip_status build(const gip_args *a, void *out)
{
    ((cvt_step *)out)->code = (int32_t)gip_args_int(a, "code");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)identity;
    const int32_t code = ((const cvt_step *)params)->code;
    const int scn = chans[code].scn;
    if (scn ? in->channels != scn : in->channels < 3) {
        const char *name = "?";
        for (const gip_choice *c = codes; c->name; c++)
            if (c->value == code) {
                name = c->name;
                break;
            }
        return gip__error(NULL, GIP_ERR_SHAPE_MISMATCH,
                          "cvt %s takes %s-channel images, got %d channels", name,
                          scn == 1   ? "1"
                          : scn == 3 ? "3"
                          : scn == 4 ? "4"
                                     : "3- or 4",
                          (int)in->channels);
    }
    out->channels = chans[code].dcn;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_cvt_color(ctx, src, dst, (gip_color_code)((const cvt_step *)p)->code);
}

const gip_op gip__op_cvt = {
    .name = "cvt",
    .family = "color",
    .summary = "Converts between colour layouts and spaces, as cv2.cvtColor.",
    .doc = "u8, u16 and f32 images of 3 or 4 channels (gip_cvt_color() also takes gray "
           "sources). Channel order, alpha and gray; HSV, HLS (hue 0..180 for u8, 0..255 with "
           "_full, 0..360 for f32), YCrCb, YUV (BT.601), XYZ (sRGB, D65), Lab and Luv (D65, sRGB "
           "gamma) both ways. u8 results equal OpenCV's (its fixed-point coefficients, tables "
           "and rounding; for hsv2bgr and bgr2hls the vectorised rounding of its AVX-512 code, "
           "which differs by a level in some pixels on AVX2-only CPUs); the hsv_full inverse "
           "and the hls_full codes are f32 only (OpenCV computes them with Intel IPP). u8 Lab: L "
           "scaled to 0..255, a and b offset by 128; u8 Luv: L scaled to 0..255, u from "
           "-134..220 and v from -140..122 onto 0..255 (OpenCV's interpolated table forward, its "
           "integer code back). u16: the channel-order codes, YCrCb, YUV and XYZ (as OpenCV), "
           "equal to OpenCV's (its integer code, chroma offset 32768). f32 within 4e-5 of "
           "OpenCV in hue degrees and 1e-6 in the other channels; f32 Lab and Luv (L 0..100) by "
           "the CIE formulas, which OpenCV's inverses follow to 1e-4 while its forward codes, "
           "from an interpolated table, are off them by up to 0.3 in L and 0.6 in a and b.",
    .cv_name = "cv2.cvtColor",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .params_size = sizeof(cvt_step),
    .build = build,
    .shape = shape,
    .run = run,
};
