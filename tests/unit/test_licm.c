/* SPDX-License-Identifier: Apache-2.0 */
/* licm where the lit test cannot reach: a 100 000-deep loop nest in one run, and generated
 * kernels through the differential harness, alone and with early-cse and dce in a fixpoint. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"

TU_PASS_SUITE(licm);

/* `depth` nested loops, each body mov_imm r3, 1; iadd r4, r4, r3; break p1; then the next
 * loop, and the innermost body also mov_sr r5, lane; iadd r4, r4, r5 at its end. */
Test(licm, loop_nest_100000_deep_in_one_run, .timeout = 120) {
  enum { DEPTH = 100000 };
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(1), wave_sreg(4)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(2), wave_imm(4)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_ICMP_LT, wave_pred(1), wave_gpr(1), wave_gpr(2)));
  wave_node *outer = NULL, *inner = NULL;
  for (unsigned d = 0; d < DEPTH; d++) {
    cr_assert_not_null(inner = wave_build_loop(&b));
    if (!outer)
      outer = inner;
    cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(3), wave_imm(1)));
    cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(4), wave_gpr(4), wave_gpr(3)));
    cr_assert_not_null(wave_build(&b, WAVE_OP_BREAK, wave_pred(1)));
  }
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(5), wave_sreg(4)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(4), wave_gpr(4), wave_gpr(5)));
  b.cursor = wave_cursor_after_node(outer);
  cr_assert_not_null(wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(1), wave_gpr(4)));
  cr_assert_not_null(wave_build_instr(&b, WAVE_OP_HALT, 0, NULL));

  wave_pipeline *p = wave_pipeline_parse(registry, "licm", &diags);
  cr_assert_not_null(p);
  wave_pipeline_options o = {.verify_each = true};
  wave_pipeline_result r = {0};
  bool ok = wave_pipeline_run(p, m, &o, &r, &diags);
  if (!ok)
    tu_log_diags(&diags);
  cr_assert(ok);
  /* Every loop writes r3, its own and those inside it: only the innermost loop's mov_imm
   * leaves, and its mov_sr, after the break but with r5 dead after the loop, leaves too. */
  cr_assert_eq(tu_stat(&r, "constants-hoisted"), 2);
  wave_node *parent = wave_node_parent(inner);
  cr_assert_not_null(parent);
  wave_node *before = wave_node_prev(inner);
  cr_assert(before && wave_node_kind_of(before) == WAVE_NODE_BLOCK);
  cr_assert_eq(wave_instr_op(wave_block_last(before)), WAVE_OP_MOV_SR);
  cr_assert_eq(wave_instr_op(wave_instr_prev(wave_block_last(before))), WAVE_OP_MOV_IMM);
  tu_assert_valid(k);
  wave_pipeline_result_free(&r);
  wave_pipeline_destroy(p);
  wave_module_destroy(m);
}

/* Generated kernels, before and after, in the interpreter at W = 8, 32 and 64. */
static void check_generated(const char *target, const char *pipeline_text, unsigned seeds) {
  unsigned fired = tu_check_generated_pipeline(registry, target, pipeline_text, seeds, "licm");
  cr_assert_geq(fired, seeds / 2);
}

Test(licm, generated_on_portable, .timeout = 300) {
  check_generated("portable", "licm,legalize", 150);
}

Test(licm, generated_with_early_cse_and_dce_on_wave_emu, .timeout = 300) {
  check_generated("wave-emu", "fixpoint(licm,early-cse,dce),legalize", 150);
}
