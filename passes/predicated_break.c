/* SPDX-License-Identifier: Apache-2.0 */
/*
 * predicated-break: takes breaks and continues out of the ifs around them, and turns an if that
 * ends a loop body into a continue, so that each such if stops costing a stack entry.
 *
 *   loop                         loop
 *     if p1                        @!p1 icmp_ne p2, r0, r0      p2 = p1 and p2 (p2 dead after)
 *       break p2           ->      break p2
 *     endif                        ...
 *     ...
 *
 *   if p1                        @p1 iadd r4, r4, r5         S and T under the if's guard
 *     iadd r4, r4, r5      ->    icmp_ne p3, r0, r0          p3 = p1 and p2 (p2 live after,
 *     break p2                   @p2 icmp_eq p3, r0, r0      p3 free)
 *     iadd r6, r6, r5            @!p1 icmp_ne p3, r0, r0
 *   endif                        break p3
 *                                @p1 iadd r6, r6, r5
 *
 *   if p1                        (the compare that set p1 is inverted: icmp_lt <-> icmp_ge)
 *   else                   ->    ... as above with the inverted p1
 *     continue p2
 *   endif
 *
 *   loop                         loop                        where the target runs continue
 *     ...                          ...                       (spec, wave-ptx)
 *     if p1                ->      icmp_ne p3, r0, r0
 *       S                          @!p1 icmp_eq p3, r0, r0   p3 = !p1
 *     endif                        continue p3
 *   endloop                        S
 *                                endloop
 *
 * Why the first form is right (docs/language.md "Loops", "If and else", "Guards"): a break or
 * continue acts on the innermost loop from any depth of ifs, and `break pB` in the then-side
 * takes the lanes A and pA and pB, which is what `break pD` with pD = pA and pB takes where the
 * if stood, since S has run before it in the same lanes: `@pA I` executes exactly as I with
 * the active mask A and pA. The code T after the break ran in the then-side's lanes that did
 * not break, A and pA and not pB, which are the lanes of A left after `break pD` that have pA:
 * `@pA T` runs there. The other lanes go on after the if as before; the then-side ran before
 * an (empty) else-side, so nothing changes order. The condition pD is built after S, from real
 * instructions only (xform/xform.h: guarded compares or the select idiom of docs/language.md
 * "Predicate logic"), so no predicate logic and no `!` operand is left (docs/toolchain.md
 * "Rules our output keeps" 3). When S or T writes pA, or the target cannot guard with pA (p0,
 * which is no guard: toolchain.md "The @p0 guard"; @!p0 on portable), pA is first copied into
 * a free predicate that guards S and T and enters pD. The else-side is the same with !pA, or
 * with pA itself when the compare defining pA can be inverted exactly (wave_compare_invert:
 * icmp lt <-> ge, le <-> gt, eq <-> ne; ucmp by swapping operands; fcmp only eq <-> ne and
 * ord <-> unord, since fcmp_lt and its swap are both false on NaN) and no lane reads pA later.
 *
 * Where the if sits directly in the loop body, the break now does too: the upstream emulator
 * runs such a break correctly and a break nested in an if wrongly (docs/toolchain.md "Break
 * inside an if"), so on the portable target this is a repair as well as a saving. A continue
 * moved out of its if is not a new continue (toolchain.md "Rules our output keeps" 4 forbids
 * introducing one into code that had none): the output holds exactly the continues the input
 * held, each still reported by legalize where the target does not run it, so this form is
 * done on every target; the upstream emulator runs a continue wrongly in or out of an if.
 *
 * Why the trailing form is right: at the endif lanes with !pA rejoin only to reach endloop,
 * which sends every lane that has not broken or ended back to the top; `continue p` sends the
 * lanes with p to that same place at once, and the lanes with pA run S as before, with the
 * same active mask (A and pA), in the same order relative to everything else (S is still the
 * last thing in the body). So convergent code in S keeps its lanes exactly (docs/language.md
 * "Effect classes"); a barrier there is divergent after the rewrite exactly when it was before,
 * and a wave operation there is where the wave is converged exactly when it was before
 * (docs/toolchain.md "Wave operations under divergence"). S is moved whole, its breaks,
 * continues, halts and ifs included. It introduces a continue, so it is done only where the
 * target runs continue (target->continue_ok) and the option predicated-break-trailing is on.
 *
 * Scratch and liveness: a predicate written in place (pB, or pA in the then-side form without
 * T, which reads pA) must be dead after the if for the lanes that go on, and keeps its value
 * (true) in the lanes that break or continue (pB also in T's lanes: false); otherwise pD is a
 * free predicate: dead before and after the if and not mentioned by the side, hence also dead
 * where the lanes that break or continue go (they reach it through the side). The trailing form
 * writes its scratch only before its continue, so its scratch must be dead before and after
 * the if and at the start of S, and nothing more: S may mention it. An inverted compare needs
 * its predicate dead after the if and at the start of the side that stays (wave_liveness
 * covers the lanes that break out of that side). The new code reads pA and pB at the if, where
 * the old code read them; the guarded compares that build pD read pB also in lanes without pA,
 * whose pD is false whatever pB holds there, so no value that matters becomes live anywhere the
 * result computed before the first rewrite calls dead (the stale-liveness rule of
 * xform/xform.h), and one liveness result serves the whole run, fetched at the first if of
 * either shape.
 *
 * It refuses, with a missed remark naming the if and the reason:
 *   - both sides hold code, control flow (an if or loop) sits beside the break, or the side
 *     holds a second break or continue;
 *   - S or T holds an instruction that may not gain a guard: convergent (wave ops, barrier,
 *     MMA, call: "Effect classes" forbids a new guard on them), halt or return, one already
 *     guarded, or one the target drops a guard from (memory and atomics on portable:
 *     docs/toolchain.md "Guards dropped by wave-ptx");
 *   - no predicate is free for pD or for the copy of pA, or the select idiom needs more
 *     scratch GPRs than are free within -max-registers (asked before anything is emitted);
 *   - the trailing form on a target without continue_ok.
 * A compare that cannot be inverted where a negation was needed (fcmp_lt) gets a missed remark
 * too; the negation is then computed.
 *
 * Order: ifs innermost first, so that an if left holding only a break by the rewrite of one
 * inside it is seen afterwards; when the trailing form leaves another if at the end of the loop
 * body, that if is queued once more. Each if is looked at once or twice, each scan covers only
 * its sides' top level and the block before it (up to its first control instruction): linear,
 * and no recursion, so 100 000-deep nests are fine.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "support/alloc.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"
#include "xform/predicated_break.h"
#include "xform/xform.h"

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->mnemonic;
}

static bool is_exit(const wave_instr *in) {
  return wave_instr_op(in) == WAVE_OP_BREAK || wave_instr_op(in) == WAVE_OP_CONTINUE;
}

static wave_cond operand_cond(wave_operand o) { return wave_cond_of(o.value, o.negated != 0); }

static bool same_cond(wave_cond a, wave_cond b) {
  return a.pred == b.pred && a.negated == b.negated;
}

static wave_exit_if_status refuse(wave_exit_if_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static wave_exit_if_status refuse(wave_exit_if_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->what, sizeof(r->what), fmt, ap);
  va_end(ap);
  return r->status = WAVE_EXIT_IF_REFUSED;
}

static wave_exit_if_status no_memory(wave_exit_if_result *r) {
  return r->status = WAVE_EXIT_IF_NO_MEMORY;
}

static bool live(const wave_exit_if_env *env, wave_cursor at, uint32_t pred) {
  return wave_regset_test(wave_liveness_at(env->liveness, at), WAVE_REG_PRED(pred));
}

void wave_exit_if_env_init(wave_exit_if_env *env, const wave_target *target,
                           const wave_liveness *liveness, wave_regset kernel_taken,
                           uint32_t max_registers) {
  env->target = target;
  env->liveness = liveness;
  env->max_registers = max_registers;
  /* A call shares every register with its subroutine; legalize keeps a predicate for the
   * negated operands it lowers (wave_xform_kernel_taken). */
  env->reserved = kernel_taken;
}

