/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Basic blocks cut from the region tree. A block is a run of lines that control enters only
 * at its top; the rules, which tests/unit/test_dot.c recounts from the tree on its own:
 *
 * - every region starts a block (ENTRY);
 * - an `if` line ends its block, which branches to a THEN block (then edge) and to an ELSE
 *   block that opens with the `else` line when the if has one, else straight to the ENDIF
 *   block (else edge); the ENDIF block opens with the `endif` line and is reached from the
 *   end of each list (reconvergence edges);
 * - a `loop` falls into a new LOOP block that opens with the `loop` line; the `endloop` line
 *   ends the body's last block, which goes back to the LOOP block (back edge) and on to a new
 *   EXIT block (reconvergence: the loop ends at endloop once no lane is left in it);
 * - `break` and `continue` add an edge to their loop's EXIT and LOOP block, and end their
 *   block when more instructions follow them in the same IR block (a SPLIT block, reached by
 *   a fall-through edge);
 * - a region falls through into the next unless it ends in an unguarded halt or return.
 *
 * Calls are lines, not edges: a subroutine is drawn once, with its own region's blocks.
 * The walk is wave_const_walk's and open ifs and loops sit on a heap stack, so nesting depth
 * costs no C stack.
 */
#include "dot/blocks.h"

#include <stdint.h>

#include "support/grow.h"

#define NONE SIZE_MAX

/* An open if or loop. */
typedef struct frame {
  const wave_node *node;
  bool divergent;       /* it or an enclosing one is divergent */
  size_t branch;        /* if: the block its `if` line ends */
  size_t then_end;      /* if: the last block of its then-list */
  bool has_else;
  size_t header;        /* loop: its LOOP block */
  size_t pending;       /* loop: first break edge waiting for the EXIT block */
  size_t loop;          /* index of the innermost loop frame at or below this one */
} frame;

typedef struct builder {
  dot_cfg *cfg;
  const wave_uniformity *u;
  frame *frames;
  size_t num_frames, cap_frames;
  size_t region;
  size_t current;
  bool failed;
} builder;

static const frame *top(const builder *b) {
  return b->num_frames ? &b->frames[b->num_frames - 1] : NULL;
}

static size_t new_block(builder *b, dot_block_kind kind, const wave_node *opener) {
  dot_cfg *cfg = b->cfg;
  if (!wave_grow(cfg->allocator, (void **)&cfg->blocks, &cfg->cap_blocks, cfg->num_blocks + 1,
                 sizeof(*cfg->blocks))) {
    b->failed = true;
    return b->current;
  }
  const frame *f = top(b);
  cfg->blocks[cfg->num_blocks] = (dot_block){
      .kind = kind, .region = b->region, .opener = opener, .inside = f ? f->node : NULL,
      .divergent = f && f->divergent, .first_row = cfg->num_rows};
  b->current = cfg->num_blocks;
  return cfg->num_blocks++;
}

static void add_row(builder *b, dot_row row) {
  dot_cfg *cfg = b->cfg;
  if (!wave_grow(cfg->allocator, (void **)&cfg->rows, &cfg->cap_rows, cfg->num_rows + 1,
                 sizeof(*cfg->rows))) {
    b->failed = true;
    return;
  }
  cfg->rows[cfg->num_rows++] = row;
  cfg->blocks[b->current].num_rows++;
}

static size_t add_edge(builder *b, size_t from, size_t to, dot_edge_kind kind, bool divergent) {
  dot_cfg *cfg = b->cfg;
  if (!wave_grow(cfg->allocator, (void **)&cfg->edges, &cfg->cap_edges, cfg->num_edges + 1,
                 sizeof(*cfg->edges))) {
    b->failed = true;
    return NONE;
  }
  cfg->edges[cfg->num_edges] = (dot_edge){from, to, kind, divergent, NONE};
  return cfg->num_edges++;
}

static bool push(builder *b, frame f) {
  if (!wave_grow(b->cfg->allocator, (void **)&b->frames, &b->cap_frames, b->num_frames + 1,
                 sizeof(*b->frames))) {
    b->failed = true;
    return false;
  }
  const frame *outer = top(b);
  f.divergent = f.divergent || (outer && outer->divergent);
  f.loop = wave_node_kind_of(f.node) == WAVE_NODE_LOOP ? b->num_frames : outer ? outer->loop : NONE;
  b->frames[b->num_frames++] = f;
  return true;
}

static void add_instr(builder *b, const wave_instr *i) {
  add_row(b, (dot_row){.instr = i});
  if (wave_instr_op(i) != WAVE_OP_BREAK && wave_instr_op(i) != WAVE_OP_CONTINUE)
    return;
  const frame *f = top(b);
  if (!f || f->loop == NONE)
    return;   /* the verifier rejects it; nothing to draw */
  frame *loop = &b->frames[f->loop];
  bool divergent = wave_uniformity_branch_divergent(b->u, i);
  if (wave_instr_op(i) == WAVE_OP_CONTINUE) {
    add_edge(b, b->current, loop->header, DOT_EDGE_CONTINUE, divergent);
  } else {
    size_t e = add_edge(b, b->current, NONE, DOT_EDGE_BREAK, divergent);
    if (e != NONE) {
      b->cfg->edges[e].next_pending = loop->pending;
      loop->pending = e;
    }
  }
  if (wave_instr_next(i)) {
    size_t before = b->current;
    size_t after = new_block(b, DOT_BLOCK_SPLIT, NULL);
    b->cfg->blocks[after].split = i;
    add_edge(b, before, after, DOT_EDGE_FALL, false);
  }
}

