/* SPDX-License-Identifier: Apache-2.0 */
/* The uniformity API: queries on a small kernel, assume-divergent, and deep nests. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/pass.h"
#include "waveopt/uniformity.h"

static const char *const small =
    ".kernel k\n"
    "    mov_sr r1, sr_lane_id\n"
    "    icmp_lt p1, r1, r2\n"
    "    iadd r3, r2, r2\n"
    "    if p1\n"
    "        barrier\n"
    "    endif\n"
    "    halt\n"
    ".end\n";

Test(uniformity, queries) {
  wave_module *m = tu_parse_ok(small, "small.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert(u);
  wave_node *block = wave_node_list_first(wave_region_body(wave_kernel_first_region(k)));
  wave_instr *mov = wave_block_first(block), *cmp = wave_instr_next(mov),
             *add = wave_instr_next(cmp);
  wave_node *ifn = wave_node_next(block);
  wave_instr *barrier = wave_block_first(wave_node_list_first(wave_if_then(ifn)));
  cr_assert(wave_uniformity_result_divergent(u, mov));
  cr_assert(wave_uniformity_result_divergent(u, cmp));
  cr_assert(!wave_uniformity_result_divergent(u, add));
  cr_assert(wave_uniformity_reg_divergent(u, cmp, WAVE_REG_GPR(1)));
  cr_assert(!wave_uniformity_reg_divergent(u, cmp, WAVE_REG_GPR(2)));
  cr_assert(wave_uniformity_node_divergent(u, ifn));
  cr_assert(wave_uniformity_node_converged(u, ifn));
  cr_assert(wave_uniformity_instr_converged(u, add));
  cr_assert(!wave_uniformity_instr_converged(u, barrier));
  char why[256];
  wave_uniformity_explain_node(u, ifn, why, sizeof(why));
  cr_assert(strstr(why, "sr_lane_id"), "%s", why);
  cr_assert_eq(wave_uniformity_explain_instr(u, add, why, sizeof(why)), 0);

  wave_uniformity_config config = {.assume_divergent = wave_regset_empty()};
  wave_regset_set(&config.assume_divergent, WAVE_REG_GPR(2));
  wave_uniformity *v = wave_uniformity_compute(k, &config);
  cr_assert(v);
  cr_assert(wave_uniformity_result_divergent(v, add));
  cr_assert(!wave_uniformity_equal(u, v));
  wave_uniformity_destroy(v);
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* A loop's convergence is at its entry. The inner loop is reached with lanes missing in later
 * iterations of the outer one, though its own header looks alike in every walk (it is
 * divergent: lanes are missing there anyway); the last loop is entered by every lane. */
Test(uniformity, loop_converged_at_its_entry) {
  wave_module *m = tu_parse_ok(".kernel k\n"
                               "    mov_sr r1, sr_lane_id\n"
                               "    icmp_lt p1, r1, r2\n"
                               "    loop\n"
                               "        loop\n"
                               "            break p1\n"
                               "        endloop\n"
                               "        break p1\n"
                               "    endloop\n"
                               "    loop\n"
                               "        break p1\n"
                               "    endloop\n"
                               "    halt\n"
                               ".end\n",
                               "loops.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  const wave_node *outer =
      wave_node_next(wave_node_list_first(wave_region_body(wave_kernel_first_region(k))));
  const wave_node *inner = wave_node_list_first(wave_loop_body(outer));
  const wave_node *last = wave_node_next(outer);
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert(u);
  cr_assert(wave_uniformity_node_divergent(u, outer));
  cr_assert(wave_uniformity_node_divergent(u, inner));
  cr_assert(wave_uniformity_node_divergent(u, last));
  cr_assert(wave_uniformity_node_converged(u, outer));
  cr_assert(!wave_uniformity_node_converged(u, inner));
  cr_assert(wave_uniformity_node_converged(u, last));
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* The registered analysis reads assume_divergent from its analysis manager, and a manager
 * answers none until told. */
Test(uniformity, registered_analysis_takes_assume_divergent_from_the_manager) {
  wave_module *m = tu_parse_ok(small, "small.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_instr *add = wave_instr_next(wave_instr_next(
      wave_block_first(wave_node_list_first(wave_region_body(wave_kernel_first_region(k))))));
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert(registry);
  wave_analysis_id id = wave_pass_registry_find_analysis(registry, "uniformity");
  cr_assert_geq(id, 0);
  wave_diags d;
  wave_diags_init(&d);
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &d);
  cr_assert(am);
  cr_assert(wave_regset_is_empty(wave_analysis_manager_assume_divergent(am)));
  cr_assert(!wave_uniformity_result_divergent(wave_analysis_get(am, k, id), add));
  wave_regset r2 = wave_regset_empty();
  wave_regset_set(&r2, WAVE_REG_GPR(2));
  wave_analysis_manager_set_assume_divergent(am, r2);
  wave_analysis_invalidate(am, k, WAVE_PRESERVE_NONE);
  cr_assert(wave_uniformity_result_divergent(wave_analysis_get(am, k, id), add));
  wave_analysis_manager_destroy(am);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&d);
  wave_module_destroy(m);
}

