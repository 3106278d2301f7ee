/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hoist-common: what both sides of an if start or end with runs once, outside the if, so that
 * a divergent wave stops issuing it twice (LLVM SimplifyCFG's hoisting and sinking).
 *
 *   if p1                        iadd     r5, r1, r2
 *     iadd r5, r1, r2            if p1
 *     A                            A
 *   else                   ->    else
 *     iadd r5, r1, r2              B
 *     B                          endif
 *   endif
 *
 *   if p1                        if p1
 *     A                            A
 *     mov_imm r6, 7          ->  else
 *   else                           B
 *     B                          endif
 *     mov_imm r6, 7              mov_imm  r6, 7
 *   endif
 *
 * Pairs move one at a time, as long as the next ones match, inner ifs first, so that what an
 * inner if gives up can leave the if around it in the same run, and a second run would find
 * nothing (wave_pass_done_settled). Identical means the same opcode, operands, guard and cache
 * hint. Sides left empty stay for simplify-cfg to remove.
 *
 * Why it is safe (docs/language.md "If and else"): every lane active at the if runs exactly
 * one side, so the lanes that ran the first instruction of a side, then-lanes on one and
 * else-lanes on the other, are exactly the lanes active at the if; nothing runs in a lane
 * between the if and the start of its side, so each lane computes the same value from the
 * same registers. At the end, when neither side holds a way out (no halt, return or call, no
 * break or continue of the loop around the if), the lanes reaching the endif are again exactly
 * those that ran one of the two copies, last thing before it. The guard moves with the
 * instruction and still reads the same predicate values. The divergence depth does not change
 * and nothing the downstream tools mishandle appears.
 *
 * What changes is when the copies run relative to the other side: a hoisted instruction runs
 * in the else-lanes before the then-side instead of after it, a sunk one in the then-lanes
 * after the else-side. So the same rules apply as for moving code across control flow
 * (docs/language.md "Effect classes"), and it refuses, with a missed remark naming the pair:
 *   - instructions that touch memory: the then-side's stores would no longer come before the
 *     else-lanes' load, or the else-side's loads would now precede the then-lanes' store;
 *   - convergent instructions (wave operations, barrier, MMA, call): their set of lanes would
 *     change from one side's to the whole if's;
 *   - instructions that may trap (idiv, imod, iclamp, fclamp): the trap would come before (or
 *     after) the other side's stores, which the run then shows or does not;
 *   - control flow (halt, break, ...), which hoisting or sinking would apply to other lanes;
 *   - an instruction writing the if's own predicate, which is never hoisted above it (the
 *     branch would test the new value);
 *   - a pair whose result the side it would overtake reads from other lanes (a shuffle or
 *     broadcast in the then-side for hoisting, in the else-side for sinking, or a call there);
 *   - for sinking, a side holding a way out (halt, return, call, or a break or continue of the
 *     loop around the if). By the spec the lanes that leave are missing at the endif too, so
 *     they would not run the sunk copy either; but the upstream emulator brings lanes that
 *     broke, or halted under a guard, inside an if back at its endif (docs/toolchain.md "Break
 *     inside an if", "Halt and return inside regions") and would run it in them, and a callee
 *     may end lanes where this pass cannot see;
 *   - two instructions of the same opcode that are not identical.
 */
#include <stdio.h>
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "xform/comments.h"
#include "xform/hoist_common.h"

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->mnemonic;
}

static bool has(const wave_instr *in, uint32_t flags) {
  return wave_opcode_has(wave_instr_op(in), flags);
}

/* What a side of an if holds that stops a pair from overtaking it or from leaving it. */
typedef struct side_facts {
  wave_regset other_reads;   /* registers read in other lanes: everything, with a call */
  const wave_instr *leaves;  /* the first break or continue of the loop around the if */
  const wave_instr *ends;    /* the first halt, return or call (a callee may halt) */
} side_facts;

