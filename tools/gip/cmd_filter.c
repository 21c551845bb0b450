/* SPDX-License-Identifier: MIT */
/* The filter subcommands: invert, box, filter, sobel, edges and gaussian. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define FILTER_COMMON                                                                              \
    (CLI_COMMON_DEVICE | CLI_COMMON_BORDER | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED |              \
     CLI_COMMON_OUTPUT)
/* Largest kernel side the library accepts for box and Gaussian (gip_gaussian_kernel: 1..1023). */
#define MAX_KSIZE 1023
#define MAX_KERNEL_SIDE 255

/* Parses "X,Y" for a kernel of kw x kh into the params' anchor fields; -1,-1 means the centre. */
static int parse_anchor(const cli_command *cmd, const char *s, int32_t kw, int32_t kh,
                        int32_t *has_anchor, int32_t *ax, int32_t *ay)
{
    char accepted[96];
    snprintf(accepted, sizeof accepted, "X,Y with X in 0..%d and Y in 0..%d, or -1,-1 (centre)",
             (int)kw - 1, (int)kh - 1);
    int rc = cli_parse_pair(cmd, "--anchor", s, -1, MAX_KSIZE, accepted, ax, ay);
    if (rc)
        return rc;
    if (*ax == -1 && *ay == -1) {
        *has_anchor = 0;
        return 0;
    }
    if (*ax < 0 || *ax >= kw || *ay < 0 || *ay >= kh)
        return cli_usage(cmd, "--anchor: '%s' is outside the %dx%d kernel; accepted: %s", s,
                         (int)kw, (int)kh, accepted);
    *has_anchor = 1;
    return 0;
}

/* ---- invert ------------------------------------------------------------------------------- */

static gip_status invert_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    return gip_invert(ctx, src, dst, NULL);
}

static int run_invert(const cli_command *cmd, int argc, char **argv)
{
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, NULL, 0, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    cli_op op = {GIP_LOAD_COLOR, NULL, invert_run, NULL, NULL, 0};
    return cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
}

const cli_command cli_cmd_invert = {
    "invert", "invert colours: 255 - x (65535 - x for 16-bit)", run_invert,
    "Usage: gip invert [options] IN OUT\n"
    "\n"
    "Inverts every channel, alpha included (as cv2.bitwise_not): 255 - x for 8-bit images,\n"
    "65535 - x for 16-bit ones. OUT keeps IN's channels and depth where its format can hold\n"
    "them (JPEG: 8-bit gray or RGB; a note on stderr says what was converted).\n",
    CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED | CLI_COMMON_OUTPUT};

/* ---- box ---------------------------------------------------------------------------------- */

static gip_status box_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    return gip_box_filter(ctx, src, dst, data);
}

static int run_box(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {
        {"--ksize", "N|WxH", NULL}, {"--anchor", "X,Y", NULL}, {"--unnormalized", NULL, NULL}};
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 3, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    gip_box_params p = {0};
    p.ksize_w = p.ksize_h = 3;
    if (opts[0].value &&
        (rc = cli_parse_size(cmd, "--ksize", opts[0].value, 1, MAX_KSIZE,
                             "N or WxH with each 1..1023", &p.ksize_w, &p.ksize_h)))
        return rc;
    if (opts[1].value && (rc = parse_anchor(cmd, opts[1].value, p.ksize_w, p.ksize_h, &p.has_anchor,
                                            &p.anchor_x, &p.anchor_y)))
        return rc;
    p.unnormalized = opts[2].value != NULL;
    p.border = common.border;
    cli_op op = {GIP_LOAD_COLOR, NULL, box_run, NULL, &p, 0};
    return cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
}

const cli_command cli_cmd_box = {
    "box", "box filter (mean of a window), as cv2.blur / cv2.boxFilter", run_box,
    "Usage: gip box [options] IN OUT\n"
    "\n"
    "Box filter as cv2.boxFilter: the mean (or sum) of the KSIZE window around each pixel.\n"
    "\n"
    "Options:\n"
    "  --ksize N|WxH        window size, each side 1..1023 (default 3)\n"
    "  --anchor X,Y         window anchor, 0..W-1,0..H-1 (default: the centre, also -1,-1)\n"
    "  --unnormalized       the sum instead of the mean, saturated to the output depth\n",
    FILTER_COMMON};

