/* SPDX-License-Identifier: Apache-2.0 */
/* The basic blocks and edges of a kernel, cut from its region tree (rules in blocks.c). */
#ifndef WAVE_DOT_BLOCKS_H
#define WAVE_DOT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "support/alloc.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

typedef enum dot_edge_kind {
  DOT_EDGE_THEN,        /* an if into its then-list */
  DOT_EDGE_ELSE,        /* an if into its else-list, or to its endif when it has none */
  DOT_EDGE_FALL,        /* into a loop, past a break or continue, from one region to the next */
  DOT_EDGE_BACK,        /* endloop to its loop's first block */
  DOT_EDGE_BREAK,       /* a break to the block after its loop's endloop */
  DOT_EDGE_CONTINUE,    /* a continue to its loop's first block */
  DOT_EDGE_RECONVERGE,  /* the end of a then- or else-list to its endif; endloop to the exit */
  DOT_EDGE_KINDS
} dot_edge_kind;

typedef enum dot_block_kind {
  DOT_BLOCK_ENTRY,    /* the start of a region */
  DOT_BLOCK_THEN, DOT_BLOCK_ELSE, DOT_BLOCK_ENDIF,
  DOT_BLOCK_LOOP,     /* a loop's first block, where its back and continue edges arrive */
  DOT_BLOCK_EXIT,     /* after an endloop */
  DOT_BLOCK_SPLIT,    /* after a break or continue that more instructions follow */
} dot_block_kind;

/* One line of a block: an instruction, or the if/else/endif/loop/endloop line of node. */
typedef struct dot_row {
  const wave_instr *instr;
  const wave_node *node;
  wave_walk_event event;
} dot_row;

typedef struct dot_block {
  dot_block_kind kind;
  size_t region;              /* index in the kernel's regions */
  const wave_node *opener;    /* THEN..EXIT: the if or loop that begins it */
  const wave_instr *split;    /* SPLIT: the break or continue before it */
  const wave_node *inside;    /* innermost enclosing if or loop; NULL at a region's top level */
  bool divergent;             /* some enclosing if or loop is divergent */
  size_t first_row, num_rows;
} dot_block;

typedef struct dot_edge {
  size_t from, to;
  dot_edge_kind kind;
  bool divergent;             /* the branch it takes may split the wave (never for FALL) */
  size_t next_pending;        /* internal: breaks waiting for their loop's exit block */
} dot_edge;

typedef struct dot_cfg {
  /* The kernel's module's, recorded by dot_cfg_build for dot_cfg_free. */
  const wave_allocator *allocator;
  dot_block *blocks;
  size_t num_blocks, cap_blocks;
  dot_row *rows;
  size_t num_rows, cap_rows;
  dot_edge *edges;
  size_t num_edges, cap_edges;
} dot_cfg;

/* Cuts kernel into cfg (zero-initialised); u classifies the branches. False when memory ran
 * out (cfg must still be freed). */
bool dot_cfg_build(dot_cfg *cfg, const wave_kernel *kernel, const wave_uniformity *u);
void dot_cfg_free(dot_cfg *cfg);

#endif
