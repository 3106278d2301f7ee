/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of the documentation dialect (docs/language.md "Documentation dialect") into what
 * wave-asm accepts.
 *
 *   iadd r0, r0, 5        ->  mov_imm rT, 5 ; iadd r0, r0, rT
 *   mov r0, 5             ->  mov_imm r0, 5
 *   ucmp_ge p1, ra, rb    ->  ucmp_le p1, rb, ra      (ucmp_gt -> ucmp_lt swapped,
 *   fcmp_ge p1, ra, rb    ->  fcmp_le p1, rb, ra       ucmp_eq/ne -> icmp_eq/ne)
 *   and p2, p0, p1        ->  mov_imm rZ, 0 ; mov_imm rO, 1 ;
 *                             select rT, p0, rO, rZ ; select rT, p1, rT, rZ ; icmp_ne p2, rT, rZ
 *   or / xor / not        ->  the same through 0/1 values (xor: two selects and a GPR xor)
 *   break !p1             ->  mov_imm rZ, 0 ; mov_imm rO, 1 ;
 *                             select rT, p1, rZ, rO ; icmp_ne pF, rT, rZ ; break pF
 *   select rd, !p, a, b   ->  select rd, p, b, a
 *
 * Scratch GPRs are the registers above the highest one the kernel mentions, and the scratch
 * predicate pF is one the kernel never mentions (the whole module counts when it has calls).
 * Every rewrite materialises its constants right before use, so the scratch values are dead
 * between rewrites and all rewrites of a kernel share the same few registers; .registers grows
 * when they do not fit below it. When no register or predicate is free the rewrite is refused
 * with an error at the instruction, which is left as it was.
 *
 * In a kernel that mentions all four predicates, pF is one that liveness of the kernel as it
 * stands finds dead where it is written and read (not live after the statement nor read by
 * it; for an `if`, live in neither side): its value there is never read again, so writing it
 * changes nothing observable. Earlier rewrites keep their own pF live only from its write to
 * the statement right after it, so one liveness result serves all the kernel's rewrites. Not
 * in a module with calls, where a subroutine may be lowered with another kernel and run on
 * the caller's predicates.
 *
 * The lower-docs pass, which runs before the optimizing passes, asks for more
 * (wave_lower_docs_kernel_owning): a constant that repays it (loaded more than once, or inside
 * a loop) gets a register of its own, above the shared scratch-free ones, which then only ever
 * loads that constant:
 *
 *   loop                          loop
 *     iadd r9, r9, 1        ->      mov_imm r12, 1 ; iadd r9, r9, r12
 *     and r10, r4, 1                mov_imm r12, 1 ; and r10, r4, r12
 *
 * so that early-cse drops the second load (r12 holds 1 already) and licm takes the first out of
 * the loop. The most valuable constants come first (each use weighs 8 per enclosing loop), as
 * many as fit below the register limit it is given together with the shared scratch registers
 * the other rewrites still need; the others go through the shared scratch registers as above.
 * Every load of an own register is the same constant, so a lane running one that the
 * original guard would have skipped changes nothing: the register holds that constant or
 * nothing anyone reads. None are given in a module with calls: a subroutine, lowered with
 * another kernel, may run on the caller's registers.
 *
 * The helper instructions are unguarded and write only scratch registers, so running them in
 * lanes the original guard would have skipped changes nothing observable. Only the instruction
 * that takes the original's place keeps its guard: lowering never adds a guard — least of all
 * @p0, @!p0, or one on memory, wave or structured instructions, which the downstream tools
 * mishandle (docs/language.md "Guards").
 */
#include "xform/lower_docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/code.h"
#include "support/grow.h"
#include "waveopt/liveness.h"
#include "waveopt/waveopt.h"

/* A constant the kernel's rewrites materialise, with what a register of its own would repay. */
typedef struct constant {
  uint32_t value;
  uint64_t weight;        /* uses, each 8 times more per enclosing loop */
  size_t first;           /* order of its first use, for ties */
  wave_loc loc;           /* its first use */
  uint32_t reg;           /* its own register, UINT32_MAX when it shares the scratch ones */
} constant;

