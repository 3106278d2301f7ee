/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exits through per-lane flags (xform/exit_flags.h). The emulator runs `continue` wrongly (a
 * partial continue sends every lane back to the loop head, a full one spins on an empty mask),
 * lets the lanes of a `break` nested in an `if` run the rest of the iteration, and ends the
 * whole wave at a `halt` or `return` inside a region (docs/toolchain.md "Continue", "Break
 * inside an if", "Halt and return inside regions"). Both are rewritten into code every tool runs,
 * as spirv-opt's merge-return does for returns:
 *
 *   - rK, one scratch GPR per top-level node, is 1 in a lane that has left "the rest": set by a
 *     continue (`select rK, p2, rO, rK`, rO holding 1) and by a halt or return; it is 0 in every
 *     lane that runs the original code. A loop that its own continues leave clears it at the
 *     top of its body, so the lanes that continued run the next iteration.
 *   - in each list, the code after the first item (an exit, or an if or loop holding one)
 *     runs in runs under `if rK == 0` (icmp_eq pS, rK, rZ ; if pS, rZ holding 0), a run
 *     ending after each later item, since that item may set rK again. Only the lanes that
 *     left skip it, exactly the lanes the exit took away from that code.
 *   - in a loop body a run also ends at each `break p` of the body, which stays directly in the
 *     body and breaks on p and rK == 0 (select rT, p, rK, rO ; icmp_eq p, rT, rZ ; break p), so
 *     that no break lands in an if (docs/toolchain.md "Break inside an if").
 *   - a break nested in an if (one legalize could not take out of its ifs: code beside it
 *     cannot take a guard) sets rK and rB, the break flag, to its predicate's number + 1.
 *     Right after the part of the loop body that holds it, `mov_imm rT, p+1 ; icmp_eq p, rB,
 *     rT ; break p` takes exactly those lanes out of the loop, from the body, where every target
 *     runs a break right. After the loop rK and rB go back to what they held for the lanes that
 *     left (rK to rD where a halt may have set it, else 0; rB to 0), so the code after the loop
 *     runs for them as before.
 *   - a halt or return inside a loop also sets rD, the done flag, and every loop around it
 *     breaks on rD right after the part that holds it; lanes that continued keep rD at 0.
 *   - at the region's top level, after the node, `@pS halt` on rK != 0 ends the lanes that
 *     halted, for good, as only a guarded top-level halt does on the emulator. In a subroutine
 *     (a region that starts at a label; the docs require its return to be convergent) the code
 *     after the node up to the subroutine's top-level return runs under rK == 0 instead, so
 *     every lane reaches that return together. rK, rD, rZ and rO are set before the node.
 *
 * Each lane thus runs the same instructions with the same operands as before, plus the flag
 * code, which reads only scratch it wrote before and predicates it wrote or borrowed (below)
 * and gives back: the stale-liveness rule of xform/xform.h holds, and one liveness result
 * serves every node of a pass run.
 * Wave operations run with the same lanes: the lanes that skip are those the exit removed.
 *
 * Scratch. rK, rD, rB, rZ, rO (0 and 1), rS and rT come from wave_xform_taken of the node (dead
 * around it, unused in it), growing .registers up to the budget; none left is an error, since
 * the rewrite is required for correctness. Each check takes a predicate dead right there and
 * at the top of the loop body around (the lanes that continued carry it into the next
 * iteration). Where none is (every predicate live, as in a subroutine, whose return reads them
 * all) it borrows one, p1: saved in rS by a select, given back inside the if to the lanes that
 * run it and saved again at its end, and given back from rS to every lane after the if. rS
 * matters only to the lanes that skipped what lies between, so nested checks share it. A
 * break's own predicate holds its combined condition (the lanes that break had it set
 * before), given back to the others where it is still read.
 *
 * Refused (left as it is, the caller reports it): a halt or return in a node that also holds a
 * barrier or call (the lanes that halted would be parked, not ended, and a barrier waits for
 * every lane that has not ended); a halt or return whose lanes would reach a wave operation
 * or MMA parked, on a target whose wave operations need every live lane (wave-ptx, and so
 * portable: one after the exit in the text, one in a loop that holds both, or in a
 * subroutine one up to its return; docs/toolchain.md "Halt and return inside regions"); a
 * halt inside a subroutine's region (only the kernel's top level ends exactly its lanes); and
 * a return inside a loop of a subroutine (its lanes leave the loop on a check whose borrowed
 * predicate they would carry back to the caller).
 *
 * Depth. The rewrite adds one if level to the lists after an exit: taking a node that was
 * within the depth limit past it is an error, after the rewrite (a node already past it is
 * reported by legalize's check, as before).
 */
#include "xform/exit_flags.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "support/grow.h"
#include "waveopt/instr.h"
#include "xform/xform.h"

typedef struct item {
  wave_instr *exit;        /* an exit to rewrite, or NULL: `node` holds exits */
  wave_node *node;
  bool cont;               /* lanes leave it skipping the rest of their loop's iteration */
  bool done;               /* lanes leave it for good (halt or return) */
  uint8_t brk;             /* lanes leave it to break out of their loop, on these predicates */
  bool reset;              /* a loop its breaks leave: rK and rB are reset after it */
  wave_regset busy_after;  /* registers a check right after it may not take */
} item;

typedef struct frame {
  wave_node *node;
  size_t first;            /* its items in `pending` */
  bool cont, done, target, left;   /* left: a loop that breaks in its ifs leave */
  uint8_t brk;
  /* Live at the top of the innermost loop body around its lists, or after that loop: where the
   * lanes that continue or break through the checks inside go on. */
  wave_regset loop_top;
} frame;

typedef struct job {
  wave_node *node;         /* an if or loop whose lists hold items */
  size_t first, count;     /* in `items`, in text order */
  bool target;             /* a loop that its own continues leave: rK cleared at its top */
  wave_regset loop_top;
} job;

typedef struct lowering {
  const wave_exit_flags_env *env;
  wave_kernel *kernel;
  wave_module *module;
  const wave_allocator *allocator; /* the module's, for the arrays below */
  wave_exit_flags_result *result;
  frame *frames;
  size_t num_frames, cap_frames;
  item *pending;
  size_t num_pending, cap_pending;
  item *items;
  size_t num_items, cap_items;
  job *jobs;
  size_t num_jobs, cap_jobs;
  wave_scratch scratch;
  /* rK, rD, rB: the flags; rZ, rO: 0 and 1; rS: a victim predicate's value; rT: a break's
   * test. */
  uint32_t rk, rd, rb, rz, ro, rs, rt;
  bool need_rd, need_rb, top_done, top_reset;
  const wave_instr *first_exit;   /* named in messages */
  const wave_instr *refused_by;   /* a barrier or call beside a halt, or a subroutine's halt */
  const wave_instr *sync;         /* the first barrier or call in the node */
  /* The first wave operation or MMA that lanes of a rewritten halt or return would reach
   * parked instead of ended: one after the exit in the text, or in a loop of the node that
   * also holds the exit (the next iteration reaches it). */
  const wave_instr *parked_at;
  const wave_instr *loop_convergent;  /* the first one in the outermost loop open now */
  unsigned open_loops;                /* loops of the node open in the walk */
  bool exit_seen;                     /* a halt or return to rewrite lies behind the walk */
} lowering;

static const char *exit_name(const wave_instr *exit) {
  return wave_opcode_get(wave_instr_op(exit))->mnemonic;
}

static bool env_wants(const wave_exit_flags_env *env, const wave_instr *in) {
  if (wave_instr_op(in) == WAVE_OP_CONTINUE)
    return env->continues;
  if (wave_instr_op(in) == WAVE_OP_BREAK)
    return env->breaks && wave_node_list_parent(wave_node_list_of(wave_instr_node(in))) &&
           wave_node_kind_of(wave_node_list_parent(wave_node_list_of(wave_instr_node(in)))) ==
               WAVE_NODE_IF &&
           !wave_instr_operand(in, 0).negated;
  return (wave_instr_op(in) == WAVE_OP_HALT || wave_instr_op(in) == WAVE_OP_RETURN) && env->halts;
}

bool wave_exit_flags_wanted(const wave_exit_flags_env *env, const wave_node *top) {
  for (const wave_node *n = top; n; n = wave_tree_next(top, (wave_node *)n)) {
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      continue;
    wave_foreach_instr(in, n) {
      if (env_wants(env, in))
        return true;
    }
  }
  return false;
}

static bool in_subroutine(const wave_node *node) {
  const wave_region *r = wave_node_region(node);
  return r && r != wave_kernel_first_region(wave_region_kernel(r));
}

static wave_exit_flags_status say(lowering *l, wave_exit_flags_status status, wave_loc loc,
                                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static wave_exit_flags_status say(lowering *l, wave_exit_flags_status status, wave_loc loc,
                                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->result->what, sizeof(l->result->what), fmt, ap);
  va_end(ap);
  l->result->loc = loc;
  return status;
}

static wave_regset with_kernel(const lowering *l, wave_regset busy) {
  return wave_regset_union(busy, *l->env->reserved);
}

/* A predicate `busy` leaves free, p1..p3 first; only those when it will be a guard. */
static bool pick_pred(wave_regset busy, bool guard, uint32_t *p) {
  static const uint32_t order[WAVE_NUM_PREDS] = {1, 2, 3, 0};
  for (unsigned i = 0; i < (guard ? WAVE_NUM_PREDS - 1 : WAVE_NUM_PREDS); i++) {
    if (!wave_regset_test(busy, WAVE_REG_PRED(order[i]))) {
      *p = order[i];
      return true;
    }
  }
  return false;
}

/* ---- planning: what the node holds, decided before the first edit ------------------------- */

static bool push_frame(lowering *l, wave_node *node) {
  if (!wave_grow(l->allocator, (void **)&l->frames, &l->cap_frames, l->num_frames + 1,
                 sizeof(frame)))
    return false;
  frame *f = &l->frames[l->num_frames++];
  f->node = node;
  f->first = l->num_pending;
  f->cont = f->done = f->target = f->left = false;
  f->brk = 0;
  if (wave_node_kind_of(node) == WAVE_NODE_LOOP && l->open_loops++ == 0)
    l->loop_convergent = NULL;
  if (wave_node_kind_of(node) == WAVE_NODE_LOOP)
    f->loop_top = wave_regset_union(
        wave_liveness_at(l->env->liveness, wave_cursor_list_start(wave_loop_body(node))),
        wave_liveness_at(l->env->liveness, wave_cursor_after_node(node)));
  else
    f->loop_top = l->num_frames > 1 ? f[-1].loop_top : wave_regset_empty();
  return true;
}

static bool add_item(lowering *l, const item *it) {
  if (!wave_grow(l->allocator, (void **)&l->pending, &l->cap_pending, l->num_pending + 1,
                 sizeof(item)))
    return false;
  l->pending[l->num_pending++] = *it;
  return true;
}

/* Hands the frame's items on as a job, and the frame itself to its parent as an item when lanes
 * leave it wanting the rest of the parent's list skipped. */
static bool pop_frame(lowering *l) {
  frame f = l->frames[--l->num_frames];
  size_t n = l->num_pending - f.first;
  if (n) {
    if (!wave_grow(l->allocator, (void **)&l->items, &l->cap_items, l->num_items + n,
                   sizeof(item)) ||
        !wave_grow(l->allocator, (void **)&l->jobs, &l->cap_jobs, l->num_jobs + 1, sizeof(job)))
      return false;
    memcpy(l->items + l->num_items, l->pending + f.first, n * sizeof(item));
    job j = {f.node, l->num_items, n, f.target, f.loop_top};
    l->jobs[l->num_jobs++] = j;
    l->num_items += n;
  }
  l->num_pending = f.first;
  bool loop = wave_node_kind_of(f.node) == WAVE_NODE_LOOP;
  l->open_loops -= loop;
  bool cont = !loop && f.cont;   /* a loop's continues and breaks stay inside it */
  uint8_t brk = loop ? 0 : f.brk;
  l->need_rd |= loop && f.done;
  if (!l->num_frames) {
    l->top_done = f.done;
    l->top_reset = f.left;
    return true;
  }
  frame *p = &l->frames[l->num_frames - 1];
  p->done |= f.done;
  if (cont && wave_node_kind_of(p->node) == WAVE_NODE_LOOP)
    p->target = true;
  else
    p->cont |= cont;
  if (wave_node_kind_of(p->node) == WAVE_NODE_LOOP)
    p->left |= brk != 0;
  else
    p->brk |= brk;
  if (!cont && !f.done && !brk && !f.left)
    return true;
  item it = {NULL, f.node, cont, f.done, brk, f.left, wave_regset_empty()};
  it.busy_after = with_kernel(
      l, wave_regset_union(wave_liveness_at(l->env->liveness, wave_cursor_after_node(f.node)),
                           p->loop_top));
  return add_item(l, &it);
}

/* A barrier or call anywhere in the node refuses a halt's rewrite; a wave operation or MMA
 * only where the halted lanes would reach it parked (the target decides whether that matters:
 * wave-ptx makes it a full-warp .sync that waits for every thread that has not exited). */
static void note_convergent(lowering *l, const wave_instr *in) {
  if (!wave_opcode_has(wave_instr_op(in), WAVE_F_CONVERGENT))
    return;
  if (wave_instr_op(in) == WAVE_OP_BARRIER || wave_instr_op(in) == WAVE_OP_CALL) {
    if (!l->sync)
      l->sync = in;
    return;
  }
  if (l->exit_seen && !l->parked_at)
    l->parked_at = in;
  if (l->open_loops && !l->loop_convergent)
    l->loop_convergent = in;
}

static void note_exit(lowering *l) {
  l->exit_seen = true;
  if (l->open_loops && l->loop_convergent && !l->parked_at)
    l->parked_at = l->loop_convergent;
}

static bool plan_block(lowering *l, wave_node *block) {
  frame *f = &l->frames[l->num_frames - 1];
  const wave_liveness *lv = l->env->liveness;
  wave_foreach_instr(in, block) {
    note_convergent(l, in);
    if (!env_wants(l->env, in))
      continue;
    if (!l->first_exit)
      l->first_exit = in;
    bool cont = wave_instr_op(in) == WAVE_OP_CONTINUE, brk = wave_instr_op(in) == WAVE_OP_BREAK;
    uint8_t brk_pred = brk ? (uint8_t)(1u << wave_instr_operand(in, 0).value) : 0;
    if (cont && wave_node_kind_of(f->node) == WAVE_NODE_LOOP)
      f->target = true;
    else if (cont)
      f->cont = true;
    else if (brk)
      f->brk |= brk_pred;
    else
      f->done = true;
    if (!cont && !brk)
      note_exit(l);
    l->need_rb |= brk;
    if (wave_instr_op(in) == WAVE_OP_HALT && in_subroutine(block) && !l->refused_by)
      l->refused_by = in;
    item it = {in, NULL, cont, !cont && !brk, brk_pred, false,
               with_kernel(l, wave_regset_union(wave_liveness_out(lv, in), f->loop_top))};
    if (!add_item(l, &it))
      return false;
  }
  return true;
}

/* One pre-order walk; a frame closes when the walk leaves it (no recursion: 100 000-deep
 * nests are fine). */
static bool plan(lowering *l, wave_node *top) {
  if (!push_frame(l, top))
    return false;
  for (wave_node *n = wave_tree_next(top, top); n; n = wave_tree_next(top, n)) {
    while (l->frames[l->num_frames - 1].node != wave_node_parent(n)) {
      if (!pop_frame(l))
        return false;
    }
    if (wave_node_kind_of(n) == WAVE_NODE_BLOCK ? !plan_block(l, n) : !push_frame(l, n))
      return false;
  }
  while (l->num_frames) {
    if (!pop_frame(l))
      return false;
  }
  return true;
}

/* ---- the edits ---------------------------------------------------------------------------- */

static wave_exit_flags_status no_gpr(lowering *l) {
  const wave_instr *e = l->first_exit;
  return say(l, WAVE_EXIT_FLAGS_FAILED, wave_instr_loc(e),
             "cannot rewrite the %s at %u:%u for %s: no register free for its flags within "
             "%u registers (raise -max-registers); legalize must rewrite it on this target",
             exit_name(e), wave_instr_loc(e).line, wave_instr_loc(e).col, l->env->target->name,
             l->scratch.limit);
}

/* A scratch GPR taken on first use (*r != NO_REG afterwards). */
#define NO_REG UINT32_MAX
static bool scratch_gpr(lowering *l, uint32_t *r) {
  if (*r != NO_REG)
    return true;
  if (!wave_scratch_gpr(&l->scratch, r))
    return false;
  if (l->env->has_call)
    wave_regset_set(l->env->reserved, WAVE_REG_GPR(*r));
  return true;
}

static wave_instr *build_select(wave_builder *b, uint32_t dst, uint32_t p, uint32_t if_true,
                                uint32_t if_false) {
  return wave_build(b, WAVE_OP_SELECT, wave_gpr(dst), wave_pred(p), wave_gpr(if_true),
                    wave_gpr(if_false));
}

static wave_instr *build_compare(wave_builder *b, wave_opcode op, uint32_t p, uint32_t x,
                                 uint32_t y) {
  return wave_build(b, op, wave_pred(p), wave_gpr(x), wave_gpr(y));
}

/* The predicate a check at a place with `busy` live writes: a free one, else a victim (*saved)
 * that the check saves in rS first and gives back after (save_pred / restore_pred). rS only
 * means something to the lanes that skip what lies between, so nested checks share it. */
typedef struct check_pred {
  uint32_t p;
  bool saved;
} check_pred;

static wave_exit_flags_status check_pred_at(lowering *l, wave_regset busy, bool guard,
                                            check_pred *c) {
  if (pick_pred(busy, guard, &c->p)) {
    c->saved = false;
    return WAVE_EXIT_FLAGS_DONE;
  }
  c->p = 1;
  c->saved = true;
  return scratch_gpr(l, &l->rs) ? WAVE_EXIT_FLAGS_DONE : no_gpr(l);
}

static bool save_pred(lowering *l, wave_builder *b, const check_pred *c) {
  return !c->saved || build_select(b, l->rs, c->p, l->ro, l->rz);
}

static bool restore_pred(lowering *l, wave_builder *b, const check_pred *c) {
  return !c->saved || build_compare(b, WAVE_OP_ICMP_NE, c->p, l->rs, l->rz);
}

/* flag = 1 in the lanes the exit takes: all, or those its condition (the continue's operand,
 * the halt's guard) selects, through a select so that any predicate serves. */
static bool set_flag(lowering *l, wave_builder *b, uint32_t flag, const wave_operand *cond) {
  if (!cond)
    return wave_build(b, WAVE_OP_MOV_IMM, wave_gpr(flag), wave_imm(1)) != NULL;
  return cond->negated ? build_select(b, flag, cond->value, flag, l->ro) != NULL
                       : build_select(b, flag, cond->value, l->ro, flag) != NULL;
}

/* Replaces the exit (alone in its block) with the code that sets its flags. */
static wave_exit_flags_status lower_exit(lowering *l, const item *it) {
  wave_instr *e = it->exit;
  wave_builder b = wave_builder_at(l->module, wave_cursor_before_instr(e), wave_instr_loc(e));
  wave_operand guard = wave_pred(wave_instr_guard(e) >= 0 ? (uint32_t)wave_instr_guard(e) : 0);
  guard.negated = wave_instr_guard_negated(e);
  wave_operand exit_pred = wave_instr_operand(e, 0);
  const wave_operand *cond = NULL;
  if (it->cont || it->brk)
    cond = &exit_pred;
  else if (wave_instr_guard(e) != WAVE_NO_GUARD &&
           !(wave_instr_guard(e) == 0 && !wave_instr_guard_negated(e)))
    cond = &guard;
  if (it->brk && !scratch_gpr(l, &l->rt))
    return no_gpr(l);
  /* rB = the break's predicate + 1, which the check at the loop body tests. */
  if (!set_flag(l, &b, l->rk, cond) || (it->done && l->need_rd && !set_flag(l, &b, l->rd, cond)) ||
      (it->brk && (!wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rt), wave_imm(cond->value + 1)) ||
                   !build_select(&b, l->rb, cond->value, l->rt, l->rb))))
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  if (l->env->rewritten)
    l->env->rewritten(l->env->arg, e);
  wave_instr_remove(e);
  return WAVE_EXIT_FLAGS_DONE;
}

