/* SPDX-License-Identifier: Apache-2.0 */
/* The large kernels the benchmarks read, written as text (see bench_text.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_text.h"

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->data = realloc(t->data, t->cap);
    if (!t->data) {
      fprintf(stderr, "bench: out of memory\n");
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

text bench_make_kernel(long count) {
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

text bench_make_deep_loops(int levels) {
  text t = {0};
  put(&t, ".kernel deep_loops\n.registers 4\nmov_sr r1, sr_lane_id\nmov_imm r2, 1\n"
          "mov_imm r3, 0\n");
  for (int i = 0; i < levels; i++)
    put(&t, "loop\n");
  put(&t, "iadd r3, r3, r2\nicmp_gt p1, r3, r1\nbreak p1\n");
  for (int i = 0; i < levels; i++)
    put(&t, "break p1\nendloop\n");
  put(&t, "halt\n.end\n");
  return t;
}

text bench_make_deep_call(int levels) {
  text t = {0};
  put(&t, ".kernel deep_call\n.registers 4\nmov_sr r1, sr_lane_id\nicmp_lt p1, r1, r2\n"
          "icmp_lt p2, r2, r2\n");
  for (int i = 0; i < levels; i++)
    put(&t, i % 2 ? "if p2\n" : "loop\n");
  put(&t, "call f\n");
  for (int i = levels; i-- > 0;)
    put(&t, i % 2 ? "endif\n" : "break p1\nendloop\n");
  put(&t, "halt\nf:\niadd r3, r3, r1\nreturn\n.end\n");
  return t;
}

text bench_make_deep(int levels) {
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
