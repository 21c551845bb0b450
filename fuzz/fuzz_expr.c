/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the map/stencil expression parser and its CPU evaluation (gip_map,
 * gip_stencil). */
#include "fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return gip_fuzz_expr(data, size);
}
