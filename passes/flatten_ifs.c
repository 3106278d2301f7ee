/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flatten-ifs: an if whose only content is another if becomes one if on the two predicates
 * combined, one divergence-stack frame less (docs/language.md "Optimizer invariants": depth).
 *
 *   the and-form                                 the or-form
 *
 *   if p1                                        if p1
 *     icmp_lt p2, r1, r2    (H, hoisted)           S
 *     if p2                                      else
 *       S                                          icmp_lt p2, r1, r2    (H, hoisted)
 *     endif                                        if p2
 *   endif                                            S'                   (S' the same as S)
 *                                                  else
 *   ->                                               T
 *   icmp_lt p2, r1, r2                             endif
 *   @!p1 icmp_ne p2, r0, r0 ; p2 = p1 and p2     endif
 *   if p2
 *     S                                          ->
 *   endif                                        icmp_lt p2, r1, r2
 *                                                @p1 icmp_eq p2, r0, r0   ; p2 = p1 or p2
 *                                                if p2
 *                                                  S'
 *                                                else
 *                                                  T
 *                                                endif
 *
 * The inner if stands where the outer one stood, on the combined predicate; the outer if
 * goes, and in the or-form so does its then-side S, since S' is the same code. H is a block
 * (possibly empty) before the inner if; the inner if is the last thing in its side. An `else`
 * line with nothing after it counts as no else-side. The or-form keeps an else-side T of the
 * inner if; the form is T empty.
 *
 * Why it is safe (docs/language.md "If and else", "Partial definitions"). Let A be the lanes
 * that reach the outer if.
 *   - The and-form: S ran on A and p1 and p2 (p2 as H left it) and runs on A and (p1 and p2):
 *     the same lanes, so even convergent code in S (wave operations, barriers) keeps its lanes
 *     (docs/toolchain.md "Rules our output keeps" 6); lanes that end or break inside S do so in
 *     both. H, and the compares forming the predicate, now also run where p1 is false: H must be
 *     able to run anywhere (wave_instr_can_speculate: pure and unable to trap; no load, store or
 *     convergent instruction), and what it writes must be dead on those lanes, which go straight
 *     to the end of the if: dead after the outer if. A register that a shuffle or broadcast
 *     reads from other lanes (wave_instr_other_lane_uses) is never written by H: such a read
 *     sees lanes that are not at the end of the if.
 *   - The or-form: S ran on A and p1, then S' on A and not p1 and p2; one run of S' now serves
 *     A and (p1 or p2). Per lane that is the same code. What differs is that the two groups
 *     of lanes go through it together instead of one after the other, so S must not notice the
 *     other group: no memory write or atomic (a store of one group would no longer precede the
 *     other group's loads and stores; lanes storing to one word would leave another winner), no
 *     convergent instruction (it would see the union of the groups). Loads are fine: nothing
 *     in S writes memory, so each lane loads what it loaded before, and each lane runs each load
 *     exactly once in both programs, so nothing is speculated. T runs on A and not p1 and not p2
 *     in both. H now also runs on the lanes of p1, which then run S': what H writes must be dead
 *     at the start of S and after the if, and the rules on H above hold.
 *   - The outer predicate p1 is read once more, by the compares, after H; if H writes it, it is
 *     first copied into a free predicate (a predicate that moved code overwrites is saved
 *     first), and the combination reads the copy.
 *   - The combined predicate is built with real instructions only, by wave_cond_emit
 *     (xform/xform.h): compares guarded by p1 where the target honours the guard, else the select
 *     idiom of docs/language.md "Predicate logic" through three scratch registers; never @p0,
 *     and @!p0 only where the target runs it (wave-emu does, portable does not). It goes, in
 *     order of preference, into the inner predicate p2 itself (in place, no scratch), else into
 *     p1 (or its copy), else into a free predicate. Writing in place into a predicate changes
 *     it on some lanes, so that predicate must be dead after the outer if and at the start of
 *     both sides of the surviving if. Scratch predicates and registers are dead before and after
 *     the outer if, at the start of the surviving sides, and unmentioned by H (xform.h's
 *     scratch rule, without the scan of the whole subtree that wave_xform_taken makes, which
 *     would make long chains quadratic: nothing reads a scratch register before the if, and
 *     inside it the liveness at the start of both sides answers for S and T). What the whole
 *     kernel takes comes from wave_xform_kernel_taken: with a call every register the kernel
 *     mentions, and while a negated predicate operand of the documentation dialect is left
 *     (`break !p1`) the predicate legalize will lower it through. .registers grows only within
 *     wave_pass_max_registers.
 *   - Nothing that may trap or touches memory runs on lanes that did not run it, no guard goes
 *     on anything but a compare, no `break`, `continue` or predicate logic is introduced, and
 *     the depth goes down by one. Upstream tools see S still inside an if, so a `break`, `halt`
 *     or wave operation in it behaves there as it did (docs/toolchain.md "Break inside an if",
 *     "Halt and return inside regions", "Wave operations under divergence").
 *
 * It refuses, with a missed remark naming the construct and its line:col:
 *   - other code beside the inner if: after it, or an if or loop before it; or code in H that
 *     cannot run on the other lanes (a load, store, idiv, wave operation, ...), or whose result
 *     is still read there, or more than flatten-ifs-max-hoist instructions of it;
 *   - the and-form when the inner if has an else-side (lanes where p1 is false must run neither
 *     side) or the outer one has an else-side (its lanes would need a third way out);
 *   - the or-form when S and S' differ (same opcodes, guards and operands, structure for
 *     structure), or S writes memory or holds a convergent instruction;
 *   - when no predicate can hold the combination, or the select idiom it needs finds fewer
 *     than three free registers.
 *   - under -profile-use, the and-form when the profile shows the outer if ran but its inner if
 *     was never reached (the then-side never got lanes): the outer if then costs one `if` a
 *     run, and flattened, H and the combined test would issue on every run for a frame that
 *     was never pushed (docs/profile.md "Use in the optimizer"). Other measured rates do not
 *     change what it does: flattening is for the divergence-stack depth.
 *
 * Chains. `if a { if b { if c { S } } }` flattens outer pair first: the ifs are visited in text
 * order (outer before inner), and after each rewrite the inner if, now outermost, is the next
 * one visited, so a chain of n ifs takes n - 1 rewrites of constant cost each, however deep;
 * no recursion anywhere. The or-form chains the same way through else-if ladders with equal
 * then-sides. One liveness result serves the whole run, fetched at the first if of the shape;
 * see xform/flatten_ifs.h for why the rewrites keep it sound.
 *
 * Comments on the removed if, else and endif lines are kept as whole-line comments: those of
 * the outer if line (and, in the or-form, its else line) before the first line of what replaces
 * it, those of its endif after the surviving endif (xform/comments.h). Comments inside the
 * duplicate then-side S go with it, as comments on unreachable code do in simplify-cfg.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "waveopt/profile.h"
