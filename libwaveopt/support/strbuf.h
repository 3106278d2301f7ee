/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The growable text buffer behind every string the library hands out (diagnostic text and
 * JSON, counters JSON, launch descriptions, printed modules). The first failure is sticky:
 * later appends do nothing and wave_strbuf_take returns NULL, so a caller builds the whole
 * text and checks once at the end.
 */
#ifndef WAVE_STRBUF_H
#define WAVE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "support/alloc.h"

/* Internal: kept out of the shared library's interface. */

/* Zero-initialise to start, and set `allocator` for text that is not malloc's; `failed` may
 * also be set by a caller to abandon the text. */
typedef struct wave_strbuf {
  char *data; /* from the allocator, NUL-terminated once anything was appended */
  size_t len, cap;
  bool failed;
  const wave_allocator *allocator;
} wave_strbuf;

void wave_strbuf_append(wave_strbuf *b, const char *s, size_t n);
void wave_strbuf_puts(wave_strbuf *b, const char *s);
void wave_strbuf_printf(wave_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* `s` quoted, with '"', '\\' and control characters escaped; NULL reads as "". */
void wave_strbuf_json_string(wave_strbuf *b, const char *s);
/* A wave_write_fn (waveopt/waveopt.h) whose ctx is a wave_strbuf: the printers write into a
 * buffer through it. Returns -1 once the buffer has failed. */
int wave_strbuf_write(void *ctx, const char *data, size_t len);
/* Hands over the text (the allocator's, "" when nothing was appended) and its length through `len`
 * when non-NULL, or frees everything and returns NULL after a failure. Leaves `b` empty. */
char *wave_strbuf_take(wave_strbuf *b, size_t *len);


#endif