/* ---- negating at the source ---------------------------------------------------------------- */

/* The compare that sets `pred` for every lane reaching `node`: the last writer of pred in the
 * block right before node, unguarded, with nothing after it that reads pred or changes the
 * active mask (a lane leaving in between could read the compare's value elsewhere). */
static wave_instr *defining_compare(const wave_node *node, uint32_t pred) {
  const wave_node *prev = wave_node_prev(node);
  if (!prev || wave_node_kind_of(prev) != WAVE_NODE_BLOCK)
    return NULL;
  unsigned reg = WAVE_REG_PRED(pred);
  for (wave_instr *in = wave_block_last(prev); in; in = wave_instr_prev(in)) {
    if (wave_instr_writes_reg(in, reg))
      return wave_instr_guard(in) == WAVE_NO_GUARD &&
                     wave_opcode_get(wave_instr_op(in))->category == WAVE_CAT_CMP
                 ? in
                 : NULL;
    if (wave_instr_reads_reg(in, reg) || wave_opcode_has(wave_instr_op(in), WAVE_F_CONTROL))
      return NULL;
  }
  return NULL;
}

/* The compare to invert so that the if's predicate holds its own negation, or NULL. No lane
 * may read the predicate after the if: neither those that run `side` (dead at its start,
 * which covers where its breaks and continues lead) nor those that skip it (dead after the
 * if). A compare without an exact inverse is named in the result's note. */
