/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The text a module was parsed from, kept for the lines diagnostics quote (ir/source.c says
 * how it is indexed, and how a large file's text is given back and read again).
 */
#ifndef WAVEOPT_IR_SOURCE_H
#define WAVEOPT_IR_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/alloc.h"

#define WAVE_SOURCE_STRIDE 64

typedef struct wave_source {
  const char *text; /* len bytes and a NUL: the module's copy, or the caller's buffer adopted */
  size_t len;
  uint32_t num_lines;
  const wave_allocator *allocator; /* the module's, which marks come from */
  uint32_t *marks;                 /* marks[k]: where line 1 + k * WAVE_SOURCE_STRIDE starts */
  /* text[0..released) went back to the system as the parse passed it; fd, the file it came
   * from, reads it again. fd is -1 and released 0 unless the text came from a large file. */
  size_t released;
  int fd;
} wave_source;

/* Indexes the lines of s->text; false when memory runs out. */
bool wave_source_index(wave_source *s);
/* Gives back the pages of the text before `upto`, which the parse has passed, when the text
 * came from a large file it can read again; a no-op otherwise and between large steps. */
void wave_source_release(wave_source *s, size_t upto);
/* Line `line` (from 1) without its end of line, *len bytes: in the text, or in *copy, a block
 * from malloc for the caller to free, when read again from the file (*copy is NULL otherwise).
 * NULL when there is no such line or the file cannot give it back. */
const char *wave_source_line(const wave_source *s, uint32_t line, size_t *len, char **copy);
/* Frees the index and closes the file (the text belongs to whoever holds the source). */
void wave_source_free(wave_source *s);

#endif
