/* SPDX-License-Identifier: Apache-2.0 */
/* Barrier divergence (analysis/barriers.c): the query API on small kernels, a 100 000-deep
 * nest, and the soundness gate: every barrier error the interpreter reports on generated
 * kernels (with barriers inside ifs and loops) and on hand-written ones must be at a barrier the
 * analysis flagged. A blind run that drops every finding must fail the gate, so the gate can
 * fail. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/barriers.h"
#include "waveopt/edit.h"

static wave_barriers *compute(const wave_kernel *k) {
  wave_barriers *b = wave_barriers_compute(k, NULL);
  cr_assert_not_null(b);
  return b;
}

/* The n-th instruction with opcode op in text order. */
static const wave_instr *nth_op(const wave_kernel *k, wave_opcode op, unsigned n) {
  wave_foreach_block(block, (wave_kernel *)k) {
    wave_foreach_instr(i, block) {
      if (wave_instr_op(i) == op && n-- == 0)
        return i;
    }
  }
  cr_assert_fail("no such instruction");
  return NULL;
}

Test(barriers, divergent_if_and_converged_barrier) {
  wave_module *m = tu_parse_ok(".kernel k\n"
                               "    mov_sr r1, sr_lane_id\n"
                               "    icmp_lt p1, r1, r2\n"
                               "    if p1\n"
                               "        barrier\n"
                               "        wave_reduce_add r3, r1\n"
                               "    endif\n"
                               "    barrier\n"
                               "    wave_broadcast r4, r1, r2\n"
                               "    halt\n"
                               ".end\n",
                               "k.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_barriers *b = compute(k);
  cr_assert_eq(wave_barriers_num_findings(b), 2);
  const wave_barrier_finding *f = wave_barriers_find(b, nth_op(k, WAVE_OP_BARRIER, 0));
  cr_assert_not_null(f);
  cr_assert_eq(f, wave_barriers_finding(b, 0), "findings come in text order");
  cr_assert_eq(f->cause, WAVE_BARRIER_CAUSE_IF);
  cr_assert_eq(f->node,
               wave_node_next(wave_node_list_first(wave_region_body(wave_kernel_first_region(k)))),
               "the if");
  cr_assert_eq(f->line, 4);
  cr_assert(!f->across_waves);
  cr_assert(strstr(f->why, "the if at line 4 is divergent") && strstr(f->why, "sr_lane_id"),
            "%s", f->why);
  const wave_barrier_finding *op = wave_barriers_find(b, nth_op(k, WAVE_OP_WAVE_REDUCE_ADD, 0));
  cr_assert_not_null(op);
  cr_assert_eq(op, wave_barriers_finding(b, 1));
  cr_assert_null(wave_barriers_find(b, nth_op(k, WAVE_OP_BARRIER, 1)), "after the endif");
  cr_assert_null(wave_barriers_find(b, nth_op(k, WAVE_OP_WAVE_BROADCAST, 0)));
  cr_assert_null(wave_barriers_find(b, nth_op(k, WAVE_OP_HALT, 0)), "not a barrier");
  cr_assert_null(wave_barriers_finding(b, 2));
  wave_barriers_destroy(b);
  wave_module_destroy(m);
}

/* A wave-uniform value that differs between waves: only the barrier cares. */
Test(barriers, waves_that_disagree) {
  wave_module *m = tu_parse_ok(".kernel k\n"
                               "    mov_sr r1, sr_lane_id\n"
                               "    wave_reduce_max r2, r1\n"
                               "    mov_sr r3, sr_wave_id\n"
                               "    icmp_eq p1, r3, r6\n"
                               "    if p1\n"
                               "        barrier\n"
                               "        wave_reduce_add r4, r1\n"
                               "    endif\n"
                               "    icmp_eq p2, r2, r5\n"
                               "    loop\n"
                               "        barrier\n"
                               "        break p2\n"
                               "    endloop\n"
                               "    halt\n"
                               ".end\n",
                               "k.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_barriers *b = compute(k);
  cr_assert_eq(wave_barriers_num_findings(b), 2);
  const wave_barrier_finding *in_if = wave_barriers_find(b, nth_op(k, WAVE_OP_BARRIER, 0));
  cr_assert(in_if && in_if->across_waves && in_if->cause == WAVE_BARRIER_CAUSE_IF);
  cr_assert(strstr(in_if->why, "sr_wave_id"), "%s", in_if->why);
  const wave_barrier_finding *in_loop = wave_barriers_find(b, nth_op(k, WAVE_OP_BARRIER, 1));
  cr_assert(in_loop && in_loop->across_waves && in_loop->cause == WAVE_BARRIER_CAUSE_LOOP);
  cr_assert(strstr(in_loop->why, "wave_reduce_max"), "%s", in_loop->why);
  cr_assert_null(wave_barriers_find(b, nth_op(k, WAVE_OP_WAVE_REDUCE_ADD, 0)),
                 "each wave is converged inside the if");
  wave_barriers_destroy(b);
  wave_module_destroy(m);
}

/* The break that only some lanes take is named, not the loop, and the else-side of an if does
 * not see a break on its then-side. */
Test(barriers, break_on_the_path) {
  wave_module *m = tu_parse_ok(".kernel k\n"
                               "    mov_sr r1, sr_lane_id\n"
                               "    icmp_lt p1, r1, r2\n"
                               "    icmp_eq p2, r2, r3\n"
                               "    loop\n"
                               "        if p2\n"
                               "            break p1\n"
                               "        else\n"
                               "            barrier\n"
                               "        endif\n"
                               "        barrier\n"
                               "    endloop\n"
                               "    halt\n"
                               ".end\n",
                               "k.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_barriers *b = compute(k);
  const wave_barrier_finding *in_else = wave_barriers_find(b, nth_op(k, WAVE_OP_BARRIER, 0));
  const wave_barrier_finding *after = wave_barriers_find(b, nth_op(k, WAVE_OP_BARRIER, 1));
  cr_assert(in_else && after);
  cr_assert_eq(in_else->cause, WAVE_BARRIER_CAUSE_LOOP, "later iterations");
  cr_assert_eq(after->cause, WAVE_BARRIER_CAUSE_BRANCH);
  cr_assert_eq(after->branch, nth_op(k, WAVE_OP_BREAK, 0));
  cr_assert_eq(after->line, 7);
  wave_barriers_destroy(b);
  wave_module_destroy(m);
}

Test(barriers, deep_nest) {
  enum { DEPTH = 100000 };
  size_t size = (size_t)DEPTH * 24 + 256;
  char *text = malloc(size);
  cr_assert_not_null(text);
  snprintf(text, size, ".kernel k\n    mov_sr r1, sr_lane_id\n    icmp_eq p1, r2, r3\n"
                       "    icmp_lt p2, r1, r2\n    if p2\n");
  tu_repeat(text, size, "if p1\n", DEPTH);
  tu_repeat(text, size, "barrier\n", 1);
  tu_repeat(text, size, "endif\n", DEPTH + 1);
  tu_repeat(text, size, "barrier\nhalt\n.end\n", 1);
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_barriers *b = compute(k);
  cr_assert_eq(wave_barriers_num_findings(b), 1);
  const wave_barrier_finding *f = wave_barriers_finding(b, 0);
  cr_assert_eq(f->instr, nth_op(k, WAVE_OP_BARRIER, 0));
  cr_assert_eq(f->cause, WAVE_BARRIER_CAUSE_IF);
  cr_assert_eq(f->node,
               wave_node_next(wave_node_list_first(wave_region_body(wave_kernel_first_region(k)))),
               "the one divergent if");
  wave_barriers_destroy(b);
  wave_module_destroy(m);
  free(text);
}

/* ---- the soundness gate -------------------------------------------------------------------- */

enum { MAX_WAVES = 4096 };

typedef struct watch {
  size_t last[MAX_WAVES];       /* per wave of the current workgroup: the last issued entry */
} watch;

static void note_issue(void *ctx, const wave_trace_event *e) {
  watch *w = ctx;
  if (e->wave < MAX_WAVES)
    w->last[e->wave] = e->index;
}

typedef struct gate {
  bool blind;                   /* the self-test: pretend nothing was flagged */
  unsigned kernels, errors, violations;
  unsigned flagged, flagged_failed, flagged_passed;
  char first_violation[512];
} gate;

static const wave_instr *last_instr(const wave_machine *m, const watch *w, uint32_t wave) {
  if (wave >= MAX_WAVES)
    return NULL;
  const wave_program_entry *e = wave_machine_program_entry(m, w->last[wave]);
  return e ? e->instr : NULL;
}

static bool flagged(const gate *g, const wave_barriers *b, const wave_instr *instr) {
  return !g->blind && instr && wave_instr_op(instr) == WAVE_OP_BARRIER &&
         wave_barriers_find(b, instr);
}

/* Runs the kernel once and checks any barrier error against the findings. */
static void run_one(gate *g, const wave_kernel *k, const wave_barriers *b,
                    wave_launch_config *config, const char *name) {
  watch *w = calloc(1, sizeof(*w));
  cr_assert_not_null(w);
  config->trace = note_issue;
  config->trace_ctx = w;
  config->no_deadlock_check = true;
  wave_machine *m = wave_simulate(k, config, NULL);
  cr_assert_not_null(m);
  g->kernels++;
  const wave_run_error *err = wave_machine_error(m);
  const wave_instr *failed = NULL;
  if (err && err->kind == WAVE_ERR_BARRIER) {
    g->errors++;
    failed = last_instr(m, w, err->wave);
    bool explained = flagged(g, b, failed);
    /* Waves at two different barriers: either one may be where they parted. */
    for (uint32_t i = 0; !explained && strstr(err->message, "another barrier") &&
                         i < wave_machine_num_waves(m);
         i++)
      explained = flagged(g, b, last_instr(m, w, i));
    if (!explained && g->violations++ == 0)
      snprintf(g->first_violation, sizeof(g->first_violation), "%s: %s", name, err->message);
  }
  for (size_t i = 0; i < wave_machine_program_size(m); i++) {
    const wave_program_entry *e = wave_machine_program_entry(m, i);
    if (!flagged(g, b, e->instr))
      continue;
    g->flagged++;
    if (e->instr == failed)
      g->flagged_failed++;
    else if (e->issues)
      g->flagged_passed++;
  }
  wave_machine_destroy(m);
  free(w);
}

/* About 150 barrier errors (0.6 s): the generator's shapes for the optimization passes leave
 * fewer barriers per kernel, hence more seeds than the 1000 that once gave as many. */
#define GATE_SEEDS 1600

static void run_generated(gate *g, uint64_t seeds) {
  for (uint64_t seed = 1; seed <= seeds; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    o.size = 150;
    o.divergent_barriers = true;
    wave_gen_launch launch;
    wave_module *mod = tu_generate(&o, &launch);
    wave_kernel *k = wave_module_first_kernel(mod);
    wave_barriers *b = compute(k);
    wave_launch_config config;
    wave_launch_config_init(&config);
    wave_reg_value presets[WAVE_GEN_MAX_ARGS];
    tu_gen_launch_config(&launch, &config, presets);
    /* Arguments with random bits get some, so that uniform branches go both ways. */
    for (unsigned i = 0; i < launch.num_args; i++)
      presets[i].value += (uint32_t)(seed * 0x9E3779B9u >> i) & launch.args[i].random_mask;
    config.wave_width = seed % 2 ? 8 : 32;   /* 8: more waves per workgroup */
    char name[32];
    snprintf(name, sizeof(name), "seed %llu", (unsigned long long)seed);
    run_one(g, k, b, &config, name);
    wave_barriers_destroy(b);
    wave_module_destroy(mod);
  }
}

/* The gate's premise: with divergent_barriers the generator puts barriers below the top level,
 * and never a halt in a loop (a barrier after it could wait for a wave whose lanes all ended,
 * which is not barrier divergence). */
Test(barriers, generator_places_divergent_barriers) {
  unsigned nested = 0;
  for (uint64_t seed = 1; seed <= 50; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    o.divergent_barriers = true;
    wave_gen_launch launch;
    wave_module *mod = tu_generate(&o, &launch);
    wave_const_walker w;
    wave_const_walk_init(&w,
                         wave_region_body(wave_kernel_first_region(wave_module_first_kernel(mod))));
    unsigned loops = 0;
    while (wave_const_walk_next(&w)) {
      loops += w.event == WAVE_WALK_LOOP;
      loops -= w.event == WAVE_WALK_ENDLOOP;
      if (w.event != WAVE_WALK_BLOCK)
        continue;
      for (const wave_instr *i = wave_block_first(w.node); i; i = wave_instr_next(i)) {
        nested += wave_instr_op(i) == WAVE_OP_BARRIER && w.depth > 0;
        cr_assert(!(wave_instr_op(i) == WAVE_OP_HALT && loops), "seed %llu: a halt in a loop",
                  (unsigned long long)seed);
      }
    }
    wave_module_destroy(mod);
  }
  cr_assert_gt(nested, 10);
}

static void run_file(gate *g, const char *path) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *mod = wave_parse_file(path, &diags);
  wave_diags_free(&diags);
  cr_assert_not_null(mod, "%s does not parse", path);
  for (size_t i = 0; wave_module_kernel_at(mod, i); i++) {
    wave_kernel *k = wave_module_kernel_at(mod, i);
    wave_barriers *b = compute(k);
    for (uint32_t width = 8; width <= 32; width *= 4) {
      wave_launch_config config;
      wave_launch_config_init(&config);
      config.wave_width = width;
      config.max_steps = 100000;
      char name[256];
      snprintf(name, sizeof(name), "%s, kernel %s, width %u", path, wave_kernel_name(k), width);
      run_one(g, k, b, &config, name);
    }
    wave_barriers_destroy(b);
  }
  wave_module_destroy(mod);
}

static void run_hand_written(gate *g) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  for (size_t i = 0; i < n; i++) {
    char *path = tu_corpus_path(files[i].name);
    run_file(g, path);
    free(path);
  }
  static const char *const lit[] = {"barriers.test", "Inputs/good.wave", "Inputs/divzero.wave",
                                    "Inputs/empty-if.wave", "Inputs/if-comments.wave",
                                    "Inputs/warnings.wave", "Inputs/spin.wave"};
  for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/lit/%s", WAVE_SRCDIR, lit[i]);
    run_file(g, path);
  }
}