/* The analyses of a manager share the kernel's flat layout; a change the pass preserved every
 * result across still drops it, so an analysis computed afterwards sees the new instruction. */
Test(uniformity, a_result_computed_after_a_change_sees_the_change) {
  wave_module *m = tu_parse_ok(small, "small.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert(registry);
  wave_analysis_id liveness = wave_pass_registry_find_analysis(registry, "liveness");
  wave_analysis_id uniformity = wave_pass_registry_find_analysis(registry, "uniformity");
  wave_diags d;
  wave_diags_init(&d);
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &d);
  cr_assert(am);
  cr_assert(wave_analysis_get(am, k, liveness));
  wave_operand ops[2] = {wave_gpr(5), wave_imm(7)};
  wave_instr *added = tu_add(m, wave_node_list_first(wave_region_body(wave_kernel_first_region(k))),
                             WAVE_OP_MOV_IMM, 2, ops);
  wave_analysis_invalidate(am, k, WAVE_PRESERVE_ALL);
  const wave_uniformity *u = wave_analysis_get(am, k, uniformity);
  cr_assert(u);
  cr_assert(wave_uniformity_instr_converged(u, added), "the new instruction is analysed");
  wave_analysis_manager_destroy(am);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&d);
  wave_module_destroy(m);
}

/* Parses a kernel that computes divergent p1 and uniform p2, opens `depth` levels (`open`
 * picks each level's text, `close` its end) around `bottom`, which writes r3, reads r3 after the
 * nest and ends with the subroutines `rest`. */
enum { DEPTH = 100000 };
static const char *const write_r3_and_break = "iadd r3, r3, r2\nbreak p1\n";

static wave_module *deep_kernel(int depth, const char *(*open)(int level),
                                const char *(*close)(int level), const char *bottom,
                                const char *rest) {
  size_t cap = (size_t)depth * 48 + strlen(bottom) + strlen(rest) + 256, len = 0;
  char *text = malloc(cap);
  cr_assert(text);
  len += (size_t)sprintf(text + len, ".kernel deep\n    mov_sr r1, sr_lane_id\n"
                                     "    icmp_lt p1, r1, r2\n    icmp_lt p2, r2, r2\n");
  for (int i = 0; i < depth; i++)
    len += (size_t)sprintf(text + len, "%s", open(i));
  len += (size_t)sprintf(text + len, "%s", bottom);
  for (int i = depth - 1; i >= 0; i--)
    len += (size_t)sprintf(text + len, "%s", close(i));
  len += (size_t)sprintf(text + len, "iadd r4, r3, r3\nhalt\n%s.end\n", rest);
  cr_assert_lt(len, cap);
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_string(text, len, "deep.wave", &d);
  cr_assert(m);
  wave_diags_free(&d);
  free(text);
  return m;
}

/* The instruction after the nest: the first region's last block is `iadd r4, r3, r3; halt`. */
static const wave_instr *after_nest(const wave_kernel *k) {
  const wave_node *n = wave_node_list_first(wave_region_body(wave_kernel_first_region(k)));
  while (wave_node_next(n))
    n = wave_node_next(n);
  return wave_block_first(n);
}

static const char *if_or_loop(int level) { return level % 1000 ? "if p1\n" : "loop\nbreak p1\n"; }
static const char *endif_or_endloop(int level) { return level % 1000 ? "endif\n" : "endloop\n"; }
static const char *divergent_loop(int level) { (void)level; return "loop\nbreak p1\n"; }
static const char *uniform_loop(int level) { (void)level; return "loop\nbreak p2\n"; }
static const char *endloop(int level) { (void)level; return "endloop\n"; }
static const char *loop_or_uniform_if(int level) { return level % 2 ? "if p2\n" : "loop\n"; }
static const char *endif_or_break_endloop(int level) {
  return level % 2 ? "endif\n" : "break p1\nendloop\n";
}

