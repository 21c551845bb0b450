/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the pipeline parser (gip_pipeline_parse) and a run of the chains it accepts. */
#include "fuzz_entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return gip_fuzz_pipeline(data, size);
}