typedef struct lowering {
  wave_module *module;
  wave_diags *diags;
  uint32_t scratch_base;  /* first shared scratch GPR: above every register the kernel
                           * mentions and every own register */
  unsigned scratch_peak;  /* most scratch GPRs one rewrite has needed */
  constant *owned;        /* constants with a register of their own, sorted by value */
  size_t num_owned;
  unsigned free_preds;    /* predicates the kernel never mentions, one bit each */
  bool ok;
  bool changed;
  bool calls;             /* the module has a call */
  wave_kernel *kernel;    /* being lowered */
  wave_liveness *liveness; /* of it, from the first rewrite that needed a dead predicate */
} lowering;

/* One rewrite. Its builder emits before the rewritten statement, or before the `if` whose
 * condition is rewritten (the instructions must run before the if reads it), and gives the new
 * instructions the statement's location, so that diagnostics about them point at the source. */
typedef struct emitter {
  lowering *lw;
  wave_builder b;
  wave_src src;           /* the rewritten statement: its location and comments */
  char text[96];          /* the statement as written, for diagnostics */
  wave_instr *in;         /* the statement: an instruction, or else an if */
  wave_node *if_node;
  unsigned next_scratch;
  bool emitted;
} emitter;

static void report(emitter *e, const char *reason) {
  wave_module_report(e->lw->module, e->lw->diags, WAVE_SEV_ERROR, NULL, e->src.loc,
                     "cannot lower '%s': %s", e->text, reason);
  e->lw->ok = false;
}

/* Claims `count` scratch GPRs for this rewrite before anything is emitted, so that a refused
 * rewrite leaves the instruction untouched. */
static bool reserve_scratch(emitter *e, unsigned count) {
  lowering *lw = e->lw;
  if (lw->scratch_base + count > WAVE_MAX_GPR + 1) {
    report(e, "no general register is left for its scratch values");
    return false;
  }
  if (count > lw->scratch_peak)
    lw->scratch_peak = count;
  return true;
}

static wave_operand scratch(emitter *e) {
  return wave_gpr(e->lw->scratch_base + e->next_scratch++);
}

/* Takes what the builder returned. The statement's comments move to the first instruction of
 * its rewrite, so that they stay above or beside the code that now does its work. */
static bool emitted(emitter *e, wave_instr *in) {
  if (!in) {
    report(e, "out of memory");
    return false;
  }
  if (!e->emitted) {
    wave_src origin = wave_instr_origin(in);
    origin.comment = e->src.comment;
    origin.leading = e->src.leading;
    e->src.comment = e->src.leading = NULL;
    bool ok = wave_instr_set_origin(in, &origin);
    if (ok && e->in)
      ok = wave_instr_set_origin(e->in, &e->src);
    else if (ok)
      wave_node_set_origin(e->if_node, WAVE_LINE_IF, &e->src);
    if (!ok) {
      report(e, "out of memory");
      return false;
    }
    e->emitted = true;
  }
  return true;
}

static bool emit_mov_imm(emitter *e, wave_operand rd, wave_operand imm) {
  return emitted(e, wave_build(&e->b, WAVE_OP_MOV_IMM, rd, imm));
}

static int compare_value(const void *key, const void *c) {
  uint32_t v = *(const uint32_t *)key, w = ((const constant *)c)->value;
  return v < w ? -1 : v > w;
}

static const constant *own_constant(const lowering *lw, uint32_t value) {
  return lw->num_owned ? bsearch(&value, lw->owned, lw->num_owned, sizeof(constant),
                                 compare_value)
                       : NULL;
}

/* The register that holds `imm` for one use: its own one, else the next shared scratch. */
static bool emit_constant(emitter *e, wave_operand imm, wave_operand *reg) {
  const constant *c = own_constant(e->lw, imm.value);
  *reg = c ? wave_gpr(c->reg) : scratch(e);
  return emit_mov_imm(e, *reg, imm);
}

/* How many shared scratch GPRs the constants 0 and 1 of a predicate rewrite take. */
static unsigned shared_bool_constants(const lowering *lw) {
  return !own_constant(lw, 0) + !own_constant(lw, 1);
}

/* rd = pred ? a : b, where pred may be a negated docs-dialect operand. */
static bool emit_select(emitter *e, wave_operand rd, wave_operand pred, wave_operand a,
                        wave_operand b) {
  wave_operand p = pred;
  p.negated = 0;
  return emitted(e, wave_build(&e->b, WAVE_OP_SELECT, rd, p, pred.negated ? b : a,
                               pred.negated ? a : b));
}

