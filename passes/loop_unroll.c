/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loop-unroll: replaces a loop that counts a constant number of times by that many copies of
 * its body, so that the counter's compare, the break and the endloop are no longer issued in
 * every iteration.
 *
 *   mov_imm r13, 8                        mov_imm r13, 8
 *   mov_imm r12, 1                        mov_imm r12, 1
 *   ...                                   ...
 *   mov_imm r9, 0                         mov_imm r9, 0
 *   loop                                  and r10, r4, r12       (copy 1)
 *     icmp_ge p2, r9, r13                 ...
 *     break p2                  ->        iadd r9, r9, r12
 *     and r10, r4, r12                    ...                    (copies 2 to 7)
 *     ...                                 and r10, r4, r12       (copy 8)
 *     iadd r9, r9, r12                    ...
 *   endloop                               iadd r9, r9, r12
 *
 * (dce then drops the counter when nothing else reads it). A counted loop is one whose body
 *   - starts with `cmp pX, ...` and `break pX`, both unguarded, where the compare exits once a
 *     counter rC reaches a bound rN: icmp_ge rC, rN; icmp_le, ucmp_le rN, rC (C >= N);
 *     icmp_gt rC, rN; icmp_lt, ucmp_lt rN, rC (C > N); icmp_eq on rC and rN;
 *   - ends, at its top level, with the step `iadd rC, rC, rK` (or rK, rC), unguarded, the only
 *     write of rC in the loop;
 *   - has no other exit of this loop (break or continue outside the loops nested in it), no
 *     halt, return or call, and nothing convergent, ordering or reading other lanes;
 *   - does not read or write pX elsewhere, and pX is dead after the loop (liveness): the last
 *     compare, which set it in every lane, is gone;
 * where rC's start is an unguarded `mov_imm rC, S` in the block right before the loop (the last
 * write of rC there), and rN and rK are written once in the whole kernel, by an unguarded
 * `mov_imm` before the loop in its list or the list of an if or loop around it (so every lane
 * that reaches the loop ran it, and nothing changes it after), and the kernel has no call.
 * Then every lane entering the loop starts with the same counter and steps it the same way, so
 * all of them run exactly T = ceil((N - S) / K) iterations (the values are kept below 2^20, so
 * nothing wraps and signed and unsigned compares agree; for icmp_eq, N - S must be a multiple
 * of K): the copies run the same instructions, in the same order, with the same active lanes
 * and the same values, as the iterations did. Nothing is speculated, no guard, register or
 * predicate is added, and a loop frame goes, so divergence depth never grows.
 *
 * Refused, with a missed remark naming the loop and why: a counted-loop header whose counter,
 * start, bound or step is not as above, another exit, something that must not be copied, pX
 * live after the loop or used in it, no iteration at all, more than -loop-unroll-max-trips
 * iterations (default 16) or more than -loop-unroll-max-size statements in all the copies
 * together (default 64). A loop without a compare-and-break at its top is not a candidate and
 * gets no remark.
 *
 * Loops are taken innermost first (each loop after the ones inside it), in one run. The write
 * counts are taken at the first loop of the counted shape, liveness at the first that passes
 * every other check. One liveness result serves the run (xform/xform.h's stale-liveness
 * rule): an unrolled loop reads its counter and bound no more and no longer writes pX, which
 * was dead after it and, being written first in every iteration, before it too, so liveness
 * elsewhere only shrinks and the only question asked (pX after a loop) stays safely answered;
 * a loop in a copy is not asked about. The write counts are updated for each copy made.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "support/alloc.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "xform/loop_unroll.h"
#include "xform/xform.h"

#define UNROLL_VALUE_LIMIT (1u << 20)

/* Adds `copies` writes of each GPR a copied instruction writes: none of them is written once
 * any more. */
static void count_copied_writes(wave_unroll_env *env, const wave_instr *in, uint32_t copies) {
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(in, refs);
  for (unsigned i = 0; i < n; i++) {
    if (!refs[i].is_def || refs[i].is_pred)
      continue;
    for (uint32_t r = refs[i].first; r < refs[i].first + refs[i].count && r <= WAVE_MAX_GPR;
         r++) {
      env->writer[r] = NULL;
      env->writes[r] = env->writes[r] + copies > env->writes[r] ? env->writes[r] + copies
                                                                 : UINT32_MAX;
    }
  }
}