static wave_instr *compare_to_invert(const wave_exit_if_env *env, wave_node *if_node,
                                     wave_node_list *side, uint32_t pred,
                                     wave_exit_if_result *r) {
  wave_instr *cmp = defining_compare(if_node, pred);
  if (!cmp || live(env, wave_cursor_after_node(if_node), pred) ||
      live(env, wave_cursor_list_start(side), pred))
    return NULL;
  if (wave_compare_invertible(wave_instr_op(cmp)))
    return cmp;
  bool ordered = wave_opcode_get(wave_instr_op(cmp))->mnemonic[0] == 'f';
  snprintf(r->note, sizeof(r->note),
           "%s at %u:%u not inverted: %s; the negation is computed "
           "instead",
           mnemonic(cmp), wave_instr_loc(cmp).line, wave_instr_loc(cmp).col,
           ordered ? "it has no exact negation (it and its swap are both false on NaN)"
                   : "the assembler has no compare that is its exact negation");
  r->note_at = cmp;
  return NULL;
}

static void cond_text(char *buf, size_t size, wave_cond c) {
  snprintf(buf, size, "%sp%u", c.negated ? "!" : "", c.pred);
}

/* ---- if pA { S; break pB } ----------------------------------------------------------------- */

/* The first break or continue directly in `list` (not nested deeper). */
static wave_instr *first_exit(const wave_node_list *list) {
  wave_foreach_node(n, list) {
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      continue;
    wave_foreach_instr(in, n) {
      if (is_exit(in))
        return in;
    }
  }
  return NULL;
}

static const wave_node *first_region_node(const wave_node_list *list) {
  wave_foreach_node(n, list) {
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      return n;
  }
  return NULL;
}

/* Whether the code of the exit's block other than the exit (S before it, T after it) may run
 * under a guard where the if stood, on this target, whatever the guard's predicate (which is
 * checked apart: p0 can be copied into another one). Collects what the block mentions and
 * whether S or T writes pA. */
