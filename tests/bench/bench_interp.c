/* SPDX-License-Identifier: Apache-2.0 */
/* Interpreter throughput: lane- and wave-instructions per second on three kernels that stress
 * different parts of it — a lane-divergent integer loop (masks and the divergence stack), a
 * reduction (wave operations and atomics) and a GEMM tile (f32 fma over local memory with
 * barriers between waves). Each result is checked so a fast wrong interpreter cannot pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "waveopt/interp.h"
#include "waveopt/waveopt.h"

/* Lane l of every wave loops (l + 1) * 64 times: the wave's mask shrinks as lanes leave. */
static const char divergent_src[] =
    ".kernel divergent_loop\n"
    ".registers 16\n"
    ".workgroup_size 256, 1, 1\n"
    "    mov_sr  r1, sr_lane_id\n"
    "    mov_imm r2, 1\n"
    "    iadd    r1, r1, r2\n"
    "    mov_imm r3, 6\n"
    "    shl     r1, r1, r3\n"
    "    mov_imm r4, 0\n"
    "    mov_imm r6, 0\n"
    "    loop\n"
    "        icmp_ge p1, r4, r1\n"
    "        break   p1\n"
    "        imul    r7, r4, r4\n"
    "        xor     r6, r6, r7\n"
    "        iadd    r6, r6, r4\n"
    "        shr     r8, r6, r2\n"
    "        iadd    r6, r6, r8\n"
    "        iadd    r4, r4, r2\n"
    "    endloop\n"
    "    mov_sr  r9, sr_workgroup_id_x\n"
    "    mov_sr  r10, sr_workgroup_size_x\n"
    "    mov_sr  r11, sr_thread_id_x\n"
    "    imad    r9, r9, r10, r11\n"
    "    mov_imm r10, 2\n"
    "    shl     r9, r9, r10\n"
    "    iadd    r9, r0, r9\n"
    "    device_store_u32 r9, r6\n"
    "    halt\n"
    ".end\n";

/* Every thread sums `rounds` u32 inputs through wave_reduce_add; lane 0 adds the wave's sum to
 * a device total with an atomic. r0 = inputs, r1 = total, r2 = rounds. */
static const char reduction_src[] =
    ".kernel reduction\n"
    ".registers 20\n"
    ".workgroup_size 256, 1, 1\n"
    "    mov_sr  r3, sr_workgroup_id_x\n"
    "    mov_sr  r4, sr_workgroup_size_x\n"
    "    mov_sr  r5, sr_thread_id_x\n"
    "    imad    r6, r3, r4, r5\n"
    "    mov_imm r7, 2\n"
    "    shl     r6, r6, r7\n"
    "    iadd    r6, r0, r6\n"
    "    mov_sr  r8, sr_lane_id\n"
    "    mov_imm r9, 0\n"
    "    icmp_eq p1, r8, r9\n"
    "    mov_imm r10, 0\n"
    "    mov_imm r11, 1\n"
    "    loop\n"
    "        icmp_ge p2, r10, r2\n"
    "        break   p2\n"
    "        device_load_u32 r12, r6\n"
    "        wave_reduce_add r13, r12\n"
    "        if p1\n"
    "            atomic_add r1, r13, .device\n"
    "        endif\n"
    "        iadd    r10, r10, r11\n"
    "    endloop\n"
    "    halt\n"
    ".end\n";

/* C = A * B for N x N f32 matrices, 16 x 16 tiles staged in local memory.
 * r0 = A, r1 = B, r2 = C, r3 = N. */
