/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: arbitrary bytes through the -O2 pipeline, as waveopt -O2 runs it, with
 * verify_each (after every pass: the IR validated, a "no change" answer checked against the
 * text, every analysis the pass claims to keep recomputed). Inputs that do not parse and
 * verify are dropped, and so are inputs over MAX_INPUT bytes, so that one input stays fast.
 *
 * A valid kernel must come out of the pipeline valid: the one documented refusal is
 * bound-depth's (the divergence-stack depth cannot be brought within the limit); any other
 * failure, a result that does not verify, or one whose assembler-dialect print does not parse
 * and verify again, traps so that libFuzzer reports it with its input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 4096

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
  if (!module || !wave_verify_module(module, &diags)) {
    wave_module_destroy(module);
    wave_diags_free(&diags);
    return 0;
  }
  wave_diags_free(&diags);

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
  }
  wave_diags_free(&diags);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  wave_module_destroy(module);
  return 0;
}
