/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dce: removes work that no lane can see.
 *
 *   iadd     r5, r1, r2                              an instruction that only writes registers,
 *   mov_imm  r5, 0          ->   mov_imm r5, 0       cannot trap, and whose every result is dead
 *                                                    right after it goes (and the code feeding
 *                                                    it, when that is dead now: one run)
 *   select   r5, p1, r2, r2 ->   mov r5, r2          a select with equal arms is a move, and
 *   select   r2, p1, r2, r2 ->                       moving a register onto itself is nothing
 *
 *   if p1                        if p1               two ifs side by side on the same predicate,
 *     A                            A                 which the first does not write, become one
 *   else                           B                 (either may lack its else)
 *     A'                         else
 *   endif                   ->     A'
 *   if p1                          B'
 *     B                          endif
 *   else
 *     B'
 *   endif
 *
 *   icmp_lt  p1, r1, r2                              an if none of whose contents is needed,
 *   if p1                   ->   (nothing)           with the compare of its predicate and the
 *     iadd  r5, r1, r2                               ifs nested in it: in one run
 *   endif
 *
 *   mov_imm  r7, 1               mov_imm r7, 1       a register set again to the constant it
 *   ...                     ->   ...                 already holds in every lane that runs the
 *   mov_imm  r7, 1                                   second mov_imm: the second goes
 *
 * Why each is safe:
 *   - Dead code. Strong liveness (waveopt/liveness.h, the `strong-liveness` analysis) answers
 *     per lane: may this lane still read the register in an instruction that is needed? An
 *     instruction that writes only registers, each dead right after it in every lane that runs
 *     it, changes nothing a lane reads later, whatever mask it runs under: a write inside an
 *     if or under a guard is no different, since liveness keeps the value live wherever lanes
 *     that skipped the write read it (docs/language.md "Partial definitions"), and where other
 *     lanes read it through a shuffle. Only instructions that wave_instr_can_speculate allows
 *     go, pure and unable to trap ("Effect classes"): not memory, not wave operations
 *     (convergent), and not idiv, imod, iclamp or fclamp. Those trap only where the spec
 *     leaves the behaviour undefined, so removing them would be allowed, but the interpreter
 *     stops with an error there and tests rely on the optimizer not turning a failing run into
 *     a passing one; keeping them is the conservative choice. Strong liveness already counts
 *     every such instruction with dead results as absent, so the reads of one dead instruction
 *     keep nothing else alive: a chain of dead code, through ifs, loop back edges, breaks and
 *     falls into the next region, goes in one sweep, and so does a value that only feeds
 *     itself around a loop (`@p1 iadd r7, r7, r2` with r7 read nowhere else), which liveness
 *     alone keeps live through its own read. Each removal leaves every answer as it was: the
 *     removed instruction read nothing that counted and wrote nothing live. Only a select the
 *     sweep folds into a move reads less than the analysis assumed (its predicate), so after
 *     a fold the pass sweeps again on fresh strong liveness: up to dce-max-rounds sweeps
 *     (default 3). Having swept until a sweep folded nothing, it reports its output as its
 *     own fixpoint (wave_pass_done_settled); not when the rounds ran out first.
 *   - Ifs that hold nothing needed. Strong liveness counts an if's predicate read only when
 *     something inside the if is needed (an instruction that may not be removed or whose
 *     results are live, or a loop), so the compare computing a predicate that only such ifs
 *     read is dead, and goes in the same sweep as the ifs' contents (LLVM's ADCE reasons the
 *     same way with control dependence). After the sweeps such an if holds nothing: running
 *     it changes no register and no memory, and the mask at its endif is the mask at its if
 *     (simplify-cfg's argument for an empty if), so it goes too, inner ifs first. Loops stay
 *     whatever they hold: removing one that never ends would change what the kernel does.
 *   - Select. Both arms name the same register (sr_N in that slot is rN), or the same
 *     documentation-dialect immediate, so every lane gets that value whatever the predicate;
 *     the move keeps the guard. When the register is the destination itself, nothing changes.
 *   - If merging. At the second `if` the active lanes are those active at the first one minus
 *     the lanes that ended or left the loop inside it (docs/language.md "If and else"). Since
 *     the first if does not write p, each remaining lane takes the same side of both ifs, and
 *     the lanes running the merged then-side at the end of A are exactly that set: the lanes
 *     that halted, broke or continued inside A are missing from both. So every lane runs the
 *     same code in the same order, and the divergence depth does not grow. (The upstream
 *     emulator brings lanes that broke inside A back at its endif, docs/toolchain.md "Break
 *     inside an if", and runs B in them; merged, it no longer does, as the spec says. Such an
 *     input already runs wrongly there, and the output has no construct the input lacked.) A
 *     call inside the first if may write p, and a return leaves with frames open, so both
 *     stop a merge. What changes is the
 *     order between lanes: A, A', B, B' becomes A, B, A', B'. A' and B run in disjoint lanes,
 *     so registers cannot tell; memory, traps and other lanes' registers could, so when both
 *     are non-empty neither may hold a convergent or ordering instruction, and they may not
 *     both touch memory (or trap) with one of them writing it.
 *   - Repeated constants. A forward walk keeps, per GPR, the unguarded mov_imm that last set it
 *     with nothing writing it since. Every lane that reaches a later point of the same list,
 *     of a list nested in it or of the code after a nested if or loop, ran that mov_imm and
 *     kept its value; a second mov_imm of the same value is a no-op in each of its lanes.
 *     Entering a loop forgets everything (its body runs again after writes further down), and
 *     so does a call (the callee shares the registers). A region starts knowing nothing.
 *
 * The sweeps come first, while liveness is at hand, then the ifs left holding nothing; merging
 * and the constants need no liveness and follow, once each. When they changed something the
 * sweeps run again on fresh liveness: a merge kills values that the junction between the two
 * ifs kept alive. Ifs that a removed constant leaves side by side wait for the next run of the
 * pass.
 *
 * It refuses, with a missed remark (-pass-remarks-missed=dce) naming the construct:
 *   - an instruction whose results are dead but that writes memory, is convergent, reads memory
 *     or may trap (a store, an atomic, a wave operation, a load, idiv);
 *   - a pure instruction whose value is overwritten later in only some lanes (inside an if, or
 *     under a guard): the lanes that skip the write still read it;
 *   - a select whose arms differ;
 *   - two ifs on the same predicate when the first writes it, when one holds a call or a
 *     return, or when the order they would swap in matters (above); and two ifs on the same
 *     predicate with code between them (the code may write the predicate, and moving it is
 *     not this pass's job).
 * The missed remarks about dead code come from one more sweep over the kernel as the pass
 * leaves it, which changes nothing: asking for them does not change the output.
 * Comments on the endif and if lines that a merge removes move before the line that follows
 * them; comments on removed instructions leave with them.
 */
#include <stdio.h>
#include <string.h>

#include "ir/code.h"
#include "ir/layout.h"
#include "pm/builtin.h"
#include "support/grow.h"
#include "support/key_index.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "xform/comments.h"
#include "xform/xform.h"

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->mnemonic;
}

static bool has(const wave_instr *in, uint32_t flags) {
  return wave_opcode_has(wave_instr_op(in), flags);
}

/* "r5" or "p1" for an index of waveopt/regset.h. */
static void reg_name(unsigned reg, char buf[8]) {
  if (reg > WAVE_MAX_GPR)
    snprintf(buf, 8, "p%u", reg - (WAVE_MAX_GPR + 1));
  else
    snprintf(buf, 8, "r%u", reg);
}

typedef struct dce {
  wave_kernel *kernel;
  const wave_allocator *allocator; /* the kernel's module's: this and every array below */
  wave_analysis_manager *am;
  wave_pass_context *ctx;
  /* The analysis manager's, for the kernel as it was when fetched; sweeps walk the layout it
   * was computed from (ir/layout.h), which gives them the statements in text order with each
   * instruction's registers decoded. */
  const wave_liveness *lv;
  bool explain;             /* missed remarks are wanted */
  bool dry;                 /* explain only: change nothing */
  bool changed;
  bool rounds_ran_out;       /* a sweep removed something that dce-max-rounds left unfollowed */
  uint64_t removed;          /* in the current sweep */
  uint64_t folded;           /* selects turned into moves, in the current sweep */
  /* Bit i set: the current sweep removed the instruction of its layout's item i. With it,
   * the layout still serves the walk for repeated constants after the sweep removed code.
   * (A removed instruction also has no block, but asking that reads every instruction the
   * walk otherwise knows from the layout alone: 5% of dce on the bench kernel.) */
  uint64_t *gone;
  size_t gone_words;
  /* For explaining a live value: the nearest later write of each register with no read in
   * between, in text order, and its nesting depth. Kept only when explain is set. */
  const wave_instr *later_write[WAVE_NUM_REGS];
  unsigned later_depth[WAVE_NUM_REGS];
} dce;

/* ---- dead code ---------------------------------------------------------------------------- */

/* Why an instruction whose results are all dead stays; NULL when it is no candidate at all
 * (control flow, nop) or when it may go. */
static const char *why_kept(const wave_instr *in) {
  if (wave_instr_can_speculate(in) || has(in, WAVE_F_CONTROL) || wave_instr_op(in) == WAVE_OP_NOP)
    return NULL;
  if (has(in, WAVE_F_WRITES_MEM))
    return "it writes memory";
  if (has(in, WAVE_F_CONVERGENT))
    return "it is convergent";
  if (has(in, WAVE_F_READS_MEM))
    return "it reads memory, which may trap";
  if (has(in, WAVE_F_MAY_TRAP))
    return "it may trap";
  return "it orders memory";
}

/* Says why an instruction with dead results stays: one that writes registers or memory (a
 * barrier or a fence, with neither, is no candidate to speak of). */
static void note_kept(dce *d, const wave_instr *in, const wave_regset *defs) {
  if (!d->explain)
    return;
  const char *why = why_kept(in);
  if (!why || (wave_regset_is_empty(*defs) && !has(in, WAVE_F_WRITES_MEM)))
    return;
  wave_loc loc = wave_instr_loc(in);
  wave_remark_missed(d->ctx, "dead-kept", loc, "'%s' at %u:%u kept%s: %s", mnemonic(in),
                     loc.line, loc.col,
                     wave_regset_is_empty(*defs) ? "" : " although its result is dead", why);
}

static void remove_dead(dce *d, wave_instr *in) {
  wave_loc loc = wave_instr_loc(in);
  wave_remark_passed(d->ctx, "dead-removed", loc, "'%s' at %u:%u removed: its result is dead",
                     mnemonic(in), loc.line, loc.col);
  wave_pass_stat_add(d->ctx, "dead-removed", "Number of dead instructions removed", 1);
  wave_instr_remove(in);
  d->changed = true;
  d->removed++;
}

/* The registers an instruction really reads: wave_instr_uses without the destinations a
 * guard makes inputs (a guarded write reads nothing of its own). */
static wave_regset reads_of(const wave_instr *in) {
  wave_regset uses;
  wave_instr_operand_reads(in, &uses);
  if (wave_instr_guard(in) != WAVE_NO_GUARD)
    wave_regset_set(&uses, WAVE_REG_PRED(wave_instr_guard(in)));
  return uses;
}

/* Explains a pure instruction that stays because a later write of its result covers only
 * some lanes. */
static void explain_live(dce *d, const wave_instr *in, wave_regset live_defs, unsigned depth) {
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++) {
    const wave_instr *w = d->later_write[r];
    if (!wave_regset_test(live_defs, r) || !w ||
        (d->later_depth[r] <= depth && wave_instr_guard(w) == WAVE_NO_GUARD))
      continue;
    char name[8];
    reg_name(r, name);
    wave_remark_missed(d->ctx, "partly-overwritten", wave_instr_loc(in),
                       "'%s' at %u:%u kept: %s is overwritten at %u:%u in only some lanes, and "
                       "the others still read it",
                       mnemonic(in), wave_instr_loc(in).line, wave_instr_loc(in).col, name,
                       wave_instr_loc(w).line, wave_instr_loc(w).col);
    return;
  }
}

