/* SPDX-License-Identifier: MIT */
/* The benchmark's stats rows (see ops.h). */
#include "ops.h"

/* clang-format off */
const bench_op bench_ops_stats[] = {
    {0},
};
/* clang-format on */
const int bench_nops_stats = 0;
