/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Diagnostics: the library reports problems as values in a list the caller owns.
 * Nothing in libwaveopt prints; tools format and print these records.
 */
#ifndef WAVEOPT_DIAG_H
#define WAVEOPT_DIAG_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wave_severity {
  WAVE_SEV_NOTE,
  WAVE_SEV_WARNING,
  WAVE_SEV_ERROR,
} wave_severity;

/* A position in a source file; line and col count from 1, 0 means "unknown". */
typedef struct wave_loc {
  const char *file;
  uint32_t line;
  uint32_t col;
} wave_loc;

typedef struct wave_diag {
  wave_severity severity;
  char *file;        /* owned copy, may be NULL */
  uint32_t line;
  uint32_t col;
  char *message;     /* owned */
  /* Owned copy of the offending line without its newline, or NULL. A line longer than
   * WAVE_DIAG_SOURCE_MAX bytes is cut to that many around the column, each cut end marked
   * "..." (a file of one long line would otherwise repeat itself in every diagnostic). */
  char *source_line;
  uint32_t caret_col; /* where in source_line the column falls (col when it is whole), or 0 */
  const char *flag;  /* warning group ("toolchain", "docs-dialect", ...) or NULL; static text */
} wave_diag;

typedef struct wave_diags {
  wave_diag *items;
  size_t count;
  size_t capacity;
  size_t num_errors;
  size_t num_warnings;
  /* Policy, set by the caller before use. */
  bool warnings_as_errors; /* -Werror: a reported warning is recorded as an error */
  bool ignore_warnings;    /* -w: warnings are dropped */
  size_t max_errors;       /* 0 = unlimited; past it errors are counted but not recorded */
  bool truncated;          /* errors were dropped because of max_errors */
  bool out_of_memory;      /* a record could not be stored */
} wave_diags;

WAVE_API void wave_diags_init(wave_diags *diags);
WAVE_API void wave_diags_free(wave_diags *diags);
WAVE_API bool wave_diags_has_errors(const wave_diags *diags);

enum { WAVE_DIAG_SOURCE_MAX = 160 };

/* Records one diagnostic. source_line may be NULL. Never fails loudly: on allocation failure
 * the list keeps counting and sets out_of_memory. */
WAVE_API void wave_diag_report(wave_diags *diags, wave_severity severity, const char *flag,
                               wave_loc loc, const char *source_line, size_t source_line_len,
                               const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Records a copy of a diagnostic of another list, under this list's policy (-w, -Werror,
 * max_errors) as wave_diag_report would. */
WAVE_API void wave_diag_report_copy(wave_diags *diags, const wave_diag *diag);

/* Formats one diagnostic as GCC/Clang do: "file:line:col: error: message [-Wflag]", then the
 * source line and a caret line. Returns a malloc'd string (caller frees) or NULL. */
WAVE_API char *wave_diag_format_text(const wave_diag *diag, bool color);

/* Formats one diagnostic as a single JSON object (no trailing newline), malloc'd. */
WAVE_API char *wave_diag_format_json(const wave_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
