/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uniformity soundness gate: generated kernels (waveopt/gen.h) run in the SIMT interpreter
 * at wave widths 8, 32 and 64, and everything the run shows to differ between lanes must be
 * classified divergent by analysis/uniformity.c (and every point where lanes are missing must
 * not be classified converged). The analysis may be conservative; no violation is allowed.
 *
 * Two hooks of the launch watch each wave. `trace` sees every statement the wave issues, even
 * one whose guard selects nobody, before it runs; `observe` sees each statement that ran for
 * some lane, after it ran, with the lanes it ran for (mask), the lanes that go on (active) and
 * every lane's registers. From them:
 *
 * - Registers before an instruction J. After every observed statement the gate records which
 *   registers differ over the lanes that go on. When those lanes are not empty the wave issues
 *   its next statement with exactly them active (the interpreter moves parked lanes only when
 *   none is active), and a statement observed by nobody changes no register, so the record
 *   still holds when `trace` announces the next instruction J: it must lie within
 *   wave_uniformity_divergent_before(J). This covers the merges at endif and endloop, and the
 *   old values of what J overwrites. When no lane went on, the lanes J runs with are known
 *   only once J has run (active | mask): then the registers J does not write are checked
 *   against divergent_before(J) over those lanes, after J.
 * - What J writes must differ over the lanes J leaves active only when
 *   wave_uniformity_result_divergent(J).
 * - Branches: an if whose predicate differs over the lanes that reach it must be
 *   node_divergent; a break or continue that takes some of the active lanes and leaves others
 *   must be branch_divergent; a loop whose lanes leave by breaks in different iterations must
 *   be node_divergent. Iterations are counted per wave as the issues of the loop's first body
 *   statement since the loop statement itself (each iteration issues it once: the interpreter
 *   runs the first iteration and each repetition from there).
 * - Convergence: an instruction that runs for fewer lanes than those of the wave that have not
 *   halted (a guard or parked lanes), and an if or a loop reached with fewer, must not be
 *   classified converged. Generated kernels have no subroutines: the region is the kernel.
 *
 * The generated kernels' arguments are preset to the same value in every lane, as the
 * analysis's kernel-argument rule assumes. The gate can fail: a strawman classifier that calls
 * every register, branch and loop uniform and every point converged is caught on each rule.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/uniformity.h"

enum { V_BEFORE, V_RESULT, V_IF, V_BRANCH, V_LOOP, V_CONVERGED, NUM_KINDS };

static const char *const kind_names[NUM_KINDS] = {
    "register divergent before an instruction classified uniform",
    "divergent result classified uniform",
    "split if classified uniform",
    "split break or continue classified uniform",
    "loop left at different iterations classified uniform",
    "point with lanes missing classified converged",
};

/* The classifier under test: the analysis's result, or NULL for the strawman. */
typedef const wave_uniformity *classifier;

static wave_regset c_before(classifier u, const wave_instr *i) {
  return u ? wave_uniformity_divergent_before(u, i) : wave_regset_empty();
}
static bool c_result(classifier u, const wave_instr *i) {
  return u && wave_uniformity_result_divergent(u, i);
}
static bool c_branch(classifier u, const wave_instr *i) {
  return u && wave_uniformity_branch_divergent(u, i);
}
static bool c_node(classifier u, const wave_node *n) {
  return u && wave_uniformity_node_divergent(u, n);
}
static bool c_instr_converged(classifier u, const wave_instr *i) {
  return !u || wave_uniformity_instr_converged(u, i);
}
static bool c_node_converged(classifier u, const wave_node *n) {
  return !u || wave_uniformity_node_converged(u, n);
}

/* A statement of the flattened program, as the IR knows it. */
typedef struct point {
  const wave_node *node;    /* the if or loop of an if or loop statement */
  size_t loop;              /* break and continue: the index of their loop statement */
} point;

