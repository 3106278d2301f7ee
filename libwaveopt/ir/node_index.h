/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ifs and loops of a kernel in walk order, for the passes that rewrite them one at a time
 * (xform/xform.h's worklists). Finding them is a walk over every node of the kernel, on a
 * large kernel a cache miss per block; five passes of a fixpoint round ask, and most of them
 * change nothing. Built once per kernel version and shared through the analysis manager
 * (wave_analysis_manager_nodes), the walk is paid once until a pass changes the kernel.
 *
 * Like the layout (ir/layout.h), the index describes the kernel as it was when built: the
 * manager drops it whenever the kernel is invalidated.
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
} wave_node_index;

/* NULL when memory runs out. */
wave_node_index *wave_node_index_build(wave_kernel *kernel);
void wave_node_index_destroy(wave_node_index *index);

#endif
