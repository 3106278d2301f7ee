/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lint: the first pass of the -O1..-O3 pipelines. It changes nothing; it asks every analysis
 * that diagnoses (a `diagnose` hook in its wave_analysis_info: barrier divergence, possible
 * SIMT deadlocks, wave operations at points that are not converged) to report on the kernel
 * as the user wrote it, before any pass moves code, so that the lines in its warnings are the
 * user's.
 *
 * Every finding is a warning here, never an error: the optimizer does not refuse a kernel whose
 * behaviour the spec leaves undefined, it only keeps its passes from making things worse. The
 * same analyses report errors when the user names them (waveopt -analyze=barriers). At -O0
 * nothing is analysed, so lint is not in that pipeline. With warnings dropped (waveopt -w)
 * there is nobody to tell, and lint computes nothing: its analyses cost as much as several
 * passes, and the first change of the kernel would throw them away.
 */
#include "pm/builtin.h"

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  if (wave_pass_diags(ctx)->ignore_warnings)
    return wave_pass_done(false, WAVE_PRESERVE_ALL);
  const wave_pass_registry *registry = wave_analysis_manager_registry(am);
  const wave_analysis_info *info;
  for (wave_analysis_id id = 0; (info = wave_pass_registry_analysis_at(registry, id)); id++) {
    if (!info->diagnose)
      continue;
    const void *result = wave_analysis_get(am, kernel, id);
    if (result)
      info->diagnose(result, kernel, false, wave_pass_diags(ctx));
  }
  return wave_pass_done(false, WAVE_PRESERVE_ALL);
}

const wave_pass_info wave_pass_lint = {
    .name = "lint",
    .help = "warn about divergent barriers, possible SIMT deadlocks and other undefined behaviour",
    .run = run,
};
