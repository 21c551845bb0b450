/* SPDX-License-Identifier: MIT */
/* A sticky CUDA error (a kernel writing through a bad address) puts the context in a bad state
 * that every later call reports. Its own process: the fault corrupts the process's CUDA context. */
#include "internal.h"
#include <string.h>

#include "testing.h"

static void body(gip_context *ctx)
{
    gip_image img;
    GT_OK(gip_image_alloc(ctx, &img, 16, 16, 1, GIP_U8, GIP_MEM_CUDA, 0));
    GT_CHECK(gip_context_status(ctx) == GIP_OK, "usable before the fault");
    gip_status st = gip__cuda_fault_for_test(ctx);
    GT_CHECK(st == GIP_ERR_DEVICE, "the fault is reported as a device error: %s (%s)",
             gip_status_name(st), gip_last_error());
    GT_CHECK(gip_context_status(ctx) == GIP_ERR_BAD_STATE, "context is now in a bad state");
    GT_STATUS(gip_context_sync(ctx), GIP_ERR_BAD_STATE);
    GT_STATUS(gip_image_fill_bytes(ctx, &img, 0), GIP_ERR_BAD_STATE);
    gip_image host;
    gt_alloc(&host, 16, 16, 1, GIP_U8, 0);
    GT_STATUS(gip_download(ctx, &img, &host), GIP_ERR_BAD_STATE);
    GT_CHECK(strstr(gip_context_error(ctx), "earlier device error") != NULL,
             "the context's message says why: %s", gip_context_error(ctx));
    /* every refusal quotes the fault itself, once: the messages do not nest or grow */
    GT_STATUS(gip_image_fill_bytes(ctx, &img, 0), GIP_ERR_BAD_STATE);
    const size_t len = strlen(gip_context_error(ctx));
    GT_STATUS(gip_image_fill_bytes(ctx, &img, 0), GIP_ERR_BAD_STATE);
    const char *m = gip_context_error(ctx);
    GT_CHECK(strlen(m) == len, "the message grows from %zu to %zu bytes: %s", len, strlen(m), m);
    const char *first = strstr(m, "earlier error: ");
    GT_CHECK(first && strstr(m, "failed:") && !strstr(first + 1, "earlier error: "),
             "the message quotes the fault once: %s", m);
    gt_free(&host);
    gip_image_free(ctx, &img);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cpu") == 0) {
        printf("SKIP: sticky device errors exist only on the CUDA backend\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "sticky", body);
}
