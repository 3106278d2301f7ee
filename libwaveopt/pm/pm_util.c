/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers the pass manager's files share: formatting a message before it is stored, and the
 * "did you mean" suggestion for a misspelt pass, analysis or option name. The suggestion is
 * the candidate at the smallest edit distance, offered only when that distance is small for
 * the name's length (the rule the instruction parser uses), so a wild guess stays unanswered.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm/pm_internal.h"

/* Names longer than this get no suggestion: no registered name is nearly that long. */
enum { MAX_SUGGESTED_NAME = 64 };

char *wave_pm_vformat(const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = n < 0 ? NULL : malloc((size_t)n + 1);
  if (s)
    vsnprintf(s, (size_t)n + 1, fmt, again);
  va_end(again);
  return s;
}

char *wave_pm_format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = wave_pm_vformat(fmt, ap);
  va_end(ap);
  return s;
}

/* Levenshtein distance between a[0..n), read case-insensitively, and b. */
static size_t edit_distance(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  size_t row[MAX_SUGGESTED_NAME + 1];
  if (m > MAX_SUGGESTED_NAME)
    return SIZE_MAX;
  for (size_t j = 0; j <= m; j++)
    row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j];
      size_t best = diag + (tolower((unsigned char)a[i - 1]) != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

void wave_pm_suggest_init(wave_pm_suggest *s, const char *name, size_t len) {
  s->name = name;
  s->len = len;
  s->best = NULL;
  s->best_distance = SIZE_MAX;
}

void wave_pm_suggest_offer(wave_pm_suggest *s, const char *candidate) {
  if (s->len > MAX_SUGGESTED_NAME)
    return;
  size_t d = edit_distance(s->name, s->len, candidate);
  if (d < s->best_distance) {
    s->best_distance = d;
    s->best = candidate;
  }
}

const char *wave_pm_suggestion(const wave_pm_suggest *s) {
  return s->best_distance <= 2 && s->best_distance * 3 <= s->len ? s->best : NULL;
}

char *wave_pm_unknown(const char *what, const wave_pm_suggest *s) {
  const char *close = wave_pm_suggestion(s);
  if (close)
    return wave_pm_format("unknown %s '%.*s'; did you mean '%s'?", what, (int)s->len, s->name,
                          close);
  return wave_pm_format("unknown %s '%.*s'", what, (int)s->len, s->name);
}
