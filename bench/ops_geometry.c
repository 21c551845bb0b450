/* SPDX-License-Identifier: MIT */
/* The benchmark's geometry rows (see ops.h). */
#include "ops.h"

/* clang-format off */
const bench_op bench_ops_geometry[] = {
    {0},
};
/* clang-format on */
const int bench_nops_geometry = 0;