/* ---- filter (filter2D) -------------------------------------------------------------------- */

static gip_status filter_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    return gip_filter2d(ctx, src, dst, data);
}

/* Parses one kernel value: a number or a fraction "A/B", spaces around allowed. */
static int parse_coef(const char *s, size_t len, float *out)
{
    char buf[64];
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *slash = strchr(buf, '/');
    if (slash) {
        *slash = '\0';
        while (slash[1] == ' ' || slash[1] == '\t')
            slash++;
    }
    char *end;
    double num = cli_strtod(buf, &end), den = 1.0;
    if (end == buf || *end != '\0')
        return 0;
    if (slash) {
        den = cli_strtod(slash + 1, &end);
        if (end == slash + 1 || *end != '\0' || den == 0.0)
            return 0;
    }
    double v = num / den;
    if (!(v >= -3.0e38 && v <= 3.0e38))
        return 0;
    *out = (float)v;
    return 1;
}

/* Parses 'a,b,c;d,e,f;...' into a newly allocated row-major kernel. */
static int parse_kernel(const cli_command *cmd, const char *s, float **kernel, int32_t *kw,
                        int32_t *kh)
{
    static const char accepted[] =
        "rows separated by ';' of comma-separated decimal numbers (or fractions like 1/9), every "
        "row the "
        "same length, at most 255x255, e.g. '0,-1,0;-1,5,-1;0,-1,0'";
    int32_t w = 0, h = 0;
    /* Count rows and the first row's columns to size the buffer. */
    for (const char *p = s;; p++) {
        if (h == 0 && *p == ',')
            w++;
        if (*p == ';' || *p == '\0') {
            h++;
            if (!*p)
                break;
        }
    }
    w++;
    if (w > MAX_KERNEL_SIDE || h > MAX_KERNEL_SIDE)
        return cli_usage(cmd, "--kernel: %dx%d is too large; accepted: %s", (int)w, (int)h,
                         accepted);
    float *k = malloc((size_t)w * (size_t)h * sizeof *k);
    if (!k) {
        fprintf(stderr, "gip %s: out of memory\n", cmd->name);
        return CLI_EXIT_RUNTIME;
    }
    const char *p = s;
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            size_t len = strcspn(p, ",;");
            char want = x == w - 1 ? (y == h - 1 ? '\0' : ';') : ',';
            if (p[len] != want || !parse_coef(p, len, &k[y * w + x])) {
                free(k);
                return cli_usage(cmd,
                                 "--kernel: '%s' is malformed (row %d, value %d); accepted: %s", s,
                                 (int)y + 1, (int)x + 1, accepted);
            }
            p += len + (p[len] ? 1 : 0);
        }
    }
    *kernel = k;
    *kw = w;
    *kh = h;
    return 0;
}

static int run_filter(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {
        {"--kernel", "ROWS", NULL}, {"--anchor", "X,Y", NULL}, {"--delta", "D", NULL}};
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 3, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    if (!opts[0].value)
        return cli_usage(cmd, "--kernel is required, e.g. --kernel '1/9,1/9,1/9;1/9,1/9,1/9;"
                              "1/9,1/9,1/9'");
    gip_filter2d_params p = {0};
    double delta = 0;
    if (opts[2].value && (rc = cli_parse_double(cmd, "--delta", opts[2].value, -1e30, 1e30,
                                                "a finite number", &delta)))
        return rc;
    float *kernel = NULL;
    if ((rc = parse_kernel(cmd, opts[0].value, &kernel, &p.ksize_w, &p.ksize_h)))
        return rc;
    if (opts[1].value && (rc = parse_anchor(cmd, opts[1].value, p.ksize_w, p.ksize_h, &p.has_anchor,
                                            &p.anchor_x, &p.anchor_y))) {
        free(kernel);
        return rc;
    }
    p.kernel = kernel;
    p.delta = (float)delta;
    p.border = common.border;
    cli_op op = {GIP_LOAD_COLOR, NULL, filter_run, NULL, &p, 0};
    rc = cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
    free(kernel);
    return rc;
}

