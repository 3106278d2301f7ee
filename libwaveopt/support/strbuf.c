/* SPDX-License-Identifier: Apache-2.0 */
#include "support/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { MIN_CAPACITY = 256 };

/* Makes room for `extra` more characters plus the terminating NUL. */
static bool reserve(wave_strbuf *b, size_t extra) {
  if (b->failed)
    return false;
  if (extra < b->cap - b->len)
    return true;
  if (extra > SIZE_MAX / 2 - b->len) {
    b->failed = true;
    return false;
  }
  size_t need = b->len + extra + 1;
  size_t cap = b->cap ? b->cap : MIN_CAPACITY;
  while (cap < need)
    cap *= 2;
  char *data = wave_mem_realloc(b->allocator, b->data, cap);
  if (!data) {
    b->failed = true;
    return false;
  }
  b->data = data;
  b->cap = cap;
  return true;
}

void wave_strbuf_append(wave_strbuf *b, const char *s, size_t n) {
  if (!reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void wave_strbuf_puts(wave_strbuf *b, const char *s) { wave_strbuf_append(b, s, strlen(s)); }

void wave_strbuf_printf(wave_strbuf *b, const char *fmt, ...) {
  if (b->failed)
    return;
  /* Formats straight into the spare room; only text that does not fit is formatted twice. */
  va_list ap;
  va_start(ap, fmt);
  size_t room = b->cap - b->len;
  int n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = true;
    return;
  }
  if ((size_t)n >= room) {
    if (!reserve(b, (size_t)n))
      return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
}

void wave_strbuf_json_string(wave_strbuf *b, const char *s) {
  wave_strbuf_append(b, "\"", 1);
  for (const char *p = s; p && *p;) {
    size_t plain = 0;
    while (p[plain] && p[plain] != '"' && p[plain] != '\\' && (unsigned char)p[plain] >= 0x20)
      plain++;
    wave_strbuf_append(b, p, plain);
    p += plain;
    if (!*p)
      break;
    unsigned char c = (unsigned char)*p++;
    if (c == '"' || c == '\\')
      wave_strbuf_printf(b, "\\%c", c);
    else
      wave_strbuf_printf(b, "\\u%04x", c);
  }
  wave_strbuf_append(b, "\"", 1);
}

int wave_strbuf_write(void *ctx, const char *data, size_t len) {
  wave_strbuf *b = ctx;
  wave_strbuf_append(b, data, len);
  return b->failed ? -1 : 0;
}

char *wave_strbuf_take(wave_strbuf *b, size_t *len) {
  /* Even an empty text is a string the caller can free. */
  if (!b->data)
    wave_strbuf_append(b, "", 0);
  char *text = b->data;
  size_t n = b->len;
  if (b->failed) {
    wave_mem_free(b->allocator, text);
    text = NULL;
  } else if (len) {
    *len = n;
  }
  *b = (wave_strbuf){.allocator = b->allocator};
  return text;
}