#include "waveopt/waveopt.h"
#include "xform/flatten_ifs.h"
#include "xform/xform.h"

/* ---- what the rewrites share ------------------------------------------------------------- */

static wave_regset instr_mentions(const wave_instr *in) {
  wave_regset uses, defs;
  wave_instr_uses(in, &uses);
  wave_instr_defs(in, &defs);
  return wave_regset_union(uses, defs);
}

void wave_flatten_init(wave_flatten *f, wave_kernel *kernel, const wave_target *target,
                       const wave_liveness *liveness, wave_regset kernel_taken,
                       wave_comment_moves *comments, uint32_t max_registers,
                       unsigned max_hoist) {
  /* A call shares every register with its subroutine; legalize keeps a predicate for the
   * negated operands it lowers (wave_xform_kernel_taken). */
  *f = (wave_flatten){.kernel = kernel,
                      .target = target,
                      .liveness = liveness,
                      .comments = comments,
                      .max_registers = max_registers,
                      .max_hoist = max_hoist,
                      .shared = kernel_taken,
                      .other_lanes = wave_liveness_other_lanes(liveness)};
}

/* ---- naming things in remarks ------------------------------------------------------------ */

static wave_flatten_status refuse(wave_flatten_outcome *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static wave_flatten_status refuse(wave_flatten_outcome *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->why, sizeof(out->why), fmt, ap);
  va_end(ap);
  return WAVE_FLATTEN_REFUSED;
}

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->mnemonic;
}

