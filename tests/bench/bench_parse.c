/* SPDX-License-Identifier: Apache-2.0 */
/* make bench: parse + verify + print throughput on large generated kernels, and 100000-deep
 * nesting. Prints figures; asserts nothing about time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_text.h"
#include "bench_util.h"
#include "waveopt/waveopt.h"

typedef struct timing {
  double parse, verify, print;
  size_t out_len;
} timing;

static int run_once(const text *t, timing *out) {
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  double t0 = bench_now();
  wave_module *m = wave_parse_string(t->data, t->len, "bench.wave", &diags);
  double t1 = bench_now();
  bool ok = m && wave_verify_module(m, &diags);
  double t2 = bench_now();
  wave_print_options opts = {0};
  char *printed = ok ? wave_print_to_string(m, &opts, &out->out_len) : NULL;
  double t3 = bench_now();
  out->parse = t1 - t0;
  out->verify = t2 - t1;
  out->print = t3 - t2;
  if (!printed)
    fprintf(stderr, "bench_parse: the generated kernel failed (%zu errors)\n", diags.num_errors);
  free(printed);
  wave_module_destroy(m);
  wave_diags_free(&diags);
  return printed ? 0 : -1;
}

/* Best of three, so a noisy neighbour inflates no figure. */
static int measure(const char *label, const text *t, long instrs, double *total) {
  timing best = {1e9, 1e9, 1e9, 0};
  for (int rep = 0; rep < 3; rep++) {
    timing cur;
    if (run_once(t, &cur) != 0)
      return -1;
    if (cur.parse + cur.verify + cur.print < best.parse + best.verify + best.print)
      best = cur;
  }
  *total = best.parse + best.verify + best.print;
  double mb = (double)t->len / 1e6;
  printf("%-22s %8.2f MB %9ld instrs  parse %7.3f s  verify %7.3f s  print %7.3f s  "
         "total %7.3f s  %7.1f MB/s  %6.2f M instrs/s\n",
         label, mb, instrs, best.parse, best.verify, best.print, *total, mb / *total,
         (double)instrs / *total / 1e6);
  return 0;
}

int main(void) {
  printf("libwaveopt %s: parse + verify + print, best of 3, one core\n", wave_version());
  text small = bench_make_kernel(100000), large = bench_make_kernel(1000000),
       deep = bench_make_deep(100000);
  double t_small, t_large, t_deep;
  if (measure("100k instructions", &small, 100000, &t_small) != 0 ||
      measure("1M instructions", &large, 1000000, &t_large) != 0 ||
      measure("100000-deep nesting", &deep, 1, &t_deep) != 0)
    return 1;
  printf("1M / 100k time ratio: %.2f (linear = 10)\n", t_large / t_small);
  printf("peak RSS: %ld MB\n", bench_peak_rss_kb() / 1024);
  free(small.data);
  free(large.data);
  free(deep.data);
  return 0;
}
