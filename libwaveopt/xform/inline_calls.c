/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calls inlined, for the targets that cannot run them (docs/toolchain.md "Calls and labels":
 * wave-asm miscomputes call targets, so wave-emu runs them by luck, and wave-ptx rejects them).
 * A call is replaced by a copy of the subroutine's region without its closing return:
 *
 *   mov r2, r1                     mov r2, r1
 *   call square                    mov_imm r9, 1
 *   iadd r8, r0, r7         ->     imad r3, r2, r2, r9
 *   ...                            iadd r8, r0, r7
 *   square:                        ...
 *     mov_imm r9, 1                square:            (left in place: nothing calls it, and
 *     imad r3, r2, r2, r9            ...               the entry region ends before it)
 *     return
 *
 * Why the copy behaves as the call did (docs/language.md "Calls"): a call runs the subroutine
 * with the caller's active mask and registers, and a return sends every lane that made the call
 * and has not ended back to the instruction after it, together, with no frame the subroutine
 * opened left open. When the subroutine's only return is the last instruction at the top
 * level of its region, the lanes that reach it are exactly the lanes the copy ends with, at
 * the same point; a halt inside ends lanes in both. Barriers and wave operations inside run
 * with the same lanes, at the same place in the caller's stream.
 *
 * Refused, with a missed remark saying why, and the call left for legalize to report: a
 * subroutine that does not end in its region's only return (one returning from inside an if
 * or loop, or falling through into the next region), one that calls itself through any chain
 * of calls, and copies that would grow the kernel by more than WAVE_INLINE_GROWTH times its
 * size. Subroutines are inlined callees first (an iterative walk of the call graph), so a copy
 * holds no call that could still be inlined.
 */
#include "xform/inline_calls.h"

#include "ir/ir_internal.h"
#include "support/alloc.h"
#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"

enum { UNSEEN, OPEN, DONE };

typedef struct subroutine {
  uint8_t state;
  const char *refusal; /* why calls to it stay calls; NULL when they are inlined */
  size_t size;         /* its instructions once its own calls are inlined */
} subroutine;

typedef struct inliner {
  wave_kernel *kernel;
  wave_pass_context *ctx;
  wave_inline_round round;
  const wave_allocator *allocator;
  wave_label_table labels;
  subroutine *subs;
  wave_instr **calls; /* a region's calls, gathered before its copies go in */
  size_t num_calls, cap_calls;
  size_t *stack; /* region indices; SIZE_MAX - index marks a region whose callees are done */
  size_t depth, cap_stack;
  size_t budget; /* instructions the copies may still add */
  bool changed, out_of_memory;
} inliner;

static size_t count_instrs(const wave_node_list *body) {
  size_t n = 0;
  wave_const_walker w;
  wave_const_walk_init(&w, body);
  while (wave_const_walk_next(&w))
    if (w.event == WAVE_WALK_BLOCK)
      for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in))
        n++;
  return n;
}

/* Why calls to the region cannot be replaced by its code, or NULL when they can: its only
 * return closes it (and in the last round it holds no halt, which its copy could put inside
 * an if or loop after the rewrites of such halts). */
static const char *why_not_inlinable(const wave_region *region, wave_inline_round round) {
  const wave_node *last = wave_node_list_last(wave_region_body(region));
  const wave_instr *end =
      last && wave_node_kind_of(last) == WAVE_NODE_BLOCK ? wave_block_last(last) : NULL;
  if (!end || wave_instr_op(end) != WAVE_OP_RETURN || wave_instr_guard(end) != WAVE_NO_GUARD)
    return "its region does not end in an unguarded 'return'";
  wave_const_walker w;
  wave_const_walk_init(&w, wave_region_body(region));
  while (wave_const_walk_next(&w)) {
    if (w.event != WAVE_WALK_BLOCK)
      continue;
    for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in))
      if (wave_instr_op(in) == WAVE_OP_RETURN && in != end)
        return "it returns before the end of its region";
      else if (wave_instr_op(in) == WAVE_OP_HALT && round == WAVE_INLINE_LAST)
        return "it halts, and legalize has already rewritten the halts it must";
  }
  return NULL;
}

/* The region a call names, or WAVE_NO_REGION. */
static size_t target_of(const inliner *s, const wave_instr *call) {
  wave_operand label = wave_instr_operand(call, 0);
  return label.kind == WAVE_OPERAND_LABEL && label.label
             ? wave_label_table_find(&s->labels, label.label)
             : WAVE_NO_REGION;
}

static bool gather_calls(inliner *s, const wave_region *region) {
  s->num_calls = 0;
  wave_const_walker w;
  wave_const_walk_init(&w, wave_region_body(region));
  while (wave_const_walk_next(&w)) {
    if (w.event != WAVE_WALK_BLOCK)
      continue;
    for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in)) {
      if (wave_instr_op(in) != WAVE_OP_CALL)
        continue;
      if (!wave_grow(s->allocator, (void **)&s->calls, &s->cap_calls, s->num_calls + 1,
                     sizeof(*s->calls)))
        return false;
      s->calls[s->num_calls++] = (wave_instr *)in;
    }
  }
  return true;
}