static const char gemm_src[] =
    ".kernel gemm_tile\n"
    ".registers 32\n"
    ".workgroup_size 16, 16, 1\n"
    ".local_memory 2048\n"
    "    mov_sr  r4, sr_thread_id_x\n"
    "    mov_sr  r5, sr_thread_id_y\n"
    "    mov_sr  r6, sr_workgroup_id_x\n"
    "    mov_sr  r7, sr_workgroup_id_y\n"
    "    mov_imm r8, 4\n"
    "    shl     r6, r6, r8\n"
    "    shl     r7, r7, r8\n"
    "    iadd    r9, r6, r4\n"
    "    iadd    r10, r7, r5\n"
    "    mov_imm r11, 0\n"
    "    mov_imm r12, 0\n"
    "    mov_imm r13, 2\n"
    "    mov_imm r14, 16\n"
    "    imad    r15, r5, r14, r4\n"
    "    shl     r15, r15, r13\n"
    "    mov_imm r16, 1024\n"
    "    iadd    r17, r15, r16\n"
    "    mov_imm r23, 4\n"
    "    mov_imm r24, 64\n"
    "    mov_imm r27, 1\n"
    "    loop\n"
    "        ucmp_le p1, r3, r12\n"
    "        break   p1\n"
    "        iadd    r18, r12, r4\n"
    "        imad    r18, r10, r3, r18\n"
    "        shl     r18, r18, r13\n"
    "        iadd    r18, r0, r18\n"
    "        device_load_u32 r19, r18\n"
    "        local_store_u32 r15, r19\n"
    "        iadd    r18, r12, r5\n"
    "        imad    r18, r18, r3, r9\n"
    "        shl     r18, r18, r13\n"
    "        iadd    r18, r1, r18\n"
    "        device_load_u32 r19, r18\n"
    "        local_store_u32 r17, r19\n"
    "        barrier\n"
    "        mov_imm r20, 0\n"
    "        imul    r21, r5, r14\n"
    "        shl     r21, r21, r13\n"
    "        shl     r22, r4, r13\n"
    "        iadd    r22, r22, r16\n"
    "        loop\n"
    "            icmp_ge p2, r20, r14\n"
    "            break   p2\n"
    "            local_load_u32 r25, r21\n"
    "            local_load_u32 r26, r22\n"
    "            fma     r11, r25, r26, r11\n"
    "            iadd    r21, r21, r23\n"
    "            iadd    r22, r22, r24\n"
    "            iadd    r20, r20, r27\n"
    "        endloop\n"
    "        barrier\n"
    "        iadd    r12, r12, r14\n"
    "    endloop\n"
    "    imad    r18, r10, r3, r9\n"
    "    shl     r18, r18, r13\n"
    "    iadd    r18, r2, r18\n"
    "    device_store_u32 r18, r11\n"
    "    halt\n"
    ".end\n";

typedef struct bench_case {
  const char *name;
  const char *src;
  wave_launch_config config;
  wave_reg_value presets[4];
  size_t num_presets;
  void (*prepare)(uint8_t *mem);
  int (*check)(const uint8_t *mem);
} bench_case;

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static float rdf(const uint8_t *p) {
  uint32_t b = rd32(p);
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static void wrf(uint8_t *p, float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  wr32(p, b);
}

enum { DIV_GROUPS = 256, RED_GROUPS = 64, RED_ROUNDS = 2048, GEMM_N = 256, THREAD_GROUPS = 32 };
enum { GEMM_A = 0, GEMM_B = GEMM_N * GEMM_N * 4, GEMM_C = 2 * GEMM_N * GEMM_N * 4 };

static int check_groups(const uint8_t *mem, uint32_t groups) {
  for (uint32_t t = 0; t < groups * 256u; t++) {
    uint32_t n = ((t % 32) + 1) * 64, acc = 0;
    for (uint32_t i = 0; i < n; i++) {
      acc ^= i * i;
      acc += i;
      acc += acc >> 1;
    }
    if (rd32(mem + 4 * t) != acc)
      return 0;
  }
  return 1;
}

static int check_divergent(const uint8_t *mem) { return check_groups(mem, DIV_GROUPS); }
static int check_thread(const uint8_t *mem) { return check_groups(mem, THREAD_GROUPS); }

static void prepare_reduction(uint8_t *mem) {
  for (uint32_t i = 0; i < RED_GROUPS * 256u; i++)
    wr32(mem + 4 * i, i);
}

static int check_reduction(const uint8_t *mem) {
  uint64_t n = RED_GROUPS * 256u;
  uint32_t expected = (uint32_t)(n * (n - 1) / 2 * RED_ROUNDS);
  return rd32(mem + 4 * n) == expected;
}

static void prepare_gemm(uint8_t *mem) {
  for (uint32_t i = 0; i < GEMM_N * GEMM_N; i++) {
    wrf(mem + GEMM_A + 4 * i, (float)(i % 7) - 3.0f);
    wrf(mem + GEMM_B + 4 * i, (float)(i % 5) * 0.5f);
  }
}

static int check_gemm(const uint8_t *mem) {
  for (uint32_t r = 0; r < GEMM_N; r += 17) {
    for (uint32_t c = 0; c < GEMM_N; c += 13) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < GEMM_N; k++)
        acc = acc +
              rdf(mem + GEMM_A + 4 * (r * GEMM_N + k)) * rdf(mem + GEMM_B + 4 * (k * GEMM_N + c));
      if (rdf(mem + GEMM_C + 4 * (r * GEMM_N + c)) != acc)
        return 0;
    }
  }
  return 1;
}

