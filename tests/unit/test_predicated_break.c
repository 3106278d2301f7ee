/* SPDX-License-Identifier: Apache-2.0 */
/* predicated-break where the lit test cannot reach: the rewrite functions of
 * xform/predicated_break.h called directly, as bound-depth will call them; generated kernels
 * through the pass on the targets the differential harness does not use (spec and wave-ptx,
 * where the trailing form and moved continues fire; portable with room to grow .registers;
 * the documentation dialect), compared with the interpreter; and nests 100 000 deep. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "xform/predicated_break.h"
#include "xform/xform.h"

/* ---- the rewrites called directly ---------------------------------------------------------- */

typedef struct direct {
  wave_module *module;
  wave_kernel *kernel;
  wave_liveness *liveness;
  wave_exit_if_env env;
} direct;

static direct direct_open(const char *text, const char *target) {
  direct d;
  d.module = tu_parse_ok(text, "direct.wave", false);
  d.kernel = wave_module_first_kernel(d.module);
  d.liveness = wave_liveness_compute(d.kernel);
  cr_assert_not_null(d.liveness);
  wave_exit_if_env_init(&d.env, wave_target_lookup(target), d.liveness,
                        wave_xform_kernel_taken(d.kernel), wave_kernel_registers(d.kernel));
  return d;
}

static void direct_close(direct *d) {
  wave_liveness_destroy(d->liveness);
  wave_module_destroy(d->module);
}

/* The index-th if of the kernel in text order. */
static wave_node *nth_if(wave_kernel *k, unsigned index) {
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(k)));
  while (wave_walk_next(&w)) {
    if (w.event == WAVE_WALK_IF && index-- == 0)
      return w.node;
  }
  cr_assert_fail("no if number %u", index);
  return NULL;
}

static char *print_kernel(const wave_module *m) {
  wave_print_options po = {0};
  po.strip_comments = true;
  char *text = wave_print_to_string(m, &po, NULL);
  cr_assert_not_null(text);
  return text;
}

static const char nested_text[] =
    ".kernel nested\n.registers 8\n"
    "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 3\n    icmp_lt  p1, r1, r2\n"
    "    icmp_eq  p2, r1, r1\n"
    "    loop\n"
    "        if p1\n"
    "            if p1\n"
    "                break p1\n"
    "            endif\n"
    "        endif\n"
    "        break p2\n"
    "    endloop\n"
    "    halt\n.end\n";

/* The outer if holds no break of its own until the inner one is gone, which leaves `break p1`
 * alone in it; the break reads p1 itself (p1 and p1), so nothing is emitted. */
Test(predicated_break, hoist_called_directly) {
  direct d = direct_open(nested_text, "portable");
  wave_node *outer = nth_if(d.kernel, 0), *inner = nth_if(d.kernel, 1);
  wave_exit_if_result r;
  cr_assert_eq(wave_exit_if_hoist(&d.env, outer, &r), WAVE_EXIT_IF_NOT_SHAPE);
  cr_assert_eq(wave_exit_if_hoist(&d.env, inner, &r), WAVE_EXIT_IF_DONE);
  cr_assert_str_eq(r.what, "p1");
  cr_assert_null(inner->list);
  cr_assert_eq(wave_exit_if_hoist(&d.env, outer, &r), WAVE_EXIT_IF_DONE);
  tu_assert_valid(d.kernel);
  tu_assert_shape(wave_region_body(wave_kernel_first_region(d.kernel)),
                  "[mov_sr 3 icmp_lt icmp_eq] loop{[break break]} [halt]");
  direct_close(&d);
}

/* Not the shape: an if without a break or continue, an if not ending a loop body, an if with
 * code on both sides; wave-emu and portable refuse to introduce a continue. */
