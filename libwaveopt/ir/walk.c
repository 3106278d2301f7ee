/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Moving through the region tree without recursion: parent links replace the stack, so any
 * depth of nesting is safe and a walk costs one visit per node.
 *
 * The walkers (mutable and const) report the statements in text order as events (block, if,
 * else, endif, loop, endloop); the text-order steps below serve the editing code, which needs
 * "the node after this one" without a walker's state.
 */
#include "ir/ir_internal.h"
#include "waveopt/waveopt.h"

/* ---- text-order navigation ---------------------------------------------------------------- */

static wave_node *first_child(const wave_node *node) {
  switch (wave_node_kind_of(node)) {
  case WAVE_NODE_IF:
    return wave_node_list_first(wave_if_then(node)) ? wave_node_list_first(wave_if_then(node))
                                                    : wave_node_list_first(wave_if_else(node));
  case WAVE_NODE_LOOP:
    return wave_node_list_first(wave_loop_body(node));
  case WAVE_NODE_BLOCK:
    break;
  }
  return NULL;
}

static wave_node *last_child(const wave_node *node) {
  switch (wave_node_kind_of(node)) {
  case WAVE_NODE_IF:
    return wave_node_list_last(wave_if_else(node)) ? wave_node_list_last(wave_if_else(node))
                                                   : wave_node_list_last(wave_if_then(node));
  case WAVE_NODE_LOOP:
    return wave_node_list_last(wave_loop_body(node));
  case WAVE_NODE_BLOCK:
    break;
  }
  return NULL;
}

static bool is_then_list(const wave_node *owner, const wave_node_list *list) {
  return wave_node_kind_of(owner) == WAVE_NODE_IF && list == wave_if_then(owner);
}

wave_node *wave_tree_next(const wave_node *stop, const wave_node *node) {
  wave_node *child = first_child(node);
  if (child)
    return child;
  for (const wave_node *n = node; n != stop;) {
    if (wave_node_next(n))
      return wave_node_next(n);
    const wave_node_list *list = wave_node_list_of(n);
    if (!list || !wave_node_list_parent(list))
      return NULL;
    const wave_node *owner = wave_node_list_parent(list);
    if (is_then_list(owner, list) && wave_node_list_first(wave_if_else(owner)))
      return wave_node_list_first(wave_if_else(owner));
    n = owner;
  }
  return NULL;
}

wave_node *wave_tree_prev(const wave_node *node) {
  wave_node *n = wave_node_prev(node);
  const wave_node_list *list = wave_node_list_of(node);
  if (!n && list && wave_node_list_parent(list)) {
    /* First in its list: the if or loop itself comes before, except that the else-list
     * follows the whole then-list. */
    wave_node *owner = wave_node_list_parent(list);
    bool in_else = wave_node_kind_of(owner) == WAVE_NODE_IF && list == wave_if_else(owner);
    if (!in_else || !wave_node_list_last(wave_if_then(owner)))
      return owner;
    n = wave_node_list_last(wave_if_then(owner));
  }
  if (!n)
    return NULL;
  for (wave_node *child; (child = last_child(n)) != NULL;)
    n = child;
  return n;
}

/* node itself when it is a block, else the first block after it in text order. */
static wave_node *block_from(wave_node *node) {
  while (node && wave_node_kind_of(node) != WAVE_NODE_BLOCK)
    node = wave_tree_next(NULL, node);
  return node;
}

wave_node *wave_block_next(const wave_node *block) {
  return block_from(wave_tree_next(NULL, block));
}

wave_node *wave_block_prev(const wave_node *block) {
  wave_node *n = wave_tree_prev(block);
  while (n && wave_node_kind_of(n) != WAVE_NODE_BLOCK)
    n = wave_tree_prev(n);
  return n;
}

wave_node *wave_node_enclosing_loop(const wave_node *node) {
  wave_node *n = wave_node_parent(node);
  while (n && wave_node_kind_of(n) != WAVE_NODE_LOOP)
    n = wave_node_parent(n);
  return n;
}

/* ---- blocks of a region or kernel --------------------------------------------------------- */

wave_block_iter wave_block_iter_region(wave_region *region) {
  return (wave_block_iter){.region = region};
}

