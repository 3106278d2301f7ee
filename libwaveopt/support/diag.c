/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/strbuf.h"
#include "support/text.h"
#include "waveopt/diag.h"

void wave_diags_init(wave_diags *diags) { memset(diags, 0, sizeof(*diags)); }

void wave_diags_free(wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    free(diags->items[i].file);
    free(diags->items[i].message);
    free(diags->items[i].source_line);
  }
  free(diags->items);
  diags->items = NULL;
  diags->count = diags->capacity = 0;
}

bool wave_diags_has_errors(const wave_diags *diags) { return diags->num_errors > 0; }

static char *copy_text(const char *s, size_t len) {
  char *d = malloc(len + 1);
  if (d) {
    memcpy(d, s, len);
    d[len] = '\0';
  }
  return d;
}

static void vreport(wave_diags *diags, wave_severity severity, const char *flag, wave_loc loc,
                    const char *source_line, size_t source_line_len, const char *fmt,
                    va_list ap) {
  if (severity == WAVE_SEV_WARNING) {
    if (diags->ignore_warnings)
      return;
    if (diags->warnings_as_errors)
      severity = WAVE_SEV_ERROR;
  }
  if (severity == WAVE_SEV_ERROR) {
    diags->num_errors++;
    if (diags->max_errors && diags->num_errors > diags->max_errors) {
      diags->truncated = true;
      return;
    }
  } else if (severity == WAVE_SEV_WARNING) {
    diags->num_warnings++;
  }
  if (diags->count == diags->capacity) {
    size_t cap = diags->capacity ? diags->capacity * 2 : 16;
    wave_diag *items = realloc(diags->items, cap * sizeof(*items));
    if (!items) {
      diags->out_of_memory = true;
      return;
    }
    diags->items = items;
    diags->capacity = cap;
  }
  wave_diag *d = &diags->items[diags->count];
  memset(d, 0, sizeof(*d));
  d->severity = severity;
  d->line = loc.line;
  d->col = loc.col;
  d->flag = flag;
  d->message = wave_vformat(fmt, ap);
  d->file = loc.file ? copy_text(loc.file, strlen(loc.file)) : NULL;
  d->source_line = source_line ? copy_text(source_line, source_line_len) : NULL;
  if (!d->message || (loc.file && !d->file) || (source_line && !d->source_line)) {
    free(d->message);
    free(d->file);
    free(d->source_line);
    diags->out_of_memory = true;
    return;
  }
  diags->count++;
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
    if (d->col) {
      /* Tabs are copied so the caret lines up under the same terminal column. */
      size_t n = strlen(d->source_line);
      for (size_t i = 0; i + 1 < d->col; i++)
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
