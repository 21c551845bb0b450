/* SPDX-License-Identifier: MIT */
/* The batch engine's later stages for one file: fitting a file decoded as stored to what the
 * pipeline and the output format take, computing it (CUDA: pinned staging and a sync per stage,
 * so that each stage's time can be told), then encoding and writing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_engine.h"
#include "io/io_internal.h"
#include "pipeline_steps.h"

/* Allocates `img` with the shape unless it already has it. */
static gip_status ensure(gip_context *ctx, gip_image *img, int64_t w, int64_t h, int32_t c,
                         gip_dtype dt, gip_memory mem)
{
    if (img->data && img->width == w && img->height == h && img->channels == c && img->dtype == dt)
        return GIP_OK;
    gip_image_free(ctx, img);
    return gip_image_alloc(ctx, img, w, h, c, dt, mem, 0);
}

/* Whether a file of format f holds an image of c channels of dt (gip_image_encode's rules). */
static bool format_holds(gip_format f, int32_t c, gip_dtype dt)
{
    if (dt != GIP_U8 && (dt != GIP_U16 || f == GIP_FORMAT_JPEG))
        return false;
    return c == 1 || c == 3 || (c == 4 && f == GIP_FORMAT_PNG);
}

/* The host image without its alpha channel (c 4 -> 3) and/or in 8 bits (x >> 8, as the loader's
 * 8-bit modes), replacing *img. */
static gip_status reduce_image(gip_image *img, bool no_alpha, bool to_u8)
{
    int32_t dc = no_alpha ? 3 : img->channels;
    gip_dtype dt = to_u8 ? GIP_U8 : img->dtype;
    gip_image d;
    gip_status st = gip_image_alloc(NULL, &d, img->width, img->height, dc, dt, GIP_MEM_HOST, 0);
    if (st)
        return st;
    bool wide = img->dtype == GIP_U16;
    for (int64_t y = 0; y < img->height; y++) {
        const uint8_t *s = (const uint8_t *)img->data + y * img->stride;
        uint8_t *o = (uint8_t *)d.data + y * d.stride;
        for (int64_t x = 0; x < img->width; x++)
            for (int32_t k = 0; k < dc; k++) {
                int64_t i = x * img->channels + k, j = x * dc + k;
                uint32_t v = wide ? ((const uint16_t *)(const void *)s)[i] : s[i];
                if (dt == GIP_U8)
                    o[j] = (uint8_t)(wide ? v >> 8 : v);
                else
                    ((uint16_t *)(void *)o)[j] = (uint16_t)v;
            }
    }
    gip_image_free(NULL, img);
    *img = d;
    return GIP_OK;
}

/* With inputs decoded as stored (load_unchanged): where the pipeline refuses a file so, or makes
 * of it what the output's format cannot hold (JPEG: 8-bit gray or RGB; PPM/PGM: no alpha), the
 * decoded image loses its alpha, then its 16 bits, as `gip run` does for one file; it->note
 * says what was converted and why. Otherwise nothing changes and the run reports the refusal. */
static void fit_item(engine *e, gip_pipeline *p, item *it)
{
    gip_image *img = &it->img;
    if (e->lp.mode != GIP_LOAD_UNCHANGED || img->memory == GIP_MEM_CUDA ||
        (img->channels != 4 && img->dtype != GIP_U16))
        return;
    gip_format f = gip__batch_output_format(e->outs[it->index]);
    char why[200] = "";
    for (int k = 0; k < 4; k++) {
        bool no_alpha = (k & 1) && img->channels == 4, to_u8 = (k & 2) && img->dtype == GIP_U16;
        if (k > 0 && !no_alpha && !to_u8)
            continue;
        int32_t c = 0;
        gip_dtype dt = GIP_U8;
        gip_status st = gip_pipeline_try(p, img->width, img->height, no_alpha ? 3 : img->channels,
                                         to_u8 ? GIP_U8 : img->dtype, &c, &dt);
        bool ok = !st && format_holds(f, c, dt);
        if (k == 0 && !ok)
            snprintf(why, sizeof why,
                     st ? "the pipeline refuses it as stored"
                        : "%s cannot hold the "
                          "pipeline's %d-channel %s result",
                     gip_format_name(f), (int)c, gip_dtype_name(dt));
        gip_clear_error();
        if (!ok)
            continue;
        if (k > 0 && reduce_image(img, no_alpha, to_u8) == GIP_OK)
            snprintf(it->note, sizeof it->note, "'%s' is computed %s%s%s: %s", e->inputs[it->index],
                     no_alpha ? "without alpha" : "", no_alpha && to_u8 ? " and " : "",
                     to_u8 ? "in 8 bits (x >> 8)" : "", why);
        return;
    }
}