/* The nodes still to go under `if rK == 0`, and what is live where their check goes. */
typedef struct run {
  wave_node *first, *last;
  wave_regset busy;
  wave_loc at;
} run;

static void run_add(run *r, wave_node *n) {
  if (!r->first)
    r->first = n;
  r->last = n;
}

/* Ends the block at `last` (built code), whatever followed going to a block of its own, which
 * *next becomes: built code is never part of a run. */
static bool end_block_at(lowering *l, wave_instr *last, wave_node **next) {
  if (wave_instr_next(last) && !wave_block_split(l->module, wave_instr_next(last)))
    return false;
  *next = wave_node_next(wave_instr_node(last));
  return true;
}

/* Puts the run under `if rK == 0`. The if goes in first, so that the test lands before it and
 * not inside the run. With a victim predicate the if restores it for the lanes that run the
 * run and saves it again at its end, and after the if every lane takes its own value back.
 * *tail is where code after it all goes: after the if, or after that last restore, which ends
 * its block (*next becomes the node after it). Nothing changes for an empty run. */
static wave_exit_flags_status close_run(lowering *l, run *r, wave_cursor *tail, wave_node **next) {
  if (!r->first)
    return WAVE_EXIT_FLAGS_DONE;
  check_pred c;
  wave_exit_flags_status s = check_pred_at(l, r->busy, false, &c);
  if (s != WAVE_EXIT_FLAGS_DONE)
    return s;
  wave_builder b = wave_builder_at(l->module, wave_cursor_before_node(r->first), r->at);
  wave_node_list moved;
  wave_node *w = wave_build_if(&b, wave_pred(c.p));
  if (!w)
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  wave_builder before = wave_builder_at(l->module, wave_cursor_before_node(w), r->at);
  if (!save_pred(l, &before, &c) || !build_compare(&before, WAVE_OP_ICMP_EQ, c.p, l->rk, l->rz) ||
      !wave_node_list_extract(r->first, r->last, &moved) ||
      !wave_node_list_reinsert(l->module, wave_cursor_list_end(wave_if_then(w)), &moved))
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  if (c.saved) {
    wave_builder start = wave_builder_at(l->module, wave_cursor_list_start(wave_if_then(w)), r->at);
    wave_builder end = wave_builder_at(l->module, wave_cursor_list_end(wave_if_then(w)), r->at);
    wave_builder after = wave_builder_at(l->module, wave_cursor_after_node(w), r->at);
    if (!restore_pred(l, &start, &c) || !save_pred(l, &end, &c) || !restore_pred(l, &after, &c))
      return WAVE_EXIT_FLAGS_NO_MEMORY;
    wave_instr *last = after.cursor.at.instr;
    *tail = wave_cursor_after_instr(last);
    if (!end_block_at(l, last, next))
      return WAVE_EXIT_FLAGS_NO_MEMORY;
  } else {
    *tail = wave_cursor_after_node(w);
  }
  r->first = r->last = NULL;
  return WAVE_EXIT_FLAGS_DONE;
}

