/* SPDX-License-Identifier: Apache-2.0 */
/* Formatted messages and name suggestions; see text.h. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "support/alloc.h"
#include "support/text.h"

char *wave_vformat(const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = n < 0 ? NULL : wave_mem_alloc(NULL, (size_t)n + 1);
  if (s)
    vsnprintf(s, (size_t)n + 1, fmt, again);
  va_end(again);
  return s;
}

char *wave_format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = wave_vformat(fmt, ap);
  va_end(ap);
  return s;
}

/* Levenshtein distance between a[0..n), read case-insensitively, and b. */
static size_t edit_distance(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  size_t row[WAVE_SUGGEST_MAX_NAME + 1];
  if (m > WAVE_SUGGEST_MAX_NAME)
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

void wave_suggest_init(wave_suggest *s, const char *name, size_t len) {
  s->name = name;
  s->len = len;
  s->best = NULL;
  s->best_distance = SIZE_MAX;
}

void wave_suggest_offer(wave_suggest *s, const char *candidate) {
  if (s->len > WAVE_SUGGEST_MAX_NAME)
    return;
  size_t d = edit_distance(s->name, s->len, candidate);
  if (d < s->best_distance) {
    s->best_distance = d;
    s->best = candidate;
  }
}

const char *wave_suggestion(const wave_suggest *s) {
  return s->best_distance <= 2 && s->best_distance * 3 <= s->len ? s->best : NULL;
}
