/* SPDX-License-Identifier: MIT */
/* The progress and summary of gip run's batches: a one-line bar on a terminal, plain lines
 * otherwise, and the closing summary with the time per stage. */
#include <stdio.h>

#include "cli.h"

void cli_progress_print(cli_progress *pp, const gip_batch_progress *pr)
{
    if (!pp->stream || !pr)
        return;
    double rate = pr->elapsed > 0 ? (double)(pr->done - pr->skipped) / pr->elapsed : 0;
    double eta = rate > 0 ? (double)(pr->total - pr->done) / rate : 0;
    int pct = pr->total ? (int)(100 * pr->done / pr->total) : 100;
    char fail[48] = "";
    if (pr->failed)
        snprintf(fail, sizeof fail, "  (%lld failed)", (long long)pr->failed);
    if (pp->tty) {
        int width = 24, fill = pr->total ? (int)(width * pr->done / pr->total) : width;
        char bar[32];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(pp->stream, "\r\033[K[%s] %lld/%lld %3d%%  %.1f img/s  ETA %d:%02d%s", bar,
                (long long)pr->done, (long long)pr->total, pct, rate, (int)eta / 60, (int)eta % 60,
                fail);
        pp->drawn = 1;
        fflush(pp->stream);
        return;
    }
    double t = cli_now();
    if (pr->done != pr->total && t - pp->last < 5.0)
        return;
    pp->last = t;
    fprintf(pp->stream, "progress: %lld/%lld (%d%%), %.1f img/s, ETA %d:%02d%s\n",
            (long long)pr->done, (long long)pr->total, pct, rate, (int)eta / 60, (int)eta % 60,
            fail);
    fflush(pp->stream);
}

void cli_progress_clear(cli_progress *pp)
{
    if (pp->stream && pp->tty && pp->drawn) {
        fprintf(pp->stream, "\r\033[K");
        fflush(pp->stream);
        pp->drawn = 0;
    }
}

void cli_batch_summary(FILE *f, const gip_batch_stats *s)
{
    int64_t done = s->written + s->failed;
    double rate = s->wall > 0 ? (double)done / s->wall : 0;
    fprintf(f, "%lld written, %lld failed, %lld skipped of %lld in %.2f s: %.2f images/s\n",
            (long long)s->written, (long long)s->failed, (long long)s->skipped, (long long)s->total,
            s->wall, rate);
    if (done == 0)
        return;
    const struct {
        const char *name;
        double t;
    } stages[] = {{"read", s->t_read},       {"decode", s->t_decode},     {"upload", s->t_upload},
                  {"compute", s->t_compute}, {"download", s->t_download}, {"encode", s->t_encode},
                  {"write", s->t_write}};
    fprintf(f, "time per image (summed over threads):");
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
        fprintf(f, " %s %.1f ms%s", stages[i].name, 1e3 * stages[i].t / (double)done,
                i + 1 < sizeof stages / sizeof stages[0] ? "," : "\n");
    fprintf(f, "at most %lld images in memory at once (bound %lld)\n", (long long)s->peak_in_flight,
            (long long)s->in_flight_bound);
    if (s->decode_calls > 0)
        fprintf(f, "decode calls: %lld (%.1f files each)\n", (long long)s->decode_calls,
                (double)(s->written + s->failed) / (double)s->decode_calls);
    if (s->t_setup > 0)
        fprintf(f, "codec setup and warm-up before the clock: %.1f ms\n", 1e3 * s->t_setup);
}