/* Short texts for remarks, returned by value. */
typedef struct text {
  char s[48];
} text;

static text cond_text(wave_cond c) {
  text t;
  snprintf(t.s, sizeof(t.s), "%sp%u", c.negated ? "!" : "", c.pred);
  return t;
}

/* The lowest register of a non-empty set, as the assembly spells it. */
static text reg_text(wave_regset set) {
  text t = {"?"};
  for (unsigned reg = 0; reg < WAVE_NUM_REGS; reg++) {
    if (!wave_regset_test(set, reg))
      continue;
    if (reg <= WAVE_MAX_GPR)
      snprintf(t.s, sizeof(t.s), "r%u", reg);
    else
      snprintf(t.s, sizeof(t.s), "p%u", reg - WAVE_REG_PRED(0));
    break;
  }
  return t;
}

static wave_loc if_loc(const wave_node *n) { return wave_node_origin(n, WAVE_LINE_IF).loc; }

static text instr_text(const wave_instr *in) {
  text t;
  snprintf(t.s, sizeof(t.s), "%s at %u:%u", mnemonic(in), wave_instr_loc(in).line,
           wave_instr_loc(in).col);
  return t;
}

/* "an if at 3:5", "iadd at 4:9": the statement a node starts with. */
static text node_text(const wave_node *n) {
  text t;
  if (wave_node_kind_of(n) == WAVE_NODE_BLOCK)
    return instr_text(wave_block_first(n));
  wave_loc loc =
      wave_node_kind_of(n) == WAVE_NODE_IF ? if_loc(n) : wave_node_origin(n, WAVE_LINE_LOOP).loc;
  snprintf(t.s, sizeof(t.s), "%s at %u:%u",
           wave_node_kind_of(n) == WAVE_NODE_IF ? "an if" : "a loop", loc.line, loc.col);
  return t;
}

/* ---- the shape --------------------------------------------------------------------------- */

static wave_node *first_if(wave_node_list *list) {
  wave_foreach_node(n, list) {
    if (wave_node_kind_of(n) == WAVE_NODE_IF)
      return n;
  }
  return NULL;
}

/* The side must be [block?, inner]: nothing after the inner if, one block at most before it. */
static wave_flatten_status check_side(wave_node_list *side, const wave_node *inner,
                                      const char *side_name, wave_flatten_outcome *out) {
  wave_loc il = if_loc(inner);
  if (wave_node_next(inner))
    return refuse(out, "its %s holds %s after the if at %u:%u", side_name,
                  node_text(wave_node_next(inner)).s, il.line, il.col);
  for (const wave_node *n = wave_node_list_first(side); n != inner; n = wave_node_next(n))
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      return refuse(out, "its %s holds %s before the if at %u:%u", side_name, node_text(n).s,
                    il.line, il.col);
  return WAVE_FLATTEN_DONE;
}

/* Why an instruction cannot run on lanes that did not run it. */
static const char *why_not_speculated(const wave_instr *in) {
  wave_opcode op = wave_instr_op(in);
  if (wave_instr_is_convergent(in))
    return "is convergent";
  if (wave_opcode_has(op, WAVE_F_WRITES_MEM | WAVE_F_RMW))
    return "writes memory";
  if (wave_opcode_has(op, WAVE_F_READS_MEM))
    return "reads memory and may trap";
  if (wave_opcode_has(op, WAVE_F_MAY_TRAP))
    return "may trap";
  return "is not pure";
}

/* H, the block before the inner if, is to run also on the lanes `where` says; `keep` holds what
 * those lanes may still read. Adds what H writes and mentions to *defs and *mentions. */
