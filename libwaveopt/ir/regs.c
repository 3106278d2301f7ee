/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registers an instruction reads and writes (waveopt/ir.h, waveopt/instr.h): its references
 * read from the opcode's shape, and the sorted lists and sets the analyses ask for. An
 * instruction decodes its operands' registers when it is made or changed
 * (wave_code_instr_decode, ir/code.h), and the lists and sets are read from that; only an
 * instruction naming more registers than its record holds is decoded at every question.
 */
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "waveopt/instr.h"

/* ---- register references ---------------------------------------------------------------- */

static void add_ref(wave_reg_ref *refs, unsigned *n, uint32_t first, unsigned count, bool pred,
                    bool def) {
  refs[*n].first = first;
  refs[*n].count = (uint8_t)count;
  refs[*n].is_pred = pred;
  refs[*n].is_def = def;
  (*n)++;
}

/* The references of op over the slots, its guard's first when it has one, or with defs_only
 * those it writes. */
static unsigned slot_refs(wave_opcode op, int guard, const wave_code_unit *units,
                          unsigned num_operands, wave_reg_ref *refs, bool defs_only) {
  unsigned n = 0;
  if (guard != WAVE_NO_GUARD && !defs_only)
    add_ref(refs, &n, (uint32_t)guard, 1, true, false);
  /* The shape read in place, two characters a slot (kind, width): every analysis asks this of
   * every instruction, and the slot accessors would each find the shape again. Only the first
   * slot is ever written (the opcode table keeps it so, tests/unit/test_core.c), so the writes
   * are found there alone. */
  const char *shape = wave_opcode_table[op].shape;
  unsigned slots = defs_only && num_operands > 1 ? 1 : num_operands;
  for (unsigned i = 0; i < slots && shape[2 * i] && n < WAVE_MAX_REG_REFS; i++) {
    const wave_code_slot *o = &units[i].slot;
    char kind = shape[2 * i];
    unsigned width = (unsigned)(shape[2 * i + 1] - '0');
    bool gpr = o->kind == WAVE_OPERAND_GPR || o->kind == WAVE_OPERAND_SREG;
    if (defs_only && kind != 'd' && kind != 'o' && kind != 'q')
      continue;
    switch (kind) {
    case 'd':
    case 'u':
      if (gpr && !(o->kind == WAVE_OPERAND_SREG && wave_opcode_reads_sreg(op, i)))
        add_ref(refs, &n, o->value, width, false, kind == 'd');
      break;
    case 'o':
      /* r0 as an atomic destination is the encoding of "no return" (docs/language.md "Atomics"). */
      if (gpr && o->value != 0)
        add_ref(refs, &n, o->value, width, false, true);
      break;
    case 'q':
    case 'p':
      if (o->kind == WAVE_OPERAND_PRED)
        add_ref(refs, &n, o->value, 1, true, kind == 'q');
      break;
    default:
      break;
    }
  }
  return n;
}

static unsigned reg_refs(const wave_instr *instr, wave_reg_ref *refs, bool defs_only) {
  return slot_refs(wave_instr_op(instr), wave_instr_guard(instr), wave_code_units(instr),
                   instr->num_operands, refs, defs_only);
}

unsigned wave_instr_reg_refs(const wave_instr *instr, wave_reg_ref *refs) {
  return reg_refs(instr, refs, false);
}

unsigned wave_instr_def_refs(const wave_instr *instr, wave_reg_ref *refs) {
  return reg_refs(instr, refs, true);
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

bool wave_code_decode(wave_opcode op, const wave_code_unit *units, unsigned num_operands,
                      uint16_t *regs, unsigned *num_reads, unsigned *num_writes) {
  *num_reads = *num_writes = 0;
  /* An opcode outside the table, which only IR built by hand holds until the verifier or the
   * printer refuses it, names no registers. */
  if (op >= WAVE_OP_COUNT)
    return true;
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = slot_refs(op, WAVE_NO_GUARD, units, num_operands, refs, false);
  uint16_t writes[WAVE_MAX_INSTR_REGS];
  ref_lists(refs, n, regs, num_reads, writes, num_writes);
  if (*num_reads + *num_writes > WAVE_CODE_REGS || *num_writes > WAVE_CODE_MAX_WRITES)
    return false;
  memcpy(regs + *num_reads, writes, *num_writes * sizeof(*writes));
  return true;
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
    /* A few registers each: copied by hand, where memcpy of a varying size is a call. */
    const uint16_t *regs = wave_code_regs(instr);
    unsigned reads = instr->num_reads, writes = instr->num_writes;
    for (unsigned i = 0; i < reads; i++)
      uses[i] = regs[i];
    for (unsigned i = 0; i < writes; i++)
      defs[i] = regs[reads + i];
    *num_uses = reads;
    *num_defs = writes;
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
    wave_regset_add_list(defs, wave_code_regs(instr) + instr->num_reads, instr->num_writes);
    if (uses && !defs_only) {
      wave_regset_add_list(uses, wave_code_regs(instr), instr->num_reads);
      if (guard_read && guard_reg(instr) >= 0)
        wave_regset_set(uses, (unsigned)guard_reg(instr));
    }
  } else {
    wave_reg_ref refs[WAVE_MAX_REG_REFS];
    unsigned n = defs_only ? wave_instr_def_refs(instr, refs) : wave_instr_reg_refs(instr, refs);
    /* A guard is the first reference (reg_refs); without guard_read it is left out. */
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
