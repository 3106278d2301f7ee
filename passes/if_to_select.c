/* SPDX-License-Identifier: Apache-2.0 */
/*
 * if-to-select: replaces a small if by straight-line code, in one of two forms.
 *
 *   guarded                                     select
 *   if p1              @p1  iadd r3, r1, r2     if p0              iadd r9, r1, r2
 *     iadd r3, r1, r2  @!p1 isub r3, r1, r2       iadd r3, r1, r2  isub r3, r1, r2
 *   else          ->                            else          ->   select r3, p0, r9, r3
 *     isub r3, r1, r2                             isub r3, r1, r2
 *   endif                                       endif
 *
 * Candidates: ifs whose two sides are straight-line code (a side is empty or one block) of
 * pure computation: no nested if or loop, no break, continue, halt, return or call, no load,
 * store, atomic, fence or barrier, no wave or MMA operation, no nop. Ifs are taken innermost
 * first (the post-order of the tree, which doubles as the worklist), so a nest of small ifs
 * collapses in one run: once the inner one is straight-line code, the outer one's side is.
 *
 * The guarded form (docs/language.md "Guards") puts @g on every then-side instruction and @!g
 * on every else-side one, g being the if's test. An instruction under @g runs exactly as if the
 * active mask were A and g: the lanes that ran the then-side, with the values they had there,
 * since nothing in between changes a register of theirs; likewise for the else-side, which still
 * runs after the then-side. So every lane runs the same instructions on the same values, and an
 * instruction that can trap (idiv, imod, iclamp, fclamp) is as safe as it was: guarded
 * execution is not speculation. It needs, and checks:
 *   - guards the target honours on each instruction (wave_target_honours_guard): never @p0,
 *     @!p0 only where the target says so. When the test cannot guard (the if tests p0), it is
 *     copied into a scratch predicate p1..p3 first (wave_cond_emit_copy, as the test or its
 *     negation, whichever the target copies cheaper), and that copy guards.
 *   - a guard predicate that keeps its value: an instruction writing the if's predicate before
 *     the last instruction would change the later guards, so the test is copied first then too.
 *   - one guard per instruction. An instruction of a side already guarded with @G runs where
 *     the side's test and G hold: when G is the if's predicate and no earlier instruction of
 *     the side wrote it, G is the side's test (the guard stays, or becomes the copy) or its
 *     negation (the instruction never ran, and goes); otherwise test-and-G is built into a
 *     second scratch predicate right before it (wave_cond_emit), reading G where the
 *     instruction read it, and guards it. Lanes of the other side compute false there.
 * A constant load (mov_imm, mov_sr, unguarded in its side) whose register is dead after the
 * if and, in the then-side, unread by the else-side stays unguarded: the lanes of the other
 * side that get the constant never read the register again, and unguarded it is licm's to take
 * out of a loop.
 * Scratch predicates are ones dead before and after the if and unused in it
 * (wave_xform_taken_with), never the one legalize keeps for lowering a negated operand; with
 * none free the form is refused.
 *
 * The select form computes both sides in every active lane and picks the results per lane
 * with `select rd, pA, then_value, else_value` (docs/language.md "Compare and select"). It
 * needs every instruction to be speculatable (wave_instr_can_speculate: pure and unable to
 * trap) and needs no guard, so it also serves where guards are not honoured or the test is in
 * p0. One side is computed first (F), the other after it (D); F writes into scratch registers
 * every register that is live after the if, read by D or the if's predicate; D does the same for
 * the if's predicate and for registers live after the if that F does not write (F's lanes keep
 * their old value, docs/language.md "Partial definitions"), and writes the rest in place. Reads
 * within a side follow its renaming, so each side sees exactly the values it saw in the if. A
 * select per register live after the if that a side writes takes F's scratch (or the old
 * value) and D's. Lanes that did not run a side compute garbage into registers nobody reads:
 * scratch ones, or ones dead after the if and unread by the other side. Refused: a predicate
 * written by a side and live after the if (there is no select for predicates), register pairs
 * and quads (f64 values, 64-bit halves), a special register read as a GPR, and a guarded
 * compare whose predicate must be renamed. A guarded instruction (@G X rd) keeps its guard;
 * when rd moves to a scratch register that first gets rd's value, as lanes outside G keep it.
 * Scratch GPRs come from wave_scratch, so .registers grows only within -max-registers.
 *
 * A clamp takes a third form, before either is planned: `icmp_lt p, x, c` right before
 * `if p  mov x, c  endif` (or `mov_imm x, K` with c loaded with K earlier in the compare's
 * block, unguarded) is `imax x, x, c` in place of the compare and the if, when p is dead after
 * the if: lanes where x < c take c and the others keep x, which is the signed maximum (icmp is
 * signed, docs/language.md "Compare and select"); icmp_le alike, icmp_gt and icmp_ge give
 * imin, and c first in the compare mirrors them. imax and imin are pure and cannot trap; one
 * instruction replaces the compare, the if and the move, whatever the if's cost.
 *
 * Cost model (instructions issued per run of the if; docs/language.md "If and else"): a
 * divergent if runs both sides plus its if, else and endif at target->mask_op_cost each; a
 * uniform one runs one side (the larger counts) plus those. Whether it is divergent is the
 * uniformity analysis's verdict; under -profile-use an if the analysis cannot prove uniform
 * is costed by the split rate r measured on its line (wave_xform_if_split_rate): r times the
 * divergent cost plus 1 - r times the uniform one, so never split is uniform and always split
 * is divergent (docs/profile.md "Use in the optimizer"). The straight-line code
 * issues its instructions once: the sides' (less guarded ones that never run), the copies and
 * combined guards (2 or 3 compares when the target honours guards on their operands, else the
 * 4 or 5 instructions of the select idiom, as xform/xform.h builds them), the movs of the
 * select form and its selects. The cheaper form is written when it costs no more than the if;
 * the guarded one on a tie (no scratch GPRs). Sides of a divergent if may hold at most
 * -if-to-select-limit instructions each (default 8), those of a uniform if (r = 0) at most
 * -if-to-select-uniform-limit (default 1): a uniform if runs only one side, so converting
 * pays only for the smallest ones.
 *
 * Missed remarks name the if and why: "if at 12:5 not converted: then-side holds
 * device_load_u32 at 13:9 (memory)", "... sides too large (10 > 8)", "... uniform and a side
 * has 3 instructions (limit 1)", or per form ("guarded form: no free predicate ...; select
 * form: then-side holds idiv at 13:9 (may trap)"), or the costs ("... the guarded code costs 6
 * instructions, the if 5; select form: ...").
 *
 * Each rewrite plans first and builds the new code apart from the tree (clones of the sides'
 * instructions, in a detached block), then puts it where the if was: a refusal, or memory
 * running out, leaves the kernel as it was.
 *
 * Liveness (and uniformity) are fetched once per run, at the first if whose sides the rewrite
 * could take, before any rewrite; xform/xform.h's stale-liveness rule holds because, seen
 * from outside the if, the new code reads no register the if did not read (its predicate, the
 * sides' reads, and old values the if kept in some lanes), writes scratch registers before
 * reading them, and writes other registers only where the if's sides did or where they are
 * dead. A guarded write kills nothing in the analysis, so a fresh result may call a register
 * live before the new code that the stale one, rightly, calls dead: each lane overwrites it on
 * its side. Uniformity serves only the cost model. Divergence depth only shrinks; no `!`
 * operand, predicate logic, @p0, or guard on anything but computation is written
 * (docs/toolchain.md "Rules our output keeps").
 *
 * Comments on the if, else and endif lines move, as whole-line comments, before the first
 * instruction of the new code, of the code from the else-side, and of the selects
 * respectively, or before the line after the if when there is no such instruction.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "waveopt/uniformity.h"
#include "xform/comments.h"
#include "xform/if_to_select.h"
#include "xform/xform.h"

#define PRED_BASE WAVE_REG_PRED(0)

/* One side of the if. */
typedef struct side {
  const char *name;      /* "then-side" or "else-side" */
  wave_node *block;      /* NULL when empty */
  unsigned count;
  wave_cond cond;        /* the lanes that run it, as the if tests them */
  wave_regset defs, uses;
} side;

