/* SPDX-License-Identifier: Apache-2.0 */
/* hoist-common where the lit test cannot reach: wave_hoist_common called by a pass of its own
 * on the one if it chooses, and a 100 000-deep nest whose innermost instruction leaves every
 * if, one level a step, in one run. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"
#include "xform/hoist_common.h"

static wave_pass_registry *registry;
static wave_diags diags;

/* A pass that rewrites only the last if at the top level of the entry region. */
static wave_pass_result run_last_if(wave_kernel *kernel, wave_analysis_manager *am,
                                    wave_pass_context *ctx) {
  (void)am;
  wave_node *last = wave_node_list_last(wave_region_body(wave_kernel_first_region(kernel)));
  while (last && wave_node_kind_of(last) != WAVE_NODE_IF)
    last = wave_node_prev(last);
  unsigned moved = 0;
  if (last && !wave_hoist_common(last, ctx, &moved))
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory");
  wave_normalize_kernel(kernel);
  return wave_pass_done(moved > 0, WAVE_PRESERVE_NONE);
}

static const wave_pass_info last_if = {
    .name = "hoist-last-if",
    .help = "wave_hoist_common on the last top-level if",
    .run = run_last_if,
};

static void setup(void) {
  wave_diags_init(&diags);
  registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  cr_assert(wave_pass_registry_add_pass(registry, &last_if, &diags));
}

static void teardown(void) {
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
}

TestSuite(hoist_common, .init = setup, .fini = teardown);

/* Runs `text` over m with verify-each; the instructions moved. */
static uint64_t run(wave_module *m, const char *text) {
  wave_pipeline_options o = {.verify_each = true};
  wave_pipeline_result r = {0};
  tu_run_pipeline(registry, m, text, &o, &r);
  uint64_t moved = tu_stat(&r, "instrs-moved");
  wave_pipeline_result_free(&r);
  return moved;
}

/* Two ifs alike: `mov_imm r3, 1` at the start and `mov_imm r4, 2` at the end of each side. */
static const char two_ifs[] = ".kernel k\n.registers 8\n"
                              "    mov_sr   r1, sr_lane_id\n"
                              "    mov_imm  r2, 4\n"
                              "    icmp_lt  p1, r1, r2\n"
                              "    if p1\n        mov_imm r3, 1\n        mov_imm r5, 5\n"
                              "        mov_imm r4, 2\n    else\n        mov_imm r3, 1\n"
                              "        mov_imm r5, 6\n        mov_imm r4, 2\n    endif\n"
                              "    if p1\n        mov_imm r3, 1\n        mov_imm r5, 5\n"
                              "        mov_imm r4, 2\n    else\n        mov_imm r3, 1\n"
                              "        mov_imm r5, 6\n        mov_imm r4, 2\n    endif\n"
                              "    device_store_u32 r1, r5\n"
                              "    halt\n.end\n";

Test(hoist_common, rewrites_the_if_it_is_given) {
  wave_module *m = tu_parse_ok(two_ifs, "two.wave", true);
  wave_kernel *k = wave_module_first_kernel(m);
  cr_assert_eq(run(m, "hoist-last-if"), 2);
  tu_assert_shape(wave_region_body(wave_kernel_first_region(k)),
                  "[mov_sr 4 icmp_lt] if{[1 5 2]}{[1 6 2]} [1] if{[5]}{[6]} [2 device_store_u32 "
                  "halt]");
  wave_module_destroy(m);
}

Test(hoist_common, nesting_100000_deep_in_one_run) {
  enum { DEPTH = 100000 };
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(1), wave_sreg(0)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(2), wave_imm(4)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_ICMP_LT, wave_pred(1), wave_gpr(1), wave_gpr(2)));
  /* if p1 { <deeper> } else { mov_imm r3, 1 } at every level, mov_imm r3, 1 innermost. */
  wave_node **ifs = malloc(DEPTH * sizeof(*ifs));
  cr_assert_not_null(ifs);
  for (unsigned d = 0; d < DEPTH; d++)
    cr_assert_not_null(ifs[d] = wave_build_if(&b, wave_pred(1)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(3), wave_imm(1)));
  for (unsigned d = 0; d < DEPTH; d++) {
    b.cursor = wave_cursor_list_end(wave_if_else(ifs[d]));
    wave_if_set_has_else(ifs[d], true);
    cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(3), wave_imm(1)));
  }
  b.cursor = wave_cursor_list_end(wave_region_body(wave_kernel_first_region(k)));
  cr_assert_not_null(wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(1), wave_gpr(3)));
  cr_assert_not_null(wave_build_instr(&b, WAVE_OP_HALT, 0, NULL));

  free(ifs);
  cr_assert_eq(run(m, "hoist-common"), DEPTH);
  /* One mov_imm is left, before the outermost if; every if keeps only the next one. The tree is
   * read afresh: the manager may have laid the code out anew (wave_module_compact). */
  wave_node *top = wave_node_list_first(wave_region_body(wave_kernel_first_region(k)));
  cr_assert_eq(wave_node_kind_of(top), WAVE_NODE_BLOCK);
  cr_assert_eq(wave_instr_op(wave_block_last(top)), WAVE_OP_MOV_IMM);
  wave_node *level = wave_node_next(top);
  for (unsigned d = 0; d < DEPTH; d++) {
    cr_assert(level && wave_node_kind_of(level) == WAVE_NODE_IF &&
                  (d == 0 || !wave_node_next(level)),
              "level %u", d);
    cr_assert(wave_node_list_is_empty(wave_if_else(level)), "level %u", d);
    level = wave_node_list_first(wave_if_then(level));
  }
  cr_assert_null(level);
  tu_assert_valid(k);
  wave_module_destroy(m);
}
