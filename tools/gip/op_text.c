/* SPDX-License-Identifier: MIT */
/* The registry's descriptors as text: parameter types, accepted values, dtypes, channels and a
 * step's usage, shared by gip ops (docs/operations.md), the operations' commands and gip run. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_param_type_name(gip_param_type t)
{
    static const char *const names[] = {"int",  "number", "bool",   "choice",
                                        "size", "list",   "string", "matrix"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

void cli_param_accepts(const gip_param *p, char *buf, size_t size)
{
    const char *odd = p->flags & GIP_PARAM_ODD ? "odd " : "";
    switch (p->type) {
    case GIP_PARAM_INT:
        snprintf(buf, size, "%sinteger %.0f..%.0f", odd, p->min, p->max);
        break;
    case GIP_PARAM_DOUBLE:
        snprintf(buf, size, "number %g..%g", p->min, p->max);
        break;
    case GIP_PARAM_BOOL:
        snprintf(buf, size, "0 or 1");
        break;
    case GIP_PARAM_CHOICE: {
        size_t len = 0;
        buf[0] = '\0';
        for (const gip_choice *c = p->choices; c->name && len < size; c++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", c == p->choices ? "" : ", ",
                                    c->name);
        break;
    }
    case GIP_PARAM_SIZE:
        snprintf(buf, size, "N or WxH, %s%.0f..%.0f", odd, p->min, p->max);
        break;
    case GIP_PARAM_LIST:
        snprintf(buf, size, "1 to %d numbers %g..%g", (int)p->count, p->min, p->max);
        break;
    case GIP_PARAM_STRING:
        snprintf(buf, size, "text");
        break;
    case GIP_PARAM_MATRIX:
        snprintf(buf, size, "rows 'a,b;c,d', up to %dx%d", (int)p->count, (int)p->count);
        break;
    }
}

void cli_op_dtypes(const gip_op *op, char *buf, size_t size)
{
    static const gip_dtype all[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (op->dtypes & GIP_DTYPE_BIT(all[i]))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    gip_dtype_name(all[i]));
}

void cli_op_channels(const gip_op *op, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 1; c <= 4; c++)
        if (op->channels & GIP_CHANNELS_BIT(c))
            len += (size_t)snprintf(buf + len, size - len, "%s%d", len ? ", " : "", c);
}

void cli_op_step_usage(const gip_op *op, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "%s", op->name);
    for (int32_t k = 0; k < op->nparams && len < size; k++) {
        const gip_param *p = &op->params[k];
        const int req = (p->flags & GIP_PARAM_REQUIRED) != 0;
        if (p->flags & GIP_PARAM_POSITIONAL)
            len += (size_t)snprintf(buf + len, size - len, " %s[%s=]%s%s", req ? "" : "[", p->name,
                                    p->name, req ? "" : "]");
        else
            len += (size_t)snprintf(buf + len, size - len, " %s%s=V%s", req ? "" : "[", p->name,
                                    req ? "" : "]");
    }
    if (op->flags & GIP_OP_SCALARS && len < size)
        snprintf(buf + len, size - len, " [NAME=V ...]");
}