static void facts_add(side_facts *f, const wave_instr *in) {
  wave_regset other;
  wave_instr_other_lane_uses(in, &other);
  f->other_reads = wave_regset_union(f->other_reads, other);
  if (wave_instr_op(in) == WAVE_OP_CALL)
    wave_regset_set_range(&f->other_reads, 0, WAVE_NUM_REGS);
  if ((wave_instr_op(in) == WAVE_OP_BREAK || wave_instr_op(in) == WAVE_OP_CONTINUE) && !f->leaves)
    f->leaves = in;
  if ((wave_instr_op(in) == WAVE_OP_HALT || wave_instr_op(in) == WAVE_OP_RETURN ||
       wave_instr_op(in) == WAVE_OP_CALL) &&
      !f->ends)
    f->ends = in;
}

/* Adds what a nested list holds; a loop's own breaks and continues stay inside it. */
static void facts_join(side_facts *f, const side_facts *inner, bool inner_is_loop) {
  f->other_reads = wave_regset_union(f->other_reads, inner->other_reads);
  if (!f->leaves && !inner_is_loop)
    f->leaves = inner->leaves;
  if (!f->ends)
    f->ends = inner->ends;
}

typedef struct if_facts {
  side_facts then_side, else_side;
} if_facts;

typedef struct open_list {
  side_facts then_side, current;
} open_list;

/* Walks `root`, and at each endif (inner ifs first) hands the if and its sides' facts to
 * `visit`. False when memory ran out. */
typedef struct facts_walk {
  const wave_allocator *allocator; /* the module's, for the stack */
  open_list *stack;
  size_t cap;
  side_facts root_facts;  /* what the walked list itself holds */
} facts_walk;

static bool walk_facts(facts_walk *fw, wave_node_list *root,
                       bool (*visit)(void *ctx, wave_node *node, const if_facts *facts),
                       void *ctx) {
  size_t depth = 0;
  fw->root_facts = (side_facts){{{0}}, NULL, NULL};
  wave_walker w;
  wave_walk_init(&w, root);
  while (wave_walk_next(&w)) {
    side_facts *cur = depth ? &fw->stack[depth - 1].current : &fw->root_facts;
    switch (w.event) {
    case WAVE_WALK_BLOCK:
      wave_foreach_instr(in, w.node) facts_add(cur, in);
      break;
    case WAVE_WALK_IF:
    case WAVE_WALK_LOOP:
      if (!wave_grow(fw->allocator, (void **)&fw->stack, &fw->cap, depth + 1, sizeof(open_list)))
        return false;
      fw->stack[depth++] = (open_list){{{{0}}, NULL, NULL}, {{{0}}, NULL, NULL}};
      break;
    case WAVE_WALK_ELSE:
      fw->stack[depth - 1].then_side = *cur;
      *cur = (side_facts){{{0}}, NULL, NULL};
      break;
    case WAVE_WALK_ENDIF:
    case WAVE_WALK_ENDLOOP: {
      open_list done = fw->stack[--depth];
      side_facts *outer = depth ? &fw->stack[depth - 1].current : &fw->root_facts;
      bool is_loop = w.event == WAVE_WALK_ENDLOOP;
      if (!is_loop) {
        if_facts f = {done.then_side, done.current};
        if (visit && !visit(ctx, w.node, &f))
          return false;
        facts_join(&done.current, &done.then_side, false);
      }
      facts_join(outer, &done.current, is_loop);
      break;
    }
    }
  }
  return true;
}

/* ---- one pair ----------------------------------------------------------------------------- */

/* Why the pair may not leave the if in either direction, or NULL. */
static const char *why_fixed(const wave_instr *a, const wave_instr *b) {
  if (!wave_instr_equal(a, b))
    return "they differ";
  if (has(a, WAVE_F_CONTROL))
    return "it is control flow";
  if (has(a, WAVE_F_READS_MEM | WAVE_F_WRITES_MEM))
    return "it touches memory";
  if (has(a, WAVE_F_CONVERGENT))
    return "it is convergent";
  if (has(a, WAVE_F_MAY_TRAP))
    return "it may trap";
  if (!wave_instr_can_speculate(a))
    return "it has effects beyond its registers";
  return NULL;
}