static wave_exit_if_status check_body(const wave_exit_if_env *env, wave_exit_if_result *r,
                                      const wave_instr *exit, const char *side, uint32_t pred,
                                      wave_regset *mentioned, bool *writes_pred) {
  for (const wave_instr *in = wave_block_first(wave_instr_node(exit)); in;
       in = wave_instr_next(in)) {
    wave_regset uses, defs;
    wave_instr_uses(in, &uses);
    wave_instr_defs(in, &defs);
    *mentioned = wave_regset_union(*mentioned, wave_regset_union(uses, defs));
    if (in == exit)
      continue;
    wave_loc loc = wave_instr_loc(in);
    if (is_exit(in))
      return refuse(r, "its %s-side holds a second %s at %u:%u", side, mnemonic(in), loc.line,
                    loc.col);
    if (wave_instr_guard(in) != WAVE_NO_GUARD)
      return refuse(r, "%s at %u:%u is guarded already", mnemonic(in), loc.line, loc.col);
    if (wave_instr_is_convergent(in))
      return refuse(r, "%s at %u:%u is convergent and may not gain a guard", mnemonic(in),
                    loc.line, loc.col);
    if (wave_opcode_has(wave_instr_op(in), WAVE_F_EXIT))
      return refuse(r, "%s at %u:%u ends lanes", mnemonic(in), loc.line, loc.col);
    if (!wave_target_honours_guard(env->target, wave_instr_op(in), 1, false))
      return refuse(r, "%s at %u:%u cannot take a guard on %s", mnemonic(in), loc.line, loc.col,
                    env->target->name);
    *writes_pred = *writes_pred || wave_regset_test(defs, WAVE_REG_PRED(pred));
  }
  return WAVE_EXIT_IF_DONE;
}

/* Whether every instruction of the block but the exit takes the guard on this target. */
static bool guards_honoured(const wave_exit_if_env *env, const wave_instr *exit, wave_cond g) {
  for (const wave_instr *in = wave_block_first(wave_instr_node(exit)); in;
       in = wave_instr_next(in)) {
    if (in != exit &&
        !wave_target_honours_guard(env->target, wave_instr_op(in), (int)g.pred, g.negated))
      return false;
  }
  return true;
}

/* The predicate pD = a and c goes into: one of the operands written in place when that is
 * safe (see the opening comment; a is read again by T when there is code after the exit),
 * else a free one; the first that needs no scratch GPR wins. False when there is none. */
static bool pick_destination(const wave_exit_if_env *env, wave_node *if_node, wave_scratch *s,
                             wave_cond a, bool a_in_place_ok, wave_cond c, uint32_t *dst,
                             unsigned *gprs) {
  uint32_t cand[3];
  unsigned n = 0;
  wave_cursor after = wave_cursor_after_node(if_node);
  if (same_cond(a, c) && !a.negated) {
    cand[n++] = a.pred;
  } else if (a.pred != c.pred) {
    if (!c.negated && !live(env, after, c.pred))
      cand[n++] = c.pred;
    if (!a.negated && a_in_place_ok)
      cand[n++] = a.pred;
  }
  uint32_t free_pred;
  if (wave_scratch_pred(s, &free_pred))
    cand[n++] = free_pred;
  for (unsigned i = 0; i < n; i++) {
    unsigned need = wave_cond_gprs_needed(env->target, cand[i], a, WAVE_COND_AND, c);
    if (i == 0 || need < *gprs) {
      *dst = cand[i];
      *gprs = need;
    }
  }
  return n > 0;
}