static wave_flatten_status check_hoist(const wave_flatten *f, const wave_node *h, wave_regset keep,
                                       const char *where, wave_flatten_outcome *out,
                                       wave_regset *defs, wave_regset *mentions) {
  unsigned count = 0;
  wave_foreach_instr(in, h) {
    if (++count > f->max_hoist)
      return refuse(out, "more than flatten-ifs-max-hoist (%u) instructions would have to run %s "
                         "(the first one too many: %s)",
                    f->max_hoist, where, instr_text(in).s);
    if (!wave_instr_can_speculate(in))
      return refuse(out, "%s would have to run %s, and it %s", instr_text(in).s, where,
                    why_not_speculated(in));
    wave_regset d;
    wave_instr_defs(in, &d);
    wave_regset live = wave_regset_intersect(d, keep);
    if (!wave_regset_is_empty(live))
      return refuse(out, "%s would have to run %s, where its result %s is still read",
                    instr_text(in).s, where, reg_text(live).s);
    wave_regset other = wave_regset_intersect(d, f->other_lanes);
    if (!wave_regset_is_empty(other))
      return refuse(out, "%s would have to run %s, and a shuffle or broadcast reads its result "
                         "%s from other lanes",
                    instr_text(in).s, where, reg_text(other).s);
    *defs = wave_regset_union(*defs, d);
    *mentions = wave_regset_union(*mentions, instr_mentions(in));
  }
  out->hoisted = count;
  return WAVE_FLATTEN_DONE;
}

/* ---- the or-form's two then-sides -------------------------------------------------------- */

static wave_loc walk_loc(const wave_const_walker *w) {
  const wave_node *n = w->node;
  switch (w->event) {
  case WAVE_WALK_BLOCK:
    return wave_instr_loc(wave_block_first(n));
  case WAVE_WALK_IF:
    return wave_node_origin(n, WAVE_LINE_IF).loc;
  case WAVE_WALK_ELSE:
    return wave_if_has_else(n) ? wave_node_origin(n, WAVE_LINE_ELSE).loc
                               : wave_node_origin(n, WAVE_LINE_ENDIF).loc;
  case WAVE_WALK_ENDIF:
    return wave_node_origin(n, WAVE_LINE_ENDIF).loc;
  case WAVE_WALK_LOOP:
    return wave_node_origin(n, WAVE_LINE_LOOP).loc;
  case WAVE_WALK_ENDLOOP:
    return wave_node_origin(n, WAVE_LINE_ENDLOOP).loc;
  }
  return wave_node_origin(n, WAVE_LINE_IF).loc;
}

/* Where a then-side ends: the else line, or the endif line. */
static wave_loc then_end_loc(const wave_node *n) {
  return wave_if_has_else(n) ? wave_node_origin(n, WAVE_LINE_ELSE).loc
                             : wave_node_origin(n, WAVE_LINE_ENDIF).loc;
}

static wave_flatten_status differ(wave_flatten_outcome *out, const wave_node *inner, wave_loc a,
                                  wave_loc b) {
  return refuse(out, "its then-side and the then-side of the if at %u:%u differ (at %u:%u and "
                     "%u:%u)",
                if_loc(inner).line, if_loc(inner).col, a.line, a.col, b.line, b.col);
}

/* One run of S for both groups of lanes must be unobservable: no write to memory (stores and
 * atomics), nothing convergent. */
static wave_flatten_status check_once(const wave_instr *in, wave_flatten_outcome *out) {
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_WRITES_MEM | WAVE_F_RMW))
    return refuse(out, "its then-side writes memory (%s), and one run for both groups of lanes "
                       "would reorder the writes between them",
                  instr_text(in).s);
  if (wave_instr_is_convergent(in))
    return refuse(out, "its then-side holds %s, which is convergent: one run would see both "
                       "groups of lanes at once",
                  instr_text(in).s);
  return WAVE_FLATTEN_DONE;
}

