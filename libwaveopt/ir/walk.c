#include "waveopt/waveopt.h"

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