typedef struct bool_regs {
  wave_operand zero, one;
} bool_regs;

static bool emit_bool_constants(emitter *e, bool_regs *c) {
  return emit_constant(e, wave_imm(0), &c->zero) && emit_constant(e, wave_imm(1), &c->one);
}

/* Leaves rT = 1 where the predicate operand (possibly negated) holds and 0 elsewhere. */
static bool emit_truth(emitter *e, const bool_regs *c, wave_operand rt, wave_operand pred) {
  return emit_select(e, rt, pred, c->one, c->zero);
}

static void swap_operands(wave_instr *in, unsigned i, unsigned j) {
  wave_operand a = wave_instr_operand(in, i);
  wave_instr_set_operand(in, i, wave_instr_operand(in, j));
  wave_instr_set_operand(in, j, a);
}

static bool operands_are_preds(const wave_instr *in) {
  unsigned n = wave_instr_num_operands(in);
  if (n != wave_opcode_num_slots(wave_instr_op(in)))
    return false;
  for (unsigned i = 0; i < n; i++) {
    if (wave_instr_operand(in, i).kind != WAVE_OPERAND_PRED)
      return false;
  }
  return true;
}

/* and/or/xor/not on predicates: combine 0/1 values in a scratch GPR, then one compare writes
 * the destination. The sources are all read before the compare, so pd may be a source. The
 * compare is the pseudo instruction rewritten in place, so that it keeps its guard and callers
 * holding it see the real instruction; `not` gains the compare's third operand slot. */
static void lower_pred_logic(emitter *e, wave_instr *in) {
  if (!operands_are_preds(in)) {
    report(e, "its operands are not predicate registers");
    return;
  }
  wave_opcode op = wave_instr_op(in);
  if (!reserve_scratch(e, shared_bool_constants(e->lw) + (op == WAVE_OP_PXOR ? 2 : 1)))
    return;
  bool_regs c;
  bool done = emit_bool_constants(e, &c);
  wave_operand rt = scratch(e);
  wave_operand a = wave_instr_src(in, 0);
  switch (op) {
  case WAVE_OP_PAND:
    done =
        done && emit_truth(e, &c, rt, a) && emit_select(e, rt, wave_instr_src(in, 1), rt, c.zero);
    break;
  case WAVE_OP_POR:
    done = done && emit_truth(e, &c, rt, a) && emit_select(e, rt, wave_instr_src(in, 1), c.one, rt);
    break;
  case WAVE_OP_PXOR: {
    wave_operand r2 = scratch(e);
    done = done && emit_truth(e, &c, rt, a) && emit_truth(e, &c, r2, wave_instr_src(in, 1)) &&
           emitted(e, wave_build(&e->b, WAVE_OP_XOR, rt, rt, r2));
    break;
  }
  default: /* PNOT */
    done = done && emit_select(e, rt, a, c.zero, c.one);
    break;
  }
  if (!done)
    return;
  wave_instr_set_op(in, WAVE_OP_ICMP_NE);
  wave_instr_set_num_operands(in, 3);
  wave_instr_set_src(in, 0, rt);
  wave_instr_set_src(in, 1, c.zero);
}

/* The predicates dead where the statement's rewrite writes one, one bit each (see the top of
 * the file); false when memory runs out. */
static bool dead_preds(emitter *e, unsigned *dead) {
  lowering *lw = e->lw;
  *dead = 0;
  if (lw->calls)
    return true;
  if (!lw->liveness && !(lw->liveness = wave_liveness_compute(lw->kernel)))
    return false;
  wave_regset busy;
  if (e->in) {
    wave_instr_uses(e->in, &busy);
    busy = wave_regset_union(busy, wave_liveness_out(lw->liveness, e->in));
  } else {
    wave_node *node = e->if_node;
    busy = wave_regset_union(
        wave_liveness_at(lw->liveness, wave_cursor_list_start(wave_if_then(node))),
        wave_liveness_at(lw->liveness, wave_cursor_list_start(wave_if_else(node))));
    wave_regset_set(&busy, WAVE_REG_PRED(wave_if_cond(node).value));
  }
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    *dead |= wave_regset_test(busy, WAVE_REG_PRED(p)) ? 0u : 1u << p;
  return true;
}

