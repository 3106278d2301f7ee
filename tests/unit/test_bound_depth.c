/* SPDX-License-Identifier: Apache-2.0 */
/* bound-depth where the lit test cannot reach: generated kernels under small limits (the
 * differential harness runs the pass only under the targets' 32, which generated kernels stay
 * within), each output compared with the original in the interpreter at W = 8, 32, 64 and its
 * depth checked against the limit, a kernel the pass cannot reduce compared as far as it got
 * (every rewrite made before the error must be right too); a chain 100 000 deep reduced to the
 * limit in one run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "test_util.h"
#include "waveopt/depth.h"
#include "waveopt/edit.h"
#include "waveopt/interp.h"
#include "waveopt/pass.h"
#include "waveopt/uniformity.h"

static uint32_t depth_of(const wave_kernel *k, wave_depth_kind kind) {
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert_not_null(u);
  wave_depth *d = wave_depth_compute(k, u);
  cr_assert_not_null(d);
  uint32_t depth = wave_depth_max(d, kind);
  wave_depth_destroy(d);
  wave_uniformity_destroy(u);
  return depth;
}

typedef struct bounded {
  const wave_pipeline *pipeline;
  const wave_target *target;
  uint32_t limit;
  unsigned reduced, refused, within, other_errors, over_limit;
  unsigned long long rewrites;   /* ifs removed, in kernels reduced or refused alike */
} bounded;

/* The pipeline under the limit. The depth error counts as a refusal and the kernel, as far as
 * the pass got, is compared; so does legalize's, where the flags of a continue or halt inside
 * a region would nest past the limit (it may grow .registers for them: generated kernels keep
 * every register live); any other error fails the transformation. */
static bool run_bounded(wave_module *module, void *ctx, wave_diags *diags) {
  bounded *b = ctx;
  wave_pipeline_options options = {0};
  options.verify_each = true;
  options.target = b->target;
  options.max_divergence_depth = b->limit;
  options.max_registers = WAVE_MAX_GPR + 1;
  wave_pipeline_result result = {0};
  size_t first = diags->count;
  bool ok = wave_pipeline_run(b->pipeline, module, &options, &result, diags);
  bool changed = result.changed;
  for (size_t i = 0; i < result.num_stats; i++)
    if (strcmp(result.stats[i].pass, "bound-depth") == 0 &&
        strncmp(result.stats[i].name, "depth-", 6))
      b->rewrites += result.stats[i].value;
  wave_pipeline_result_free(&result);
  wave_depth_kind kind = b->target->uniform_uses_entry ? WAVE_DEPTH_STATIC : WAVE_DEPTH_DIVERGENT;
  if (ok) {
    b->reduced += changed;
    b->within += !changed;
    if (depth_of(wave_module_first_kernel(module), kind) > b->limit)
      b->over_limit++;
    return true;
  }
  for (size_t i = first; i < diags->count; i++)
    if (diags->items[i].severity == WAVE_SEV_ERROR &&
        (strstr(diags->items[i].message, "(-max-divergence-depth): deepest path: ") ||
         strstr(diags->items[i].message, "(-max-divergence-depth): its rewrite nests"))) {
      b->refused++;
      /* The harness takes any error as a failed transformation: this one is expected. */
      diags->num_errors--;
      diags->items[i].severity = WAVE_SEV_NOTE;
      return true;
    }
  b->other_errors++;
  return false;
}

