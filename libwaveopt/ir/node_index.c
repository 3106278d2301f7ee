/* SPDX-License-Identifier: Apache-2.0 */
/* The index of a kernel's ifs and loops (ir/node_index.h), read off its layout. */
#include "ir/node_index.h"

#include <stdint.h>
#include <stdlib.h>

/* The layout lists the kernel's own nodes, read-only; the index hands them to the passes that
 * rewrite them, so the constness the layout's builder gave them goes here. */
static wave_node *node_of(const wave_layout_item *item) {
  return (wave_node *)(uintptr_t)wave_layout_node(item);
}

wave_node_index *wave_node_index_build(const wave_layout *layout) {
  wave_node_index *index = calloc(1, sizeof(*index));
  size_t ifs = layout->count[WAVE_LAYOUT_IF], loops = layout->count[WAVE_LAYOUT_LOOP];
  /* Every array exists, an empty one too: NULL says that memory ran out. */
  if (!index || !(index->ifs_entered = malloc((ifs + 1) * sizeof(wave_node *))) ||
      !(index->ifs_left = malloc((ifs + 1) * sizeof(wave_node *))) ||
      !(index->loops_left = malloc((loops + 1) * sizeof(wave_node *)))) {
    wave_node_index_destroy(index);
    return NULL;
  }
  size_t entered = 0, left = 0, ended = 0;
  for (size_t i = 0; i < layout->num_items; i++) {
    const wave_layout_item *item = &layout->items[i];
    if (item->kind == WAVE_LAYOUT_IF)
      index->ifs_entered[entered++] = node_of(item);
    else if (item->kind == WAVE_LAYOUT_ENDIF)
      index->ifs_left[left++] = node_of(item);
    else if (item->kind == WAVE_LAYOUT_ENDLOOP)
      index->loops_left[ended++] = node_of(item);
  }
  index->num_ifs = ifs;
  index->num_loops = loops;
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
