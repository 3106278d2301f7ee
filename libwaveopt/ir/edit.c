/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Surgery on node lists, insertion at a cursor, the builder and normalization
 * (waveopt/edit.h).
 *
 * Every edit reduces to one move: a chain of nodes goes into a gap between two neighbours of a
 * list, and the seams on both sides are stitched (two blocks that meet become one). A cursor
 * inside a block becomes a gap by splitting the block first; nothing is linked before the one
 * allocation that may fail (that split, or a new block for an instruction), so a failure
 * leaves the tree as it was. Stitching keeps the normal form: no adjacent blocks, and since
 * only non-empty blocks are ever inserted, no empty ones.
 */
#include "ir/code.h"
#include "ir/ir_internal.h"
#include "waveopt/waveopt.h"

/* A place between two neighbouring nodes of a list; prev or next is NULL at an end. */
typedef struct gap {
  wave_node_list *list;
  wave_node *prev, *next;
} gap;

static bool is_block(const wave_node *node) { return node && node->kind == WAVE_NODE_BLOCK; }

/* Whether the cursor's place holds the module's code: code joins only the module whose arena
 * holds it, and new blocks are made in the module given. A detached list that has held
 * nothing yet is of no module, and any is taken. */
static bool place_in(const wave_module *module, wave_cursor at) {
  const wave_module *m = NULL;
  switch (at.kind) {
  case WAVE_CURSOR_BEFORE_INSTR:
  case WAVE_CURSOR_AFTER_INSTR:
    m = wave_code_instr_module(at.at.instr);
    break;
  case WAVE_CURSOR_BLOCK_START:
  case WAVE_CURSOR_BLOCK_END:
  case WAVE_CURSOR_BEFORE_NODE:
  case WAVE_CURSOR_AFTER_NODE:
    m = at.at.node->module;
    break;
  case WAVE_CURSOR_LIST_START:
  case WAVE_CURSOR_LIST_END:
    m = wave_code_list_module(at.at.list);
    break;
  }
  return !m || m == module;
}

/* A detached instruction made in the module. */
static bool detached_in(const wave_module *module, const wave_instr *instr) {
  return (instr->owner & 1) && (const wave_module *)(instr->owner & ~(uintptr_t)1) == module;
}

/* Every node of a chain made in the module. */
static bool chain_in(const wave_module *module, const wave_node_list *nodes) {
  for (const wave_node *n = nodes->first; n; n = n->next)
    if (n->module != module)
      return false;
  return true;
}

static bool gap_before(wave_node *node, gap *g) {
  *g = (gap){node->list, node->prev, node};
  return g->list != NULL;
}

static bool gap_after(wave_node *node, gap *g) {
  *g = (gap){node->list, node, node->next};
  return g->list != NULL;
}

/* The gap a cursor names. A cursor strictly inside a block splits the block (allocating), so
 * it is the only case that can fail for want of memory. */
static bool gap_at(wave_module *module, wave_cursor at, gap *g) {
  switch (at.kind) {
  case WAVE_CURSOR_LIST_START:
    *g = (gap){at.at.list, NULL, at.at.list->first};
    return true;
  case WAVE_CURSOR_LIST_END:
    *g = (gap){at.at.list, at.at.list->last, NULL};
    return true;
  case WAVE_CURSOR_BEFORE_NODE:
  case WAVE_CURSOR_BLOCK_START:
    return gap_before(at.at.node, g);
  case WAVE_CURSOR_AFTER_NODE:
  case WAVE_CURSOR_BLOCK_END:
    return gap_after(at.at.node, g);
  case WAVE_CURSOR_BEFORE_INSTR:
  case WAVE_CURSOR_AFTER_INSTR: {
    wave_instr *instr = at.at.instr;
    wave_node *block = wave_code_instr_node(instr);
    wave_instr *split = at.kind == WAVE_CURSOR_BEFORE_INSTR ? instr : instr->next;
    if (!block)
      return false;
    if (!split)
      return gap_after(block, g);
    wave_node *tail = wave_block_split(module, split);
    return tail && gap_before(tail, g);
  }
  }
  return false;
}

/* Merges b into a when both are blocks and neighbours; returns the node that now stands where
 * b stood. */
static wave_node *stitch(wave_node *a, wave_node *b) {
  return is_block(a) && wave_block_merge(a, b) ? a : b;
}