/* S (the outer then-side) and S' (the inner one) step by step; counts the ifs of S. */
static wave_flatten_status check_same(const wave_node_list *s, const wave_node_list *s2,
                                      const wave_node *outer, const wave_node *inner, size_t *ifs,
                                      wave_flatten_outcome *out) {
  wave_const_walker a, b;
  wave_const_walk_init(&a, s);
  wave_const_walk_init(&b, s2);
  for (;;) {
    bool more_a = wave_const_walk_next(&a), more_b = wave_const_walk_next(&b);
    if (!more_a && !more_b)
      return WAVE_FLATTEN_DONE;
    if (more_a != more_b)
      return differ(out, inner, more_a ? walk_loc(&a) : then_end_loc(outer),
                    more_b ? walk_loc(&b) : then_end_loc(inner));
    if (a.event != b.event)
      return differ(out, inner, walk_loc(&a), walk_loc(&b));
    if (a.event == WAVE_WALK_IF) {
      ++*ifs;
      wave_operand ca = wave_if_cond(a.node), cb = wave_if_cond(b.node);
      if (ca.value != cb.value || ca.negated != cb.negated)
        return differ(out, inner, walk_loc(&a), walk_loc(&b));
    }
    if (a.event != WAVE_WALK_BLOCK)
      continue;
    const wave_instr *ib = wave_block_first(b.node);
    for (const wave_instr *ia = wave_block_first(a.node); ia;
         ia = wave_instr_next(ia), ib = wave_instr_next(ib)) {
      wave_flatten_status st = check_once(ia, out);
      if (st != WAVE_FLATTEN_DONE)
        return st;
      if (!ib || !wave_instr_equal(ia, ib))
        return differ(out, inner, wave_instr_loc(ia), ib ? wave_instr_loc(ib) : walk_loc(&b));
    }
    if (ib)
      return differ(out, inner, walk_loc(&a), wave_instr_loc(ib));
  }
}

/* ---- the rewrite ------------------------------------------------------------------------- */

/* The and-form under a profile: an outer if whose then-side never got lanes in the measured
 * runs (its inner if was never reached) costs only its `if` there; flattened, H and the
 * combination would issue on every run, and the frame saved was never pushed. */
static wave_flatten_status check_profile(const wave_flatten *f, const wave_node *outer,
                                         const wave_node *inner, wave_flatten_outcome *out) {
  if (!f->profile)
    return WAVE_FLATTEN_DONE;
  wave_loc ol = if_loc(outer), il = if_loc(inner);
  const wave_profile_branch *bo = wave_profile_find_branch(f->profile, ol.line, WAVE_PROFILE_IF);
  const wave_profile_branch *bi = wave_profile_find_branch(f->profile, il.line, WAVE_PROFILE_IF);
  if (!bo || !bi || !bo->runs || bi->runs)
    return WAVE_FLATTEN_DONE;
  return refuse(out, "in the profile its then-side never ran in %llu run%s (the if at %u:%u was "
                     "never reached): flattened, the code before that if and the combined test "
                     "would issue on every run",
                (unsigned long long)bo->runs, bo->runs == 1 ? "" : "s", il.line, il.col);
}

static wave_cond cond_of(const wave_node *n) {
  return wave_cond_of(wave_if_cond(n).value, wave_if_cond(n).negated != 0);
}

static bool same_cond(wave_cond a, wave_cond b) {
  return a.pred == b.pred && a.negated == b.negated;
}

/* Where the combination goes and what forming it costs. */
typedef struct plan {
  uint32_t dst;
  unsigned gprs;
  bool found;
  unsigned fewest;   /* registers the cheapest candidate needs, UINT_MAX with no candidate */
} plan;

/* Considers dst for dst = a OP c: wave_cond_emit lets dst be one operand's predicate only while
 * the other operand reads another one. Keeps the cheapest that fits, the first among equals. */
static void consider(plan *p, const wave_target *t, uint32_t dst, wave_cond a, wave_cond_op op,
                     wave_cond c, unsigned extra, unsigned gprs_left) {
  if ((dst == a.pred || dst == c.pred) && a.pred == c.pred)
    return;
  unsigned gprs = extra + wave_cond_gprs_needed(t, dst, a, op, c);
  if (gprs < p->fewest)
    p->fewest = gprs;
  if (gprs <= gprs_left && (!p->found || gprs < p->gprs)) {
    p->dst = dst;
    p->gprs = gprs;
    p->found = true;
  }
}