wave_exit_if_status wave_exit_if_hoist(const wave_exit_if_env *env, wave_node *if_node,
                                       wave_exit_if_result *r) {
  memset(r, 0, sizeof(*r));
  r->status = WAVE_EXIT_IF_NOT_SHAPE;
  if (wave_node_kind_of(if_node) != WAVE_NODE_IF || !wave_node_region(if_node))
    return r->status;
  wave_node_list *then_list = wave_if_then(if_node), *else_list = wave_if_else(if_node);
  wave_instr *exit = first_exit(then_list);
  if (!exit)
    exit = first_exit(else_list);
  if (!exit)
    return r->status;
  r->exit = exit;
  bool in_then = wave_node_list_of(wave_instr_node(exit)) == then_list;
  wave_node_list *side = in_then ? then_list : else_list;
  const char *side_name = in_then ? "then" : "else";
  wave_loc xloc = wave_instr_loc(exit);
  if (!wave_node_list_is_empty(in_then ? else_list : then_list))
    return refuse(r, "both sides hold code (the %s at %u:%u is in the %s-side)", mnemonic(exit),
                  xloc.line, xloc.col, side_name);
  const wave_node *region = first_region_node(side);
  if (region) {
    wave_loc rloc = wave_node_kind_of(region) == WAVE_NODE_IF
                        ? wave_node_origin(region, WAVE_LINE_IF).loc
                        : wave_node_origin(region, WAVE_LINE_LOOP).loc;
    return refuse(r, "its %s-side holds %s at %u:%u besides the %s at %u:%u", side_name,
                  wave_node_kind_of(region) == WAVE_NODE_IF ? "an if" : "a loop", rloc.line,
                  rloc.col, mnemonic(exit), xloc.line, xloc.col);
  }

  wave_cond g = operand_cond(wave_if_cond(if_node));
  if (!in_then)
    g = wave_cond_not(g);
  wave_regset mentioned = wave_regset_empty();
  wave_regset_set(&mentioned, WAVE_REG_PRED(g.pred));
  bool writes_pred = false;
  if (check_body(env, r, exit, side_name, g.pred, &mentioned, &writes_pred) != WAVE_EXIT_IF_DONE)
    return r->status;

  wave_instr *invert = NULL;
  if (g.negated && !writes_pred) {
    invert = compare_to_invert(env, if_node, side, g.pred, r);
    g.negated = invert == NULL;
  }

  wave_kernel *kernel = wave_node_region(if_node)->kernel;
  wave_regset taken =
      wave_regset_union(wave_liveness_at(env->liveness, wave_cursor_before_node(if_node)),
                        wave_liveness_at(env->liveness, wave_cursor_after_node(if_node)));
  taken = wave_regset_union(taken, wave_regset_union(mentioned, env->reserved));
  wave_scratch s;
  wave_scratch_init(&s, kernel, taken, env->max_registers);

  /* The guard and pD read a copy of the if's condition, taken first, when S or T writes pA or
   * when the target cannot guard with pA itself (p0, or @!p0 on portable). */
  wave_cond guard = g;
  unsigned copy_gprs = 0;
  bool copy = writes_pred || !guards_honoured(env, exit, g);
  if (copy) {
    uint32_t saved;
    if (!wave_scratch_pred(&s, &saved)) {
      char gt[8];
      cond_text(gt, sizeof(gt), g);
      if (writes_pred)
        return refuse(r, "its %s-side writes p%u and no predicate is free to keep the if's "
                         "condition",
                      side_name, g.pred);
      return refuse(r, "its %s-side would need the guard @%s, which %s, and no predicate is "
                       "free to copy it into",
                    side_name, gt,
                    g.negated ? "the target drops" : "is no guard");
    }
    guard = wave_cond_of(saved, false);
    copy_gprs = wave_cond_gprs_needed(env->target, saved, g, WAVE_COND_AND, g);
    if (!guards_honoured(env, exit, guard))
      return refuse(r, "no predicate the target guards with is free to copy the if's "
                       "condition into");
  }

  wave_cond c = operand_cond(wave_instr_operand(exit, 0));
  if (copy && !writes_pred && same_cond(c, g))
    c = guard;   /* the copy holds the very test the exit makes */
  uint32_t dst = 0;
  unsigned gprs = 0;
  bool a_in_place_ok =
      !wave_instr_next(exit) && (copy || !live(env, wave_cursor_after_node(if_node), guard.pred));
  if (!pick_destination(env, if_node, &s, guard, a_in_place_ok, c, &dst, &gprs))
    return refuse(r, "no predicate is free for the %s's condition: p%u and p%u stay live after "
                     "the if and the others are taken",
                  mnemonic(exit), guard.pred, c.pred);
  unsigned left = wave_scratch_gprs_left(&s);
  if (copy_gprs + gprs > left)
    return refuse(r, "building its condition needs %u scratch registers and %u are free "
                     "within %u (-max-registers)",
                  copy_gprs + gprs, left, s.limit);

  wave_module *module = wave_kernel_module(kernel);
  wave_instr *s_last = wave_instr_prev(exit), *t_first = wave_instr_next(exit);
  wave_instr *s_first = s_last ? wave_block_first(wave_instr_node(exit)) : NULL;
  if (copy) {
    wave_builder b = wave_builder_at(
        module, wave_cursor_before_instr(wave_block_first(wave_instr_node(exit))), xloc);
    if (!wave_cond_emit_copy(&b, env->target, &s, guard.pred, g))
      return no_memory(r);
  }
  wave_builder b = wave_builder_at(module, wave_cursor_before_instr(exit), xloc);
  if (!wave_cond_emit(&b, env->target, &s, dst, guard, WAVE_COND_AND, c))
    return no_memory(r);
  for (wave_instr *in = s_first; in; in = in == s_last ? NULL : wave_instr_next(in))
    wave_instr_set_guard(in, (int)guard.pred, guard.negated);
  for (wave_instr *in = t_first; in; in = wave_instr_next(in))
    wave_instr_set_guard(in, (int)guard.pred, guard.negated);
  wave_instr_set_operand(exit, 0, wave_pred(dst));
  if (invert)
    wave_compare_invert(invert);
  wave_node_replace(if_node, side);

  char ga[8], cc[8];
  cond_text(ga, sizeof(ga), guard);
  cond_text(cc, sizeof(cc), c);
  int n = same_cond(guard, c) && dst == guard.pred
              ? snprintf(r->what, sizeof(r->what), "p%u", dst)
              : snprintf(r->what, sizeof(r->what), "p%u = %s and %s", dst, ga, cc);
  if (copy && n > 0 && (size_t)n < sizeof(r->what)) {
    cond_text(cc, sizeof(cc), g);
    snprintf(r->what + n, sizeof(r->what) - (size_t)n, ", p%u holding %s from before the %s-side",
             guard.pred, cc, side_name);
  }
  r->inverted = invert;
  return r->status = WAVE_EXIT_IF_DONE;
}