/* Links the chain first..last (linked among themselves, ends open) into the gap, or, for an
 * empty chain, closes the gap. */
static void splice(gap g, wave_node *first, wave_node *last) {
  if (!first) {
    stitch(g.prev, g.next);
    return;
  }
  first->prev = g.prev;
  last->next = g.next;
  if (g.prev)
    g.prev->next = first;
  else
    g.list->first = first;
  if (g.next)
    g.next->prev = last;
  else
    g.list->last = last;
  for (wave_node *n = first;; n = n->next) {
    wave_node_adopt(g.list, n);
    if (n == last)
      break;
  }
  wave_node *joined = stitch(g.prev, first);
  stitch(first == last ? joined : last, g.next);
}

bool wave_block_merge(wave_node *first, wave_node *second) {
  if (!is_block(first) || !is_block(second) || first->next != second)
    return false;
  wave_instr *moved = second->u.block.first;
  for (wave_instr *i = moved; i; i = i->next)
    i->owner = (uintptr_t)first;
  if (moved) {
    moved->prev = first->u.block.last;
    if (first->u.block.last)
      first->u.block.last->next = moved;
    else
      first->u.block.first = moved;
    first->u.block.last = second->u.block.last;
  }
  second->u.block.first = second->u.block.last = NULL;
  wave_node_remove(second);
  return true;
}

void wave_instr_delete(wave_instr *instr) {
  wave_node *block = wave_instr_node(instr);
  wave_instr_remove(instr);
  if (!wave_block_is_empty(block))
    return;
  wave_node *prev = wave_node_prev(block), *next = wave_node_next(block);
  wave_node_remove(block);
  if (prev && next && wave_node_kind_of(prev) == WAVE_NODE_BLOCK &&
      wave_node_kind_of(next) == WAVE_NODE_BLOCK)
    wave_block_merge(prev, next);
}

wave_node *wave_block_split(wave_module *module, wave_instr *at) {
  wave_node *block = wave_code_instr_node(at);
  if (!block || !block->list || block->module != module)
    return NULL;
  if (!at->prev)
    return block;
  wave_node *tail = wave_block_create(module);
  if (!tail)
    return NULL;
  tail->u.block.first = at;
  tail->u.block.last = block->u.block.last;
  block->u.block.last = at->prev;
  at->prev->next = NULL;
  at->prev = NULL;
  for (wave_instr *i = at; i; i = i->next)
    i->owner = (uintptr_t)tail;
  wave_node_insert_after(block, tail);
  return tail;
}

/* ---- insertion at a cursor ---------------------------------------------------------------- */

bool wave_instr_insert(wave_module *module, wave_cursor at, wave_instr *instr) {
  if (!detached_in(module, instr) || !place_in(module, at))
    return false;
  switch (at.kind) {
  case WAVE_CURSOR_BEFORE_INSTR:
    return wave_instr_insert_before(at.at.instr, instr);
  case WAVE_CURSOR_AFTER_INSTR:
    return wave_instr_insert_after(at.at.instr, instr);
  case WAVE_CURSOR_BLOCK_START:
    return wave_block_prepend(at.at.node, instr);
  case WAVE_CURSOR_BLOCK_END:
    return wave_block_append(at.at.node, instr);
  case WAVE_CURSOR_LIST_START:
  case WAVE_CURSOR_LIST_END:
  case WAVE_CURSOR_BEFORE_NODE:
  case WAVE_CURSOR_AFTER_NODE:
    break;
  }
  gap g;
  if (!gap_at(module, at, &g))
    return false;
  if (is_block(g.prev))
    return wave_block_append(g.prev, instr);
  if (is_block(g.next))
    return wave_block_prepend(g.next, instr);
  wave_node *block = wave_block_create(module);
  if (!block)
    return false;
  wave_block_append(block, instr);
  splice(g, block, block);
  return true;
}

bool wave_node_insert(wave_module *module, wave_cursor at, wave_node *node) {
  gap g;
  if (node->list || node->module != module || (is_block(node) && wave_block_is_empty(node)) ||
      !place_in(module, at) || !gap_at(module, at, &g))
    return false;
  node->prev = node->next = NULL;
  splice(g, node, node);
  return true;
}

/* ---- moving lists ------------------------------------------------------------------------- */