typedef struct rewrite {
  wave_node *node;
  wave_kernel *kernel;
  const wave_if_to_select_params *p;
  side sides[2];
  uint32_t pred;         /* the if's predicate */
  bool have_taken;
  wave_regset taken;     /* registers the new code may not clobber (wave_xform_taken) */
} rewrite;

static void say(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

static const char *mnemonic(const wave_instr *i) {
  return wave_opcode_get(wave_instr_op(i))->mnemonic;
}

static wave_instr *first_instr(const side *s) {
  return s->block ? wave_block_first(s->block) : NULL;
}

static wave_cond guard_of(const wave_instr *i) {
  return wave_cond_of((uint32_t)wave_instr_guard(i), wave_instr_guard_negated(i));
}

static unsigned count_range(wave_regset set, unsigned from, unsigned end) {
  unsigned n = 0;
  for (unsigned r = from; r < end; r++)
    n += wave_regset_test(set, r);
  return n;
}

static wave_regset regset_of(unsigned reg) {
  wave_regset s = wave_regset_empty();
  wave_regset_set(&s, reg);
  return s;
}

/* What keeps an instruction out of both forms, or NULL. */
static const char *refusal_class(const wave_instr *i) {
  wave_opcode op = wave_instr_op(i);
  if (wave_instr_is_convergent(i))
    return "convergent";
  if (wave_opcode_has(op, WAVE_F_RMW))
    return "atomic";
  if (wave_opcode_has(op, WAVE_F_READS_MEM | WAVE_F_WRITES_MEM))
    return "memory";
  if (wave_opcode_has(op, WAVE_F_CONTROL | WAVE_F_STRUCTURED | WAVE_F_EXIT | WAVE_F_CALL))
    return "control flow";
  if (wave_opcode_has(op, WAVE_F_ORDERING))
    return "ordering";
  if (wave_opcode_has(op, WAVE_F_PSEUDO))
    return "documentation-dialect form";
  if (!wave_opcode_has(op, WAVE_F_PURE) || !wave_instr_can_guard(i))
    return "not computation";
  return NULL;
}

/* Reads one side; false with the reason when it is no candidate. */
static bool read_side(side *s, wave_node_list *list, char *why, size_t size) {
  s->block = NULL;
  s->count = 0;
  s->defs = s->uses = wave_regset_empty();
  for (wave_node *n = wave_node_list_first(list); n; n = wave_node_next(n)) {
    if (wave_node_kind_of(n) == WAVE_NODE_BLOCK)
      continue;
    wave_loc loc = wave_node_kind_of(n) == WAVE_NODE_IF ? wave_node_origin(n, WAVE_LINE_IF).loc
                                                        : wave_node_origin(n, WAVE_LINE_LOOP).loc;
    say(why, size, "%s holds a nested %s at %u:%u", s->name,
        wave_node_kind_of(n) == WAVE_NODE_IF ? "if" : "loop", loc.line, loc.col);
    return false;
  }
  if (!wave_node_list_first(list))
    return true;
  s->block = wave_node_list_first(list);
  for (wave_node *b = wave_node_list_first(list); b; b = wave_node_next(b)) {
    wave_foreach_instr(i, b) {
      const char *cls = refusal_class(i);
      if (cls) {
        say(why, size, "%s holds %s at %u:%u (%s)", s->name, mnemonic(i), wave_instr_loc(i).line,
            wave_instr_loc(i).col, cls);
        return false;
      }
      wave_regset uses, defs;
      wave_instr_uses(i, &uses);
      wave_instr_defs(i, &defs);
      s->defs = wave_regset_union(s->defs, defs);
      s->uses = wave_regset_union(s->uses, uses);
      s->count++;
    }
  }
  if (wave_node_list_first(list) != wave_node_list_last(list)) {
    say(why, size, "%s is not in normal form", s->name);
    return false;
  }
  return true;
}

static const wave_regset *taken(rewrite *rw) {
  if (!rw->have_taken) {
    rw->taken = wave_xform_taken_with(rw->p->liveness, rw->node, rw->p->kernel_taken);
    rw->have_taken = true;
  }
  return &rw->taken;
}

/* The predicates p1..p3 nothing needs, into spare[]; returns how many. p0 is left out: the
 * scratch predicates here guard, or are renamed guards. */
static unsigned free_preds(rewrite *rw, uint32_t spare[3]) {
  unsigned n = 0;
  for (uint32_t p = 1; p < WAVE_NUM_PREDS; p++)
    if (!wave_regset_test(*taken(rw), WAVE_REG_PRED(p)))
      spare[n++] = p;
  return n;
}

static void scratch_init(rewrite *rw, wave_scratch *s) {
  wave_scratch_init(s, rw->kernel, *taken(rw), rw->p->max_registers);
}

/* Instructions wave_cond_emit_copy and wave_cond_emit(AND) write, as xform/xform.h builds
 * them: compares guarded by the operands where the target honours those guards, else the
 * select idiom. dst is never an operand's predicate here. */
static bool cond_needs_gprs(const wave_target *t, uint32_t dst, wave_cond a, wave_cond c) {
  return wave_cond_gprs_needed(t, dst, a, WAVE_COND_AND, c) != 0;
}
static unsigned copy_cost(const wave_target *t, uint32_t dst, wave_cond a) {
  return cond_needs_gprs(t, dst, a, a) ? 4 : 2;
}
static unsigned and_cost(const wave_target *t, uint32_t dst, wave_cond a, wave_cond c) {
  return cond_needs_gprs(t, dst, a, c) ? 5 : 3;
}

/* ---- the guarded form --------------------------------------------------------------------- */

typedef struct guard_plan {
  bool ok;
  char why[160];
  bool copy;             /* the guards test a scratch copy of the if's test */
  wave_cond copied;      /* what the copy holds: the if's test or its negation */
  uint32_t copy_pred;
  bool combine;          /* some instruction needs its guard combined with the side's */
  uint32_t combine_pred;
  bool needs_gprs;       /* a copy or a combination takes the select idiom */
  unsigned cost;
} guard_plan;

/* What a side's instruction becomes in the guarded form. */
typedef enum guard_fate { TAKES_SIDE_GUARD, NEVER_RUNS, COMBINED } guard_fate;

/* `written`: an earlier instruction of the same side wrote the if's predicate. */
static guard_fate fate_of(const rewrite *rw, const side *s, const wave_instr *i, bool written) {
  if (wave_instr_guard(i) == WAVE_NO_GUARD)
    return TAKES_SIDE_GUARD;
  if ((uint32_t)wave_instr_guard(i) != rw->pred || written)
    return COMBINED;
  return (bool)wave_instr_guard_negated(i) == s->cond.negated ? TAKES_SIDE_GUARD : NEVER_RUNS;
}

/* The guard a side's instructions take under the plan. */
static wave_cond side_guard(const rewrite *rw, const guard_plan *gp, unsigned k) {
  if (!gp->copy)
    return rw->sides[k].cond;
  bool same = gp->copied.negated == rw->sides[k].cond.negated;
  return wave_cond_of(gp->copy_pred, !same);
}

/* Whether every instruction taking its side's guard takes it as the target honours. */
static bool side_guards_honoured(const rewrite *rw, const guard_plan *gp, const wave_instr **bad) {
  for (unsigned k = 0; k < 2; k++) {
    const side *s = &rw->sides[k];
    wave_cond g = side_guard(rw, gp, k);
    bool written = false;
    for (const wave_instr *i = first_instr(s); i; i = wave_instr_next(i)) {
      if (fate_of(rw, s, i, written) == TAKES_SIDE_GUARD &&
          !wave_target_honours_guard(rw->p->target, wave_instr_op(i), (int)g.pred, g.negated)) {
        *bad = i;
        return false;
      }
      written |= wave_instr_writes_reg(i, WAVE_REG_PRED(rw->pred));
    }
  }
  return true;
}

static void plan_guarded(rewrite *rw, guard_plan *gp) {
  const wave_target *t = rw->p->target;
  *gp = (guard_plan){0};
  const wave_instr *last = NULL, *writer = NULL;
  for (unsigned k = 0; k < 2; k++)
    for (const wave_instr *i = first_instr(&rw->sides[k]); i; i = wave_instr_next(i))
      last = i;
  for (unsigned k = 0; k < 2 && !writer; k++)
    for (const wave_instr *i = first_instr(&rw->sides[k]); i && !writer; i = wave_instr_next(i))
      if (i != last && wave_instr_writes_reg(i, WAVE_REG_PRED(rw->pred)))
        writer = i;
  const wave_instr *bad = NULL;
  gp->copy = writer || !side_guards_honoured(rw, gp, &bad);
  uint32_t spare[3];
  unsigned num_free = 0, next_free = 0;
  if (gp->copy) {
    num_free = free_preds(rw, spare);
    if (num_free == 0) {
      if (writer)
        say(gp->why, sizeof gp->why,
            "no free predicate to keep the test in while %s at %u:%u writes p%u", mnemonic(writer),
            wave_instr_loc(writer).line, wave_instr_loc(writer).col, rw->pred);
      else if (rw->pred == 0)
        say(gp->why, sizeof gp->why, "p0 cannot guard and no predicate is free to copy it into");
      else
        say(gp->why, sizeof gp->why,
            "the target drops guards on p%u and no predicate is free to copy it into", rw->pred);
      return;
    }
    gp->copy_pred = spare[next_free++];
    wave_cond c = rw->sides[0].cond, not_c = wave_cond_not(c);
    gp->copied = copy_cost(t, gp->copy_pred, not_c) < copy_cost(t, gp->copy_pred, c) ? not_c : c;
    unsigned cost = copy_cost(t, gp->copy_pred, gp->copied);
    gp->cost += cost;
    gp->needs_gprs |= cost > 2;
    if (!side_guards_honoured(rw, gp, &bad)) {
      say(gp->why, sizeof gp->why, "the target drops a guard on %s at %u:%u", mnemonic(bad),
          wave_instr_loc(bad).line, wave_instr_loc(bad).col);
      return;
    }
  }
  for (unsigned k = 0; k < 2; k++) {
    const side *s = &rw->sides[k];
    wave_cond g = side_guard(rw, gp, k);
    bool written = false;
    for (const wave_instr *i = first_instr(s); i; i = wave_instr_next(i)) {
      switch (fate_of(rw, s, i, written)) {
      case TAKES_SIDE_GUARD:
        gp->cost++;
        break;
      case NEVER_RUNS:
        break;
      case COMBINED:
        if (!gp->combine) {
          if (!gp->copy)
            num_free = free_preds(rw, spare);
          if (next_free >= num_free) {
            say(gp->why, sizeof gp->why,
                "no free predicate to combine the guard of %s at %u:%u with the test", mnemonic(i),
                wave_instr_loc(i).line, wave_instr_loc(i).col);
            return;
          }
          gp->combine = true;
          gp->combine_pred = spare[next_free++];
        }
        if (!wave_target_honours_guard(t, wave_instr_op(i), (int)gp->combine_pred, false)) {
          say(gp->why, sizeof gp->why, "the target drops a guard on %s at %u:%u", mnemonic(i),
              wave_instr_loc(i).line, wave_instr_loc(i).col);
          return;
        }
        gp->cost += 1 + and_cost(t, gp->combine_pred, g, guard_of(i));
        gp->needs_gprs |= cond_needs_gprs(t, gp->combine_pred, g, guard_of(i));
        break;
      }
      written |= wave_instr_writes_reg(i, WAVE_REG_PRED(rw->pred));
    }
  }
  if (gp->needs_gprs) {
    wave_scratch s;
    scratch_init(rw, &s);
    if (wave_scratch_gprs_left(&s) < 3) {
      say(gp->why, sizeof gp->why,
          "no 3 free registers for the select idiom that the guard predicate needs");
      return;
    }
  }
  gp->ok = true;
}

/* The first instruction appended to staging after `before` (its last one then), or NULL. */
static wave_instr *added_after(wave_node *staging, wave_instr *before) {
  return before ? wave_instr_next(before) : wave_block_first(staging);
}

static wave_builder builder_at_end(rewrite *rw, wave_node *staging) {
  return wave_builder_at(wave_kernel_module(rw->kernel), wave_cursor_block_end(staging),
                         wave_node_origin(rw->node, WAVE_LINE_IF).loc);
}

/* Where the comments of the if, else and endif lines go: the first instruction of the new
 * code, of the code from the else-side, of the selects. */
typedef struct marks {
  wave_instr *start[3];
} marks;

static bool append_clone(rewrite *rw, wave_node *staging, const wave_instr *i, wave_instr **out) {
  wave_instr *c = wave_instr_clone(wave_kernel_module(rw->kernel), i);
  if (!c)
    return false;
  wave_block_append(staging, c);
  *out = c;
  return true;
}

/* Whether the unguarded constant load i of side k may stay unguarded: its register is dead
 * after the if and the side after it does not read it, so only lanes that never look at the
 * register again see the constant (and licm may then take the load out of a loop). */
static bool constant_stays_unguarded(const rewrite *rw, unsigned k, const wave_instr *i,
                                     wave_regset after) {
  if (wave_instr_guard(i) != WAVE_NO_GUARD ||
      (wave_instr_op(i) != WAVE_OP_MOV_IMM && wave_instr_op(i) != WAVE_OP_MOV_SR))
    return false;
  unsigned d = WAVE_REG_GPR(wave_instr_operand(i, 0).value);
  return !wave_regset_test(after, d) && (k == 1 || !wave_regset_test(rw->sides[1].uses, d));
}

static bool emit_guarded(rewrite *rw, const guard_plan *gp, wave_node *staging, marks *mk) {
  const wave_target *t = rw->p->target;
  wave_regset after = wave_liveness_at(rw->p->liveness, wave_cursor_after_node(rw->node));
  wave_scratch scratch = {0};
  if (gp->needs_gprs)
    scratch_init(rw, &scratch);
  if (gp->copy) {
    wave_builder b = builder_at_end(rw, staging);
    wave_scratch s = scratch;
    if (!wave_cond_emit_copy(&b, t, &s, gp->copy_pred, gp->copied))
      return false;
  }
  for (unsigned k = 0; k < 2; k++) {
    const side *s = &rw->sides[k];
    wave_cond g = side_guard(rw, gp, k);
    wave_instr *before = wave_block_last(staging);
    bool written = false;
    for (const wave_instr *i = first_instr(s); i; i = wave_instr_next(i)) {
      guard_fate fate = fate_of(rw, s, i, written);
      written |= wave_instr_writes_reg(i, WAVE_REG_PRED(rw->pred));
      if (fate == NEVER_RUNS)
        continue;
      wave_cond guard = g;
      if (fate == COMBINED) {
        wave_builder b = builder_at_end(rw, staging);
        wave_scratch sc = scratch;
        if (!wave_cond_emit(&b, t, &sc, gp->combine_pred, g, WAVE_COND_AND, guard_of(i)))
          return false;
        guard = wave_cond_of(gp->combine_pred, false);
      }
      wave_instr *c;
      if (!append_clone(rw, staging, i, &c))
        return false;
      if (!constant_stays_unguarded(rw, k, i, after))
        wave_instr_set_guard(c, (int)guard.pred, guard.negated);
    }
    if (k == 1)
      mk->start[1] = added_after(staging, before);
  }
  return true;
}

/* ---- the select form ---------------------------------------------------------------------- */

typedef struct select_plan {
  bool ok;
  char why[160];
  unsigned first;             /* the side computed first */
  wave_regset rename[2];      /* per side: the registers it writes into scratch registers */
  wave_regset results;        /* the GPRs that get a select */
  unsigned gprs, preds, movs, cost;
} select_plan;

/* Why an instruction cannot be renamed and speculated, or NULL. */
static const char *select_refusal(const wave_instr *i) {
  if (!wave_instr_can_speculate(i))
    return "may trap";
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(i, refs);
  for (unsigned r = 0; r < n; r++)
    if (refs[r].count > 1)
      return "register pairs";
  for (unsigned s = 0; s < wave_instr_num_operands(i); s++)
    if (wave_instr_operand(i, s).kind == WAVE_OPERAND_SREG &&
        !wave_opcode_reads_sreg(wave_instr_op(i), s))
      return "special register read as a GPR";
  return NULL;
}

/* Movs the side needs (a guarded instruction whose destination moves to a scratch register
 * starts from its old value); false when a guarded compare would need its predicate renamed. */
static bool count_movs(const side *s, wave_regset rename, unsigned *movs, const wave_instr **bad) {
  wave_regset done = wave_regset_empty();
  for (const wave_instr *i = first_instr(s); i; i = wave_instr_next(i)) {
    wave_regset defs;
    wave_instr_defs(i, &defs);
    wave_regset moved = wave_regset_intersect(defs, rename);
    if (wave_instr_guard(i) != WAVE_NO_GUARD && !wave_regset_is_empty(moved)) {
      if (count_range(moved, PRED_BASE, WAVE_NUM_REGS)) {
        *bad = i;
        return false;
      }
      *movs += !wave_regset_is_empty(wave_regset_subtract(moved, done));
    }
    done = wave_regset_union(done, defs);
  }
  return true;
}

static void plan_select(rewrite *rw, select_plan *sp) {
  *sp = (select_plan){0};
  for (unsigned k = 0; k < 2; k++)
    for (const wave_instr *i = first_instr(&rw->sides[k]); i; i = wave_instr_next(i)) {
      const char *why = select_refusal(i);
      if (why) {
        say(sp->why, sizeof sp->why, "%s holds %s at %u:%u (%s)", rw->sides[k].name, mnemonic(i),
            wave_instr_loc(i).line, wave_instr_loc(i).col, why);
        return;
      }
    }
  wave_regset after = wave_liveness_at(rw->p->liveness, wave_cursor_after_node(rw->node));
  wave_regset written = wave_regset_union(rw->sides[0].defs, rw->sides[1].defs);
  wave_regset live_written = wave_regset_intersect(written, after);
  for (uint32_t p = 0; p < WAVE_NUM_PREDS; p++) {
    if (!wave_regset_test(live_written, WAVE_REG_PRED(p)))
      continue;
    say(sp->why, sizeof sp->why,
        "p%u is written by the %s and live after the if (no select for predicates)", p,
        wave_regset_test(rw->sides[0].defs, WAVE_REG_PRED(p)) ? "then-side" : "else-side");
    return;
  }
  sp->results = live_written;
  wave_regset pred = regset_of(WAVE_REG_PRED(rw->pred));
  bool found = false;
  const wave_instr *bad = NULL;
  for (unsigned first = 0; first < 2; first++) {
    const side *f = &rw->sides[first], *d = &rw->sides[1 - first];
    wave_regset rename[2];
    rename[first] = wave_regset_intersect(
        f->defs, wave_regset_union(after, wave_regset_union(d->uses, pred)));
    rename[1 - first] = wave_regset_intersect(
        d->defs, wave_regset_union(pred, wave_regset_subtract(after, f->defs)));
    unsigned movs = 0;
    if (!count_movs(f, rename[first], &movs, &bad) ||
        !count_movs(d, rename[1 - first], &movs, &bad))
      continue;
    unsigned gprs = count_range(rename[0], 0, PRED_BASE) + count_range(rename[1], 0, PRED_BASE);
    unsigned pf = count_range(rename[0], PRED_BASE, WAVE_NUM_REGS);
    unsigned pd = count_range(rename[1], PRED_BASE, WAVE_NUM_REGS);
    unsigned preds = pf > pd ? pf : pd;
    if (found && (gprs > sp->gprs || (gprs == sp->gprs && movs >= sp->movs)))
      continue;
    found = true;
    sp->first = first;
    sp->rename[0] = rename[0];
    sp->rename[1] = rename[1];
    sp->gprs = gprs;
    sp->preds = preds;
    sp->movs = movs;
  }
  if (!found) {
    say(sp->why, sizeof sp->why, "the guarded compare %s at %u:%u would need its predicate renamed",
        mnemonic(bad), wave_instr_loc(bad).line, wave_instr_loc(bad).col);
    return;
  }
  if (sp->gprs || sp->preds) {
    wave_scratch s;
    scratch_init(rw, &s);
    uint32_t spare[3];
    unsigned left = wave_scratch_gprs_left(&s), preds = free_preds(rw, spare);
    if (left < sp->gprs) {
      say(sp->why, sizeof sp->why, "no free register (%u needed, %u free within .registers %u)",
          sp->gprs, left, s.limit);
      return;
    }
    if (preds < sp->preds) {
      say(sp->why, sizeof sp->why, "no free predicate (%u needed, %u free)", sp->preds, preds);
      return;
    }
  }
  sp->cost = rw->sides[0].count + rw->sides[1].count + sp->movs +
             count_range(sp->results, 0, PRED_BASE);
  sp->ok = true;
}

static wave_operand renamed_operand(wave_operand o, uint16_t reg) {
  o.value = reg >= PRED_BASE ? reg - PRED_BASE : reg;
  return o;
}

/* The register index an operand in slot `slot` names, or -1 when it names none. */
static int slot_reg(const wave_instr *i, unsigned slot) {
  wave_operand o = wave_instr_operand(i, slot);
  switch (wave_opcode_slot_kind(wave_instr_op(i), slot)) {
  case 'd':
  case 'u':
    return o.kind == WAVE_OPERAND_GPR ? (int)WAVE_REG_GPR(o.value) : -1;
  case 'p':
  case 'q':
    return o.kind == WAVE_OPERAND_PRED ? (int)WAVE_REG_PRED(o.value) : -1;
  default:
    return -1;
  }
}

static bool is_def_slot(const wave_instr *i, unsigned slot) {
  char kind = wave_opcode_slot_kind(wave_instr_op(i), slot);
  return kind == 'd' || kind == 'q';
}

/* Emits one side with its renaming; map[] gives each register's name at the side's end. */
static bool emit_renamed_side(rewrite *rw, const side *s, wave_regset rename, wave_scratch *gprs,
                              const uint32_t spare[3], uint16_t map[WAVE_NUM_REGS],
                              wave_node *staging) {
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++)
    map[r] = (uint16_t)r;
  unsigned next_pred = 0;
  for (const wave_instr *i = first_instr(s); i; i = wave_instr_next(i)) {
    wave_instr *c = wave_instr_clone(wave_kernel_module(rw->kernel), i);
    if (!c)
      return false;
    unsigned slots = wave_opcode_num_slots(wave_instr_op(i));
    if (slots > wave_instr_num_operands(i))
      slots = wave_instr_num_operands(i);
    for (unsigned k = 0; k < slots; k++) {
      int r = slot_reg(i, k);
      if (r >= 0 && !is_def_slot(i, k))
        wave_instr_set_operand(c, k, renamed_operand(wave_instr_operand(c, k), map[r]));
    }
    if (wave_instr_guard(i) != WAVE_NO_GUARD)
      wave_instr_set_guard(c, (int)(map[WAVE_REG_PRED(wave_instr_guard(i))] - PRED_BASE),
                           wave_instr_guard_negated(c));
    for (unsigned k = 0; k < slots; k++) {
      int r = slot_reg(i, k);
      if (r < 0 || !is_def_slot(i, k))
        continue;
      if (wave_regset_test(rename, (unsigned)r) && map[r] == r) {
        uint32_t to;
        if (r >= (int)PRED_BASE) {
          to = WAVE_REG_PRED(spare[next_pred++]);
        } else {
          if (!wave_scratch_gpr(gprs, &to))
            return false;
          if (wave_instr_guard(i) != WAVE_NO_GUARD) {
            wave_builder b = builder_at_end(rw, staging);
            if (!wave_build(&b, WAVE_OP_MOV, wave_gpr(to), wave_gpr((uint32_t)r)))
              return false;
          }
        }
        map[r] = (uint16_t)to;
      }
      wave_instr_set_operand(c, k, renamed_operand(wave_instr_operand(c, k), map[r]));
    }
    wave_block_append(staging, c);
  }
  return true;
}

