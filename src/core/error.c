/* SPDX-License-Identifier: MIT */
/* Status names and the error messages: one per thread, one per context. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static _Thread_local char tls_msg[GIP__MSG_SIZE];

struct status_entry {
    gip_status status;
    const char *name;
    const char *text;
};

static const struct status_entry status_table[] = {
    {GIP_OK, "GIP_OK", "success"},
    {GIP_ERR_INVALID_ARGUMENT, "GIP_ERR_INVALID_ARGUMENT", "invalid argument"},
    {GIP_ERR_SHAPE_MISMATCH, "GIP_ERR_SHAPE_MISMATCH", "image shapes do not match"},
    {GIP_ERR_LOCATION_MISMATCH, "GIP_ERR_LOCATION_MISMATCH", "host and device memory mixed"},
    {GIP_ERR_ALIASING, "GIP_ERR_ALIASING", "output overlaps an input"},
    {GIP_ERR_UNSUPPORTED, "GIP_ERR_UNSUPPORTED", "unsupported dtype, channels or mode"},
    {GIP_ERR_NOT_BUILT, "GIP_ERR_NOT_BUILT",
     "component not built into this library or missing at run time"},
    {GIP_ERR_TOO_LARGE, "GIP_ERR_TOO_LARGE", "size too large"},
    {GIP_ERR_OUT_OF_MEMORY, "GIP_ERR_OUT_OF_MEMORY", "out of host memory"},
    {GIP_ERR_DEVICE_OUT_OF_MEMORY, "GIP_ERR_DEVICE_OUT_OF_MEMORY", "out of device memory"},
    {GIP_ERR_DEVICE, "GIP_ERR_DEVICE", "CUDA device error"},
    {GIP_ERR_NO_DEVICE, "GIP_ERR_NO_DEVICE", "no usable CUDA device"},
    {GIP_ERR_BAD_STATE, "GIP_ERR_BAD_STATE", "context unusable after an earlier device error"},
    {GIP_ERR_IO, "GIP_ERR_IO", "input/output error"},
    {GIP_ERR_NOT_FOUND, "GIP_ERR_NOT_FOUND", "file not found"},
    {GIP_ERR_CORRUPT, "GIP_ERR_CORRUPT", "corrupt or truncated data"},
    {GIP_ERR_UNKNOWN_FORMAT, "GIP_ERR_UNKNOWN_FORMAT", "unknown file format"},
    {GIP_ERR_INTERNAL, "GIP_ERR_INTERNAL", "internal error"},
};

static const struct status_entry *find_status(gip_status status)
{
    for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
        if (status_table[i].status == status)
            return &status_table[i];
    return NULL;
}

const char *gip_status_name(gip_status status)
{
    const struct status_entry *e = find_status(status);
    return e ? e->name : "GIP_ERR_UNKNOWN_STATUS";
}

const char *gip_status_string(gip_status status)
{
    const struct status_entry *e = find_status(status);
    return e ? e->text : "unknown status";
}

gip_status gip_status_group(gip_status status)
{
    return (gip_status)((int)status / 100 * 100);
}

const char *gip_last_error(void)
{
    return tls_msg;
}

void gip_clear_error(void)
{
    tls_msg[0] = '\0';
}

gip_status gip__verror(gip_context *ctx, gip_status status, const char *fmt, va_list ap)
{
    vsnprintf(tls_msg, sizeof tls_msg, fmt, ap);
    if (ctx)
        memcpy(ctx->error, tls_msg, sizeof ctx->error);
    return status;
}

gip_status gip__error(gip_context *ctx, gip_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gip__verror(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}
