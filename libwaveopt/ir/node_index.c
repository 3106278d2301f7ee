/* SPDX-License-Identifier: Apache-2.0 */
/* The index of a kernel's ifs and loops (ir/node_index.h): one walk, no recursion. */
#include "ir/node_index.h"

#include <stdlib.h>

#include "support/grow.h"
#include "waveopt/waveopt.h"

typedef struct list {
  wave_node **nodes;
  size_t count, cap;
} list;

static bool add(list *l, wave_node *node) {
  if (!wave_grow((void **)&l->nodes, &l->cap, l->count + 1, sizeof(*l->nodes)))
    return false;
  l->nodes[l->count++] = node;
  return true;
}

wave_node_index *wave_node_index_build(wave_kernel *kernel) {
  wave_node_index *index = calloc(1, sizeof(*index));
  if (!index)
    return NULL;
  list entered = {0}, left = {0}, loops = {0};
  /* Every array exists, an empty one too: NULL says that memory ran out. */
  bool ok = wave_grow((void **)&entered.nodes, &entered.cap, 1, sizeof(wave_node *)) &&
            wave_grow((void **)&left.nodes, &left.cap, 1, sizeof(wave_node *)) &&
            wave_grow((void **)&loops.nodes, &loops.cap, 1, sizeof(wave_node *));
  wave_foreach_region(r, kernel) {
    wave_walker w;
    wave_walk_init(&w, &r->body);
    while (ok && wave_walk_next(&w)) {
      if (w.event == WAVE_WALK_IF)
        ok = add(&entered, w.node);
      else if (w.event == WAVE_WALK_ENDIF)
        ok = add(&left, w.node);
      else if (w.event == WAVE_WALK_ENDLOOP)
        ok = add(&loops, w.node);
    }
  }
  *index = (wave_node_index){entered.nodes, left.nodes, loops.nodes, entered.count, loops.count};
  if (!ok) {
    wave_node_index_destroy(index);
    return NULL;
  }
  return index;
}

void wave_node_index_destroy(wave_node_index *index) {
  if (!index)
    return;
  free(index->ifs_entered);
  free(index->ifs_left);
  free(index->loops_left);
  free(index);
}