void wave_unroll_env_init(wave_unroll_env *env, wave_kernel *kernel, wave_analysis_manager *am,
                          uint32_t max_trips, uint32_t max_size) {
  env->kernel = kernel;
  env->allocator = wave_module_allocator(wave_kernel_module(kernel));
  env->am = am;
  env->liveness = NULL;
  env->max_trips = max_trips;
  env->max_size = max_size;
  env->counted = false;
  env->has_call = false;
  env->loops = NULL;
  env->loop_at = NULL;
  env->num_loops = 0;
  env->loop_index = (wave_key_index){0};
}

void wave_unroll_env_fini(wave_unroll_env *env) {
  wave_mem_free(env->allocator, env->loops);
  wave_mem_free(env->allocator, env->loop_at);
  wave_key_index_free(&env->loop_index);
  env->loops = NULL;
  env->loop_at = NULL;
  env->num_loops = 0;
}

/* A GPR written once, whose list has not ended yet at the walk's place. */
typedef struct open_write {
  uint32_t reg, depth;
} open_write;

/* The writes, the loops and their places, from the kernel's layout. A marker closing an if's
 * side or a loop's body stands at the depth of its if or loop, one less than the statements in
 * the list it closes; a region's end closes every list. False when memory runs out. */
static bool count_kernel(wave_unroll_env *env) {
  const wave_layout *layout = wave_analysis_manager_layout(env->am, env->kernel);
  size_t loops = layout ? layout->count[WAVE_LAYOUT_LOOP] + 1 : 0;
  /* A caller may ask again after memory ran out here: what the failed count took goes. */
  wave_unroll_env_fini(env);
  env->loops = loops ? wave_mem_calloc(env->allocator, loops, sizeof(*env->loops)) : NULL;
  env->loop_at = loops ? wave_mem_calloc(env->allocator, loops, sizeof(*env->loop_at)) : NULL;
  if (!env->loops || !env->loop_at)
    return false;
  for (unsigned r = 0; r <= WAVE_MAX_GPR; r++) {
    env->writes[r] = 0;
    env->writer[r] = NULL;
  }
  /* Each GPR opens once, at its first write: the stack never holds more than all of them, and
   * its depths grow from the bottom, since a list ends before any list around it. */
  open_write open[WAVE_MAX_GPR + 1];
  unsigned num_open = 0;
  for (uint32_t at = 0; at < layout->num_items; at++) {
    const wave_layout_item *item = &layout->items[at];
    switch ((wave_layout_kind)item->kind) {
    case WAVE_LAYOUT_INSTR: {
      env->has_call |= item->op == WAVE_OP_CALL;
      const uint16_t *defs = wave_layout_defs(layout, item);
      for (unsigned i = 0; i < item->num_defs; i++) {
        if (defs[i] > WAVE_REG_GPR(WAVE_MAX_GPR))
          continue;
        uint32_t r = defs[i] - WAVE_REG_GPR(0);
        if (env->writes[r] == 0) {
          env->writer[r] = wave_layout_instr(item);
          env->writer_at[r] = at;
          env->writer_until[r] = UINT32_MAX;
          open[num_open++] = (open_write){r, item->depth};
        } else {
          env->writer[r] = NULL;
        }
        env->writes[r] += env->writes[r] < UINT32_MAX;
      }
      break;
    }
    case WAVE_LAYOUT_LOOP:
      env->loops[env->num_loops] = wave_layout_node(item);
      env->loop_at[env->num_loops++] = at;
      break;
    case WAVE_LAYOUT_ELSE:
    case WAVE_LAYOUT_ENDIF:
    case WAVE_LAYOUT_ENDLOOP:
    case WAVE_LAYOUT_END_REGION:
      for (; num_open > 0 && (item->kind == WAVE_LAYOUT_END_REGION ||
                              open[num_open - 1].depth > item->depth);
           num_open--)
        env->writer_until[open[num_open - 1].reg] = at;
      break;
    case WAVE_LAYOUT_BLOCK:
    case WAVE_LAYOUT_IF:
    case WAVE_LAYOUT_KINDS:
      break;
    }
  }
  if (!wave_key_index_build(&env->loop_index, env->allocator, env->loops, env->num_loops))
    return false;
  env->counted = true;
  return true;
}

