/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Differential testing: run a kernel and its transformation in the reference interpreter on the
 * same random inputs and compare what they leave behind: device memory byte for byte, which
 * lanes finished, and whether the run failed. Registers are observed only through memory
 * (generated kernels store every register before they halt).
 *
 * The transformed side always goes through text: parse, transform, verify, print in the
 * assembler's dialect, parse again, verify again. So the identity transformation tests the
 * printer and parser round trip, and every later pass is tested together with printing its
 * result.
 */
#ifndef WAVE_DIFFTEST_H
#define WAVE_DIFFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "waveopt/gen.h"
#include "waveopt/interp.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

/* A transformation under test: edits the module in place; false means it failed (with the
 * reason in diags). */
typedef bool (*wave_transform_fn)(wave_module *module, void *ctx, wave_diags *diags);

/* Does nothing: the harness's own print/parse round trip is what gets tested. */
bool wave_transform_identity(wave_module *module, void *ctx, wave_diags *diags);
/* wave_lower_docs_dialect. */
bool wave_transform_lower_docs(wave_module *module, void *ctx, wave_diags *diags);

#define WAVE_DIFF_MAX_PASSES 32

/* The context of wave_transform_pipeline. */
typedef struct wave_difftest_pipeline {
  const wave_pipeline *pipeline;
  const wave_target *target;   /* the profile the passes write for; NULL: portable */
  uint32_t max_registers;      /* wave_pipeline_options.max_registers: 0, no growth */
  bool changed;   /* whether the last run changed the kernel: the pipeline "fired" */
  /* The passes the last run ran, each once in the order it first ran, and whether it changed
   * the kernel in any of its runs: which pass fired. Passes beyond WAVE_DIFF_MAX_PASSES
   * distinct names are not recorded. */
  unsigned num_passes;
  const char *passes[WAVE_DIFF_MAX_PASSES];
  bool pass_changed[WAVE_DIFF_MAX_PASSES];
  /* legalize's counts of the last run: halts and returns inside regions rewritten into a done
   * flag, and left where they are (statistics exits-rewritten, exits-kept). */
  uint64_t exits_rewritten, exits_kept;
} wave_difftest_pipeline;

/* Runs ctx's pipeline with verify_each, so that a pass leaving broken IR or claiming to keep an
 * analysis it invalidated fails right there, naming the pass, rather than as a mismatch later
 * or not at all. */
bool wave_transform_pipeline(wave_module *module, void *ctx, wave_diags *diags);

#define WAVE_DIFF_MAX_WIDTHS 8

typedef struct wave_difftest {
  wave_gen_launch launch;          /* grid, workgroup, memory size, preset registers */
  wave_transform_fn transform;     /* NULL = wave_transform_identity */
  void *transform_ctx;
  wave_exec_mode original_mode;    /* WAVE_MODE_SIMT unless changed */
  wave_exec_mode transformed_mode;
  uint32_t widths[WAVE_DIFF_MAX_WIDTHS];
  unsigned num_widths;             /* 8, 32, 64 by default */
  uint64_t input_seed;             /* memory contents and preset values come from it */
  uint64_t max_steps;              /* per run; 0 = the interpreter's default */
  /* The target whose hazards the transformation may not add (hazards.c): what
   * wave_target_scan finds, wave operations where the wave is not converged (on a target
   * whose wave operations need every live lane), divergent barriers, and, dynamically, wave
   * operations issued with lanes parked. NULL: not checked. */
  const wave_target *hazard_target;
} wave_difftest;

/* Defaults for a kernel that expects `launch`. */
void wave_difftest_init(wave_difftest *test, const wave_gen_launch *launch);

typedef enum wave_diff_status {
  WAVE_DIFF_PASS,
  WAVE_DIFF_MISMATCH,       /* memory, finished lanes, or error/no error differ */
  WAVE_DIFF_BAD_ORIGINAL,   /* the original does not parse, verify, or run without error */
  WAVE_DIFF_BAD_TRANSFORM,  /* the transformation failed, or its result does not verify,
                             * print or parse again */
  WAVE_DIFF_NO_MEMORY,
  WAVE_DIFF_HAZARD,         /* the transformed kernel has a toolchain hazard for
                             * hazard_target that the original did not have */
} wave_diff_status;

