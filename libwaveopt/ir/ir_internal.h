/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the files of ir/ share and the library does not export: moving through the region tree
 * in text order by links alone, and the one place that links a node into a list.
 *
 * Text order is pre-order: a node, then its then-list (or loop body), then its else-list, then
 * the nodes after it. Every step climbs or descends one link, so a whole walk costs one visit
 * per node and no stack, however deep the nesting.
 */
#ifndef WAVEOPT_IR_INTERNAL_H
#define WAVEOPT_IR_INTERNAL_H

#include "ir/code.h"
#include "waveopt/ir.h"
#include "waveopt/regset.h"

/* The node after `node` in text order, entering node's own lists first. The walk ends (NULL)
 * once `stop` and everything inside it are done, or at the end of the region body (or detached
 * list) when stop is NULL. Link fields are plain pointers, so a const node yields its
 * neighbours without a cast. */
wave_node *wave_tree_next(const wave_node *stop, const wave_node *node);

/* The node before `node` in text order (the innermost last node of its previous sibling, or
 * its enclosing if/loop), or NULL at the start of its region body or detached list. */
wave_node *wave_tree_prev(const wave_node *node);

/* Makes `list` the holder of `node` (already linked between its neighbours) and gives node's
 * nested lists the region of `list`. */
void wave_node_adopt(wave_node_list *list, wave_node *node);
/* Unlinks an attached instruction keeping the normal form (waveopt/edit.h): its block goes when
 * emptied, and the blocks that then meet are merged. */
void wave_instr_delete(wave_instr *instr);

/* Memory for an instruction or node, from the module's code arena (wave_module_compact). */
void *wave_module_alloc_code(wave_module *module, size_t size);
/* A block from malloc freed with the module (support/arena.h, wave_arena_adopt). */
bool wave_module_adopt(wave_module *module, void *block);

/* Most registers one instruction can name: a slot's width is one digit of its shape. */
#define WAVE_MAX_INSTR_REGS (WAVE_MAX_REG_REFS * 9)

/* wave_instr_reg_refs for the references it writes only (is_def), in the same order. */
unsigned wave_instr_def_refs(const wave_instr *instr, wave_reg_ref *refs);

/* The registers of wave_instr_uses and wave_instr_defs as ascending lists of regset indices,
 * each with room for WAVE_MAX_INSTR_REGS, for the analyses' flat layout: the registers decoded
 * when the instruction last changed (ir/code.h), with what its guard adds. */
void wave_instr_reg_lists(const wave_instr *instr, uint16_t *uses, unsigned *num_uses,
                          uint16_t *defs, unsigned *num_defs);

/* Set operations with a list of regset indices (wave_instr_reg_lists, the layout), in place: a
 * register at a time is what most lists need. */
static inline void wave_regset_add_list(wave_regset *s, const uint16_t *regs, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    s->words[regs[i] / 64] |= (uint64_t)1 << (regs[i] % 64);
}
static inline void wave_regset_remove_list(wave_regset *s, const uint16_t *regs, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    s->words[regs[i] / 64] &= ~((uint64_t)1 << (regs[i] % 64));
}
static inline bool wave_regset_meets_list(const wave_regset *s, const uint16_t *regs, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (s->words[regs[i] / 64] >> (regs[i] % 64) & 1)
      return true;
  return false;
}

#endif
