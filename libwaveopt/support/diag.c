/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The diagnostics list: what the library has to say, recorded for the caller to print or
 * inspect, since the library itself never prints. The caller's policy (-w, -Werror, a cap on
 * errors) applies as each one is recorded. Each keeps its own copy of the line it quotes, cut
 * around the column when the line is long: a machine-generated file may put a whole kernel on
 * one line, and quoting all of it in each of thousands of warnings made gigabytes of output
 * from a file of kilobytes. Its memory is malloc's, never a module's allocator: "out of memory"
 * must still be recordable when that allocator has run dry (waveopt/alloc.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "support/alloc.h"
#include "support/strbuf.h"
#include "support/text.h"
#include "waveopt/diag.h"

void wave_diags_init(wave_diags *diags) { memset(diags, 0, sizeof(*diags)); }

void wave_diags_free(wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    wave_mem_free(NULL, diags->items[i].file);
    wave_mem_free(NULL, diags->items[i].message);
    wave_mem_free(NULL, diags->items[i].source_line);
  }
  wave_mem_free(NULL, diags->items);
  diags->items = NULL;
  diags->count = diags->capacity = 0;
}

bool wave_diags_has_errors(const wave_diags *diags) { return diags->num_errors > 0; }

static char *copy_text(const char *s, size_t len) { return wave_mem_strndup(NULL, s, len); }

/* The list's policy for a new diagnostic: false when it is dropped (a warning under -w, an
 * error past max_errors); *severity becomes the one it is recorded with. */
static bool admit(wave_diags *diags, wave_severity *severity) {
  if (*severity == WAVE_SEV_WARNING) {
    if (diags->ignore_warnings)
      return false;
    if (diags->warnings_as_errors)
      *severity = WAVE_SEV_ERROR;
  }
  if (*severity == WAVE_SEV_ERROR) {
    diags->num_errors++;
    if (diags->max_errors && diags->num_errors > diags->max_errors) {
      diags->truncated = true;
      return false;
    }
  } else if (*severity == WAVE_SEV_WARNING) {
    diags->num_warnings++;
  }
  return true;
}

/* The next free item, zeroed, or NULL when the list cannot grow. */
static wave_diag *next_item(wave_diags *diags) {
  if (diags->count == diags->capacity) {
    size_t cap = diags->capacity ? diags->capacity * 2 : 16;
    wave_diag *items = wave_mem_realloc(NULL, diags->items, cap * sizeof(*items));
    if (!items) {
      diags->out_of_memory = true;
      return NULL;
    }
    diags->items = items;
    diags->capacity = cap;
  }
  wave_diag *d = &diags->items[diags->count];
  memset(d, 0, sizeof(*d));
  return d;
}

/* Counts the item filled in, or frees what it holds when a copy failed. */
static void commit(wave_diags *diags, wave_diag *d, bool copied) {
  if (!copied) {
    wave_mem_free(NULL, d->message);
    wave_mem_free(NULL, d->file);
    wave_mem_free(NULL, d->source_line);
    diags->out_of_memory = true;
    return;
  }
  diags->count++;
}