const cli_command cli_cmd_filter = {
    "filter", "correlate with a kernel, as cv2.filter2D", run_filter,
    "Usage: gip filter --kernel ROWS [options] IN OUT\n"
    "\n"
    "Correlation with an arbitrary kernel as cv2.filter2D (no flip), rounded and saturated.\n"
    "\n"
    "Options:\n"
    "  --kernel ROWS        required: rows separated by ';' of comma-separated numbers or\n"
    "                       fractions, e.g. '1/9,1/9,1/9;1/9,1/9,1/9;1/9,1/9,1/9' (3x3 mean);\n"
    "                       every row the same length, at most 255x255\n"
    "  --anchor X,Y         kernel anchor (default: the centre, also -1,-1)\n"
    "  --delta D            added to every result (default 0)\n",
    FILTER_COMMON};

/* ---- sobel -------------------------------------------------------------------------------- */

/* Parses --ksize of Sobel: 1, 3, 5, 7 or scharr. */
static int parse_sobel_ksize(const cli_command *cmd, const char *s, int32_t *ksize)
{
    static const char accepted[] = "1, 3, 5, 7 or scharr";
    if (strcmp(s, "scharr") == 0) {
        *ksize = GIP_SCHARR;
        return 0;
    }
    int64_t v;
    int rc = cli_parse_int(cmd, "--ksize", s, 1, 7, accepted, &v);
    if (rc)
        return rc;
    if (v % 2 == 0)
        return cli_usage(cmd, "--ksize: %d is even; accepted: %s", (int)v, accepted);
    *ksize = (int32_t)v;
    return 0;
}

/* Parses the --scale and --delta shared by sobel and edges. */
static int parse_scale_delta(const cli_command *cmd, const char *scale, const char *delta,
                             gip_sobel_params *p)
{
    double v;
    int rc;
    p->scale = 1.0f;
    if (scale) {
        static const char accepted[] = "a finite non-zero number";
        if ((rc = cli_parse_double(cmd, "--scale", scale, -1e30, 1e30, accepted, &v)))
            return rc;
        /* The library reads 0 as "default 1": refuse it rather than surprise. */
        if (v == 0.0)
            return cli_usage(cmd, "--scale: 0 is not allowed; accepted: %s", accepted);
        p->scale = (float)v;
    }
    if (delta) {
        if ((rc = cli_parse_double(cmd, "--delta", delta, -1e30, 1e30, "a finite number", &v)))
            return rc;
        p->delta = (float)v;
    }
    return 0;
}

static gip_status sobel_prepare(gip_context *ctx, const gip_image *src, int32_t *channels,
                                gip_dtype *dtype, void *data)
{
    *dtype = GIP_U8;
    return GIP_OK;
}

static gip_status sobel_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    return gip_sobel(ctx, src, dst, data);
}

static int run_sobel(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {{"--dx", "N", NULL},
                      {"--dy", "N", NULL},
                      {"--ksize", "K", NULL},
                      {"--scale", "S", NULL},
                      {"--delta", "D", NULL}};
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 5, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    gip_sobel_params p = {0};
    p.ksize = 3;
    if (opts[2].value && (rc = parse_sobel_ksize(cmd, opts[2].value, &p.ksize)))
        return rc;
    int64_t dx = 0, dy = 0;
    if (!opts[0].value && !opts[1].value)
        dx = 1;
    if (opts[0].value && (rc = cli_parse_int(cmd, "--dx", opts[0].value, 0, 6, "0..6", &dx)))
        return rc;
    if (opts[1].value && (rc = cli_parse_int(cmd, "--dy", opts[1].value, 0, 6, "0..6", &dy)))
        return rc;
    if (dx + dy == 0)
        return cli_usage(cmd, "--dx and --dy are both 0; accepted: at least one derivative order "
                              "above 0");
    if (p.ksize == GIP_SCHARR && dx + dy != 1)
        return cli_usage(cmd, "--ksize scharr needs --dx 1 --dy 0 or --dx 0 --dy 1");
    int32_t kmax = p.ksize == GIP_SCHARR ? 3 : p.ksize == 1 ? 3 : p.ksize;
    if (dx >= kmax || dy >= kmax)
        return cli_usage(cmd, "--dx %d --dy %d: orders must be below %d for --ksize %s", (int)dx,
                         (int)dy, (int)kmax, opts[2].value ? opts[2].value : "3");
    p.dx = (int32_t)dx;
    p.dy = (int32_t)dy;
    if ((rc = parse_scale_delta(cmd, opts[3].value, opts[4].value, &p)))
        return rc;
    p.border = common.border;
    cli_op op = {GIP_LOAD_COLOR, sobel_prepare, sobel_run, NULL, &p, CLI_OP_8BIT};
    return cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
}

