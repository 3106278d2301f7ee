/* SPDX-License-Identifier: Apache-2.0 */
/* loop-unroll where the lit test cannot reach: a 100 000-deep loop nest with a counted loop
 * innermost; random counted loops of every accepted form through the differential harness;
 * a bound written far before its loop, and where its write does not reach the loop;
 * and generated kernels (both dialects), alone, with licm and dce in a fixpoint, and at -O2,
 * where wavegen's counted-loop shape (and its near misses) makes the pass fire on about two
 * kernels in three (a share checked here, so that the harness keeps testing it there). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"

TU_PASS_SUITE(loop_unroll);

/* `depth` nested loops, each `icmp_ge p1, r4, r1 ; break p1` (r1 the lane: not counted) and,
 * innermost, a loop counting r5 from 0 to 2 by r3 = 1 that adds 1 to r4: it is unrolled, and
 * the ones around it are looked at without climbing the whole nest for their bound. */
Test(loop_unroll, loop_nest_100000_deep_in_one_run, .timeout = 120) {
  enum { DEPTH = 100000 };
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(1), wave_sreg(4)));
  for (unsigned d = 0; d < DEPTH; d++) {
    cr_assert_not_null(wave_build_loop(&b));
    cr_assert_not_null(wave_build(&b, WAVE_OP_ICMP_GE, wave_pred(1), wave_gpr(4), wave_gpr(1)));
    cr_assert_not_null(wave_build(&b, WAVE_OP_BREAK, wave_pred(1)));
  }
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(2), wave_imm(2)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(3), wave_imm(1)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(5), wave_imm(0)));
  wave_node *counted = wave_build_loop(&b);
  cr_assert_not_null(counted);
  cr_assert_not_null(wave_build(&b, WAVE_OP_ICMP_GE, wave_pred(2), wave_gpr(5), wave_gpr(2)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_BREAK, wave_pred(2)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(4), wave_gpr(4), wave_gpr(3)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(5), wave_gpr(5), wave_gpr(3)));
  wave_node *parent = wave_node_parent(counted);

  wave_pipeline *p = wave_pipeline_parse(registry, "loop-unroll", &diags);
  cr_assert_not_null(p);
  wave_pipeline_options o = {.verify_each = true};
  wave_pipeline_result r = {0};
  bool ok = wave_pipeline_run(p, m, &o, &r, &diags);
  if (!ok)
    tu_log_diags(&diags);
  cr_assert(ok);
  cr_assert_eq(tu_stat(&r, "loops-unrolled"), 1);
  /* The innermost loop's place now holds its two copies: two adds of r4 and two of r5. */
  const wave_node *last = wave_node_list_last(wave_loop_body(parent));
  cr_assert(last && wave_node_kind_of(last) == WAVE_NODE_BLOCK);
  unsigned adds = 0;
  for (const wave_instr *in = wave_block_first(last); in; in = wave_instr_next(in))
    adds += wave_instr_op(in) == WAVE_OP_IADD;
  cr_assert_eq(adds, 4);
  tu_assert_valid(k);
  wave_pipeline_result_free(&r);
  wave_pipeline_destroy(p);
  wave_module_destroy(m);
}

/* Generated kernels, before and after, in the interpreter at W = 8, 32 and 64; the pass fires
 * on at least half of them. */
enum { GENERATED_SEEDS = 150 };

Test(loop_unroll, generated_on_portable, .timeout = 300) {
  unsigned fired = tu_check_generated_pipeline(registry, "portable", "loop-unroll,legalize",
                                               GENERATED_SEEDS, "loop-unroll");
  cr_assert_geq(fired, GENERATED_SEEDS / 2);
}

Test(loop_unroll, generated_with_licm_and_dce_on_wave_emu, .timeout = 300) {
  unsigned fired = tu_check_generated_pipeline(
      registry, "wave-emu", "fixpoint(licm,loop-unroll,dce),legalize", GENERATED_SEEDS,
      "loop-unroll");
  cr_assert_geq(fired, GENERATED_SEEDS / 2);
}

Test(loop_unroll, generated_at_o2_on_portable, .timeout = 300) {
  unsigned fired = tu_check_generated_pipeline(registry, "portable", wave_pipeline_for_level(2),
                                               GENERATED_SEEDS, "loop-unroll");
  cr_assert_geq(fired, GENERATED_SEEDS / 2);
}

