/* SPDX-License-Identifier: Apache-2.0 */
/* Timing and memory helpers shared by the benchmarks. */
#ifndef WAVE_BENCH_UTIL_H
#define WAVE_BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic wall-clock time in seconds. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident set size of this process so far, in KiB (0 if unknown). */
static inline long bench_peak_rss_kb(void) {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return usage.ru_maxrss;
}

#endif
