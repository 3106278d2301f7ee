/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small text helpers the library's layers share: a formatted message as a fresh malloc'd
 * string (diagnostics, remarks, pipeline errors), and the "did you mean" suggestion for a
 * misspelt name (mnemonics in the parser; passes, analyses and options in the pass manager).
 * A suggestion is the candidate at the smallest edit distance, offered only when that distance
 * is small for the name's length, so a wild guess stays unanswered.
 */
#ifndef WAVE_TEXT_H
#define WAVE_TEXT_H

#include <stdarg.h>
#include <stddef.h>

/* malloc'd, NUL-terminated; NULL when memory runs out. Formatted text is the text of
 * diagnostics and remarks, which stays malloc's (waveopt/alloc.h). */
char *wave_vformat(const char *fmt, va_list ap);
char *wave_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Names longer than this get no suggestion: nothing the library names is nearly that long. */
enum { WAVE_SUGGEST_MAX_NAME = 64 };

/* Offer every candidate in turn; `name` is compared case-insensitively (`IADD` finds `iadd`). */
typedef struct wave_suggest {
  const char *name;
  size_t len;
  const char *best;
  size_t best_distance;
} wave_suggest;

void wave_suggest_init(wave_suggest *s, const char *name, size_t len);
void wave_suggest_offer(wave_suggest *s, const char *candidate);
/* The closest candidate when it is a plausible typo, else NULL. */
const char *wave_suggestion(const wave_suggest *s);

#endif
