/* SPDX-License-Identifier: MIT */
/* The bounded FIFO of the batch engine's queues: a ring of pointers that refuses a push when full,
 * which is what keeps the batch's memory bounded. */
#include <stdlib.h>

#include "internal.h"
#include "pipeline_internal.h"

gip_status gip__ring_init(gip__ring *r, int32_t cap)
{
    r->head = r->count = 0;
    r->cap = cap;
    r->items = cap >= 1 ? calloc((size_t)cap, sizeof *r->items) : NULL;
    if (!r->items)
        return gip__error(NULL, cap >= 1 ? GIP_ERR_OUT_OF_MEMORY : GIP_ERR_INVALID_ARGUMENT,
                          "batch: cannot make a queue of %d entries", (int)cap);
    return GIP_OK;
}

void gip__ring_fini(gip__ring *r)
{
    free(r->items);
    r->items = NULL;
    r->cap = r->count = r->head = 0;
}

bool gip__ring_push(gip__ring *r, void *item)
{
    if (r->count == r->cap)
        return false;
    r->items[(r->head + r->count) % r->cap] = item;
    r->count++;
    return true;
}

void *gip__ring_pop(gip__ring *r)
{
    if (r->count == 0)
        return NULL;
    void *item = r->items[r->head];
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return item;
}
