/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The passes that end with wave_pass_done_settled claim that a second run on their output
 * would change nothing, and a fixpoint skips that run on the strength of the claim
 * (pm/run.c). Held here, on generated kernels of several shapes and on the hand-written
 * corpus: each of them runs in a fixpoint of its own, and then once more, which must report
 * no change (under -verify-each, which also checks that "no change" left the text as it was).
 * A false claim stops the fixpoint a run early, and the run after it finds what was left.
 * early-cse makes no claim when it removed a loop's last write of a register, dce none when
 * its sweeps ran out. licm never does: one run takes a constant out of one loop, the next
 * takes it further. Nor do the passes that judge a whole run by one liveness result
 * (if-to-select, flatten-ifs, predicated-break, loop-unroll): a rewrite can shrink what is
 * live elsewhere, and the next run, on fresh liveness, may take an if the first refused
 * (if-to-select does, on the generated kernel of seed 34 with documentation forms).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "test_util.h"
#include "waveopt/gen.h"
#include "waveopt/pass.h"

TU_PASS_SUITE(settled);

static const char *const settled_passes[] = {"simplify-cfg", "early-cse", "dce", "hoist-common"};
enum { NUM_SETTLED = sizeof(settled_passes) / sizeof(settled_passes[0]), SEEDS = 300 };

/* What a pass did to one kernel inside a fixpoint of its own. */
typedef struct verdict {
  bool changed;  /* its first run changed the kernel */
  bool claimed;  /* and the fixpoint took its word that a second run would change nothing */
} verdict;

/* Runs `pass` on m in a fixpoint of its own (documentation forms lowered first, as -O2 does)
 * and then once more: the fixpoint's end must be a kernel on which the pass finds nothing,
 * whether it got there by running again or by the pass's claim. */
static verdict check_kernel(wave_module *m, const char *pass, const char *what) {
  char pipeline[64];
  snprintf(pipeline, sizeof(pipeline), "lower-docs,fixpoint(%s)", pass);
  wave_pipeline_options o = {.verify_each = true, .time_passes = true};
  wave_pipeline_result first = {0}, again = {0};
  tu_run_pipeline(registry, m, pipeline, &o, &first);
  tu_run_pipeline(registry, m, pass, &o, &again);
  cr_assert_not(again.changed, "%s: %s changed %s again after its fixpoint", pass, pass, what);
  unsigned kernels = 0;
  for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k))
    kernels++;
  verdict v = {first.changed, first.changed && tu_runs(&first, pass) == kernels};
  wave_pipeline_result_free(&first);
  wave_pipeline_result_free(&again);
  return v;
}

/* Counts over a set of kernels. */
typedef struct tally {
  unsigned kernels, changed, claimed;
} tally;

static void count(tally *t, verdict v) {
  t->kernels++;
  t->changed += v.changed;
  t->claimed += v.claimed;
}

/* The generated kernels of seeds 0 to SEEDS - 1 in three shapes: the defaults, deep and small
 * (nested ifs, the flattening and predicated-break shapes), and with documentation forms. */
static void check_generated(const char *pass, tally *t) {
  for (unsigned shape = 0; shape < 3; shape++) {
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
      wave_gen_options g;
      wave_gen_options_init(&g);
      g.seed = seed;
      if (shape == 1) {
        g.size = 120;
        g.max_depth = 8;
      }
      g.docs_dialect = shape == 2;
      wave_gen_launch launch;
      wave_module *m = tu_generate(&g, &launch);
      char what[64];
      snprintf(what, sizeof(what), "the kernel of seed %llu, shape %u", (unsigned long long)seed,
               shape);
      count(t, check_kernel(m, pass, what));
      wave_module_destroy(m);
    }
  }
}

static void check_corpus(const char *pass, tally *t) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  cr_assert_gt(n, 0);
  for (size_t i = 0; i < n; i++) {
    wave_module *m = tu_parse_corpus(files[i].name);
    count(t, check_kernel(m, pass, files[i].name));
    wave_module_destroy(m);
  }
}

Test(settled, a_fixpoint_of_each_settling_pass_ends_where_it_finds_nothing, .timeout = 600) {
  for (unsigned i = 0; i < NUM_SETTLED; i++) {
    tally t = {0};
    check_generated(settled_passes[i], &t);
    check_corpus(settled_passes[i], &t);
    cr_log_info("%s: changed %u of %u kernels, %u of them in one run by its claim",
                settled_passes[i], t.changed, t.kernels, t.claimed);
    /* A claim never made, or made on no kernel the pass changed, would test nothing. */
    cr_assert_gt(t.claimed, 0, "%s never claimed its output as its fixpoint", settled_passes[i]);
  }
}