/* After an item in a loop body: the lanes that halted leave the loop. They keep the victim's
 * value of the check, which nothing reads: they end at the top level. */
static wave_exit_flags_status break_on_done(lowering *l, const item *it, wave_cursor *tail,
                                            wave_loc at, wave_node **next) {
  check_pred c;
  wave_exit_flags_status s = check_pred_at(l, it->busy_after, false, &c);
  if (s != WAVE_EXIT_FLAGS_DONE)
    return s;
  wave_builder b = wave_builder_at(l->module, *tail, at);
  wave_instr *last;
  if (!save_pred(l, &b, &c) || !build_compare(&b, WAVE_OP_ICMP_NE, c.p, l->rd, l->rz) ||
      !(last = wave_build(&b, WAVE_OP_BREAK, wave_pred(c.p))) || !restore_pred(l, &b, &c))
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  if (c.saved)
    last = wave_instr_next(last);
  *tail = wave_cursor_after_instr(last);
  return end_block_at(l, last, next) ? WAVE_EXIT_FLAGS_DONE : WAVE_EXIT_FLAGS_NO_MEMORY;
}

/* After an item in a loop body that its breaks leave: for each predicate p they broke on,
 *   mov_imm rT, p+1 ; icmp_eq p, rB, rT ; break p
 * written into p itself, as the breaks had it set; the lanes that stay get p back from rS where
 * it is still read. */
