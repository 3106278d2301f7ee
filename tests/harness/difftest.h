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

/* ---- reducer (reduce.c) ------------------------------------------------------------------- */

typedef struct wave_reduce_stats {
  size_t trials;             /* candidate kernels tried */
  size_t items_before;       /* instructions + if/loop regions */
  size_t items_after;
} wave_reduce_stats;

/* Shrinks a kernel on which `test` fails with a mismatch (or a bad transformation): deletes
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
