/* SPDX-License-Identifier: MIT */
/* Private prototypes of the box filter: the plan it hands to the separable engine. */
#ifndef GIP_FILTER_BOX_H
#define GIP_FILTER_BOX_H

#include "engine/separable/separable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the parameters (NULL = defaults) and fills the engine plan. Sets a message on error. */
gip_status gip__box_plan(gip_context *ctx, const gip_image *src, const gip_box_params *params,
                         gip__sep_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
