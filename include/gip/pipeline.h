/* SPDX-License-Identifier: MIT */
/* Whole-file pipelines: chains of operations run on one context without host round-trips, parsed
 * from text ("gaussian 15 | sobel dx=1 | invert") or built from C calls, and the batch engine that
 * runs a pipeline over many files with overlapped read, decode, compute, encode and write. */
#ifndef GIP_PIPELINE_H
#define GIP_PIPELINE_H

#include <stdio.h>

#include "gip/color.h"
#include "gip/core.h"
#include "gip/fft.h"
#include "gip/filter.h"
#include "gip/io.h"
#include "gip/kernel.h"
#include "gip/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =============================================================================================
 * Pipelines.
 *
 * A pipeline owns a context (created from a gip_context_desc), a list of steps with copies of
 * their parameters, and a pool of intermediate images. Running it on an image queues every step
 * on the context (device steps stay on the device, nothing is synchronised between steps) with
 * intermediates taken from the pool; the pool is kept between runs, so images of one shape reuse
 * the same buffers, and a run on another shape frees them and allocates anew.
 * A pipeline is not thread-safe: one thread runs it at a time (the batch engine clones it per
 * compute thread with gip_pipeline_clone()).
 * ============================================================================================= */
typedef struct gip_pipeline gip_pipeline;

/**
 * Creates an empty pipeline with its own context.
 * @param desc  the context to create (NULL: defaults, i.e. AUTO backend).
 * @return GIP_OK; statuses of gip_context_create(); GIP_ERR_INVALID_ARGUMENT for NULL out.
 */
GIP_API gip_status gip_pipeline_create(const gip_context_desc *desc, gip_pipeline **out);

/** Frees a pipeline, its pool and its context (waiting for queued work). NULL is a no-op. */
GIP_API void gip_pipeline_free(gip_pipeline *p);

/**
 * Creates a pipeline with the same steps as `p` on a new context made from `desc` (NULL: the
 * same backend, device and threads as p's context). Custom steps are shared (their `user`
 * pointer is copied, not duplicated). Used to run one pipeline per device or per thread.
 */
GIP_API gip_status gip_pipeline_clone(const gip_pipeline *p, const gip_context_desc *desc,
                                      gip_pipeline **out);

/** The pipeline's context: allocate and upload device images on it. Valid while p lives. */
GIP_API gip_context *gip_pipeline_context(const gip_pipeline *p);

/** Number of steps as added (before fusion). */
GIP_API int32_t gip_pipeline_length(const gip_pipeline *p);

/* ---- building from C ---------------------------------------------------------------------- *
 * Each call appends one step and copies its parameters (kernels, expressions and scalar names
 * included), checking what can be checked without an image (kernel sizes, expression syntax is
 * checked at the first run). Return GIP_OK, GIP_ERR_INVALID_ARGUMENT (NULL p, bad parameter),
 * GIP_ERR_OUT_OF_MEMORY. params may be NULL where the operation accepts NULL. */
GIP_API gip_status gip_pipeline_add_invert(gip_pipeline *p, const gip_invert_params *params);
GIP_API gip_status gip_pipeline_add_gaussian(gip_pipeline *p, const gip_gaussian_params *params);
GIP_API gip_status gip_pipeline_add_box(gip_pipeline *p, const gip_box_params *params);
/** filter2D; the kernel is copied. */
GIP_API gip_status gip_pipeline_add_filter2d(gip_pipeline *p, const gip_filter2d_params *params);
/** Sobel with an explicit destination dtype: GIP_U8 (|x| saturated, the CLI's), GIP_S16, GIP_F32.
 */
GIP_API gip_status gip_pipeline_add_sobel(gip_pipeline *p, const gip_sobel_params *params,
                                          gip_dtype dst_dtype);
/** Edge map as `gip edges`: gray (when the image has colour), then the u8 Sobel magnitude. */
GIP_API gip_status gip_pipeline_add_edges(gip_pipeline *p, const gip_sobel_params *params);
/** Gray as `gip gray`: RGB2GRAY (RGBA2GRAY for 4 channels); a 1-channel image passes unchanged. */
GIP_API gip_status gip_pipeline_add_gray(gip_pipeline *p);
/** gip_convert() to `dtype` (u8, u16, s16, f32) with scale and offset (scale 0 is taken as 0). */
GIP_API gip_status gip_pipeline_add_convert(gip_pipeline *p, gip_dtype dtype, double scale,
                                            double offset);