static wave_exit_flags_status break_on_brk(lowering *l, const item *it, wave_cursor tail,
                                           wave_loc at, wave_node **next) {
  wave_builder b = wave_builder_at(l->module, tail, at);
  wave_instr *last = NULL;
  if (!scratch_gpr(l, &l->rt))
    return no_gpr(l);
  for (uint32_t p = 0; p < WAVE_NUM_PREDS; p++) {
    if (!(it->brk >> p & 1))
      continue;
    check_pred c = {p, wave_regset_test(it->busy_after, WAVE_REG_PRED(p))};
    if (c.saved && !scratch_gpr(l, &l->rs))
      return no_gpr(l);
    if (!save_pred(l, &b, &c) ||
        !wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rt), wave_imm(p + 1)) ||
        !build_compare(&b, WAVE_OP_ICMP_EQ, p, l->rb, l->rt) ||
        !(last = wave_build(&b, WAVE_OP_BREAK, wave_pred(p))) || !restore_pred(l, &b, &c))
      return WAVE_EXIT_FLAGS_NO_MEMORY;
    if (c.saved)
      last = wave_instr_next(last);
  }
  return end_block_at(l, last, next) ? WAVE_EXIT_FLAGS_DONE : WAVE_EXIT_FLAGS_NO_MEMORY;
}

