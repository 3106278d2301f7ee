/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Deep copies of instructions, nodes and lists (waveopt/edit.h).
 *
 * The original is walked in text order by links alone, and the copy is built in lockstep: each
 * new node is appended to the list of the copy that corresponds to its original's list. That
 * list is found from the previous pair (original, copy) by climbing both trees together as far
 * as the walk climbed, so no map from originals to copies is needed and the whole clone costs
 * one visit per node, at any depth. A copy is complete before anything links it anywhere: when
 * memory runs out the partial copy is simply abandoned in the arena.
 */
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "waveopt/waveopt.h"

wave_instr *wave_instr_clone(wave_module *module, const wave_instr *instr) {
  wave_instr *copy = wave_code_instr_copy(module, instr);
  if (!copy)
    return NULL;
  /* A note belongs to one instruction; the file is kept by name, whichever module. */
  wave_src origin = wave_code_instr_origin(instr);
  if (!wave_instr_set_origin(copy, &origin))
    return NULL;
  /* Labels are indices into the table of the instruction's own module. */
  const wave_module *from = wave_code_instr_module(instr);
  for (unsigned i = 0; module != from && i < instr->num_operands; i++)
    if (wave_code_units(instr)[i].slot.kind == WAVE_OPERAND_LABEL &&
        !wave_code_slot_store(module, &wave_code_slots(copy)[i], wave_code_instr_operand(instr, i)))
      return NULL;
  return copy;
}

static void empty_list(wave_node_list *list, wave_node *owner) {
  *list = (wave_node_list){NULL, NULL, owner, NULL};
}

/* The node without its contents: same kind, condition, flags and source lines; empty lists. */
static wave_node *clone_shell(wave_module *module, const wave_node *node) {
  size_t size = wave_code_node_size(node->kind);
  wave_node *copy = wave_module_alloc_code(module, size);
  if (!copy)
    return NULL;
  memcpy(copy, node, size);
  copy->prev = copy->next = NULL;
  copy->list = NULL;
  copy->module = module;
  switch (copy->kind) {
  case WAVE_NODE_BLOCK:
    copy->u.block.first = copy->u.block.last = NULL;
    for (const wave_instr *i = node->u.block.first; i; i = i->next) {
      wave_instr *c = wave_instr_clone(module, i);
      if (!c)
        return NULL;
      wave_block_append(copy, c);
    }
    break;
  case WAVE_NODE_IF:
    empty_list(&copy->u.if_.then_body, copy);
    empty_list(&copy->u.if_.else_body, copy);
    break;
  case WAVE_NODE_LOOP:
    empty_list(&copy->u.loop.body, copy);
    break;
  }
  return copy;
}

/* The list of `copy` that corresponds to `list`, one of the lists of `orig`. */
static wave_node_list *counterpart(wave_node *copy, const wave_node *orig,
                                   const wave_node_list *list) {
  if (orig->kind == WAVE_NODE_LOOP)
    return &copy->u.loop.body;
  return list == &orig->u.if_.then_body ? &copy->u.if_.then_body : &copy->u.if_.else_body;
}

/* Copies first..last (one list, in order) with everything nested in them; the copies of the
 * top-level nodes go to `out`, or, when out is NULL (a single node), stay detached. Returns the
 * copy of first, or NULL when memory ran out. */
static wave_node *clone_range(wave_module *module, const wave_node *first,
                              const wave_node *last, wave_node_list *out) {
  wave_node *result = NULL;
  const wave_node *orig = NULL;  /* the node copied last, and its copy */
  wave_node *copy = NULL;
  for (const wave_node *n = first; n; n = wave_tree_next(last, n)) {
    wave_node_list *into = out;
    if (orig) {
      const wave_node_list *list = n->list;
      if (list->parent == orig) {
        into = counterpart(copy, orig, list);
      } else {
        /* n follows orig in its list, or (orig inside a then-list) starts the else-list of the
         * same if: climb to that level. */
        while (orig->list != list && orig->list->parent != list->parent) {
          orig = orig->list->parent;
          copy = copy->list->parent;
        }
        into = orig->list == list ? copy->list
                                  : counterpart(copy->list->parent, list->parent, list);
      }
    }
    wave_node *c = clone_shell(module, n);
    if (!c)
      return NULL;
    if (into)
      wave_node_list_append(into, c);
    if (!result)
      result = c;
    orig = n;
    copy = c;
  }
  return result;
}

wave_node *wave_node_clone(wave_module *module, const wave_node *node) {
  return clone_range(module, node, node, NULL);
}

bool wave_node_list_clone(wave_module *module, const wave_node_list *list,
                          wave_node_list *out) {
  *out = (wave_node_list){NULL, NULL, NULL, list->region};
  if (list->first && !clone_range(module, list->first, list->last, out)) {
    out->first = out->last = NULL;
    return false;
  }
  return true;
}
