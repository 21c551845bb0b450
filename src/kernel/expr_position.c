/* SPDX-License-Identifier: MIT */
/* Whether an expression depends on the pixel's position (kernel/expr.h). */
#include <ctype.h>
#include <string.h>

#include "kernel/expr.h"

/* Non-zero when an expression names x, y, width or height: its value then depends on the pixel's
 * position and a table indexed by the value cannot replace it. Conservative: any identifier
 * token with one of these names counts, wherever it appears. */
bool gip__expr_uses_position(const char *e)
{
    static const char *const names[] = {"x", "y", "width", "height"};
    for (const char *q = e; *q;) {
        if (isalpha((unsigned char)*q) || *q == '_') {
            const char *b = q;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            size_t len = (size_t)(q - b);
            for (size_t k = 0; k < 4; k++)
                if (strlen(names[k]) == len && strncmp(b, names[k], len) == 0)
                    return true;
        } else if (isdigit((unsigned char)*q) || *q == '.') {
            /* Skip numbers whole so that the exponent of 1e5 is not read as an identifier. */
            while (isalnum((unsigned char)*q) || *q == '.')
                q++;
        } else {
            q++;
        }
    }
    return false;
}