gip_status gip__batch_compute_item(engine *e, gip_pipeline *p, stage *sg, item *it)
{
    gip_context *ctx = gip_pipeline_context(p);
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
    fit_item(e, p, it);
    gip_status st = gip_pipeline_output_shape(p, it->img.width, it->img.height, it->img.channels,
                                              it->img.dtype, &w, &h, &c, &dt);
    if (st)
        return st;
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    bool dev_result = cuda && e->o->codec && e->o->codec->encode_device;
    if ((st = gip_image_alloc(dev_result ? ctx : NULL, &it->result, w, h, c, dt,
                              dev_result ? GIP_MEM_CUDA : GIP_MEM_HOST, 0)))
        return st;
    if (!cuda) {
        double t = now();
        st = gip_pipeline_run(p, &it->img, &it->result);
        double t1 = now();
        mark_stage(e, it->index, TR_COMPUTE, t, TR_COMPUTED, t1, &e->st.t_compute);
        return st;
    }
    /* Host images above the pipeline's device memory limit: tiles (tile.c). */
    if (!dev_result && it->img.memory != GIP_MEM_CUDA && gip__pipeline_needs_tiles(p, &it->img)) {
        double t = now();
        st = gip_pipeline_run(p, &it->img, &it->result);
        add_time(e, &e->st.t_compute, now() - t);
        return st;
    }
    /* CUDA: pinned staging, asynchronous copies on the pipeline's stream; a sync after each
     * stage so that its time can be told (the other compute threads' streams overlap it). */
    double t = now();
    const gip_image *din = &it->img;
    if (it->img.memory != GIP_MEM_CUDA) {
        const gip_image *s = &it->img;
        if ((st = ensure(ctx, &sg->pin_in, s->width, s->height, s->channels, s->dtype,
                         GIP_MEM_PINNED)) ||
            (st = ensure(ctx, &sg->dev_in, s->width, s->height, s->channels, s->dtype,
                         GIP_MEM_CUDA)) ||
            (st = gip_copy(ctx, s, &sg->pin_in)) ||
            (st = gip_upload(ctx, &sg->pin_in, &sg->dev_in)) || (st = gip_context_sync(ctx)))
            return st;
        din = &sg->dev_in;
    }
    double t1 = now();
    mark_stage(e, it->index, TR_COMPUTE, t, TR_UPLOADED, t1, &e->st.t_upload);
    gip_image *dout = &it->result;
    if (!dev_result) {
        if ((st = ensure(ctx, &sg->dev_out, w, h, c, dt, GIP_MEM_CUDA)))
            return st;
        dout = &sg->dev_out;
    }
    if ((st = gip_pipeline_run(p, din, dout)) || (st = gip_context_sync(ctx)))
        return st;
    double t2 = now();
    mark(e, it->index, TR_COMPUTED, t2);
    add_time(e, &e->st.t_compute, t2 - t1);
    if (dev_result)
        return GIP_OK;
    if ((st = ensure(ctx, &sg->pin_out, w, h, c, dt, GIP_MEM_PINNED)) ||
        (st = gip_download(ctx, &sg->dev_out, &sg->pin_out)) || (st = gip_context_sync(ctx)) ||
        (st = gip_copy(ctx, &sg->pin_out, &it->result)))
        return st;
    double t3 = now();
    mark(e, it->index, TR_DOWNLOADED, t3);
    add_time(e, &e->st.t_download, t3 - t2);
    return GIP_OK;
}

void gip__batch_stage_free(gip_context *ctx, stage *sg)
{
    gip_image_free(ctx, &sg->pin_in);
    gip_image_free(ctx, &sg->dev_in);
    gip_image_free(ctx, &sg->dev_out);
    gip_image_free(ctx, &sg->pin_out);
}

gip_status gip__batch_encode_item(engine *e, item *it, bool *skipped)
{
    void *data = NULL;
    size_t size = 0;
    double t = now();
    gip_status st;
    gip_save_params sp = e->sp;
    sp.format = gip__batch_output_format(e->outs[it->index]);
    if (e->o->codec && e->o->codec->encode)
        st = e->o->codec->encode(e->o->codec->user, gip_pipeline_context(e->pipes[it->pipe]),
                                 &it->result, &sp, &data, &size);
    else
        st = gip_image_encode(&it->result, &sp, &data, &size);
    double t1 = now();
    mark_stage(e, it->index, TR_ENCODE, t, TR_ENCODED, t1, &e->st.t_encode);
    if (st)
        return st;
    st = gip__atomic_write("batch", e->outs[it->index], data, size,
                           e->o->overwrite ? GIP__OUT_OVERWRITE : GIP__OUT_NO_REPLACE, skipped);
    gip_free(data);
    double t2 = now();
    mark(e, it->index, TR_WRITTEN, t2);
    add_time(e, &e->st.t_write, t2 - t1);
    return st;
}
