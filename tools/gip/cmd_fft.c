/* SPDX-License-Identifier: MIT */
/* The Fourier subcommands fft and ifft: complex data in NumPy .npy files, which numpy reads with
 * np.load and writes with np.save (the spectrum image is the registered operation spectrum). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
/* The output files of the library (src/io/atomic_write.c), shared rather than copied: the CLI
 * links libgip statically. */
#include "../../src/io/io_internal.h"

/* .npy stores little-endian data here ('<c8', '<f4'); gip writes the host's floats as they are. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy reader and writer of the gip CLI assume a little-endian host"
#endif

/* ---- NumPy .npy files ---------------------------------------------------------------------
 * Format 1.0 (numpy/lib/format.py): the magic "\x93NUMPY", major 1, minor 0, the header length
 * as a little-endian uint16, then the header: a Python dict literal with exactly the keys
 * 'descr', 'fortran_order' and 'shape', padded with spaces and ended by '\n' so that the data
 * starts at a multiple of 64 bytes. Versions 2.0 and 3.0 differ only by a uint32 length. The data
 * follows the header, C order, nothing after it. */

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_HEADER (1 << 20) /* far beyond any 2-D header; refuses absurd lengths */

/* Writes all of buf to fd, retrying short writes; 0 or -1 with errno. */
static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Reads exactly len bytes; returns the number read (less at the end of the file) or -1. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, p + got, len - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/**
 * Writes the 2-D host image `img` (1 channel, c32 or f32) as a .npy file of shape (height, width)
 * and dtype '<c8' or '<f4' through the library's output files (as gip_image_save(): complete or
 * not at all, nothing left behind by a kill, mode kept, a read-only `path` only with overwrite).
 */
static int npy_write(const cli_command *cmd, const char *path, const gip_image *img, int overwrite)
{
    const char *descr = img->dtype == GIP_C32 ? "<c8" : "<f4";
    char header[256];
    int n = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }", descr,
                     (long long)img->height, (long long)img->width);
    /* Pad with spaces so that magic + version + length + header (ending in '\n') is a multiple
     * of 64 bytes, as numpy writes it. */
    size_t prefix = NPY_MAGIC_LEN + 2 + 2;
    size_t total = (prefix + (size_t)n + 1 + 63) / 64 * 64;
    size_t hlen = total - prefix;
    memset(header + n, ' ', hlen - 1 - (size_t)n);
    header[hlen - 1] = '\n';
    unsigned char pre[10];
    memcpy(pre, NPY_MAGIC, NPY_MAGIC_LEN);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (unsigned char)(hlen & 0xff);
    pre[9] = (unsigned char)(hlen >> 8);

    gip__outfile f;
    gip_status st = gip__outfile_open("gip", path, overwrite ? GIP__OUT_OVERWRITE : 0, &f);
    if (st)
        return cli_lib_error(cmd->name, st);
    size_t row = (size_t)gip_image_row_bytes(img);
    int ok = write_all(f.fd, pre, sizeof pre) == 0 && write_all(f.fd, header, hlen) == 0;
    for (int64_t y = 0; ok && y < img->height; y++)
        ok = write_all(f.fd, (const char *)img->data + y * img->stride, row) == 0;
    if (!ok) {
        int err = errno;
        gip__outfile_abort(&f);
        return cli_runtime_error(cmd, "cannot write '%s': %s", path, strerror(err));
    }
    if ((st = gip__outfile_commit(&f)))
        return cli_lib_error(cmd->name, st);
    return 0;
}

/* A cursor over the header text, for the dict parser below. */
typedef struct npy_scan {
    const char *p, *end;
} npy_scan;

static void skip_space(npy_scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
        s->p++;
}

/* Consumes character c (after spaces); false when something else is there. */
static int take(npy_scan *s, char c)
{
    skip_space(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return 1;
    }
    return 0;
}