/** gip_map() with the current image as its only input (`in` / `a`). */
GIP_API gip_status gip_pipeline_add_map(gip_pipeline *p, const char *expr,
                                        const gip_scalar *scalars, int32_t n_scalars);
/** gip_stencil() on the current image. params may be NULL. */
GIP_API gip_status gip_pipeline_add_stencil(gip_pipeline *p, const char *expr,
                                            const gip_stencil_params *params);
/** gip_spectrum(): u8 1-channel result. params may be NULL. */
GIP_API gip_status gip_pipeline_add_spectrum(gip_pipeline *p, const gip_spectrum_params *params);

/**
 * Appends a registered operation (gip/op.h) with its arguments: the step every other
 * gip_pipeline_add_*() and the parser make. The arguments are checked and copied; `args` stays
 * the caller's.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, arguments that do not go together);
 *         GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_pipeline_add_op(gip_pipeline *p, const gip_args *args);

/**
 * A caller-defined step: the hook for operations that are not built in (a Python callable, a
 * raw CUDA kernel). `shape` says the output's size, channels and dtype for an input (it may
 * refuse the input with a status and a message); `run` computes on the pipeline's context from
 * src to dst (both in the context's memory, dst allocated from the pool, never overlapping src).
 * `halo` is how many pixels around an output pixel the step reads (-1: the whole image), used by
 * tile runners. `release` (may be NULL) is called with `user` when the last pipeline holding
 * the step is freed.
 */
typedef struct gip_pipeline_step {
    const char *name; /* for messages and gip_pipeline_describe() */
    gip_status (*shape)(void *user, const gip_image *src, int64_t *width, int64_t *height,
                        int32_t *channels, gip_dtype *dtype);
    gip_status (*run)(void *user, gip_context *ctx, const gip_image *src, gip_image *dst);
    void (*release)(void *user);
    void *user;
    int32_t halo;
} gip_pipeline_step;
GIP_API gip_status gip_pipeline_add_step(gip_pipeline *p, const gip_pipeline_step *step);

/* ---- parsing ------------------------------------------------------------------------------ */

/** Where and why parsing failed. position is 1-based, in characters of the text (0: none). */
typedef struct gip_parse_error {
    int32_t position;
    char message[256];
} gip_parse_error;

/**
 * Parses a pipeline text and appends its steps to `p`. The grammar (docs/pipelines.md):
 *   pipeline := step ('|' step)*
 *   step     := NAME arg*          arg := VALUE | KEY=VALUE     VALUE: word or 'quoted' / "quoted"
 * Steps and their arguments (positional ones in this order; defaults as the CLI's):
 *   invert [max=F]                          gaussian [ksize=]N|WxH [sigma=]S[,SY]
 *   box [ksize=]N|WxH [normalize=0|1]       filter [kernel=]'a,b,c;d,e,f;...' [delta=D]
 *   sobel [dx=N] [dy=N] [ksize=1|3|5|7|scharr] [scale=S] [delta=D] [dtype=u8|s16|f32]
 *   edges [ksize=K] [scale=S] [delta=D]     gray
 *   convert [dtype=]u8|u16|s16|f32 [scale=S] [offset=O]
 *   map [expr=]'EXPR' [NAME=V ...]          stencil [radius=R] [expr=]'EXPR' [NAME=V ...]
 *   spectrum [log1p=0|1]
 * Filters also take border=reflect101|reflect|replicate|constant|wrap and border_value=V[,V..].
 * On error nothing is appended, `err` (may be NULL) gets the 1-based position and a message
 * saying what was expected, and the thread's last error is "pipeline: at N: ...".
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (syntax, unknown step or argument, bad value);
 *         GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_pipeline_parse(gip_pipeline *p, const char *text, gip_parse_error *err);

/**
 * Writes a one-line description of the pipeline as it will run on an image of the given
 * channels and dtype, fusions shown ("gaussian ksize=15x15 | lut[invert,convert u8]"), into buf
 * (always NUL-terminated). GIP_ERR_INVALID_ARGUMENT for NULL arguments.
 */
GIP_API gip_status gip_pipeline_describe(gip_pipeline *p, int32_t channels, gip_dtype dtype,
                                         char *buf, size_t size);

/**
 * Runs the pipeline on a blank host image of the given shape (at most 64x64 of it) to learn
 * whether every step accepts such an input (some steps check dtypes and channels only when they
 * run, not when the shape is asked) and the result's channels and dtype (*out_channels,
 * *out_dtype): how the batch engine and the CLI check a file's shape before loading it.
 * @return GIP_OK; the refusing step's status with its message; GIP_ERR_INVALID_ARGUMENT (NULL).
 */
