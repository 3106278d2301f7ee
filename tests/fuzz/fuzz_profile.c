/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: arbitrary bytes through the JSON profile reader (wave_profile_parse,
 * docs/profile.md). When the bytes are a profile, every lookup is exercised over all its
 * kernels, lines and branches (by index and by line number, efficiencies and rates), and the
 * profile is matched against a fixed small kernel, as waveopt -profile-use does (under the name
 * of each profiled kernel in turn). A crash, a leak, a hang, or a lookup that does not find
 * what the index walk returned is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waveopt/profile.h"
#include "waveopt/waveopt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A kernel with an if and a loop on known lines, matched under every profiled kernel's name. */
static const char kernel_text[] =
    ".kernel k\n"
    ".registers 4\n"
    ".workgroup_size 32, 1, 1\n"
    "  mov_sr r0, sr_thread_id_x\n"
    "  mov_imm r1, 3\n"
    "  icmp_lt p0, r0, r1\n"
    "  if p0\n"
    "    iadd r1, r1, r0\n"
    "  endif\n"
    "  loop\n"
    "    break p0\n"
    "  endloop\n"
    "  halt\n"
    ".end\n";

static void walk_kernel(const wave_profile_kernel *k) {
  (void)wave_profile_kernel_name(k);
  (void)wave_profile_wave_width(k);
  (void)wave_profile_totals(k);
  size_t lines = wave_profile_num_lines(k);
  for (size_t i = 0; i < lines; i++) {
    const wave_profile_line *l = wave_profile_line_at(k, i);
    if (!l || !l->ops)
      __builtin_trap();
    (void)wave_profile_line_efficiency(k, l);
    const wave_profile_line *found = wave_profile_find_line(k, l->line);
    if (!found || found->line != l->line)
      __builtin_trap();
  }
  if (wave_profile_line_at(k, lines))
    __builtin_trap();
  size_t branches = wave_profile_num_branches(k);
  for (size_t i = 0; i < branches; i++) {
    const wave_profile_branch *b = wave_profile_branch_at(k, i);
    if (!b)
      __builtin_trap();
    (void)wave_profile_branch_rate(b);
    const wave_profile_branch *found = wave_profile_find_branch(k, b->line, b->kind);
    if (!found || found->line != b->line || found->kind != b->kind)
      __builtin_trap();
  }
  if (wave_profile_branch_at(k, branches))
    __builtin_trap();
}

static void format_and_free(wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++)
    free(wave_diag_format_text(&diags->items[i], false));
  wave_diags_free(diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_profile *profile = wave_profile_parse((const char *)data, size, "fuzz.prof", &diags);
  format_and_free(&diags);
  if (!profile)
    return 0;
  (void)wave_profile_source(profile);

  wave_diags_init(&diags);
  wave_module *module = wave_parse_string(kernel_text, sizeof(kernel_text) - 1, "k.wave", &diags);
  wave_kernel *kernel = module ? wave_module_find_kernel(module, "k") : NULL;
  if (!kernel)
    __builtin_trap();
  size_t kernels = wave_profile_num_kernels(profile);
  for (size_t i = 0; i < kernels; i++) {
    const wave_profile_kernel *k = wave_profile_kernel_at(profile, i);
    if (!k)
      __builtin_trap();
    walk_kernel(k);
    if (!wave_profile_find_kernel(profile, wave_profile_kernel_name(k)))
      __builtin_trap();
    /* Under the profiled kernel's name, so that every kernel of the profile is matched (and
     * almost always found stale) rather than only one the mutations happened to name k. */
    if (wave_kernel_set_name(kernel, wave_profile_kernel_name(k)))
      (void)wave_profile_match(profile, kernel, &diags);
  }
  if (wave_profile_kernel_at(profile, kernels))
    __builtin_trap();
  format_and_free(&diags);
  wave_module_destroy(module);
  wave_profile_destroy(profile);
  return 0;
}
