/* SPDX-License-Identifier: MIT */
/* The gip command-line tool (placeholder entry until the CLI lands). */
#include <stdio.h>

#include "gip/gip.h"

int main(void)
{
    printf("gip %s\n", gip_version());
    return 0;
}