GIP_API gip_status gip_pipeline_try(gip_pipeline *p, int64_t width, int64_t height,
                                    int32_t channels, gip_dtype dtype, int32_t *out_channels,
                                    gip_dtype *out_dtype);

/** Pipeline flags (gip_pipeline_set_flags()). */
#define GIP_PIPELINE_NO_FUSION 1u /* run every step as added (for tests and comparisons) */
GIP_API gip_status gip_pipeline_set_flags(gip_pipeline *p, uint32_t flags);

/* ---- running ------------------------------------------------------------------------------ */

/**
 * The output's shape for an input of the given shape, without computing. GIP_OK or the status
 * with which a step refuses that input (message names the step).
 */
GIP_API gip_status gip_pipeline_output_shape(gip_pipeline *p, int64_t width, int64_t height,
                                             int32_t channels, gip_dtype dtype, int64_t *out_width,
                                             int64_t *out_height, int32_t *out_channels,
                                             gip_dtype *out_dtype);

/**
 * Pixels around an output pixel that the whole chain reads: the sum of the steps' halos in x
 * and y, or -1 when a step reads the whole image (spectrum, custom halo -1). A tile runner runs
 * the pipeline on tiles grown by this much and keeps their inner part.
 */
GIP_API gip_status gip_pipeline_halo(const gip_pipeline *p, int64_t *halo_x, int64_t *halo_y);

/**
 * Runs the pipeline from src into dst. dst must have the shape gip_pipeline_output_shape() gives
 * and must not overlap src. Both views live in the same place:
 *   - on the pipeline's CUDA device: every step is queued on the context's stream and the call
 *     returns without waiting (gip_context_sync(gip_pipeline_context(p)) waits);
 *   - host memory, CPU context: computed on the context's threads;
 *   - host memory, CUDA context: src is uploaded into the pool, the steps run on the device and the
 *     result is downloaded into dst before the call returns (the one documented convenience copy,
 *     used by gip_pipeline_run_file()).
 * A pipeline with no step copies src to dst.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, malformed view); GIP_ERR_SHAPE_MISMATCH (dst
 *         not the output shape); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH (src and dst in
 *         different places, or another device); GIP_ERR_NO_DEVICE (device views, CPU context);
 *         the status of a failing step (its message names the step: "pipeline step 2 (sobel):
 * ..."); GIP_ERR_OUT_OF_MEMORY / GIP_ERR_DEVICE_OUT_OF_MEMORY for the pool. dst is unchanged when a
 * check fails before the first step.
 */
GIP_API gip_status gip_pipeline_run(gip_pipeline *p, const gip_image *src, gip_image *dst);

/* ---- images larger than memory ------------------------------------------------------------ *
 * A chain whose steps read a bounded neighbourhood (every step but spectrum and custom steps of
 * halo -1), keep the image size, do not use border=wrap and whose expressions do not use x, y,
 * width or height, can run in tiles: each tile is computed on the tile grown by the chain's halo
 * (gip_pipeline_halo()), clipped to the image, and its inner part is kept. Image edges keep each
 * step's border rule and inner edges read real neighbours, so the result is identical to the
 * untiled run (tests compare them bit for bit). Tiles smaller than the halo work (each region is
 * then mostly halo). */

/** Tiling options. Zero-initialise: zero means default for every field. */
typedef struct gip_tile_params {
    int64_t tile_width, tile_height; /* inner tile size in pixels; 0: chosen from the limit */
    int64_t memory_limit; /* bytes the tiles in flight may use (device memory on CUDA, host on
                             the CPU); 0: the pipeline's limit, else 3/4 of the device's memory
                             (CPU: no limit, one tile) */
} gip_tile_params;

/**
 * Runs the pipeline from src into dst in tiles (as gip_pipeline_run() otherwise: same views, same
 * places, same shape rules; device views are tiled on the device, host views on a CUDA pipeline
 * are uploaded tile by tile with two streams overlapping copies and compute, host views on a CPU
 * pipeline are computed tile by tile). Tiles come from params: full-width bands when a band of at
 * least 16 rows fits the limit, else squares. Returns when dst is complete (host) or queued
 * (device views).
 * @return as gip_pipeline_run(); GIP_ERR_INVALID_ARGUMENT (negative params); GIP_ERR_UNSUPPORTED
 *         (the chain cannot be tiled: the message names the step and why, e.g. "step 2
 *         (spectrum) reads the whole image (halo -1)"); GIP_ERR_TOO_LARGE (the limit cannot hold
 *         one tile with its halo).
 */