bool wave_node_list_extract(wave_node *first, wave_node *last, wave_node_list *out) {
  wave_node_list *list = first->list;
  if (!list || last->list != list)
    return false;
  for (const wave_node *n = first; n != last; n = n->next)
    if (!n->next)
      return false;
  wave_node *before = first->prev, *after = last->next;
  if (before)
    before->next = after;
  else
    list->first = after;
  if (after)
    after->prev = before;
  else
    list->last = before;
  first->prev = last->next = NULL;
  *out = (wave_node_list){first, last, NULL, list->region};
  for (wave_node *n = first; n; n = n->next)
    n->list = out;
  stitch(before, after);
  return true;
}

/* Empties a list into a chain for splice. */
static void take_chain(wave_node_list *nodes, wave_node **first, wave_node **last) {
  *first = nodes->first;
  *last = nodes->last;
  nodes->first = nodes->last = NULL;
}

bool wave_node_list_reinsert(wave_module *module, wave_cursor at, wave_node_list *nodes) {
  gap g;
  if (!chain_in(module, nodes) || !place_in(module, at) || !gap_at(module, at, &g))
    return false;
  wave_node *first, *last;
  take_chain(nodes, &first, &last);
  splice(g, first, last);
  return true;
}

bool wave_node_replace(wave_node *node, wave_node_list *with) {
  gap g;
  if (!chain_in(node->module, with) || !gap_before(node, &g))
    return false;
  g.next = node->next;
  wave_node *first, *last;
  take_chain(with, &first, &last);
  wave_node_remove(node);
  splice(g, first, last);
  return true;
}

/* ---- builder ------------------------------------------------------------------------------ */

wave_instr *wave_build_instr(wave_builder *b, wave_opcode op, unsigned num_operands,
                             const wave_operand *operands) {
  wave_instr *instr =
      wave_instr_create(b->module, op, WAVE_NO_GUARD, false, num_operands, operands);
  if (!instr)
    return NULL;
  wave_src origin = {b->loc, NULL, NULL};
  if (!wave_instr_set_origin(instr, &origin) || !wave_instr_insert(b->module, b->cursor, instr))
    return NULL;
  b->cursor = wave_cursor_after_instr(instr);
  return instr;
}

/* Inserts a new if or loop and moves the cursor to the end of `inside`, one of its lists. */
static wave_node *build_node(wave_builder *b, wave_node *node, wave_node_list *inside) {
  if (!wave_node_insert(b->module, b->cursor, node))
    return NULL;
  b->cursor = wave_cursor_list_end(inside);
  return node;
}

wave_node *wave_build_if(wave_builder *b, wave_operand cond) {
  wave_node *node = wave_if_create(b->module, cond);
  if (!node)
    return NULL;
  node->u.if_.if_src.loc = node->u.if_.else_src.loc = node->u.if_.endif_src.loc = b->loc;
  return build_node(b, node, &node->u.if_.then_body);
}

wave_node *wave_build_loop(wave_builder *b) {
  wave_node *node = wave_loop_create(b->module);
  if (!node)
    return NULL;
  node->u.loop.loop_src.loc = node->u.loop.endloop_src.loc = b->loc;
  return build_node(b, node, &node->u.loop.body);
}

/* ---- normal form -------------------------------------------------------------------------- */

/* Text order meets a block before any block after it, so each block first swallows the blocks
 * that follow it; one still empty after that has no block on either side and can simply go. */
bool wave_kernel_shrink_registers(wave_kernel *kernel) {
  uint32_t needed = 1;
  wave_foreach_block(b, kernel) {
    wave_foreach_instr(in, b) {
      wave_reg_ref refs[WAVE_MAX_REG_REFS];
      unsigned n = wave_instr_reg_refs(in, refs);
      for (unsigned k = 0; k < n; k++)
        if (!refs[k].is_pred && refs[k].first + refs[k].count > needed)
          needed = refs[k].first + refs[k].count;
    }
  }
  bool changed = needed != kernel->registers;
  kernel->registers = needed;
  kernel->has_registers = true;
  return changed;
}

bool wave_normalize_kernel(wave_kernel *kernel) {
  bool changed = false;
  wave_foreach_region(r, kernel) {
    for (wave_node *n = r->body.first, *next; n; n = next) {
      while (is_block(n) && wave_block_merge(n, n->next))
        changed = true;
      next = wave_tree_next(NULL, n);
      if (is_block(n) && wave_block_is_empty(n)) {
        wave_node_remove(n);
        changed = true;
      }
    }
  }
  return changed;
}