/* Replaces a negated predicate operand by the free predicate, computed right before use. */
static bool lower_negated_pred(emitter *e, wave_operand *pred) {
  unsigned free_preds = e->lw->free_preds;
  if (!free_preds && !dead_preds(e, &free_preds)) {
    report(e, "out of memory");
    return false;
  }
  if (!free_preds) {
    report(e, "every predicate register is in use");
    return false;
  }
  uint32_t pf = 0;
  while (!(free_preds & (1u << pf)))
    pf++;
  bool_regs c;
  if (!emit_bool_constants(e, &c))
    return false;
  wave_operand rt = scratch(e);
  if (!emit_truth(e, &c, rt, *pred) ||
      !emitted(e, wave_build(&e->b, WAVE_OP_ICMP_NE, wave_pred(pf), rt, c.zero)))
    return false;
  uint32_t col = pred->col;
  *pred = wave_pred(pf);
  pred->col = col;
  return true;
}

static bool is_docs_immediate(const wave_instr *in, unsigned slot) {
  return wave_instr_operand(in, slot).kind == WAVE_OPERAND_IMM &&
         wave_opcode_slot_kind(wave_instr_op(in), slot) != 'i';
}

static bool is_negated_pred(wave_operand o) { return o.kind == WAVE_OPERAND_PRED && o.negated; }

static bool needs_lowering(const wave_instr *in) {
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_PSEUDO))
    return true;
  for (unsigned i = 0; i < wave_instr_num_operands(in); i++) {
    if (is_docs_immediate(in, i) || is_negated_pred(wave_instr_operand(in, i)))
      return true;
  }
  return false;
}

/* The compares wave-asm lacks, as the ones it has (docs/language.md "Compare and select");
 * a >= b is b <= a for floats too, NaN included. */
static void lower_missing_compare(wave_instr *in) {
  wave_opcode to;
  bool swap = true;
  switch (wave_instr_op(in)) {
  case WAVE_OP_UCMP_GE: to = WAVE_OP_UCMP_LE; break;
  case WAVE_OP_UCMP_GT: to = WAVE_OP_UCMP_LT; break;
  case WAVE_OP_FCMP_GE: to = WAVE_OP_FCMP_LE; break;
  case WAVE_OP_UCMP_EQ: to = WAVE_OP_ICMP_EQ; swap = false; break;
  case WAVE_OP_UCMP_NE: to = WAVE_OP_ICMP_NE; swap = false; break;
  default: return;
  }
  wave_instr_set_op(in, (uint16_t)to);
  if (swap && wave_instr_num_operands(in) == 3)
    swap_operands(in, 1, 2);
}

/* Immediates of ALU instructions go through scratch registers; negated predicate operands of
 * real instructions (break, continue, wave votes) through the free predicate. */
static void lower_operands(emitter *e, wave_instr *in) {
  wave_opcode op = wave_instr_op(in);
  unsigned n = wave_instr_num_operands(in);
  unsigned shared_imms = 0, negated = 0;
  for (unsigned i = 0; i < n; i++) {
    if (is_docs_immediate(in, i)) {
      if (wave_opcode_slot_kind(op, i) != 'u' || wave_opcode_slot_width(op, i) != 1) {
        report(e, "this operand cannot be an immediate");
        return;
      }
      shared_imms += !own_constant(e->lw, wave_instr_operand(in, i).value);
    }
    negated += is_negated_pred(wave_instr_operand(in, i));
  }
  if (negated > 1) {
    report(e, "only one negated predicate operand can be lowered");
    return;
  }
  if (!reserve_scratch(e, shared_imms + negated * (1 + shared_bool_constants(e->lw))))
    return;
  for (unsigned i = 0; i < n; i++) {
    if (!is_docs_immediate(in, i))
      continue;
    wave_operand imm = wave_instr_operand(in, i);
    wave_operand reg;
    if (!emit_constant(e, imm, &reg))
      return;
    reg.col = imm.col;
    wave_instr_set_operand(in, i, reg);
  }
  for (unsigned i = 0; i < n; i++) {
    wave_operand o = wave_instr_operand(in, i);
    if (!is_negated_pred(o))
      continue;
    if (!lower_negated_pred(e, &o))
      return;
    wave_instr_set_operand(in, i, o);
  }
}