GIP_API gip_status gip_pipeline_run_tiled(gip_pipeline *p, const gip_image *src, gip_image *dst,
                                          const gip_tile_params *params);

/**
 * Sets the device memory a run of this pipeline may use (bytes; 0: 3/4 of the device's memory,
 * the default). gip_pipeline_run() and the batch engine run host images whose estimated
 * footprint (input, output, intermediates) is above it in tiles (gip_pipeline_run_tiled());
 * `gip run --gpu-memory-limit` sets it. Clones inherit it.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL p, negative bytes).
 */
GIP_API gip_status gip_pipeline_set_memory_limit(gip_pipeline *p, int64_t bytes);
/** The limit set by gip_pipeline_set_memory_limit() (0: default). */
GIP_API int64_t gip_pipeline_memory_limit(const gip_pipeline *p);

/**
 * Loads `in`, runs the pipeline, saves `out` atomically (never a partial file). A JPEG whose first
 * step shrinks on load (thumbnail) is decoded at the 1/2, 1/4 or 1/8 that step declares
 * (gip_op_load_reduce()) unless load->reduce is set (1: whole); so is every file of
 * gip_batch_run().
 * @param load  NULL: 8-bit RGB (GIP_LOAD_COLOR).
 * @param save  NULL: the format from out's extension, quality 95.
 * @return statuses of gip_image_load(), gip_pipeline_run(), gip_image_save().
 */
GIP_API gip_status gip_pipeline_run_file(gip_pipeline *p, const char *in, const char *out,
                                         const gip_load_params *load, const gip_save_params *save);

/**
 * gip_pipeline_run_file() with host memory bounded by `max_memory` bytes (0: the default limit,
 * gip_default_max_memory(): GIP_MAX_MEMORY, else a quarter of the memory). When the whole-image
 * run would need more (decoded image, the pipeline's buffers and the encoded output), the file is
 * streamed: read by rows (PNG rows, JPEG scanlines, PPM/PGM rows), run through the pipeline in
 * row bands grown by the chain's halo, and written by rows to a temporary file renamed into place
 * when complete. The result equals the whole-image run
 * (the halo makes every band exact; JPEG output bytes are the same as gip_image_save()'s).
 * Streaming needs a tileable chain (see gip_pipeline_run_tiled()) or one whose other steps
 * change the size by row bands (resize, thumbnail: gip_op.band_rows); such a chain is cut into
 * stages and each output band is computed from just the input rows it needs. Files that cannot
 * be read by rows (interlaced PNG, progressive or CMYK JPEG) and progressive JPEG output run
 * whole.
 * When the image fits, the pipeline's context is the CPU and the chain is tileable, an image of
 * at least two bands (256 rows, or 8 halos when more) is decoded on a second thread running
 * ahead of the pipeline and the encoder, which work band by band on the rows already decoded
 * (the same result and file bytes as the whole-image run; the pipeline meanwhile runs on one
 * thread fewer than its context's count, which is restored before the call returns).
 * @param streamed  may be NULL; receives 1 when the file was streamed, 2 when it was decoded
 *                  ahead, else 0.
 * @return statuses of gip_pipeline_run_file(); GIP_ERR_UNSUPPORTED (the chain cannot be cut in
 *         row bands: the message names the step); GIP_ERR_TOO_LARGE (the limit cannot hold one
 *         band of 2 * halo + 1 rows).
 */
GIP_API gip_status gip_pipeline_run_file_bounded(gip_pipeline *p, const char *in, const char *out,
                                                 const gip_load_params *load,
                                                 const gip_save_params *save, int64_t max_memory,
                                                 int32_t *streamed);

/* =============================================================================================
 * Batch engine.
 *
 * Runs pipelines over a list of files with the stages overlapped:
 *   worker threads (jobs):   read + decode  ->  [compute queue]  ...  encode + write
 *   compute threads (one per pipeline given): upload, run, download (CUDA: pinned staging and
 *                             asynchronous copies on the pipeline's stream)
 * Queues are bounded, so at most jobs + queue_depth * (1 + pipelines) + pipelines images are in
 * memory whatever the number of files. A codec that decodes in batches (decode_batch) gets
 * batches of up to batch_size files per worker, and each compute queue then holds at least
 * 2 * batch_size images (one batch decodes while the previous one is computed): that capacity
 * takes queue_depth's place in the pipelines' term of the bound. On the CPU (CPU pipelines), mode
 * GIP_BATCH_CPU_INLINE runs every stage of an image on one worker with a pipeline clone of max(1,
 * cores / jobs) OpenMP threads; GIP_BATCH_CPU_STAGED uses the compute thread with the pipeline's
 * own thread count.
 * ============================================================================================= */