/* Records `in` (kept) as the nearest later write of what it writes and a read of what it reads,
 * for instructions before it. */
static void track(dce *d, const wave_instr *in, wave_regset defs, unsigned depth) {
  if (wave_instr_op(in) == WAVE_OP_CALL || wave_instr_op(in) == WAVE_OP_RETURN) {
    memset(d->later_write, 0, sizeof(d->later_write));
    return;
  }
  wave_regset reads = reads_of(in);
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++) {
    if (wave_regset_test(reads, r)) {
      d->later_write[r] = NULL;
    } else if (wave_regset_test(defs, r)) {
      d->later_write[r] = in;
      d->later_depth[r] = depth;
    }
  }
}

/* Forgets the writes recorded inside an if's else-side: they lie on no path of its then-side. */
static void forget_deeper(dce *d, unsigned depth) {
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++)
    if (d->later_depth[r] > depth)
      d->later_write[r] = NULL;
}

/* ---- select with equal arms --------------------------------------------------------------- */

/* Whether two GPR-read operands read the same value: sr_N outside mov and mov_sr is rN. */
static bool same_arm(wave_operand a, wave_operand b) {
  bool reg_a = a.kind == WAVE_OPERAND_GPR || a.kind == WAVE_OPERAND_SREG;
  bool reg_b = b.kind == WAVE_OPERAND_GPR || b.kind == WAVE_OPERAND_SREG;
  if (reg_a || reg_b)
    return reg_a && reg_b && a.value == b.value;
  return a.kind == WAVE_OPERAND_IMM && b.kind == WAVE_OPERAND_IMM && a.value == b.value;
}