Test(predicated_break, shapes_and_targets) {
  static const char text[] =
      ".kernel k\n.registers 8\n"
      "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 3\n"
      "    loop\n"
      "        icmp_lt  p1, r1, r2\n"
      "        break    p1\n"
      "        iadd     r1, r1, r2\n"
      "        icmp_lt  p2, r1, r2\n"
      "        if p2\n"
      "            iadd r2, r2, r2\n"
      "        endif\n"
      "    endloop\n"
      "    halt\n.end\n";
  static const struct {
    const char *target;
    wave_exit_if_status want;
  } cases[] = {{"portable", WAVE_EXIT_IF_REFUSED}, {"wave-emu", WAVE_EXIT_IF_REFUSED},
               {"wave-ptx", WAVE_EXIT_IF_DONE}, {"spec", WAVE_EXIT_IF_DONE}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    direct d = direct_open(text, cases[i].target);
    wave_node *node = nth_if(d.kernel, 0);
    wave_exit_if_result r;
    cr_assert_eq(wave_exit_if_hoist(&d.env, node, &r), WAVE_EXIT_IF_NOT_SHAPE);
    cr_assert_eq(wave_trailing_if_continue(&d.env, node, &r), cases[i].want, "%s: %s",
                 cases[i].target, r.what);
    if (cases[i].want == WAVE_EXIT_IF_DONE) {
      /* icmp_lt p2 inverted in place: the lanes with p2 now skip the rest. */
      cr_assert_str_eq(r.what, "p2");
      cr_assert_not_null(r.inverted);
      cr_assert_eq(r.inverted->op, WAVE_OP_ICMP_GE);
      tu_assert_valid(d.kernel);
      tu_assert_shape(wave_region_body(wave_kernel_first_region(d.kernel)),
                      "[mov_sr 3] loop{[icmp_lt break iadd icmp_ge continue iadd]} [halt]");
    } else {
      cr_assert_str_eq(r.what, cases[i].target[0] == 'p'
                                   ? "it would need a continue, which portable does not run"
                                   : "it would need a continue, which wave-emu does not run");
    }
    direct_close(&d);
  }
}

/* A refusal emits nothing: with every GPR live and the select idiom needed, the kernel text
 * stays as it was. */
Test(predicated_break, refusal_changes_nothing) {
  static const char text[] =
      ".kernel k\n.registers 4\n"
      "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 3\n    mov_imm  r3, 1\n"
      "    icmp_lt  p3, r1, r2\n"
      "    loop\n"
      "        icmp_lt  p0, r1, r2\n"
      "        if p0\n"
      "        else\n"
      "            break p3\n"
      "        endif\n"
      "        iadd r1, r1, r3\n"
      "        @p3 iadd r1, r1, r3\n"
      "    endloop\n"
      "    device_store_u32 r0, r1\n"
      "    select r1, p0, r1, r2\n"
      "    device_store_u32 r0, r1\n"
      "    halt\n.end\n";
  direct d = direct_open(text, "portable");
  char *before = print_kernel(d.module);
  wave_exit_if_result r;
  cr_assert_eq(wave_exit_if_hoist(&d.env, nth_if(d.kernel, 0), &r), WAVE_EXIT_IF_REFUSED);
  cr_assert_str_eq(r.what, "building its condition needs 3 scratch registers and 0 are free "
                           "within 4 (-max-registers)");
  char *after = print_kernel(d.module);
  cr_assert_str_eq(before, after);
  cr_assert_eq(wave_kernel_registers(d.kernel), 4);
  free(before);
  free(after);
  direct_close(&d);
}

/* ---- generated kernels --------------------------------------------------------------------- */

typedef struct on_target {
  const wave_pipeline *pipeline;
  const wave_target *target;
  uint32_t max_registers;
  bool changed;
  uint64_t fired_trailing, fired_hoist;
} on_target;

static bool run_on_target(wave_module *module, void *ctx, wave_diags *diags) {
  on_target *t = ctx;
  wave_pipeline_options options = {0};
  options.verify_each = true;
  options.target = t->target;
  options.max_registers = t->max_registers;
  wave_pipeline_result result = {0};
  bool ok = wave_pipeline_run(t->pipeline, module, &options, &result, diags);
  t->changed = result.changed;
  for (size_t i = 0; i < result.num_stats; i++) {
    if (strcmp(result.stats[i].name, "trailing-ifs") == 0)
      t->fired_trailing++;
    else if (strstr(result.stats[i].name, "-hoisted"))
      t->fired_hoist++;
  }
  wave_pipeline_result_free(&result);
  return ok;
}

typedef struct gen_case {
  const char *target;
  uint32_t max_registers;
  bool docs_dialect;
  unsigned seeds;
  unsigned min_trailing, min_hoist;   /* kernels on which each form must fire at least */
} gen_case;