/* After a loop that breaks in its ifs leave: those lanes go on as before (rK = 0, or rD for
 * the lanes that halted, which left too), and rB is 0 again. The code ends its block; *last
 * is its last instruction. */
static bool reset_after(lowering *l, wave_cursor at, wave_loc loc, wave_instr **last) {
  wave_builder b = wave_builder_at(l->module, at, loc);
  bool ok = l->need_rd ? wave_build(&b, WAVE_OP_MOV, wave_gpr(l->rk), wave_gpr(l->rd)) != NULL
                       : wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rk), wave_imm(0)) != NULL;
  return ok && (*last = wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rb), wave_imm(0)));
}

/* `break pB` of a loop body in the skipped part breaks on pB and rK == 0, written into pB
 * itself: the lanes that break had pB set before too, and the others get it back from rS
 * where it is still read.
 *   select rT, pB, rK, rO ; icmp_eq pB, rT, rZ ; break pB     (break !pB: rO, rK ; icmp_ne) */
static wave_exit_flags_status combine_break(lowering *l, wave_instr *brk, wave_regset loop_top) {
  const wave_liveness *lv = l->env->liveness;
  wave_operand pb = wave_instr_operand(brk, 0);
  check_pred c = {pb.value,
                  wave_regset_test(wave_regset_union(wave_liveness_out(lv, brk), loop_top),
                                   WAVE_REG_PRED(pb.value))};
  if (!scratch_gpr(l, &l->rt) || (c.saved && !scratch_gpr(l, &l->rs)))
    return no_gpr(l);
  wave_builder b = wave_builder_at(l->module, wave_cursor_before_instr(brk), wave_instr_loc(brk));
  wave_builder after =
      wave_builder_at(l->module, wave_cursor_after_instr(brk), wave_instr_loc(brk));
  bool ok = save_pred(l, &b, &c) &&
            (pb.negated ? build_select(&b, l->rt, pb.value, l->ro, l->rk)
                        : build_select(&b, l->rt, pb.value, l->rk, l->ro)) &&
            build_compare(&b, pb.negated ? WAVE_OP_ICMP_NE : WAVE_OP_ICMP_EQ, pb.value, l->rt,
                          l->rz) &&
            restore_pred(l, &after, &c);
  return ok ? WAVE_EXIT_FLAGS_DONE : WAVE_EXIT_FLAGS_NO_MEMORY;
}

