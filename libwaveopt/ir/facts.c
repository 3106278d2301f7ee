/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Instruction facts and operand roles (waveopt/instr.h), read from the opcode table: effect
 * flags for what may move or be guarded, shapes for which slot is the destination and how many
 * registers each slot covers. Nothing here names an opcode, so the table stays the one place
 * that says what an instruction does.
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

/* ---- registers ---------------------------------------------------------------------------- */

/* Puts reg into the ascending list regs[0..*n) unless it is there. */
static void insert_reg(uint16_t *regs, unsigned *n, unsigned reg) {
  unsigned i = *n;
  while (i > 0 && regs[i - 1] > reg)
    i--;
  if (i > 0 && regs[i - 1] == reg)
    return;
  for (unsigned j = (*n)++; j > i; j--)
    regs[j] = regs[j - 1];
  regs[i] = (uint16_t)reg;
}

void wave_instr_reg_lists(const wave_instr *instr, uint16_t *uses, unsigned *num_uses,
                          uint16_t *defs, unsigned *num_defs) {
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(instr, refs);
  *num_uses = *num_defs = 0;
  for (unsigned i = 0; i < n; i++) {
    for (unsigned k = 0; k < refs[i].count; k++) {
      uint64_t r = (uint64_t)refs[i].first + k;
      if (refs[i].is_pred ? r >= WAVE_NUM_PREDS : r > WAVE_MAX_GPR)
        continue;
      unsigned reg = refs[i].is_pred ? WAVE_REG_PRED(r) : WAVE_REG_GPR(r);
      if (refs[i].is_def)
        insert_reg(defs, num_defs, reg);
      else
        insert_reg(uses, num_uses, reg);
    }
  }
  /* Lanes the guard turns off keep the old value: it is an input. */
  if (wave_instr_guard(instr) != WAVE_NO_GUARD)
    for (unsigned i = 0; i < *num_defs; i++)
      insert_reg(uses, num_uses, defs[i]);
}

/* The registers of an instruction's references as sets, straight from the references: every
 * analysis and pass asks this of every instruction, and the sorted lists of
 * wave_instr_reg_lists would only be turned into sets again. defs_only skips the reads. */
static void ref_sets(const wave_instr *instr, wave_regset *uses, wave_regset *defs, bool defs_only,
                     bool guard_read) {
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = defs_only ? wave_instr_def_refs(instr, refs) : wave_instr_reg_refs(instr, refs);
  bool guarded = wave_instr_guard(instr) != WAVE_NO_GUARD;
  *defs = wave_regset_empty();
  if (uses)
    *uses = wave_regset_empty();
  /* A guard is the first reference (ir.c); without guard_read it and what it makes an input
   * are left out. */
  for (unsigned i = !defs_only && guarded && !guard_read ? 1 : 0; i < n; i++) {
    wave_regset *into = refs[i].is_def ? defs : uses;
    unsigned base = refs[i].is_pred ? WAVE_REG_PRED(0) : WAVE_REG_GPR(0);
    uint64_t limit = refs[i].is_pred ? WAVE_NUM_PREDS : WAVE_MAX_GPR + 1;
    for (unsigned k = 0; k < refs[i].count && (uint64_t)refs[i].first + k < limit; k++)
      wave_regset_set(into, base + refs[i].first + k);
  }
  /* Lanes the guard turns off keep the old value: it is an input. */
  if (uses && guard_read && guarded)
    *uses = wave_regset_union(*uses, *defs);
}

void wave_instr_uses_defs(const wave_instr *instr, wave_regset *uses, wave_regset *defs) {
  ref_sets(instr, uses, defs, false, true);
}

void wave_instr_uses(const wave_instr *instr, wave_regset *uses) {
  wave_regset defs;
  ref_sets(instr, uses, &defs, false, true);
}

void wave_instr_operand_reads(const wave_instr *instr, wave_regset *uses) {
  wave_regset defs;
  ref_sets(instr, uses, &defs, false, false);
}

void wave_instr_defs(const wave_instr *instr, wave_regset *defs) {
  ref_sets(instr, NULL, defs, true, true);
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

bool wave_instr_reads_reg(const wave_instr *instr, unsigned reg) {
  wave_regset uses;
  wave_instr_uses(instr, &uses);
  return wave_regset_test(uses, reg);
}

bool wave_instr_writes_reg(const wave_instr *instr, unsigned reg) {
  wave_regset defs;
  wave_instr_defs(instr, &defs);
  return wave_regset_test(defs, reg);
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