Test(barriers, every_barrier_error_was_flagged, .timeout = 300) {
  gate g = {0};
  run_generated(&g, GATE_SEEDS);
  gate hand = {0};
  run_hand_written(&hand);
  fprintf(stderr,
          "barrier gate: %u generated launches, %u barrier errors, %u not flagged; "
          "%u flagged barriers present: %u failed, %u ran without failing, %u not reached "
          "before the run ended\n",
          g.kernels, g.errors, g.violations, g.flagged, g.flagged_failed, g.flagged_passed,
          g.flagged - g.flagged_failed - g.flagged_passed);
  fprintf(stderr, "barrier gate: %u hand-written launches, %u barrier errors, %u not flagged\n",
          hand.kernels, hand.errors, hand.violations);
  cr_assert_eq(g.violations, 0, "%s", g.first_violation);
  cr_assert_eq(hand.violations, 0, "%s", hand.first_violation);
  cr_assert_gt(g.errors, 50, "too few barrier errors for the gate to mean much");
  cr_assert_geq(hand.errors, 8, "the positive kernels of tests/lit/barriers.test fail");
}

Test(barriers, the_gate_fails_when_nothing_is_flagged, .timeout = 300) {
  gate g = {.blind = true};
  run_generated(&g, GATE_SEEDS / 10);
  cr_assert_gt(g.violations, 0, "a blind analysis passed the gate on generated kernels");
  cr_assert_eq(g.violations, g.errors);
  gate hand = {.blind = true};
  run_hand_written(&hand);
  cr_assert_gt(hand.violations, 0, "a blind analysis passed the gate on hand-written kernels");
}