static void walk_event(builder *b, const wave_const_walker *w) {
  const wave_node *n = w->node;
  frame *f = b->num_frames ? &b->frames[b->num_frames - 1] : NULL;
  switch (w->event) {
  case WAVE_WALK_BLOCK:
    for (const wave_instr *i = wave_block_first(n); i && !b->failed; i = wave_instr_next(i))
      add_instr(b, i);
    return;
  case WAVE_WALK_IF: {
    bool divergent = wave_uniformity_node_divergent(b->u, n);
    add_row(b, (dot_row){.node = n, .event = WAVE_WALK_IF});
    size_t branch = b->current;
    if (!push(b, (frame){.node = n, .divergent = divergent, .branch = branch}))
      return;
    add_edge(b, branch, new_block(b, DOT_BLOCK_THEN, n), DOT_EDGE_THEN, divergent);
    return;
  }
  case WAVE_WALK_ELSE:
    f->then_end = b->current;
    f->has_else = wave_if_has_else(n) || wave_node_list_first(wave_if_else(n));
    if (f->has_else) {
      size_t e = new_block(b, DOT_BLOCK_ELSE, n);
      add_row(b, (dot_row){.node = n, .event = WAVE_WALK_ELSE});
      add_edge(b, f->branch, e, DOT_EDGE_ELSE, wave_uniformity_node_divergent(b->u, n));
    }
    return;
  case WAVE_WALK_ENDIF: {
    frame done = *f;
    b->num_frames--;
    bool divergent = wave_uniformity_node_divergent(b->u, n);
    size_t else_end = b->current;
    size_t join = new_block(b, DOT_BLOCK_ENDIF, n);
    add_row(b, (dot_row){.node = n, .event = WAVE_WALK_ENDIF});
    add_edge(b, done.then_end, join, DOT_EDGE_RECONVERGE, divergent);
    if (done.has_else)
      add_edge(b, else_end, join, DOT_EDGE_RECONVERGE, divergent);
    else
      add_edge(b, done.branch, join, DOT_EDGE_ELSE, divergent);
    return;
  }
  case WAVE_WALK_LOOP: {
    size_t before = b->current;
    if (!push(b, (frame){.node = n, .divergent = wave_uniformity_node_divergent(b->u, n),
                         .pending = NONE}))
      return;
    size_t header = new_block(b, DOT_BLOCK_LOOP, n);
    b->frames[b->num_frames - 1].header = header;
    add_row(b, (dot_row){.node = n, .event = WAVE_WALK_LOOP});
    add_edge(b, before, header, DOT_EDGE_FALL, false);
    return;
  }
  case WAVE_WALK_ENDLOOP: {
    add_row(b, (dot_row){.node = n, .event = WAVE_WALK_ENDLOOP});
    frame done = *f;
    b->num_frames--;
    bool divergent = wave_uniformity_node_divergent(b->u, n);
    size_t last = b->current;
    size_t exit = new_block(b, DOT_BLOCK_EXIT, n);
    add_edge(b, last, done.header, DOT_EDGE_BACK, divergent);
    add_edge(b, last, exit, DOT_EDGE_RECONVERGE, divergent);
    for (size_t e = done.pending; e != NONE; e = b->cfg->edges[e].next_pending)
      b->cfg->edges[e].to = exit;
    return;
  }
  }
}

/* Whether control may run off the end of the region into the next one. */
static bool falls_through(const wave_region *r) {
  const wave_node *last = wave_node_list_last(wave_region_body(r));
  if (!last || wave_node_kind_of(last) != WAVE_NODE_BLOCK || !wave_block_last(last))
    return true;
  const wave_instr *i = wave_block_last(last);
  return !((wave_instr_op(i) == WAVE_OP_HALT || wave_instr_op(i) == WAVE_OP_RETURN) &&
           wave_instr_guard(i) == WAVE_NO_GUARD);
}

bool dot_cfg_build(dot_cfg *cfg, const wave_kernel *kernel, const wave_uniformity *u) {
  cfg->allocator = wave_module_allocator(wave_kernel_module(kernel));
  builder b = {.cfg = cfg, .u = u};
  size_t previous_end = NONE;
  for (const wave_region *r = wave_kernel_first_region(kernel); r && !b.failed;
       r = wave_region_next(r), b.region++) {
    size_t entry = new_block(&b, DOT_BLOCK_ENTRY, NULL);
    if (previous_end != NONE)
      add_edge(&b, previous_end, entry, DOT_EDGE_FALL, false);
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (!b.failed && wave_const_walk_next(&w))
      walk_event(&b, &w);
    previous_end = falls_through(r) ? b.current : NONE;
  }
  wave_mem_free(cfg->allocator, b.frames);
  return !b.failed;
}

void dot_cfg_free(dot_cfg *cfg) {
  wave_mem_free(cfg->allocator, cfg->blocks);
  wave_mem_free(cfg->allocator, cfg->rows);
  wave_mem_free(cfg->allocator, cfg->edges);
  *cfg = (dot_cfg){0};
}
