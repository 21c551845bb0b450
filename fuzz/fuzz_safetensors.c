/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the safetensors reader of style transfer (gip_vgg19_load). */
#include "fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return gip_fuzz_safetensors(data, size);
}
