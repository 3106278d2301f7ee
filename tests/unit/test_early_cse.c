/* SPDX-License-Identifier: Apache-2.0 */
/* early-cse where the lit test cannot reach: 100 000-deep nests of ifs and of loops in one run;
 * wave_early_cse_region on the one region a caller picks; generated kernels through the
 * differential harness on several targets, a second run finding nothing left, and output that
 * does not depend on whether missed remarks are asked for. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"
#include "xform/early_cse.h"

TU_PASS_SUITE(early_cse);

static bool run(wave_module *m, const char *text, wave_pipeline_options *o,
                wave_pipeline_result *result) {
  wave_pipeline *p = wave_pipeline_parse(registry, text, &diags);
  cr_assert_not_null(p);
  o->verify_each = true;
  bool ok = wave_pipeline_run(p, m, o, result, &diags);
  if (!ok)
    tu_log_diags(&diags);
  cr_assert(ok, "'%s' failed", text);
  wave_pipeline_destroy(p);
  return result->changed;
}

/* mov_sr r1, lane; mov_imm r2, 4; icmp_lt p1, r1, r2, then `depth` nested ifs (or loops,
 * each ending its body with break p1), each opening with mov_imm r3, 4 and iadd r4, r4, r3. */
static wave_module *deep_nest(unsigned depth, bool loops, wave_kernel **kernel) {
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(1), wave_sreg(0)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(2), wave_imm(4)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_ICMP_LT, wave_pred(1), wave_gpr(1), wave_gpr(2)));
  wave_node *outer = NULL;
  for (unsigned d = 0; d < depth; d++) {
    wave_node *n = loops ? wave_build_loop(&b) : wave_build_if(&b, wave_pred(1));
    cr_assert_not_null(n);
    if (!outer)
      outer = n;
    cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(3), wave_imm(4)));
    cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(4), wave_gpr(4), wave_gpr(3)));
    if (loops)
      cr_assert_not_null(wave_build(&b, WAVE_OP_BREAK, wave_pred(1)));
  }
  b.cursor = wave_cursor_after_node(outer);
  cr_assert_not_null(wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(1), wave_gpr(4)));
  cr_assert_not_null(wave_build_instr(&b, WAVE_OP_HALT, 0, NULL));
  *kernel = k;
  return m;
}

static unsigned count_reads_of(const wave_kernel *k, uint32_t reg) {
  unsigned n = 0;
  wave_foreach_block(blk, (wave_kernel *)k) {
    wave_foreach_instr(in, blk) {
      if (wave_instr_op(in) == WAVE_OP_IADD && wave_instr_operand(in, 2).value == reg)
        n++;
    }
  }
  return n;
}

Test(early_cse, if_nest_100000_deep_in_one_run, .timeout = 120) {
  enum { DEPTH = 100000 };
  wave_kernel *k;
  wave_module *m = deep_nest(DEPTH, false, &k);
  wave_pipeline_options o = {0};
  wave_pipeline_result r = {0};
  run(m, "early-cse", &o, &r);
  /* The outermost mov_imm r3 takes r2's value; inside it r3 holds it already, so every inner
   * one goes. Every add reads r2. */
  cr_assert_eq(tu_stat(&r, "reads-redirected"), DEPTH);
  cr_assert_eq(tu_stat(&r, "instructions-removed"), DEPTH - 1);
  cr_assert_eq(count_reads_of(k, 2), DEPTH);
  tu_assert_valid(k);
  wave_pipeline_result_free(&r);
  wave_module_destroy(m);
}

Test(early_cse, loop_nest_100000_deep_in_one_run, .timeout = 120) {
  enum { DEPTH = 100000 };
  wave_kernel *k;
  wave_module *m = deep_nest(DEPTH, true, &k);
  wave_pipeline_options o = {0};
  wave_pipeline_result r = {0};
  run(m, "early-cse", &o, &r);
  /* Every loop writes r3 (its own and the inner loops' writes): no mov_imm r3 finds r3
   * holding 4 at its loop's top, but r2, written before every loop, does. */
  cr_assert_eq(tu_stat(&r, "reads-redirected"), DEPTH);
  cr_assert_eq(tu_stat(&r, "instructions-removed"), 0);
  cr_assert_eq(count_reads_of(k, 2), DEPTH);
  tu_assert_valid(k);
  wave_pipeline_result_free(&r);
  wave_module_destroy(m);
}