static void lower_instr(lowering *lw, wave_instr *in) {
  emitter e = {lw,
               wave_builder_at(lw->module, wave_cursor_before_instr(in), wave_instr_loc(in)),
               wave_instr_origin(in),
               "",
               in,
               NULL,
               0,
               false};
  wave_format_instr(in, e.text, sizeof(e.text));
  wave_opcode op = wave_instr_op(in);
  if (wave_opcode_get(op)->category == WAVE_CAT_PRED) {
    lower_pred_logic(&e, in);
    return;
  }
  unsigned n = wave_instr_num_operands(in);
  if (op == WAVE_OP_MOV && n == 2 && wave_instr_operand(in, 1).kind == WAVE_OPERAND_IMM) {
    wave_instr_set_op(in, WAVE_OP_MOV_IMM);
    return;
  }
  if (op == WAVE_OP_SELECT && n == 4 && is_negated_pred(wave_instr_operand(in, 1))) {
    wave_operand pred = wave_instr_operand(in, 1);
    pred.negated = 0;
    wave_instr_set_operand(in, 1, pred);
    swap_operands(in, 2, 3);
  }
  lower_operands(&e, in);
  lower_missing_compare(in);
}

/* `if !p`: the inverse goes into the free predicate, computed in the block before the if (a new
 * one when the if has none). */
static void lower_if_condition(lowering *lw, wave_node *node) {
  wave_src src = wave_node_origin(node, WAVE_LINE_IF);
  emitter e = {lw,   wave_builder_at(lw->module, wave_cursor_before_node(node), src.loc),
               src,  "",
               NULL, node,
               0,    false};
  snprintf(e.text, sizeof(e.text), "if !p%u", wave_if_cond(node).value);
  if (reserve_scratch(&e, shared_bool_constants(lw) + 1)) {
    wave_operand cond = wave_if_cond(node);
    if (lower_negated_pred(&e, &cond))
      wave_if_set_cond(node, cond);
  }
}

/* ---- per kernel ----------------------------------------------------------------------------- */

typedef struct usage {
  int64_t highest_gpr;  /* -1 when nothing mentions one */
  unsigned preds;
  bool calls;
} usage;

static void note_instr(usage *u, const wave_instr *in) {
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(in, refs);
  for (unsigned i = 0; i < n; i++) {
    int64_t last = (int64_t)refs[i].first + refs[i].count - 1;
    if (refs[i].is_pred)
      u->preds |= 1u << (refs[i].first & 31);
    else if (last > u->highest_gpr)
      u->highest_gpr = last;
  }
  u->calls |= wave_instr_op(in) == WAVE_OP_CALL;
}

/* Calls visit on every instruction (with a NULL if) and every if (with a NULL instruction) of
 * the kernel in text order, for as long as it returns true; whether it always did. The next
 * instruction is read before the call, so visit may insert before its own. */
typedef bool statement_fn(void *arg, wave_instr *in, wave_node *if_node);

static bool each_statement(wave_kernel *k, statement_fn *visit, void *arg) {
  for (wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (wave_walk_next(&w)) {
      if (w.event == WAVE_WALK_BLOCK) {
        for (wave_instr *in = wave_block_first(w.node), *next; in; in = next) {
          next = wave_instr_next(in);
          if (!visit(arg, in, NULL))
            return false;
        }
      } else if (w.event == WAVE_WALK_IF && !visit(arg, NULL, w.node)) {
        return false;
      }
    }
  }
  return true;
}

static bool note_statement(void *arg, wave_instr *in, wave_node *if_node) {
  usage *u = arg;
  if (in)
    note_instr(u, in);
  else if (wave_if_cond(if_node).kind == WAVE_OPERAND_PRED)
    u->preds |= 1u << (wave_if_cond(if_node).value & 31);
  return true;
}

static void note_kernel(usage *u, wave_kernel *k) {
  each_statement(k, note_statement, u);
}

/* Whether the statement each_statement gives (an instruction, or an if's condition) is of the
 * documentation dialect. */
static bool statement_needs_lowering(const wave_instr *in, const wave_node *if_node) {
  return in ? needs_lowering(in) : is_negated_pred(wave_if_cond(if_node));
}

