/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Plugins that are wrong in one way each, for tests/lit/pass-plugin.test: built from this one
 * file with BROKEN set to
 *   1  an API version the library does not have;
 *   2  a pass named like a built-in one (dce): registration fails, after an analysis of its
 *      own was already added, which the library must take off again;
 *   3  no entry point at all.
 */
#include <waveopt/pass.h>

#if BROKEN != 3
static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  (void)kernel, (void)am, (void)ctx;
  return wave_pass_done(false, WAVE_PRESERVE_ALL);
}

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  (void)kernel, (void)am, (void)diags;
  return NULL;
}

static void destroy(void *result) { (void)result; }

static const wave_analysis_info leftover = {.name = "leftover",
                                            .help = "registered before the failure",
                                            .compute = compute,
                                            .destroy = destroy};
static const wave_pass_info taken = {.name = "dce", .help = "a taken name", .run = run};

static bool register_passes(wave_pass_registry *registry, wave_diags *diags) {
  return wave_pass_registry_add_analysis(registry, &leftover, diags) >= 0 &&
         wave_pass_registry_add_pass(registry, &taken, diags);
}

static const wave_pass_plugin_info plugin = {BROKEN == 1 ? WAVE_PASS_PLUGIN_API_VERSION + 1
                                                         : WAVE_PASS_PLUGIN_API_VERSION,
                                             "broken", "0", register_passes};

const wave_pass_plugin_info *wave_get_pass_plugin_info(void) { return &plugin; }
#else
int wave_broken_plugin_has_no_entry;
#endif
