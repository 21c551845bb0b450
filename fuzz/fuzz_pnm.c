/* SPDX-License-Identifier: MIT */
/* libFuzzer target: probing and decoding PNM from memory (gip_image_probe_memory,
 * gip_image_decode). */
#include "fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return gip_fuzz_decode(data, size, GIP_FORMAT_PNM);
}