static wave_unroll_status refuse(wave_unroll_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static wave_unroll_status refuse(wave_unroll_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof(r->why), fmt, ap);
  va_end(ap);
  return WAVE_UNROLL_REFUSED;
}

static bool is_gpr(wave_operand o) { return o.kind == WAVE_OPERAND_GPR; }

/* The constant rN holds wherever `loop` runs: its one write in the kernel is an unguarded
 * mov_imm that every lane reaching the loop ran, the loop lying after it in its list or
 * inside something after it there. Unrolling keeps that true of the loops asked about later:
 * they are not inside a loop unrolled before them (the inner ones come first), and a write
 * inside one was copied and is not written once any more. */
static bool constant_at(const wave_unroll_env *env, uint32_t r, const wave_node *loop,
                        uint32_t *value) {
  const wave_instr *w = r <= WAVE_MAX_GPR && env->writes[r] == 1 ? env->writer[r] : NULL;
  if (!w || wave_instr_op(w) != WAVE_OP_MOV_IMM || wave_instr_guard(w) != WAVE_NO_GUARD)
    return false;
  size_t k = wave_key_index_find(&env->loop_index, loop);
  if (k == WAVE_KEY_NOT_FOUND || env->loop_at[k] <= env->writer_at[r] ||
      env->loop_at[k] >= env->writer_until[r])
    return false;
  *value = wave_instr_operand(w, 1).value;
  return true;
}

/* rC's value when the loop starts: the last write of rC in the block right before the loop,
 * an unguarded mov_imm. */
static bool start_value(const wave_node *loop, uint32_t r, uint32_t *value) {
  const wave_node *before = wave_node_prev(loop);
  if (!before || wave_node_kind_of(before) != WAVE_NODE_BLOCK)
    return false;
  for (const wave_instr *in = wave_block_last(before); in; in = wave_instr_prev(in)) {
    if (!wave_regset_test(wave_xform_may_write(in), WAVE_REG_GPR(r)))
      continue;
    if (wave_instr_op(in) != WAVE_OP_MOV_IMM || wave_instr_guard(in) != WAVE_NO_GUARD ||
        wave_instr_operand(in, 0).value != r)
      return false;
    *value = wave_instr_operand(in, 1).value;
    return true;
  }
  return false;
}

/* The compare's counter and bound registers and how it exits: `strict` for C > N, `equal` for
 * C == N, else C >= N. False when it is no compare of this kind. */
static bool read_compare(const wave_instr *cmp, uint32_t *counter, uint32_t *bound,
                         bool *strict, bool *equal) {
  wave_operand a = wave_instr_operand(cmp, 1), b = wave_instr_operand(cmp, 2);
  if (wave_instr_num_operands(cmp) != 3 || !is_gpr(a) || !is_gpr(b))
    return false;
  *strict = *equal = false;
  switch (wave_instr_op(cmp)) {
  case WAVE_OP_ICMP_GT: *strict = true; /* fall through */
  case WAVE_OP_ICMP_GE:
    *counter = a.value;
    *bound = b.value;
    return true;
  case WAVE_OP_ICMP_LT:
  case WAVE_OP_UCMP_LT: *strict = true; /* fall through */
  case WAVE_OP_ICMP_LE:
  case WAVE_OP_UCMP_LE:
    *counter = b.value;
    *bound = a.value;
    return true;
  case WAVE_OP_ICMP_EQ:
    *equal = true;
    *counter = a.value;
    *bound = b.value;
    return true;
  default: return false;
  }
}

