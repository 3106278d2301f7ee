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

/* splitmix64: the kernels must be the same on every machine and run. */
static unsigned long long next_random(unsigned long long *state) {
  unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

text bench_make_random(long count, bool stored, unsigned long long seed) {
  static const char *const ops[] = {"iadd", "isub", "imul", "and", "or", "xor", "imin", "imax"};
  enum { VALUES = 28, MAX_DEPTH = 20 };   /* r1..r28 hold values; r0 the thread, r29-r31 */
  text t = {0};
  char line[96];
  put(&t, "; generated for make bench\n.kernel random\n.registers 32\n"
          ".workgroup_size 64, 1, 1\n    mov_sr r0, sr_thread_id_x\n");
  for (int r = 1; r <= VALUES; r++) {
    snprintf(line, sizeof line, "    mov_imm r%d, %d\n", r, r * 7 + 3);
    put(&t, line);
  }
  put(&t, "    iadd r1, r1, r0\n");
  long emitted = VALUES + 2;
  int depth = 0;
  bool has_else[MAX_DEPTH];
  while (emitted < count) {
    unsigned long long x = next_random(&seed);
    unsigned choice = (unsigned)(x % 100);
    int a = 1 + (int)((x >> 8) % VALUES), b = 1 + (int)((x >> 16) % VALUES);
    int d = 1 + (int)((x >> 24) % VALUES);
    if (choice < 4 && depth < MAX_DEPTH) {
      int p = 1 + (int)((x >> 32) % 3);
      indent(&t, depth);
      snprintf(line, sizeof line, "icmp_lt p%d, r%d, r%d\n", p, a, b);
      put(&t, line);
      indent(&t, depth);
      snprintf(line, sizeof line, "if p%d\n", p);
      put(&t, line);
      has_else[depth++] = false;
      emitted += 2;
    } else if (choice < 6 && depth > 0 && !has_else[depth - 1]) {
      indent(&t, depth - 1);
      put(&t, "else\n");
      has_else[depth - 1] = true;
      emitted++;
    } else if (choice < 10 && depth > 0) {
      indent(&t, --depth);
      put(&t, "endif\n");
      emitted++;
    } else {
      indent(&t, depth);
      snprintf(line, sizeof line, "%s r%d, r%d, r%d\n", ops[(x >> 40) % 8], d, a, b);
      put(&t, line);
      emitted++;
    }
  }
  while (depth > 0) {
    indent(&t, --depth);
    put(&t, "endif\n");
  }
  if (stored) {
    /* Each lane's 28 values at 4 * (28 t + i). */
    put(&t, "    mov_imm r29, 112\n    imul r30, r0, r29\n    mov_imm r31, 4\n");
    for (int r = 1; r <= VALUES; r++) {
      snprintf(line, sizeof line, "    device_store_u32 r30, r%d\n    iadd r30, r30, r31\n", r);
      put(&t, line);
    }
  }
  put(&t, "    halt\n.end\n");
  return t;
}
