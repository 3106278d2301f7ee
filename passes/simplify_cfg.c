/* SPDX-License-Identifier: Apache-2.0 */
/*
 * simplify-cfg: removes control flow that does nothing and code no lane can reach.
 *
 *   icmp_lt p1, r1, r2           icmp_lt p1, r1, r2     an if with both sides empty goes; the
 *   if p1                   ->                          compare stays (dce's work, not ours)
 *   else
 *   endif
 *
 *   if p1                        if p1                  an else with nothing in it goes
 *     mov r1, r2            ->     mov r1, r2
 *   else                         endif
 *   endif
 *
 *   halt                         halt                   after an unguarded halt, the rest of
 *   mov r1, r2              ->                          the same list goes
 *   if p1 ... endif
 *
 * and the blocks that end up side by side are merged (the normal form of waveopt/edit.h). An if
 * left empty by what goes inside it goes in the same run, so a second run would find nothing
 * (wave_pass_done_settled).
 *
 * Why each is safe (docs/language.md "If and else", "Halt and return"):
 *   - An if with two empty sides changes no register, and at its endif the active mask is the
 *     mask at the if minus lanes that ended or left a loop in between: with no code between,
 *     none did, so every instruction after it runs with the same lanes. The same holds for an
 *     empty else-side. docs/language.md "Effect classes" says so: such an if can be deleted.
 *   - An unguarded halt ends every lane that executes it, and every lane reaching a statement
 *     of a list after it has executed it first: nothing later in that list runs, whether the
 *     list is a region, an if side or a loop body (a `continue` goes to the top of the body,
 *     never past the halt). Other lists are untouched: the else-side of the same if, the code
 *     after its endif, and the next region (a label starts a region, so a list never holds
 *     code that a call reaches). Upstream, an unguarded halt ends the whole wave
 *     (docs/toolchain.md "Halt and return inside regions"), so that code never runs there
 *     either.
 *   - Convergent instructions keep their lanes: the code removed never runs, and nothing
 *     that runs moves into, out of or across a region.
 *
 * It refuses, with a missed remark saying why:
 *   - an if whose then-side is empty and whose else-side is not: keeping only the else-side
 *     would need the predicate negated, which costs a scratch predicate and instructions;
 *   - code after a guarded halt: the lanes the guard leaves out go on running it;
 *   - `return`, which returns from a subroutine rather than ending lanes.
 *
 * Comments on the lines of a removed if or else move, as whole-line comments, before the line
 * that follows; comments on unreachable code leave with it.
 */
#include <stdint.h>

#include "ir/code.h"
#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"
#include "xform/comments.h"

typedef struct simplify {
  wave_kernel *kernel;
  wave_pass_context *ctx;
  wave_comment_moves *comments;
  bool changed;
  bool out_of_memory;
} simplify;

static void remove_empty_if(simplify *s, wave_node *node) {
  wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
  if (!wave_comment_moves_remove_if(s->comments, node)) {
    s->out_of_memory = true;
    return;
  }
  s->changed = true;
  wave_pass_stat_add(s->ctx, "ifs-removed", "Number of ifs removed because both sides were empty",
                     1);
  wave_remark_passed(s->ctx, "empty-if-removed", loc, "if at %u:%u removed: both sides empty",
                     loc.line, loc.col);
}

static void remove_empty_else(simplify *s, wave_node *node) {
  wave_loc loc = wave_node_origin(node, WAVE_LINE_ELSE).loc;
  if (!wave_comment_moves_add(s->comments, wave_code_node_line(node, WAVE_LINE_ELSE),
                              wave_code_node_line(node, WAVE_LINE_ENDIF))) {
    s->out_of_memory = true;
    return;
  }
  wave_if_set_has_else(node, false);
  wave_node_set_origin(node, WAVE_LINE_ELSE, &(wave_src){0});
  s->changed = true;
  wave_pass_stat_add(s->ctx, "elses-removed", "Number of empty else-sides removed", 1);
  wave_remark_passed(s->ctx, "empty-else-removed", loc, "else at %u:%u removed: it is empty",
                     loc.line, loc.col);
}

static void simplify_if(simplify *s, wave_node *node) {
  bool then_empty = wave_node_list_is_empty(wave_if_then(node));
  bool else_empty = wave_node_list_is_empty(wave_if_else(node));
  wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
  if (then_empty && else_empty)
    remove_empty_if(s, node);
  else if (else_empty && wave_if_has_else(node))
    remove_empty_else(s, node);
  else if (then_empty)
    wave_remark_missed(s->ctx, "empty-then-kept", loc,
                       "if at %u:%u kept: its then-side is empty but its else-side is not, and "
                       "keeping only the else-side needs the predicate negated",
                       loc.line, loc.col);
}

static bool is_unguarded_halt(const wave_instr *in) {
  return wave_instr_op(in) == WAVE_OP_HALT && wave_instr_guard(in) == WAVE_NO_GUARD;
}

/* The first unguarded halt of `block` with something after it in its list, else NULL. */
static wave_instr *halt_with_code_after(wave_node *block) {
  wave_instr *halt = wave_block_first(block);
  while (halt && !is_unguarded_halt(halt))
    halt = wave_instr_next(halt);
  return halt && (wave_instr_next(halt) || wave_node_next(block)) ? halt : NULL;
}

/* Reports what remove_after_halt will remove after `halt`, the statements counted as they
 * stand: the walk reports while it goes and removes once it is over. */