/* ---- loop { ...; if pA { S } } ------------------------------------------------------------- */

wave_exit_if_status wave_trailing_if_continue(const wave_exit_if_env *env, wave_node *if_node,
                                              wave_exit_if_result *r) {
  memset(r, 0, sizeof(*r));
  r->status = WAVE_EXIT_IF_NOT_SHAPE;
  const wave_node *loop =
      wave_node_kind_of(if_node) == WAVE_NODE_IF ? wave_node_parent(if_node) : NULL;
  if (!loop || wave_node_kind_of(loop) != WAVE_NODE_LOOP || wave_node_next(if_node))
    return r->status;
  wave_node_list *then_list = wave_if_then(if_node), *else_list = wave_if_else(if_node);
  bool then_empty = wave_node_list_is_empty(then_list);
  if (then_empty == wave_node_list_is_empty(else_list))
    return r->status;
  if (!env->target->continue_ok)
    return refuse(r, "it would need a continue, which %s does not run", env->target->name);
  wave_node_list *side = then_empty ? else_list : then_list;
  wave_cond g = operand_cond(wave_if_cond(if_node));
  wave_cond cont = then_empty ? g : wave_cond_not(g);

  wave_cursor after = wave_cursor_after_node(if_node), start = wave_cursor_list_start(side);
  wave_regset taken =
      wave_regset_union(wave_liveness_at(env->liveness, wave_cursor_before_node(if_node)),
                        wave_liveness_at(env->liveness, after));
  taken = wave_regset_union(taken, wave_liveness_at(env->liveness, start));
  taken = wave_regset_union(taken, env->reserved);
  wave_regset_set(&taken, WAVE_REG_PRED(g.pred));
  wave_kernel *kernel = wave_node_region(if_node)->kernel;
  wave_scratch s;
  wave_scratch_init(&s, kernel, taken, env->max_registers);

  wave_instr *invert = NULL;
  bool copy = cont.negated;
  uint32_t dst = cont.pred;
  if (copy)
    invert = compare_to_invert(env, if_node, side, cont.pred, r);
  if (invert) {
    copy = false;
  } else if (copy && !wave_scratch_pred(&s, &dst)) {
    /* No free predicate: pA itself may take its negation where no lane reads it later. */
    if (live(env, after, cont.pred) || live(env, start, cont.pred))
      return refuse(r, "no predicate is free for its negated condition");
    dst = cont.pred;
  }
  unsigned gprs = copy ? wave_cond_gprs_needed(env->target, dst, cont, WAVE_COND_AND, cont) : 0;
  unsigned left = wave_scratch_gprs_left(&s);
  if (gprs > left)
    return refuse(r, "negating its condition needs %u scratch registers and %u are free within "
                     "%u (-max-registers)",
                  gprs, left, s.limit);

  wave_builder b = wave_builder_at(wave_kernel_module(kernel), wave_cursor_before_node(if_node),
                                   wave_node_origin(if_node, WAVE_LINE_IF).loc);
  if (copy && !wave_cond_emit_copy(&b, env->target, &s, dst, cont))
    return no_memory(r);
  wave_instr *cont_instr = wave_build(&b, WAVE_OP_CONTINUE, wave_pred(dst));
  if (!cont_instr)
    return no_memory(r);
  if (invert)
    wave_compare_invert(invert);
  wave_node_replace(if_node, side);

  char cc[8];
  cond_text(cc, sizeof(cc), cont);
  if (copy)
    snprintf(r->what, sizeof(r->what), "p%u = %s", dst, cc);
  else
    snprintf(r->what, sizeof(r->what), "p%u", dst);
  r->exit = cont_instr;
  r->inverted = invert;
  return r->status = WAVE_EXIT_IF_DONE;
}