wave_block_iter wave_block_iter_kernel(wave_kernel *kernel) {
  return (wave_block_iter){.region = kernel->first_region, .whole_kernel = true};
}

wave_node *wave_block_iter_next(wave_block_iter *it) {
  if (it->done)
    return NULL;
  wave_node *b = it->block    ? wave_block_next(it->block)
                 : it->region ? block_from(wave_node_list_first(&it->region->body))
                              : NULL;
  while (!b && it->whole_kernel && it->region && it->region->next) {
    it->region = it->region->next;
    b = block_from(wave_node_list_first(&it->region->body));
  }
  it->block = b;
  it->done = b == NULL;
  return b;
}

/* ---- the walkers -------------------------------------------------------------------------- */

/* The walk stands on `node` (entering it), or, when node is NULL, on the closing event of the
 * owner of `list`. NULL once the walk leaves the root list. */
static wave_node *enter(const wave_node_list *root, wave_node *node, const wave_node_list *list,
                        wave_walk_event *event, unsigned *depth) {
  if (node) {
    *event = wave_node_kind_of(node) == WAVE_NODE_BLOCK ? WAVE_WALK_BLOCK
             : wave_node_kind_of(node) == WAVE_NODE_IF  ? WAVE_WALK_IF
                                                        : WAVE_WALK_LOOP;
    return node;
  }
  if (list == root)
    return NULL;
  wave_node *owner = wave_node_list_parent(list);
  (*depth)--;
  if (wave_node_kind_of(owner) == WAVE_NODE_LOOP)
    *event = WAVE_WALK_ENDLOOP;
  else if (list == wave_if_then(owner))
    *event = WAVE_WALK_ELSE;
  else
    *event = WAVE_WALK_ENDIF;
  return owner;
}

/* One step of either walker: from the statement (node, *event), or from the start of root
 * when node is NULL, to the next statement. It reads link fields only, which are plain
 * pointers, so the const walker shares it without a cast. */
static wave_node *step(const wave_node_list *root, const wave_node *n, wave_walk_event *event,
                       unsigned *depth) {
  if (!n)
    return enter(root, wave_node_list_first(root), root, event, depth);
  switch (*event) {
  case WAVE_WALK_IF:
    (*depth)++;
    return enter(root, wave_node_list_first(wave_if_then(n)), wave_if_then(n), event, depth);
  case WAVE_WALK_ELSE:
    (*depth)++;
    return enter(root, wave_node_list_first(wave_if_else(n)), wave_if_else(n), event, depth);
  case WAVE_WALK_LOOP:
    (*depth)++;
    return enter(root, wave_node_list_first(wave_loop_body(n)), wave_loop_body(n), event, depth);
  case WAVE_WALK_BLOCK:
  case WAVE_WALK_ENDIF:
  case WAVE_WALK_ENDLOOP:
    break;
  }
  return enter(root, wave_node_next(n), wave_node_list_of(n), event, depth);
}

/* Moves a walker on from `at`: the next node, with *event and *depth updated, or NULL at the
 * end with both left as they were. */
static wave_node *advance(const wave_node_list *root, const wave_node *at, bool *started,
                          wave_walk_event *event, unsigned *depth) {
  wave_walk_event e = *event;
  unsigned d = *depth;
  wave_node *next = step(root, *started ? at : NULL, &e, &d);
  *started = true;
  if (next) {
    *event = e;
    *depth = d;
  }
  return next;
}

void wave_walk_init(wave_walker *walker, wave_node_list *root) {
  *walker = (wave_walker){.root = root};
}

bool wave_walk_next(wave_walker *w) {
  wave_node *next = advance(w->root, w->node, &w->started, &w->event, &w->depth);
  if (next)
    w->node = next;
  return next != NULL;
}

void wave_const_walk_init(wave_const_walker *walker, const wave_node_list *root) {
  *walker = (wave_const_walker){.root = root};
}

bool wave_const_walk_next(wave_const_walker *w) {
  const wave_node *next = advance(w->root, w->node, &w->started, &w->event, &w->depth);
  if (next)
    w->node = next;
  return next != NULL;
}