/* Nesting this deep on the C stack would overflow it: the walk keeps its own frames. */
Test(uniformity, deep_nest_of_ifs) {
  wave_module *m = deep_kernel(DEPTH, if_or_loop, endif_or_endloop, write_r3_and_break, "");
  wave_uniformity *u = wave_uniformity_compute(wave_module_first_kernel(m), NULL);
  cr_assert(u);
  cr_assert(wave_uniformity_node_divergent(
      u, wave_node_next(wave_node_list_first(
             wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m)))))));
  cr_assert(
      wave_uniformity_reg_divergent(u, after_nest(wave_module_first_kernel(m)), WAVE_REG_GPR(3)));
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* Each loop is found divergent in its first walk and walked again with lanes missing; the
 * loops inside it, visited again from a header alike to their last walk, are not walked again:
 * time linear in the depth (quadratic, this did not finish). */
Test(uniformity, deep_nest_of_divergent_loops, .timeout = 20) {
  wave_module *m = deep_kernel(DEPTH, divergent_loop, endloop, write_r3_and_break, "");
  wave_uniformity *u = wave_uniformity_compute(wave_module_first_kernel(m), NULL);
  cr_assert(u);
  const wave_node *outer = wave_node_next(wave_node_list_first(
      wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m)))));
  cr_assert(wave_uniformity_node_divergent(u, outer));
  cr_assert(!wave_uniformity_instr_converged(
      u, wave_block_first(wave_node_list_first(wave_loop_body(outer)))));
  cr_assert(
      wave_uniformity_reg_divergent(u, after_nest(wave_module_first_kernel(m)), WAVE_REG_GPR(3)));
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* Uniform loops around one divergent innermost loop: r3 turns divergent at the innermost exit,
 * which every enclosing loop's header then learns in turn. */
Test(uniformity, deep_nest_of_uniform_loops, .timeout = 20) {
  wave_module *m = deep_kernel(DEPTH, uniform_loop, endloop, write_r3_and_break, "");
  wave_uniformity *u = wave_uniformity_compute(wave_module_first_kernel(m), NULL);
  cr_assert(u);
  const wave_node *outer = wave_node_next(wave_node_list_first(
      wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m)))));
  cr_assert(!wave_uniformity_node_divergent(u, outer));
  cr_assert(wave_uniformity_instr_converged(
      u, wave_block_first(wave_node_list_first(wave_loop_body(outer)))));
  cr_assert(
      wave_uniformity_reg_divergent(u, after_nest(wave_module_first_kernel(m)), WAVE_REG_GPR(3)));
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* Loops and ifs on p2, alternating, around a call: the call makes every register divergent,
 * p2 included, which reaches each loop's header from inside, so each loop is walked again and
 * its ifs turn divergent. A loop visited again from a header alike to its last walk's is not
 * walked again: time linear in the depth (without that memo, quadratic: 20 000 levels took
 * minutes). */
Test(uniformity, deep_nest_of_loops_and_ifs_around_a_call, .timeout = 20) {
  wave_module *m = deep_kernel(20000, loop_or_uniform_if, endif_or_break_endloop,
                               "iadd r3, r3, r2\ncall f\n", "f:\n    mov_imm r5, 1\n    return\n");
  const wave_kernel *k = wave_module_first_kernel(m);
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert(u);
  const wave_node *outer =
      wave_node_next(wave_node_list_first(wave_region_body(wave_kernel_first_region(k))));
  cr_assert_eq(wave_node_kind_of(outer), WAVE_NODE_LOOP);
  cr_assert(wave_uniformity_node_divergent(u, outer));
  const wave_node *first_if = wave_node_list_first(wave_loop_body(outer));
  cr_assert_eq(wave_node_kind_of(first_if), WAVE_NODE_IF);
  cr_assert(wave_uniformity_node_divergent(u, first_if));
  cr_assert(wave_uniformity_reg_divergent(u, after_nest(k), WAVE_REG_GPR(3)));
  cr_assert(wave_uniformity_reg_divergent(u, after_nest(k), WAVE_REG_GPR(5)));
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}
