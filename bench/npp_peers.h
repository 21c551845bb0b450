/* SPDX-License-Identifier: MIT */
/* The NPP peers' tables: one per family (npp_peers.c holds the core's and runs them all). */
#ifndef GIP_BENCH_NPP_PEERS_H
#define GIP_BENCH_NPP_PEERS_H

#include <npp.h>

#include "bench.h"

/* Device copies of the coefficients some peers need. */
typedef struct npp_taps {
    Npp32f *gauss15;   /* gip's 15 Gaussian taps */
    Npp32f *filter32f; /* the filter2d3 kernel */
    Npp32s *filter32s; /* the same kernel as integers over bench_filter2d_divisor */
} npp_taps;

typedef NppStatus (*npp_fn)(const bench_set *s, NppiBorderType border, const npp_taps *t,
                            NppStreamContext c);

typedef struct npp_peer {
    const char *op, *format, *impl;
    int bordered; /* takes a border mode: mirror (= gip's reflect101) tried first */
    npp_fn fn;
    const char *note;
} npp_peer;

#define SRC(T) ((const T *)s->src.data), (int)s->src.stride
#define DST(T) ((T *)s->dst.data), (int)s->dst.stride
#define ROI ((NppiSize){(int)s->src.width, (int)s->src.height})
#define ORIGIN ((NppiPoint){0, 0})
#define BSRC(T) SRC(T), ROI, ORIGIN
#define BOX3 ((NppiSize){3, 3}), ((NppiPoint){1, 1})

/* The tables of the families (npp_geometry.c, npp_color.c, npp_morph.c, npp_stats.c). */
extern const npp_peer bench_npp_geometry[], bench_npp_color[], bench_npp_morph[], bench_npp_stats[];
extern const int bench_npp_ngeometry, bench_npp_ncolor, bench_npp_nmorph, bench_npp_nstats;

#endif
