/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON reader of support/json.h. One loop reads values; an explicit stack holds the
 * containers still open, so `[[[[...` of any depth runs in constant C stack. After each value
 * the loop either finishes (stack empty), continues a container after a comma, or closes it.
 */
#include "support/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/grow.h"

typedef struct reader {
  const char *p, *end;
  const char *line_start;
  uint32_t line;
  wave_arena *arena;
  wave_json_error *error;
} reader;

static uint32_t column(const reader *r, const char *at) {
  size_t c = (size_t)(at - r->line_start) + 1;
  return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static bool fail_at(reader *r, const char *at, const char *message) {
  r->error->line = r->line;
  r->error->col = column(r, at);
  snprintf(r->error->message, sizeof r->error->message, "%s", message);
  return false;
}

static void skip_space(reader *r) {
  for (; r->p < r->end; r->p++) {
    char c = *r->p;
    if (c == '\n') {
      if (r->line < UINT32_MAX)
        r->line++;
      r->line_start = r->p + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
  }
}

static bool at(const reader *r, char c) { return r->p < r->end && *r->p == c; }

static bool is_digit(const reader *r) { return r->p < r->end && *r->p >= '0' && *r->p <= '9'; }

static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Four hex digits after "\u" at r->p; -1 when they are not there. */
static long read_hex4(reader *r) {
  if (r->end - r->p < 4)
    return -1;
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_value(r->p[i]);
    if (h < 0)
      return -1;
    v = v * 16 + h;
  }
  r->p += 4;
  return v;
}

static char *put_utf8(char *o, unsigned long cp) {
  if (cp < 0x80) {
    *o++ = (char)cp;
  } else if (cp < 0x800) {
    *o++ = (char)(0xC0 | (cp >> 6));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xE0 | (cp >> 12));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *o++ = (char)(0xF0 | (cp >> 18));
    *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  }
  return o;
}

/* The string starting at the quote at r->p, decoded into the arena. No escape decodes to more
 * bytes than it is written with (\uXXXX: 6 bytes to at most 3, a pair: 12 to 4), so the raw
 * length bounds the result. */
static const char *read_string(reader *r) {
  const char *open = r->p++;
  const char *close = r->p;
  while (close < r->end && *close != '"')
    close += *close == '\\' && close + 1 < r->end ? 2 : 1;
  if (close >= r->end) {
    fail_at(r, open, "unterminated string");
    return NULL;
  }
  char *out = wave_arena_alloc(r->arena, (size_t)(close - r->p) + 1);
  if (!out) {
    fail_at(r, open, "out of memory");
    return NULL;
  }
  char *o = out;
  while (r->p < close) {
    unsigned char c = (unsigned char)*r->p;
    if (c < 0x20) {
      fail_at(r, r->p, "control character in a string");
      return NULL;
    }
    if (c != '\\') {
      *o++ = (char)c;
      r->p++;
      continue;
    }
    const char *escape = r->p;
    char e = r->p[1];
    r->p += 2;
    const char *simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      static const char decoded[] = "\"\\/\b\f\n\r\t";
      *o++ = decoded[simple - "\"\\/bfnrt"];
      continue;
    }
    if (e != 'u') {
      fail_at(r, escape, "bad escape in a string");
      return NULL;
    }
    long cp = read_hex4(r);
    if (cp >= 0xD800 && cp < 0xDC00) {
      long low = -1;
      if (close - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
        r->p += 2;
        low = read_hex4(r);
      }
      if (low < 0xDC00 || low > 0xDFFF) {
        fail_at(r, escape, "unpaired surrogate in a string");
        return NULL;
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      fail_at(r, escape, "unpaired surrogate in a string");
      return NULL;
    }
    if (cp <= 0) {
      fail_at(r, escape, cp < 0 ? "bad \\u escape in a string" : "\\u0000 in a string");
      return NULL;
    }
    o = put_utf8(o, (unsigned long)cp);
  }
  *o = '\0';
  r->p = close + 1;
  return out;
}

static bool read_number(reader *r, wave_json *v) {
  const char *start = r->p;
  bool negative = at(r, '-');
  r->p += negative;
  if (!is_digit(r))
    return fail_at(r, start, "bad number");
  bool exact = !negative;
  uint64_t count = 0;
  if (at(r, '0')) {
    r->p++;
  } else {
    for (; is_digit(r); r->p++) {
      unsigned d = (unsigned)(*r->p - '0');
      if (count > (UINT64_MAX - d) / 10)
        exact = false;
      count = count * 10 + d;
    }
  }
  if (at(r, '.')) {
    exact = false;
    r->p++;
    if (!is_digit(r))
      return fail_at(r, start, "bad number");
    while (is_digit(r))
      r->p++;
  }
  if (at(r, 'e') || at(r, 'E')) {
    exact = false;
    r->p++;
    if (at(r, '+') || at(r, '-'))
      r->p++;
    if (!is_digit(r))
      return fail_at(r, start, "bad number");
    while (is_digit(r))
      r->p++;
  }
  /* strtod needs a terminated copy; the text itself may end right after the number */
  size_t n = (size_t)(r->p - start);
  char *copy = wave_arena_alloc(r->arena, n + 1);
  if (!copy)
    return fail_at(r, start, "out of memory");
  memcpy(copy, start, n);
  v->number = strtod(copy, NULL);
  v->is_count = exact;
  v->count = exact ? count : 0;
  return true;
}

