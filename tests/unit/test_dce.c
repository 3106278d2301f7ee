/* SPDX-License-Identifier: Apache-2.0 */
/* dce where the lit test cannot reach: a 100 000-deep nest of ifs with dead code and mergeable
 * ifs at every level; one run reaching the fixpoint on generated kernels; output that does not
 * depend on whether missed remarks are asked for; dead code through a loop's back edge and a
 * value that only feeds itself around a loop, gone in one sweep; the dce-max-rounds option on a
 * predicate that only a folded select read. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"

static wave_pass_registry *registry;

static void setup(void) {
  registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
}

static void teardown(void) {
  wave_pass_registry_destroy(registry);
}

TestSuite(dce, .init = setup, .fini = teardown);

Test(dce, nesting_100000_deep_does_not_recurse) {
  enum { DEPTH = 100000 };
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(1), wave_sreg(0)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(2), wave_imm(4)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(5), wave_imm(0)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_ICMP_LT, wave_pred(1), wave_gpr(1), wave_gpr(2)));
  /* if p1 { iadd r3, r1, r2 (dead); <deeper> } if p1 { iadd r5, r5, r2 } at every level. */
  wave_node **ifs = malloc(DEPTH * sizeof(*ifs));
  cr_assert_not_null(ifs);
  for (unsigned d = 0; d < DEPTH; d++) {
    cr_assert_not_null(ifs[d] = wave_build_if(&b, wave_pred(1)));
    cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(3), wave_gpr(1), wave_gpr(2)));
  }
  for (unsigned d = DEPTH; d-- > 0;) {
    b.cursor = wave_cursor_after_node(ifs[d]);
    cr_assert_not_null(wave_build_if(&b, wave_pred(1)));
    cr_assert_not_null(wave_build(&b, WAVE_OP_IADD, wave_gpr(5), wave_gpr(5), wave_gpr(2)));
  }
  b.cursor = wave_cursor_list_end(wave_region_body(wave_kernel_first_region(k)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(1), wave_gpr(5)));
  cr_assert_not_null(wave_build_instr(&b, WAVE_OP_HALT, 0, NULL));
  free(ifs);

  wave_pipeline_options o = {.verify_each = true};
  wave_pipeline_result r = {0};
  tu_run_pipeline(registry, m, "dce", &o, &r);
  cr_assert_eq(tu_stat(&r, "dead-removed"), DEPTH);
  /* The innermost if held only its dead add: it goes, and each if above it merges with the if
   * after it. */
  cr_assert_eq(tu_stat(&r, "ifs-removed"), 1);
  cr_assert_eq(tu_stat(&r, "ifs-merged"), DEPTH - 1);
  /* What is left: one if per level, each then-side the next if and the add. */
  unsigned num_ifs = 0, num_adds = 0;
  wave_foreach_block(blk, k) {
    wave_foreach_instr(in, blk) num_adds += wave_instr_op(in) == WAVE_OP_IADD;
  }
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(k)));
  while (wave_walk_next(&w))
    num_ifs += w.event == WAVE_WALK_IF;
  cr_assert_eq(num_ifs, DEPTH);
  cr_assert_eq(num_adds, DEPTH);
  tu_assert_valid(k);
  wave_pipeline_result_free(&r);
  wave_module_destroy(m);
}

static wave_module *generated(uint64_t seed) {
  wave_gen_options g;
  wave_gen_options_init(&g);
  g.seed = seed;
  g.size = 400;
  wave_gen_launch launch;
  return tu_generate(&g, &launch);
}