static void report_after_halt(simplify *s, wave_node *block, const wave_instr *halt) {
  uint64_t removed = 0;
  for (const wave_instr *in = wave_instr_next(halt); in; in = wave_instr_next(in))
    removed++;
  for (const wave_node *n = wave_node_next(block); n; n = wave_node_next(n))
    removed++;
  s->changed = true;
  wave_pass_stat_add(s->ctx, "unreachable-removed",
                     "Number of statements removed after an unguarded halt", removed);
  wave_remark_passed(s->ctx, "unreachable-removed", wave_instr_loc(halt),
                     "%llu statement%s after halt at %u:%u removed: unreachable",
                     (unsigned long long)removed, removed == 1 ? "" : "s",
                     wave_instr_loc(halt).line, wave_instr_loc(halt).col);
}

/* Removes what follows `halt` in its block and the block's list. */
static bool remove_after_halt(simplify *s, wave_node *block, wave_instr *halt) {
  while (wave_instr_next(halt))
    wave_instr_remove(wave_instr_next(halt));
  if (!wave_node_next(block))
    return true;
  /* The removed statements need a list to hang in; the arena keeps it as long as they. */
  wave_node_list *dead = wave_module_alloc(wave_kernel_module(s->kernel), sizeof(*dead));
  if (!dead)
    return false;
  wave_node_list_extract(wave_node_next(block), wave_node_list_last(wave_node_list_of(block)),
                         dead);
  return true;
}

/* halt_with_code_after, noting on the way code after a guarded halt, which stays: lanes
 * outside the guard run it. Without missed remarks wanted the scan stops at the first
 * unguarded halt. */
static wave_instr *scan_block(simplify *s, wave_node *block) {
  bool explain = wave_remark_enabled(s->ctx, WAVE_REMARK_MISSED);
  wave_instr *first = NULL;
  wave_foreach_instr(in, block) {
    if (wave_instr_op(in) != WAVE_OP_HALT)
      continue;
    if (wave_instr_guard(in) == WAVE_NO_GUARD) {
      first = first ? first : in;
      if (!explain)
        break;
    } else if (explain && (wave_instr_next(in) || wave_node_next(block))) {
      wave_remark_missed(s->ctx, "guarded-halt-kept", wave_instr_loc(in),
                         "code after halt at %u:%u kept: lanes its guard leaves out go on",
                         wave_instr_loc(in).line, wave_instr_loc(in).col);
    }
  }
  return first && (wave_instr_next(first) || wave_node_next(block)) ? first : NULL;
}

/* What the walk found: the blocks whose tails go after an unguarded halt, and the ifs that stay
 * (text order of their endif lines: an if after every if inside it). */
typedef struct found {
  wave_node **halted, **ifs;
  size_t num_halted, num_ifs, cap_halted, cap_ifs;
  const wave_allocator *allocator; /* the module's, for both arrays */
} found;

static bool keep(const wave_allocator *a, wave_node ***array, size_t *num, size_t *cap,
                 wave_node *node) {
  if (!wave_grow(a, (void **)array, cap, *num + 1, sizeof(**array)))
    return false;
  (*array)[(*num)++] = node;
  return true;
}

/* One walk per region, which only reads and reports: the code after unguarded halts, whose
 * blocks it notes (the statements after such a block, at its depth and deeper until its list
 * closes, are passed over: they go with it), and the ifs outside that code. The removals
 * follow once it is over, since a walk must not see its tree change. */
static bool walk(simplify *s, found *f) {
  bool ok = true;
  wave_foreach_region(r, s->kernel) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    unsigned dead_depth = UINT32_MAX;   /* inside the tail of a halted block's list */
    while (ok && wave_walk_next(&w)) {
      if (w.depth >= dead_depth)
        continue;
      dead_depth = UINT32_MAX;
      if (w.event == WAVE_WALK_ENDIF)
        ok = keep(f->allocator, &f->ifs, &f->num_ifs, &f->cap_ifs, w.node);
      if (w.event != WAVE_WALK_BLOCK)
        continue;
      wave_instr *halt = scan_block(s, w.node);
      if (!halt)
        continue;
      report_after_halt(s, w.node, halt);
      dead_depth = w.depth;
      ok = keep(f->allocator, &f->halted, &f->num_halted, &f->cap_halted, w.node);
    }
  }
  return ok;
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  (void)am;
  simplify s = {kernel, ctx, wave_comment_moves_create(wave_kernel_module(kernel)),
                wave_normalize_kernel(kernel), false};
  found f = {.allocator = wave_module_allocator(wave_kernel_module(kernel))};
  if (!s.comments || !walk(&s, &f))
    s.out_of_memory = true;
  for (size_t i = 0; !s.out_of_memory && i < f.num_halted; i++)
    s.out_of_memory = !remove_after_halt(&s, f.halted[i], halt_with_code_after(f.halted[i]));
  /* Inner ifs first, so that an if left empty by removing the one inside it goes too. */
  for (size_t i = 0; !s.out_of_memory && i < f.num_ifs; i++)
    simplify_if(&s, f.ifs[i]);
  wave_mem_free(f.allocator, f.halted);
  wave_mem_free(f.allocator, f.ifs);
  if (s.comments && !wave_comment_moves_apply(s.comments))
    s.out_of_memory = true;
  wave_comment_moves_destroy(s.comments);
  if (s.out_of_memory)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in simplify-cfg");
  return wave_pass_done_settled(s.changed, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_simplify_cfg = {
    .name = "simplify-cfg",
    .help = "remove empty ifs and elses and the code after an unguarded halt; merge blocks",
    .run = run,
};