const cli_command cli_cmd_sobel = {
    "sobel", "image derivative, as cv2.Sobel / cv2.Scharr", run_sobel,
    "Usage: gip sobel [--dx N] [--dy N] [options] IN OUT\n"
    "\n"
    "Image derivative as cv2.Sobel (or cv2.Scharr), per channel (gray, RGB or RGBA, alpha\n"
    "included). The output is 8-bit: |result * scale + delta| saturated to 0..255, as\n"
    "cv2.convertScaleAbs; a 16-bit IN is reduced to 8 bits first (x >> 8; a note says so).\n"
    "\n"
    "Options:\n"
    "  --dx N               derivative order in x, 0..6 (default 1 when neither --dx nor\n"
    "                       --dy is given, else 0)\n"
    "  --dy N               derivative order in y, 0..6 (default 0)\n"
    "  --ksize K            1, 3, 5, 7 or scharr (default 3); orders must be below K\n"
    "                       (below 3 for ksize 1; scharr: one order 1, the other 0)\n"
    "  --scale S            factor applied to the derivative (default 1)\n"
    "  --delta D            added after scaling (default 0)\n",
    FILTER_COMMON};

/* ---- edges -------------------------------------------------------------------------------- */

typedef struct edges_data {
    gip_sobel_params params;
    gip_image gray; /* the colour input converted to gray, in the input's memory */
} edges_data;

static gip_status edges_prepare(gip_context *ctx, const gip_image *src, int32_t *channels,
                                gip_dtype *dtype, void *data)
{
    edges_data *e = data;
    *channels = 1;
    *dtype = GIP_U8;
    if (src->channels == 1)
        return GIP_OK;
    return gip_image_alloc(ctx, &e->gray, src->width, src->height, 1, src->dtype, src->memory, 0);
}

static gip_status edges_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    edges_data *e = data;
    if (src->channels == 1)
        return gip_sobel_magnitude(ctx, src, dst, &e->params);
    gip_status st = gip_cvt_color(ctx, src, &e->gray,
                                  src->channels == 4 ? GIP_COLOR_RGBA2GRAY : GIP_COLOR_RGB2GRAY);
    if (st)
        return st;
    return gip_sobel_magnitude(ctx, &e->gray, dst, &e->params);
}

static void edges_release(gip_context *ctx, void *data)
{
    edges_data *e = data;
    gip_image_free(ctx, &e->gray);
}

static int run_edges(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {{"--ksize", "K", NULL}, {"--scale", "S", NULL}, {"--delta", "D", NULL}};
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 3, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    edges_data e = {0};
    e.params.ksize = 3;
    if (opts[0].value && (rc = parse_sobel_ksize(cmd, opts[0].value, &e.params.ksize)))
        return rc;
    if ((rc = parse_scale_delta(cmd, opts[1].value, opts[2].value, &e.params)))
        return rc;
    e.params.border = common.border;
    cli_op op = {GIP_LOAD_COLOR, edges_prepare, edges_run, edges_release, &e, CLI_OP_8BIT};
    return cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
}

