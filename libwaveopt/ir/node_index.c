/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The index of a kernel's ifs and loops (ir/node_index.h), from one walk of its nodes. The walk
 * meets blocks but never reads their instructions, so it costs a visit per node: legalize,
 * which at -O0 is the only pass that asks, would otherwise pay for a layout decoding every
 * instruction's registers just to find the ifs.
 */
#include "ir/node_index.h"
#include "ir/module.h"

#include <stdint.h>

#include "support/grow.h"
#include "waveopt/waveopt.h"

typedef struct node_array {
  wave_node **nodes;
  size_t count, cap;
  const wave_allocator *allocator;
} node_array;

/* The walk hands out the kernel's own nodes as const; the index gives them to the passes that
 * rewrite them, so the constness goes here. */
static bool push(node_array *a, const wave_node *node) {
  if (!wave_grow(a->allocator, (void **)&a->nodes, &a->cap, a->count + 1, sizeof(*a->nodes)))
    return false;
  a->nodes[a->count++] = (wave_node *)(uintptr_t)node;
  return true;
}

wave_node_index *wave_node_index_build(const wave_kernel *kernel) {
  const wave_allocator *allocator = kernel->module->allocator;
  node_array entered = {.allocator = allocator}, left = entered, loops = entered;
  bool ok = true;
  for (const wave_region *r = kernel->first_region; r && ok; r = r->next) {
    wave_const_walker w;
    wave_const_walk_init(&w, &r->body);
    while (ok && wave_const_walk_next(&w)) {
      if (w.event == WAVE_WALK_IF)
        ok = push(&entered, w.node);
      else if (w.event == WAVE_WALK_ENDIF)
        ok = push(&left, w.node);
      else if (w.event == WAVE_WALK_ENDLOOP)
        ok = push(&loops, w.node);
    }
  }
  wave_node_index *index = ok ? wave_mem_alloc(allocator, sizeof(*index)) : NULL;
  /* Every array exists, an empty one too: NULL says that memory ran out. */
  if (index && (ok = push(&entered, NULL) && push(&left, NULL) && push(&loops, NULL)))
    *index = (wave_node_index){entered.nodes,  left.nodes,      loops.nodes,
                               left.count - 1, loops.count - 1, allocator};
  if (!index || !ok) {
    wave_mem_free(allocator, index);
    wave_mem_free(allocator, entered.nodes);
    wave_mem_free(allocator, left.nodes);
    wave_mem_free(allocator, loops.nodes);
    return NULL;
  }
  return index;
}

void wave_node_index_destroy(wave_node_index *index) {
  if (!index)
    return;
  wave_mem_free(index->allocator, index->ifs_entered);
  wave_mem_free(index->allocator, index->ifs_left);
  wave_mem_free(index->allocator, index->loops_left);
  wave_mem_free(index->allocator, index);
}
