/* SPDX-License-Identifier: MIT */
/* The fuzzed entry points: image decoding from memory, the safetensors reader, map/stencil
 * expressions and the CLI's command line (see fuzz_entries.h). Built into every fuzz target and
 * included by tests/test_crashers.c, which replays the kept inputs through the same code. */
#define _GNU_SOURCE
#include "fuzz_entries.h"
#include "gip/pipeline.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A broken promise of the library: report it and abort so that the fuzzer keeps the input. */
#define FUZZ_REQUIRE(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz: %s:%d: ", __FILE__, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Every failure must come with a message saying what was wrong. */
static void require_message(gip_status st, const char *call)
{
    const char *msg = gip_last_error();
    FUZZ_REQUIRE(msg && msg[0], "%s returned %s without a message", call, gip_status_name(st));
}

/* ---- image decoding ------------------------------------------------------------------------- */

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const uint8_t jpeg_sig[3] = {0xff, 0xd8, 0xff};

/* True for the statuses a decoder may return on bad bytes. */
static int decode_status_ok(gip_status st)
{
    return st == GIP_ERR_CORRUPT || st == GIP_ERR_UNKNOWN_FORMAT || st == GIP_ERR_TOO_LARGE ||
           st == GIP_ERR_UNSUPPORTED || st == GIP_ERR_OUT_OF_MEMORY;
}

static int images_equal(const gip_image *a, const gip_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->dtype != b->dtype)
        return 0;
    int64_t row = gip_image_row_bytes(a);
    for (int64_t y = 0; y < a->height; y++)
        if (memcmp((const uint8_t *)a->data + y * a->stride,
                   (const uint8_t *)b->data + y * b->stride, (size_t)row) != 0)
            return 0;
    return 1;
}

/* Encodes a decoded image in `format` and decodes it again: an image gip made must be one it can
 * write, and PNG and PNM must give back the same pixels. */
static void reencode(const gip_image *img, gip_format format)
{
    if (img->width * img->height > 65536 || format == GIP_FORMAT_AUTO)
        return;
    if (format == GIP_FORMAT_JPEG && (img->channels == 4 || img->dtype != GIP_U8))
        return;
    gip_save_params sp = {0};
    sp.format = format;
    void *enc = NULL;
    size_t n = 0;
    gip_status st = gip_image_encode(img, &sp, &enc, &n);
    FUZZ_REQUIRE(st == GIP_OK, "re-encoding a decoded %lldx%lldx%d %s image as %s failed: %s",
                 (long long)img->width, (long long)img->height, img->channels,
                 gip_dtype_name(img->dtype), gip_format_name(format), gip_last_error());
    gip_load_params lp = {0};
    lp.max_pixels = GIP_FUZZ_MAX_PIXELS;
    lp.max_dim = GIP_FUZZ_MAX_DIM;
    gip_image back = {0};
    st = gip_image_decode(enc, n, &lp, &back);
    FUZZ_REQUIRE(st == GIP_OK, "decoding gip's own %s encoding failed: %s", gip_format_name(format),
                 gip_last_error());
    if (format != GIP_FORMAT_JPEG)
        FUZZ_REQUIRE(images_equal(img, &back), "%s round trip changed the pixels",
                     gip_format_name(format));
    gip_image_free(NULL, &back);
    gip_free(enc);
}