/* ---- the pass ------------------------------------------------------------------------------ */

typedef struct work {
  wave_node *node;
  bool trailing_only;   /* queued again after the if around it became a continue */
} work;

typedef struct state {
  wave_pass_context *ctx;
  wave_exit_if_env env;
  const wave_allocator *allocator; /* the module's, for the queue */
  work *queue;
  size_t len;
  bool changed;
} state;

static void note_inversion(state *st, const wave_exit_if_result *r) {
  if (r->note[0])
    wave_remark_missed(st->ctx, "compare-kept", wave_instr_loc(r->note_at), "%s", r->note);
  if (!r->inverted)
    return;
  wave_pass_stat_add(st->ctx, "compares-inverted",
                     "Number of compares inverted instead of negating their predicate", 1);
}

static const char *inverted_text(const wave_exit_if_result *r, char *buf, size_t size) {
  if (!r->inverted)
    return "";
  snprintf(buf, size, " (compare at %u:%u inverted)", wave_instr_loc(r->inverted).line,
           wave_instr_loc(r->inverted).col);
  return buf;
}

/* What an attempt that did not rewrite leaves to say: a refusal becomes the missed remark
 * `name` ("<if> <kept>: <why>"); false when the rewrite ran out of memory. */
static bool not_done(state *st, wave_exit_if_status status, const wave_exit_if_result *r,
                     wave_loc loc, const char *name, const char *kept) {
  if (status == WAVE_EXIT_IF_REFUSED)
    wave_remark_missed(st->ctx, name, loc, "if at %u:%u %s: %s", loc.line, loc.col, kept,
                       r->what);
  return status != WAVE_EXIT_IF_NO_MEMORY;
}

/* Returns false when the rewrite ran out of memory. */
static bool try_hoist(state *st, wave_node *node) {
  wave_exit_if_result r;
  wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
  wave_exit_if_status status = wave_exit_if_hoist(&st->env, node, &r);
  if (status != WAVE_EXIT_IF_DONE)
    return not_done(st, status, &r, loc, "exit-if-kept", "not converted");
  char inv[48];
  bool brk = wave_instr_op(r.exit) == WAVE_OP_BREAK;
  st->changed = true;
  note_inversion(st, &r);
  wave_pass_stat_add(st->ctx, brk ? "breaks-hoisted" : "continues-hoisted",
                     brk ? "Number of breaks taken out of the if around them"
                         : "Number of continues taken out of the if around them",
                     1);
  wave_remark_passed(st->ctx, brk ? "break-hoisted" : "continue-hoisted", loc,
                     "if at %u:%u removed: its %s at %u:%u now %s on %s%s", loc.line, loc.col,
                     mnemonic(r.exit), wave_instr_loc(r.exit).line, wave_instr_loc(r.exit).col,
                     brk ? "breaks" : "continues", r.what, inverted_text(&r, inv, sizeof(inv)));
  return true;
}