/* Which register of the pair's results `side` reads from other lanes, as a word in buf. */
static const char *read_elsewhere(const wave_instr *in, const side_facts *side, char *buf,
                                  size_t size) {
  wave_regset defs;
  wave_instr_defs(in, &defs);
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++) {
    if (wave_regset_test(defs, r) && wave_regset_test(side->other_reads, r)) {
      snprintf(buf, size, "%c%u", r > WAVE_MAX_GPR ? 'p' : 'r',
               r > WAVE_MAX_GPR ? r - (WAVE_MAX_GPR + 1) : r);
      return buf;
    }
  }
  return NULL;
}

typedef struct hoister {
  wave_pass_context *ctx;
  wave_module *module;
  unsigned moved;
  bool failed;
} hoister;

/* The first (last) instruction of a list that starts (ends) with a block, or NULL. */
static wave_instr *first_instr(wave_node_list *list) {
  return wave_node_list_first(list) &&
                 wave_node_kind_of(wave_node_list_first(list)) == WAVE_NODE_BLOCK
             ? wave_block_first(wave_node_list_first(list))
             : NULL;
}
static wave_instr *last_instr(wave_node_list *list) {
  return wave_node_list_last(list) &&
                 wave_node_kind_of(wave_node_list_last(list)) == WAVE_NODE_BLOCK
             ? wave_block_last(wave_node_list_last(list))
             : NULL;
}

/* Moves `keep` to `at` and drops its twin, whose comments join it when they differ. */
static bool move_pair(hoister *h, wave_instr *keep, wave_instr *twin, wave_cursor at) {
  wave_node *from = wave_instr_node(keep);
  bool at_end = keep == wave_block_last(from);
  wave_instr_remove(keep);
  if (!wave_instr_insert(h->module, at, keep)) {
    if (at_end)
      wave_block_append(from, keep);
    else
      wave_block_prepend(from, keep);
    return false;
  }
  if (wave_block_is_empty(from))
    wave_node_remove(from);
  wave_src k = wave_instr_origin(keep), t = wave_instr_origin(twin);
  wave_code_line twin_line = wave_code_instr_line(twin);
  bool same =
      (k.leading == t.leading || (k.leading && t.leading && strcmp(k.leading, t.leading) == 0)) &&
      (k.comment == t.comment || (k.comment && t.comment && strcmp(k.comment, t.comment) == 0));
  bool ok = same || (!t.leading && !t.comment) ||
            wave_comment_moves_now(h->module, &twin_line, 1, wave_code_instr_line(keep));
  wave_instr_delete(twin);
  return ok;
}

static void missed(hoister *h, const wave_instr *a, const wave_instr *b, const wave_node *node,
                   const char *direction, const char *why) {
  wave_loc at = wave_node_origin(node, WAVE_LINE_IF).loc;
  wave_remark_missed(h->ctx, "not-moved", wave_instr_loc(a),
                     "'%s' at %u:%u and %u:%u not %s the if at %u:%u: %s", mnemonic(a),
                     wave_instr_loc(a).line, wave_instr_loc(a).col, wave_instr_loc(b).line,
                     wave_instr_loc(b).col, direction, at.line, at.col, why);
}

static void passed(hoister *h, const wave_instr *a, wave_loc b, const wave_node *node,
                   const char *direction) {
  wave_loc at = wave_node_origin(node, WAVE_LINE_IF).loc;
  wave_remark_passed(
      h->ctx, "moved", wave_instr_loc(a), "'%s' at %u:%u and %u:%u %s the if at %u:%u", mnemonic(a),
      wave_instr_loc(a).line, wave_instr_loc(a).col, b.line, b.col, direction, at.line, at.col);
  wave_pass_stat_add(h->ctx, "instrs-moved",
                     "Number of instructions moved out of both sides of an if", 1);
  h->moved++;
}