static bool lower_statement(void *arg, wave_instr *in, wave_node *if_node) {
  lowering *lw = arg;
  if (statement_needs_lowering(in, if_node)) {
    if (in)
      lower_instr(lw, in);
    else
      lower_if_condition(lw, if_node);
    lw->changed = true;
  }
  return true;
}

/* Lowers with the shared scratch registers from `scratch_base` up; returns how many of them
 * the kernel's rewrites needed. */
static unsigned lower_kernel_from(lowering *lw, wave_kernel *k, const usage *u,
                                  uint32_t scratch_base) {
  lw->scratch_base = scratch_base;
  lw->scratch_peak = 0;
  lw->free_preds = ~u->preds & ((1u << WAVE_NUM_PREDS) - 1);
  lw->calls = u->calls;
  lw->kernel = k;
  each_statement(k, lower_statement, lw);
  wave_liveness_destroy(lw->liveness);
  lw->liveness = NULL;
  return lw->scratch_peak;
}

static unsigned lower_kernel(lowering *lw, wave_kernel *k, const usage *u) {
  return lower_kernel_from(lw, k, u, (uint32_t)(u->highest_gpr + 1));
}

static bool plain_statement(void *arg, wave_instr *in, wave_node *if_node) {
  (void)arg;
  return !statement_needs_lowering(in, if_node);
}

/* Whether anything in the kernel is of the documentation dialect. Most kernels that reach a
 * lowering hold none (the assembler's dialect, or lowered already by an earlier pass), and for
 * them this one walk replaces the register census, which decodes every instruction. */
static bool kernel_needs_lowering(wave_kernel *k) {
  return !each_statement(k, plain_statement, NULL);
}

static void make_room(wave_kernel *k, uint32_t registers) {
  if (registers > wave_kernel_registers(k))
    wave_kernel_set_registers(k, registers);
}

static usage module_usage(const wave_module *module) {
  usage all = {-1, 0, false};
  wave_foreach_kernel(k, module) note_kernel(&all, k);
  return all;
}

/* Labels are file-wide, so a `call` may run another kernel's subroutine on the caller's
 * registers. A module with calls therefore takes its scratch registers and predicate from
 * outside what any kernel mentions (`all`); otherwise a kernel's own registers decide (the
 * module's census already, when the kernel is its only one). lower_in_module's kernel makes
 * room for the scratch registers it used; it returns how many that was. */
static usage kernel_usage(wave_kernel *k, const usage *all) {
  if (all->calls || wave_module_num_kernels(wave_kernel_module(k)) == 1)
    return *all;
  usage own = {-1, 0, false};
  note_kernel(&own, k);
  return own;
}

static unsigned lower_in_module(lowering *lw, wave_kernel *k, const usage *all) {
  usage own = kernel_usage(k, all);
  unsigned peak = lower_kernel(lw, k, &own);
  if (peak)
    make_room(k, lw->scratch_base + peak);
  return peak;
}

bool wave_lower_docs_kernel(wave_kernel *kernel, wave_diags *diags, bool *changed) {
  *changed = false;
  if (!kernel_needs_lowering(kernel))
    return true;
  lowering lw = {.module = wave_kernel_module(kernel), .diags = diags, .ok = true};
  usage all = module_usage(wave_kernel_module(kernel));
  lower_in_module(&lw, kernel, &all);
  *changed = lw.changed;
  return lw.ok;
}

/* ---- constants with a register of their own ----------------------------------------------- */

/* What lowering one statement materialises: the constants it loads, and how many other shared
 * scratch GPRs (0/1 values of predicates) it needs. Mirrors lower_instr and lower_if_condition;
 * a form they refuse counts as nothing. */
typedef struct needs {
  uint32_t values[WAVE_MAX_OPERANDS + 2];
  unsigned num_values, temporaries;
} needs;

static void need_bool_constants(needs *n, unsigned temporaries) {
  n->values[n->num_values++] = 0;
  n->values[n->num_values++] = 1;
  n->temporaries += temporaries;
}

