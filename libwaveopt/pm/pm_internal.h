/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the pass manager's files share and nobody else sees: the registry's and the pipeline's
 * layout, the state of one run, and small helpers. A pipeline is kept flat, as the steps of a
 * tiny program: `a,fixpoint(b,c),d` is PASS a, FIXPOINT, PASS b, PASS c, END, PASS d. Building,
 * printing and running it are then loops, and fixpoint nesting needs only a bounded stack.
 */
#ifndef WAVE_PM_INTERNAL_H
#define WAVE_PM_INTERNAL_H

#include <stdarg.h>

#include "support/text.h"
#include "waveopt/pass.h"

struct wave_pass_registry {
  /* NULL for malloc, else own_allocator, the caller's copied; the pipelines use it too. */
  const wave_allocator *allocator;
  wave_allocator own_allocator;
  const wave_pass_info **passes;
  size_t num_passes, pass_capacity;
  const wave_analysis_info *analyses[WAVE_MAX_ANALYSES];
  size_t num_analyses;
  void **plugins; /* dlopen handles, closed when the registry is destroyed */
  size_t num_plugins, plugin_capacity;
};

typedef enum wave_step_kind {
  WAVE_STEP_PASS,
  WAVE_STEP_PRINT,
  WAVE_STEP_FIXPOINT,  /* opens a fixpoint; its passes follow up to the matching END */
  WAVE_STEP_END,
} wave_step_kind;

typedef struct wave_pipeline_step {
  wave_step_kind kind;
  const wave_pass_info *pass;  /* PASS */
  wave_analysis_id analysis;   /* PRINT */
  unsigned max_iterations;     /* FIXPOINT */
  size_t begin;                /* END: the index of its FIXPOINT */
} wave_pipeline_step;

struct wave_pipeline {
  const wave_pass_registry *registry;
  wave_pipeline_step *steps;
  size_t num_steps, capacity;
  size_t open[WAVE_MAX_PIPELINE_DEPTH];  /* the FIXPOINT steps not closed yet, outermost first */
  unsigned depth;
};

/* One wave_pipeline_run. */
typedef struct wave_pm_run {
  const wave_pipeline *pipeline;
  const wave_pipeline_options *options;
  const wave_target *target;
  wave_pipeline_result *result;
  wave_diags *diags;
  wave_analysis_manager *am;
  unsigned pass_runs;   /* numbered for opt-bisect */
  bool out_of_memory;   /* something could not be recorded in the result */
  const struct wave_profile_kernel *profile;  /* the current kernel's, matched before it ran */
} wave_pm_run;

struct wave_pass_context {
  wave_pm_run *run;
  const wave_pass_info *pass;
  wave_kernel *kernel;
};

/* Adds n to the result's statistic `name` of `pass` (a pass's name, or "fixpoint" for the
 * manager's own), creating it with `description`. */
/* Unloads the registry's plugins, the last first (pm/plugin.c). */
void wave_pass_plugins_close(wave_pass_registry *registry);

void wave_pm_add_stat(wave_pm_run *run, const char *pass, const char *name,
                      const char *description, uint64_t n);

/* Adds one run of `pass` taking `seconds` to the result's timings. */
void wave_pm_add_timing(wave_pm_run *run, const char *pass, double seconds);

/* Reports a false preservation claim for every cached result of `kernel` that differs from a
 * fresh computation. Returns false when one did (or could not be recomputed). */
/* Whether memory ran out for an analysis or view since the last call (the flag is cleared). */
bool wave_pm_take_out_of_memory(wave_analysis_manager *am);
bool wave_pm_check_preserved(wave_analysis_manager *am, wave_kernel *kernel,
                             const char *pass, wave_diags *diags);

/* "unknown WHAT 'NAME'", adding "; did you mean 'X'?" when s found a close name (malloc'd;
 * NULL when memory ran out). */
char *wave_pm_unknown(const char *what, const wave_suggest *s);

#endif