static void decode_once(const uint8_t *d, size_t n, const gip_load_params *lp,
                        const gip_image_info *info, gip_status probe_st)
{
    gip_image out = {0};
    gip_status st = gip_image_decode(d, n, lp, &out);
    if (st != GIP_OK) {
        FUZZ_REQUIRE(decode_status_ok(st), "gip_image_decode returned %s: %s", gip_status_name(st),
                     gip_last_error());
        require_message(st, "gip_image_decode");
        FUZZ_REQUIRE(out.data == NULL, "gip_image_decode failed but filled its output");
        return;
    }
    FUZZ_REQUIRE(probe_st == GIP_OK, "decode succeeded where probe failed (%s)",
                 gip_status_name(probe_st));
    FUZZ_REQUIRE(
        out.data && out.width >= 1 && out.height >= 1 && out.width <= GIP_FUZZ_MAX_DIM &&
            out.height <= GIP_FUZZ_MAX_DIM && out.width * out.height <= GIP_FUZZ_MAX_PIXELS,
        "decoded image %lldx%lld outside the limits", (long long)out.width, (long long)out.height);
    FUZZ_REQUIRE(gip_image_check(&out, "out") == GIP_OK, "decoded view malformed: %s",
                 gip_last_error());
    /* Loading turns the image upright by its EXIF orientation: 5..8 swap the stored width and
     * height the probe gives (a PNG's eXIf chunk after the pixels is seen by loading only). */
    bool turned = !lp->ignore_orientation &&
                  (info->orientation >= 5 || info->format == GIP_FORMAT_PNG) &&
                  out.width == info->height && out.height == info->width;
    FUZZ_REQUIRE((out.width == info->width && out.height == info->height) || turned,
                 "probe said %lldx%lld (orientation %d), decode gave %lldx%lld",
                 (long long)info->width, (long long)info->height, info->orientation,
                 (long long)out.width, (long long)out.height);
    if (lp->mode == GIP_LOAD_UNCHANGED)
        reencode(&out, info->format);
    /* Touch every pixel so that ASan sees rows the decoder did not allocate. */
    volatile uint8_t sum = 0;
    int64_t row = gip_image_row_bytes(&out);
    for (int64_t y = 0; y < out.height; y++)
        for (int64_t i = 0; i < row; i++)
            sum ^= ((const uint8_t *)out.data)[y * out.stride + i];
    (void)sum;
    gip_image_free(NULL, &out);
}

int gip_fuzz_decode(const uint8_t *data, size_t size, gip_format format)
{
    const uint8_t *sig = NULL;
    size_t sig_n = 0;
    uint8_t pnm_sig[3] = {'P', '5', '\n'};
    if (format == GIP_FORMAT_PNG) {
        sig = png_sig;
        sig_n = sizeof png_sig;
    } else if (format == GIP_FORMAT_JPEG) {
        sig = jpeg_sig;
        sig_n = sizeof jpeg_sig;
    } else if (format == GIP_FORMAT_PNM) {
        sig = pnm_sig;
        sig_n = 2; /* "P5" or "P6" then any space */
        if (size >= 3 && data[0] == 'P' && (data[1] == '5' || data[1] == '6'))
            sig_n = 0;
        else if (size && (data[0] & 1))
            pnm_sig[1] = '6';
        if (sig_n)
            sig_n = 3;
    }
    uint8_t *copy = NULL;
    const uint8_t *d = data;
    size_t n = size;
    if (sig_n && !(size >= sig_n && memcmp(data, sig, sig_n) == 0)) {
        copy = malloc(size + sig_n);
        if (!copy)
            return 0;
        memcpy(copy, sig, sig_n);
        if (size)
            memcpy(copy + sig_n, data, size);
        d = copy;
        n = size + sig_n;
    }

    gip_image_info info;
    memset(&info, 0, sizeof info);
    gip_status pst = gip_image_probe_memory(d, n, &info);
    if (pst != GIP_OK) {
        FUZZ_REQUIRE(decode_status_ok(pst), "gip_image_probe_memory returned %s: %s",
                     gip_status_name(pst), gip_last_error());
        require_message(pst, "gip_image_probe_memory");
    } else {
        FUZZ_REQUIRE(info.width >= 0 && info.height >= 0 && info.channels >= 1 &&
                         info.channels <= 4 && (info.bit_depth == 8 || info.bit_depth == 16),
                     "probe gave %lldx%lld, %d channels, %d bits", (long long)info.width,
                     (long long)info.height, info.channels, info.bit_depth);
    }

    gip_load_params lp = {0};
    lp.max_pixels = GIP_FUZZ_MAX_PIXELS;
    lp.max_dim = GIP_FUZZ_MAX_DIM;
    decode_once(d, n, &lp, &info, pst);
    /* A second mode, picked by the data so that every mode is reached, with or without the EXIF
     * orientation. */
    unsigned pick = n ? d[n - 1] % 3u : 0u;
    lp.mode = pick == 0 ? GIP_LOAD_GRAY : GIP_LOAD_COLOR;
    lp.bgr = pick == 1;
    lp.keep_depth = pick == 2;
    lp.ignore_orientation = n > 1 && (d[n - 2] & 1);
    decode_once(d, n, &lp, &info, pst);
    free(copy);
    return 0;
}

