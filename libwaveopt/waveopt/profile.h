/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Divergence profiles (docs/profile.md): what a run of the reference interpreter measured,
 * per source line and per branch, written as JSON by `wavesim --profile=FILE` and read back by
 * people (`wavesim --annotate`), the optimizer (`waveopt -profile-use=FILE`) and any tool that
 * colours a kernel by its divergence.
 *
 *   wave_profile *p = wave_profile_parse(text, len, "run.prof", &diags);   // NULL: see diags
 *   const wave_profile_kernel *k = wave_profile_match(p, kernel, &diags); // NULL: not profiled
 *   const wave_profile_line *l = k ? wave_profile_find_line(k, 12) : NULL;
 *   const wave_profile_branch *b = k ? wave_profile_find_branch(k, 14, WAVE_PROFILE_IF) : NULL;
 *   ... l->issued, wave_profile_line_efficiency(k, l), wave_profile_branch_rate(b) ...
 *   wave_profile_destroy(p);
 *
 * A profile identifies the code it measured by its lines and the opcodes on each: matching it
 * against a kernel whose lines hold other opcodes (an edited file, another kernel of the same
 * name) is an error naming the first line that differs, never a silent misreading. Everything
 * the reader returns lives as long as the profile.
 */
#ifndef WAVEOPT_PROFILE_H
#define WAVEOPT_PROFILE_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/diag.h"
#include "waveopt/interp.h"
#include "waveopt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WAVE_PROFILE_VERSION 1

typedef struct wave_profile wave_profile;
typedef struct wave_profile_kernel wave_profile_kernel;

/* One source line of a kernel: the statements on it together. */
typedef struct wave_profile_line {
  uint32_t line;
  const char *ops;            /* their opcodes in program order, separated by spaces */
  uint64_t issued;            /* issues with at least one active lane */
  uint64_t lanes;             /* active lanes summed over those issues */
  uint64_t splits;            /* of the ifs on the line: issues where both sides got lanes */
  uint64_t divergent_exits;   /* of the loops on it: entries whose lanes left at different
                               * iterations */
} wave_profile_line;

typedef enum wave_profile_branch_kind {
  WAVE_PROFILE_IF,
  WAVE_PROFILE_LOOP,
} wave_profile_branch_kind;

/* One if or loop statement. */
typedef struct wave_profile_branch {
  uint32_t line;
  wave_profile_branch_kind kind;
  uint64_t runs;              /* times a wave reached it with an active lane */
  uint64_t lanes;             /* active lanes summed over those */
  uint64_t splits;            /* if: runs where both sides got lanes */
  uint64_t divergent_exits;   /* loop: runs whose lanes left at different iterations */
} wave_profile_branch;

/* Reads a profile. Malformed JSON, or JSON that is not a profile of a known version, is an
 * error "file_name:line:col: error: ..." in diags and NULL; NULL without a diagnostic only
 * when memory runs out (diags->out_of_memory may then be set too). */
WAVE_API wave_profile *wave_profile_parse(const char *text, size_t len, const char *file_name,
                                          wave_diags *diags);
WAVE_API void wave_profile_destroy(wave_profile *profile);

/* The source file the profile was taken from, as the writer named it. */
WAVE_API const char *wave_profile_source(const wave_profile *profile);
WAVE_API size_t wave_profile_num_kernels(const wave_profile *profile);
WAVE_API const wave_profile_kernel *wave_profile_kernel_at(const wave_profile *profile,
                                                           size_t index);
/* By name alone; NULL when the profile has no such kernel. */
WAVE_API const wave_profile_kernel *wave_profile_find_kernel(const wave_profile *profile,
                                                             const char *name);
/* The profile of `kernel` after checking that it measured this code: NULL without a
 * diagnostic when the profile has no kernel of that name, NULL with an error in diags when its
 * lines or their opcodes differ from the kernel's (a stale profile). */
WAVE_API const wave_profile_kernel *wave_profile_match(const wave_profile *profile,
                                                       const wave_kernel *kernel,
                                                       wave_diags *diags);

WAVE_API const char *wave_profile_kernel_name(const wave_profile_kernel *k);
WAVE_API uint32_t wave_profile_wave_width(const wave_profile_kernel *k);
/* The whole run's counters, as wavesim --stats prints them. */
WAVE_API const wave_counters *wave_profile_totals(const wave_profile_kernel *k);

/* Lines in increasing order; find returns NULL for a line without statements. */
WAVE_API size_t wave_profile_num_lines(const wave_profile_kernel *k);
WAVE_API const wave_profile_line *wave_profile_line_at(const wave_profile_kernel *k, size_t index);
WAVE_API const wave_profile_line *wave_profile_find_line(const wave_profile_kernel *k,
                                                         uint32_t line);
/* lanes / (issued * wave width); 0 for a line never issued. */
WAVE_API double wave_profile_line_efficiency(const wave_profile_kernel *k,
                                             const wave_profile_line *line);

/* Branches in increasing line order; find returns the first of that kind on the line. */
WAVE_API size_t wave_profile_num_branches(const wave_profile_kernel *k);
WAVE_API const wave_profile_branch *wave_profile_branch_at(const wave_profile_kernel *k,
                                                           size_t index);
WAVE_API const wave_profile_branch *wave_profile_find_branch(const wave_profile_kernel *k,
                                                             uint32_t line,
                                                             wave_profile_branch_kind kind);
/* splits / runs for an if, divergent_exits / runs for a loop; 0 for one never reached. */
WAVE_API double wave_profile_branch_rate(const wave_profile_branch *branch);

/* The profile of the run `machine` made, as JSON (docs/profile.md), naming `source` as the
 * file it came from; malloc'd and NUL-terminated, NULL when memory runs out. */
WAVE_API char *wave_profile_write(const wave_machine *machine, const char *source);

#ifdef __cplusplus
}
#endif

#endif