wave_flatten_status wave_flatten_shape(wave_node *outer, wave_flatten_outcome *out) {
  memset(out, 0, sizeof(*out));
  if (wave_node_kind_of(outer) != WAVE_NODE_IF || !wave_node_list_of(outer))
    return WAVE_FLATTEN_NO_SHAPE;
  wave_node_list *then = wave_if_then(outer), *els = wave_if_else(outer);
  wave_cond a = cond_of(outer);
  bool or_form = !wave_node_list_is_empty(els);
  wave_node_list *side = or_form ? els : then;
  wave_node *inner = first_if(side);
  if (!inner) {
    out->inner = or_form ? first_if(then) : NULL;
    if (!out->inner)
      return WAVE_FLATTEN_NO_SHAPE;
    return refuse(out, "it has an else-side: one if could not keep its lanes (%s false) apart "
                       "from those where %s is true and the if at %u:%u inside it is not taken",
                  cond_text(a).s, cond_text(a).s, if_loc(out->inner).line,
                  if_loc(out->inner).col);
  }
  out->inner = inner;
  out->or_form = or_form;
  wave_loc il = if_loc(inner);
  wave_flatten_status st = check_side(side, inner, or_form ? "else-side" : "then-side", out);
  if (st != WAVE_FLATTEN_DONE)
    return st;
  if (!or_form && !wave_node_list_is_empty(wave_if_else(inner)))
    return refuse(out, "the if at %u:%u inside it has an else-side, which the lanes where %s is "
                       "false must not run",
                  il.line, il.col, cond_text(a).s);
  if (or_form)
    return check_same(then, wave_if_then(inner), outer, inner, &out->ifs_removed, out);
  return WAVE_FLATTEN_DONE;
}