static bool emit_select(rewrite *rw, const select_plan *sp, wave_node *staging, marks *mk) {
  wave_scratch gprs = {0};
  uint32_t spare[3] = {0, 0, 0};
  if (sp->gprs || sp->preds) {
    scratch_init(rw, &gprs);
    free_preds(rw, spare);
  }
  uint16_t map[2][WAVE_NUM_REGS];
  bool ok = true;
  for (unsigned n = 0; n < 2 && ok; n++) {
    unsigned k = n == 0 ? sp->first : 1 - sp->first;
    wave_instr *before = wave_block_last(staging);
    ok = emit_renamed_side(rw, &rw->sides[k], sp->rename[k], &gprs, spare, map[k], staging);
    if (k == 1)
      mk->start[1] = added_after(staging, before);
  }
  wave_instr *before = wave_block_last(staging);
  bool negated = rw->sides[0].cond.negated;
  for (unsigned r = 0; r < PRED_BASE && ok; r++) {
    if (!wave_regset_test(sp->results, r))
      continue;
    wave_operand then_v = wave_gpr(map[0][r]), else_v = wave_gpr(map[1][r]);
    wave_builder b = builder_at_end(rw, staging);
    ok = wave_build(&b, WAVE_OP_SELECT, wave_gpr(r), wave_pred(rw->pred),
                    negated ? else_v : then_v, negated ? then_v : else_v) != NULL;
  }
  mk->start[2] = added_after(staging, before);
  return ok;
}