/* ---- safetensors ---------------------------------------------------------------------------- */

int gip_fuzz_safetensors(const uint8_t *data, size_t size)
{
    int fd = memfd_create("gip-fuzz-safetensors", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            close(fd);
            return 0;
        }
        done += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    gip_net *net = (gip_net *)(uintptr_t)1; /* must be set to NULL on failure */
    gip_status st = gip_vgg19_load(path, &net);
    if (st == GIP_OK) {
        FUZZ_REQUIRE(net != NULL, "gip_vgg19_load succeeded without a network");
        gip_net_free(net);
    } else {
        FUZZ_REQUIRE(net == NULL, "gip_vgg19_load failed but left *out set");
        FUZZ_REQUIRE(st == GIP_ERR_CORRUPT || st == GIP_ERR_UNSUPPORTED || st == GIP_ERR_IO ||
                         st == GIP_ERR_OUT_OF_MEMORY || st == GIP_ERR_TOO_LARGE,
                     "gip_vgg19_load returned %s: %s", gip_status_name(st), gip_last_error());
        require_message(st, "gip_vgg19_load");
    }
    close(fd);
    return 0;
}

/* ---- map and stencil expressions ------------------------------------------------------------ */

#define EXPR_W 7
#define EXPR_H 5

static gip_context *expr_ctx(void)
{
    static gip_context *ctx;
    if (!ctx) {
        gip_context_desc desc = {0};
        desc.backend = GIP_BACKEND_CPU;
        desc.threads = 1;
        if (gip_context_create(&desc, &ctx) != GIP_OK) {
            fprintf(stderr, "fuzz: cannot create a CPU context: %s\n", gip_last_error());
            abort();
        }
    }
    return ctx;
}

static void fill_pattern(gip_image *img, unsigned seed)
{
    uint8_t *p = img->data;
    int64_t bytes = img->stride * img->height;
    for (int64_t i = 0; i < bytes; i++)
        p[i] = (uint8_t)(i * 37u + seed * 101u + (unsigned)(i >> 3));
    if (img->dtype == GIP_F32) /* finite floats of both signs and several magnitudes */
        for (int64_t y = 0; y < img->height; y++)
            for (int64_t x = 0; x < img->width * img->channels; x++)
                ((float *)(void *)(p + y * img->stride))[x] =
                    (float)((int)((x * 7 + y * 13 + (int64_t)seed) % 61) - 30) * 0.37f;
}