Test(loop_unroll, generated_docs_dialect_at_o2_on_portable, .timeout = 300) {
  unsigned fired = tu_check_generated_docs_pipeline(registry, "portable",
                                                    wave_pipeline_for_level(2), GENERATED_SEEDS,
                                                    "loop-unroll");
  cr_assert_geq(fired, GENERATED_SEEDS / 2);
}

/* ---- counted loops of every accepted form, held to the interpreter ------------------------- */

static uint32_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 33);
}

/* The compare forms, with the counter (C) and bound (N) in their slots; the exit each makes. */
static const char *const compares[] = {
    "icmp_ge p1, r10, r20", "icmp_le p1, r20, r10", "ucmp_le p1, r20, r10",
    "icmp_gt p1, r10, r20", "icmp_lt p1, r20, r10", "ucmp_lt p1, r20, r10",
    "icmp_eq p1, r10, r20", "icmp_eq p1, r20, r10",
};

static const char *const body_ops[] = {
    "        iadd r4, r4, r10\n",
    "        imul r4, r4, r1\n",
    "        xor r4, r4, r10\n",
    "        icmp_lt p2, r4, r1\n        if p2\n            iadd r4, r4, r21\n        endif\n",
    "        mov_imm r12, 0\n        loop\n            icmp_ge p3, r12, r21\n"
    "            break p3\n            iadd r5, r5, r4\n            iadd r12, r12, r21\n"
    "        endloop\n",
    "        icmp_eq p2, r10, r1\n        if p2\n            mov r5, r10\n        endif\n",
};

/* A kernel whose lanes run one counted loop of a random form, start, bound, step and body,
 * storing what they computed; `seed` also picks whether the counter is read after the loop. */
static char *counted_kernel(uint64_t seed) {
  uint64_t s = seed;
  for (int i = 0; i < 4; i++)
    next_random(&s);
  uint32_t start = next_random(&s) % 6, bound = next_random(&s) % 12,
           step = 1 + next_random(&s) % 3;
  const char *cmp = compares[next_random(&s) % (sizeof(compares) / sizeof(compares[0]))];
  static char text[4096];
  int n = snprintf(text, sizeof(text),
                   ".kernel k\n.registers 32\n.workgroup_size 64, 1, 1\n"
                   "    mov_sr r1, sr_thread_id_x\n    mov_imm r2, 4\n    imul r3, r1, r2\n"
                   "    iadd r3, r3, r0\n    mov_imm r20, %u\n    mov_imm r21, %u\n"
                   "    mov_imm r4, 7\n    iadd r4, r4, r1\n    mov_imm r5, 0\n"
                   "    mov_imm r10, %u\n    loop\n        %s\n        break p1\n",
                   bound, step, start, cmp);
  unsigned ops = 1 + next_random(&s) % 3;
  for (unsigned i = 0; i < ops; i++)
    n += snprintf(text + n, sizeof(text) - n, "%s",
                  body_ops[next_random(&s) % (sizeof(body_ops) / sizeof(body_ops[0]))]);
  n += snprintf(text + n, sizeof(text) - n,
                "        iadd r10, r10, r21\n    endloop\n%s    xor r4, r4, r5\n"
                "    device_store_u32 r3, r4\n    halt\n.end\n",
                next_random(&s) % 2 ? "    iadd r4, r4, r10\n" : "");
  char *copy = malloc((size_t)n + 1);
  cr_assert_not_null(copy);
  memcpy(copy, text, (size_t)n + 1);
  return copy;
}

/* An icmp_eq loop whose counter never equals its bound would not end: those forms are only
 * made when it does (the pass must refuse the others anyway, which the lit test checks). */
static bool ends(const char *text) {
  unsigned start, bound, step;
  if (sscanf(strstr(text, "mov_imm r20, "), "mov_imm r20, %u", &bound) != 1 ||
      sscanf(strstr(text, "mov_imm r21, "), "mov_imm r21, %u", &step) != 1 ||
      sscanf(strstr(text, "mov_imm r10, "), "mov_imm r10, %u", &start) != 1)
    return false;
  return !strstr(text, "icmp_eq p1") || (start <= bound && (bound - start) % step == 0);
}

/* Runs the kernel `text` and what loop-unroll,dce,legalize make of it in the interpreter, in
 * two workgroups of 64 lanes storing from r0, failing the test on any difference; whether
 * loop-unroll changed the kernel. */