/* The step `iadd rC, rC, rK` (either order) ending the body; rK in *step_reg. */
static const wave_instr *find_step(const wave_node *loop, uint32_t counter, uint32_t *step_reg) {
  const wave_node *last = wave_node_list_last(wave_loop_body(loop));
  const wave_instr *in =
      last && wave_node_kind_of(last) == WAVE_NODE_BLOCK ? wave_block_last(last) : NULL;
  if (!in || wave_instr_op(in) != WAVE_OP_IADD || wave_instr_guard(in) != WAVE_NO_GUARD ||
      wave_instr_num_operands(in) != 3)
    return NULL;
  wave_operand d = wave_instr_operand(in, 0), a = wave_instr_operand(in, 1),
               b = wave_instr_operand(in, 2);
  if (!is_gpr(d) || !is_gpr(a) || !is_gpr(b) || d.value != counter)
    return NULL;
  if (a.value == counter && b.value != counter)
    *step_reg = b.value;
  else if (b.value == counter && a.value != counter)
    *step_reg = a.value;
  else
    return NULL;
  return in;
}

static const uint32_t never_copied = WAVE_F_CONVERGENT | WAVE_F_CALL | WAVE_F_EXIT |
                                     WAVE_F_HIDDEN_STATE | WAVE_F_OTHER_LANES | WAVE_F_ORDERING;

/* Checks the body past the header: its size in statements (the walk stops once it passes
 * `limit`, so that deep nests cost no more than that per loop), no other exit of the loop,
 * nothing that must not be copied, no other write of the counter, the predicate pX unused. */
static bool check_body(const wave_node *loop, const wave_instr *cmp, const wave_instr *brk,
                       const wave_instr *step, uint32_t counter, uint32_t pred, uint32_t limit,
                       uint32_t *size, wave_unroll_result *r) {
  unsigned pred_reg = WAVE_REG_PRED(pred);
  wave_const_walker w;
  wave_const_walk_init(&w, wave_loop_body(loop));
  unsigned inner_loops = 0;
  *size = 0;
  while (wave_const_walk_next(&w)) {
    if (*size > limit)
      return true;
    switch (w.event) {
    case WAVE_WALK_LOOP:
      inner_loops++;
      *size += 2;
      continue;
    case WAVE_WALK_ENDLOOP:
      inner_loops--;
      continue;
    case WAVE_WALK_IF:
      *size += 3;
      if (wave_if_cond(w.node).kind == WAVE_OPERAND_PRED && wave_if_cond(w.node).value == pred) {
        wave_loc at = wave_node_origin(w.node, WAVE_LINE_IF).loc;
        refuse(r, "the if at %u:%u tests its break's predicate p%u", at.line, at.col, pred);
        return false;
      }
      continue;
    case WAVE_WALK_BLOCK:
      break;
    default:
      continue;
    }
    for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in)) {
      if (in == cmp || in == brk)
        continue;
      (*size)++;
      wave_loc l = wave_instr_loc(in);
      const char *name = wave_opcode_get(wave_instr_op(in))->mnemonic;
      if (wave_opcode_has(wave_instr_op(in), never_copied)) {
        refuse(r, "it holds %s at %u:%u, which must not be copied", name, l.line, l.col);
        return false;
      }
      if ((wave_instr_op(in) == WAVE_OP_BREAK || wave_instr_op(in) == WAVE_OP_CONTINUE) &&
          inner_loops == 0) {
        refuse(r, "it has another exit, %s at %u:%u", name, l.line, l.col);
        return false;
      }
      if (in != step && wave_regset_test(wave_xform_may_write(in), WAVE_REG_GPR(counter))) {
        refuse(r, "its counter r%u is also written at %u:%u", counter, l.line, l.col);
        return false;
      }
      if (wave_instr_guard(in) == (int8_t)pred || wave_instr_reads_reg(in, pred_reg) ||
          wave_instr_writes_reg(in, pred_reg)) {
        refuse(r, "its break's predicate p%u is used at %u:%u", pred, l.line, l.col);
        return false;
      }
    }
  }
  return true;
}

/* T for a counter from start by step until the exit holds; false when it does not fit the
 * limits the story gives. */
static bool trip_count(uint32_t start, uint32_t bound, uint32_t step, bool strict, bool equal,
                       uint32_t *trips, wave_unroll_result *r) {
  if (start >= UNROLL_VALUE_LIMIT || bound >= UNROLL_VALUE_LIMIT || step == 0 ||
      step >= UNROLL_VALUE_LIMIT) {
    refuse(r, "its counter runs from %u to %u by %u, beyond what it reasons about", start,
           bound, step);
    return false;
  }
  if (strict)
    bound++;
  if (equal && (start > bound || (bound - start) % step)) {
    refuse(r, "its counter, from %u by %u, may never equal %u", start, step, bound);
    return false;
  }
  *trips = start >= bound ? 0 : (bound - start + step - 1) / step;
  return true;
}