/** Hooks replacing the CPU codecs (GPU JPEG plugs in here). Every field may be NULL. */
typedef struct gip_batch_codec {
    /* Decodes bytes into *out: either host memory from gip_image_alloc(NULL, ...) or device memory
     * from gip_image_alloc(ctx, ...) on `ctx`, the context of the pipeline that will compute the
     * image (a device image skips the upload). Called on worker threads, concurrently. */
    gip_status (*decode)(void *user, gip_context *ctx, const void *data, size_t size,
                         const gip_load_params *params, gip_image *out);
    /* Encodes an image (host memory, or device memory of ctx when encode_device is non-zero) into
     * a malloc'd buffer (freed with gip_free()). Called on worker threads, concurrently. */
    gip_status (*encode)(void *user, gip_context *ctx, const gip_image *img,
                         const gip_save_params *params, void **data, size_t *size);
    int32_t encode_device; /* non-zero: results stay on the device and go to encode as they are */
    void *user;
    /* Decodes n files at once (a GPU decoder's batch) as decode() does one each: outs[i] and
     * statuses[i] per file, always filled (a failure leaves outs[i] zeroed and the others go on).
     * May be NULL; when set, the engine hands each worker up to batch_size files at a time (the
     * engine decodes a failed file again alone through decode() for its own message). */
    gip_status (*decode_batch)(void *user, gip_context *ctx, int32_t n, const void *const *data,
                               const size_t *sizes, const gip_load_params *params, gip_image *outs,
                               gip_status *statuses);
    int32_t batch_size; /* files per decode_batch call, 1..64; 0 = 8 (gip_nvjpeg_codec: 16) */
    /* Called once per pipeline context before the batch's clock starts, with the load parameters,
     * the batch size, and how many decode and encode calls may run at once in this batch (the
     * engine bounds them by its queues, workers and files): creates the codec's handles and
     * states so that the first files do not pay for them. May be NULL. */
    gip_status (*prepare)(void *user, gip_context *ctx, const gip_load_params *params,
                          int32_t batch_size, int32_t decoders, int32_t encoders);
    /* Called once per device after prepare, also before the clock, when the batch has more
     * files than batch_size, with the first input's bytes and the batch's save parameters
     * (format set from the first output's name): runs `decoders` decoder states (batches of
     * batch_size) and `encoders` encoder states once on that file, results discarded, so that
     * the first files do not pay for sizing their buffers. Its status is ignored (a bad first
     * file is reported in its turn). May be NULL; GIP_BATCH_WARM=0 in the environment skips
     * it. */
    gip_status (*warm)(void *user, gip_context *ctx, const void *data, size_t size,
                       const gip_load_params *params, const gip_save_params *save,
                       int32_t batch_size, int32_t decoders, int32_t encoders);
} gip_batch_codec;

typedef enum gip_batch_cpu_mode {
    GIP_BATCH_CPU_AUTO = 0,   /* the measured faster one: INLINE (docs/pipelines.md) */
    GIP_BATCH_CPU_INLINE = 1, /* each worker decodes, computes (own pipeline clone), encodes */
    GIP_BATCH_CPU_STAGED = 2  /* workers decode and encode, one compute thread computes */
} gip_batch_cpu_mode;

/**
 * Fills `codec` with the nvJPEG batch codec: JPEG files decode with gip_jpeg_decode_device() on
 * CUDA pipelines (other files and CPU pipelines: the CPU decoders), results stay on the device
 * and JPEG outputs encode with gip_jpeg_encode_device() (other formats: download and CPU encode).
 * `gip run --decoder nvjpeg` (or auto on CUDA) uses it. GIP_ERR_NOT_BUILT without nvJPEG. The
 * nvJPEG codec functions themselves are in gip/io.h.
 */
GIP_API gip_status gip_nvjpeg_codec(gip_batch_codec *codec);

/** What the progress callback receives. Times are seconds. */
typedef struct gip_batch_progress {
    int64_t total; /* files in the batch */
    int64_t done;  /* finished: written + failed + skipped */
    int64_t written, failed, skipped;
    double elapsed; /* since the batch started */
} gip_batch_progress;

