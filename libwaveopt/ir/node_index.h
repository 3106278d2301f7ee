/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ifs and loops of a kernel in walk order, for the passes that rewrite them one at a time
 * (xform/xform.h's worklists). Five passes of a fixpoint round ask, most of them changing
 * nothing, and most of them then ask for analyses built on the kernel's layout (ir/layout.h),
 * which lists the same statements in the same order. So the index is read off the layout, a
 * scan of a dense array instead of a walk over every node of the kernel (a cache miss per
 * block on a large one), and shared through the analysis manager
 * (wave_analysis_manager_nodes) until a pass changes the kernel; like the layout, it
 * describes the kernel as it was when built.
 */
#ifndef WAVE_IR_NODE_INDEX_H
#define WAVE_IR_NODE_INDEX_H

#include <stddef.h>

#include "ir/layout.h"
#include "waveopt/ir.h"

typedef struct wave_node_index {
  wave_node **ifs_entered;  /* text order of the if lines: an if before the ifs inside it */
  wave_node **ifs_left;     /* text order of the endif lines: an if after the ifs inside it */
  wave_node **loops_left;   /* text order of the endloop lines */
  size_t num_ifs, num_loops;
} wave_node_index;

/* The index of the kernel `layout` describes; NULL when memory runs out. */
wave_node_index *wave_node_index_build(const wave_layout *layout);
void wave_node_index_destroy(wave_node_index *index);

#endif
