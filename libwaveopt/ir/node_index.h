/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ifs and loops of a kernel in walk order, for the passes that rewrite them one at a time
 * (xform/xform.h's worklists). Five passes of a fixpoint round ask, most of them changing
 * nothing, so the index is shared through the analysis manager (wave_analysis_manager_nodes)
 * until a pass changes the kernel; like the layout (ir/layout.h), it describes the kernel as
 * it was when built, and lists its statements in the same order.
 */
#ifndef WAVE_IR_NODE_INDEX_H
#define WAVE_IR_NODE_INDEX_H

#include <stddef.h>

#include "waveopt/ir.h"

typedef struct wave_node_index {
  wave_node **ifs_entered;  /* text order of the if lines: an if before the ifs inside it */
  wave_node **ifs_left;     /* text order of the endif lines: an if after the ifs inside it */
  wave_node **loops_left;   /* text order of the endloop lines */
  size_t num_ifs, num_loops;
  const wave_allocator *allocator; /* the kernel's module's, which the arrays come from */
} wave_node_index;

/* NULL when memory runs out. */
wave_node_index *wave_node_index_build(const wave_kernel *kernel);
void wave_node_index_destroy(wave_node_index *index);

#endif
