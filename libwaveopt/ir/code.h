/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The storage of instructions, private to the library. The public headers declare wave_instr
 * opaque and export one function per accessor (waveopt/instr.h), so an embedder never compiles
 * against this layout and it may change in any release. Inside the library the same names are
 * macros over the static inline readers below: the analyses and passes ask them millions of
 * times per kernel and pay nothing for the opacity. ir/access.c defines the exported
 * functions, writing each name in parentheses so that the macro does not apply there.
 *
 * Only the files of ir/ that link, clone and lay out instructions read the fields; everything
 * else, passes and analyses included, goes through the accessors.
 */
#ifndef WAVEOPT_IR_CODE_H
#define WAVEOPT_IR_CODE_H

#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/ir.h"

struct wave_instr {
  struct wave_instr *prev, *next;
  struct wave_node *block; /* the block holding it, NULL when detached */
  uint16_t op;             /* wave_opcode */
  int8_t guard;            /* WAVE_NO_GUARD or a predicate 0..3 */
  uint8_t guard_negated;
  uint8_t cache_hint;   /* wave_cache_hint */
  uint8_t num_operands; /* slots as written; the verifier checks it against the shape */
  wave_operand operands[WAVE_MAX_OPERANDS];
  wave_src src;
};

static inline wave_opcode wave_code_instr_op(const wave_instr *instr) {
  return (wave_opcode)instr->op;
}
static inline int wave_code_instr_guard(const wave_instr *instr) { return instr->guard; }
static inline bool wave_code_instr_guard_negated(const wave_instr *instr) {
  return instr->guard_negated;
}
static inline wave_cache_hint wave_code_instr_cache_hint(const wave_instr *instr) {
  return (wave_cache_hint)instr->cache_hint;
}
static inline unsigned wave_code_instr_num_operands(const wave_instr *instr) {
  return instr->num_operands;
}
static inline const wave_operand *wave_code_instr_operand(const wave_instr *instr, unsigned i) {
  return i < instr->num_operands ? &instr->operands[i] : NULL;
}
static inline wave_operand wave_code_instr_slot(const wave_instr *instr, unsigned i) {
  if (i < instr->num_operands)
    return instr->operands[i];
  wave_operand none = {0};
  return none;
}
static inline wave_instr *wave_code_instr_next(const wave_instr *instr) { return instr->next; }
static inline wave_instr *wave_code_instr_prev(const wave_instr *instr) { return instr->prev; }
static inline wave_node *wave_code_instr_node(const wave_instr *instr) { return instr->block; }
static inline const wave_src *wave_code_instr_origin(const wave_instr *instr) {
  return &instr->src;
}
/* The origin as a place to write: the library's comment moves (xform/comments.h) know lines by
 * the address of their wave_src. Not exported; callers outside use wave_instr_set_origin. */
static inline wave_src *wave_code_instr_src(wave_instr *instr) { return &instr->src; }
static inline wave_loc wave_code_instr_loc(const wave_instr *instr) { return instr->src.loc; }
static inline wave_instr *wave_code_block_first(const wave_node *block) {
  return block->u.block.first;
}
static inline wave_instr *wave_code_block_last(const wave_node *block) {
  return block->u.block.last;
}
static inline void wave_code_instr_set_op(wave_instr *instr, wave_opcode op) {
  instr->op = (uint16_t)op;
}
static inline void wave_code_instr_set_guard(wave_instr *instr, int pred, bool negated) {
  instr->guard = (int8_t)pred;
  instr->guard_negated = pred != WAVE_NO_GUARD && negated;
}
static inline void wave_code_instr_set_cache_hint(wave_instr *instr, wave_cache_hint hint) {
  instr->cache_hint = (uint8_t)hint;
}
static inline bool wave_code_instr_set_operand(wave_instr *instr, unsigned i,
                                               wave_operand operand) {
  if (i >= instr->num_operands)
    return false;
  instr->operands[i] = operand;
  return true;
}
static inline bool wave_code_instr_set_num_operands(wave_instr *instr, unsigned n) {
  if (n > WAVE_MAX_OPERANDS)
    return false;
  for (unsigned i = instr->num_operands; i < n; i++)
    instr->operands[i] = (wave_operand){0};
  instr->num_operands = (uint8_t)n;
  return true;
}
static inline void wave_code_instr_set_origin(wave_instr *instr, const wave_src *origin) {
  instr->src = *origin;
}

#define wave_instr_op(instr) wave_code_instr_op(instr)
#define wave_instr_guard(instr) wave_code_instr_guard(instr)
#define wave_instr_guard_negated(instr) wave_code_instr_guard_negated(instr)
#define wave_instr_cache_hint(instr) wave_code_instr_cache_hint(instr)
#define wave_instr_num_operands(instr) wave_code_instr_num_operands(instr)
#define wave_instr_operand(instr, i) wave_code_instr_operand((instr), (i))
#define wave_instr_slot(instr, i) wave_code_instr_slot((instr), (i))
#define wave_instr_next(instr) wave_code_instr_next(instr)
#define wave_instr_prev(instr) wave_code_instr_prev(instr)
#define wave_instr_node(instr) wave_code_instr_node(instr)
#define wave_instr_origin(instr) wave_code_instr_origin(instr)
#define wave_instr_loc(instr) wave_code_instr_loc(instr)
#define wave_instr_set_op(instr, op) wave_code_instr_set_op((instr), (op))
#define wave_instr_set_guard(instr, pred, negated)                                                 \
  wave_code_instr_set_guard((instr), (pred), (negated))
#define wave_instr_set_cache_hint(instr, hint) wave_code_instr_set_cache_hint((instr), (hint))
#define wave_instr_set_operand(instr, i, operand)                                                  \
  wave_code_instr_set_operand((instr), (i), (operand))
#define wave_instr_set_num_operands(instr, n) wave_code_instr_set_num_operands((instr), (n))
#define wave_instr_set_origin(instr, origin) wave_code_instr_set_origin((instr), (origin))
#define wave_block_first(block) wave_code_block_first(block)
#define wave_block_last(block) wave_code_block_last(block)

#endif