const cli_command cli_cmd_edges = {
    "edges", "edge map: Sobel gradient magnitude of the gray image", run_edges,
    "Usage: gip edges [options] IN OUT\n"
    "\n"
    "Edge map: the input is converted to gray (cv2.COLOR_RGB2GRAY weights, alpha ignored;\n"
    "a 16-bit IN is reduced to 8 bits first, x >> 8, and a note says so), then\n"
    "sqrt(gx^2 + gy^2) of its first Sobel derivatives, times scale plus delta, is written as\n"
    "an 8-bit gray image (rounded and saturated).\n"
    "\n"
    "Options:\n"
    "  --ksize K            Sobel aperture: 1, 3, 5, 7 or scharr (default 3)\n"
    "  --scale S            factor applied to the magnitude (default 1)\n"
    "  --delta D            added after scaling (default 0)\n",
    FILTER_COMMON};

/* ---- gaussian ----------------------------------------------------------------------------- */

static gip_status gaussian_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    return gip_gaussian_blur(ctx, src, dst, data);
}

static int run_gaussian(const cli_command *cmd, int argc, char **argv)
{
    static const char ksize_accepted[] =
        "N or WxH, each odd 1..1023, or 0 (from --sigma, which is then required)";
    cli_opt opts[] = {{"--ksize", "N|WxH", NULL}, {"--sigma", "S[,SY]", NULL}};
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 2, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    gip_gaussian_params p = {0};
    if (opts[1].value) {
        double s[2];
        int n = 0;
        if ((rc = cli_parse_list(cmd, "--sigma", opts[1].value, 2,
                                 "S or SX,SY, each 0..10000 (0: from the kernel size)", s, &n)))
            return rc;
        for (int i = 0; i < n; i++)
            if (s[i] < 0 || s[i] > 10000)
                return cli_usage(cmd,
                                 "--sigma: '%s' is out of range; accepted: S or SX,SY, each "
                                 "0..10000 (0: from the kernel size)",
                                 opts[1].value);
        p.sigma_x = s[0];
        p.sigma_y = n == 2 ? s[1] : 0.0;
    }
    if (!opts[0].value && !opts[1].value)
        return cli_usage(cmd, "--ksize (or --sigma) is required, e.g. --ksize 15");
    if (opts[0].value) {
        if ((rc = cli_parse_size(cmd, "--ksize", opts[0].value, 0, MAX_KSIZE, ksize_accepted,
                                 &p.ksize_w, &p.ksize_h)))
            return rc;
        if ((p.ksize_w && p.ksize_w % 2 == 0) || (p.ksize_h && p.ksize_h % 2 == 0))
            return cli_usage(cmd, "--ksize: '%s' is even; accepted: %s", opts[0].value,
                             ksize_accepted);
    }
    if ((p.ksize_w == 0 && p.sigma_x <= 0) ||
        (p.ksize_h == 0 && (p.sigma_y > 0 ? p.sigma_y : p.sigma_x) <= 0))
        return cli_usage(cmd, "--ksize 0 derives the size from the sigma: give --sigma S > 0, "
                              "or an odd --ksize");
    p.border = common.border;
    cli_op op = {GIP_LOAD_COLOR, NULL, gaussian_run, NULL, &p, 0};
    return cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
}

const cli_command cli_cmd_gaussian = {
    "gaussian", "Gaussian blur, as cv2.GaussianBlur", run_gaussian,
    "Usage: gip gaussian --ksize N|WxH [--sigma S[,SY]] [options] IN OUT\n"
    "\n"
    "Gaussian blur as cv2.GaussianBlur (8-bit results equal OpenCV's).\n"
    "\n"
    "Options:\n"
    "  --ksize N|WxH        kernel size, each side odd 1..1023, or 0 to derive it from the\n"
    "                       sigma as OpenCV does (default 0 when only --sigma is given)\n"
    "  --sigma S[,SY]       standard deviation in x (and y), 0..10000; 0 or absent: from the\n"
    "                       kernel size, 0.3*((k-1)*0.5-1)+0.8; SY defaults to S. A size\n"
    "                       derived from the sigma must stay within 1023 (8-bit: S <= 170)\n",
    FILTER_COMMON};