/* Turns `select rd, p, a, a` into a move of a; true when it moved nothing (a is rd) and is to
 * be removed. */
static bool fold_select(dce *d, wave_instr *in) {
  if (wave_instr_op(in) != WAVE_OP_SELECT || wave_instr_num_operands(in) != 4)
    return false;
  wave_operand rd = wave_instr_dest(in), a = wave_instr_src(in, 1), b = wave_instr_src(in, 2);
  wave_loc loc = wave_instr_loc(in);
  if (!same_arm(a, b))
    return false;
  bool imm = a.kind == WAVE_OPERAND_IMM;
  if (!imm && a.value == rd.value) {
    wave_remark_passed(d->ctx, "select-removed", loc,
                       "select at %u:%u removed: both arms are its destination r%u", loc.line,
                       loc.col, rd.value);
    wave_pass_stat_add(d->ctx, "selects-folded", "Number of selects with equal arms folded", 1);
    return true;
  }
  wave_operand value = imm ? a : wave_gpr(a.value);
  wave_operand dest = rd;
  wave_instr_set_op(in, imm ? WAVE_OP_MOV_IMM : WAVE_OP_MOV);
  wave_instr_set_num_operands(in, 2);
  wave_instr_set_operand(in, 0, dest);
  wave_instr_set_operand(in, 1, value);
  d->folded++;
  wave_remark_passed(d->ctx, "select-folded", loc,
                     "select at %u:%u is now '%s': its arms are equal", loc.line, loc.col,
                     mnemonic(in));
  wave_pass_stat_add(d->ctx, "selects-folded", "Number of selects with equal arms folded", 1);
  d->changed = true;
  return false;
}

/* ---- the backward sweep ------------------------------------------------------------------- */

/* The registers of a layout list as a set. */
static wave_regset set_of_list(const uint16_t *regs, unsigned n) {
  wave_regset s = wave_regset_empty();
  wave_regset_add_list(&s, regs, n);
  return s;
}

/* One instruction of the layout, met last first; *place is its place in d->lv's text order.
 * What the layout says of it (opcode, registers) holds: only instructions after it have
 * changed. A kept instruction that is no select is not read at all, which spares a cache miss
 * for most of a large kernel. */
static void sweep_instr(dce *d, const wave_layout *layout, const wave_layout_item *item,
                        size_t *place) {
  wave_instr *in = (wave_instr *)wave_layout_instr(item);
  wave_opcode op = (wave_opcode)item->op;
  wave_regset out = wave_liveness_out_near(d->lv, in, place);
  const uint16_t *def_list = wave_layout_defs(layout, item);
  bool dead = !wave_regset_meets_list(&out, def_list, item->num_defs);
  if (dead && wave_opcode_can_speculate(op)) {
    if (!d->dry) {
      remove_dead(d, in);
      size_t i = (size_t)(item - layout->items);
      d->gone[i / 64] |= 1ull << (i % 64);
    }
    return;
  }
  /* An unguarded select reading three registers has arms that differ: no need to look. */
  bool arms_differ = item->guard == WAVE_NO_GUARD && item->num_uses == 3;
  if (op == WAVE_OP_SELECT && !arms_differ && !d->dry && fold_select(d, in)) {
    wave_instr_remove(in);
    d->changed = true;
    d->removed++;
    d->folded++;
    return;
  }
  if (!d->explain)
    return;
  wave_regset defs;
  if (wave_instr_op(in) == op) {
    defs = set_of_list(def_list, item->num_defs);
  } else { /* a select folded into a move */
    wave_regset uses;
    wave_instr_uses_defs(in, &uses, &defs);
  }
  if (wave_instr_op(in) == WAVE_OP_SELECT && wave_instr_num_operands(in) == 4 &&
      !same_arm(wave_instr_src(in, 1), wave_instr_src(in, 2)))
    wave_remark_missed(d->ctx, "select-kept", wave_instr_loc(in),
                       "select at %u:%u kept: its arms differ", wave_instr_loc(in).line,
                       wave_instr_loc(in).col);
  if (dead)
    note_kept(d, in, &defs);
  else if (wave_instr_can_speculate(in))
    explain_live(d, in, wave_regset_intersect(defs, out), item->depth);
  track(d, in, defs, item->depth);
}

/* One region: the layout's items [first, end) (end is its END_REGION), last first; `places`
 * is the count of instructions in the layout up to the region's end. Strong liveness already
 * counts every removable instruction with dead results as gone, so each is judged by its own
 * live-out; the walk goes backwards for the explanations, which want the writes after each
 * instruction. */
static void sweep_region(dce *d, const wave_layout *layout, size_t first, size_t end,
                         size_t places) {
  if (d->explain)
    memset(d->later_write, 0, sizeof(d->later_write));
  for (size_t i = end; i-- > first;) {
    const wave_layout_item *item = &layout->items[i];
    if (item->kind == WAVE_LAYOUT_INSTR) {
      /* The sweep meets every instruction d->lv knows, kept or not, in reverse text order:
       * the layout's, if d->lv was computed from it. */
      size_t place = --places;
      sweep_instr(d, layout, item, &place);
    } else if (d->explain && item->kind == WAVE_LAYOUT_ELSE) {
      forget_deeper(d, item->depth);
    } else if (d->explain && item->kind == WAVE_LAYOUT_IF) {
      d->later_write[WAVE_REG_PRED(item->pred)] = NULL;
    }
  }
}