typedef struct wave_diff_report {
  wave_diff_status status;
  uint32_t width;           /* W of the run that failed (0 when no run was involved) */
  bool memory_differs;      /* the fields below are set */
  uint32_t address;         /* first differing byte */
  uint8_t before, after;    /* its value after the original / the transformed run */
  uint32_t word_before, word_after; /* the aligned 32-bit word around it */
  size_t differing_bytes;
  char message[2048];       /* human-readable, may span lines, no final newline */
} wave_diff_report;

/* Runs the comparison on the kernel in `text` (either dialect; its first kernel runs). */
wave_diff_status wave_difftest_run(const wave_difftest *test, const char *text, size_t len,
                                   wave_diff_report *report);

/* Runs only the original at every width; true when no run fails. */
bool wave_difftest_original_ok(const wave_difftest *test, const wave_module *module,
                               uint64_t *max_steps);

/* ---- toolchain hazards (hazards.c) ---------------------------------------------------------- */

/* A kernel's hazards for a target, each keyed by its kind and source line (the depth limit by
 * kind alone): a pass that duplicates or keeps a construct keeps its line, and a hazard the
 * input had is no new one. */
typedef struct wave_hazard_set wave_hazard_set;

/* The hazards of `kernel` for `target`; NULL when memory ran out. */
wave_hazard_set *wave_hazards_find(const wave_kernel *kernel, const wave_target *target);
void wave_hazard_set_destroy(wave_hazard_set *set);
/* Writes the first hazard of `after` that `before` lacks into `what` ("'wave_ballot' at line
 * 14 where the wave is not converged") and returns true; false when there is none. A hazard
 * on a line 1 .. num_lines - 1 for which ran[line] is false counts for nothing: the original
 * never ran that line, and the analyses may see code the original provably never reaches
 * (after an if both of whose sides halt) as reachable once legalize has turned those halts
 * into a flag. Such code is held to the dynamic check instead, as is a wave operation or
 * barrier newly judged not converged because of an if, loop or branch the original had at
 * that line (hazards.c says why). */
bool wave_hazards_added(const wave_hazard_set *before, const wave_hazard_set *after,
                        const bool *ran, size_t num_lines, char *what, size_t size);

/* ---- reducer (reduce.c) ------------------------------------------------------------------- */

typedef struct wave_reduce_stats {
  size_t trials;             /* candidate kernels tried */
  size_t items_before;       /* instructions + if/loop regions */
  size_t items_after;
} wave_reduce_stats;

/* Shrinks a kernel on which `test` fails with a mismatch (or a bad transformation, or a hazard
 * added): deletes
 * instructions and whole if/loop regions, keeping a deletion only when the kernel still
 * verifies, its original still runs without error at every width, and the test still fails
 * the same way; stops when no single deletion keeps the failure. Returns the reduced kernel as
 * malloc'd text (documentation dialect, which is the assembler's when no documentation form
 * is left), or NULL when the input does not fail that way or memory ran out. */
char *wave_reduce(const wave_difftest *test, const char *text, size_t len,
                  wave_reduce_stats *stats);

/* wave_reduce, then writes `header` (comment lines, may be NULL) and the reduced kernel to
 * `path` and prints "reduced kernel (N of M items): PATH" to `log`. True on success. */
bool wave_reduce_to_file(const wave_difftest *test, const char *text, size_t len,
                         const char *header, const char *path, FILE *log);

/* ---- test-only passes (test_passes.c) ----------------------------------------------------- */

/* Passes the harness tests itself with, for wave_pass_registry_add_pass; each outlives any
 * registry. In order; NULL past the last. */
const wave_pass_info *wave_test_pass_at(size_t index);
/* The test pass called name, or NULL. */
const wave_pass_info *wave_test_pass_find(const char *name);

#endif
