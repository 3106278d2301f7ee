/* SPDX-License-Identifier: Apache-2.0 */
/* Large kernels for the benchmarks, generated as WAVE text so that parsing is measured too. */
#ifndef WAVE_BENCH_TEXT_H
#define WAVE_BENCH_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct text {
  char *data;   /* NUL-terminated; malloc'd */
  size_t len, cap;
} text;

/* A kernel of about `count` instructions whose control flow nests up to 8 deep, cycling
 * through ifs with and without else and loops that break. Exits on out of memory. */
text bench_make_kernel(long count);
/* About `count` instructions of straight-line ALU code on r1..r28 with ifs (and elses) nested
 * up to 20 deep on compares of those values, from `seed`. stored: every value is stored at the
 * end, else nothing is: the whole body is dead. */
text bench_make_random(long count, bool stored, unsigned long long seed);
/* `levels` nested ifs around one nop. */
text bench_make_deep(int levels);
/* `levels` nested loops that lanes leave at different iterations: a counter compared with
 * sr_lane_id breaks out of each, the worst case for a divergence analysis's fixpoint. */
text bench_make_deep_loops(int levels);
/* `levels` nested loops and ifs, alternating, around a call: the call makes every register
 * divergent, so each loop's header gains everything from inside and each if on p2 (uniform
 * until then) turns divergent, which every enclosing loop must learn in turn. */
text bench_make_deep_call(int levels);

#endif
