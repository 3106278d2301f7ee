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
#include "ir/layout.h"
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

/* The registers the references name, as ascending lists; what is past r254 or p3 is left out. */
static void ref_lists(const wave_reg_ref *refs, unsigned n, uint16_t *uses, unsigned *num_uses,
                      uint16_t *defs, unsigned *num_defs) {
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
}

void wave_code_instr_decode(wave_instr *instr) {
  /* An opcode outside the table, which only IR built by hand holds until the verifier or the
   * printer refuses it, names no registers. */
  if (wave_instr_op(instr) >= WAVE_OP_COUNT) {
    instr->num_reads = instr->num_writes = 0;
    return;
  }
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(instr, refs);
  /* The guard is the first reference (ir.c). */
  unsigned skip = wave_instr_guard(instr) != WAVE_NO_GUARD;
  uint16_t reads[WAVE_MAX_INSTR_REGS], writes[WAVE_MAX_INSTR_REGS];
  unsigned num_reads, num_writes;
  ref_lists(refs + skip, n - skip, reads, &num_reads, writes, &num_writes);
  if (num_reads + num_writes > WAVE_CODE_REGS) {
    instr->num_reads = WAVE_CODE_UNDECODED;
    return;
  }
  memcpy(instr->regs, reads, num_reads * sizeof(*reads));
  memcpy(instr->regs + num_reads, writes, num_writes * sizeof(*writes));
  instr->num_reads = (uint8_t)num_reads;
  instr->num_writes = (uint8_t)num_writes;
}

static bool decoded(const wave_instr *instr) { return instr->num_reads != WAVE_CODE_UNDECODED; }

/* The guard's predicate as a regset index, or -1 for none (or one past p3). */
static int guard_reg(const wave_instr *instr) {
  int guard = wave_instr_guard(instr);
  return guard >= 0 && guard < WAVE_NUM_PREDS ? (int)WAVE_REG_PRED(guard) : -1;
}

void wave_instr_reg_lists(const wave_instr *instr, uint16_t *uses, unsigned *num_uses,
                          uint16_t *defs, unsigned *num_defs) {
  if (decoded(instr)) {
    *num_uses = instr->num_reads;
    *num_defs = instr->num_writes;
    memcpy(uses, instr->regs, *num_uses * sizeof(*uses));
    memcpy(defs, instr->regs + *num_uses, *num_defs * sizeof(*defs));
    if (guard_reg(instr) >= 0)
      insert_reg(uses, num_uses, (unsigned)guard_reg(instr));
  } else {
    wave_reg_ref refs[WAVE_MAX_REG_REFS];
    ref_lists(refs, wave_instr_reg_refs(instr, refs), uses, num_uses, defs, num_defs);
  }
  /* Lanes the guard turns off keep the old value: it is an input. */
  if (wave_instr_guard(instr) != WAVE_NO_GUARD)
    for (unsigned i = 0; i < *num_defs; i++)
      insert_reg(uses, num_uses, defs[i]);
}

/* The registers of an instruction's references as sets, from its decoded lists (or, when they
 * did not fit, straight from the references): every analysis and pass asks this of every
 * instruction. defs_only skips the reads. */
static void ref_sets(const wave_instr *instr, wave_regset *uses, wave_regset *defs, bool defs_only,
                     bool guard_read) {
  bool guarded = wave_instr_guard(instr) != WAVE_NO_GUARD;
  *defs = wave_regset_empty();
  if (uses)
    *uses = wave_regset_empty();
  if (decoded(instr)) {
    wave_regset_add_list(defs, instr->regs + instr->num_reads, instr->num_writes);
    if (uses && !defs_only) {
      wave_regset_add_list(uses, instr->regs, instr->num_reads);
      if (guard_read && guard_reg(instr) >= 0)
        wave_regset_set(uses, (unsigned)guard_reg(instr));
    }
  } else {
    wave_reg_ref refs[WAVE_MAX_REG_REFS];
    unsigned n = defs_only ? wave_instr_def_refs(instr, refs) : wave_instr_reg_refs(instr, refs);
    /* A guard is the first reference (ir.c); without guard_read it is left out. */
    for (unsigned i = !defs_only && guarded && !guard_read ? 1 : 0; i < n; i++) {
      wave_regset *into = refs[i].is_def ? defs : uses;
      unsigned base = refs[i].is_pred ? WAVE_REG_PRED(0) : WAVE_REG_GPR(0);
      uint64_t limit = refs[i].is_pred ? WAVE_NUM_PREDS : WAVE_MAX_GPR + 1;
      for (unsigned k = 0; k < refs[i].count && (uint64_t)refs[i].first + k < limit; k++)
        wave_regset_set(into, base + refs[i].first + k);
    }
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