static int run_case(bench_case *bc) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *module = wave_parse_string(bc->src, strlen(bc->src), bc->name, &diags);
  if (!module) {
    fprintf(stderr, "bench_interp: %s does not parse\n", bc->name);
    wave_diags_free(&diags);
    return 1;
  }
  bc->config.presets = bc->presets;
  bc->config.num_presets = bc->num_presets;
  wave_machine *m = wave_machine_create(wave_module_first_kernel(module), &bc->config, &diags);
  int failed = 1;
  if (m && bc->prepare)
    bc->prepare(wave_machine_device_memory(m, NULL));
  double t0 = bench_now();
  if (m && wave_machine_run(m, &diags) == WAVE_RUN_OK) {
    double dt = bench_now() - t0;
    const wave_counters *c = wave_machine_counters(m);
    failed = !bc->check(wave_machine_device_memory(m, NULL));
    if (bc->config.mode == WAVE_MODE_THREAD)
      printf("%-15s %8.1f M thread-instr/s  %.3f s%s\n", bc->name,
             (double)c->lane_instructions / dt / 1e6, dt, failed ? "  WRONG RESULT" : "");
    else
      printf("%-15s %8.1f M lane-instr/s %7.1f M wave-instr/s  efficiency %5.1f%%  %.3f s%s\n",
             bc->name, (double)c->lane_instructions / dt / 1e6, (double)c->issued / dt / 1e6,
             100.0 * wave_counters_simd_efficiency(c, wave_machine_wave_width(m)), dt,
             failed ? "  WRONG RESULT" : "");
  } else {
    const wave_run_error *e = m ? wave_machine_error(m) : NULL;
    fprintf(stderr, "bench_interp: %s failed: %s\n", bc->name, e ? e->message : "out of memory");
  }
  wave_machine_destroy(m);
  wave_module_destroy(module);
  wave_diags_free(&diags);
  return failed;
}

int main(void) {
  enum { NUM_CASES = 4 };
  bench_case cases[NUM_CASES];
  memset(cases, 0, sizeof cases);
  for (int i = 0; i < NUM_CASES; i++)
    wave_launch_config_init(&cases[i].config);

  cases[0].name = "divergent loop";
  cases[0].src = divergent_src;
  cases[0].config.grid[0] = DIV_GROUPS;
  cases[0].config.max_steps = 1000000000;
  cases[0].presets[0] = (wave_reg_value){0, 0};
  cases[0].num_presets = 1;
  cases[0].check = check_divergent;

  cases[1].name = "reduction";
  cases[1].src = reduction_src;
  cases[1].config.grid[0] = RED_GROUPS;
  cases[1].config.max_steps = 1000000000;
  cases[1].presets[0] = (wave_reg_value){0, 0};
  cases[1].presets[1] = (wave_reg_value){1, RED_GROUPS * 256u * 4};
  cases[1].presets[2] = (wave_reg_value){2, RED_ROUNDS};
  cases[1].num_presets = 3;
  cases[1].prepare = prepare_reduction;
  cases[1].check = check_reduction;

  cases[2].name = "gemm tile";
  cases[2].src = gemm_src;
  cases[2].config.grid[0] = GEMM_N / 16;
  cases[2].config.grid[1] = GEMM_N / 16;
  cases[2].config.max_steps = 1000000000;
  cases[2].presets[0] = (wave_reg_value){0, GEMM_A};
  cases[2].presets[1] = (wave_reg_value){1, GEMM_B};
  cases[2].presets[2] = (wave_reg_value){2, GEMM_C};
  cases[2].presets[3] = (wave_reg_value){3, GEMM_N};
  cases[2].num_presets = 4;
  cases[2].prepare = prepare_gemm;
  cases[2].check = check_gemm;

  /* the per-thread mode, which the SIMT deadlock check reruns programs in */
  cases[3] = cases[0];
  cases[3].name = "per-thread loop";
  cases[3].config.grid[0] = THREAD_GROUPS;
  cases[3].config.mode = WAVE_MODE_THREAD;
  cases[3].check = check_thread;

  int failures = 0;
  for (int i = 0; i < NUM_CASES; i++)
    failures += run_case(&cases[i]);
  printf("peak RSS: %ld MB\n", bench_peak_rss_kb() / 1024);
  return failures ? 1 : 0;
}