int gip_fuzz_expr(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8 * 1024 + 1)
        return 0;
    unsigned flags = data[0];
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    static const gip_dtype dtypes[4] = {GIP_U8, GIP_U16, GIP_F32, GIP_U8};
    gip_dtype dt = dtypes[(flags >> 1) & 3u];
    int32_t ch = (flags & 8u) ? 3 : 1;
    gip_context *ctx = expr_ctx();
    gip_image in[2] = {{0}}, dst = {0};
    for (int i = 0; i < 2; i++) {
        if (gip_image_alloc(NULL, &in[i], EXPR_W, EXPR_H, ch, dt, GIP_MEM_HOST, 0) != GIP_OK)
            abort();
        fill_pattern(&in[i], (unsigned)i);
    }
    if (gip_image_alloc(NULL, &dst, EXPR_W, EXPR_H, ch, dt, GIP_MEM_HOST, 0) != GIP_OK)
        abort();
    size_t dst_bytes = (size_t)(dst.stride * dst.height);
    memset(dst.data, 0xA5, dst_bytes);

    static const gip_scalar scalars[2] = {{"k", 1.5f}, {"t", 0.25f}};
    gip_status st;
    const char *call;
    if (flags & 1u) {
        gip_stencil_params sp = {0};
        sp.border.mode = (gip_border)((flags >> 4) % 5u);
        sp.scalars = scalars;
        sp.n_scalars = 2;
        st = gip_stencil(ctx, text, &in[0], &dst, &sp);
        call = "gip_stencil";
    } else {
        st = gip_map(ctx, text, in, 1 + (int32_t)((flags >> 4) & 1u), scalars, 2, &dst);
        call = "gip_map";
    }
    if (st != GIP_OK) {
        FUZZ_REQUIRE(st == GIP_ERR_INVALID_ARGUMENT || st == GIP_ERR_UNSUPPORTED ||
                         st == GIP_ERR_TOO_LARGE,
                     "%s returned %s: %s", call, gip_status_name(st), gip_last_error());
        require_message(st, call);
        for (size_t i = 0; i < dst_bytes; i++)
            FUZZ_REQUIRE(((const uint8_t *)dst.data)[i] == 0xA5,
                         "%s failed (%s) but wrote its output at byte %zu", call,
                         gip_status_name(st), i);
        FUZZ_REQUIRE(gip_context_status(ctx) == GIP_OK, "%s left the context unusable", call);
    }
    gip_image_free(NULL, &dst);
    gip_image_free(NULL, &in[1]);
    gip_image_free(NULL, &in[0]);
    free(text);
    return 0;
}

/* ---- the pipeline parser -------------------------------------------------------------------- */

int gip_fuzz_pipeline(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    gip_context_desc desc = {0};
    desc.backend = GIP_BACKEND_CPU;
    desc.threads = 1;
    gip_pipeline *p = NULL;
    if (gip_pipeline_create(&desc, &p) != GIP_OK) {
        fprintf(stderr, "fuzz: cannot create a pipeline: %s\n", gip_last_error());
        abort();
    }
    gip_parse_error err;
    memset(&err, 0x5A, sizeof err);
    gip_status st = gip_pipeline_parse(p, text, &err);
    if (st != GIP_OK) {
        FUZZ_REQUIRE(st == GIP_ERR_INVALID_ARGUMENT || st == GIP_ERR_UNSUPPORTED ||
                         st == GIP_ERR_TOO_LARGE,
                     "gip_pipeline_parse returned %s: %s", gip_status_name(st), gip_last_error());
        FUZZ_REQUIRE(err.position >= 1 && (size_t)err.position <= size + 1,
                     "parse error position %d outside 1..%zu", (int)err.position, size + 1);
        FUZZ_REQUIRE(memchr(err.message, '\0', sizeof err.message) && err.message[0],
                     "parse error without a message");
    } else {
        /* A parsed chain runs on a small image or refuses it with a documented status. */
        int64_t ow = 0, oh = 0;
        int32_t oc = 0;
        gip_dtype odt = GIP_U8;
        gip_image src = {0}, dst = {0};
        if (gip_image_alloc(NULL, &src, 9, 7, 3, GIP_U8, GIP_MEM_HOST, 0) != GIP_OK)
            abort();
        fill_pattern(&src, 1);
        st = gip_pipeline_output_shape(p, 9, 7, 3, GIP_U8, &ow, &oh, &oc, &odt);
        if (st == GIP_OK && ow * oh * oc <= 1 << 20) {
            if (gip_image_alloc(NULL, &dst, ow, oh, oc, odt, GIP_MEM_HOST, 0) != GIP_OK)
                abort();
            st = gip_pipeline_run(p, &src, &dst);
            gip_image_free(NULL, &dst);
        }
        if (st != GIP_OK)
            FUZZ_REQUIRE(st != GIP_ERR_INTERNAL && gip_last_error()[0],
                         "a parsed pipeline failed with %s and no message", gip_status_name(st));
        gip_image_free(NULL, &src);
    }
    gip_pipeline_free(p);
    free(text);
    return 0;
}