/* ---- merging ifs -------------------------------------------------------------------------- */

/* What one side of an if holds, as far as merging it with a neighbour cares: the first
 * instruction (in text order) of each kind, or NULL. */
typedef struct side {
  const wave_instr *pred_writer[WAVE_NUM_PREDS];
  const wave_instr *call, *ret;
  const wave_instr *sync;        /* convergent or ordering */
  const wave_instr *mem_writer;
  const wave_instr *mem_user;    /* reads or writes memory, or may trap */
} side;

typedef struct if_sides {
  const wave_node *node;
  side then_side, else_side;
} if_sides;

static void keep_first(const wave_instr **slot, const wave_instr *in) {
  if (!*slot)
    *slot = in;
}

static void side_add(side *s, const wave_instr *in) {
  wave_regset defs;
  wave_instr_defs(in, &defs);
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    if (wave_regset_test(defs, WAVE_REG_PRED(p)))
      keep_first(&s->pred_writer[p], in);
  if (wave_instr_op(in) == WAVE_OP_CALL)
    keep_first(&s->call, in);
  if (wave_instr_op(in) == WAVE_OP_RETURN)
    keep_first(&s->ret, in);
  if (has(in, WAVE_F_CONVERGENT | WAVE_F_ORDERING))
    keep_first(&s->sync, in);
  if (has(in, WAVE_F_WRITES_MEM))
    keep_first(&s->mem_writer, in);
  if (has(in, WAVE_F_READS_MEM | WAVE_F_WRITES_MEM | WAVE_F_MAY_TRAP))
    keep_first(&s->mem_user, in);
}

static void side_join(side *s, const side *t) {
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    keep_first(&s->pred_writer[p], t->pred_writer[p]);
  keep_first(&s->call, t->call);
  keep_first(&s->ret, t->ret);
  keep_first(&s->sync, t->sync);
  keep_first(&s->mem_writer, t->mem_writer);
  keep_first(&s->mem_user, t->mem_user);
}

typedef struct open_list {
  side then_side, current;
} open_list;

/* The sides of every if of the kernel, summarised bottom-up in one walk, and found by node. */
typedef struct summaries {
  if_sides *ifs;
  const void **nodes;            /* each summary's if, in the same order */
  size_t num, cap, cap_nodes;
  wave_key_index by_node;
  open_list *stack;
  size_t cap_stack;
  const wave_allocator *allocator;
} summaries;

static bool summarise(wave_kernel *kernel, summaries *s) {
  wave_foreach_region(r, kernel) {
    size_t depth = 0;
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (wave_walk_next(&w)) {
      open_list *top = depth ? &s->stack[depth - 1] : NULL;
      switch (w.event) {
      case WAVE_WALK_BLOCK:
        if (top)
          wave_foreach_instr(in, w.node) side_add(&top->current, in);
        break;
      case WAVE_WALK_IF:
      case WAVE_WALK_LOOP:
        if (!wave_grow(s->allocator, (void **)&s->stack, &s->cap_stack, depth + 1,
                       sizeof(open_list)))
          return false;
        s->stack[depth++] = (open_list){0};
        break;
      case WAVE_WALK_ELSE:
        top->then_side = top->current;
        top->current = (side){0};
        break;
      case WAVE_WALK_ENDIF:
      case WAVE_WALK_ENDLOOP:
        if (w.event == WAVE_WALK_ENDIF) {
          if (!wave_grow(s->allocator, (void **)&s->ifs, &s->cap, s->num + 1, sizeof(if_sides)) ||
              !wave_grow(s->allocator, (void **)&s->nodes, &s->cap_nodes, s->num + 1,
                         sizeof(*s->nodes)))
            return false;
          s->nodes[s->num] = w.node;
          s->ifs[s->num++] = (if_sides){w.node, top->then_side, top->current};
          side_join(&top->current, &top->then_side);
        }
        if (--depth)
          side_join(&s->stack[depth - 1].current, &top->current);
        break;
      }
    }
  }
  return wave_key_index_build(&s->by_node, s->allocator, s->nodes, s->num);
}

static if_sides *sides_of(summaries *s, const wave_node *node) {
  size_t k = wave_key_index_find(&s->by_node, node);
  return k == WAVE_KEY_NOT_FOUND ? NULL : &s->ifs[k];
}

static bool same_cond(const wave_node *a, const wave_node *b) {
  return wave_if_cond(a).value == wave_if_cond(b).value &&
         wave_if_cond(a).negated == wave_if_cond(b).negated;
}

/* Why the if `second`, right after `first` on the same predicate, may not join it: a reason
 * written into buf, or NULL. */
static const char *merge_refusal(const if_sides *first, const if_sides *second, char *buf,
                                 size_t size) {
  unsigned p = wave_if_cond(first->node).value;
  const side *a = &first->then_side, *a2 = &first->else_side, *b = &second->then_side;
  const wave_instr *in;
  if ((in = a->pred_writer[p]) || (in = a2->pred_writer[p])) {
    snprintf(buf, size, "p%u is written at %u:%u inside the first", p, wave_instr_loc(in).line,
             wave_instr_loc(in).col);
    return buf;
  }
  if ((in = a->call) || (in = a2->call)) {
    snprintf(buf, size, "'call' at %u:%u runs code that may write p%u", wave_instr_loc(in).line,
             wave_instr_loc(in).col, p);
    return buf;
  }
  if ((in = a->ret) || (in = a2->ret) || (in = b->ret)) {
    snprintf(buf, size, "'return' at %u:%u leaves the subroutine from inside",
             wave_instr_loc(in).line, wave_instr_loc(in).col);
    return buf;
  }
  if (!wave_node_list_first(wave_if_else(first->node)) ||
      !wave_node_list_first(wave_if_then(second->node)))
    return NULL;
  /* A' would run after B: what lets the two sides see each other forbids that. */
  const char *swap = "the first else-side would run after the second then-side, and";
  if ((in = a2->sync) || (in = b->sync)) {
    snprintf(buf, size, "%s '%s' at %u:%u is %s", swap, mnemonic(in), wave_instr_loc(in).line,
             wave_instr_loc(in).col, has(in, WAVE_F_CONVERGENT) ? "convergent" : "ordering");
    return buf;
  }
  const wave_instr *other = NULL;
  if ((in = a2->mem_writer) && b->mem_user)
    other = b->mem_user;
  else if ((in = b->mem_writer) && a2->mem_user)
    other = a2->mem_user;
  if (!other)
    return NULL;
  snprintf(buf, size, "%s '%s' at %u:%u writes memory that '%s' at %u:%u may use", swap,
           mnemonic(in), wave_instr_loc(in).line, wave_instr_loc(in).col, mnemonic(other),
           wave_instr_loc(other).line, wave_instr_loc(other).col);
  return buf;
}