wave_flatten_status wave_flatten_if(const wave_flatten *f, wave_node *outer,
                                    wave_flatten_outcome *out) {
  wave_flatten_status st = wave_flatten_shape(outer, out);
  if (st != WAVE_FLATTEN_DONE)
    return st;
  if (!out->or_form && (st = check_profile(f, outer, out->inner, out)) != WAVE_FLATTEN_DONE)
    return st;
  wave_node_list *then = wave_if_then(outer);
  bool or_form = out->or_form;
  wave_node_list *side = or_form ? wave_if_else(outer) : then;
  wave_node *inner = out->inner;
  wave_cond a = cond_of(outer), c = cond_of(inner);
  wave_loc il = if_loc(inner);
  const wave_liveness *lv = f->liveness;
  wave_regset before = wave_liveness_at(lv, wave_cursor_before_node(outer));
  wave_regset after = wave_liveness_at(lv, wave_cursor_after_node(outer));
  wave_regset in_then = wave_liveness_at(lv, wave_cursor_list_start(wave_if_then(inner)));
  wave_regset in_else = wave_liveness_at(lv, wave_cursor_list_start(wave_if_else(inner)));
  /* Lanes that run H now and did not: where a is false (and-form), true (or-form). */
  wave_regset keep = after;
  if (or_form)
    keep = wave_regset_union(keep, wave_liveness_at(lv, wave_cursor_list_start(then)));
  wave_regset hoist_defs = wave_regset_empty(), hoist_mentions = wave_regset_empty();
  wave_node *hoist = wave_node_prev(inner);
  if (hoist) {
    char where[64];
    snprintf(where, sizeof(where), "where %s is %s", cond_text(a).s, or_form ? "true" : "false");
    st = check_hoist(f, hoist, keep, where, out, &hoist_defs, &hoist_mentions);
    if (st != WAVE_FLATTEN_DONE)
      return st;
  }

  wave_regset taken = wave_regset_union(wave_regset_union(before, after),
                                        wave_regset_union(in_then, in_else));
  taken = wave_regset_union(taken, wave_regset_union(hoist_mentions, f->shared));
  wave_regset_set(&taken, WAVE_REG_PRED(a.pred));
  wave_regset_set(&taken, WAVE_REG_PRED(c.pred));
  wave_scratch s;
  wave_scratch_init(&s, f->kernel, taken, f->max_registers);
  const wave_target *t = f->target;
  wave_cond_op op = or_form ? WAVE_COND_OR : WAVE_COND_AND;
  const char *op_name = or_form ? "or" : "and";

  /* H overwrites the outer predicate: the combination reads a copy made before H. */
  wave_cond read = a;
  bool save = wave_regset_test(hoist_defs, WAVE_REG_PRED(a.pred));
  unsigned save_gprs = 0;
  if (save) {
    uint32_t copy;
    if (!wave_scratch_pred(&s, &copy))
      return refuse(out, "no predicate is free to keep %s, which the code before the if at %u:%u "
                         "overwrites",
                    cond_text(a).s, il.line, il.col);
    save_gprs = wave_cond_gprs_needed(t, copy, a, WAVE_COND_AND, a);
    read = wave_cond_of(copy, false);
  }

  /* Where the combination goes: nowhere when both ifs test the same thing; else in place into
   * the inner predicate or the outer one (or its copy), or into a free predicate. */
  bool trivial = same_cond(read, c);
  plan best = {0, 0, false, UINT_MAX};
  if (!trivial) {
    wave_regset body = wave_regset_union(after, wave_regset_union(in_then, in_else));
    unsigned left = wave_scratch_gprs_left(&s);
    if (!wave_regset_test(body, WAVE_REG_PRED(c.pred)))
      consider(&best, t, c.pred, read, op, c, save_gprs, left);
    if (save || !wave_regset_test(body, WAVE_REG_PRED(read.pred)))
      consider(&best, t, read.pred, read, op, c, save_gprs, left);
    wave_scratch trial = s;
    uint32_t free_pred = WAVE_NUM_PREDS;
    if (wave_scratch_pred(&trial, &free_pred))
      consider(&best, t, free_pred, read, op, c, save_gprs, left);
    if (best.fewest == UINT_MAX)
      return refuse(out, "no predicate can hold %s %s %s: both are still read afterwards and no "
                         "other one is free",
                    cond_text(read).s, op_name, cond_text(c).s);
    if (!best.found)
      return refuse(out, "forming %s %s %s on %s takes the select idiom and %u free registers, "
                         "and %u are free",
                    cond_text(read).s, op_name, cond_text(c).s, t->name, best.fewest, left);
    if (best.dst == free_pred)
      s = trial;
  }
  if (!wave_comment_moves_reserve(f->comments, 3))
    return WAVE_FLATTEN_NO_MEMORY;

  wave_module *m = wave_kernel_module(f->kernel);
  wave_loc loc = if_loc(outer);
  if (save) {
    wave_builder b = wave_builder_at(m, wave_cursor_before_node(outer), loc);
    if (!wave_cond_emit_copy(&b, t, &s, read.pred, a))
      return WAVE_FLATTEN_NO_MEMORY;
  }
  if (!trivial) {
    wave_builder b = wave_builder_at(m, wave_cursor_before_node(inner), loc);
    if (!wave_cond_emit(&b, t, &s, best.dst, read, op, c))
      return WAVE_FLATTEN_NO_MEMORY;
  }
  /* The lines that go: comments of the if (and else) line before the first line of what
   * replaces the outer if, those of the endif after the surviving endif. Recorded last line
   * first, since each goes ahead of those recorded before; the room was reserved above. */
  wave_code_line first = wave_node_prev(inner)
                             ? wave_code_instr_line(wave_block_first(wave_node_prev(inner)))
                             : wave_code_node_line(inner, WAVE_LINE_IF);
  wave_code_line next = wave_line_after(outer);
  wave_comment_moves *cm = f->comments;
  wave_comment_moves_add(cm, wave_code_node_line(outer, WAVE_LINE_ENDIF), next);
  if (wave_if_has_else(outer))
    wave_comment_moves_add(cm, wave_code_node_line(outer, WAVE_LINE_ELSE), or_form ? first : next);
  wave_comment_moves_add(cm, wave_code_node_line(outer, WAVE_LINE_IF), first);

  wave_node_list moved;
  wave_node_list_extract(wave_node_list_first(side), inner, &moved);
  wave_node_replace(outer, &moved);
  if (!trivial)
    wave_if_set_cond(inner, wave_pred(best.dst));
  if (trivial)
    snprintf(out->what, sizeof(out->what), "%s", cond_text(c).s);
  else
    snprintf(out->what, sizeof(out->what), "p%u = %s %s %s%s%s%s", best.dst, cond_text(read).s,
             op_name, cond_text(c).s, save ? " (" : "", save ? cond_text(read).s : "",
             save ? " keeps the outer predicate from before the hoisted code)" : "");
  return WAVE_FLATTEN_DONE;
}