typedef struct wave_watch {
  bool started;
  uint32_t workgroup[3];
  uint64_t alive;           /* lanes of the wave that exist and have not halted */
  uint64_t pending_active;  /* lanes active after the last observed statement; 0: unknown */
  wave_regset pending;      /* registers differing over them */
  uint32_t *iterations;     /* per loop statement: iterations begun by its current instance */
  int64_t *exit_iteration;  /* per loop statement: iteration of its first break, -1 none */
} wave_watch;

typedef struct gate {
  classifier u;
  const wave_gen_options *options;
  const wave_gen_launch *launch;
  wave_machine *machine;
  point *points;
  size_t num_points;
  wave_watch *waves;
  uint32_t num_waves, width, threads, num_regs;
  uint64_t violations[NUM_KINDS];
  uint64_t checks[NUM_KINDS];   /* how often each rule had something to check */
} gate;

/* Logs the first few violations of a kind with what reproduces them: the wavegen command line
 * of the kernel, and the statement's place in the flattened program (generated kernels have no
 * source lines; the printed kernel's statements in order). */
static void violation(gate *g, int kind, size_t index, unsigned reg) {
  if (g->violations[kind]++ >= 3 || !g->u)
    return;
  char *about = wave_gen_describe(g->options, g->launch);
  char *eol = about ? strchr(about, '\n') : NULL;
  if (eol)
    *eol = '\0';
  char what[16] = "";
  if (reg <= WAVE_MAX_GPR)
    snprintf(what, sizeof(what), " r%u", reg);
  else if (reg < WAVE_NUM_REGS)
    snprintf(what, sizeof(what), " p%u", reg - WAVE_REG_PRED(0));
  const wave_program_entry *e = wave_machine_program_entry(g->machine, index);
  cr_log_error("%s (wave width %u): %s%s at statement %zu (%s)", about ? about : "?", g->width,
               kind_names[kind], what, index, wave_opcode_get(e->op)->mnemonic);
  free(about);
}

/* Maps the flattened program back to the IR: the walk flattens regions in the same order
 * (an else statement only where the else-list has code), which the assertions confirm. */
static void map_program(gate *g, const wave_kernel *k) {
  g->num_points = wave_machine_program_size(g->machine);
  g->points = calloc(g->num_points, sizeof(*g->points));
  size_t *open = calloc(g->num_points, sizeof(*open));
  cr_assert(g->points && open);
  size_t index = 0, depth = 0;
  for (const wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (wave_const_walk_next(&w)) {
      const wave_node *n = w.node;
      if (w.event == WAVE_WALK_BLOCK) {
        for (const wave_instr *i = wave_block_first(n); i; i = wave_instr_next(i), index++) {
          cr_assert_eq(wave_machine_program_entry(g->machine, index)->instr, i);
          if (wave_instr_op(i) == WAVE_OP_BREAK || wave_instr_op(i) == WAVE_OP_CONTINUE) {
            size_t d = depth;
            while (d && wave_node_kind_of(g->points[open[d - 1]].node) != WAVE_NODE_LOOP)
              d--;
            cr_assert(d, "break outside a loop");
            g->points[index].loop = open[d - 1];
          }
        }
        continue;
      }
      if (w.event == WAVE_WALK_ELSE && !wave_node_list_first(wave_if_else(n)))
        continue;
      static const wave_opcode ops[] = {
          [WAVE_WALK_IF] = WAVE_OP_IF, [WAVE_WALK_ELSE] = WAVE_OP_ELSE,
          [WAVE_WALK_ENDIF] = WAVE_OP_ENDIF, [WAVE_WALK_LOOP] = WAVE_OP_LOOP,
          [WAVE_WALK_ENDLOOP] = WAVE_OP_ENDLOOP};
      cr_assert_eq(wave_machine_program_entry(g->machine, index)->op, ops[w.event]);
      if (w.event == WAVE_WALK_IF || w.event == WAVE_WALK_LOOP) {
        g->points[index].node = n;
        open[depth++] = index;
      } else if (w.event != WAVE_WALK_ELSE) {
        depth--;
      }
      index++;
    }
  }
  cr_assert_eq(index + 1, g->num_points, "the program ends with its end marker");
  free(open);
}