/* ---- putting it in place ------------------------------------------------------------------ */

/* Records the moves of the comments of the if's lines (see the opening comment), then replaces
 * the if by the staged code. False, with the tree unchanged, when memory ran out. */
static bool install(rewrite *rw, wave_node *staging, marks *mk) {
  wave_node *node = rw->node;
  mk->start[0] = wave_block_first(staging);
  if (!mk->start[1])
    mk->start[1] = mk->start[2];
  wave_code_line lines[3] = {wave_code_node_line(node, WAVE_LINE_IF),
                             wave_code_node_line(node, WAVE_LINE_ELSE),
                             wave_code_node_line(node, WAVE_LINE_ENDIF)};
  if (!wave_comment_moves_reserve(rw->p->comments, 3))
    return false;
  /* Last line first, so that lines landing on the same line keep their order. */
  for (size_t k = 3; k-- > 0;)
    wave_comment_moves_add(rw->p->comments, lines[k],
                           mk->start[k] ? wave_code_instr_line(mk->start[k])
                                        : wave_line_after(node));
  wave_node_list with = {0};
  if (wave_block_first(staging))
    wave_node_list_append(&with, staging);
  return wave_node_replace(node, &with);
}

/* ---- the rewrite -------------------------------------------------------------------------- */

/* Issues per run: both sides in the runs that split, the larger one (bounding the side that
 * ran) in the others, and the mask operations. */