/* ---- the CLI's command line ----------------------------------------------------------------- */

const char *const gip_fuzz_cli_input_names[] = {"in.png", "in.jpg",   "in.pgm",
                                                "in.ppm", "gray.png", NULL};

int gip_fuzz_cli_inputs(void)
{
    gip_image rgb = {0}, gray = {0};
    if (gip_image_alloc(NULL, &rgb, 8, 6, 3, GIP_U8, GIP_MEM_HOST, 0) ||
        gip_image_alloc(NULL, &gray, 8, 6, 1, GIP_U8, GIP_MEM_HOST, 0))
        return -1;
    fill_pattern(&rgb, 3);
    fill_pattern(&gray, 5);
    gip_save_params sp = {0};
    int rc = gip_image_save("in.png", &rgb, &sp) || gip_image_save("in.jpg", &rgb, &sp) ||
             gip_image_save("in.pgm", &gray, &sp) || gip_image_save("in.ppm", &rgb, &sp) ||
             gip_image_save("gray.png", &gray, &sp);
    gip_image_free(NULL, &gray);
    gip_image_free(NULL, &rgb);
    return rc ? -1 : 0;
}

/* Value of option `name` in argument i ("--name=V", or "--name" followed by V), or NULL. */
static const char *opt_value(char **argv, int argc, int i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[i], name, n) != 0)
        return NULL;
    if (argv[i][n] == '=')
        return argv[i] + n + 1;
    if (argv[i][n] == '\0' && i + 1 < argc)
        return argv[i + 1];
    return NULL;
}

/* True when `v` is a plain decimal number the CLI could accept and it is above `max`. Other
 * strings are refused by the CLI's own parser before any work, so they run. */
static int number_above(const char *v, long long max)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    return end != v && x > max;
}

int gip_fuzz_cli_argv(const uint8_t *data, size_t size, char *buf, char **argv)
{
    if (size > GIP_FUZZ_CLI_MAX_BYTES)
        return -1;
    strcpy(buf, "gip");
    argv[0] = buf;
    int argc = 1;
    char *w = buf + 4;
    if (size) {
        argv[argc++] = w;
        for (size_t i = 0; i < size; i++) {
            char c = (char)data[i];
            if (c == '\n') {
                *w++ = '\0';
                if (argc == GIP_FUZZ_CLI_MAX_ARGS + 1)
                    return -1;
                argv[argc++] = w;
            } else {
                *w++ = c == '/' ? '_' : c;
            }
        }
        *w = '\0';
    }
    argv[argc] = NULL;
    /* --max-memory sets GIP_MAX_MEMORY for the rest of the process: each input starts from the
     * default limit. */
    unsetenv("GIP_MAX_MEMORY");

    /* Style transfer builds a VGG19 before its first step (seconds under ASan); with --weights it
     * loads that file first, and the scratch folder holds no valid weights, so the command parses
     * every option and then fails fast. */
    int style = argc > 1 && strcmp(argv[1], "style") == 0, weights = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (((v = opt_value(argv, argc, i, "--repeat")) && number_above(v, 4)) ||
            ((v = opt_value(argv, argc, i, "--threads")) && (number_above(v, 4) || atoll(v) == 0)))
            return -1;
        weights |= strncmp(argv[i], "--weights", 9) == 0;
        /* `run --scheduler` replaces the process with Python (gip.dask): not in this process. */
        if (strncmp(argv[i], "--scheduler", 11) == 0)
            return -1;
    }
    if (style && !weights)
        return -1;
    return argc;
}
