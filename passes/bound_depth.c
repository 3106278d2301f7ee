/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bound-depth: keeps the kernel within the divergence-stack limit (-max-divergence-depth=N,
 * else the target's divergence_stack; docs/language.md "Machine limits" makes 32 the minimum
 * every implementation offers). A wave that opens more frames than the machine holds runs
 * wrongly, so a kernel deeper than the limit is reduced, and one that cannot be is an error.
 *
 * Which frames count: where the target's stack takes an entry for a uniform if or loop too
 * (target->uniform_uses_entry), the static depth (every if and loop); elsewhere the divergent
 * depth (the ifs and loops that may split the wave). Both come from the `depth` analysis
 * (analysis/divergence_depth.c), with the way to a deepest point; the static depth, which needs
 * no uniformity, is computed over the manager's layout without it.
 *
 * Shape. With the depth D over the limit M, a round removes up to D - M ifs of the way to the
 * deepest point, with three rewrites:
 *   - flatten-ifs (xform/flatten_ifs.h): an if holding only an if (and pure code before it)
 *     becomes one if on the combined predicate;
 *   - if-to-select (xform/if_to_select.h), forced: an if whose sides are straight-line code of
 *     at most bound-depth-select-limit instructions becomes guarded code or selects, even where
 *     the cost model would keep it (the depth demands it);
 *   - predicated-break (xform/predicated_break.h): `if pA { S; break pB; T }` becomes `@pA S`,
 *     a break on pA and pB, `@pA T`.
 * Flattening goes from the outermost if of the way inward, the order of the flatten-ifs pass:
 * the code combining the predicates lands before the outer if, so a chain collapses without
 * that code piling up inside (inward, each step would hoist the code of all the steps before
 * it, soon past bound-depth-max-hoist). A round that flattened anything ends there. Otherwise
 * the ifs are dissolved (if-to-select, else predicated-break) from the innermost outward: an
 * if becomes straight-line code only once the ifs inside it are gone, and the innermost small
 * ifs go first, which changes no more than the limit needs. After each round liveness,
 * uniformity and depth are computed afresh and the next round looks at the new deepest way.
 * Loops and calls on the way are left alone (a loop's frame cannot be removed).
 *
 * Why it is safe: each rewrite is the one its own pass makes, with that pass's rules (the
 * stories of passes/flatten_ifs.c, passes/if_to_select.c, passes/predicated_break.c): lanes,
 * memory and side effects per lane unchanged, nothing that traps or touches memory speculated,
 * convergent code refused, no predicate logic, `!` operand, new continue or break in an if
 * introduced, scratch from liveness within wave_pass_max_registers. Forcing if-to-select only
 * drops its profit test, which is about cost, not meaning. None of them adds a frame anywhere,
 * so the depth never grows. All three keep the stale-liveness rule of xform/xform.h, so one
 * liveness result serves a round; the next round computes liveness, uniformity and depth anew.
 * The comments of removed lines go through one store (xform/comments.h), written at the end.
 *
 * When it stops. A round in which no if on the way can be rewritten, or bound-depth-max-rounds
 * rounds spent, with the depth still over the limit, ends the pass with the error
 *   divergence-stack depth 40 exceeds the limit 32 (-max-divergence-depth): deepest path:
 *   if (line 3) > loop (line 5) > ...
 * (a way of more than 32 steps by its first and last 16, the steps between counted: a nest
 * thousands deep would otherwise make a line of megabytes; -analyze=depth writes every step)
 * at the innermost construct of the way, after a missed remark saying why the innermost if of
 * the way was kept (the refusals of the three rewrites), that the way holds no if, or that the
 * rounds ran out. The rewrites of the rounds before stay in the kernel (each is sound on its
 * own); the pipeline stops. An unbounded depth (a recursion opening a frame on every lap) is
 * the same error at once: no rewrite makes it bounded.
 *
 * Cost: within the limit (the common case) one depth result and nothing else: for the static
 * depth a walk of the layout the passes before left built, for the divergent depth the `depth`
 * analysis with the uniformity it needs. Otherwise each round costs O(n) (liveness,
 * uniformity, depth, and the rewrites' per-kernel scans) plus its rewrites; each rewrite
 * removes an if and no if is ever added, so the rounds end, and at most bound-depth-max-rounds
 * of them run: O(rounds * n). A single over-deep nest of one shape is fixed in one round
 * however deep (a 100 000-deep chain of ifs: one round of flattening). No recursion on the C
 * stack.
 *
 * -stats: depth-before and depth-after (the counted depth, summed over the kernels the limit
 * applies to), and the rewrites made by kind.
 */
#include <stdio.h>
#include <string.h>

#include "pm/builtin.h"
#include "support/strbuf.h"
#include "waveopt/depth.h"
#include "waveopt/edit.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "waveopt/uniformity.h"
#include "xform/comments.h"
#include "xform/flatten_ifs.h"
#include "xform/if_to_select.h"
#include "xform/predicated_break.h"
#include "xform/xform.h"

enum { OPT_SELECT_LIMIT, OPT_MAX_HOIST, OPT_MAX_ROUNDS };

static const wave_pass_option_info options[] = {
    [OPT_SELECT_LIMIT] = {"bound-depth-select-limit",
                          "most instructions either side of an if may hold for bound-depth to "
                          "turn it into guarded code or selects",
                          8},
    [OPT_MAX_HOIST] = {"bound-depth-max-hoist",
                       "most instructions a flattening by bound-depth moves onto lanes that did "
                       "not run them",
                       8},
    [OPT_MAX_ROUNDS] = {"bound-depth-max-rounds",
                        "most rounds of analysis and rewrites bound-depth runs per kernel", 64},
};

static unsigned option_count(wave_pass_context *ctx, size_t index) {
  int64_t v = wave_pass_option(ctx, index);
  return v < 0 ? 0 : v > 1000000 ? 1000000 : (unsigned)v;
}

static wave_loc if_loc(const wave_node *node) { return wave_node_origin(node, WAVE_LINE_IF).loc; }

static wave_loc step_loc(const wave_depth_step *step) {
  if (step->call)
    return wave_instr_loc(step->call);
  return wave_node_kind_of(step->node) == WAVE_NODE_IF
             ? if_loc(step->node)
             : wave_node_origin(step->node, WAVE_LINE_LOOP).loc;
}

/* ---- one round's analyses ------------------------------------------------------------------ */

/* The analyses a round works from: the manager's for the unchanged kernel, then its own. */
typedef struct round_facts {
  const wave_liveness *liveness;
  const wave_uniformity *uniformity;
  const wave_depth *depth;
  wave_liveness *own_liveness;
  wave_uniformity *own_uniformity;
  wave_depth *own_depth;
} round_facts;

static void facts_free(round_facts *f) {
  wave_liveness_destroy(f->own_liveness);
  wave_uniformity_destroy(f->own_uniformity);
  wave_depth_destroy(f->own_depth);
  memset(f, 0, sizeof(*f));
}

/* The depth that counts, for the unchanged kernel. The static depth needs no uniformity, and
 * the depth analysis would ask for it to find the divergent depth as well: where only the
 * static depth counts, it comes from the manager's layout alone, so that a kernel within the
 * limit (the common case) costs one walk of the layout the other passes left built. */
static bool facts_from_manager(round_facts *f, wave_kernel *kernel, wave_analysis_manager *am,
                               wave_depth_kind kind) {
  memset(f, 0, sizeof(*f));
  if (kind == WAVE_DEPTH_STATIC) {
    const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
    f->own_depth = layout ? wave_depth_from_layout(kernel, layout, NULL) : NULL;
    f->depth = f->own_depth;
  } else {
    f->depth = wave_analysis_get(am, kernel, WAVE_ANALYSIS_DEPTH);
  }
  return f->depth != NULL;
}

/* Liveness and uniformity for the rewrites, from the manager while the kernel is unchanged. */
static bool facts_for_rewrites(round_facts *f, wave_kernel *kernel, wave_analysis_manager *am) {
  if (!f->own_liveness) {
    f->liveness = wave_analysis_get(am, kernel, WAVE_ANALYSIS_LIVENESS);
    f->uniformity = wave_analysis_get(am, kernel, WAVE_ANALYSIS_UNIFORMITY);
    return f->liveness && f->uniformity;
  }
  return true;
}

/* Everything afresh for the changed kernel. */
static bool facts_recompute(round_facts *f, wave_kernel *kernel, wave_analysis_manager *am) {
  facts_free(f);
  wave_uniformity_config config = {.assume_divergent = wave_analysis_manager_assume_divergent(am)};
  f->own_liveness = wave_liveness_compute(kernel);
  f->own_uniformity = wave_uniformity_compute(kernel, &config);
  f->own_depth = f->own_uniformity ? wave_depth_compute(kernel, f->own_uniformity) : NULL;
  f->liveness = f->own_liveness;
  f->uniformity = f->own_uniformity;
  f->depth = f->own_depth;
  return f->liveness && f->uniformity && f->depth;
}

/* ---- the rewrites -------------------------------------------------------------------------- */

typedef struct state {
  wave_kernel *kernel;
  wave_pass_context *ctx;
  const wave_target *target;
  wave_comment_moves *comments;
  uint32_t limit;
  unsigned select_limit;
  unsigned max_hoist;
  /* This round's rewriters, built from its facts. */
  wave_flatten flatten;
  wave_if_to_select_params select;
  wave_exit_if_env exit_if;
  /* Why the rewrites refused the last if tried, for the missed remark. */
  char why[1024];
} state;

static void round_begin(state *st, const round_facts *f) {
  uint32_t max_registers = wave_pass_max_registers(st->ctx, st->kernel);
  /* One census of the kernel serves the three rewrites. */
  wave_regset kernel_taken = wave_xform_kernel_taken(st->kernel);
  wave_flatten_init(&st->flatten, st->kernel, st->target, f->liveness, kernel_taken,
                    st->comments, max_registers, st->max_hoist);
  st->select = (wave_if_to_select_params){
      .target = st->target,
      .liveness = f->liveness,
      .kernel_taken = kernel_taken,
      .max_registers = max_registers,
      .side_limit = st->select_limit,
      .require_profit = false,
      .comments = st->comments,
  };
  wave_exit_if_env_init(&st->exit_if, st->target, f->liveness, kernel_taken, max_registers);
}

static void add_why(state *st, const char *rewrite, const char *why) {
  size_t used = strlen(st->why);
  snprintf(st->why + used, sizeof(st->why) - used, "%s%s: %s", used ? "; " : "", rewrite, why);
}

typedef enum outcome { REWRITTEN, KEPT, NO_MEMORY } outcome;

/* Flattens the if with the if inside it. *or_form: the rewrite freed the if's then-side. */
static outcome flatten_if(state *st, wave_node *node, bool *or_form) {
  wave_loc loc = if_loc(node);
  wave_flatten_outcome fl;
  switch (wave_flatten_if(&st->flatten, node, &fl)) {
  case WAVE_FLATTEN_DONE:
    *or_form = fl.or_form;
    wave_pass_stat_add(st->ctx, "ifs-flattened", "Number of ifs flattened with the if inside", 1);
    wave_remark_passed(st->ctx, "if-flattened", loc,
                       "if at %u:%u flattened with the if at %u:%u (%s) to keep the "
                       "divergence-stack depth within %u",
                       loc.line, loc.col, if_loc(fl.inner).line, if_loc(fl.inner).col, fl.what,
                       st->limit);
    return REWRITTEN;
  case WAVE_FLATTEN_REFUSED:
    st->why[0] = '\0';
    add_why(st, "not flattened", fl.why);
    return KEPT;
  case WAVE_FLATTEN_NO_SHAPE:
    st->why[0] = '\0';
    add_why(st, "not flattened", "it does not hold a lone if");
    return KEPT;
  case WAVE_FLATTEN_NO_MEMORY:
    break;
  }
  return NO_MEMORY;
}

/* Dissolves the if: forced if-to-select, else its break or continue taken out of it. The
 * refusals are added to st->why. */
static outcome dissolve_if(state *st, const round_facts *f, wave_node *node) {
  wave_loc loc = if_loc(node);
  wave_if_to_select_outcome sel;
  st->select.split_rate = wave_uniformity_node_divergent(f->uniformity, node) ? 1.0 : 0.0;
  switch (wave_if_to_select_rewrite(node, &st->select, &sel)) {
  case WAVE_IF_TO_SELECT_DONE:
    wave_pass_stat_add(st->ctx, "ifs-converted",
                       "Number of ifs turned into guarded code or selects", 1);
    wave_remark_passed(st->ctx, "if-converted", loc,
                       "if at %u:%u converted to %s code to keep the divergence-stack depth "
                       "within %u: %u instruction%s for %u",
                       loc.line, loc.col, wave_if_to_select_form_name(sel.form), st->limit,
                       sel.cost_after, sel.cost_after == 1 ? "" : "s", (unsigned)sel.cost_before);
    return REWRITTEN;
  case WAVE_IF_TO_SELECT_REFUSED:
    add_why(st, "not converted", sel.reason);
    break;
  case WAVE_IF_TO_SELECT_NO_MEMORY:
    return NO_MEMORY;
  }

  wave_exit_if_result ex;
  switch (wave_exit_if_hoist(&st->exit_if, node, &ex)) {
  case WAVE_EXIT_IF_DONE:
    wave_pass_stat_add(st->ctx, "exits-hoisted",
                       "Number of breaks and continues taken out of the if around them", 1);
    wave_remark_passed(st->ctx, "exit-hoisted", loc,
                       "if at %u:%u removed to keep the divergence-stack depth within %u: its %s "
                       "at %u:%u now acts on %s",
                       loc.line, loc.col, st->limit,
                       wave_instr_op(ex.exit) == WAVE_OP_BREAK ? "break" : "continue",
                       wave_instr_loc(ex.exit).line, wave_instr_loc(ex.exit).col, ex.what);
    return REWRITTEN;
  case WAVE_EXIT_IF_REFUSED:
    add_why(st, "no break taken out", ex.what);
    break;
  case WAVE_EXIT_IF_NOT_SHAPE:
    add_why(st, "no break taken out", "it does not hold a lone break or continue");
    break;
  case WAVE_EXIT_IF_NO_MEMORY:
    return NO_MEMORY;
  }
  return KEPT;
}

/* One round on the deepest way, removing at most `excess` of its ifs. Returns how many went,
 * or -1 when memory ran out.
 *
 * First the ifs are flattened from the outermost inward, the order of the flatten-ifs pass:
 * the code combining the predicates lands before the outer if, so a chain collapses without
 * piling that code up inside (inward, each step would hoist all the earlier steps' code). The
 * if that survives a flattening is the next one on the way, so the walk goes on with it; an
 * or-form frees a then-side the way may go through, so the round ends there, as it does after
 * any flattening before the second sweep (the flattened ifs are gone from the way).
 *
 * Then the ifs are dissolved from the innermost outward: an if becomes straight-line code only
 * once the ifs inside it are gone. A rewrite frees only its own if and what is inside it, so
 * the outer ifs of the way stay valid. `kept` becomes the innermost if of a round that removed
 * nothing, with the reasons of every rewrite in kept_why. */
static long reduce_way(state *st, const round_facts *f, wave_depth_path way, uint32_t excess,
                       const wave_node **kept, char *kept_why, size_t why_size) {
  long done = 0;
  *kept = NULL;
  round_begin(st, f);
  for (size_t i = 0; i < way.length && (uint32_t)done < excess; i++) {
    wave_node *node = (wave_node *)way.steps[i].node;
    if (!node || wave_node_kind_of(node) != WAVE_NODE_IF)
      continue;
    bool or_form = false;
    switch (flatten_if(st, node, &or_form)) {
    case REWRITTEN:
      done++;
      if (or_form)
        return done;
      break;
    case KEPT:
      break;
    case NO_MEMORY:
      return -1;
    }
  }
  if (done)
    return done;
  /* st->why holds the innermost if's flattening refusal: the sweep went through every if. */
  bool innermost = true;
  for (size_t i = way.length; i-- > 0 && (uint32_t)done < excess;) {
    wave_node *node = (wave_node *)way.steps[i].node;
    if (!node || wave_node_kind_of(node) != WAVE_NODE_IF)
      continue;
    if (!innermost)
      st->why[0] = '\0';
    innermost = false;
    switch (dissolve_if(st, f, node)) {
    case REWRITTEN:
      done++;
      break;
    case KEPT:
      if (!*kept) {
        *kept = node;
        snprintf(kept_why, why_size, "%s", st->why);
      }
      break;
    case NO_MEMORY:
      return -1;
    }
  }
  return done;
}

/* ---- the error ----------------------------------------------------------------------------- */

/* The most steps of the deepest way the error names (see "When it stops" above). */
enum { ERROR_PATH_STEPS = 32 };

/* `stalled`: the last round rewrote nothing, and `kept` is the innermost if on the way that
 * no rewrite took (NULL: the way holds no if). Otherwise the rounds ran out, and an if kept in
 * them may have gone with an outer if since. */
static wave_pass_result too_deep(state *st, const round_facts *f, wave_depth_kind kind,
                                 bool stalled, const wave_node *kept, const char *kept_why,
                                 unsigned max_rounds) {
  wave_depth_path way = wave_depth_deepest(f->depth, kind);
  wave_loc at = way.length ? step_loc(&way.steps[way.length - 1]) : wave_kernel_loc(st->kernel);
  uint32_t depth = wave_depth_max(f->depth, kind);
  if (stalled && kept)
    wave_remark_missed(st->ctx, "depth-kept", if_loc(kept),
                       "if at %u:%u on the deepest path kept: %s", if_loc(kept).line,
                       if_loc(kept).col, kept_why);
  else if (depth == WAVE_DEPTH_UNBOUNDED)
    wave_remark_missed(st->ctx, "depth-kept", at,
                       "a recursion deepens the stack on every lap: no rewrite bounds it");
  else if (stalled)
    wave_remark_missed(st->ctx, "depth-kept", at, "no if on the deepest path to remove");
  else
    wave_remark_missed(st->ctx, "depth-kept", at,
                       "gave up after %u round%s (bound-depth-max-rounds)", max_rounds,
                       max_rounds == 1 ? "" : "s");
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(st->kernel));
  wave_strbuf b = {.allocator = a};
  if (wave_depth_path_print(way, ERROR_PATH_STEPS, wave_strbuf_write, &b) != 0)
    b.failed = true;
  char *path = wave_strbuf_take(&b, NULL);
  wave_pass_result r;
  if (!path)
    r = wave_pass_fail(st->ctx, at, "out of memory in bound-depth");
  else if (depth == WAVE_DEPTH_UNBOUNDED)
    r = wave_pass_fail(st->ctx, at,
                       "divergence-stack depth is unbounded, over the limit %u "
                       "(-max-divergence-depth): deepest path: %s",
                       st->limit, path);
  else
    r = wave_pass_fail(st->ctx, at,
                       "divergence-stack depth %u exceeds the limit %u (-max-divergence-depth): "
                       "deepest path: %s",
                       depth, st->limit, path);
  wave_mem_free(a, path);
  return r;
}

