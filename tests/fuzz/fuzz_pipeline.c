/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: arbitrary bytes through the -O2 pipeline, as waveopt -O2 runs it, with
 * verify_each (after every pass: the IR validated, a "no change" answer checked against the
 * text, every analysis the pass claims to keep recomputed). Inputs that do not parse and
 * verify are dropped, and so are those whose documentation-dialect forms cannot be lowered as
 * written (a negated break where every predicate is live: waveopt refuses them at every
 * level, -O0 too) and inputs over MAX_INPUT bytes, so that one input stays fast.
 *
 * A valid kernel must come out of the pipeline valid: the one documented refusal is
 * bound-depth's (the divergence-stack depth cannot be brought within the limit); any other
 * failure, a result that does not verify, or one whose assembler-dialect print does not parse
 * and verify again, traps so that libFuzzer reports it with its input.
 *
 * A kernel that also runs without error in the reference interpreter (one workgroup, zeroed
 * registers, random memory, a small step budget) must leave the same memory and finished lanes
 * after the pipeline (tests/harness/difftest.h does the comparison), at each wave width of the
 * differential harness that holds the whole workgroup in one wave. With several waves, a pass
 * that changes how many instructions a wave issues changes which wave's store wins a race,
 * which the spec leaves undefined (docs/language.md "Undefined behaviour"); the kernels the
 * harness generates have no races, fuzzed ones do.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "difftest.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 4096
/* Steps of the original's run; the optimized kernel gets a multiple (flattened ifs issue
 * both sides). */
#define MAX_STEPS 20000
#define STEP_FACTOR 4

/* bound-depth's refusal, worded in passes/bound_depth.c. */
static bool documented_refusal(const wave_diags *diags) {
  bool any = false;
  for (size_t i = 0; i < diags->count; i++) {
    const wave_diag *d = &diags->items[i];
    if (d->severity != WAVE_SEV_ERROR)
      continue;
    if (!strstr(d->message, "divergence-stack depth"))
      return false;
    any = true;
  }
  return any;
}

/* The launch the kernel asks for, in one workgroup; returns its threads. */
static uint64_t launch_for(const wave_kernel *kernel, wave_gen_launch *launch) {
  memset(launch, 0, sizeof(*launch));
  launch->grid[0] = launch->grid[1] = launch->grid[2] = 1;
  launch->workgroup[0] = 32;
  launch->workgroup[1] = launch->workgroup[2] = 1;
  if (wave_kernel_has_workgroup_size(kernel))
    for (unsigned dim = 0; dim < 3; dim++)
      launch->workgroup[dim] = wave_kernel_workgroup_size(kernel, dim);
  launch->device_memory_size = 1u << 16;
  return (uint64_t)launch->workgroup[0] * launch->workgroup[1] * launch->workgroup[2];
}

/* Keeps the widths of the harness at which the workgroup is one wave; false when none is left. */
static bool single_wave_widths(wave_difftest *test, uint64_t threads) {
  unsigned kept = 0;
  for (unsigned i = 0; i < test->num_widths; i++)
    if (test->widths[i] >= threads)
      test->widths[kept++] = test->widths[i];
  test->num_widths = kept;
  return kept > 0;
}

/* The most steps the original takes at any width; false when it does not run cleanly. */
static bool original_steps(wave_difftest *test, const wave_module *module, uint64_t *steps) {
  test->max_steps = MAX_STEPS;
  *steps = 0;
  return wave_difftest_original_ok(test, module, steps);
}

/* Whether the input's documentation-dialect forms can be lowered as written, on a module of
 * its own: the pipeline's lower-docs pass must then lower them too. */
static bool lowerable(const uint8_t *data, size_t size) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *module = wave_parse_string((const char *)data, size, "fuzz.wave", &diags);
  bool ok = module && wave_lower_docs_dialect(module, &diags);
  wave_module_destroy(module);
  wave_diags_free(&diags);
  return ok;
}

static void check_printed(const wave_module *module) {
  wave_print_options options = {0};
  options.dialect = WAVE_DIALECT_ASM;
  size_t len = 0;
  char *text = wave_print_to_string(module, &options, &len);
  if (!text)
    __builtin_trap();
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *again = wave_parse_string(text, len, "optimized.wave", &diags);
  if (!again || !wave_verify_module(again, &diags))
    __builtin_trap();
  wave_module_destroy(again);
  wave_diags_free(&diags);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT)
    return 0;
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_module *module = wave_parse_string((const char *)data, size, "fuzz.wave", &diags);
  if (!module || !wave_verify_module(module, &diags) || !lowerable(data, size)) {
    wave_module_destroy(module);
    wave_diags_free(&diags);
    return 0;
  }
  wave_diags_free(&diags);
  wave_difftest test;
  wave_gen_launch launch;
  const wave_kernel *first = wave_module_find_kernel(module, NULL);
  bool compare = first != NULL;
  if (compare) {
    uint64_t threads = launch_for(first, &launch);
    wave_difftest_init(&test, &launch);
    uint64_t steps = 0;
    compare = single_wave_widths(&test, threads) && original_steps(&test, module, &steps);
    test.max_steps = steps * STEP_FACTOR + MAX_STEPS;
  }

  wave_pass_registry *registry = wave_pass_registry_create();
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_pipeline *pipeline =
      registry ? wave_pipeline_parse(registry, wave_pipeline_for_level(2), &diags) : NULL;
  if (!pipeline)
    __builtin_trap();
  wave_pipeline_options options = {0};
  options.verify_each = true;
  wave_pipeline_result result = {0};
  bool ok = wave_pipeline_run(pipeline, module, &options, &result, &diags);
  wave_pipeline_result_free(&result);
  if (!ok && !documented_refusal(&diags))
    __builtin_trap();
  /* Without errors the kernel is the optimized one; errors a pass only reported (lint's
   * divergent barrier) leave it as waveopt would refuse to write it. */
  if (ok && !wave_diags_has_errors(&diags)) {
    if (!wave_lower_docs_dialect(module, &diags) || !wave_verify_module(module, &diags))
      __builtin_trap();
    check_printed(module);
    if (compare) {
      wave_difftest_pipeline ctx = {0};
      ctx.pipeline = pipeline;
      test.transform = wave_transform_pipeline;
      test.transform_ctx = &ctx;
      wave_diff_report report;
      if (wave_difftest_run(&test, (const char *)data, size, &report) != WAVE_DIFF_PASS) {
        fprintf(stderr, "fuzz_pipeline: %s\n", report.message);
        __builtin_trap();
      }
    }
  }
  wave_diags_free(&diags);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  wave_module_destroy(module);
  return 0;
}
