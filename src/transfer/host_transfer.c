/* SPDX-License-Identifier: MIT */
/* The transfer engine's sizes (host_transfer.h), known to both builds: a run bounded in host memory
 * counts the engine's staging (the engine itself is host_transfer_cuda.cu). */
#include <stdlib.h>

#include "host_transfer.h"

int64_t gip__xfer_chunk_bytes(void)
{
    const char *e = getenv("GIP_TRANSFER_CHUNK");
    if (e && *e) {
        char *end = NULL;
        long long v = strtoll(e, &end, 10);
        if (end && !*end && v >= 4096)
            return v;
    }
    return GIP__XFER_CHUNK;
}

int64_t gip__xfer_staging_bytes(void)
{
    return 2 * GIP__XFER_SLOTS * gip__xfer_chunk_bytes();
}