static bool unrolled_alike(wave_difftest_pipeline *ctx, const char *text, uint64_t seed) {
  static const wave_gen_launch launch = {.grid = {2, 1, 1},
                                         .workgroup = {64, 1, 1},
                                         .device_memory_size = 512,
                                         .output_base = 0,
                                         .output_slot_bytes = 4,
                                         .num_args = 1,
                                         .args = {{.reg = 0, .base = 0}}};
  wave_difftest test;
  wave_difftest_init(&test, &launch);
  test.transform = wave_transform_pipeline;
  test.transform_ctx = ctx;
  test.input_seed = seed;
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&test, text, strlen(text), &r), WAVE_DIFF_PASS,
               "seed %llu: %s\n%s", (unsigned long long)seed, r.message, text);
  return ctx->num_passes && ctx->pass_changed[0];
}

Test(loop_unroll, counted_loops_of_every_form_keep_their_meaning, .timeout = 300) {
  wave_pipeline *p = wave_pipeline_parse(registry, "loop-unroll,dce,legalize", &diags);
  cr_assert_not_null(p);
  wave_difftest_pipeline ctx = {.pipeline = p, .target = wave_target_lookup("portable")};
  unsigned fired = 0, tried = 0;
  for (uint64_t seed = 0; seed < 400; seed++) {
    char *text = counted_kernel(seed);
    if (ends(text)) {
      tried++;
      fired += unrolled_alike(&ctx, text, seed);
    }
    free(text);
  }
  cr_log_info("counted loops: %u kernels, loop-unroll fired on %u", tried, fired);
  cr_assert_geq(fired, tried / 2);
  wave_pipeline_destroy(p);
}

/* ---- where the bound is written ------------------------------------------------------------ */

/* A kernel counting r10 from 0 to r20 by r21 = 1, with `before` and `after` around the loop
 * (they place the write of r20) and `fillers` small ifs between `before` and the loop. */
static char *bound_kernel(const char *before, unsigned fillers, const char *after) {
  static const char filler[] = "    if p2\n        iadd r4, r4, r1\n    endif\n"
                               "    iadd r4, r4, r2\n";
  size_t size = 1024 + strlen(before) + strlen(after) + fillers * (sizeof(filler) - 1);
  char *text = malloc(size);
  cr_assert_not_null(text);
  int n = snprintf(text, size,
                   ".kernel k\n.registers 32\n.workgroup_size 64, 1, 1\n"
                   "    mov_sr r1, sr_thread_id_x\n    mov_imm r2, 4\n    imul r3, r1, r2\n"
                   "    iadd r3, r3, r0\n    mov_imm r4, 7\n    mov_imm r21, 1\n"
                   "    mov_imm r8, 32\n    icmp_lt p2, r1, r2\n    icmp_lt p3, r1, r8\n%s",
                   before);
  for (unsigned i = 0; i < fillers; i++)
    n += snprintf(text + n, size - (size_t)n, "%s", filler);
  snprintf(text + n, size - (size_t)n,
           "    mov_imm r10, 0\n    loop\n        icmp_ge p1, r10, r20\n        break p1\n"
           "        iadd r4, r4, r10\n        iadd r10, r10, r21\n    endloop\n%s"
           "    device_store_u32 r3, r4\n    halt\n.end\n",
           after);
  return text;
}

/* The bound counts as a constant wherever its one write comes before the loop on every path,
 * however far (300 ifs between: the pass once looked back at most 256 statements), and
 * nowhere else: not from a side of an if that has ended, nor from the other side of the if
 * holding the loop, nor after the loop. Each kernel also goes through the interpreter. */
Test(loop_unroll, bound_written_once_before_the_loop_on_every_path, .timeout = 120) {
  static const struct {
    const char *before;
    unsigned fillers;
    const char *after;
    bool unrolled;
  } cases[] = {
      {"    mov_imm r20, 5\n", 300, "", true},
      {"    if p3\n    mov_imm r20, 5\n", 20, "    endif\n", true},
      {"    if p3\n    mov_imm r20, 5\n    endif\n", 2, "", false},
      {"    if p3\n    mov_imm r20, 5\n    else\n", 2, "    endif\n", false},
      {"", 2, "    mov_imm r20, 5\n", false},
  };
  wave_pipeline *p = wave_pipeline_parse(registry, "loop-unroll,dce,legalize", &diags);
  cr_assert_not_null(p);
  wave_difftest_pipeline ctx = {.pipeline = p, .target = wave_target_lookup("portable")};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *text = bound_kernel(cases[i].before, cases[i].fillers, cases[i].after);
    cr_assert_eq(unrolled_alike(&ctx, text, i), cases[i].unrolled, "case %zu:\n%s", i, text);
    free(text);
  }
  wave_pipeline_destroy(p);
}