wave_unroll_status wave_loop_unroll(wave_unroll_env *env, wave_node *loop,
                                    wave_unroll_result *r) {
  r->why[0] = '\0';
  const wave_node *first = wave_node_list_first(wave_loop_body(loop));
  wave_instr *cmp =
      first && wave_node_kind_of(first) == WAVE_NODE_BLOCK ? wave_block_first(first) : NULL;
  wave_instr *brk = cmp ? wave_instr_next(cmp) : NULL;
  uint32_t counter, bound_reg;
  bool strict, equal;
  /* read_compare first: it makes sure cmp has the operands the other tests read. */
  if (!brk || wave_instr_op(brk) != WAVE_OP_BREAK || wave_instr_guard(cmp) != WAVE_NO_GUARD ||
      wave_instr_guard(brk) != WAVE_NO_GUARD ||
      !read_compare(cmp, &counter, &bound_reg, &strict, &equal) ||
      wave_instr_operand(cmp, 0).kind != WAVE_OPERAND_PRED ||
      wave_instr_operand(brk, 0).kind != WAVE_OPERAND_PRED || wave_instr_operand(brk, 0).negated ||
      wave_instr_operand(brk, 0).value != wave_instr_operand(cmp, 0).value)
    return WAVE_UNROLL_NOT_SHAPE;
  uint32_t pred = wave_instr_operand(cmp, 0).value;
  uint32_t step_reg;
  const wave_instr *step = find_step(loop, counter, &step_reg);
  if (!step && equal) {
    uint32_t t = counter;
    counter = bound_reg;
    bound_reg = t;
    step = find_step(loop, counter, &step_reg);
  }
  if (!step)
    return refuse(r, "its body does not end by stepping the counter r%u", counter);
  if (!env->counted && !count_kernel(env))
    return WAVE_UNROLL_NO_MEMORY;
  if (env->has_call)
    return refuse(r, "the kernel has a call, which may write any register");
  uint32_t start, bound, step_value;
  if (!start_value(loop, counter, &start))
    return refuse(r, "its counter r%u is not set by a mov_imm right before it", counter);
  if (!constant_at(env, bound_reg, loop, &bound))
    return refuse(r, "its bound r%u is not a constant written once before it", bound_reg);
  if (!constant_at(env, step_reg, loop, &step_value))
    return refuse(r, "its step r%u is not a constant written once before it", step_reg);
  uint32_t size, trips;
  if (!trip_count(start, bound, step_value, strict, equal, &trips, r))
    return WAVE_UNROLL_REFUSED;
  *r = (wave_unroll_result){trips, start, bound, step_value, counter, {0}};
  if (trips == 0)
    return refuse(r, "it runs no iteration");
  if (trips > env->max_trips)
    return refuse(r, "%u iterations (limit %u)", trips, env->max_trips);
  if (!check_body(loop, cmp, brk, step, counter, pred, env->max_size / trips, &size, r))
    return WAVE_UNROLL_REFUSED;
  if (size > env->max_size / trips)
    return refuse(r, "%u iterations of more than %u statements (limit %u in all)", trips,
                  env->max_size / trips, env->max_size);
  if (!env->liveness &&
      !(env->liveness = wave_analysis_get(env->am, env->kernel, WAVE_ANALYSIS_LIVENESS)))
    return WAVE_UNROLL_NO_MEMORY;
  if (wave_regset_test(wave_liveness_at(env->liveness, wave_cursor_after_node(loop)),
                       WAVE_REG_PRED(pred)))
    return refuse(r, "its break's predicate p%u is read after it", pred);

  /* Every copy is made before anything changes, so that running out of memory leaves the
   * kernel as it was. */
  wave_module *m = wave_kernel_module(env->kernel);
  wave_node_list *copies = wave_mem_calloc(env->allocator, trips - 1, sizeof(*copies));
  if (!copies)
    return WAVE_UNROLL_NO_MEMORY;
  for (uint32_t i = 0; i + 1 < trips; i++) {
    if (!wave_node_list_clone(m, wave_loop_body(loop), &copies[i])) {
      wave_mem_free(env->allocator, copies);
      return WAVE_UNROLL_NO_MEMORY;
    }
  }
  for (uint32_t i = 0; i + 1 < trips; i++) {
    wave_node *head = wave_node_list_first(&copies[i]);
    wave_instr_remove(wave_instr_next(wave_block_first(head)));
    wave_instr_remove(wave_block_first(head));
    if (!wave_block_first(head))
      wave_node_remove(head);
  }
  wave_node *head = wave_node_list_first(wave_loop_body(loop));
  wave_instr_remove(brk);
  wave_instr_remove(cmp);
  if (!wave_block_first(head))
    wave_node_remove(head);
  wave_walker w;
  wave_walk_init(&w, wave_loop_body(loop));
  while (wave_walk_next(&w)) {
    if (w.event == WAVE_WALK_BLOCK) {
      wave_foreach_instr(in, w.node)
        count_copied_writes(env, in, trips - 1);
    }
  }
  bool ok = true;
  for (uint32_t i = 0; i + 1 < trips; i++)
    ok = ok && wave_node_list_reinsert(m, wave_cursor_after_node(loop), &copies[i]);
  wave_mem_free(env->allocator, copies);
  ok = ok && wave_node_replace(loop, wave_loop_body(loop));
  return ok ? WAVE_UNROLL_DONE : WAVE_UNROLL_NO_MEMORY;
}