/* A pass of its own that rewrites only the kernel's last region. */
static wave_pass_result run_last_region(wave_kernel *kernel, wave_analysis_manager *am,
                                        wave_pass_context *ctx) {
  (void)am;
  unsigned rewrites = 0;
  bool settled = true;
  if (!wave_early_cse_region(wave_kernel_last_region(kernel), ctx, &rewrites, &settled))
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory");
  return wave_pass_done(rewrites > 0, WAVE_PRESERVE_NONE);
}

static const wave_pass_info last_region = {
    .name = "cse-last-region",
    .help = "wave_early_cse_region on the last region",
    .run = run_last_region,
};

static char *print(const wave_module *m) {
  wave_print_options po = {0};
  size_t len;
  char *text = wave_print_to_string(m, &po, &len);
  cr_assert_not_null(text);
  return text;
}

Test(early_cse, rewrites_the_region_it_is_given) {
  cr_assert(wave_pass_registry_add_pass(registry, &last_region, &diags));
  wave_module *m = tu_parse_ok(".kernel k\n.registers 8\n"
                               "    mov_imm r1, 5\n    mov_imm r2, 5\n    iadd r3, r2, r2\n"
                               "    call sub\n    device_store_u32 r0, r3\n    halt\n"
                               "sub:\n"
                               "    mov_imm r4, 7\n    mov_imm r5, 7\n    iadd r6, r5, r5\n"
                               "    mov_imm r5, 7\n    return\n.end\n",
                               "region.wave", true);
  wave_pipeline_options o = {0};
  wave_pipeline_result r = {0};
  cr_assert(run(m, "cse-last-region", &o, &r));
  char *text = print(m);
  cr_assert_not_null(strstr(text, "mov_imm r2, 5\n    iadd r3, r2, r2\n"), "%s", text);
  cr_assert_not_null(strstr(text, "mov_imm r5, 7\n    iadd r6, r4, r4\n    return\n"), "%s",
                     text);
  free(text);
  wave_pipeline_result_free(&r);
  wave_module_destroy(m);
}

static wave_module *generated(uint64_t seed, wave_gen_launch *launch) {
  wave_gen_options g;
  wave_gen_options_init(&g);
  g.seed = seed;
  g.size = 400;
  return tu_generate(&g, launch);
}

Test(early_cse, a_second_run_finds_nothing, .timeout = 120) {
  for (uint64_t seed = 0; seed < 100; seed++) {
    wave_gen_launch launch;
    wave_module *m = generated(seed, &launch);
    wave_pipeline_options o = {0};
    wave_pipeline_result first = {0}, second = {0};
    run(m, "early-cse", &o, &first);
    cr_assert_not(run(m, "early-cse", &o, &second), "seed %llu", (unsigned long long)seed);
    wave_pipeline_result_free(&first);
    wave_pipeline_result_free(&second);
    wave_module_destroy(m);
  }
}

Test(early_cse, remarks_do_not_change_the_output, .timeout = 120) {
  for (uint64_t seed = 0; seed < 100; seed++) {
    wave_gen_launch launch;
    wave_module *quiet = generated(seed, &launch), *loud = generated(seed, &launch);
    wave_pipeline_options o = {0}, with_remarks = {.remark_filter = tu_all_remarks};
    wave_pipeline_result a = {0}, b = {0};
    run(quiet, "early-cse", &o, &a);
    run(loud, "early-cse", &with_remarks, &b);
    char *x = print(quiet), *y = print(loud);
    cr_assert_str_eq(x, y, "seed %llu", (unsigned long long)seed);
    free(x);
    free(y);
    wave_pipeline_result_free(&a);
    wave_pipeline_result_free(&b);
    wave_module_destroy(quiet);
    wave_module_destroy(loud);
  }
}

/* Generated kernels, before and after, in the interpreter at W = 8, 32 and 64. */
static void check_generated(const char *target, const char *pipeline_text, unsigned seeds) {
  unsigned fired = tu_check_generated_pipeline(registry, target, pipeline_text, seeds, "early-cse");
  cr_assert_geq(fired, seeds * 9 / 10);
}

Test(early_cse, generated_on_portable, .timeout = 300) {
  check_generated("portable", "early-cse,legalize", 150);
}

Test(early_cse, generated_with_dce_on_spec, .timeout = 300) {
  check_generated("spec", "fixpoint(early-cse,dce),legalize", 150);
}

Test(early_cse, generated_at_o2_on_wave_emu, .timeout = 300) {
  check_generated("wave-emu", "lint,fixpoint(simplify-cfg,early-cse,dce,hoist-common,"
                              "flatten-ifs,predicated-break,if-to-select),bound-depth,legalize",
                  150);
}