static wave_watch *watch(gate *g, uint32_t wave, const uint32_t workgroup[3]) {
  cr_assert_lt(wave, g->num_waves);
  wave_watch *w = &g->waves[wave];
  if (!w->started || memcmp(w->workgroup, workgroup, sizeof(w->workgroup))) {
    w->started = true;
    memcpy(w->workgroup, workgroup, sizeof(w->workgroup));
    w->alive = 0;
    for (uint32_t lane = 0; lane < g->width; lane++)
      if (wave * g->width + lane < g->threads)
        w->alive |= (uint64_t)1 << lane;
    w->pending_active = 0;
  }
  return w;
}

/* The registers and predicates that differ over `lanes` (not empty) now. */
static wave_regset differing(const gate *g, const wave_observe *o, uint64_t lanes) {
  wave_regset d = wave_regset_empty();
  unsigned first = (unsigned)__builtin_ctzll(lanes);
  for (uint32_t r = 0; r < g->num_regs; r++) {
    uint32_t v = wave_observe_read_gpr(o, first, r);
    for (uint64_t rest = lanes; rest; rest &= rest - 1)
      if (wave_observe_read_gpr(o, (unsigned)__builtin_ctzll(rest), r) != v) {
        wave_regset_set(&d, WAVE_REG_GPR(r));
        break;
      }
  }
  for (uint32_t p = 0; p < WAVE_NUM_PREDS; p++) {
    bool v = wave_observe_read_pred(o, first, p);
    for (uint64_t rest = lanes; rest; rest &= rest - 1)
      if (wave_observe_read_pred(o, (unsigned)__builtin_ctzll(rest), p) != v) {
        wave_regset_set(&d, WAVE_REG_PRED(p));
        break;
      }
  }
  return d;
}

/* Registers of `found` missing from `claimed`: one violation each. */
static void expect_within(gate *g, int kind, size_t index, wave_regset found,
                          wave_regset claimed) {
  g->checks[kind]++;
  wave_regset missed = wave_regset_subtract(found, claimed);
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++)
    if (wave_regset_test(missed, r))
      violation(g, kind, index, r);
}

static void expect(gate *g, int kind, size_t index, bool holds) {
  g->checks[kind]++;
  if (!holds)
    violation(g, kind, index, WAVE_NUM_REGS);
}

static void on_trace(void *ctx, const wave_trace_event *e) {
  gate *g = ctx;
  wave_watch *w = watch(g, e->wave, e->workgroup);
  const wave_program_entry *entry = wave_machine_program_entry(g->machine, e->index);
  if (entry->op == WAVE_OP_LOOP) {
    w->iterations[e->index] = 0;
    w->exit_iteration[e->index] = -1;
  } else if (e->index && wave_machine_program_entry(g->machine, e->index - 1)->op ==
                             WAVE_OP_LOOP) {
    w->iterations[e->index - 1]++;
  }
  if (entry->instr && w->pending_active)
    expect_within(g, V_BEFORE, e->index, w->pending, c_before(g->u, entry->instr));
}