static bool continues_utf8(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

/* What a diagnostic at column `col` (0: none) quotes of `line`, and where the column falls in
 * it: the whole line, or WAVE_DIAG_SOURCE_MAX bytes around the column, not splitting a UTF-8
 * character, with "..." where it was cut. */
static char *quote(const char *line, size_t len, uint32_t col, uint32_t *caret_col) {
  *caret_col = col;
  if (len <= WAVE_DIAG_SOURCE_MAX)
    return copy_text(line, len);
  size_t at = col && col - 1 < len ? col - 1 : col ? len : 0;
  size_t start = at > WAVE_DIAG_SOURCE_MAX / 2 ? at - WAVE_DIAG_SOURCE_MAX / 2 : 0;
  if (start > len - WAVE_DIAG_SOURCE_MAX)
    start = len - WAVE_DIAG_SOURCE_MAX;
  size_t end = start + WAVE_DIAG_SOURCE_MAX;
  while (start > 0 && continues_utf8(line[start]))
    start++;
  while (end < len && continues_utf8(line[end]))
    end--;
  wave_strbuf b = {0};
  if (start)
    wave_strbuf_puts(&b, "...");
  wave_strbuf_append(&b, line + start, end - start);
  if (end < len)
    wave_strbuf_puts(&b, "...");
  if (col && start)
    *caret_col = (uint32_t)(col - start + 3);
  return wave_strbuf_take(&b, NULL);
}

static void vreport(wave_diags *diags, wave_severity severity, const char *flag, wave_loc loc,
                    const char *source_line, size_t source_line_len, const char *fmt,
                    va_list ap) {
  wave_diag *d;
  if (!admit(diags, &severity) || !(d = next_item(diags)))
    return;
  d->severity = severity;
  d->line = loc.line;
  d->col = loc.col;
  d->flag = flag;
  d->message = wave_vformat(fmt, ap);
  d->file = loc.file ? copy_text(loc.file, strlen(loc.file)) : NULL;
  if (source_line)
    d->source_line = quote(source_line, source_line_len, loc.col, &d->caret_col);
  commit(diags, d, d->message && (!loc.file || d->file) && (!source_line || d->source_line));
}

void wave_diag_report_copy(wave_diags *diags, const wave_diag *from) {
  wave_severity severity = from->severity;
  wave_diag *d;
  if (!admit(diags, &severity) || !(d = next_item(diags)))
    return;
  *d = *from;
  d->severity = severity;
  d->message = copy_text(from->message, strlen(from->message));
  d->file = from->file ? copy_text(from->file, strlen(from->file)) : NULL;
  d->source_line = from->source_line ? copy_text(from->source_line, strlen(from->source_line))
                                     : NULL;
  commit(diags, d,
         d->message && (!from->file || d->file) && (!from->source_line || d->source_line));
}

void wave_diag_report(wave_diags *diags, wave_severity severity, const char *flag, wave_loc loc,
                      const char *source_line, size_t source_line_len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(diags, severity, flag, loc, source_line, source_line_len, fmt, ap);
  va_end(ap);
}

/* ---- formatting ------------------------------------------------------------------------- */

static const char *severity_name(wave_severity s) {
  return s == WAVE_SEV_ERROR ? "error" : s == WAVE_SEV_WARNING ? "warning" : "note";
}

static const char *severity_color(wave_severity s) {
  return s == WAVE_SEV_ERROR ? "\033[1;31m" : s == WAVE_SEV_WARNING ? "\033[1;35m" : "\033[1;36m";
}

char *wave_diag_format_text(const wave_diag *d, bool color) {
  wave_strbuf b = {0};
  const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
  wave_strbuf_puts(&b, bold);
  if (d->file) {
    wave_strbuf_puts(&b, d->file);
    if (d->line) {
      wave_strbuf_printf(&b, ":%u", d->line);
      if (d->col)
        wave_strbuf_printf(&b, ":%u", d->col);
    }
    wave_strbuf_puts(&b, ": ");
  }
  wave_strbuf_printf(&b, "%s%s:%s%s %s%s", color ? severity_color(d->severity) : "",
                     severity_name(d->severity), reset, bold, d->message, reset);
  if (d->flag)
    wave_strbuf_printf(&b, " [-W%s]", d->flag);
  wave_strbuf_puts(&b, "\n");
  if (d->source_line) {
    wave_strbuf_puts(&b, d->source_line);
    wave_strbuf_puts(&b, "\n");
    if (d->caret_col) {
      /* Tabs are copied so the caret lines up under the same terminal column. */
      size_t n = strlen(d->source_line);
      for (size_t i = 0; i + 1 < d->caret_col; i++)
        wave_strbuf_append(&b, i < n && d->source_line[i] == '\t' ? "\t" : " ", 1);
      wave_strbuf_printf(&b, "%s^%s\n", color ? "\033[1;32m" : "", reset);
    }
  }
  return wave_strbuf_take(&b, NULL);
}

char *wave_diag_format_json(const wave_diag *d) {
  wave_strbuf b = {0};
  wave_strbuf_puts(&b, "{\"file\":");
  if (d->file)
    wave_strbuf_json_string(&b, d->file);
  else
    wave_strbuf_puts(&b, "null");
  wave_strbuf_printf(&b, ",\"line\":%u,\"column\":%u,\"severity\":\"%s\",\"message\":",
                     d->line, d->col, severity_name(d->severity));
  wave_strbuf_json_string(&b, d->message);
  wave_strbuf_puts(&b, ",\"flag\":");
  if (d->flag)
    wave_strbuf_json_string(&b, d->flag);
  else
    wave_strbuf_puts(&b, "null");
  wave_strbuf_puts(&b, "}");
  return wave_strbuf_take(&b, NULL);
}
