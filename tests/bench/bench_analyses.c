/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make bench: every registered analysis on the 1M-instruction kernel of bench_parse, against
 * the time it takes to parse that kernel (the bar: all analyses together cost no more
 * than parsing), and on 100 000-deep nests of ifs, of divergent loops and of loops and ifs
 * around a call, which must finish without exhausting the C stack, in time linear in the depth.
 *
 * "Together" is one analysis manager asked for each analysis in turn, as a pipeline asks:
 * an analysis that another one uses (uniformity) is computed once. Each analysis is also timed
 * alone, with a fresh manager, so that its own cost includes what it depends on (the layout
 * the built-in analyses share included). Besides wall time the CPU time is printed: on a
 * machine that other processes load, the ratio of CPU times is the steadier one. Prints
 * figures; asserts nothing about time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_text.h"
#include "bench_util.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

enum { REPEATS = 5 };

/* Wall and CPU seconds. */
typedef struct timing {
  double wall, cpu;
} timing;

static wave_module *parse(const text *t, timing *seconds) {
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  double t0 = bench_now(), c0 = bench_cpu_now();
  wave_module *m = wave_parse_string(t->data, t->len, "bench.wave", &diags);
  *seconds = (timing){bench_now() - t0, bench_cpu_now() - c0};
  if (!m || !wave_verify_module(m, &diags)) {
    fprintf(stderr, "bench_analyses: the generated kernel failed (%zu errors)\n",
            diags.num_errors);
    wave_module_destroy(m);
    m = NULL;
  }
  wave_diags_free(&diags);
  return m;
}

/* Seconds to compute the analyses [first, last] of the registry on every kernel with one
 * manager, or a negative wall time when one failed. */
static timing analyse(const wave_pass_registry *registry, wave_module *m, wave_analysis_id first,
                      wave_analysis_id last) {
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &diags);
  bool ok = am != NULL;
  double t0 = bench_now(), c0 = bench_cpu_now();
  for (wave_kernel *k = wave_module_first_kernel(m); ok && k; k = wave_kernel_next(k))
    for (wave_analysis_id id = first; ok && id <= last; id++)
      ok = wave_analysis_get(am, k, id) != NULL;
  timing seconds = {bench_now() - t0, bench_cpu_now() - c0};
  wave_analysis_manager_destroy(am);
  wave_diags_free(&diags);
  if (!ok)
    seconds.wall = -1;
  return seconds;
}

static wave_analysis_id count_analyses(const wave_pass_registry *registry) {
  wave_analysis_id n = 0;
  while (wave_pass_registry_analysis_at(registry, n))
    n++;
  return n;
}

/* The least of each figure over runs. */
static void keep_best(timing *best, timing t) {
  if (t.wall < best->wall)
    best->wall = t.wall;
  if (t.cpu < best->cpu)
    best->cpu = t.cpu;
}

/* Best of REPEATS for analyses [first, last]; prints nothing. Negative wall time on failure. */
static timing best_of(const wave_pass_registry *registry, wave_module *m, wave_analysis_id first,
                      wave_analysis_id last) {
  timing best = {1e9, 1e9};
  for (int rep = 0; rep < REPEATS; rep++) {
    timing s = analyse(registry, m, first, last);
    if (s.wall < 0)
      return s;
    keep_best(&best, s);
  }
  return best;
}

static int deep(const wave_pass_registry *registry, const char *what, text t) {
  timing parse_s;
  wave_module *m = parse(&t, &parse_s);
  free(t.data);
  if (!m)
    return 1;
  timing s = analyse(registry, m, 0, count_analyses(registry) - 1);
  wave_module_destroy(m);
  if (s.wall < 0) {
    fprintf(stderr, "bench_analyses: an analysis failed on %s\n", what);
    return 1;
  }
  printf("100000-deep %-22s all analyses %7.3f s (parse %.3f s)\n", what, s.wall, parse_s.wall);
  return 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);  /* each figure as soon as it is known */
  wave_pass_registry *registry = wave_pass_registry_create();
  if (!registry)
    return 1;
  wave_analysis_id n = count_analyses(registry);
  printf("libwaveopt %s: %d analyses on 1M instructions, best of %d, one core\n", wave_version(),
         n, REPEATS);
  text large = bench_make_kernel(1000000);
  timing parse_s = {1e9, 1e9};
  wave_module *m = NULL;
  for (int rep = 0; rep < REPEATS; rep++) {
    timing s;
    wave_module_destroy(m);
    m = parse(&large, &s);
    if (!m)
      return 1;
    keep_best(&parse_s, s);
  }
  free(large.data);
  printf("parse                     %7.3f s  (cpu %.3f s)\n", parse_s.wall, parse_s.cpu);
  for (wave_analysis_id id = 0; id < n; id++) {
    timing s = best_of(registry, m, id, id);
    if (s.wall < 0) {
      fprintf(stderr, "bench_analyses: %s failed\n",
              wave_pass_registry_analysis_at(registry, id)->name);
      return 1;
    }
    printf("  %-22s  %7.3f s alone, with what it uses (cpu %.3f s)\n",
           wave_pass_registry_analysis_at(registry, id)->name, s.wall, s.cpu);
  }
  timing all = best_of(registry, m, 0, n - 1);
  if (all.wall < 0)
    return 1;
  printf("all analyses together     %7.3f s  (%.2f x parse; cpu %.3f s, %.2f x parse's cpu)\n",
         all.wall, all.wall / parse_s.wall, all.cpu, all.cpu / parse_s.cpu);
  printf("peak RSS: %ld MB\n", bench_peak_rss_kb() / 1024);
  wave_module_destroy(m);
  int status = deep(registry, "ifs", bench_make_deep(100000)) |
               deep(registry, "divergent loops", bench_make_deep_loops(100000)) |
               deep(registry, "loops and ifs, a call", bench_make_deep_call(100000));
  wave_pass_registry_destroy(registry);
  return status;
}
