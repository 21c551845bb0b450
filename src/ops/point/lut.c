/* SPDX-License-Identifier: MIT */
/* The registry's lut (cv2.LUT on u8): gip_lut() with a table given as a 1 x 256 or C x 256
 * matrix. */
#include <math.h>

#include "gip/point.h"
#include "internal.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX("table", GIP_PARAM_MATRIX, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 255, 256,
                  NULL, NULL,
                  "256 values in 0..255 (one row for every channel, or one row per channel)",
                  "255,254,253,252,251,250,249,248,247,246,245,244,243,242,241,240,239,238,237,"
                  "236,235,234,233,232,231,230,229,228,227,226,225,224,223,222,221,220,219,218,"
                  "217,216,215,214,213,212,211,210,209,208,207,206,205,204,203,202,201,200,199,"
                  "198,197,196,195,194,193,192,191,190,189,188,187,186,185,184,183,182,181,180,"
                  "179,178,177,176,175,174,173,172,171,170,169,168,167,166,165,164,163,162,161,"
                  "160,159,158,157,156,155,154,153,152,151,150,149,148,147,146,145,144,143,142,"
                  "141,140,139,138,137,136,135,134,133,132,131,130,129,128,127,126,125,124,123,"
                  "122,121,120,119,118,117,116,115,114,113,112,111,110,109,108,107,106,105,104,"
                  "103,102,101,100,99,98,97,96,95,94,93,92,91,90,89,88,87,86,85,84,83,82,81,80,"
                  "79,78,77,76,75,74,73,72,71,70,69,68,67,66,65,64,63,62,61,60,59,58,57,56,55,"
                  "54,53,52,51,50,49,48,47,46,45,44,43,42,41,40,39,38,37,36,35,34,33,32,31,30,"
                  "29,28,27,26,25,24,23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,"
                  "1,0"),
};

typedef struct lut_step {
    uint8_t table[4 * 256];
    int32_t rows;
} lut_step;

static gip_status build(const gip_args *a, void *out)
{
    lut_step *s = out;
    int32_t rows = 0, cols = 0;
    const float *m = gip_args_matrix(a, "table", &rows, &cols);
    if (!m || cols != 256 || (rows != 1 && rows != 3 && rows != 4))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "lut: table must be 1, 3 or 4 rows of 256 values, got %d x %d", (int)rows,
                          (int)cols);
    for (int32_t i = 0; i < rows * 256; i++) {
        if (!(m[i] >= 0 && m[i] <= 255) || m[i] != floorf(m[i]))
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "lut: table values must be integers in 0..255, got %g at row %d, "
                              "column %d",
                              (double)m[i], (int)(i / 256), (int)(i % 256));
        s->table[i] = (uint8_t)m[i];
    }
    s->rows = rows;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const lut_step *s = p;
    return gip_lut(ctx, src, dst, s->table, s->rows);
}

const gip_op gip__op_lut = {
    .name = "lut",
    .family = "point",
    .summary = "Looks every u8 value up in a table, as cv2.LUT.",
    .doc = "dst = table[src] for u8 images: one row of 256 values for every channel, or one row "
           "per channel (as a cv2.LUT table with the image's channels).",
    .cv_name = "cv2.LUT",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE,
    .params_size = sizeof(lut_step),
    .build = build,
    .run = run,
};
