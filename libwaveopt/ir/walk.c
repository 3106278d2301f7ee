#include "ir/ir_internal.h"
#include "waveopt/waveopt.h"

/* ---- text-order navigation ----------------------------------------------------------------- */

static wave_node *first_child(const wave_node *node) {
  switch (node->kind) {
  case WAVE_NODE_IF:
    return node->u.if_.then_body.first ? node->u.if_.then_body.first
                                       : node->u.if_.else_body.first;
  case WAVE_NODE_LOOP:
    return node->u.loop.body.first;
  case WAVE_NODE_BLOCK:
    break;
  }
  return NULL;
}

static wave_node *last_child(const wave_node *node) {
  switch (node->kind) {
  case WAVE_NODE_IF:
    return node->u.if_.else_body.last ? node->u.if_.else_body.last : node->u.if_.then_body.last;
  case WAVE_NODE_LOOP:
    return node->u.loop.body.last;
  case WAVE_NODE_BLOCK:
    break;
  }
  return NULL;
}

static bool is_then_list(const wave_node *owner, const wave_node_list *list) {
  return owner->kind == WAVE_NODE_IF && list == &owner->u.if_.then_body;
}

wave_node *wave_tree_next(const wave_node *stop, const wave_node *node) {
  wave_node *child = first_child(node);
  if (child)
    return child;
  for (const wave_node *n = node; n != stop;) {
    if (n->next)
      return n->next;
    const wave_node_list *list = n->list;
    if (!list || !list->parent)
      return NULL;
    const wave_node *owner = list->parent;
    if (is_then_list(owner, list) && owner->u.if_.else_body.first)
      return owner->u.if_.else_body.first;
    n = owner;
  }
  return NULL;
}

wave_node *wave_tree_prev(const wave_node *node) {
  wave_node *n = node->prev;
  const wave_node_list *list = node->list;
  if (!n) {
    if (!list || !list->parent)
      return NULL;
    const wave_node *owner = list->parent;
    if (!(owner->kind == WAVE_NODE_IF && list == &owner->u.if_.else_body))
      return list->parent;
    n = owner->u.if_.then_body.last;
    if (!n)
      return list->parent;
  }
  for (wave_node *child; (child = last_child(n)) != NULL;)
    n = child;
  return n;
}

/* ---- the walker ---------------------------------------------------------------------------- */

void wave_walk_init(wave_walker *walker, wave_node_list *root) {
  walker->node = NULL;
  walker->event = WAVE_WALK_BLOCK;
  walker->depth = 0;
  walker->root = root;
  walker->started = false;
}

/* Positions the walker on `node` (entering it), or, when node is NULL, on the closing event
 * of the list's owner. Returns false when the walk has left the root list. */
static bool enter(wave_walker *w, wave_node *node, wave_node_list *list) {
  if (node) {
    w->node = node;
    w->event = node->kind == WAVE_NODE_BLOCK ? WAVE_WALK_BLOCK
               : node->kind == WAVE_NODE_IF  ? WAVE_WALK_IF
                                             : WAVE_WALK_LOOP;
    return true;
  }
  if (list == w->root)
    return false;
  wave_node *owner = list->parent;
  w->node = owner;
  w->depth--;
  if (owner->kind == WAVE_NODE_LOOP) {
    w->event = WAVE_WALK_ENDLOOP;
  } else if (list == &owner->u.if_.then_body) {
    w->event = WAVE_WALK_ELSE;
  } else {
    w->event = WAVE_WALK_ENDIF;
  }
  return true;
}

bool wave_walk_next(wave_walker *w) {
  if (!w->started) {
    w->started = true;
    return enter(w, w->root->first, w->root);
  }
  wave_node *n = w->node;
  switch (w->event) {
  case WAVE_WALK_IF:
    w->depth++;
    return enter(w, n->u.if_.then_body.first, &n->u.if_.then_body);
  case WAVE_WALK_ELSE:
    w->depth++;
    return enter(w, n->u.if_.else_body.first, &n->u.if_.else_body);
  case WAVE_WALK_LOOP:
    w->depth++;
    return enter(w, n->u.loop.body.first, &n->u.loop.body);
  case WAVE_WALK_BLOCK:
  case WAVE_WALK_ENDIF:
  case WAVE_WALK_ENDLOOP:
    break;
  }
  return enter(w, n->next, n->list);
}