static bool push(inliner *s, size_t entry) {
  if (!wave_grow(s->allocator, (void **)&s->stack, &s->cap_stack, s->depth + 1, sizeof(*s->stack)))
    return false;
  s->stack[s->depth++] = entry;
  return true;
}

/* Puts a copy of the subroutine, less its closing return, where `call` stands and removes the
 * call. False when memory ran out, with the kernel as it was. */
static bool inline_one(inliner *s, wave_instr *call, const wave_region *callee) {
  wave_module *module = wave_kernel_module(s->kernel);
  wave_node_list *copy = wave_node_list_create(module);
  if (!copy || !wave_node_list_clone(module, wave_region_body(callee), copy))
    return false;
  wave_node *last = wave_node_list_last(copy);
  wave_instr_remove(wave_block_last(last));
  if (!wave_block_first(last))
    wave_node_remove(last);
  if (wave_node_list_first(copy) &&
      !wave_node_list_reinsert(module, wave_cursor_before_instr(call), copy))
    return false;
  wave_instr_delete(call);
  return true;
}

static void inline_calls_of(inliner *s, size_t index) {
  const wave_region *region = s->labels.regions[index];
  if (!gather_calls(s, region)) {
    s->out_of_memory = true;
    return;
  }
  for (size_t i = 0; i < s->num_calls && !s->out_of_memory; i++) {
    wave_instr *call = s->calls[i];
    size_t target = target_of(s, call);
    if (target == WAVE_NO_REGION)
      continue;
    subroutine *sub = &s->subs[target];
    /* A call back into a subroutine still being walked closes a cycle: that subroutine's
     * calls stay calls, here and wherever it is called from later. */
    if (sub->state == OPEN)
      sub->refusal = "it calls itself, through the calls it makes";
    const char *label = wave_region_label(s->labels.regions[target]);
    const char *why = sub->refusal            ? sub->refusal
                      : sub->size > s->budget ? "the copies would grow the kernel past the "
                                                "limit on inlining"
                                              : NULL;
    if (why) {
      if (s->round == WAVE_INLINE_LAST)
        wave_remark_missed(s->ctx, "call-not-inlined", wave_instr_loc(call),
                           "call to '%s' kept: %s", label, why);
      continue;
    }
    wave_loc at = wave_instr_loc(call);
    if (!inline_one(s, call, s->labels.regions[target])) {
      s->out_of_memory = true;
      return;
    }
    s->budget -= sub->size;
    s->changed = true;
    wave_remark_passed(s->ctx, "call-inlined", at, "call to '%s' inlined", label);
  }
}

/* Each region once its callees are done: an iterative depth-first walk of the call graph. */
static void walk_call_graph(inliner *s) {
  for (size_t root = 0; root < s->labels.num_regions && !s->out_of_memory; root++) {
    if (s->subs[root].state != UNSEEN)
      continue;
    if (!push(s, root)) {
      s->out_of_memory = true;
      break;
    }
    while (s->depth && !s->out_of_memory) {
      size_t top = s->stack[--s->depth];
      if (top >= s->labels.num_regions) {
        size_t index = SIZE_MAX - top;
        inline_calls_of(s, index);
        s->subs[index].state = DONE;
        s->subs[index].size = count_instrs(wave_region_body(s->labels.regions[index]));
        continue;
      }
      if (s->subs[top].state != UNSEEN)
        continue;
      s->subs[top].state = OPEN;
      s->subs[top].refusal = why_not_inlinable(s->labels.regions[top], s->round);
      if (!push(s, SIZE_MAX - top) || !gather_calls(s, s->labels.regions[top])) {
        s->out_of_memory = true;
        break;
      }
      for (size_t i = 0; i < s->num_calls; i++) {
        size_t target = target_of(s, s->calls[i]);
        if (target != WAVE_NO_REGION && s->subs[target].state == UNSEEN && !push(s, target)) {
          s->out_of_memory = true;
          break;
        }
      }
    }
  }
}

bool wave_inline_calls(wave_kernel *kernel, wave_pass_context *ctx, wave_inline_round round,
                       bool *changed) {
  inliner s = {.kernel = kernel,
               .ctx = ctx,
               .round = round,
               .allocator = wave_module_allocator(wave_kernel_module(kernel))};
  if (!wave_label_table_init(&s.labels, kernel))
    return false;
  size_t size = 0;
  wave_foreach_region(r, kernel) size += count_instrs(wave_region_body(r));
  s.budget = WAVE_INLINE_GROWTH * size;
  s.subs = wave_mem_calloc(s.allocator, s.labels.num_regions, sizeof(*s.subs));
  if (s.subs)
    walk_call_graph(&s);
  bool ok = s.subs && !s.out_of_memory;
  *changed |= s.changed;
  wave_mem_free(s.allocator, s.subs);
  wave_mem_free(s.allocator, s.calls);
  wave_mem_free(s.allocator, s.stack);
  wave_label_table_free(&s.labels);
  return ok;
}
