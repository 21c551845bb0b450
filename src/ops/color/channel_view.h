/* SPDX-License-Identifier: MIT */
/* One channel of an image as a strided view (rows, columns, one element), for the channel copies
 * of extract_channel, insert_channel and mix_channels (gip_copy_strided()). */
#ifndef GIP_OPS_COLOR_CHANNEL_VIEW_H
#define GIP_OPS_COLOR_CHANNEL_VIEW_H

#include "gip/interop.h"

static inline gip_strided gip__channel_view(const gip_image *img, int32_t c)
{
    const int64_t es = (int64_t)gip_dtype_size(img->dtype);
    gip_strided v = {(char *)img->data + c * es,
                     {img->height, img->width, 1},
                     {img->stride, img->channels * es, es},
                     img->dtype,
                     img->memory,
                     img->device};
    return v;
}

#endif