Test(dce, one_run_removes_every_chain_of_dead_code) {
  for (uint64_t seed = 0; seed < 60; seed++) {
    wave_module *m = generated(seed);
    wave_pipeline_options o = {.verify_each = true};
    wave_pipeline_result first = {0}, second = {0};
    tu_run_pipeline(registry, m, "dce", &o, &first);
    tu_run_pipeline(registry, m, "dce", &o, &second);
    cr_assert_gt(tu_stat(&first, "dead-removed"), 0, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(tu_stat(&second, "dead-removed"), 0, "seed %llu: %llu more dead",
                 (unsigned long long)seed, (unsigned long long)tu_stat(&second, "dead-removed"));
    wave_pipeline_result_free(&first);
    wave_pipeline_result_free(&second);
    wave_module_destroy(m);
  }
}

Test(dce, remarks_do_not_change_the_output) {
  for (uint64_t seed = 0; seed < 60; seed++) {
    char *text[2];
    for (unsigned explain = 0; explain < 2; explain++) {
      wave_module *m = generated(seed);
      wave_pipeline_options o = {.verify_each = true};
      o.remark_filter = explain ? tu_all_remarks : NULL;
      wave_pipeline_result r = {0};
      tu_run_pipeline(registry, m, "dce", &o, &r);
      cr_assert_eq(r.num_remarks > 0, explain == 1);
      text[explain] = wave_print_to_string(m, NULL, NULL);
      cr_assert_not_null(text[explain]);
      wave_pipeline_result_free(&r);
      wave_module_destroy(m);
    }
    cr_assert_str_eq(text[0], text[1], "seed %llu", (unsigned long long)seed);
    free(text[0]);
    free(text[1]);
  }
}

/* r5 feeds only the dead add at the top of the next iteration, and r7 only its own guarded
 * update (a guarded write reads what the lanes it skips keep): with plain liveness the write of
 * r5 at the end of the body stays live through the back edge until liveness is computed again,
 * and r7's chain never goes. Strong liveness counts neither read, so one sweep removes the
 * add, both writes of r5 and both of r7. */
static const char back_edge[] = ".kernel k\n.registers 8\n"
                                "    mov_sr   r1, sr_lane_id\n"
                                "    mov_imm  r2, 4\n"
                                "    mov_imm  r5, 0\n"
                                "    mov_imm  r7, 0\n"
                                "    icmp_eq  p1, r1, r1\n"
                                "    loop\n"
                                "        iadd     r6, r5, r5\n"
                                "        iadd     r5, r1, r2\n"
                                "        @p1 iadd r7, r7, r2\n"
                                "        break    p1\n"
                                "    endloop\n"
                                "    device_store_u32 r1, r2\n"
                                "    halt\n.end\n";

/* The select folds into a move, which no longer reads p2: only a second sweep, on strong
 * liveness computed afresh, removes the compare. */
static const char folded[] = ".kernel k\n.registers 8\n"
                             "    mov_sr   r1, sr_lane_id\n"
                             "    mov_imm  r4, 7\n"
                             "    icmp_eq  p2, r1, r4\n"
                             "    select   r3, p2, r4, r4\n"
                             "    device_store_u32 r1, r3\n"
                             "    halt\n.end\n";

static uint64_t removed_with_rounds(const char *text, int64_t rounds) {
  wave_module *m = tu_parse_ok(text, "loop.wave", false);
  wave_pass_option_value v = {"dce-max-rounds", rounds};
  wave_pipeline_options o = {.verify_each = true};
  o.option_values = &v;
  o.num_option_values = 1;
  wave_pipeline_result r = {0};
  tu_run_pipeline(registry, m, "dce", &o, &r);
  uint64_t removed = tu_stat(&r, "dead-removed");
  wave_pipeline_result_free(&r);
  wave_module_destroy(m);
  return removed;
}

Test(dce, one_sweep_follows_dead_code_around_a_loop) {
  cr_assert_eq(removed_with_rounds(back_edge, 1), 5);
}

Test(dce, another_sweep_follows_a_folded_select) {
  cr_assert_eq(removed_with_rounds(folded, 1), 0);
  cr_assert_eq(removed_with_rounds(folded, 2), 1);
  cr_assert_eq(removed_with_rounds(folded, 3), 1);
}
