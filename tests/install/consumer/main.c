/* SPDX-License-Identifier: MIT */
/* A program outside the gip tree: links the installed library and opens a context. */
#include <gip/gip.h>
#include <stdio.h>

int main(void)
{
    gip_context *ctx;
    if (gip_context_create(NULL, &ctx) != GIP_OK) {
        fprintf(stderr, "%s\n", gip_last_error());
        return 1;
    }
    printf("%s: %s\n", gip_version(), gip_context_describe(ctx));
    gip_context_destroy(ctx);
    return 0;
}
