/* SPDX-License-Identifier: MIT */
/* Median-selecting networks of compare-exchanges OP(a, b) (min to a, max to b) for 9 and 25
 * values: Batcher's odd-even merge sort of 32 inputs with the inputs past n taken as +infinity,
 * pruned backwards to what the middle output (index 4, 12) depends on. Written out so that the
 * values stay in registers (and vector lanes) on both backends. */
#ifndef GIP_OPS_MEDIAN_NET_H
#define GIP_OPS_MEDIAN_NET_H

/* clang-format off */
/* 32 compare-exchanges */
#define NET9(OP) \
    OP(0, 1) OP(2, 3) OP(4, 5) OP(6, 7) OP(0, 2) OP(1, 3) OP(4, 6) OP(5, 7) OP(1, 2) OP(5, 6) \
    OP(0, 4) OP(1, 5) OP(2, 6) OP(3, 7) OP(2, 4) OP(3, 5) OP(1, 2) OP(3, 4) OP(5, 6) OP(0, 8) \
    OP(4, 8) OP(2, 4) OP(3, 5) OP(6, 8) OP(1, 2) OP(3, 4) OP(5, 6) OP(7, 8) OP(4, 8) OP(2, 4) \
    OP(3, 5) OP(3, 4)
/* 113 compare-exchanges */
#define NET25(OP) \
    OP(0, 1) OP(2, 3) OP(4, 5) OP(6, 7) OP(8, 9) OP(10, 11) OP(12, 13) OP(14, 15) OP(16, 17) \
    OP(18, 19) OP(20, 21) OP(22, 23) OP(0, 2) OP(1, 3) OP(4, 6) OP(5, 7) OP(8, 10) OP(9, 11) \
    OP(12, 14) OP(13, 15) OP(16, 18) OP(17, 19) OP(20, 22) OP(21, 23) OP(1, 2) OP(5, 6) \
    OP(9, 10) OP(13, 14) OP(17, 18) OP(21, 22) OP(0, 4) OP(1, 5) OP(2, 6) OP(3, 7) OP(8, 12) \
    OP(9, 13) OP(10, 14) OP(11, 15) OP(16, 20) OP(17, 21) OP(18, 22) OP(19, 23) OP(2, 4) \
    OP(3, 5) OP(10, 12) OP(11, 13) OP(18, 20) OP(19, 21) OP(1, 2) OP(3, 4) OP(5, 6) OP(9, 10) \
    OP(11, 12) OP(13, 14) OP(17, 18) OP(19, 20) OP(21, 22) OP(0, 8) OP(1, 9) OP(2, 10) \
    OP(3, 11) OP(4, 12) OP(5, 13) OP(6, 14) OP(7, 15) OP(16, 24) OP(4, 8) OP(5, 9) OP(6, 10) \
    OP(7, 11) OP(20, 24) OP(2, 4) OP(3, 5) OP(6, 8) OP(7, 9) OP(10, 12) OP(11, 13) OP(18, 20) \
    OP(19, 21) OP(22, 24) OP(1, 2) OP(3, 4) OP(5, 6) OP(7, 8) OP(9, 10) OP(11, 12) OP(13, 14) \
    OP(17, 18) OP(19, 20) OP(21, 22) OP(23, 24) OP(0, 16) OP(1, 17) OP(2, 18) OP(3, 19) \
    OP(4, 20) OP(5, 21) OP(6, 22) OP(7, 23) OP(8, 24) OP(8, 16) OP(9, 17) OP(10, 18) \
    OP(11, 19) OP(12, 20) OP(13, 21) OP(6, 10) OP(7, 11) OP(12, 16) OP(13, 17) OP(10, 12) \
    OP(11, 13) OP(11, 12)
/* clang-format on */

#endif