static bool try_trailing(state *st, wave_node *node) {
  wave_node *loop = wave_node_parent(node);
  wave_exit_if_result r;
  wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
  wave_exit_if_status status = wave_trailing_if_continue(&st->env, node, &r);
  if (status != WAVE_EXIT_IF_DONE)
    return not_done(st, status, &r, loc, "trailing-if-kept", "ending the loop body kept");
  char inv[48];
  st->changed = true;
  note_inversion(st, &r);
  wave_pass_stat_add(st->ctx, "trailing-ifs",
                     "Number of ifs ending a loop body turned into a continue", 1);
  wave_remark_passed(st->ctx, "trailing-if-continued", loc,
                     "if at %u:%u ending the loop body removed: continue on %s takes the lanes "
                     "that skipped it%s",
                     loc.line, loc.col, r.what, inverted_text(&r, inv, sizeof(inv)));
  wave_node *last = wave_node_list_last(wave_loop_body(loop));
  if (last && wave_node_kind_of(last) == WAVE_NODE_IF)
    st->queue[st->len++] = (work){last, true};
  return true;
}

/* Every if of the kernel, inner ones before the ifs around them (wave_xform_collect_ifs), with
 * room for one requeue each. */
static bool collect(wave_analysis_manager *am, wave_kernel *kernel, state *st) {
  size_t count;
  wave_node *const *ifs = wave_xform_collect_ifs(am, kernel, WAVE_INNER_IFS_FIRST, &count);
  if (!ifs)
    return false;
  st->queue = wave_mem_calloc(st->allocator, 2 * count + 1, sizeof(work));
  for (size_t i = 0; st->queue && i < count; i++)
    st->queue[st->len++] = (work){ifs[i], false};
  return st->queue != NULL;
}

/* Whether either rewrite could find its shape at the if: a break or continue directly in a
 * side, or (trailing) the end of a loop body with one side empty. Ifs that are neither need
 * no liveness. */
static bool has_shape(const wave_node *node, bool trailing) {
  const wave_node_list *then_list = wave_if_then(node), *else_list = wave_if_else(node);
  if (first_exit(then_list) || first_exit(else_list))
    return true;
  const wave_node *parent = wave_node_parent(node);
  return trailing && parent && wave_node_kind_of(parent) == WAVE_NODE_LOOP &&
         !wave_node_next(node) &&
         wave_node_list_is_empty(then_list) != wave_node_list_is_empty(else_list);
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  state st = {.ctx = ctx, .allocator = wave_module_allocator(wave_kernel_module(kernel))};
  if (!collect(am, kernel, &st))
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in predicated-break");
  bool trailing = wave_pass_option(ctx, 0) != 0;
  bool ok = true;
  /* Liveness and the kernel-wide scan wait for the first if of either shape, before any
   * rewrite: a kernel without one costs one walk, no analysis. */
  bool ready = false;
  for (size_t i = 0; ok && i < st.len; i++) {
    wave_node *node = st.queue[i].node;
    if (!wave_node_list_of(node))
      continue;   /* rewritten already */
    if (!ready) {
      if (!has_shape(node, trailing))
        continue;
      const wave_liveness *liveness = wave_analysis_get(am, kernel, WAVE_ANALYSIS_LIVENESS);
      if (!liveness) {
        wave_mem_free(st.allocator, st.queue);
        return wave_pass_fail(ctx, wave_kernel_loc(kernel), "predicated-break: no liveness");
      }
      wave_exit_if_env_init(&st.env, wave_pass_target(ctx), liveness,
                            wave_xform_kernel_taken(kernel), wave_pass_max_registers(ctx, kernel));
      ready = true;
    }
    if (!st.queue[i].trailing_only) {
      ok = try_hoist(&st, node);
      if (!ok || !wave_node_list_of(node))
        continue;
    }
    if (trailing)
      ok = try_trailing(&st, node);
  }
  wave_mem_free(st.allocator, st.queue);
  if (!ok)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in predicated-break");
  return wave_pass_done(st.changed, WAVE_PRESERVE_NONE);
}

static const wave_pass_option_info options[] = {
    {"predicated-break-trailing",
     "1: turn an if that ends a loop body into a continue where the target runs continue", 1},
};

const wave_pass_info wave_pass_predicated_break = {
    .name = "predicated-break",
    .help = "take breaks and continues out of their ifs as predicated ones; end a loop body's "
            "last if with a continue",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