static double cost_before(const rewrite *rw) {
  unsigned t = rw->sides[0].count, e = rw->sides[1].count;
  unsigned ops = 2 + wave_if_has_else(rw->node);
  double r = rw->p->split_rate;
  return r * (t + e) + (1.0 - r) * (t > e ? t : e) + rw->p->target->mask_op_cost * ops;
}

/* An expected cost as the remarks write it: whole numbers bare, others to one decimal. */
static const char *cost_text(double cost, char *buf, size_t size) {
  snprintf(buf, size, cost == (double)(long long)cost ? "%.0f" : "%.1f", cost);
  return buf;
}

const char *wave_if_to_select_form_name(wave_if_to_select_form form) {
  return form == WAVE_IF_TO_SELECT_GUARDED ? "guarded"
         : form == WAVE_IF_TO_SELECT_SELECT ? "select"
                                            : "min/max";
}

/* ---- the min/max form --------------------------------------------------------------------- */

/* The last instruction before `before` in its block that may write GPR r, or NULL. */
static const wave_instr *last_write_before(const wave_instr *before, uint32_t r) {
  for (const wave_instr *in = wave_instr_prev(before); in; in = wave_instr_prev(in)) {
    if (wave_regset_test(wave_xform_may_write(in), WAVE_REG_GPR(r)))
      return in;
  }
  return NULL;
}

