/* SPDX-License-Identifier: MIT */
/* The benchmark's table of gip operations. Operations are written by other work in parallel with
 * this harness, so each timed function is referenced weakly: a function missing from the linked
 * libgip resolves to NULL, and its rows are reported "unavailable" (never timed, never faked).
 * When every operation has landed the weak references change nothing. */
#include <math.h>

#include "ops.h"

/* The optional operations: one line each. Core functions (gip_copy ...) are always present. */
#pragma weak gip_convert
#pragma weak gip_cvt_color
#pragma weak gip_invert
#pragma weak gip_box_filter
#pragma weak gip_filter2d
#pragma weak gip_conv2d
#pragma weak gip_sobel
#pragma weak gip_sobel_magnitude
#pragma weak gip_gaussian_blur
#pragma weak gip_gaussian_kernel
#pragma weak gip_spectrum
#pragma weak gip_fft2
#pragma weak gip_map
#pragma weak gip_stencil
#pragma weak gip_erode
#pragma weak gip_morphology
#pragma weak gip_median_blur
#pragma weak gip_bilateral_filter
#pragma weak gip_laplacian
#pragma weak gip_canny

const float bench_filter2d_kernel[9] = {0.05f, 0.1f, 0.05f, 0.1f, 0.4f, 0.1f, 0.05f, 0.1f, 0.05f};
const int bench_filter2d_kernel_int[9] = {1, 2, 1, 2, 8, 2, 1, 2, 1};
const int bench_filter2d_divisor = 20;

const char bench_stencil_mean3_expr[] =
    "out = (in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in(0,0) + in(1,0) + in(-1,1) + in(0,1) "
    "+ in(1,1)) / 9";

const char bench_mean3_cuda_source[] =
    "__device__ static int mirror(int i, int n)\n"
    "{\n"
    "    return n == 1 ? 0 : i < 0 ? -i : i >= n ? 2 * n - i - 2 : i;\n"
    "}\n"
    "extern \"C\" __global__ void mean3(const unsigned char *src, int w, int h, long long ss,\n"
    "                                 int c, unsigned char *dst, int dw, int dh, long long ds,\n"
    "                                 int dc)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + "
    "threadIdx.y;\n"
    "    if (x >= w || y >= h)\n"
    "        return;\n"
    "    for (int k = 0; k < c; k++) {\n"
    "        int sum = 0;\n"
    "        for (int dy = -1; dy <= 1; dy++)\n"
    "            for (int dx = -1; dx <= 1; dx++)\n"
    "                sum += src[mirror(y + dy, h) * ss + mirror(x + dx, w) * c + k];\n"
    "        dst[y * ds + x * c + k] = (unsigned char)((sum + 4) / 9);\n"
    "    }\n"
    "}\n";

/* The seed's Sobel Conv2d: every (out, in) pair holds the x-derivative kernel. */
static float conv2d_weight[3 * 3 * 3 * 3];

void bench_gaussian15_taps(float taps[15])
{
    double k[15];
    if (gip_gaussian_kernel && gip_gaussian_kernel(15, 0, k) == GIP_OK) {
        for (int i = 0; i < 15; i++)
            taps[i] = (float)k[i];
        return;
    }
    /* OpenCV's rule for ksize 15, sigma 0 (no fixed table above ksize 7). */
    double sigma = 0.3 * ((15 - 1) * 0.5 - 1) + 0.8, sum = 0;
    for (int i = 0; i < 15; i++)
        sum += k[i] = exp(-(double)(i - 7) * (i - 7) / (2 * sigma * sigma));
    for (int i = 0; i < 15; i++)
        taps[i] = (float)(k[i] / sum);
}

static gip_status op_copy(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_copy(ctx, src, dst);
}

static gip_status op_convert(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_convert(ctx, src, dst, 1.0, 0.0);
}

static gip_status op_rgb2gray(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_cvt_color(ctx, src, dst, GIP_COLOR_RGB2GRAY);
}

static gip_status op_invert(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_invert(ctx, src, dst, NULL);
}

static gip_status op_box3(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_box_params p = {0};
    p.ksize_w = p.ksize_h = 3;
    return gip_box_filter(ctx, src, dst, &p);
}

static gip_status op_filter2d3(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_filter2d_params p = {0};
    p.kernel = bench_filter2d_kernel;
    p.ksize_w = p.ksize_h = 3;
    return gip_filter2d(ctx, src, dst, &p);
}

static gip_status op_sobel(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_sobel_params p = {0};
    p.dx = 1;
    p.ksize = 3;
    return gip_sobel(ctx, src, dst, &p);
}