static void hoist(hoister *h, wave_node *node, const if_facts *f) {
  const char *above = "hoisted above";
  wave_instr *a, *b;
  while ((a = first_instr(wave_if_then(node))) && (b = first_instr(wave_if_else(node))) &&
         wave_instr_op(a) == wave_instr_op(b)) {
    char buf[96], reg[8];
    const char *why = why_fixed(a, b);
    if (!why && wave_instr_writes_reg(a, WAVE_REG_PRED(wave_if_cond(node).value))) {
      snprintf(buf, sizeof(buf), "it writes the if's predicate p%u", wave_if_cond(node).value);
      why = buf;
    }
    if (!why && read_elsewhere(a, &f->then_side, reg, sizeof(reg))) {
      snprintf(buf, sizeof(buf), "the then-side reads %s from other lanes", reg);
      why = buf;
    }
    if (why) {
      missed(h, a, b, node, above, why);
      return;
    }
    wave_loc b_loc = wave_instr_loc(b);
    if (!move_pair(h, a, b, wave_cursor_before_node(node))) {
      h->failed = true;
      return;
    }
    passed(h, a, b_loc, node, above);
  }
}

static void sink(hoister *h, wave_node *node, const if_facts *f) {
  const char *below = "sunk below";
  wave_instr *a, *b;
  while ((a = last_instr(wave_if_then(node))) && (b = last_instr(wave_if_else(node))) &&
         wave_instr_op(a) == wave_instr_op(b)) {
    char buf[96], reg[8];
    const char *why = why_fixed(a, b);
    const wave_instr *exit = NULL;
    const char *side = "then";
    if (!why && !((exit = f->then_side.ends) || (exit = f->then_side.leaves))) {
      side = "else";
      exit = f->else_side.ends ? f->else_side.ends : f->else_side.leaves;
    }
    if (!why && exit) {
      snprintf(buf, sizeof(buf), "the %s-side holds '%s' at %u:%u", side, mnemonic(exit),
               wave_instr_loc(exit).line, wave_instr_loc(exit).col);
      why = buf;
    }
    if (!why && read_elsewhere(a, &f->else_side, reg, sizeof(reg))) {
      snprintf(buf, sizeof(buf), "the else-side reads %s from other lanes", reg);
      why = buf;
    }
    if (why) {
      missed(h, a, b, node, below, why);
      return;
    }
    wave_loc b_loc = wave_instr_loc(b);
    if (!move_pair(h, a, b, wave_cursor_after_node(node))) {
      h->failed = true;
      return;
    }
    passed(h, a, b_loc, node, below);
  }
}

static bool rewrite(void *ctx, wave_node *node, const if_facts *f) {
  hoister *h = ctx;
  hoist(h, node, f);
  if (!h->failed)
    sink(h, node, f);
  return !h->failed;
}

bool wave_hoist_common(wave_node *node, wave_pass_context *ctx, unsigned *moved) {
  hoister h = {ctx, wave_kernel_module(wave_region_kernel(wave_node_region(node))), 0, false};
  facts_walk fw = {.allocator = wave_module_allocator(h.module)};
  side_facts sides[2];
  wave_node_list *lists[2] = {wave_if_then(node), wave_if_else(node)};
  bool ok = true;
  for (unsigned i = 0; ok && i < 2; i++) {
    ok = walk_facts(&fw, lists[i], NULL, NULL);
    sides[i] = fw.root_facts;
  }
  wave_mem_free(fw.allocator, fw.stack);
  if (ok) {
    if_facts f = {sides[0], sides[1]};
    ok = rewrite(&h, node, &f);
  }
  *moved += h.moved;
  return ok;
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  (void)am;
  hoister h = {ctx, wave_kernel_module(kernel), 0, false};
  facts_walk fw = {.allocator = wave_module_allocator(h.module)};
  bool ok = true;
  /* The walk reads each if's facts when it leaves the if, before rewriting it: the moves touch
   * only the if's own lists and the lists around it, never a list the walk still has to see
   * other than by adding pure instructions that no fact counts. */
  wave_foreach_region(r, kernel) {
    if (ok)
      ok = walk_facts(&fw, wave_region_body(r), rewrite, &h);
  }
  wave_mem_free(fw.allocator, fw.stack);
  if (!ok)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in hoist-common");
  return wave_pass_done_settled(h.moved > 0, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_hoist_common = {
    .name = "hoist-common",
    .help = "move identical instructions at the start (end) of both sides of an if before "
            "(after) it",
    .run = run,
};