static needs needs_of(const wave_instr *in) {
  needs n = {{0}, 0, 0};
  wave_opcode op = wave_instr_op(in);
  unsigned count = wave_instr_num_operands(in);
  if (wave_opcode_get(op)->category == WAVE_CAT_PRED) {
    if (operands_are_preds(in))
      need_bool_constants(&n, op == WAVE_OP_PXOR ? 2 : 1);
    return n;
  }
  if (op == WAVE_OP_MOV && count == 2 && wave_instr_operand(in, 1).kind == WAVE_OPERAND_IMM)
    return n;
  unsigned negated = 0;
  for (unsigned i = 0; i < count; i++) {
    wave_operand o = wave_instr_operand(in, i);
    if (is_docs_immediate(in, i) && n.num_values < WAVE_MAX_OPERANDS)
      n.values[n.num_values++] = o.value;
    negated += is_negated_pred(*&o) && !(op == WAVE_OP_SELECT && i == 1);
  }
  if (negated == 1)
    need_bool_constants(&n, 1);
  return n;
}

/* The shared scratch GPRs one statement takes, given the constants that have their own. */
static unsigned shared_need(const lowering *lw, const needs *n) {
  unsigned shared = n->temporaries;
  for (unsigned i = 0; i < n->num_values; i++)
    shared += !own_constant(lw, n->values[i]);
  return shared;
}

typedef struct tally {
  constant *uses;         /* one per use, then merged into one per value */
  size_t num, cap;
  unsigned peak;          /* the most shared scratch GPRs one statement takes */
} tally;

static bool tally_statement(const lowering *lw, tally *t, const needs *n, wave_loc loc,
                            unsigned loops, bool record) {
  unsigned shared = shared_need(lw, n);
  if (shared > t->peak)
    t->peak = shared;
  uint64_t weight = 1;
  for (unsigned d = 0; d < loops && d < 8; d++)
    weight *= 8;
  for (unsigned i = 0; record && i < n->num_values; i++) {
    if (!wave_grow(wave_module_allocator(lw->module), (void **)&t->uses, &t->cap, t->num + 1,
                   sizeof(constant)))
      return false;
    t->uses[t->num] = (constant){n->values[i], weight, t->num, loc, UINT32_MAX};
    t->num++;
  }
  return true;
}

/* Walks the statements that lowering rewrites: with `record`, notes each constant use weighed
 * by its loops; always, the peak of shared scratch GPRs under lw's own registers. False when
 * memory runs out. */
static bool walk_needs(const lowering *lw, wave_kernel *k, tally *t, bool record) {
  t->peak = 0;
  for (wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    unsigned loops = 0;
    while (wave_walk_next(&w)) {
      if (w.event == WAVE_WALK_LOOP) {
        loops++;
      } else if (w.event == WAVE_WALK_ENDLOOP) {
        loops--;
      } else if (w.event == WAVE_WALK_IF && is_negated_pred(wave_if_cond(w.node))) {
        needs n = {{0}, 0, 0};
        need_bool_constants(&n, 1);
        if (!tally_statement(lw, t, &n, wave_node_origin(w.node, WAVE_LINE_IF).loc, loops, record))
          return false;
      } else if (w.event == WAVE_WALK_BLOCK) {
        for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in)) {
          if (!needs_lowering(in))
            continue;
          needs n = needs_of(in);
          if (!tally_statement(lw, t, &n, wave_instr_loc(in), loops, record))
            return false;
        }
      }
    }
  }
  return true;
}