/* A Python string literal '...' or "..." without escapes, copied into out. */
static int take_string(npy_scan *s, char *out, size_t size)
{
    skip_space(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"'))
        return 0;
    char q = *s->p++;
    size_t n = 0;
    while (s->p < s->end && *s->p != q) {
        if (*s->p == '\\' || n + 1 >= size)
            return 0;
        out[n++] = *s->p++;
    }
    if (s->p >= s->end)
        return 0;
    s->p++;
    out[n] = '\0';
    return 1;
}

/* A non-negative decimal integer up to GIP_MAX_DIM. */
static int take_dim(npy_scan *s, int64_t *out)
{
    skip_space(s);
    int64_t v = 0;
    const char *start = s->p;
    while (s->p < s->end && isdigit((unsigned char)*s->p)) {
        v = v * 10 + (*s->p++ - '0');
        if (v > GIP_MAX_DIM)
            return 0;
    }
    *out = v;
    return s->p > start;
}

/* The word True or False. */
static int take_bool(npy_scan *s, int *out)
{
    skip_space(s);
    size_t left = (size_t)(s->end - s->p);
    if (left >= 4 && strncmp(s->p, "True", 4) == 0) {
        s->p += 4;
        *out = 1;
    } else if (left >= 5 && strncmp(s->p, "False", 5) == 0) {
        s->p += 5;
        *out = 0;
    } else {
        return 0;
    }
    return 1;
}

/* What the header says. */
typedef struct npy_header {
    char descr[32];
    int fortran_order;
    int ndim;
    int64_t shape[8];
} npy_header;

/* Parses the header dict strictly: exactly the three keys, each once, any order, an optional
 * trailing comma, then only spaces up to the final '\n'. Returns NULL or what was wrong. */
static const char *npy_parse_header(const char *text, size_t len, npy_header *h)
{
    npy_scan s = {text, text + len};
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
    if (len == 0 || text[len - 1] != '\n')
        return "the header does not end with a newline";
    s.end--; /* the '\n' */
    if (!take(&s, '{'))
        return "the header is not a dict: it does not start with '{'";
    for (;;) {
        if (take(&s, '}'))
            break;
        char key[32];
        if (!take_string(&s, key, sizeof key))
            return "expected a quoted key in the header dict";
        if (!take(&s, ':'))
            return "expected ':' after a key in the header dict";
        if (strcmp(key, "descr") == 0) {
            if (seen_descr++)
                return "the key 'descr' appears twice";
            if (!take_string(&s, h->descr, sizeof h->descr))
                return "'descr' is not a simple dtype string (structured dtypes are not "
                       "accepted)";
        } else if (strcmp(key, "fortran_order") == 0) {
            if (seen_fortran++)
                return "the key 'fortran_order' appears twice";
            if (!take_bool(&s, &h->fortran_order))
                return "'fortran_order' is not True or False";
        } else if (strcmp(key, "shape") == 0) {
            if (seen_shape++)
                return "the key 'shape' appears twice";
            if (!take(&s, '('))
                return "'shape' is not a tuple";
            h->ndim = 0;
            while (!take(&s, ')')) {
                if (h->ndim == 8)
                    return "'shape' has more than 8 dimensions";
                if (!take_dim(&s, &h->shape[h->ndim]))
                    return "'shape' holds something other than sizes up to 2147483647";
                h->ndim++;
                if (take(&s, ','))
                    continue;
                if (!take(&s, ')'))
                    return "'shape' is not a well-formed tuple";
                break;
            }
        } else {
            return "the header dict has a key other than 'descr', 'fortran_order' and 'shape'";
        }
        if (take(&s, ','))
            continue;
        if (!take(&s, '}'))
            return "expected ',' or '}' in the header dict";
        break;
    }
    skip_space(&s);
    if (s.p != s.end)
        return "characters follow the header dict";
    if (!seen_descr || !seen_fortran || !seen_shape)
        return "the header dict lacks one of 'descr', 'fortran_order' and 'shape'";
    return NULL;
}

/**
 * Reads a 2-D complex64 .npy file into a newly allocated host c32 image (width = the last axis).
 * Everything is checked before the data is trusted: the magic, the version, the header dict, the
 * dtype ('<c8' only), C order, two dimensions of at least 1, and a file size equal to the header
 * plus height * width * 8 bytes (a truncated file or bytes after the data are refused).
 */
static int npy_read(const cli_command *cmd, const char *path, gip_image *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cli_runtime_error(cmd, "cannot open '%s': %s", path, strerror(errno));
    int rc = CLI_EXIT_RUNTIME;
    char *header = NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        cli_runtime_error(cmd, "'%s' is not a regular file", path);
        goto out_close;
    }
    unsigned char pre[12];
    ssize_t got = read_full(fd, pre, 10);
    if (got < 0) {
        cli_runtime_error(cmd, "cannot read '%s': %s", path, strerror(errno));
        goto out_close;
    }
    if (got < 10 || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        cli_runtime_error(cmd, "'%s' is not a NumPy .npy file (no \\x93NUMPY magic)", path);
        goto out_close;
    }
    size_t prefix, hlen;
    if (pre[6] == 1 && pre[7] == 0) {
        prefix = 10;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if ((pre[6] == 2 || pre[6] == 3) && pre[7] == 0) {
        if (read_full(fd, pre + 10, 2) != 2) {
            cli_runtime_error(cmd, "'%s': truncated .npy header", path);
            goto out_close;
        }
        prefix = 12;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        cli_runtime_error(cmd, "'%s': .npy format version %d.%d is not accepted (1.0, 2.0, 3.0)",
                          path, pre[6], pre[7]);
        goto out_close;
    }
    if (hlen == 0 || hlen > NPY_MAX_HEADER || (int64_t)(prefix + hlen) > (int64_t)sb.st_size) {
        cli_runtime_error(cmd, "'%s': .npy header length %zu does not fit the file (%lld bytes)",
                          path, hlen, (long long)sb.st_size);
        goto out_close;
    }
    header = malloc(hlen);
    if (!header) {
        cli_runtime_error(cmd, "out of memory");
        goto out_close;
    }
    if (read_full(fd, header, hlen) != (ssize_t)hlen) {
        cli_runtime_error(cmd, "'%s': truncated .npy header", path);
        goto out_free_header;
    }
    if (memchr(header, '\0', hlen)) {
        cli_runtime_error(cmd, "'%s': .npy header holds a NUL byte", path);
        goto out_free_header;
    }
    npy_header h = {0};
    const char *why = npy_parse_header(header, hlen, &h);
    if (why) {
        cli_runtime_error(cmd, "'%s': malformed .npy header: %s", path, why);
        goto out_free_header;
    }
    if (strcmp(h.descr, "<c8") != 0) {
        cli_runtime_error(cmd,
                          "'%s': dtype '%s' is not accepted; accepted: complex64, '<c8' (numpy: "
                          "np.save(path, a.astype(np.complex64)))",
                          path, h.descr);
        goto out_free_header;
    }
    if (h.fortran_order) {
        cli_runtime_error(cmd,
                          "'%s': Fortran-order data is not accepted (numpy: "
                          "np.save(path, np.ascontiguousarray(a)))",
                          path);
        goto out_free_header;
    }
    if (h.ndim != 2 || h.shape[0] < 1 || h.shape[1] < 1) {
        cli_runtime_error(cmd,
                          "'%s': an array of %d dimensions (or an empty one) is not accepted; "
                          "accepted: 2-D (height, width), each at least 1",
                          path, h.ndim);
        goto out_free_header;
    }
    int64_t height = h.shape[0], width = h.shape[1], data_bytes;
    if (gip_image_size(width, height, 1, GIP_C32, NULL, &data_bytes) != GIP_OK) {
        cli_runtime_error(cmd, "'%s': shape (%lld, %lld) is too large", path, (long long)height,
                          (long long)width);
        goto out_free_header;
    }
    int64_t have = (int64_t)sb.st_size - (int64_t)(prefix + hlen);
    if (have != data_bytes) {
        cli_runtime_error(cmd,
                          "'%s': %s: %lld bytes of data for shape (%lld, %lld) of '<c8', which "
                          "needs %lld",
                          path, have < data_bytes ? "truncated" : "bytes after the data",
                          (long long)have, (long long)height, (long long)width,
                          (long long)data_bytes);
        goto out_free_header;
    }
    gip_image img = {0};
    gip_status st = gip_image_alloc(NULL, &img, width, height, 1, GIP_C32, GIP_MEM_HOST, 0);
    if (st) {
        cli_lib_error(cmd->name, st);
        goto out_free_header;
    }
    size_t row = (size_t)gip_image_row_bytes(&img);
    errno = 0;
    for (int64_t y = 0; y < height; y++)
        if (read_full(fd, (char *)img.data + y * img.stride, row) != (ssize_t)row) {
            cli_runtime_error(cmd, "cannot read '%s': %s", path,
                              errno ? strerror(errno) : "the file shrank while being read");
            gip_image_free(NULL, &img);
            goto out_free_header;
        }
    *out = img;
    rc = 0;
out_free_header:
    free(header);
out_close:
    close(fd);
    return rc;
}

/* Non-zero when path ends with ext, ignoring case. */
static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

/* Parses --norm into params->norm. */
static int parse_norm(const cli_command *cmd, const char *s, gip_fft_params *params)
{
    if (!s)
        return 0;
    if (strcmp(s, "backward") == 0)
        params->norm = GIP_FFT_NORM_BACKWARD;
    else if (strcmp(s, "forward") == 0)
        params->norm = GIP_FFT_NORM_FORWARD;
    else if (strcmp(s, "ortho") == 0)
        params->norm = GIP_FFT_NORM_ORTHO;
    else
        return cli_usage(cmd,
                         "--norm: unknown normalisation '%s'; accepted: backward (default), "
                         "forward or ortho",
                         s);
    return 0;
}

/* Runs `fn` t->repeat times, synchronising after each, recording each duration. */
typedef gip_status (*transform_fn)(gip_context *ctx, const gip_image *src, gip_image *dst,
                                   const gip_fft_params *params);

static gip_status run_timed(gip_context *ctx, transform_fn fn, const gip_image *src, gip_image *dst,
                            const gip_fft_params *params, cli_timings *t)
{
    for (int64_t r = 0; r < t->repeat; r++) {
        double t0 = cli_now();
        gip_status st = fn(ctx, src, dst, params);
        if (!st)
            st = gip_context_sync(ctx);
        if (st)
            return st;
        t->runs[r] = cli_now() - t0;
    }
    return GIP_OK;
}

/* Runs fn from the host image `in` into a new host image *out, `width` x in's height, one
 * channel of `dtype`: on the context's device when it has one (uploaded, downloaded), the times
 * in t. 0, or the exit status once the message is printed; *out holds nothing then. */
static int transform(const cli_command *cmd, gip_context *ctx, transform_fn fn,
                     const gip_fft_params *params, const gip_image *in, int64_t width,
                     gip_dtype dtype, cli_timings *t, gip_image *out)
{
    const int on_device = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_image dev_in = {0}, dst = {0};
    const gip_image *src = in;
    gip_status st;
    int rc = 0;
    if (on_device) {
        if ((st = cli_upload(ctx, in, &dev_in, &t->upload)))
            return cli_lib_error(cmd->name, st);
        src = &dev_in;
    }
    if ((st = gip_image_alloc(ctx, &dst, width, in->height, 1, dtype,
                              on_device ? GIP_MEM_CUDA : GIP_MEM_HOST, 0))) {
        rc = cli_lib_error(cmd->name, st);
    } else if ((st = run_timed(ctx, fn, src, &dst, params, t))) {
        rc = cli_op_error(cmd, st);
    } else if (!on_device) {
        *out = dst;
        dst = (gip_image){0};
    } else if ((st = cli_download(ctx, &dst, out, &t->download))) {
        rc = cli_lib_error(cmd->name, st);
    }
    gip_image_free(ctx, &dst);
    gip_image_free(ctx, &dev_in);
    return rc;
}

/* ---- fft ------------------------------------------------------------------------------------ */

/* Rebuilds the full W x H spectrum of a real image from its half spectrum (Hermitian symmetry:
 * F(kx, ky) = conj(F(W - kx, H - ky)) for the columns the half leaves out). */
static gip_status full_from_half(const gip_image *half, int64_t width, gip_image *full)
{
    gip_status st = gip_image_alloc(NULL, full, width, half->height, 1, GIP_C32, GIP_MEM_HOST, 0);
    if (st)
        return st;
    int64_t h = half->height, hw = half->width;
    for (int64_t y = 0; y < h; y++) {
        const float *src = (const float *)((const char *)half->data + y * half->stride);
        const float *mirror =
            (const float *)((const char *)half->data + ((h - y) % h) * half->stride);
        float *dst = (float *)((char *)full->data + y * full->stride);
        memcpy(dst, src, (size_t)hw * 2 * sizeof(float));
        for (int64_t x = hw; x < width; x++) {
            dst[2 * x] = mirror[2 * (width - x)];
            dst[2 * x + 1] = -mirror[2 * (width - x) + 1];
        }
    }
    return GIP_OK;
}

static int run_fft(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--norm", "MODE", NULL, 0}, {"--full", NULL, NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    gip_fft_params params = {0};
    if ((rc = parse_norm(cmd, cli_opt_value(opts, "--norm"), &params)))
        return rc;
    int full = cli_opt_value(opts, "--full") != NULL;
    const char *in = pos[0], *out = pos[1];
    if (!has_ext(out, ".npy"))
        return cli_usage(cmd,
                         "OUT '%s' must end in .npy: the spectrum is complex data, written "
                         "as a NumPy complex64 array",
                         out);

    gip_context *ctx = NULL;
    if ((rc = cli_check_output(cmd, &common, out)) || (rc = cli_context(cmd, &common, &ctx)))
        return rc;
    gip_image host_in = {0}, host_spec = {0}, host_full = {0};
    cli_timings t = {0};
    gip_status st;
    double t0;
    rc = CLI_EXIT_RUNTIME;
    if (cli_timings_alloc(cmd, &t, common.repeat))
        goto out_destroy;

    /* Gray as cv2.IMREAD_GRAYSCALE | cv2.IMREAD_ANYDEPTH: 16-bit files keep their depth. */
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_GRAY;
    lp.keep_depth = 1;
    t0 = cli_now();
    if ((st = gip_image_load(in, &lp, &host_in))) {
        cli_lib_error(cmd->name, st);
        goto out_free_runs;
    }
    t.load = cli_now() - t0;
    if ((rc = transform(cmd, ctx, gip_fft2, &params, &host_in, host_in.width / 2 + 1, GIP_C32, &t,
                        &host_spec))) {
        goto out_free_host;
    }
    rc = CLI_EXIT_RUNTIME;
    const gip_image *result = &host_spec;
    t0 = cli_now();
    if (full) {
        if ((st = full_from_half(result, host_in.width, &host_full))) {
            cli_lib_error(cmd->name, st);
            goto out_free_host;
        }
        result = &host_full;
    }
    if ((rc = npy_write(cmd, out, result, common.overwrite)))
        goto out_free_host;
    t.save = cli_now() - t0;
    if (common.time) {
        char what[128];
        snprintf(what, sizeof what, "%lldx%lld gray %s; spectrum %lldx%lld complex64",
                 (long long)host_in.width, (long long)host_in.height, gip_dtype_name(host_in.dtype),
                 (long long)result->width, (long long)result->height);
        cli_print_times(cmd, ctx, in, what, out, &t);
    }
    rc = CLI_EXIT_OK;

out_free_host:
    gip_image_free(NULL, &host_full);
    gip_image_free(NULL, &host_spec);
    gip_image_free(NULL, &host_in);
out_free_runs:
    free(t.runs);
out_destroy:
    gip_context_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_fft = {
    .name = "fft",
    .summary = "2-D Fourier transform of an image into a NumPy .npy file",
    .run = run_fft,
    .example = "gip fft --norm ortho in.png spectrum.npy",
    .help =
        "Usage: gip fft [--norm MODE] [--full] [options] IN OUT.npy\n"
        "\n"
        "Forward 2-D discrete Fourier transform of IN read as gray (colour converted with the\n"
        "cv2.IMREAD_GRAYSCALE rule; 16-bit files keep their depth), written as a NumPy .npy file\n"
        "of complex64 ('<c8'), shape (H, W/2 + 1): numpy.fft.rfft2(image), the half spectrum.\n"
        "With --full, shape (H, W): numpy.fft.fft2(image). Read it with numpy.load(OUT); gip ifft\n"
        "reads it back. The file is written to a temporary name and renamed when complete.\n"
        "\n"
        "Options:\n"
        "  --norm MODE          backward (default: forward unscaled), forward (1/(W*H)) or ortho\n"
        "                       (1/sqrt(W*H)), as numpy's norm=; give gip ifft the same\n"
        "  --full               write the full W-wide spectrum instead of the half one\n",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_OUTPUT};

/* ---- ifft ----------------------------------------------------------------------------------- */

/* The real part of a host c32 image into a new host f32 image. */
static gip_status real_part(const gip_image *c, gip_image *r)
{
    gip_status st = gip_image_alloc(NULL, r, c->width, c->height, 1, GIP_F32, GIP_MEM_HOST, 0);
    if (st)
        return st;
    for (int64_t y = 0; y < c->height; y++) {
        const float *s = (const float *)((const char *)c->data + y * c->stride);
        float *d = (float *)((char *)r->data + y * r->stride);
        for (int64_t x = 0; x < c->width; x++)
            d[x] = s[2 * x];
    }
    return GIP_OK;
}

static int run_ifft(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {
        {"--width", "W", NULL, 0}, {"--norm", "MODE", NULL, 0}, {"--depth", "8|16", NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    gip_fft_params params = {0};
    if ((rc = parse_norm(cmd, cli_opt_value(opts, "--norm"), &params)))
        return rc;
    const char *width_text = cli_opt_value(opts, "--width");
    const char *depth_text = cli_opt_value(opts, "--depth");
    int64_t width = 0, depth = 8;
    if (width_text &&
        (rc = cli_parse_int(cmd, "--width", width_text, 1, GIP_MAX_DIM, "1..2147483647", &width)))
        return rc;
    if (depth_text) {
        if ((rc = cli_parse_int(cmd, "--depth", depth_text, 8, 16, "8 or 16", &depth)))
            return rc;
        if (depth != 8 && depth != 16)
            return cli_usage(cmd, "--depth: %lld is not accepted; accepted: 8 or 16",
                             (long long)depth);
    }
    const char *in = pos[0], *out = pos[1];
    int npy_out = has_ext(out, ".npy");
    if (npy_out && depth_text)
        return cli_usage(cmd, "--depth applies to image outputs; a .npy output is float32");

    gip_image host_spec = {0};
    cli_timings t = {0};
    double t0 = cli_now();
    if ((rc = npy_read(cmd, in, &host_spec)))
        return rc;
    t.load = cli_now() - t0;
    /* Half spectrum (W/2 + 1 columns) or full one (W columns)? The same for W <= 2. */
    int64_t n = host_spec.width;
    int half;
    if (width == 0) {
        half = 1;
        width = 2 * (n - 1);
        if (width == 0) {
            gip_image_free(NULL, &host_spec);
            return cli_usage(cmd, "'%s' is 1 column wide: give --width 1 (or 2)", in);
        }
    } else if (n == width / 2 + 1) {
        half = 1;
    } else if (n == width) {
        half = 0;
    } else {
        gip_image_free(NULL, &host_spec);
        return cli_usage(cmd,
                         "--width %lld does not fit '%s', %lld columns wide: a half spectrum of "
                         "width W has W/2 + 1 columns, a full one W (here: --width %lld or %lld, "
                         "or the full width %lld)",
                         (long long)width, in, (long long)n, (long long)(2 * (n - 1)),
                         (long long)(2 * n - 1), (long long)n);
    }

    gip_context *ctx = NULL;
    if ((rc = cli_check_output(cmd, &common, out)) || (rc = cli_context(cmd, &common, &ctx))) {
        gip_image_free(NULL, &host_spec);
        return rc;
    }
    gip_image host_dst = {0}, real = {0}, pixels = {0};
    gip_status st;
    rc = CLI_EXIT_RUNTIME;
    if (cli_timings_alloc(cmd, &t, common.repeat))
        goto out_destroy;
    /* Half: complex to real straight into f32. Full: complex to complex, then the real part. */
    if ((rc = transform(cmd, ctx, gip_ifft2, &params, &host_spec, width, half ? GIP_F32 : GIP_C32,
                        &t, &host_dst)))
        goto out_free_host;
    rc = CLI_EXIT_RUNTIME;
    const gip_image *result = &host_dst;
    t0 = cli_now();
    if (!half) {
        if ((st = real_part(result, &real))) {
            cli_lib_error(cmd->name, st);
            goto out_free_host;
        }
        result = &real;
    }
    if (npy_out) {
        if ((rc = npy_write(cmd, out, result, common.overwrite)))
            goto out_free_host;
    } else {
        /* Rounded half to even and saturated, as OpenCV's convertTo. */
        if ((st = gip_image_alloc(NULL, &pixels, result->width, result->height, 1,
                                  depth == 16 ? GIP_U16 : GIP_U8, GIP_MEM_HOST, 0)) ||
            (st = gip_convert(ctx, result, &pixels, 1.0, 0.0))) {
            cli_lib_error(cmd->name, st);
            goto out_free_host;
        }
        if ((rc = cli_save(cmd, &common, out, &pixels, NULL)))
            goto out_free_host;
    }
    t.save = cli_now() - t0;
    if (common.time) {
        char what[128];
        snprintf(what, sizeof what, "%s spectrum %lldx%lld complex64; image %lldx%lld",
                 half ? "half" : "full", (long long)host_spec.width, (long long)host_spec.height,
                 (long long)width, (long long)host_spec.height);
        cli_print_times(cmd, ctx, in, what, out, &t);
    }
    rc = CLI_EXIT_OK;

out_free_host:
    gip_image_free(NULL, &pixels);
    gip_image_free(NULL, &real);
    gip_image_free(NULL, &host_dst);
    free(t.runs);
out_destroy:
    gip_context_destroy(ctx);
    gip_image_free(NULL, &host_spec);
    return rc;
}

const cli_command cli_cmd_ifft = {
    .name = "ifft",
    .summary = "inverse 2-D Fourier transform of a NumPy .npy spectrum",
    .run = run_ifft,
    .example = "gip ifft --width 640 --norm ortho spectrum.npy out.png",
    .help =
        "Usage: gip ifft [--width W] [--norm MODE] [--depth 8|16] [options] IN.npy OUT\n"
        "\n"
        "Inverse 2-D discrete Fourier transform of a complex64 ('<c8') NumPy array of shape\n"
        "(H, N), as gip fft or numpy.save(path, a.astype(numpy.complex64)) write it. A half\n"
        "spectrum (N = W/2 + 1) gives numpy.fft.irfft2(a, s=(H, W)); a full one (N = W, with\n"
        "--width W) gives numpy.fft.ifft2(a).real. The file is checked strictly (magic, header,\n"
        "dtype, C order, 2-D, exact size); anything else is refused. OUT is an 8-bit image "
        "(values\n"
        "rounded and saturated to 0..255; 16-bit PNG/PNM with --depth 16), or a float32 .npy\n"
        "array when OUT ends in .npy.\n"
        "\n"
        "Options:\n"
        "  --width W            width of the image: N = W/2 + 1 (half spectrum) or N = W (full);\n"
        "                       default 2 * (N - 1), numpy's irfft2 default\n"
        "  --norm MODE          backward (default: inverse scaled by 1/(W*H)), forward or ortho;\n"
        "                       the one given to gip fft\n"
        "  --depth 8|16         depth of an image OUT (default 8)\n",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_OUTPUT};
