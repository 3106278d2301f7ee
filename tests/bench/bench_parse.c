/* SPDX-License-Identifier: Apache-2.0 */
/* make bench: parse + verify + print throughput on large generated kernels, and 100000-deep
 * nesting. Prints figures; asserts nothing about time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "waveopt/waveopt.h"

typedef struct text {
  char *data;
  size_t len, cap;
} text;

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->data = realloc(t->data, t->cap);
    if (!t->data) {
      fprintf(stderr, "bench_parse: out of memory\n");
      exit(1);
    }
  }
  memcpy(t->data + t->len, s, n + 1);
  t->len += n;
}

/* One space a level keeps the text near the ~21 bytes an instruction of real kernels. */
static void indent(text *t, int depth) {
  put(t, "  ");
  for (int i = 0; i < depth; i++)
    put(t, " ");
}

/* A kernel of about `count` instructions whose control flow nests up to 8 deep, cycling
 * through ifs with and without else and loops that break. */
static text make_kernel(long count) {
  static const char *const body[] = {
      "iadd r1, r2, r3", "fma r4, r5, r6, r7 ; x", "icmp_lt p1, r1, r8",
      "mov_imm r9, 0x10", "select r1, p1, r2, r3", "shl r4, r5, r6",
      "@p2 mov r7, r8", "atomic_add r9, r2, r1, .device", "device_load_u32 r2, r3",
      "device_store_u32 r2, r3"};
  text t = {0};
  put(&t, "; generated for make bench\n.kernel bench\n.registers 32\n"
          ".workgroup_size 64, 1, 1\n");
  int depth = 0;
  char open[16];
  long emitted = 0;
  for (long i = 0; emitted < count; i++) {
    long phase = i % 23;
    if (phase == 5 && depth < 8) {
      open[depth] = (char)(i % 3);
      indent(&t, depth);
      put(&t, open[depth] == 2 ? "loop\n" : "if p1\n");
      depth++;
    } else if (phase == 11 && depth > 0 && open[depth - 1] == 1) {
      indent(&t, depth - 1);
      put(&t, "else\n");
      open[depth - 1] = 0;
    } else if (phase == 17 && depth > 0 && (i / 23) % 4 != 0) {
      depth--;
      if (open[depth] == 2) {
        indent(&t, depth + 1);
        put(&t, "break p1\n");
        emitted++;
      }
      indent(&t, depth);
      put(&t, open[depth] == 2 ? "endloop\n" : "endif\n");
    } else {
      indent(&t, depth);
      put(&t, body[i % 10]);
      put(&t, "\n");
      emitted++;
    }
  }
  while (depth-- > 0) {
    indent(&t, depth);
    put(&t, open[depth] == 2 ? "endloop\n" : "endif\n");
  }
  put(&t, "    halt\n.end\n");
  return t;
}

static text make_deep(int levels) {
  text t = {0};
  put(&t, ".kernel deep\n");
  for (int i = 0; i < levels; i++)
    put(&t, "if p1\n");
  put(&t, "nop\n");
  for (int i = 0; i < levels; i++)
    put(&t, "endif\n");
  put(&t, "halt\n.end\n");
  return t;
}

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
  text small = make_kernel(100000), large = make_kernel(1000000), deep = make_deep(100000);
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