/* The first line printed in a list: its first instruction, if or loop line; none (see
 * wave_code_line_exists) when the list is empty. */
static wave_code_line first_line(wave_node_list *list) {
  wave_node *n = wave_node_list_first(list);
  if (!n)
    return wave_code_src_line(NULL);
  return wave_node_kind_of(n) == WAVE_NODE_BLOCK ? wave_code_instr_line(wave_block_first(n))
         : wave_node_kind_of(n) == WAVE_NODE_IF  ? wave_code_node_line(n, WAVE_LINE_IF)
                                                 : wave_code_node_line(n, WAVE_LINE_LOOP);
}

/* Moves the sides of `second` to the ends of `first`'s and removes `second`. False when memory
 * for the comments ran out (the merge is done, only comments are lost). */
static bool merge_ifs(wave_module *module, wave_node *first, wave_node *second) {
  bool first_had_else = wave_if_has_else(first), second_had_else = wave_if_has_else(second);
  wave_code_line b_line = first_line(wave_if_then(second));
  wave_code_line b2_line = first_line(wave_if_else(second));
  /* The first endif's line is overwritten below: its comments travel from a copy. */
  wave_src first_endif = wave_node_origin(first, WAVE_LINE_ENDIF);
  wave_code_line junction[2] = {wave_code_src_line(&first_endif),
                                wave_code_node_line(second, WAVE_LINE_IF)};
  wave_src second_else = wave_node_origin(second, WAVE_LINE_ELSE);
  wave_node_list_reinsert(module, wave_cursor_list_end(wave_if_then(first)), wave_if_then(second));
  wave_node_list_reinsert(module, wave_cursor_list_end(wave_if_else(first)), wave_if_else(second));
  if (!first_had_else && second_had_else) {
    wave_if_set_has_else(first, true);
    wave_node_set_origin(first, WAVE_LINE_ELSE, &second_else);
  }
  wave_src second_endif = wave_node_origin(second, WAVE_LINE_ENDIF);
  wave_node_set_origin(first, WAVE_LINE_ENDIF, &second_endif);
  wave_node_list none = {0};
  wave_node_replace(second, &none);
  /* The endif and if lines stood where A (or A') ends and B (or B') starts. */
  wave_code_line endif = wave_code_node_line(first, WAVE_LINE_ENDIF);
  wave_code_line to = first_had_else ? (wave_code_line_exists(b2_line) ? b2_line : endif)
                      : wave_code_line_exists(b_line) ? b_line
                      : wave_if_has_else(first)       ? wave_code_node_line(first, WAVE_LINE_ELSE)
                                                      : endif;
  bool ok = wave_comment_moves_now(module, junction, 2, to);
  wave_code_line else_line = wave_code_src_line(&second_else);
  if (first_had_else && second_had_else) {
    wave_code_line first_else = wave_code_node_line(first, WAVE_LINE_ELSE);
    ok = wave_comment_moves_now(module, &else_line, 1, first_else) && ok;
  }
  return ok;
}

/* Says why the if after `block` (which follows `first`) is not merged with `first`. */
static void note_code_between(dce *d, const wave_node *first, const wave_node *block) {
  const wave_node *second = wave_node_next(block);
  if (!d->explain || !second || wave_node_kind_of(second) != WAVE_NODE_IF ||
      !same_cond(first, second))
    return;
  unsigned p = wave_if_cond(first).value;
  const wave_instr *at = wave_block_first(block);
  wave_foreach_instr(in, block) {
    if (wave_instr_writes_reg(in, WAVE_REG_PRED(p))) {
      at = in;
      break;
    }
  }
  bool writes = wave_instr_writes_reg(at, WAVE_REG_PRED(p));
  wave_loc loc = wave_node_origin(second, WAVE_LINE_IF).loc;
  wave_remark_missed(d->ctx, "ifs-not-merged", loc,
                     "if at %u:%u not merged with the if at %u:%u: %s at %u:%u lies between them",
                     loc.line, loc.col, wave_node_origin(first, WAVE_LINE_IF).loc.line,
                     wave_node_origin(first, WAVE_LINE_IF).loc.col,
                     writes ? "a write of its predicate" : "code", wave_instr_loc(at).line,
                     wave_instr_loc(at).col);
}

typedef struct if_list {
  wave_node **ifs;
  size_t num, cap;
  bool pairs;       /* some if is followed by one on the same predicate */
  const wave_allocator *allocator;
} if_list;

static bool add_if(if_list *l, wave_node *node) {
  if (!wave_grow(l->allocator, (void **)&l->ifs, &l->cap, l->num + 1, sizeof(*l->ifs)))
    return false;
  l->ifs[l->num++] = node;
  const wave_node *next = wave_node_next(node);
  l->pairs |= next && wave_node_kind_of(next) == WAVE_NODE_IF && same_cond(node, next);
  return true;
}

/* Every if of the kernel in text order: from `layout` when it is given (its ifs are the
 * kernel's), else from a walk. */
static bool collect_ifs(dce *d, const wave_layout *layout, if_list *l) {
  if (layout) {
    for (size_t i = 0; i < layout->num_items; i++)
      if (layout->items[i].kind == WAVE_LAYOUT_IF &&
          !add_if(l, (wave_node *)wave_layout_node(&layout->items[i])))
        return false;
    return true;
  }
  wave_foreach_region(r, d->kernel) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (wave_walk_next(&w))
      if (w.event == WAVE_WALK_IF && !add_if(l, w.node))
        return false;
  }
  return true;
}

