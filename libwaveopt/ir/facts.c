/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Instruction facts and operand roles (waveopt/instr.h), read from the opcode table: effect
 * flags for what may move or be guarded, shapes for which slot is the destination (the
 * registers each slot covers are ir/regs.c's). Nothing here names an opcode, so the table
 * stays the one place that says what an instruction does.
 */
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "waveopt/instr.h"

static bool op_has(const wave_instr *instr, uint32_t flags) {
  return wave_opcode_has(wave_instr_op(instr), flags);
}

bool wave_instr_can_speculate(const wave_instr *instr) {
  return wave_opcode_can_speculate(wave_instr_op(instr));
}

bool wave_instr_can_guard(const wave_instr *instr) { return op_has(instr, WAVE_F_GUARD_OK); }

bool wave_instr_is_convergent(const wave_instr *instr) {
  return op_has(instr, WAVE_F_CONVERGENT);
}

static bool same_operand(wave_operand a, wave_operand b) {
  if (a.kind != b.kind || a.value != b.value || a.negated != b.negated)
    return false;
  return a.kind != WAVE_OPERAND_LABEL || strcmp(a.label, b.label) == 0;
}

bool wave_instr_equal(const wave_instr *a, const wave_instr *b) {
  if (wave_instr_op(a) != wave_instr_op(b) || wave_instr_guard(a) != wave_instr_guard(b) ||
      wave_instr_guard_negated(a) != wave_instr_guard_negated(b) ||
      wave_instr_num_operands(a) != wave_instr_num_operands(b))
    return false;
  for (unsigned i = 0; i < wave_instr_num_operands(a); i++)
    if (!same_operand(wave_instr_operand(a, i), wave_instr_operand(b, i)))
      return false;
  return true;
}

/* ---- operand roles ------------------------------------------------------------------------ */

/* Whether the shape starts with a written slot (d, o or q): the destination. */
static bool has_dest_slot(const wave_instr *instr) {
  char kind = wave_opcode_slot_kind(wave_instr_op(instr), 0);
  return kind == 'd' || kind == 'o' || kind == 'q';
}

/* The operand index of source i; past the operands when there is no such source. */
static unsigned src_index(const wave_instr *instr, unsigned i) {
  return (has_dest_slot(instr) ? 1u : 0u) + i;
}

wave_operand wave_instr_dest(const wave_instr *instr) {
  wave_operand none = {0};
  return has_dest_slot(instr) ? wave_instr_operand(instr, 0) : none;
}

unsigned wave_instr_num_srcs(const wave_instr *instr) {
  unsigned first = src_index(instr, 0);
  return wave_instr_num_operands(instr) > first ? wave_instr_num_operands(instr) - first : 0;
}

wave_operand wave_instr_src(const wave_instr *instr, unsigned i) {
  return wave_instr_operand(instr, src_index(instr, i));
}

void wave_instr_other_lane_uses(const wave_instr *instr, wave_regset *uses) {
  *uses = wave_regset_empty();
  /* The flag first: finding the source slot costs more, and few instructions have it. */
  if (!op_has(instr, WAVE_F_OTHER_LANES))
    return;
  wave_operand src = wave_instr_src(instr, 0);
  if (src.kind != WAVE_OPERAND_GPR && src.kind != WAVE_OPERAND_SREG)
    return;
  unsigned width = wave_opcode_slot_width(wave_instr_op(instr), src_index(instr, 0));
  for (unsigned k = 0; k < width && src.value + k <= WAVE_MAX_GPR; k++)
    wave_regset_set(uses, WAVE_REG_GPR(src.value + k));
}

bool wave_instr_set_dest(wave_instr *instr, wave_operand operand) {
  return has_dest_slot(instr) && wave_instr_set_operand(instr, 0, operand);
}

bool wave_instr_set_src(wave_instr *instr, unsigned i, wave_operand operand) {
  return i < wave_instr_num_srcs(instr) &&
         wave_instr_set_operand(instr, src_index(instr, i), operand);
}
