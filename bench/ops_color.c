/* SPDX-License-Identifier: MIT */
/* The benchmark's color rows (see ops.h). */
#include "ops.h"

/* clang-format off */
const bench_op bench_ops_color[] = {
    {0},
};
/* clang-format on */
const int bench_nops_color = 0;
