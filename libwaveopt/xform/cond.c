/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conditions as real instructions (xform/xform.h). WAVE has no predicate logic the tools
 * accept, so a combined condition is built one of two ways (docs/language.md "Predicate
 * logic", docs/toolchain.md "Rules our output keeps"):
 *
 *   guarded compares, when the target honours the guards they need:
 *     dst = c           icmp_ne dst, r0, r0 ; @c icmp_eq dst, r0, r0     (false, then true where c)
 *     dst = a and dst   @!a icmp_ne dst, r0, r0                         (false where not a)
 *     dst = a or dst    @a  icmp_eq dst, r0, r0                         (true where a)
 *   the select idiom otherwise, through a 0/1 value in a scratch GPR:
 *     mov_imm z, 0 ; mov_imm o, 1 ; select t, a, o, z ; select t, c, t, z (and) or
 *     select t, c, o, t (or) ; icmp_ne dst, t, z
 *
 * A register compared with itself is equal whatever it holds, so r0 serves every compare. A
 * guard on p0 is never positive (it is no guard, docs/toolchain.md "The @p0 guard") and @!p0
 * only where the target says so: wave_target_honours_guard decides, and the select idiom
 * takes over where it refuses. It also takes over when dst aliases an operand in a way the
 * guarded sequence would overwrite before reading; the select idiom reads both operands
 * before it writes dst.
 */
#include "xform/xform.h"

#include "ir/code.h"
#include "waveopt/instr.h"

static bool guard_ok(const wave_target *t, wave_cond c) {
  return wave_target_honours_guard(t, WAVE_OP_ICMP_EQ, (int)c.pred, c.negated);
}

static bool same(wave_cond a, wave_cond b) {
  return a.pred == b.pred && a.negated == b.negated;
}

/* The guarded form of dst = a OP c: `c` becomes the operand already in dst (copied there
 * first when *copy), `a` the guard. False when aliasing or the target rules it out. */
static bool guarded_form(const wave_target *t, uint32_t dst, wave_cond *a, wave_cond_op op,
                         wave_cond *c, bool *copy) {
  if (a->pred == dst && !a->negated) {
    wave_cond x = *a;
    *a = *c;
    *c = x;
  }
  if (c->pred == dst && !c->negated)
    *copy = false;
  else if (a->pred != dst && c->pred != dst && guard_ok(t, *c))
    *copy = true;
  else
    return false;
  return guard_ok(t, op == WAVE_COND_AND ? wave_cond_not(*a) : *a);
}

unsigned wave_cond_gprs_needed(const wave_target *target, uint32_t dst, wave_cond a,
                               wave_cond_op op, wave_cond c) {
  bool copy;
  if (same(a, c))
    return a.pred == dst ? (a.negated ? 3 : 0) : guard_ok(target, a) ? 0 : 3;
  return guarded_form(target, dst, &a, op, &c, &copy) ? 0 : 3;
}

static wave_instr *compare_r0(wave_builder *b, wave_opcode op, uint32_t dst, const wave_cond *g) {
  wave_instr *in = wave_build(b, op, wave_pred(dst), wave_gpr(0), wave_gpr(0));
  if (in && g)
    wave_instr_set_guard(in, (int)g->pred, g->negated);
  return in;
}

/* The select idiom; the three GPRs are reserved before anything is built. */
static bool emit_select(wave_builder *b, wave_scratch *s, uint32_t dst, wave_cond a,
                        const wave_cond_op *op, wave_cond c) {
  uint32_t z, o, t;
  if (wave_scratch_gprs_left(s) < 3 || !wave_scratch_gpr(s, &z) || !wave_scratch_gpr(s, &o) ||
      !wave_scratch_gpr(s, &t))
    return false;
  wave_operand zero = wave_gpr(z), one = wave_gpr(o), tv = wave_gpr(t);
  bool ok = wave_build(b, WAVE_OP_MOV_IMM, zero, wave_imm(0)) &&
            wave_build(b, WAVE_OP_MOV_IMM, one, wave_imm(1)) &&
            wave_build(b, WAVE_OP_SELECT, tv, wave_pred(a.pred), a.negated ? zero : one,
                       a.negated ? one : zero);
  if (ok && op && *op == WAVE_COND_AND)
    ok = wave_build(b, WAVE_OP_SELECT, tv, wave_pred(c.pred), c.negated ? zero : tv,
                    c.negated ? tv : zero) != NULL;
  else if (ok && op)
    ok = wave_build(b, WAVE_OP_SELECT, tv, wave_pred(c.pred), c.negated ? tv : one,
                    c.negated ? one : tv) != NULL;
  return ok && wave_build(b, WAVE_OP_ICMP_NE, wave_pred(dst), tv, zero);
}

bool wave_cond_emit_copy(wave_builder *b, const wave_target *target, wave_scratch *s,
                         uint32_t dst, wave_cond a) {
  if (a.pred == dst && !a.negated)
    return true;
  if (a.pred != dst && guard_ok(target, a))
    return compare_r0(b, WAVE_OP_ICMP_NE, dst, NULL) && compare_r0(b, WAVE_OP_ICMP_EQ, dst, &a);
  return emit_select(b, s, dst, a, NULL, a);
}

bool wave_cond_emit(wave_builder *b, const wave_target *target, wave_scratch *s, uint32_t dst,
                    wave_cond a, wave_cond_op op, wave_cond c) {
  if (same(a, c))
    return wave_cond_emit_copy(b, target, s, dst, a);
  bool copy;
  if (!guarded_form(target, dst, &a, op, &c, &copy))
    return emit_select(b, s, dst, a, &op, c);
  if (copy && !wave_cond_emit_copy(b, target, s, dst, c))
    return false;
  wave_cond g = op == WAVE_COND_AND ? wave_cond_not(a) : a;
  return compare_r0(b, op == WAVE_COND_AND ? WAVE_OP_ICMP_NE : WAVE_OP_ICMP_EQ, dst, &g) != NULL;
}

/* The exact inverse of a compare: its opcode, and whether it takes the operands the other way
 * round. */
typedef struct inverse {
  uint16_t op, inverse;
  bool swap;
} inverse;

static const inverse *inverse_of(wave_opcode op) {
  static const inverse pairs[] = {
      {WAVE_OP_ICMP_EQ, WAVE_OP_ICMP_NE, false},     {WAVE_OP_ICMP_NE, WAVE_OP_ICMP_EQ, false},
      {WAVE_OP_ICMP_LT, WAVE_OP_ICMP_GE, false},     {WAVE_OP_ICMP_GE, WAVE_OP_ICMP_LT, false},
      {WAVE_OP_ICMP_LE, WAVE_OP_ICMP_GT, false},     {WAVE_OP_ICMP_GT, WAVE_OP_ICMP_LE, false},
      {WAVE_OP_UCMP_LT, WAVE_OP_UCMP_LE, true},      {WAVE_OP_UCMP_LE, WAVE_OP_UCMP_LT, true},
      {WAVE_OP_FCMP_EQ, WAVE_OP_FCMP_NE, false},     {WAVE_OP_FCMP_NE, WAVE_OP_FCMP_EQ, false},
      {WAVE_OP_FCMP_ORD, WAVE_OP_FCMP_UNORD, false}, {WAVE_OP_FCMP_UNORD, WAVE_OP_FCMP_ORD, false},
  };
  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
    if (pairs[i].op == op)
      return &pairs[i];
  return NULL;
}

bool wave_compare_invertible(wave_opcode op) { return inverse_of(op) != NULL; }

bool wave_compare_invert(wave_instr *compare) {
  const inverse *inv = inverse_of(wave_instr_op(compare));
  if (!inv)
    return false;
  wave_instr_set_op(compare, inv->inverse);
  if (inv->swap) {
    wave_operand x = wave_instr_operand(compare, 1);
    wave_instr_set_operand(compare, 1, wave_instr_operand(compare, 2));
    wave_instr_set_operand(compare, 2, x);
  }
  return true;
}
