/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compaction: the code of a module laid out afresh, in text order, in memory of its own.
 *
 * The parser lays instructions out in the order a walk meets them, so a walk reads memory
 * front to back. Passes then remove instructions (dce alone may take a third of a kernel) and
 * add blocks and instructions wherever the arena has room; the survivors stay where they were,
 * among the dead, and every later walk of the kernel reads the dead memory with them. On a
 * kernel of a million instructions that makes a walk half again as slow after one round of
 * -O2 as on the same code freshly read (BENCHMARKS.md "Compile time").
 *
 * Instructions and nodes therefore come from an arena of their own (wave_module.code_arena).
 * Compacting clones every region's body into a new code arena, in text order, swaps the
 * bodies, and frees the old arena whole, the removed code included. Clones share the
 * originals' strings, which live in the module's other arena; kernels and regions are not
 * copied, so pointers to them hold, while pointers to instructions and nodes do not. Nothing
 * changes unless every clone was made: a clone that runs out of memory leaves the module as it
 * was.
 */
#include <stdlib.h>

#include "ir/ir_internal.h"
#include "support/arena.h"
#include "waveopt/waveopt.h"

bool wave_module_compact_pays(const wave_module *module) {
  return module->instrs_removed > 0 && 4 * module->instrs_removed >= module->instrs_made;
}

bool wave_module_compact(wave_module *module) {
  size_t num_regions = 0;
  for (wave_kernel *k = module->first_kernel; k; k = k->next) {
    wave_foreach_region(r, k)
      num_regions++;
  }
  wave_node_list *copies = wave_mem_calloc(module->allocator, num_regions + 1, sizeof(*copies));
  wave_arena *old = module->code_arena, *fresh = wave_arena_create(module->allocator);
  size_t made = module->instrs_made;
  bool ok = copies && fresh;
  if (ok) {
    module->code_arena = fresh;
    module->instrs_made = 0;
  }
  size_t i = 0;
  for (wave_kernel *k = module->first_kernel; k; k = k->next) {
    wave_foreach_region(r, k) {
      if (ok)
        ok = wave_node_list_clone(module, &r->body, &copies[i++]);
    }
  }
  if (!ok) {
    if (fresh) {
      module->code_arena = old;
      module->instrs_made = made;
      wave_arena_destroy(fresh);
    }
    wave_mem_free(module->allocator, copies);
    return false;
  }
  i = 0;
  for (wave_kernel *k = module->first_kernel; k; k = k->next) {
    wave_foreach_region(r, k) {
      wave_node_list *copy = &copies[i++];
      r->body.first = copy->first;
      r->body.last = copy->last;
      for (wave_node *n = copy->first; n; n = n->next)
        wave_node_adopt(&r->body, n);
    }
  }
  module->instrs_removed = 0;
  wave_arena_destroy(old);
  wave_mem_free(module->allocator, copies);
  return true;
}