/* ---- the pass ----------------------------------------------------------------------------- */

enum { OPT_MAX_TRIPS, OPT_MAX_SIZE };

static const wave_pass_option_info options[] = {
    [OPT_MAX_TRIPS] = {"loop-unroll-max-trips", "most iterations of a loop to unroll", 16},
    [OPT_MAX_SIZE] = {"loop-unroll-max-size",
                      "most statements all the copies of an unrolled body may hold", 64},
};

static uint32_t option_value(wave_pass_context *ctx, size_t index) {
  int64_t v = wave_pass_option(ctx, index);
  return v < 0 ? 0 : v > 1000000 ? 1000000 : (uint32_t)v;
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  size_t count;
  wave_node *const *loops = wave_xform_collect_loops(am, kernel, &count);
  if (!loops)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in loop-unroll");
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  wave_unroll_env *env = count ? wave_mem_alloc(a, sizeof(*env)) : NULL;
  bool changed = false, ok = !count || env;
  if (env)
    wave_unroll_env_init(env, kernel, am, option_value(ctx, OPT_MAX_TRIPS),
                         option_value(ctx, OPT_MAX_SIZE));
  for (size_t i = 0; ok && i < count; i++) {
    wave_node *loop = loops[i];
    wave_loc loc = wave_node_origin(loop, WAVE_LINE_LOOP).loc;
    wave_unroll_result r;
    switch (wave_loop_unroll(env, loop, &r)) {
    case WAVE_UNROLL_DONE:
      changed = true;
      wave_pass_stat_add(ctx, "loops-unrolled", "Number of counted loops unrolled", 1);
      wave_remark_passed(ctx, "unrolled", loc,
                         "loop at %u:%u unrolled: %u copies of its body (r%u from %u to %u "
                         "by %u)",
                         loc.line, loc.col, r.trips, r.counter, r.start, r.bound, r.step);
      break;
    case WAVE_UNROLL_REFUSED:
      wave_remark_missed(ctx, "kept", loc, "loop at %u:%u not unrolled: %s", loc.line, loc.col,
                         r.why);
      break;
    case WAVE_UNROLL_NOT_SHAPE:
      break;
    case WAVE_UNROLL_NO_MEMORY:
      ok = false;
      break;
    }
  }
  if (env)
    wave_unroll_env_fini(env);
  wave_mem_free(a, env);
  if (changed)
    wave_normalize_kernel(kernel);
  if (!ok)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in loop-unroll");
  return wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_loop_unroll = {
    .name = "loop-unroll",
    .help = "replace a loop that counts a constant number of times by copies of its body",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
