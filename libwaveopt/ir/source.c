/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The text a module was parsed from, kept so that a diagnostic found long after parsing (by
 * the verifier, a pass, the interpreter) still quotes its line (ir/report.c).
 *
 * Where lines start is known for every WAVE_SOURCE_STRIDE-th line only: a quote finds the
 * mark before its line and counts the newlines after it, a few thousand bytes at most, where
 * an entry per line took four bytes of every line of a file for the rare diagnostic.
 *
 * A large regular file is not held whole for the few lines a diagnostic may quote: as the
 * parse passes a stretch of text, which it has copied everything it keeps out of, the pages
 * go back to the system (their bytes read as zero afterwards) and a line there is read again
 * from the file, through a descriptor the module keeps. So a million-instruction file costs
 * its size in memory only while it is being read, not on top of the code it became. Should
 * the file change meanwhile, a quote may show the new text (or none when it shrank): quoting
 * is all the old text was kept for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/source.h"
#include "support/grow.h"

/* Pages go back whole huge pages at a time, when the parse has passed two more: a madvise
 * per statement would cost more than the parse. */
#define RELEASE_STEP (2 * WAVE_HUGE_PAGE)

bool wave_source_index(wave_source *s) {
  uint32_t lines = 1;
  for (const char *c = s->text, *end = c + s->len; (c = memchr(c, '\n', (size_t)(end - c))); c++)
    lines++;
  uint32_t *marks =
      wave_mem_calloc(s->allocator, (size_t)(lines - 1) / WAVE_SOURCE_STRIDE + 1, sizeof(*marks));
  if (!marks)
    return false;
  uint32_t line = 1;
  marks[0] = 0;
  for (const char *c = s->text, *end = c + s->len; (c = memchr(c, '\n', (size_t)(end - c))); c++)
    if (line++ % WAVE_SOURCE_STRIDE == 0)
      marks[(line - 1) / WAVE_SOURCE_STRIDE] = (uint32_t)(c + 1 - s->text);
  s->marks = marks;
  s->num_lines = lines;
  return true;
}

void wave_source_release(wave_source *s, size_t upto) {
  if (s->fd < 0 || upto < s->released + RELEASE_STEP)
    return;
  size_t given = wave_release_huge((char *)s->text + s->released, upto - s->released);
  s->released += given;
  /* A system that refuses only costs the memory: the text stays, and read from memory, once
   * nothing went back, it needs no file and no more tries. */
  if (!given && !s->released) {
    close(s->fd);
    s->fd = -1;
  }
}

/* Bytes [at, at + n) of the text, clipped to its end, into buf: from the file below
 * `released`, from memory above. How many, 0 when the file cannot give them. */
static size_t fetch(const wave_source *s, size_t at, char *buf, size_t n) {
  if (at >= s->len)
    return 0;
  if (n > s->len - at)
    n = s->len - at;
  size_t from_file = at < s->released ? s->released - at : 0;
  if (from_file > n)
    from_file = n;
  for (size_t done = 0; done < from_file;) {
    ssize_t got = pread(s->fd, buf + done, from_file - done, (off_t)(at + done));
    if (got <= 0)
      return 0;
    done += (size_t)got;
  }
  memcpy(buf + from_file, s->text + at + from_file, n - from_file);
  return n;
}

/* The offset of the first '\n' at or after `at` (in whichever part of the text), len when
 * there is none; SIZE_MAX when the file cannot be read. */
static size_t find_newline(const wave_source *s, size_t at) {
  char buf[4096];
  for (;;) {
    size_t n = fetch(s, at, buf, sizeof(buf));
    if (!n)
      return at >= s->len ? s->len : SIZE_MAX;
    const char *nl = memchr(buf, '\n', n);
    if (nl)
      return at + (size_t)(nl - buf);
    at += n;
  }
}

const char *wave_source_line(const wave_source *s, uint32_t line, size_t *len, char **copy) {
  *copy = NULL;
  if (!s->text || line < 1 || line > s->num_lines)
    return NULL;
  size_t start = s->marks[(line - 1) / WAVE_SOURCE_STRIDE], end = 0;
  for (uint32_t skip = (line - 1) % WAVE_SOURCE_STRIDE;; skip--) {
    if ((end = find_newline(s, start)) == SIZE_MAX)
      return NULL;
    if (!skip)
      break;
    start = end + 1;
  }
  const char *text = s->text + start;
  if (start < s->released) {
    /* For a quote in a diagnostic, whose memory is malloc's (waveopt/alloc.h). */
    if (!(*copy = wave_mem_alloc(NULL, end - start + 1)) ||
        fetch(s, start, *copy, end - start) != end - start) {
      wave_mem_free(NULL, *copy);
      *copy = NULL;
      return NULL;
    }
    text = *copy;
  }
  if (end > start && text[end - start - 1] == '\r')
    end--;
  *len = end - start;
  return text;
}

void wave_source_free(wave_source *s) {
  wave_mem_free(s->allocator, s->marks);
  s->marks = NULL;
  if (s->fd >= 0)
    close(s->fd);
  s->fd = -1;
}