static void on_instr(gate *g, wave_watch *w, const wave_observe *o) {
  const wave_instr *instr = o->instr;
  uint64_t before = o->active | o->mask;
  wave_regset defs;
  wave_instr_defs(instr, &defs);
  if (!w->pending_active)
    expect_within(g, V_BEFORE, o->index, wave_regset_subtract(differing(g, o, before), defs),
                  c_before(g->u, instr));
  if (o->active && !wave_regset_is_empty(defs))
    expect_within(g, V_RESULT, o->index, wave_regset_intersect(differing(g, o, o->active), defs),
                  c_result(g->u, instr) ? defs : wave_regset_empty());
  if (o->mask != w->alive)
    expect(g, V_CONVERGED, o->index, !c_instr_converged(g->u, instr));
  if (wave_instr_op(instr) == WAVE_OP_BREAK || wave_instr_op(instr) == WAVE_OP_CONTINUE) {
    uint64_t leaving = o->mask & ~o->active;
    if (leaving && o->active)
      expect(g, V_BRANCH, o->index, c_branch(g->u, instr));
    size_t loop = g->points[o->index].loop;
    if (leaving && wave_instr_op(instr) == WAVE_OP_BREAK) {
      int64_t iteration = (int64_t)w->iterations[loop] - 1;
      if (w->exit_iteration[loop] < 0)
        w->exit_iteration[loop] = iteration;
      else if (w->exit_iteration[loop] != iteration)
        expect(g, V_LOOP, loop, c_node(g->u, g->points[loop].node));
    }
  }
  if (wave_instr_op(instr) == WAVE_OP_HALT || wave_instr_op(instr) == WAVE_OP_RETURN)
    w->alive &= ~o->mask;
}

static void on_observe(void *ctx, const wave_observe *o) {
  gate *g = ctx;
  wave_watch *w = watch(g, o->wave, o->workgroup);
  if (o->instr) {
    on_instr(g, w, o);
  } else if (g->points[o->index].node) {
    const wave_node *n = g->points[o->index].node;
    if (o->mask != w->alive)
      expect(g, V_CONVERGED, o->index, !c_node_converged(g->u, n));
    if (wave_node_kind_of(n) == WAVE_NODE_IF) {
      wave_regset pred = wave_regset_empty();
      wave_regset_set(&pred, WAVE_REG_PRED(wave_if_cond(n).value));
      if (!wave_regset_is_empty(wave_regset_intersect(differing(g, o, o->mask), pred)))
        expect(g, V_IF, o->index, c_node(g->u, n));
    }
  }
  w->pending_active = o->active;
  if (o->active)
    w->pending = differing(g, o, o->active);
}

static wave_gen_options gate_options(uint64_t seed) {
  wave_gen_options o;
  wave_gen_options_init(&o);
  o.seed = seed;
  o.size = 100 + (unsigned)(seed % 5) * 50;
  o.max_depth = 3 + (unsigned)(seed % 6);
  o.wave_ops = seed % 4 != 0;
  o.races = seed % 5 == 0;
  o.docs_dialect = seed % 7 == 0;
  return o;
}

static uint32_t gate_width(uint64_t seed) {
  static const uint32_t widths[] = {8, 32, 64};
  return widths[seed % 3];
}

/* Runs the kernel of `options` at wave width `width` under the gate, with the analysis or the
 * strawman, adding to the violation and check counts. */