/* Makes `in` the only instruction of its block; returns that block (NULL: out of memory). The
 * halves stay adjacent blocks until the caller's edits or the final normalization. */
static wave_node *isolate(lowering *l, wave_instr *in) {
  if (wave_instr_next(in) && !wave_block_split(l->module, wave_instr_next(in)))
    return NULL;
  return wave_block_split(l->module, in);
}

static wave_node_list *item_list(const item *it) {
  return it->exit ? wave_node_list_of(wave_instr_node(it->exit)) : wave_node_list_of(it->node);
}

static wave_loc item_loc(const item *it) {
  if (it->exit)
    return wave_instr_loc(it->exit);
  return wave_node_kind_of(it->node) == WAVE_NODE_IF
             ? wave_node_origin(it->node, WAVE_LINE_ENDIF).loc
             : wave_node_origin(it->node, WAVE_LINE_ENDLOOP).loc;
}

/* One list of a job, its items its[0..n) in text order: after the first item every node goes
 * into runs under `if rK == 0` (in a loop body, only once a continue has been met), cut after
 * each item and, in a loop body, at each break. */
static wave_exit_flags_status lower_list(lowering *l, const job *j, wave_node_list *list,
                                         const item *its, size_t n) {
  bool loop = wave_node_kind_of(j->node) == WAVE_NODE_LOOP;
  bool zone = false;
  run r = {NULL, NULL, wave_regset_empty(), {0}};
  size_t k = 0;
  wave_exit_flags_status s;
  wave_node *node = wave_node_list_first(list);
  while (node) {
    wave_node *next = wave_node_next(node);
    const item *it = k < n ? &its[k] : NULL;
    wave_instr *cut = NULL;
    if (wave_node_kind_of(node) == WAVE_NODE_BLOCK) {
      wave_foreach_instr(in, node) {
        if ((it && it->exit == in) || (zone && loop && wave_instr_op(in) == WAVE_OP_BREAK)) {
          cut = in;
          break;
        }
      }
      if (!cut) {
        if (zone)
          run_add(&r, node);
        node = next;
        continue;
      }
      wave_node *alone = isolate(l, cut);
      if (!alone)
        return WAVE_EXIT_FLAGS_NO_MEMORY;
      if (alone != node && zone)
        run_add(&r, node);
      next = wave_node_next(alone);
      node = alone;
      if (!(it && it->exit == cut)) {
        /* The run's restore, if any, lands before the break, in its block. */
        wave_cursor tail;
        wave_node *ignored;
        if ((s = close_run(l, &r, &tail, &ignored)) != WAVE_EXIT_FLAGS_DONE ||
            (s = combine_break(l, cut, j->loop_top)) != WAVE_EXIT_FLAGS_DONE)
          return s;
        r.busy = with_kernel(l, wave_regset_union(wave_liveness_out(l->env->liveness, cut),
                                                  j->loop_top));
        r.at = wave_instr_loc(cut);
        node = next;
        continue;
      }
      if ((s = lower_exit(l, it)) != WAVE_EXIT_FLAGS_DONE)
        return s;
    } else if (!it || it->node != node) {
      if (zone)
        run_add(&r, node);
      node = next;
      continue;
    }
    /* node is the item (an exit's block now holding its flag code, or an if or loop). */
    wave_loc at = item_loc(it);
    wave_node *reset = NULL;
    wave_instr *last;
    if (it->reset) {
      if (!reset_after(l, wave_cursor_after_node(node), at, &last) || !end_block_at(l, last, &next))
        return WAVE_EXIT_FLAGS_NO_MEMORY;
      reset = wave_instr_node(last);
    }
    wave_cursor tail = wave_cursor_after_node(reset ? reset : node);
    if (zone) {
      run_add(&r, node);
      if (reset)
        run_add(&r, reset);
    }
    if ((s = close_run(l, &r, &tail, &next)) != WAVE_EXIT_FLAGS_DONE)
      return s;
    if (loop && it->done && (s = break_on_done(l, it, &tail, at, &next)) != WAVE_EXIT_FLAGS_DONE)
      return s;
    if (loop && it->brk && (s = break_on_brk(l, it, tail, at, &next)) != WAVE_EXIT_FLAGS_DONE)
      return s;
    zone |= it->cont || (!loop && (it->done || it->brk));
    r.busy = it->busy_after;
    r.at = at;
    k++;
    node = next;
  }
  wave_cursor tail;
  wave_node *next;
  return close_run(l, &r, &tail, &next);
}