/* A clamp: `cmp p, x, c` (or c, x) right before `if p  mov x, c  endif` (or `mov_imm x, K` with
 * c loaded with K before the compare in its block), the compare a signed icmp_lt/le/gt/ge and
 * p dead after the if. Lanes where x < c (x <= c) take c, the others keep x: x = imax(x, c);
 * x > c (x >= c) gives imin. On the match *cmp is the compare, *x and *c the registers and
 * *op the opcode to write. */
static bool clamp_of(const rewrite *rw, wave_instr **cmp_out, uint32_t *x, uint32_t *c,
                     wave_opcode *op) {
  const wave_node *node = rw->node;
  const wave_instr *mv = first_instr(&rw->sides[0]);
  const wave_node *prev = wave_node_prev(node);
  if (rw->sides[0].count != 1 || rw->sides[1].count != 0 || wave_if_cond(node).negated ||
      wave_instr_guard(mv) != WAVE_NO_GUARD ||
      (wave_instr_op(mv) != WAVE_OP_MOV && wave_instr_op(mv) != WAVE_OP_MOV_IMM) || !prev ||
      wave_node_kind_of(prev) != WAVE_NODE_BLOCK || !rw->p->liveness)
    return false;
  wave_instr *cmp = wave_block_last(prev);
  if (!cmp || wave_instr_guard(cmp) != WAVE_NO_GUARD || wave_instr_num_operands(cmp) != 3 ||
      wave_instr_operand(cmp, 0).kind != WAVE_OPERAND_PRED ||
      wave_instr_operand(cmp, 0).value != rw->pred)
    return false;
  bool less;
  switch (wave_instr_op(cmp)) {
  case WAVE_OP_ICMP_LT:
  case WAVE_OP_ICMP_LE: less = true; break;
  case WAVE_OP_ICMP_GT:
  case WAVE_OP_ICMP_GE: less = false; break;
  default: return false;
  }
  wave_operand a = wave_instr_operand(cmp, 1), b = wave_instr_operand(cmp, 2);
  wave_operand d = wave_instr_operand(mv, 0), s = wave_instr_operand(mv, 1);
  if (a.kind != WAVE_OPERAND_GPR || b.kind != WAVE_OPERAND_GPR || a.value == b.value ||
      d.kind != WAVE_OPERAND_GPR || (d.value != a.value && d.value != b.value))
    return false;
  *x = d.value;
  *c = d.value == a.value ? b.value : a.value;
  if (wave_instr_op(mv) == WAVE_OP_MOV) {
    if (s.kind != WAVE_OPERAND_GPR || s.value != *c)
      return false;
  } else {
    const wave_instr *load = last_write_before(cmp, *c);
    if (!load || wave_instr_op(load) != WAVE_OP_MOV_IMM ||
        wave_instr_guard(load) != WAVE_NO_GUARD || wave_instr_operand(load, 0).value != *c ||
        wave_instr_operand(load, 1).value != s.value)
      return false;
  }
  if (wave_regset_test(wave_liveness_at(rw->p->liveness, wave_cursor_after_node(rw->node)),
                       WAVE_REG_PRED(rw->pred)))
    return false;
  /* x < c takes c: the maximum; c < x (x first as the compare's second operand) the minimum. */
  *op = less == (a.value == *x) ? WAVE_OP_IMAX : WAVE_OP_IMIN;
  *cmp_out = cmp;
  return true;
}