/* ---- the pass ---------------------------------------------------------------------------- */

static const wave_pass_option_info options[] = {
    {"flatten-ifs-max-hoist",
     "most instructions moved out of an if onto lanes that did not run them, per flattening", 8},
};

static void report(wave_pass_context *ctx, const wave_node *outer,
                   const wave_flatten_outcome *out) {
  wave_loc loc = if_loc(outer), il = if_loc(out->inner);
  wave_pass_stat_add(ctx, out->or_form ? "or-flattened" : "and-flattened",
                     out->or_form ? "Number of ifs merged with an if in their else-side"
                                  : "Number of ifs merged with the if inside them",
                     1);
  wave_pass_stat_add(ctx, "instrs-hoisted",
                     "Number of instructions moved onto lanes that did not run them",
                     out->hoisted);
  char hoisted[48] = "";
  if (out->hoisted)
    snprintf(hoisted, sizeof(hoisted), ", %u instruction%s hoisted", out->hoisted,
             out->hoisted == 1 ? "" : "s");
  wave_remark_passed(ctx, out->or_form ? "or-flattened" : "and-flattened", loc,
                     "if at %u:%u flattened with the if at %u:%u %s: one if on %s%s", loc.line,
                     loc.col, il.line, il.col,
                     out->or_form ? "in its else-side, whose then-side is the same" : "inside it",
                     out->what, hoisted);
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  size_t count;
  wave_node *const *ifs = wave_xform_collect_ifs(am, kernel, WAVE_OUTER_IFS_FIRST, &count);
  if (ifs && count == 0)
    return wave_pass_done(false, WAVE_PRESERVE_ALL);
  wave_comment_moves *comments = wave_comment_moves_create(wave_kernel_module(kernel));
  bool failed = !ifs || !comments, changed = false;
  /* Liveness and the kernel-wide scan wait for the first if of the shape, before any rewrite:
   * a kernel without one costs one walk, no analysis. */
  bool ready = false;
  wave_flatten f;
  for (size_t i = 0; !failed && i < count; i++) {
    wave_flatten_outcome out;
    wave_flatten_status st = ready ? WAVE_FLATTEN_DONE : wave_flatten_shape(ifs[i], &out);
    if (st == WAVE_FLATTEN_DONE && !ready) {
      const wave_liveness *liveness = wave_analysis_get(am, kernel, WAVE_ANALYSIS_LIVENESS);
      if (!liveness) {
        failed = true;
        break;
      }
      wave_flatten_init(&f, kernel, wave_pass_target(ctx), liveness,
                        wave_xform_kernel_taken(kernel), comments,
                        wave_pass_max_registers(ctx, kernel), (unsigned)wave_pass_option(ctx, 0));
      f.profile = wave_pass_profile(ctx);
      ready = true;
    }
    if (st == WAVE_FLATTEN_DONE)
      st = wave_flatten_if(&f, ifs[i], &out);
    switch (st) {
    case WAVE_FLATTEN_DONE:
      changed = true;
      report(ctx, ifs[i], &out);
      /* The ifs of the duplicate then-side come next in text order and are gone. */
      i += out.ifs_removed;
      break;
    case WAVE_FLATTEN_REFUSED:
      wave_remark_missed(ctx, "not-flattened", if_loc(ifs[i]), "if at %u:%u not flattened: %s",
                         if_loc(ifs[i]).line, if_loc(ifs[i]).col, out.why);
      break;
    case WAVE_FLATTEN_NO_SHAPE:
      break;
    case WAVE_FLATTEN_NO_MEMORY:
      failed = true;
      break;
    }
  }
  if (comments && !wave_comment_moves_apply(comments))
    failed = true;
  wave_comment_moves_destroy(comments);
  if (failed)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in flatten-ifs");
  return wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_flatten_ifs = {
    .name = "flatten-ifs",
    .help = "merge an if holding only another if into one if on the predicates combined",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
