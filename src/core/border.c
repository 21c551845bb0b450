/* SPDX-License-Identifier: MIT */
/* Border mode names and parsing (the mapping itself is src/core/border.h). */
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "gip/core.h"

static const struct {
    gip_border mode;
    const char *name;
} borders[] = {
    {GIP_BORDER_REFLECT_101, "reflect101"},
    {GIP_BORDER_REFLECT_101, "reflect_101"},
    {GIP_BORDER_REFLECT_101, "default"},
    {GIP_BORDER_REFLECT_101, "border_default"},
    {GIP_BORDER_REFLECT_101, "border_reflect_101"},
    {GIP_BORDER_REFLECT, "reflect"},
    {GIP_BORDER_REFLECT, "border_reflect"},
    {GIP_BORDER_REPLICATE, "replicate"},
    {GIP_BORDER_REPLICATE, "border_replicate"},
    {GIP_BORDER_CONSTANT, "constant"},
    {GIP_BORDER_CONSTANT, "border_constant"},
    {GIP_BORDER_WRAP, "wrap"},
    {GIP_BORDER_WRAP, "border_wrap"},
};

const char *gip_border_name(gip_border border)
{
    switch (border) {
    case GIP_BORDER_REFLECT_101:
        return "reflect101";
    case GIP_BORDER_REFLECT:
        return "reflect";
    case GIP_BORDER_REPLICATE:
        return "replicate";
    case GIP_BORDER_CONSTANT:
        return "constant";
    case GIP_BORDER_WRAP:
        return "wrap";
    }
    return "?";
}

gip_status gip_border_parse(const char *name, gip_border *border)
{
    if (!name || !border)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_border_parse: NULL argument");
    for (size_t i = 0; i < sizeof borders / sizeof borders[0]; i++)
        if (strcasecmp(name, borders[i].name) == 0) {
            *border = borders[i].mode;
            return GIP_OK;
        }
    return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                      "unknown border mode '%s': reflect101 (default), reflect, replicate, "
                      "constant or wrap",
                      name);
}