/* ---- the pass ------------------------------------------------------------------------------ */

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  uint32_t limit = wave_pass_max_divergence_depth(ctx);
  if (limit == 0)
    return wave_pass_done(false, WAVE_PRESERVE_ALL);
  const wave_target *target = wave_pass_target(ctx);
  wave_depth_kind kind = target->uniform_uses_entry ? WAVE_DEPTH_STATIC : WAVE_DEPTH_DIVERGENT;
  round_facts f;
  if (!facts_from_manager(&f, kernel, am, kind)) {
    facts_free(&f);
    return wave_pass_fail(ctx, wave_kernel_loc(kernel),
                          "out of memory in bound-depth computing the depth analysis");
  }
  uint32_t before = wave_depth_max(f.depth, kind);
  if (before != WAVE_DEPTH_UNBOUNDED)
    wave_pass_stat_add(ctx, "depth-before", "Divergence-stack depth before bound-depth", before);
  if (before <= limit) {
    wave_pass_stat_add(ctx, "depth-after", "Divergence-stack depth after bound-depth", before);
    facts_free(&f);
    return wave_pass_done(false, WAVE_PRESERVE_ALL);
  }

  state st = {
      .kernel = kernel,
      .ctx = ctx,
      .target = target,
      .comments = wave_comment_moves_create(wave_kernel_module(kernel)),
      .limit = limit,
      .select_limit = option_count(ctx, OPT_SELECT_LIMIT),
      .max_hoist = option_count(ctx, OPT_MAX_HOIST),
  };
  unsigned max_rounds = option_count(ctx, OPT_MAX_ROUNDS);
  bool changed = false, failed = !st.comments, stalled = false;
  const wave_node *kept = NULL;
  char kept_why[sizeof(st.why)] = "";
  uint32_t depth = before;
  for (unsigned round = 0; !failed && depth != WAVE_DEPTH_UNBOUNDED && depth > limit &&
                           round < max_rounds;
       round++) {
    if (!facts_for_rewrites(&f, kernel, am)) {
      failed = true;
      break;
    }
    long done = reduce_way(&st, &f, wave_depth_deepest(f.depth, kind), depth - limit, &kept,
                           kept_why, sizeof(kept_why));
    if (done < 0 || !facts_recompute(&f, kernel, am)) {
      failed = true;
      break;
    }
    changed = changed || done > 0;
    depth = wave_depth_max(f.depth, kind);
    stalled = done == 0;
    if (stalled)
      break;
  }
  if (st.comments && !wave_comment_moves_apply(st.comments))
    failed = true;
  wave_comment_moves_destroy(st.comments);
  wave_pass_result result;
  if (failed)
    result = wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in bound-depth");
  else if (depth == WAVE_DEPTH_UNBOUNDED || depth > limit)
    result = too_deep(&st, &f, kind, stalled, kept, kept_why, max_rounds);
  else {
    wave_pass_stat_add(ctx, "depth-after", "Divergence-stack depth after bound-depth", depth);
    result = wave_pass_done(changed, WAVE_PRESERVE_NONE);
  }
  facts_free(&f);
  return result;
}

const wave_pass_info wave_pass_bound_depth = {
    .name = "bound-depth",
    .help = "keep the divergence-stack depth within -max-divergence-depth: flatten, convert or "
            "take breaks out of the ifs on the deepest path, else fail naming it",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