static gip_status op_sobel_mag(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_sobel_params p = {0};
    p.ksize = 3;
    return gip_sobel_magnitude(ctx, src, dst, &p);
}

static gip_status op_gaussian15(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_gaussian_params p = {0};
    p.ksize_w = p.ksize_h = 15;
    return gip_gaussian_blur(ctx, src, dst, &p);
}

/* The large kernel, sigma 20 and 121x121, through each method: shows the crossover. */
static gip_status gaussian121(gip_context *ctx, const gip_image *src, gip_image *dst,
                              gip_conv_method method)
{
    gip_gaussian_params p = {0};
    p.ksize_w = p.ksize_h = 121;
    p.sigma_x = p.sigma_y = 20.0;
    p.method = method;
    return gip_gaussian_blur(ctx, src, dst, &p);
}

static gip_status op_gaussian121_direct(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gaussian121(ctx, src, dst, GIP_CONV_DIRECT);
}

static gip_status op_gaussian121_fft(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gaussian121(ctx, src, dst, GIP_CONV_FFT);
}

static gip_status op_conv2d(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const float sobel_x[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
    for (int i = 0; i < 81; i++)
        conv2d_weight[i] = sobel_x[i % 9];
    gip_conv2d_params p = {0};
    p.weight = conv2d_weight;
    p.kh = p.kw = 3;
    p.pad_h = p.pad_w = 1;
    return gip_conv2d(ctx, src, dst, &p);
}

static gip_status op_spectrum(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_spectrum(ctx, src, dst, NULL);
}

static gip_status op_fft2_r2c(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_fft2(ctx, src, dst, NULL);
}

static gip_status op_stencil_mean3(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_stencil_params p = {0}; /* reflect101, radius 1 from the expression, as box3 */
    return gip_stencil(ctx, bench_stencil_mean3_expr, src, dst, &p);
}

/* The same computation as the invert rows: the dtype's maximum minus the value. */
static gip_status op_map_invert(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    const char *expr = src->dtype == GIP_U16   ? "out = 65535 - in"
                       : src->dtype == GIP_F32 ? "out = 1 - in"
                                               : "out = 255 - in";
    return gip_map(ctx, expr, src, 1, NULL, 0, dst);
}

static int have_core(void)
{
    return 1;
}
static int have_convert(void)
{
    return gip_convert != NULL;
}
static int have_cvt_color(void)
{
    return gip_cvt_color != NULL;
}
static int have_invert(void)
{
    return gip_invert != NULL;
}
static int have_box(void)
{
    return gip_box_filter != NULL;
}
static int have_filter2d(void)
{
    return gip_filter2d != NULL;
}
static int have_sobel(void)
{
    return gip_sobel != NULL;
}
static int have_sobel_mag(void)
{
    return gip_sobel_magnitude != NULL;
}
static int have_gaussian(void)
{
    return gip_gaussian_blur != NULL;
}
static int have_conv2d(void)
{
    return gip_conv2d != NULL;
}
static int have_spectrum(void)
{
    return gip_spectrum != NULL;
}
static int have_fft2(void)
{
    return gip_fft2 != NULL;
}
static int have_stencil(void)
{
    return gip_stencil != NULL;
}
static int have_map(void)
{
    return gip_map != NULL;
}

/* Issue 41's rows: morphology, median, bilateral, Laplacian, Canny (OpenCV's defaults). */
static gip_status op_erode3(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_morph_params p = {.ksize_w = 3, .ksize_h = 3};
    return gip_erode(ctx, src, dst, &p);
}
static gip_status op_erode15(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_morph_params p = {.ksize_w = 15, .ksize_h = 15};
    return gip_erode(ctx, src, dst, &p);
}
static gip_status op_open5_ellipse(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_morph_params p = {
        .op = GIP_MORPH_OPEN, .ksize_w = 5, .ksize_h = 5, .shape = GIP_MORPH_ELLIPSE};
    return gip_morphology(ctx, src, dst, &p);
}
static gip_status op_median3(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_median_blur(ctx, src, dst, 3);
}
static gip_status op_median5(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_median_blur(ctx, src, dst, 5);
}
static gip_status op_median15(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_median_blur(ctx, src, dst, 15);
}
static gip_status op_bilateral9(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_bilateral_params p = {.d = 9, .sigma_color = 75, .sigma_space = 75};
    return gip_bilateral_filter(ctx, src, dst, &p);
}
static gip_status op_laplacian3(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_laplacian_params p = {.ksize = 3};
    return gip_laplacian(ctx, src, dst, &p);
}
static gip_status op_canny3_l2(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_canny_params p = {.threshold1 = 50, .threshold2 = 150, .aperture = 3, .l2_gradient = 1};
    return gip_canny(ctx, src, dst, &p);
}
static int have_erode(void)
{
    return gip_erode != NULL;
}
static int have_morphology(void)
{
    return gip_morphology != NULL;
}
static int have_median(void)
{
    return gip_median_blur != NULL;
}
static int have_bilateral(void)
{
    return gip_bilateral_filter != NULL;
}
static int have_laplacian(void)
{
    return gip_laplacian != NULL;
}
static int have_canny(void)
{
    return gip_canny != NULL;
}

/* The optional fields of bench_op, none used by these rows. */
#define NO_EXTRAS NULL, NULL, NULL, NULL

#define COMMON "u8c1,u8c3,f32c1"
#define ALL "u8c1,u8c3,u8c4,u16c1,f32c1,f32c3"

/* clang-format off */
const bench_op bench_ops_core[] = {
    {"copy", "copy (device-to-device on GPU, host copy on CPU)", "gip_copy",
     COMMON, ALL, BENCH_DST_SAME, 0, op_copy, have_core, NO_EXTRAS},
    {"convert_f32", "convert u8 -> f32 (scale 1)", "gip_convert",
     "u8c1,u8c3", "u8c1,u8c3,u8c4", BENCH_DST_F32, 0, op_convert, have_convert, NO_EXTRAS},
    {"rgb2gray", "cvt_color RGB2GRAY", "gip_cvt_color",
     "u8c3", "u8c3,f32c3", BENCH_DST_SAME, 1, op_rgb2gray, have_cvt_color, NO_EXTRAS},
    {"invert", "invert (255 - x; 1.0 - x for f32)", "gip_invert",
     COMMON, ALL, BENCH_DST_SAME, 0, op_invert, have_invert, NO_EXTRAS},
    {"box3", "box filter 3x3, normalised, reflect101", "gip_box_filter",
     COMMON, ALL, BENCH_DST_SAME, 0, op_box3, have_box, NO_EXTRAS},
    {"filter2d3", "filter2D 3x3 (float kernel), reflect101", "gip_filter2d",
     COMMON, ALL, BENCH_DST_SAME, 0, op_filter2d3, have_filter2d, NO_EXTRAS},
    {"sobel_s16", "Sobel dx=1 ksize 3, u8 -> s16", "gip_sobel",
     "u8c1,u8c3", "u8c1,u8c3,u8c4", BENCH_DST_S16, 0, op_sobel, have_sobel, NO_EXTRAS},
    {"sobel_f32", "Sobel dx=1 ksize 3, -> f32", "gip_sobel",
     COMMON, "u8c1,u8c3,u8c4,u16c1,f32c1,f32c3", BENCH_DST_F32, 0, op_sobel, have_sobel, NO_EXTRAS},
    {"sobel_u8", "Sobel dx=1 ksize 3, u8 -> u8 (convertScaleAbs)", "gip_sobel",
     "u8c1,u8c3", "u8c1,u8c3,u8c4", BENCH_DST_U8, 0, op_sobel, have_sobel, NO_EXTRAS},
    {"sobel_mag", "Sobel gradient magnitude ksize 3, -> f32", "gip_sobel_magnitude",
     COMMON, "u8c1,u8c3,f32c1,f32c3", BENCH_DST_F32, 0, op_sobel_mag, have_sobel_mag, NO_EXTRAS},
    {"gaussian15", "Gaussian blur 15x15, sigma from ksize (2.6), reflect101", "gip_gaussian_blur",
     COMMON, ALL, BENCH_DST_SAME, 0, op_gaussian15, have_gaussian, NO_EXTRAS},
    {"gauss121_direct", "Gaussian blur 121x121 sigma 20, direct separable (issue 5's crossover)",
     "gip_gaussian_blur", "f32c1", "u8c1,f32c1", BENCH_DST_SAME, 0, op_gaussian121_direct,
     have_gaussian, NO_EXTRAS},
    {"gauss121_fft", "Gaussian blur 121x121 sigma 20, through the FFT", "gip_gaussian_blur",
     "f32c1", "u8c1,f32c1", BENCH_DST_SAME, 0, op_gaussian121_fft, have_gaussian, NO_EXTRAS},
    {"conv2d_sobel", "Conv2d 3 -> 3 channels, 3x3 Sobel weights, zero pad 1, -> f32", "gip_conv2d",
     "u8c3,f32c3", "u8c3,f32c3", BENCH_DST_F32, 0, op_conv2d, have_conv2d, NO_EXTRAS},
    {"spectrum", "centred log-magnitude spectrum -> u8 (the seed: fft2, fftshift, log|F|, "
     "min-max)", "gip_spectrum",
     "u8c1", "u8c1,u8c3,u16c1,f32c1", BENCH_DST_U8, 1, op_spectrum, have_spectrum, NO_EXTRAS},
    {"fft2_r2c", "fft2 real -> half spectrum c32 ((W/2+1) x H), numpy.fft.rfft2", "gip_fft2",
     "f32c1", "u8c1,u16c1,f32c1", BENCH_DST_C32_HALF, 1, op_fft2_r2c, have_fft2, NO_EXTRAS},
    {"stencil_mean3", "stencil expression, 3x3 mean, reflect101 (target: within 1.5x of box3)",
     "gip_stencil", COMMON, ALL, BENCH_DST_SAME, 0, op_stencil_mean3, have_stencil, NO_EXTRAS},
    {"map_invert", "map expression max - in (compare invert)", "gip_map",
     COMMON, ALL, BENCH_DST_SAME, 0, op_map_invert, have_map, NO_EXTRAS},
    {"erode3", "erode 3x3 rectangle, OpenCV's default border", "gip_erode",
     "u8c1,u8c3", "u8c1,u8c3,u8c4,u16c1,f32c1", BENCH_DST_SAME, 0, op_erode3, have_erode, NO_EXTRAS},
    {"erode15", "erode 15x15 rectangle, OpenCV's default border", "gip_erode",
     "u8c1,u8c3", "u8c1,u8c3,u8c4,u16c1,f32c1", BENCH_DST_SAME, 0, op_erode15, have_erode, NO_EXTRAS},
    {"open5_ellipse", "morphologyEx open, 5x5 ellipse", "gip_morphology",
     "u8c1,u8c3", "u8c1,u8c3,u8c4,u16c1,f32c1", BENCH_DST_SAME, 0, op_open5_ellipse,
     have_morphology, NO_EXTRAS},
    {"median3", "medianBlur 3", "gip_median_blur",
     "u8c1,u8c3", "u8c1,u8c3,u8c4,u16c1,f32c1", BENCH_DST_SAME, 0, op_median3, have_median, NO_EXTRAS},
    {"median5", "medianBlur 5", "gip_median_blur",
     "u8c1,u8c3", "u8c1,u8c3,u8c4,u16c1,f32c1", BENCH_DST_SAME, 0, op_median5, have_median, NO_EXTRAS},
    {"median15", "medianBlur 15 (u8: sliding histograms)", "gip_median_blur",
     "u8c1,u8c3", "u8c1,u8c3,u8c4", BENCH_DST_SAME, 0, op_median15, have_median, NO_EXTRAS},
    {"bilateral9", "bilateralFilter d=9, sigmas 75, reflect101", "gip_bilateral_filter",
     "u8c1,u8c3", "u8c1,u8c3,f32c1,f32c3", BENCH_DST_SAME, 0, op_bilateral9, have_bilateral, NO_EXTRAS},
    {"laplacian3", "Laplacian ksize 3, same dtype, reflect101", "gip_laplacian",
     "u8c1,u8c3", "u8c1,u8c3,u8c4,u16c1,f32c1", BENCH_DST_SAME, 0, op_laplacian3, have_laplacian, NO_EXTRAS},
    {"canny3_l2", "Canny 50, 150, aperture 3, L2 gradient -> u8c1", "gip_canny",
     "u8c1,u8c3", "u8c1,u8c3,u8c4", BENCH_DST_U8, 1, op_canny3_l2, have_canny, NO_EXTRAS},
};
/* clang-format on */
const int bench_nops_core = (int)(sizeof bench_ops_core / sizeof bench_ops_core[0]);

int bench_op_count(void)
{
    return bench_nops_core + bench_nops_geometry + bench_nops_color + bench_nops_stats;
}

const bench_op *bench_op_at(int i)
{
    const bench_op *t[] = {bench_ops_core, bench_ops_geometry, bench_ops_color, bench_ops_stats};
    const int n[] = {bench_nops_core, bench_nops_geometry, bench_nops_color, bench_nops_stats};
    for (int k = 0; k < 4; k++) {
        if (i < n[k])
            return &t[k][i];
        i -= n[k];
    }
    return NULL;
}