static bool read_word(reader *r, const char *word, wave_json *v, wave_json_type type) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
    return fail_at(r, r->p, "expected a value");
  r->p += n;
  v->type = type;
  return true;
}

static void append(wave_json *parent, wave_json *child) {
  if (parent->last)
    parent->last->next = child;
  else
    parent->first = child;
  parent->last = child;
  parent->size++;
}

wave_json *wave_json_parse(const char *text, size_t len, wave_arena *arena,
                           wave_json_error *error) {
  reader r = {text, text + len, text, 1, arena, error};
  *error = (wave_json_error){0};
  wave_json **stack = NULL;
  size_t depth = 0, cap = 0;
  wave_json *root = NULL;
  bool ok = true;
  for (;;) {
    /* a value: a member's name and colon first inside an object */
    skip_space(&r);
    wave_json *parent = depth ? stack[depth - 1] : NULL;
    const char *key = NULL;
    if (parent && parent->type == WAVE_JSON_OBJECT) {
      if (!at(&r, '"')) {
        ok = fail_at(&r, r.p, "expected a member name");
        break;
      }
      if (!(key = read_string(&r))) {
        ok = false;
        break;
      }
      skip_space(&r);
      if (!at(&r, ':')) {
        ok = fail_at(&r, r.p, "expected ':'");
        break;
      }
      r.p++;
      skip_space(&r);
    }
    wave_json *v = wave_arena_alloc(arena, sizeof *v);
    if (!v) {
      ok = fail_at(&r, r.p, "out of memory");
      break;
    }
    v->line = r.line;
    v->col = column(&r, r.p);
    v->key = key;
    if (parent)
      append(parent, v);
    else
      root = v;
    char c = r.p < r.end ? *r.p : '\0';
    if (c == '{' || c == '[') {
      v->type = c == '{' ? WAVE_JSON_OBJECT : WAVE_JSON_ARRAY;
      if (depth == WAVE_JSON_MAX_DEPTH) {
        ok = fail_at(&r, r.p, "nested too deeply");
        break;
      }
      if (!wave_grow(NULL, (void **)&stack, &cap, depth + 1, sizeof *stack)) {
        ok = fail_at(&r, r.p, "out of memory");
        break;
      }
      stack[depth++] = v;
      r.p++;
      skip_space(&r);
      if (!at(&r, c == '{' ? '}' : ']'))
        continue;
      r.p++;
      depth--;
    } else if (c == '"') {
      v->type = WAVE_JSON_STRING;
      ok = (v->string = read_string(&r)) != NULL;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v->type = WAVE_JSON_NUMBER;
      ok = read_number(&r, v);
    } else if (c == 't') {
      ok = read_word(&r, "true", v, WAVE_JSON_TRUE);
    } else if (c == 'f') {
      ok = read_word(&r, "false", v, WAVE_JSON_FALSE);
    } else if (c == 'n') {
      ok = read_word(&r, "null", v, WAVE_JSON_NULL);
    } else {
      ok = fail_at(&r, r.p, r.p < r.end ? "expected a value" : "unexpected end of input");
    }
    if (!ok)
      break;
    /* after a value: the end, a comma, or the close of the innermost container */
    bool more = false;
    while (!more) {
      skip_space(&r);
      if (!depth) {
        if (r.p < r.end)
          ok = fail_at(&r, r.p, "text after the value");
        break;
      }
      char close = stack[depth - 1]->type == WAVE_JSON_OBJECT ? '}' : ']';
      if (at(&r, ',')) {
        r.p++;
        more = true;
      } else if (at(&r, close)) {
        r.p++;
        depth--;
      } else {
        ok = fail_at(&r, r.p,
                     r.p >= r.end       ? "unexpected end of input"
                     : close == '}' ? "expected ',' or '}'"
                                    : "expected ',' or ']'");
        break;
      }
    }
    if (!more)
      break;
  }
  wave_mem_free(NULL, stack);
  return ok ? root : NULL;
}

const wave_json *wave_json_member(const wave_json *obj, const char *key) {
  if (!obj || obj->type != WAVE_JSON_OBJECT)
    return NULL;
  for (const wave_json *m = obj->first; m; m = m->next) {
    if (strcmp(m->key, key) == 0)
      return m;
  }
  return NULL;
}
