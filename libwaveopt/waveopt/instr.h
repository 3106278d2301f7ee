/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a pass asks of one instruction, answered from the opcode table alone (effect flags and
 * operand shapes): whether it may run where the original program did not run it, whether a
 * guard on it survives every downstream tool, whether its result depends on which lanes are
 * active, which registers it reads and writes, and its operands by role. A new opcode needs
 * its line in opcodes.def and nothing here.
 *
 * Operand accessors keep passes away from instr->operands[]. The IR keeps one operand per slot
 * of the opcode's shape (an omitted atomic destination is an explicit empty slot), so "the
 * destination" and "the i-th source" are questions about the shape, answered once, here.
 */
#ifndef WAVEOPT_INSTR_H
#define WAVEOPT_INSTR_H

#include "waveopt/api.h"

#include <stdbool.h>

#include "waveopt/ir.h"
#include "waveopt/regset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- facts -------------------------------------------------------------------------------- */

/* Pure and unable to trap: executing it in lanes or on paths where the program did not is
 * unobservable once its destination is dead there. Loads, stores and atomics never qualify. */
WAVE_API bool wave_instr_can_speculate(const wave_instr *instr);

/* A @p1..@p3 guard on it is honoured by every downstream tool (ALU, compares, select, moves,
 * halt); on anything else some tool drops or rejects the guard. */
WAVE_API bool wave_instr_can_guard(const wave_instr *instr);

/* Its result or effect depends on the set of active lanes: it must not move across control
 * flow, into or out of a conditional region, nor gain or lose a guard. */
WAVE_API bool wave_instr_is_convergent(const wave_instr *instr);

/* The registers it reads: register operands with the implicit second (and third and fourth)
 * registers of pairs and quads, the guard's predicate, and, for a guarded instruction, its
 * destinations too: lanes the guard turns off keep the old value, so the old value is an
 * input. Registers that cannot exist (r255, p4) are left out; the verifier reports them. */
WAVE_API void wave_instr_uses(const wave_instr *instr, wave_regset *uses);
/* What its operands read: wave_instr_uses without the guard's predicate and without the
 * destinations a guard makes inputs. */
WAVE_API void wave_instr_operand_reads(const wave_instr *instr, wave_regset *uses);
/* The registers it writes, pairs and quads expanded; an atomic whose destination is r0 or
 * omitted writes none. */
WAVE_API void wave_instr_defs(const wave_instr *instr, wave_regset *defs);
/* Both at the cost of one: for a caller that needs the two sets of every instruction. */
WAVE_API void wave_instr_uses_defs(const wave_instr *instr, wave_regset *uses,
                                   wave_regset *defs);

/* The registers it reads in lanes other than the one it computes for, inactive lanes included:
 * a shuffle's or broadcast's value source (docs/language.md "Wave operations"). These reads
 * lie on no path of the lane that owns the register, so per-lane reasoning misses them. */
WAVE_API void wave_instr_other_lane_uses(const wave_instr *instr, wave_regset *uses);
/* Whether a and b do the same: same opcode, guard and operands. Cache hints, half-register
 * suffixes and how immediates were spelled change nothing (docs/language.md "Cache hints",
 * "Registers", "Numbers"). */
WAVE_API bool wave_instr_equal(const wave_instr *a, const wave_instr *b);
/* Membership in wave_instr_uses / wave_instr_defs; reg is WAVE_REG_GPR(r) or WAVE_REG_PRED(p). */
WAVE_API bool wave_instr_reads_reg(const wave_instr *instr, unsigned reg);
WAVE_API bool wave_instr_writes_reg(const wave_instr *instr, unsigned reg);

/* ---- the instruction itself --------------------------------------------------------------- */

WAVE_API wave_opcode wave_instr_op(const wave_instr *instr);
/* Changes the opcode in place; the operands must already fit the new opcode's shape (the
 * validator checks that). */
WAVE_API void wave_instr_set_op(wave_instr *instr, wave_opcode op);
/* WAVE_NO_GUARD or the guarding predicate 0..3, and whether the guard is negated (`@!p1`). */
WAVE_API int wave_instr_guard(const wave_instr *instr);
WAVE_API bool wave_instr_guard_negated(const wave_instr *instr);
/* pred is WAVE_NO_GUARD (negated ignored) or 0..3. */
WAVE_API void wave_instr_set_guard(wave_instr *instr, int pred, bool negated);
WAVE_API wave_cache_hint wave_instr_cache_hint(const wave_instr *instr);
WAVE_API void wave_instr_set_cache_hint(wave_instr *instr, wave_cache_hint hint);

/* The instructions before and after it in its block, NULL at either end (and when detached). */
WAVE_API wave_instr *wave_instr_prev(const wave_instr *instr);
WAVE_API wave_instr *wave_instr_next(const wave_instr *instr);

/* Where it came from and the comments that travel with it, by value: an instruction keeps its
 * comments apart from its location, and most have none. wave_instr_set_origin replaces all
 * three (a column past 65535 is kept as 0, not known); false, with nothing changed, when memory
 * for the comments or a file other than the module's runs out. */
WAVE_API wave_src wave_instr_origin(const wave_instr *instr);
WAVE_API wave_loc wave_instr_loc(const wave_instr *instr);
WAVE_API bool wave_instr_set_origin(wave_instr *instr, const wave_src *origin);

/* ---- operands ----------------------------------------------------------------------------- */

WAVE_API unsigned wave_instr_num_operands(const wave_instr *instr);
/* Operand i in source order, by value; an empty operand (kind WAVE_OPERAND_NONE, value 0) past
 * the last. A value, not a pointer into the instruction, so that how operands are stored is
 * the library's business. */
WAVE_API wave_operand wave_instr_operand(const wave_instr *instr, unsigned i);
/* Makes it n operands long, for a new opcode of another shape: slots past the old last one are
 * empty (WAVE_OPERAND_NONE) until set. False, with nothing changed, beyond WAVE_MAX_OPERANDS,
 * or when memory runs out (more operands than the instruction was made with need room of
 * their own). */
WAVE_API bool wave_instr_set_num_operands(wave_instr *instr, unsigned n);
/* Replaces operand i; false, with nothing changed, past the last one, for a `half` or
 * `imm_form` outside its enum, or when memory for a label runs out. A column past 65535 is
 * kept as 0 (not known): diagnostics about the operand then point at its instruction. */
WAVE_API bool wave_instr_set_operand(wave_instr *instr, unsigned i, wave_operand operand);

/* The register the instruction's shape writes first (rd, or pd of a compare), or an empty
 * operand (WAVE_OPERAND_NONE) when the shape has none or an atomic's destination is omitted. */
WAVE_API wave_operand wave_instr_dest(const wave_instr *instr);
/* The operands after the destination, in source order (a store's address, then its value);
 * an empty operand past the last. */
WAVE_API unsigned wave_instr_num_srcs(const wave_instr *instr);
WAVE_API wave_operand wave_instr_src(const wave_instr *instr, unsigned i);
/* Replace the destination or source i; false (nothing changed) when there is no such slot. */
WAVE_API bool wave_instr_set_dest(wave_instr *instr, wave_operand operand);
WAVE_API bool wave_instr_set_src(wave_instr *instr, unsigned i, wave_operand operand);

#ifdef __cplusplus
}
#endif

#endif