static void run_gate(wave_gen_options options, uint32_t width, bool strawman,
                     uint64_t violations[NUM_KINDS], uint64_t checks[NUM_KINDS]) {
  wave_gen_launch launch;
  wave_module *mod = tu_generate(&options, &launch);
  wave_kernel *k = wave_module_first_kernel(mod);
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert_not_null(u);
  gate g = {.u = strawman ? NULL : u, .options = &options, .launch = &launch,
            .width = width};
  wave_launch_config config;
  wave_launch_config_init(&config);
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  tu_gen_launch_config(&launch, &config, presets);
  config.wave_width = g.width;
  config.trace = on_trace;
  config.trace_ctx = &g;
  config.observe = on_observe;
  config.observe_ctx = &g;
  wave_diags diags;
  wave_diags_init(&diags);
  g.machine = wave_machine_create(k, &config, &diags);
  cr_assert_not_null(g.machine);
  map_program(&g, k);
  g.num_waves = wave_machine_num_waves(g.machine);
  g.threads = wave_machine_workgroup_threads(g.machine);
  g.num_regs = wave_machine_num_registers(g.machine);
  g.waves = calloc(g.num_waves, sizeof(*g.waves));
  cr_assert_not_null(g.waves);
  for (uint32_t i = 0; i < g.num_waves; i++) {
    g.waves[i].iterations = calloc(g.num_points, sizeof(uint32_t));
    g.waves[i].exit_iteration = calloc(g.num_points, sizeof(int64_t));
    cr_assert(g.waves[i].iterations && g.waves[i].exit_iteration);
  }
  wave_machine_run(g.machine, &diags);
  if (wave_machine_status(g.machine) != WAVE_RUN_OK)
    tu_log_diags(&diags);
  cr_assert_eq(wave_machine_status(g.machine), WAVE_RUN_OK, "seed %llu, width %u",
               (unsigned long long)options.seed, g.width);
  for (int kind = 0; kind < NUM_KINDS; kind++) {
    violations[kind] += g.violations[kind];
    checks[kind] += g.checks[kind];
  }
  for (uint32_t i = 0; i < g.num_waves; i++) {
    free(g.waves[i].iterations);
    free(g.waves[i].exit_iteration);
  }
  free(g.waves);
  free(g.points);
  wave_diags_free(&diags);
  wave_machine_destroy(g.machine);
  wave_uniformity_destroy(u);
  wave_module_destroy(mod);
}

#define GATE_SEEDS 4000

Test(uniformity_gate, what_runs_divergent_is_classified_divergent, .timeout = 300) {
  uint64_t violations[NUM_KINDS] = {0}, checks[NUM_KINDS] = {0};
  for (uint64_t seed = 1; seed <= GATE_SEEDS; seed++)
    run_gate(gate_options(seed), gate_width(seed), false, violations, checks);
  for (int kind = 0; kind < NUM_KINDS; kind++) {
    cr_log_info("%s: %llu violations in %llu checks", kind_names[kind],
                (unsigned long long)violations[kind], (unsigned long long)checks[kind]);
    cr_expect_gt(checks[kind], 0, "the gate never checked: %s", kind_names[kind]);
    cr_expect_eq(violations[kind], 0, "%s: %llu times", kind_names[kind],
                 (unsigned long long)violations[kind]);
  }
}

/* The gate is not vacuous: calling everything uniform and converged breaks every rule. */
Test(uniformity_gate, catches_a_classifier_that_calls_everything_uniform, .timeout = 60) {
  uint64_t violations[NUM_KINDS] = {0}, checks[NUM_KINDS] = {0};
  for (uint64_t seed = 1; seed <= 30; seed++)
    run_gate(gate_options(seed), gate_width(seed), true, violations, checks);
  for (int kind = 0; kind < NUM_KINDS; kind++)
    cr_expect_gt(violations[kind], 0, "the strawman passed: %s", kind_names[kind]);
}

/* Kernels on which the gate found unsound facts beyond its seeds (wavegen options as logged):
 * a continue under a divergent if whose path then halts (5794), and a divergent inner loop in
 * a divergent outer one, whose entry was left converged (103149). */
Test(uniformity_gate, kernels_it_found) {
  static const struct {
    uint64_t seed;
    unsigned size, depth;
    uint32_t width;
  } found[] = {{5794, 200, 5, 32}, {103149, 300, 8, 64}};
  uint64_t violations[NUM_KINDS] = {0}, checks[NUM_KINDS] = {0};
  for (size_t i = 0; i < sizeof(found) / sizeof(found[0]); i++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = found[i].seed;
    o.size = found[i].size;
    o.max_depth = found[i].depth;
    run_gate(o, found[i].width, false, violations, checks);
  }
  for (int kind = 0; kind < NUM_KINDS; kind++)
    cr_expect_eq(violations[kind], 0, "%s: %llu times", kind_names[kind],
                 (unsigned long long)violations[kind]);
}