/* Writes the clamp's imax or imin in place of the if and removes the compare, whose comments
 * it takes; false when memory runs out (the kernel then unchanged). */
static bool emit_clamp(rewrite *rw, wave_instr *cmp, uint32_t x, uint32_t c, wave_opcode op) {
  wave_node *staging = wave_block_create(wave_kernel_module(rw->kernel));
  if (!staging)
    return false;
  wave_builder b = builder_at_end(rw, staging);
  b.loc = wave_instr_loc(cmp);
  wave_instr *m = wave_build(&b, op, wave_gpr(x), wave_gpr(x), wave_gpr(c));
  if (!m)
    return false;
  /* The compare's comments go with the instruction that takes its place. */
  wave_src origin = wave_instr_origin(m), from = wave_instr_origin(cmp);
  origin.comment = from.comment;
  origin.leading = from.leading;
  marks mk = {{NULL, NULL, NULL}};
  if (!wave_instr_set_origin(m, &origin) || !install(rw, staging, &mk))
    return false;
  wave_instr_remove(cmp);
  return true;
}

bool wave_if_to_select_candidate(wave_node *node, wave_if_to_select_outcome *out) {
  *out = (wave_if_to_select_outcome){0};
  wave_cond c = wave_cond_of(wave_if_cond(node).value, wave_if_cond(node).negated);
  side then = {.name = "then-side", .cond = c},
       els = {.name = "else-side", .cond = wave_cond_not(c)};
  return read_side(&then, wave_if_then(node), out->reason, sizeof out->reason) &&
         read_side(&els, wave_if_else(node), out->reason, sizeof out->reason);
}

wave_if_to_select_status wave_if_to_select_rewrite(wave_node *node,
                                                   const wave_if_to_select_params *params,
                                                   wave_if_to_select_outcome *out) {
  *out = (wave_if_to_select_outcome){0};
  rewrite rw = {.node = node, .p = params};
  rw.kernel = wave_node_region(node)->kernel;
  rw.pred = wave_if_cond(node).value;
  wave_cond c = wave_cond_of(rw.pred, wave_if_cond(node).negated);
  rw.sides[0] = (side){.name = "then-side", .cond = c};
  rw.sides[1] = (side){.name = "else-side", .cond = wave_cond_not(c)};
  if (!read_side(&rw.sides[0], wave_if_then(node), out->reason, sizeof out->reason) ||
      !read_side(&rw.sides[1], wave_if_else(node), out->reason, sizeof out->reason))
    return WAVE_IF_TO_SELECT_REFUSED;
  unsigned larger = rw.sides[0].count > rw.sides[1].count ? rw.sides[0].count : rw.sides[1].count;
  if (larger > params->side_limit) {
    if (params->split_rate > 0.0)
      say(out->reason, sizeof out->reason, "sides too large (%u > %u)", larger,
          params->side_limit);
    else
      say(out->reason, sizeof out->reason, "uniform and a side has %u instructions (limit %u)",
          larger, params->side_limit);
    return WAVE_IF_TO_SELECT_REFUSED;
  }
  out->cost_before = cost_before(&rw);
  wave_instr *clamp_cmp;
  uint32_t clamp_x, clamp_c;
  wave_opcode clamp_op;
  if (clamp_of(&rw, &clamp_cmp, &clamp_x, &clamp_c, &clamp_op)) {
    out->form = WAVE_IF_TO_SELECT_MINMAX;
    out->cost_after = 1;
    return emit_clamp(&rw, clamp_cmp, clamp_x, clamp_c, clamp_op) ? WAVE_IF_TO_SELECT_DONE
                                                                  : WAVE_IF_TO_SELECT_NO_MEMORY;
  }
  guard_plan gp;
  select_plan sp;
  plan_guarded(&rw, &gp);
  plan_select(&rw, &sp);
  if (!gp.ok && !sp.ok) {
    say(out->reason, sizeof out->reason, "guarded form: %s; select form: %s", gp.why, sp.why);
    return WAVE_IF_TO_SELECT_REFUSED;
  }
  out->form = gp.ok && (!sp.ok || gp.cost <= sp.cost) ? WAVE_IF_TO_SELECT_GUARDED
                                                      : WAVE_IF_TO_SELECT_SELECT;
  out->cost_after = out->form == WAVE_IF_TO_SELECT_GUARDED ? gp.cost : sp.cost;
  if (params->require_profit && out->cost_after > out->cost_before) {
    char before[32];
    cost_text(out->cost_before, before, sizeof before);
    if (gp.ok && sp.ok)
      say(out->reason, sizeof out->reason,
          "the straight-line code costs %u instructions (guarded) or %u (select), the if %s",
          gp.cost, sp.cost, before);
    else
      say(out->reason, sizeof out->reason,
          "the %s code costs %u instructions, the if %s; %s form: %s",
          wave_if_to_select_form_name(out->form), out->cost_after, before,
          gp.ok ? "select" : "guarded", gp.ok ? sp.why : gp.why);
    return WAVE_IF_TO_SELECT_REFUSED;
  }
  uint32_t registers = wave_kernel_registers(rw.kernel);
  bool has_registers = wave_kernel_has_registers(rw.kernel);
  wave_node *staging = wave_block_create(wave_kernel_module(rw.kernel));
  marks mk = {{NULL, NULL, NULL}};
  bool ok =
      staging && (out->form == WAVE_IF_TO_SELECT_GUARDED ? emit_guarded(&rw, &gp, staging, &mk)
                                                         : emit_select(&rw, &sp, staging, &mk));
  if (!ok || !install(&rw, staging, &mk)) {
    if (has_registers)
      wave_kernel_set_registers(rw.kernel, registers);
    else
      wave_kernel_clear_registers(rw.kernel);
    return WAVE_IF_TO_SELECT_NO_MEMORY;
  }
  return WAVE_IF_TO_SELECT_DONE;
}