/* Merges each if with the ifs on the same predicate that follow it directly, outer ifs first so
 * that ifs brought together by a merge are merged in the same run. */
static bool merge_all(dce *d, const wave_layout *layout) {
  summaries s = {.allocator = d->allocator};
  if_list l = {.allocator = d->allocator};
  bool ok = collect_ifs(d, layout, &l);
  wave_node **ifs = l.ifs;
  size_t num = l.num;
  bool pairs = l.pairs;
  /* Only a merge brings ifs together, so without a pair to start from there is nothing to
   * summarise: a kernel without one costs a walk. */
  if (ok && pairs)
    ok = summarise(d->kernel, &s);
  for (size_t i = 0; ok && i < num; i++) {
    wave_node *first = ifs[i];
    if (!wave_node_list_of(first))
      continue;  /* merged into an earlier one */
    if_sides *fs = sides_of(&s, first);
    for (wave_node *second; (second = wave_node_next(first)) != NULL;) {
      if (wave_node_kind_of(second) == WAVE_NODE_BLOCK)
        note_code_between(d, first, second);
      if (wave_node_kind_of(second) != WAVE_NODE_IF || !same_cond(first, second))
        break;
      if_sides *ss = sides_of(&s, second);
      char why[256];
      wave_loc at = wave_node_origin(second, WAVE_LINE_IF).loc,
               into = wave_node_origin(first, WAVE_LINE_IF).loc;
      if (merge_refusal(fs, ss, why, sizeof(why))) {
        wave_remark_missed(d->ctx, "ifs-not-merged", at,
                           "if at %u:%u not merged with the if at %u:%u: %s", at.line, at.col,
                           into.line, into.col, why);
        break;
      }
      side_join(&fs->then_side, &ss->then_side);
      side_join(&fs->else_side, &ss->else_side);
      ok = merge_ifs(wave_kernel_module(d->kernel), first, second);
      d->changed = true;
      if (!ok)
        break;
      wave_remark_passed(d->ctx, "ifs-merged", at,
                         "if at %u:%u merged into the if at %u:%u: same predicate p%u, which "
                         "the first does not write",
                         at.line, at.col, into.line, into.col, wave_if_cond(first).value);
      wave_pass_stat_add(d->ctx, "ifs-merged", "Number of ifs merged into the if before them",
                         1);
    }
  }
  wave_mem_free(d->allocator, ifs);
  wave_mem_free(d->allocator, s.ifs);
  wave_mem_free(d->allocator, s.nodes);
  wave_key_index_free(&s.by_node);
  wave_mem_free(d->allocator, s.stack);
  return ok;
}

/* ---- repeated constants ------------------------------------------------------------------- */

typedef struct undo {
  uint32_t reg;
  const wave_instr *old;
} undo;

typedef struct scope {
  size_t mark;        /* undo entries before the if or loop */
  wave_regset defs;   /* written anywhere inside it */
} scope;

typedef struct constants {
  const wave_instr *setter[WAVE_MAX_GPR + 1];  /* the mov_imm whose value the GPR holds */
  undo *log;
  size_t num_log, cap_log;
  scope *scopes;
  size_t depth, cap_scopes;
  const wave_allocator *allocator;
} constants;

static bool forget(constants *c, uint32_t r) {
  if (!c->setter[r])
    return true;
  if (!wave_grow(c->allocator, (void **)&c->log, &c->cap_log, c->num_log + 1, sizeof(undo)))
    return false;
  c->log[c->num_log++] = (undo){r, c->setter[r]};
  c->setter[r] = NULL;
  return true;
}

static bool learn(constants *c, uint32_t r, const wave_instr *in) {
  if (!wave_grow(c->allocator, (void **)&c->log, &c->cap_log, c->num_log + 1, sizeof(undo)))
    return false;
  c->log[c->num_log++] = (undo){r, c->setter[r]};
  c->setter[r] = in;
  return true;
}

static bool forget_set(constants *c, wave_regset set) {
  for (unsigned i = 0; i < WAVE_REGSET_WORDS; i++) {
    for (uint64_t bits = set.words[i]; bits; bits &= bits - 1) {
      unsigned r = i * 64 + (unsigned)__builtin_ctzll(bits);
      if (r <= WAVE_MAX_GPR && !forget(c, r))
        return false;
    }
  }
  return true;
}

static void rewind_to(constants *c, size_t mark) {
  while (c->num_log > mark) {
    undo u = c->log[--c->num_log];
    c->setter[u.reg] = u.old;
  }
}

static wave_regset all_gprs(void) {
  wave_regset s = wave_regset_empty();
  wave_regset_set_range(&s, WAVE_REG_GPR(0), WAVE_MAX_GPR + 1);
  return s;
}

static bool is_constant(const wave_instr *in) {
  return wave_instr_op(in) == WAVE_OP_MOV_IMM && wave_instr_num_operands(in) == 2 &&
         wave_instr_operand(in, 0).kind == WAVE_OPERAND_GPR &&
         wave_instr_operand(in, 0).value <= WAVE_MAX_GPR;
}

/* An instruction writes `defs`: what they held is forgotten, here and after the scopes around. */
static bool note_defs(constants *c, wave_regset defs) {
  if (c->depth)
    c->scopes[c->depth - 1].defs = wave_regset_union(c->scopes[c->depth - 1].defs, defs);
  return forget_set(c, defs);
}

/* One instruction, whose definitions are `defs` (a call: every GPR). */
static bool constants_instr(dce *d, constants *c, wave_instr *in, wave_regset defs) {
  bool constant = is_constant(in);
  if (constant) {
    uint32_t r = wave_instr_operand(in, 0).value;
    const wave_instr *set = c->setter[r];
    if (set && wave_instr_operand(set, 1).value == wave_instr_operand(in, 1).value) {
      wave_loc loc = wave_instr_loc(in);
      wave_remark_passed(d->ctx, "constant-removed", loc,
                         "'mov_imm' at %u:%u removed: r%u already holds this value from %u:%u",
                         loc.line, loc.col, r, wave_instr_loc(set).line, wave_instr_loc(set).col);
      wave_pass_stat_add(d->ctx, "constants-removed",
                         "Number of mov_imm removed because the register held the value", 1);
      wave_instr_remove(in);
      d->changed = true;
      return true;
    }
  }
  return note_defs(c, defs) && (!constant || wave_instr_guard(in) != WAVE_NO_GUARD ||
                                learn(c, wave_instr_operand(in, 0).value, in));
}

