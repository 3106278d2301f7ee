/* SPDX-License-Identifier: Apache-2.0 */
/* Timing, memory and command-line helpers shared by the benchmarks. */
#ifndef WAVE_BENCH_UTIL_H
#define WAVE_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Monotonic wall-clock time in seconds. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds this process has used: beside the wall clock, a figure that other processes
 * on a loaded machine disturb far less (the benchmarks run on one thread). */
static inline double bench_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident set size of this process so far, in KiB (0 if unknown). */
static inline long bench_peak_rss_kb(void) {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return usage.ru_maxrss;
}

/* The count after `--seeds` on the command line (as `wave-difftest --seeds N` takes it), or
 * `fallback` when there is none; 0 after printing a usage line when the arguments are wrong. */
static inline unsigned long bench_seed_count(int argc, char **argv, unsigned long fallback) {
  if (argc == 1)
    return fallback;
  char *end = NULL;
  unsigned long n = argc == 3 && strcmp(argv[1], "--seeds") == 0 ? strtoul(argv[2], &end, 10) : 0;
  if (!end || *end || n == 0) {
    fprintf(stderr, "usage: %s [--seeds N]  (N >= 1, default %lu)\n", argv[0], fallback);
    return 0;
  }
  return n;
}

#endif