/* ---- the pass ----------------------------------------------------------------------------- */

enum { OPT_LIMIT, OPT_UNIFORM_LIMIT };

static const wave_pass_option_info options[] = {
    [OPT_LIMIT] = {"if-to-select-limit",
                   "most instructions either side of a divergent if may hold to be converted", 8},
    [OPT_UNIFORM_LIMIT] = {"if-to-select-uniform-limit",
                           "most instructions either side of a uniform if may hold to be "
                           "converted",
                           1},
};

static unsigned option_count(wave_pass_context *ctx, size_t index) {
  int64_t v = wave_pass_option(ctx, index);
  return v < 0 ? 0 : v > 1000000 ? 1000000 : (unsigned)v;
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  size_t num_ifs = 0;
  wave_node *const *ifs = wave_xform_collect_ifs(am, kernel, WAVE_INNER_IFS_FIRST, &num_ifs);
  if (!ifs)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in if-to-select");
  if (num_ifs == 0)
    return wave_pass_done(false, WAVE_PRESERVE_ALL);
  wave_comment_moves *comments = wave_comment_moves_create(wave_kernel_module(kernel));
  if (!comments)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in if-to-select");
  wave_if_to_select_params params = {
      .target = wave_pass_target(ctx),
      .comments = comments,
      .max_registers = wave_pass_max_registers(ctx, kernel),
      .require_profit = true,
  };
  /* Fetched at the first if whose sides the rewrite could take, before any rewrite: a kernel
   * whose ifs all hold memory or control flow costs one walk, no analysis. */
  const wave_uniformity *uniformity = NULL;
  unsigned limit = option_count(ctx, OPT_LIMIT),
           uniform_limit = option_count(ctx, OPT_UNIFORM_LIMIT);
  bool changed = false;
  for (size_t k = 0; k < num_ifs; k++) {
    wave_node *node = ifs[k];
    wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
    wave_if_to_select_outcome out;
    if (!wave_if_to_select_candidate(node, &out)) {
      wave_remark_missed(ctx, "if-kept", loc, "if at %u:%u not converted: %s", loc.line, loc.col,
                         out.reason);
      continue;
    }
    if (!uniformity) {
      params.liveness = wave_analysis_get(am, kernel, WAVE_ANALYSIS_LIVENESS);
      uniformity = wave_analysis_get(am, kernel, WAVE_ANALYSIS_UNIFORMITY);
      if (!params.liveness || !uniformity) {
        wave_comment_moves_destroy(comments);
        return wave_pass_fail(ctx, wave_kernel_loc(kernel),
                              "if-to-select: no liveness or uniformity");
      }
      params.kernel_taken = wave_xform_kernel_taken(kernel);
    }
    params.split_rate = wave_xform_if_split_rate(ctx, uniformity, node);
    params.side_limit = params.split_rate > 0.0 ? limit : uniform_limit;
    char before[32];
    switch (wave_if_to_select_rewrite(node, &params, &out)) {
    case WAVE_IF_TO_SELECT_DONE:
      changed = true;
      if (out.form == WAVE_IF_TO_SELECT_GUARDED)
        wave_pass_stat_add(ctx, "ifs-guarded", "Number of ifs turned into guarded code", 1);
      else if (out.form == WAVE_IF_TO_SELECT_SELECT)
        wave_pass_stat_add(ctx, "ifs-selected", "Number of ifs turned into selects", 1);
      else
        wave_pass_stat_add(ctx, "ifs-clamped", "Number of clamps turned into imax or imin", 1);
      wave_remark_passed(ctx, "if-converted", loc,
                         "if at %u:%u converted to %s code: %u instruction%s for %s", loc.line,
                         loc.col, wave_if_to_select_form_name(out.form), out.cost_after,
                         out.cost_after == 1 ? "" : "s",
                         cost_text(out.cost_before, before, sizeof before));
      break;
    case WAVE_IF_TO_SELECT_REFUSED:
      wave_remark_missed(ctx, "if-kept", loc, "if at %u:%u not converted: %s", loc.line, loc.col,
                         out.reason);
      break;
    case WAVE_IF_TO_SELECT_NO_MEMORY:
      wave_comment_moves_destroy(comments);
      return wave_pass_fail(ctx, loc, "out of memory in if-to-select");
    }
  }
  bool written = wave_comment_moves_apply(comments);
  wave_comment_moves_destroy(comments);
  if (!written)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in if-to-select");
  return wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_if_to_select = {
    .name = "if-to-select",
    .help = "replace small ifs by guarded code or selects",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