static void check_generated(const gen_case *c) {
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *pipeline = wave_pipeline_parse(registry, "predicated-break,legalize", &diags);
  cr_assert_not_null(pipeline);
  on_target t = {pipeline, wave_target_lookup(c->target), c->max_registers, false, 0, 0};
  cr_assert_not_null(t.target);
  unsigned failed = 0;
  for (unsigned seed = 0; seed < c->seeds; seed++) {
    wave_gen_options gopt;
    wave_gen_options_init(&gopt);
    gopt.seed = seed;
    gopt.size = 400;
    gopt.docs_dialect = c->docs_dialect;
    wave_diff_report report;
    if (tu_difftest_generated(&gopt, run_on_target, &t, &report) != WAVE_DIFF_PASS) {
      cr_log_error("%s, seed %u: %s", c->target, seed, report.message);
      failed++;
    }
  }
  cr_log_info("predicated-break on %s (max-registers %u%s): %u seeds, hoisted on %llu, "
              "trailing on %llu",
              c->target, c->max_registers, c->docs_dialect ? ", docs dialect" : "", c->seeds,
              (unsigned long long)t.fired_hoist, (unsigned long long)t.fired_trailing);
  cr_assert_eq(failed, 0);
  cr_assert_geq(t.fired_hoist, c->min_hoist);
  cr_assert_geq(t.fired_trailing, c->min_trailing);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
}

Test(predicated_break, generated_on_spec, .timeout = 300) {
  check_generated(&(gen_case){"spec", 0, false, 300, 20, 20});
}

Test(predicated_break, generated_on_wave_ptx, .timeout = 300) {
  check_generated(&(gen_case){"wave-ptx", 0, false, 300, 20, 20});
}

Test(predicated_break, generated_on_portable_with_registers, .timeout = 300) {
  check_generated(&(gen_case){"portable", 255, false, 300, 0, 20});
}

Test(predicated_break, generated_docs_dialect_on_spec, .timeout = 300) {
  check_generated(&(gen_case){"spec", 0, true, 300, 20, 20});
}

/* ---- 100 000 deep ------------------------------------------------------------------------- */

enum { DEEP = 100000 };

static char *deep_text(const char *head, const char *open, const char *bottom) {
  size_t cap = (size_t)DEEP * (strlen(open) + 8) + strlen(head) + strlen(bottom) + 256;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  size_t len = (size_t)sprintf(text, "%s", head);
  for (unsigned i = 0; i < DEEP; i++)
    len += (size_t)sprintf(text + len, "%s", open);
  len += (size_t)sprintf(text + len, "%s", bottom);
  for (unsigned i = 0; i < DEEP; i++)
    len += (size_t)sprintf(text + len, "endif\n");
  sprintf(text + len, "endloop\nhalt\n.end\n");
  return text;
}

static wave_module *run_deep(const char *text, const char *target, wave_pipeline_result *result) {
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_pipeline_options options = {0};
  options.target = wave_target_lookup(target);
  tu_run_pipeline(registry, m, "predicated-break", &options, result);
  wave_pass_registry_destroy(registry);
  return m;
}

/* Each if holds only the next, the innermost only `break p2`: innermost first, every if goes. */
Test(predicated_break, hoist_nest_100000_deep, .timeout = 120) {
  char *text = deep_text(".kernel deep\n.registers 4\nmov_sr r1, sr_lane_id\nmov_imm r2, 3\n"
                         "icmp_lt p2, r1, r2\nloop\n",
                         "if p2\n", "break p2\n");
  wave_pipeline_result result = {0};
  wave_module *m = run_deep(text, "portable", &result);
  cr_assert_eq(tu_stat(&result, "breaks-hoisted"), DEEP);
  tu_assert_valid(wave_module_first_kernel(m));
  tu_assert_shape(wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))),
                  "[mov_sr 3 icmp_lt] loop{[break]} [halt]");
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}

/* On spec the outermost if ends the loop body; once it is a continue the next one does: a
 * chain of 100 000 trailing rewrites, each with a scratch predicate (the compare is out of
 * reach behind the break). */
Test(predicated_break, trailing_chain_100000_deep, .timeout = 120) {
  char *text = deep_text(".kernel deep\n.registers 4\nmov_sr r1, sr_lane_id\nmov_imm r2, 3\n"
                         "icmp_lt p2, r1, r2\nloop\nicmp_eq p1, r1, r1\nbreak p1\n",
                         "if p2\n", "iadd r3, r3, r2\n");
  wave_pipeline_result result = {0};
  wave_module *m = run_deep(text, "spec", &result);
  cr_assert_eq(tu_stat(&result, "trailing-ifs"), DEEP);
  tu_assert_valid(wave_module_first_kernel(m));
  unsigned continues = 0, ifs = 0;
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))));
  while (wave_walk_next(&w)) {
    ifs += w.event == WAVE_WALK_IF;
    if (w.event == WAVE_WALK_BLOCK)
      wave_foreach_instr(in, w.node) continues += in->op == WAVE_OP_CONTINUE;
  }
  cr_assert_eq(ifs, 0);
  cr_assert_eq(continues, DEEP);
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}