/* Leaves an if or loop: what held before it still holds unless written inside. */
static bool close_scope(constants *c) {
  scope s = c->scopes[--c->depth];
  rewind_to(c, s.mark);
  if (c->depth)
    c->scopes[c->depth - 1].defs = wave_regset_union(c->scopes[c->depth - 1].defs, s.defs);
  return forget_set(c, s.defs);
}

/* A marker of the walk: if, else, endif, loop or endloop (waveopt's walk events by their
 * layout kinds), or the start of a region. */
static bool constants_marker(constants *c, wave_layout_kind kind) {
  switch (kind) {
  case WAVE_LAYOUT_IF:
  case WAVE_LAYOUT_LOOP:
    if (!wave_grow(c->allocator, (void **)&c->scopes, &c->cap_scopes, c->depth + 1, sizeof(scope)))
      return false;
    c->scopes[c->depth++] = (scope){c->num_log, wave_regset_empty()};
    /* The body runs again after the writes further down in it. */
    return kind != WAVE_LAYOUT_LOOP || forget_set(c, all_gprs());
  case WAVE_LAYOUT_ELSE:
    rewind_to(c, c->scopes[c->depth - 1].mark);
    return true;
  case WAVE_LAYOUT_ENDIF:
  case WAVE_LAYOUT_ENDLOOP:
    return close_scope(c);
  case WAVE_LAYOUT_END_REGION:
    /* A region starts knowing nothing. */
    memset(c->setter, 0, sizeof(c->setter));
    c->num_log = c->depth = 0;
    return true;
  default:
    return true;
  }
}

/* Over the layout, whose statements are the kernel's as they stand but for blocks (dropped or
 * merged since, which nothing here needs) and the instructions the last sweep removed
 * (d->gone), with each instruction's definitions decoded: only mov_imm and calls are read. */
static bool constants_layout(dce *d, constants *c, const wave_layout *layout) {
  bool ok = true;
  for (size_t i = 0; ok && i < layout->num_items; i++) {
    const wave_layout_item *item = &layout->items[i];
    if (item->kind != WAVE_LAYOUT_INSTR) {
      ok = constants_marker(c, (wave_layout_kind)item->kind);
      continue;
    }
    if (d->gone[i / 64] & (1ull << (i % 64)))
      continue;
    wave_instr *in = (wave_instr *)wave_layout_instr(item);
    if (item->op == WAVE_OP_MOV_IMM || item->op == WAVE_OP_CALL) {
      ok = constants_instr(d, c, in, wave_xform_may_write(in));
    } else {
      wave_regset defs = wave_regset_empty();
      wave_regset_add_list(&defs, wave_layout_defs(layout, item), item->num_defs);
      ok = note_defs(c, defs);
    }
  }
  return ok;
}

/* Over the kernel's tree. */
static bool constants_tree(dce *d, constants *c) {
  static const wave_layout_kind kinds[] = {
      [WAVE_WALK_IF] = WAVE_LAYOUT_IF,       [WAVE_WALK_ELSE] = WAVE_LAYOUT_ELSE,
      [WAVE_WALK_ENDIF] = WAVE_LAYOUT_ENDIF, [WAVE_WALK_LOOP] = WAVE_LAYOUT_LOOP,
      [WAVE_WALK_ENDLOOP] = WAVE_LAYOUT_ENDLOOP};
  bool ok = true;
  wave_foreach_region(r, d->kernel) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (ok && wave_walk_next(&w)) {
      if (w.event != WAVE_WALK_BLOCK) {
        ok = constants_marker(c, kinds[w.event]);
        continue;
      }
      wave_foreach_instr_safe(in, w.node) {
        if (!(ok = constants_instr(d, c, in, wave_xform_may_write(in))))
          break;
      }
    }
    ok = ok && constants_marker(c, WAVE_LAYOUT_END_REGION);
  }
  return ok;
}

/* Removes repeated constants, walking `layout` when it is given. */
static bool remove_constants(dce *d, const wave_layout *layout) {
  constants *c = wave_mem_calloc(d->allocator, 1, sizeof(*c));
  if (c)
    c->allocator = d->allocator;
  bool ok = c && (layout ? constants_layout(d, c, layout) : constants_tree(d, c));
  if (c) {
    wave_mem_free(d->allocator, c->log);
    wave_mem_free(d->allocator, c->scopes);
  }
  wave_mem_free(d->allocator, c);
  return ok;
}

/* ---- ifs that hold nothing needed --------------------------------------------------------- */

/* Removes every if that holds nothing once the sweeps are done, inner ifs first (the reverse of
 * text order), so that an if holding only such ifs goes too. Strong liveness did not count
 * their predicates read, so the compares computing them are gone already. The kernel is in
 * normal form: a list holding only removed code holds nothing. `layout`, when not NULL, lists
 * the kernel's ifs (collect_ifs). */
static bool remove_idle_ifs(dce *d, const wave_layout *layout) {
  if_list l = {.allocator = d->allocator};
  wave_comment_moves *moves = wave_comment_moves_create(wave_kernel_module(d->kernel));
  bool ok = moves && collect_ifs(d, layout, &l);
  for (size_t i = l.num; ok && i-- > 0;) {
    wave_node *node = l.ifs[i];
    if (!wave_node_list_is_empty(wave_if_then(node)) ||
        !wave_node_list_is_empty(wave_if_else(node)))
      continue;
    wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
    if (!(ok = wave_comment_moves_remove_if(moves, node)))
      break;
    d->changed = true;
    wave_pass_stat_add(d->ctx, "ifs-removed",
                       "Number of ifs removed, with their predicate, for holding nothing needed",
                       1);
    wave_remark_passed(d->ctx, "idle-if-removed", loc,
                       "if at %u:%u removed: nothing in it is needed", loc.line, loc.col);
  }
  ok = ok && wave_comment_moves_apply(moves);
  wave_comment_moves_destroy(moves);
  wave_mem_free(d->allocator, l.ifs);
  return ok;
}