static void check_generated(const char *target, uint32_t limit, unsigned seeds,
                            unsigned min_reduced) {
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *pipeline = wave_pipeline_parse(registry, "bound-depth,legalize", &diags);
  cr_assert_not_null(pipeline);
  bounded b = {pipeline, wave_target_lookup(target), limit, 0, 0, 0, 0, 0, 0};
  cr_assert_not_null(b.target);
  unsigned failed = 0;
  for (unsigned seed = 0; seed < seeds; seed++) {
    wave_gen_options gopt;
    wave_gen_options_init(&gopt);
    gopt.seed = seed;
    gopt.size = 400;
    wave_diff_report report;
    if (tu_difftest_generated(&gopt, run_bounded, &b, &report) != WAVE_DIFF_PASS) {
      cr_log_error("%s, limit %u, seed %u: %s", target, limit, seed, report.message);
      failed++;
    }
  }
  cr_log_info("bound-depth on %s, limit %u: %u seeds, reduced %u, refused %u, within %u; "
              "%llu ifs removed",
              target, limit, seeds, b.reduced, b.refused, b.within, b.rewrites);
  cr_assert_eq(failed, 0);
  cr_assert_eq(b.other_errors, 0);
  cr_assert_eq(b.over_limit, 0, "a kernel the pass accepted is still over the limit");
  cr_assert_geq(b.reduced, min_reduced);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
}

/* At limit 3 legalize's flags for continue and halt often nest past the limit after bound-depth
 * (a refusal): more seeds for as many reduced kernels. */
Test(bound_depth, generated_portable_limit_3, .timeout = 300) {
  check_generated("portable", 3, 900, 10);
}

Test(bound_depth, generated_portable_limit_4, .timeout = 300) {
  check_generated("portable", 4, 300, 10);
}

Test(bound_depth, generated_wave_emu_limit_3, .timeout = 300) {
  check_generated("wave-emu", 3, 900, 10);
}

Test(bound_depth, generated_spec_limit_3, .timeout = 300) {
  check_generated("spec", 3, 300, 10);
}

/* wave-ptx counts only divergent frames. */
Test(bound_depth, generated_wave_ptx_limit_2, .timeout = 300) {
  check_generated("wave-ptx", 2, 300, 10);
}

/* ---- a chain 100 000 deep ------------------------------------------------------------------ */

#define DEEP 100000
#define WORDS 16

/* if p1 / if p2 / if p1 ... DEEP times around a store of the lane number: lanes 4..9 store. */
Test(bound_depth, chain_100000_deep_to_the_default_limit, .timeout = 120) {
  const char *head = ".kernel deep\n.registers 8\n.workgroup_size 16, 1, 1\n"
                     "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 2\n    shl      r3, r1, r2\n"
                     "    mov_imm  r4, 10\n    mov_imm  r5, 3\n"
                     "    icmp_lt  p1, r1, r4\n    icmp_gt  p2, r1, r5\n";
  char *text = malloc(strlen(head) + (size_t)DEEP * 24 + 128), *at = text;
  cr_assert_not_null(text);
  at += sprintf(at, "%s", head);
  for (unsigned i = 0; i < DEEP; i++)
    at += sprintf(at, "    if p%u\n", i % 2 + 1);
  at += sprintf(at, "    device_store_u32 r3, r1\n");
  for (unsigned i = 0; i < DEEP; i++)
    at += sprintf(at, "    endif\n");
  sprintf(at, "    halt\n.end\n");
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  uint32_t before[WORDS], after[WORDS];
  tu_run_words(k, 16, before, WORDS);

  wave_pass_registry *registry = wave_pass_registry_create();
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *pipeline = wave_pipeline_parse(registry, "bound-depth", &diags);
  cr_assert_not_null(pipeline);
  wave_pipeline_options options = {0};
  options.target = wave_target_lookup("portable");
  wave_pipeline_result result = {0};
  cr_assert(wave_pipeline_run(pipeline, m, &options, &result, &diags));
  cr_assert(result.changed);
  cr_assert_eq(depth_of(k, WAVE_DEPTH_STATIC), 32);
  tu_run_words(k, 16, after, WORDS);
  cr_assert_arr_eq(after, before, sizeof(before));
  for (unsigned lane = 0; lane < WORDS; lane++)
    cr_assert_eq(after[lane], lane > 3 && lane < 10 ? lane : 0, "lane %u", lane);
  wave_pipeline_result_free(&result);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
  wave_module_destroy(m);
  free(text);
}