static wave_exit_flags_status lower_job(lowering *l, const job *j) {
  wave_node_list *lists[2] = {NULL, NULL};
  unsigned num_lists = 0;
  if (wave_node_kind_of(j->node) == WAVE_NODE_LOOP) {
    lists[num_lists++] = wave_loop_body(j->node);
  } else {
    lists[num_lists++] = wave_if_then(j->node);
    lists[num_lists++] = wave_if_else(j->node);
  }
  const item *its = l->items + j->first;
  size_t split = 0;
  while (split < j->count && item_list(&its[split]) == lists[0])
    split++;
  wave_exit_flags_status s = lower_list(l, j, lists[0], its, split);
  if (s == WAVE_EXIT_FLAGS_DONE && num_lists == 2)
    s = lower_list(l, j, lists[1], its + split, j->count - split);
  if (s != WAVE_EXIT_FLAGS_DONE || !j->target)
    return s;
  wave_builder b = wave_builder_at(l->module, wave_cursor_list_start(lists[0]),
                                   wave_node_origin(j->node, WAVE_LINE_LOOP).loc);
  return wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rk), wave_imm(0)) ? WAVE_EXIT_FLAGS_DONE
                                                                      : WAVE_EXIT_FLAGS_NO_MEMORY;
}

/* The first top-level instruction after `top` that ends the subroutine for every lane. */
static wave_instr *subroutine_end(wave_node *top) {
  for (wave_node *n = wave_node_next(top); n; n = wave_node_next(n)) {
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      continue;
    wave_foreach_instr(in, n) {
      if (wave_opcode_has(wave_instr_op(in), WAVE_F_EXIT) &&
          (wave_instr_guard(in) == WAVE_NO_GUARD ||
           (wave_instr_guard(in) == 0 && !wave_instr_guard_negated(in))))
        return in;
    }
  }
  return NULL;
}

/* In a subroutine the code after `top` up to its return runs under the flag too: its
 * convergent instructions count as the node's. */
static void note_convergent_after(lowering *l, wave_node *top) {
  const wave_instr *end = subroutine_end(top);
  l->exit_seen = true;
  for (wave_node *n = wave_node_next(top); n; n = wave_node_next(n)) {
    for (wave_node *m = n; m; m = wave_tree_next(n, m)) {
      if (wave_node_kind_of(m) != WAVE_NODE_BLOCK)
        continue;
      wave_foreach_instr(in, m) {
        if (in == end)
          return;
        note_convergent(l, in);
      }
    }
  }
}

/* Around the node at the region's top level: the flags and constants are set before it; after
 * it the lanes that halted end (`@pS halt`), or in a subroutine skip the code up to its
 * return. */
static wave_exit_flags_status lower_top(lowering *l, wave_node *top, wave_node **wrap) {
  wave_loc at = wave_node_kind_of(top) == WAVE_NODE_IF
                    ? wave_node_origin(top, WAVE_LINE_ENDIF).loc
                    : wave_node_origin(top, WAVE_LINE_ENDLOOP).loc;
  wave_builder b = wave_builder_at(l->module, wave_cursor_before_node(top), at);
  if (!wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rz), wave_imm(0)) ||
      !wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->ro), wave_imm(1)) ||
      !wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rk), wave_imm(0)) ||
      (l->need_rd && !wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rd), wave_imm(0))) ||
      (l->need_rb && !wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(l->rb), wave_imm(0))))
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  wave_cursor after = wave_cursor_after_node(top);
  wave_node *rest = wave_node_next(top);
  if (l->top_reset) {
    wave_instr *last;
    if (!reset_after(l, after, at, &last) || !end_block_at(l, last, &rest))
      return WAVE_EXIT_FLAGS_NO_MEMORY;
    after = wave_cursor_after_instr(last);
  }
  if (!l->top_done)
    return WAVE_EXIT_FLAGS_DONE;
  wave_regset busy =
      with_kernel(l, wave_liveness_at(l->env->liveness, wave_cursor_after_node(top)));
  run r = {NULL, NULL, busy, at};
  if (in_subroutine(top)) {
    wave_instr *end = subroutine_end(top);
    wave_node *stop = end ? wave_block_split(l->module, end) : NULL;
    if (end && !stop)
      return WAVE_EXIT_FLAGS_NO_MEMORY;
    for (wave_node *n = rest; n && n != stop; n = wave_node_next(n))
      run_add(&r, n);
    wave_cursor tail;
    wave_node *next, *first = r.first;
    wave_exit_flags_status s = close_run(l, &r, &tail, &next);
    *wrap = first ? wave_node_parent(first) : NULL;
    return s;
  }
  check_pred c;
  wave_exit_flags_status s = check_pred_at(l, busy, true, &c);
  if (s != WAVE_EXIT_FLAGS_DONE)
    return s;
  b = wave_builder_at(l->module, after, at);
  wave_instr *halt;
  if (!save_pred(l, &b, &c) || !build_compare(&b, WAVE_OP_ICMP_NE, c.p, l->rk, l->rz) ||
      !(halt = wave_build(&b, WAVE_OP_HALT)) || !restore_pred(l, &b, &c))
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  wave_instr_set_guard(halt, (int)c.p, false);
  return WAVE_EXIT_FLAGS_DONE;
}