/** Summary of a batch. Stage times are summed over the threads that ran the stage. */
typedef struct gip_batch_stats {
    int64_t total, written, failed, skipped;
    double wall;
    double t_read, t_decode, t_upload, t_compute, t_download, t_encode, t_write;
    int64_t peak_in_flight;  /* most images held at once (decoded, not yet written) */
    int64_t in_flight_bound; /* the bound the queues guarantee */
    double t_setup;          /* codec->prepare, before the clock (not in wall) */
    int64_t decode_calls;    /* decode or decode_batch calls: files / calls is the mean batch */
} gip_batch_stats;

/** Options of a batch. Zero-initialise: zero means default for every field. */
typedef struct gip_batch_options {
    int32_t jobs;           /* worker threads, >= 1; 0 = number of cores (at most 8 a device on
                               CUDA with a codec that encodes on the device) */
    int32_t queue_depth;    /* capacity of each queue, >= 1; 0 = 2 */
    gip_format format;      /* output format; AUTO: the input's if JPEG/PNG/PNM, else PNG */
    int32_t quality;        /* JPEG quality 1..100; 0 = 95 */
    int32_t overwrite;      /* non-zero: replace existing outputs, read-only ones too (otherwise
                               they are skipped) */
    gip_load_params load;   /* how inputs are decoded; mode 0 (UNCHANGED) is taken as COLOR unless
                               load_unchanged is set */
    int32_t load_unchanged; /* with mode UNCHANGED: a file that the pipeline refuses as stored,
                               or whose result the output format cannot hold, is computed
                               without alpha, then in 8 bits (x >> 8); on_file's message says so */
    gip_batch_cpu_mode cpu_mode;
    const gip_batch_codec *codec; /* NULL: libjpeg-turbo / libpng on the workers */
    /* Called after each file (from the thread that finished it; calls are serialised): `in` and
     * `out` paths, status (GIP_OK, or the failure), message (the reason; on success "" or what
     * was converted, see load_unchanged), and skipped non-zero when the output existed. May be
     * NULL. */
    void (*on_file)(void *user, const char *in, const char *out, gip_status status,
                    const char *message, int32_t skipped);
    /* Called at most every progress_interval seconds (0: 0.2) and once at the end. May be NULL. */
    void (*on_progress)(void *user, const gip_batch_progress *progress);
    double progress_interval;
    void *user;
} gip_batch_options;

/**
 * Runs `pipes[0..npipes-1]` (one compute thread each; several on one GPU overlap their copies
 * and kernels on their own streams) over `inputs`, writing out_dir/<input name without its
 * extension>.<format extension>. Output files are written as gip_image_save() writes them: to an
 * unnamed file in out_dir linked into place when complete (O_TMPFILE; where the file system lacks
 * it a locked "NAME.gip.tmp" that the next write of NAME removes if a kill left it), so a killed
 * batch leaves only complete files; a replaced output keeps its permission bits. Existing outputs
 * are skipped unless options->overwrite. A file that fails (unreadable, corrupt, too large, refused
 * by a step, two inputs mapping to one output name) is reported through on_file and counted; the
 * others go on.
 * @return GIP_OK when the batch ran (check stats->failed); GIP_ERR_INVALID_ARGUMENT (NULL, bad
 *         option, npipes < 1); GIP_ERR_NOT_FOUND / GIP_ERR_IO (out_dir missing or not a folder);
 *         GIP_ERR_OUT_OF_MEMORY; GIP_ERR_INTERNAL (a thread could not be started).
 */
GIP_API gip_status gip_batch_run(gip_pipeline *const *pipes, int32_t npipes,
                                 const char *const *inputs, int64_t n_inputs, const char *out_dir,
                                 const gip_batch_options *options, gip_batch_stats *stats);

/**
 * Lists the inputs named by `pattern`: a folder (its regular files with extension .jpg .jpeg
 * .png .ppm .pgm .pnm, any case, not recursing) or a glob(3) pattern (every regular file it
 * matches), sorted. Free with gip_batch_free_list().
 * @return GIP_OK (possibly zero files); GIP_ERR_INVALID_ARGUMENT; GIP_ERR_NOT_FOUND (a folder
 *         that does not exist and a pattern matching nothing both give *count = 0 and GIP_OK only
 *         for patterns); GIP_ERR_IO; GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_batch_list_inputs(const char *pattern, char ***paths, int64_t *count);
GIP_API void gip_batch_free_list(char **paths, int64_t count);

#ifdef __cplusplus
}
#endif
#endif
