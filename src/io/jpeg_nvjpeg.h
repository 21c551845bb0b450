/* SPDX-License-Identifier: MIT */
/* Private interface of the nvJPEG codec (jpeg_nvjpeg.c): which backend the process got. */
#ifndef GIP_JPEG_NVJPEG_H
#define GIP_JPEG_NVJPEG_H

#include "gip/pipeline.h"

/* "hardware", "gpu-hybrid", or "" when nvJPEG could not start (or is not built). */
const char *gip__nvjpeg_backend_name(void);

#endif
