/* SPDX-License-Identifier: MIT */
/* NPP peers of the morph rows (see npp_peers.h). */
#include "npp_peers.h"

/* clang-format off */
const npp_peer bench_npp_morph[] = {
    {0},
};
/* clang-format on */
const int bench_npp_nmorph = 0;