static int by_value(const void *a, const void *b) {
  const constant *x = a, *y = b;
  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static int by_worth(const void *a, const void *b) {
  const constant *x = a, *y = b;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

/* Merges the uses into one entry per value and keeps those worth a register (weight 2 or
 * more: loaded twice, or in a loop), most valuable first. */
static void merge_uses(tally *t) {
  if (!t->num)
    return;
  qsort(t->uses, t->num, sizeof(constant), by_value);
  size_t kept = 0;
  for (size_t i = 0; i < t->num;) {
    constant c = t->uses[i];
    for (i++; i < t->num && t->uses[i].value == c.value; i++)
      c.weight += t->uses[i].weight;
    if (c.weight >= 2)
      t->uses[kept++] = c;
  }
  t->num = kept;
  qsort(t->uses, t->num, sizeof(constant), by_worth);
}

/* Gives the `count` most valuable constants of `worth` registers from `base` up, and the
 * others none; lw->owned is the first ones sorted by value. */
static void own_first(lowering *lw, constant *worth, size_t count, size_t total, uint32_t base) {
  for (size_t i = 0; i < total; i++)
    worth[i].reg = i < count ? base + (uint32_t)i : UINT32_MAX;
  if (count) {
    memcpy(lw->owned, worth, count * sizeof(constant));
    qsort(lw->owned, count, sizeof(constant), by_value);
  }
  lw->num_owned = count;
}

/* How many constants get a register of their own below `registers`, the shared scratch GPRs
 * the other rewrites take included. The fewer own one, the more rewrites take shared ones,
 * but never more than with none (`t->peak` then), so the search ends within that many
 * steps; when even none fit below `registers` none is given, since the rewrites grow
 * .registers then anyway. */
static size_t fitting_count(lowering *lw, wave_kernel *k, tally *t, uint32_t base,
                            uint32_t registers) {
  if (registers <= base || base + t->peak > registers)
    return 0;
  size_t count = registers - base < t->num ? registers - base : t->num;
  for (; count > 0; count--) {
    own_first(lw, t->uses, count, t->num, base);
    tally probe = {NULL, 0, 0, 0};
    walk_needs(lw, k, &probe, false);
    if (base + count + probe.peak <= registers)
      break;
  }
  return count;
}

bool wave_lower_docs_kernel_owning(wave_kernel *kernel, wave_diags *diags, uint32_t registers,
                                   wave_lower_docs_owned_fn report_constant, void *arg,
                                   bool *changed) {
  *changed = false;
  if (!kernel_needs_lowering(kernel))
    return true;
  lowering lw = {.module = wave_kernel_module(kernel), .diags = diags, .ok = true};
  usage all = module_usage(wave_kernel_module(kernel));
  usage own = kernel_usage(kernel, &all);
  uint32_t base = (uint32_t)(own.highest_gpr + 1);
  const wave_allocator *a = wave_module_allocator(lw.module);
  tally t = {NULL, 0, 0, 0};
  bool memory = walk_needs(&lw, kernel, &t, true);
  if (memory) {
    merge_uses(&t);
    lw.owned = wave_mem_alloc(a, t.num * sizeof(constant));
    memory = lw.owned != NULL;
  }
  if (!memory) {
    wave_mem_free(a, t.uses);
    wave_module_report(wave_kernel_module(kernel), diags, WAVE_SEV_ERROR, NULL,
                       wave_kernel_loc(kernel), "out of memory lowering the documentation dialect");
    *changed = false;
    return false;
  }
  size_t count = all.calls ? 0 : fitting_count(&lw, kernel, &t, base, registers);
  own_first(&lw, t.uses, count, t.num, base);
  uint32_t scratch_base = base + (uint32_t)count;
  unsigned peak = lower_kernel_from(&lw, kernel, &own, scratch_base);
  if (peak || count)
    make_room(kernel, scratch_base + peak);
  const char *why = all.calls ? "the module has a call, and a subroutine may run on its "
                                "caller's registers"
                              : "no register is free for it below the register limit";
  for (size_t i = 0; report_constant && i < t.num; i++)
    report_constant(arg, t.uses[i].value, t.uses[i].reg, t.uses[i].loc,
                    t.uses[i].reg == UINT32_MAX ? why : NULL);
  wave_mem_free(a, lw.owned);
  wave_mem_free(a, t.uses);
  *changed = lw.changed;
  return lw.ok;
}

/* Whole-module lowering also grows every kernel to the module's largest scratch need when
 * there are calls, so that whichever kernel runs a subroutine has room for its scratch
 * registers. */
bool wave_lower_docs_dialect(wave_module *module, wave_diags *diags) {
  wave_kernel *first = wave_module_first_kernel(module);
  while (first && !kernel_needs_lowering(first))
    first = first->next;
  if (!first)
    return true;
  lowering lw = {.module = module, .diags = diags, .ok = true};
  usage all = module_usage(module);
  unsigned module_peak = 0;
  wave_foreach_kernel(k, module) {
    unsigned peak = lower_in_module(&lw, k, &all);
    if (peak > module_peak)
      module_peak = peak;
  }
  if (all.calls && module_peak) {
    wave_foreach_kernel(k, module) make_room(k, (uint32_t)(all.highest_gpr + 1) + module_peak);
  }
  return lw.ok;
}