/* Frames of the deepest if or loop in the subtree of `node` (itself included). */
static unsigned frames_deep(wave_node *node) {
  if (!node || wave_node_kind_of(node) == WAVE_NODE_BLOCK)
    return 0;
  unsigned d = 1, deepest = 1;
  wave_node *open = node;
  for (wave_node *n = wave_tree_next(node, node); n; n = wave_tree_next(node, n)) {
    while (open != wave_node_parent(n)) {
      open = wave_node_parent(open);
      d--;
    }
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK) {
      open = n;
      if (++d > deepest)
        deepest = d;
    }
  }
  return deepest;
}

static wave_exit_flags_status lower(lowering *l, wave_node *top) {
  unsigned before = frames_deep(top);
  if (!plan(l, top))
    return WAVE_EXIT_FLAGS_NO_MEMORY;
  const wave_instr *e = l->first_exit;
  if (!e)
    return WAVE_EXIT_FLAGS_NONE;
  const char *target = l->env->target->name;
  if (l->refused_by)
    return say(l, WAVE_EXIT_FLAGS_REFUSED, wave_instr_loc(l->refused_by),
               "halt at %u:%u not rewritten for %s: it is in a subroutine, and only a halt at "
               "the kernel's top level ends exactly its lanes",
               wave_instr_loc(l->refused_by).line, wave_instr_loc(l->refused_by).col, target);
  if (l->need_rd && in_subroutine(top))
    return say(l, WAVE_EXIT_FLAGS_REFUSED, wave_instr_loc(e),
               "%s at %u:%u not rewritten for %s: it is inside a loop of a subroutine, whose "
               "lanes must return with every predicate as it was",
               exit_name(e), wave_instr_loc(e).line, wave_instr_loc(e).col, target);
  if (l->top_done && in_subroutine(top))
    note_convergent_after(l, top);
  if (l->top_done && l->sync)
    return say(l, WAVE_EXIT_FLAGS_REFUSED, wave_instr_loc(e),
               "%s at %u:%u not rewritten for %s: the lanes it ends would wait, not end, at "
               "the %s at %u:%u",
               exit_name(e), wave_instr_loc(e).line, wave_instr_loc(e).col, target,
               exit_name(l->sync), wave_instr_loc(l->sync).line, wave_instr_loc(l->sync).col);
  if (l->top_done && l->parked_at && !l->env->target->divergent_wave_ops_ok)
    return say(l, WAVE_EXIT_FLAGS_REFUSED, wave_instr_loc(e),
               "%s at %u:%u not rewritten for %s: the lanes it ends would reach the %s at "
               "%u:%u parked, not ended, where the wave is not converged",
               exit_name(e), wave_instr_loc(e).line, wave_instr_loc(e).col, target,
               exit_name(l->parked_at), wave_instr_loc(l->parked_at).line,
               wave_instr_loc(l->parked_at).col);
  const wave_exit_flags_env *env = l->env;
  wave_scratch_init(&l->scratch, l->kernel,
                    wave_xform_taken_with(env->liveness, top, *env->reserved),
                    env->max_registers);
  l->rk = l->rd = l->rb = l->rz = l->ro = l->rs = l->rt = NO_REG;
  if (!scratch_gpr(l, &l->rk) || !scratch_gpr(l, &l->rz) || !scratch_gpr(l, &l->ro) ||
      (l->need_rd && !scratch_gpr(l, &l->rd)) || (l->need_rb && !scratch_gpr(l, &l->rb)))
    return no_gpr(l);
  wave_loc first = wave_instr_loc(e);
  char first_name[16];
  snprintf(first_name, sizeof(first_name), "%s", exit_name(e));
  wave_exit_flags_status s = WAVE_EXIT_FLAGS_DONE;
  for (size_t i = 0; s == WAVE_EXIT_FLAGS_DONE && i < l->num_jobs; i++)
    s = lower_job(l, &l->jobs[i]);
  wave_node *wrap = NULL;
  if (s == WAVE_EXIT_FLAGS_DONE)
    s = lower_top(l, top, &wrap);
  if (s != WAVE_EXIT_FLAGS_DONE)
    return s;
  unsigned after = frames_deep(top);
  unsigned wrapped = wrap ? frames_deep(wrap) : 0;
  if (wrapped > after)
    after = wrapped;
  if (env->max_depth && after > env->max_depth && before <= env->max_depth)
    return say(l, WAVE_EXIT_FLAGS_FAILED, first,
               "the %s at %u:%u cannot run on %s within the divergence-stack limit %u "
               "(-max-divergence-depth): its rewrite nests %u deep; legalize must rewrite it on "
               "this target",
               first_name, first.line, first.col, target, env->max_depth, after);
  return WAVE_EXIT_FLAGS_DONE;
}

wave_exit_flags_status wave_exit_flags_lower(const wave_exit_flags_env *env, wave_node *top,
                                             wave_exit_flags_result *result) {
  lowering l;
  memset(&l, 0, sizeof(l));
  l.env = env;
  l.kernel = wave_node_region(top)->kernel;
  l.module = wave_kernel_module(l.kernel);
  l.allocator = wave_module_allocator(l.module);
  l.result = result;
  wave_exit_flags_status s = lower(&l, top);
  wave_mem_free(l.allocator, l.frames);
  wave_mem_free(l.allocator, l.pending);
  wave_mem_free(l.allocator, l.items);
  wave_mem_free(l.allocator, l.jobs);
  return s;
}
