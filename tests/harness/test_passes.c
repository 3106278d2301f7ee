/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Passes that exist only to test the harness. They go into a registry through the public API,
 * as an embedder's own passes would, so the harness's pipeline code is exercised before the
 * library registers any pass of its own, and a deliberately wrong pass proves that the harness
 * notices a miscompilation and that the reducer shrinks it. See difftest.h.
 */
#include <stddef.h>
#include <string.h>

#include "difftest.h"
#include "waveopt/edit.h"

/* Correct: a nop has no effect, guarded or not. The generator emits some, so it fires. */
static wave_pass_result remove_nops(wave_kernel *kernel, wave_analysis_manager *am,
                                    wave_pass_context *ctx) {
  (void)am;
  uint64_t removed = 0;
  wave_foreach_block(b, kernel) {
    wave_foreach_instr_safe(i, b) {
      if (wave_instr_op(i) == WAVE_OP_NOP) {
        wave_instr_remove(i);
        removed++;
      }
    }
  }
  if (removed) {
    wave_normalize_kernel(kernel);
    wave_pass_stat_add(ctx, "nops-removed", "nop instructions deleted", removed);
  }
  return wave_pass_done(removed > 0, WAVE_PRESERVE_NONE);
}

/* Wrong on purpose: generated kernels read back most of what they store, so dropping the first
 * store changes memory on many of them (not all: a later store may overwrite it). */
static wave_pass_result drop_first_store(wave_kernel *kernel, wave_analysis_manager *am,
                                         wave_pass_context *ctx) {
  (void)am, (void)ctx;
  wave_foreach_block(b, kernel) {
    wave_foreach_instr_safe(i, b) {
      if (wave_opcode_get(wave_instr_op(i))->category == WAVE_CAT_STORE) {
        wave_instr_remove(i);
        wave_normalize_kernel(kernel);
        return wave_pass_done(true, WAVE_PRESERVE_NONE);
      }
    }
  }
  return wave_pass_done(false, WAVE_PRESERVE_NONE);
}

/* Wrong on purpose, and visibly so to verify-each: an empty block at the end of the kernel's
 * first region breaks the normal form, which no run can observe. */
static wave_pass_result append_empty_block(wave_kernel *kernel, wave_analysis_manager *am,
                                           wave_pass_context *ctx) {
  (void)am;
  wave_node *block = wave_block_create(wave_kernel_module(kernel));
  if (!block)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory");
  wave_node_list_append(wave_region_body(wave_kernel_first_region(kernel)), block);
  return wave_pass_done(true, WAVE_PRESERVE_ALL);
}

static const wave_pass_info test_passes[] = {
    {"remove-nops", "delete nop instructions (correct)", NULL, 0, remove_nops},
    {"drop-first-store", "delete the kernel's first store (wrong on purpose)", NULL, 0,
     drop_first_store},
    {"append-empty-block", "leave an empty block behind (invalid IR on purpose)", NULL, 0,
     append_empty_block},
};

const wave_pass_info *wave_test_pass_at(size_t index) {
  return index < sizeof(test_passes) / sizeof(test_passes[0]) ? &test_passes[index] : NULL;
}

const wave_pass_info *wave_test_pass_find(const char *name) {
  for (size_t i = 0; wave_test_pass_at(i); i++)
    if (strcmp(test_passes[i].name, name) == 0)
      return &test_passes[i];
  return NULL;
}
