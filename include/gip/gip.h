/* SPDX-License-Identifier: MIT */
/* The one header of gip: GPU image processing in C with a CPU fallback. */
#ifndef GIP_GIP_H
#define GIP_GIP_H

#include "gip/core.h"
#include "gip/io.h"
#include "gip/color.h"
#include "gip/point.h"
#include "gip/filter.h"
#include "gip/morphology.h"
#include "gip/smoothing.h"
#include "gip/edges.h"
#include "gip/kernel.h"
#include "gip/fft.h"
#include "gip/geometry.h"
#include "gip/stats.h"
#include "gip/interop.h"
#include "gip/op.h"
#include "gip/style.h"
#include "gip/pipeline.h"
#include "gip/loader.h"

#endif