/* ---- the pass ----------------------------------------------------------------------------- */

/* Sweeps every region once, in order, with d->lv over the kernel's layout, from which d->lv was
 * computed, counting what it removes and folds in d; false when memory ran out. */
static bool sweep_kernel(dce *d, const wave_layout *layout) {
  d->removed = d->folded = 0;
  size_t words = layout->num_items / 64 + 1;
  if (!wave_grow(d->allocator, (void **)&d->gone, &d->gone_words, words, sizeof(*d->gone)))
    return false;
  memset(d->gone, 0, words * sizeof(*d->gone));
  size_t first = 0, places = 0;
  for (size_t i = 0; i < layout->num_items; i++) {
    places += layout->items[i].kind == WAVE_LAYOUT_INSTR;
    if (layout->items[i].kind == WAVE_LAYOUT_END_REGION) {
      sweep_region(d, layout, first, i, places);
      first = i + 1;
    }
  }
  return true;
}

/* Liveness in d->lv and the layout it comes from, afresh for the kernel as it is now; NULL
 * when memory runs out. */
static const wave_layout *fetch(dce *d) {
  wave_analysis_invalidate(d->am, d->kernel, WAVE_PRESERVE_NONE);
  d->lv = wave_analysis_get(d->am, d->kernel, WAVE_ANALYSIS_STRONG_LIVENESS);
  return d->lv ? wave_analysis_manager_layout(d->am, d->kernel) : NULL;
}

/* Sweeps, starting with d->lv and `layout`, until a sweep folds no select, at most max_rounds
 * times, strong liveness computed afresh for every sweep after the first: it leaves nothing
 * for another sweep but what a folded select no longer reads (its predicate). *normalized says
 * whether the kernel is in normal form for sure: a sweep that removed nothing after one that
 * did leaves it as normalized for the new liveness. *current is the last layout when its sweep
 * folded no select, so that it still lists the kernel's statements but for blocks (which
 * normalizing may merge or drop) and the instructions the sweep removed (d->gone), else NULL. */
static bool sweep_rounds(dce *d, const wave_layout *layout, int64_t max_rounds,
                         bool *normalized, const wave_layout **current) {
  bool ok = layout != NULL;
  *normalized = false;
  *current = NULL;
  for (int64_t round = 1; ok; round++) {
    if (!(ok = sweep_kernel(d, layout)))
      break;
    *normalized &= d->removed == 0;
    *current = d->folded == 0 ? layout : NULL;
    if (!d->folded)
      break;
    if (round >= max_rounds) {
      d->rounds_ran_out = true;
      break;
    }
    wave_normalize_kernel(d->kernel);
    *normalized = true;
    ok = (layout = fetch(d)) != NULL;
  }
  return ok;
}

/* The missed remarks of the sweep, on the kernel as the pass leaves it: a sweep that explains
 * what stays and changes nothing (what it would still remove, once the rounds ran out, it
 * passes over in silence). */
static bool explain_sweep(dce *d) {
  d->dry = d->explain = true;
  const wave_layout *layout = fetch(d);
  return layout && sweep_kernel(d, layout);
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  const wave_liveness *lv = wave_analysis_get(am, kernel, WAVE_ANALYSIS_STRONG_LIVENESS);
  if (!lv)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "dce: no liveness for kernel '%s'",
                          wave_kernel_name(kernel));
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  dce *d = wave_mem_calloc(a, 1, sizeof(*d));
  if (!d)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in dce");
  d->kernel = kernel;
  d->allocator = a;
  d->am = am;
  d->ctx = ctx;
  d->lv = lv;
  int64_t max_rounds = wave_pass_option(ctx, 0);
  bool normalized;
  max_rounds = max_rounds < 1 ? 1 : max_rounds;
  const wave_layout *current;
  bool ok = sweep_rounds(d, wave_analysis_manager_layout(am, kernel), max_rounds, &normalized,
                         &current);
  /* Normalizing a kernel in normal form is a walk that finds nothing: it is skipped. */
  if (!normalized)
    d->changed |= wave_normalize_kernel(kernel);
  /* An if holding nothing needed held only code the sweeps removed (or nothing, which
   * simplify-cfg's job is): with nothing removed there is none to look for. */
  if (ok && d->changed) {
    ok = remove_idle_ifs(d, current);
    wave_normalize_kernel(kernel);
    current = NULL;   /* it may list removed ifs */
  }
  bool swept = d->changed;
  d->changed = false;
  d->explain = wave_remark_enabled(ctx, WAVE_REMARK_MISSED);
  /* A merge leaves the layout's ifs behind. */
  ok = ok && merge_all(d, current) && remove_constants(d, d->changed ? NULL : current);
  if (d->changed)
    wave_normalize_kernel(kernel);
  /* A merge makes code dead that the junction between two ifs kept alive (a value the second
   * if's else-side reads is dead on the then-side once both then-sides are one): sweep again,
   * on fresh liveness. */
  if (ok && d->changed) {
    d->explain = false;
    ok = sweep_rounds(d, fetch(d), max_rounds, &normalized, &current);
    if (!normalized)
      wave_normalize_kernel(kernel);
    if (ok && (ok = remove_idle_ifs(d, current)))
      wave_normalize_kernel(kernel);
    d->explain = wave_remark_enabled(ctx, WAVE_REMARK_MISSED);
  }
  d->changed |= swept;
  /* No liveness is read after this point but the explaining sweep's own. */
  if (ok && d->explain)
    ok = explain_sweep(d);
  bool changed = d->changed, settled = !d->rounds_ran_out;
  wave_mem_free(a, d->gone);
  wave_mem_free(a, d);
  if (!ok)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in dce");
  return settled ? wave_pass_done_settled(changed, WAVE_PRESERVE_NONE)
                 : wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

static const wave_pass_option_info options[] = {
    {"dce-max-rounds",
     "sweeps for dead code at most this often, strong liveness recomputed between them, while "
     "one folds a select (a folded select no longer reads its predicate)",
     3},
};

const wave_pass_info wave_pass_dce = {
    .name = "dce",
    .help = "remove dead pure instructions, ifs holding nothing needed with their predicates, "
            "selects with equal arms, repeated constants; merge adjacent ifs on the same "
            "predicate",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
