/* SPDX-License-Identifier: Apache-2.0 */
#include "asm/lexer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waveopt/ir.h"

/* Every read goes through at(): past the end it yields '\0', which no token accepts, so the
 * scanning loops below stop at the end of the buffer without separate length checks. */
static char at(const wave_lexer *lx, size_t i) { return i < lx->len ? lx->text[i] : '\0'; }

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
static bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static size_t skip_while(const wave_lexer *lx, size_t i, bool (*pred)(char)) {
  while (pred(at(lx, i)))
    i++;
  return i;
}

int wave_lex_quote_len(size_t len) { return len > 64 ? 64 : (int)len; }

static uint32_t col_of(const wave_lexer *lx, size_t offset) {
  return (uint32_t)(offset - lx->line_begin + 1);
}

/* Turns the token into an error at `offset` and resumes lexing at `resume`. */
static void fail(wave_lexer *lx, wave_token *t, size_t offset, size_t resume, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));
static void fail(wave_lexer *lx, wave_token *t, size_t offset, size_t resume, const char *fmt,
                 ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lx->message, sizeof(lx->message), fmt, ap);
  va_end(ap);
  t->kind = WAVE_TOK_ERROR;
  t->col = col_of(lx, offset);
  t->message = lx->message;
  t->len = resume - (size_t)(t->text - lx->text);
  lx->pos = resume;
}

/* Digits of a register number, saturated so that absurd lengths cannot overflow. */
static uint32_t read_index(const wave_lexer *lx, size_t *i) {
  uint32_t v = 0;
  while (is_digit(at(lx, *i))) {
    if (v < 100000)
      v = v * 10 + (uint32_t)(at(lx, *i) - '0');
    (*i)++;
  }
  return v;
}

/* `r2d2` and `p1x` are not a register followed by a name: the upstream lexer would split them
 * and fail later with a confusing message, so we reject the whole word here. */
static bool reject_glued_word(wave_lexer *lx, wave_token *t, size_t start, size_t end) {
  if (!is_ident_char(at(lx, end)))
    return false;
  end = skip_while(lx, end, is_ident_char);
  fail(lx, t, start, end, "invalid register name '%.*s'", wave_lex_quote_len(end - start),
       lx->text + start);
  return true;
}

static void lex_gpr(wave_lexer *lx, wave_token *t, size_t start) {
  size_t i = start + 1;
  uint32_t index = read_index(lx, &i);
  t->half = WAVE_HALF_NONE;
  if (at(lx, i) == '.') {
    size_t dot = i, end = skip_while(lx, i + 1, is_alpha);
    size_t n = end - dot - 1;
    if (n == 2 && memcmp(lx->text + dot + 1, "lo", 2) == 0) {
      t->half = WAVE_HALF_LO;
    } else if (n == 2 && memcmp(lx->text + dot + 1, "hi", 2) == 0) {
      t->half = WAVE_HALF_HI;
    } else {
      fail(lx, t, dot, end, "invalid register suffix '.%.*s': only .lo and .hi exist",
           wave_lex_quote_len(n), lx->text + dot + 1);
      return;
    }
    i = end;
  }
  if (reject_glued_word(lx, t, start, i))
    return;
  if (index > WAVE_MAX_GPR) {
    fail(lx, t, start, i, "register index must be 0-254");
    return;
  }
  t->kind = WAVE_TOK_GPR;
  t->value = index;
  lx->pos = i;
}

/* The predicate part of `pN`, `@pN`, `@!pN` and `!pN`; `p` is at text[p_at]. */
static bool lex_pred_number(wave_lexer *lx, wave_token *t, size_t start, size_t p_at) {
  size_t i = p_at + 1;
  uint32_t index = read_index(lx, &i);
  if (reject_glued_word(lx, t, start, i))
    return false;
  if (index >= WAVE_NUM_PREDS) {
    fail(lx, t, start, i, "predicate register must be p0-p3");
    return false;
  }
  t->value = index;
  lx->pos = i;
  return true;
}

static bool starts_pred(const wave_lexer *lx, size_t i) {
  return at(lx, i) == 'p' && is_digit(at(lx, i + 1));
}

static void lex_guard(wave_lexer *lx, wave_token *t, size_t start) {
  size_t i = start + 1;
  t->negated = at(lx, i) == '!';
  if (t->negated)
    i++;
  if (!starts_pred(lx, i)) {
    fail(lx, t, start, i, "'@' must be followed directly by a predicate register "
                          "('@p1' or '@!p1', no spaces)");
    return;
  }
  if (lex_pred_number(lx, t, start, i))
    t->kind = WAVE_TOK_GUARD;
}

static void lex_pred(wave_lexer *lx, wave_token *t, size_t start) {
  if (lex_pred_number(lx, t, start, start))
    t->kind = WAVE_TOK_PRED;
}

static void lex_not_pred(wave_lexer *lx, wave_token *t, size_t start) {
  if (!starts_pred(lx, start + 1)) {
    fail(lx, t, start, start + 1, "'!' must be followed directly by a predicate register");
    return;
  }
  t->negated = true;
  if (lex_pred_number(lx, t, start, start + 1))
    t->kind = WAVE_TOK_NOT_PRED;
}

static void lex_sreg(wave_lexer *lx, wave_token *t, size_t start) {
  size_t end = skip_while(lx, start, is_ident_char);
  size_t n = end - start;
  const char *word = lx->text + start;
  if (n < 3 || word[2] != '_') {
    fail(lx, t, start, end, "invalid special register '%.*s': names begin with 'sr_'",
         wave_lex_quote_len(n), word);
    return;
  }
  for (uint32_t s = 0; s < WAVE_NUM_SREGS; s++) {
    if (strlen(wave_sreg_names[s]) == n && memcmp(wave_sreg_names[s], word, n) == 0) {
      t->kind = WAVE_TOK_SREG;
      t->value = s;
      lx->pos = end;
      return;
    }
  }
  fail(lx, t, start, end, "unknown special register '%.*s'", wave_lex_quote_len(n), word);
}

/* Enough significant digits that rounding to binary64 is always exact (a halfway point
 * between two doubles has at most 767 of them); beyond that one sticky digit stands in for
 * the rest. */
enum { MAX_SIG_DIGITS = 780, MAX_EXPONENT = 100000 };

/* Decimal text -> binary32 and binary64, each rounded once. The digits are rewritten as
 * "DIGITSeEXP" without a decimal point, so strtod's locale never matters. */
static void convert_float(const wave_lexer *lx, wave_token *t, size_t begin, size_t mant_end,
                          size_t end) {
  char buf[MAX_SIG_DIGITS + 32];
  size_t n = 0;
  long frac_digits = 0, dropped = 0;
  bool in_frac = false, sticky = false;
  for (size_t i = begin; i < mant_end; i++) {
    char c = lx->text[i];
    if (c == '.') {
      in_frac = true;
    } else if (is_digit(c)) {
      if (in_frac && frac_digits < MAX_EXPONENT)
        frac_digits++;
      if (n == 0 && c == '0')
        continue;
      if (n < MAX_SIG_DIGITS - 1) {
        buf[n++] = c;
      } else {
        sticky = sticky || c != '0';
        if (dropped < MAX_EXPONENT)
          dropped++;
      }
    }
  }
  if (sticky)
    buf[n++] = '1', dropped--;
  long exponent = 0;
  if (mant_end < end) {
    size_t i = mant_end + 1;
    bool neg = at(lx, i) == '-';
    if (at(lx, i) == '+' || at(lx, i) == '-')
      i++;
    for (; i < end; i++) {
      if (is_digit(lx->text[i]) && exponent < MAX_EXPONENT)
        exponent = exponent * 10 + (lx->text[i] - '0');
    }
    if (neg)
      exponent = -exponent;
  }
  if (n == 0)
    buf[n++] = '0';
  snprintf(buf + n, sizeof(buf) - n, "e%ld", exponent - frac_digits + dropped);
  t->f64 = strtod(buf, NULL);
  t->f32 = strtof(buf, NULL);
  if (t->negative) {
    t->f64 = -t->f64;
    t->f32 = -t->f32;
  }
}

static bool is_underscore(char c) { return c == '_'; }
static bool is_digit_or_sep(char c) { return is_digit(c) || c == '_'; }
static bool is_hex_or_sep(char c) { return is_hex_digit(c) || c == '_'; }

/* Accumulates the digits of [begin, end) in `base`; false when the value leaves 64 bits. */
static bool accumulate(const wave_lexer *lx, size_t begin, size_t end, unsigned base,
                       uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = begin; i < end; i++) {
    char c = lx->text[i];
    if (c == '_')
      continue;
    unsigned d = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
    if (v > (UINT64_MAX - d) / base)
      return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

static void lex_number(wave_lexer *lx, wave_token *t, size_t start) {
  size_t i = start;
  t->negative = at(lx, i) == '-';
  if (t->negative) {
    i++;
    if (!is_digit(at(lx, i))) {
      fail(lx, t, start, start + 1, "'-' must be followed by a digit");
      return;
    }
  }
  size_t digits = i, end, mant_end = 0;
  bool is_float = false;
  if (!t->negative && at(lx, i) == '0' && at(lx, i + 1) == 'x') {
    t->hex = true;
    digits = i + 2;
    end = skip_while(lx, digits, is_hex_or_sep);
    if (skip_while(lx, digits, is_underscore) == end) {
      fail(lx, t, start, end, "hex literal '0x' has no digits");
      return;
    }
  } else {
    end = skip_while(lx, i, is_digit_or_sep);
    if (at(lx, end) == '.') {
      is_float = true;
      end = skip_while(lx, end + 1, is_digit_or_sep);
    }
    mant_end = end;
    if (at(lx, end) == 'e' || at(lx, end) == 'E') {
      is_float = true;
      size_t e = end + 1;
      if (at(lx, e) == '+' || at(lx, e) == '-')
        e++;
      if (!is_digit(at(lx, e))) {
        fail(lx, t, e, skip_while(lx, e, is_ident_char), "exponent of '%.*s' has no digits",
             wave_lex_quote_len(e - start), lx->text + start);
        return;
      }
      end = skip_while(lx, e, is_digit_or_sep);
    }
  }
  if (is_ident_char(at(lx, end))) {
    char c = at(lx, end);
    fail(lx, t, end, skip_while(lx, end, is_ident_char), "invalid character '%c' in number", c);
    return;
  }
  lx->pos = end;
  if (is_float) {
    t->kind = WAVE_TOK_FLOAT;
    convert_float(lx, t, digits, mant_end, end);
    return;
  }
  if (!accumulate(lx, digits, end, t->hex ? 16 : 10, &t->magnitude) ||
      t->magnitude > (uint64_t)INT64_MAX + (t->negative ? 1u : 0u)) {
    fail(lx, t, start, end, "integer literal '%.*s' does not fit in 64 bits",
         wave_lex_quote_len(end - start), lx->text + start);
    return;
  }
  t->kind = WAVE_TOK_INT;
}

static void lex_word(wave_lexer *lx, wave_token *t, size_t start) {
  size_t end = skip_while(lx, start, is_ident_char);
  size_t after = skip_while(lx, end, is_blank);
  if (at(lx, after) == ':') {
    t->len = end - start;
    t->kind = WAVE_TOK_LABEL;
    lx->pos = after + 1;
  } else {
    t->kind = WAVE_TOK_IDENT;
    lx->pos = end;
  }
}

/* A comment is kept as a C string (the printer writes it back), so a NUL byte in it would cut
 * it short: it is an error, as outside comments. */
static void lex_comment(wave_lexer *lx, wave_token *t, size_t start) {
  const char *nl = memchr(lx->text + start, '\n', lx->len - start);
  size_t end = nl ? (size_t)(nl - lx->text) : lx->len;
  const char *nul = memchr(lx->text + start, '\0', end - start);
  if (nul) {
    fail(lx, t, (size_t)(nul - lx->text), end, "unexpected byte 0x00 in a comment");
    return;
  }
  size_t trimmed = end;
  while (trimmed > start && (is_blank(lx->text[trimmed - 1]) || lx->text[trimmed - 1] == '\f' ||
                             lx->text[trimmed - 1] == '\v'))
    trimmed--;
  t->kind = WAVE_TOK_COMMENT;
  t->len = trimmed - start;
  lx->pos = end;
}

void wave_lex_init(wave_lexer *lx, const char *text, size_t len) {
  memset(lx, 0, sizeof(*lx));
  lx->text = text;
  lx->len = text ? len : 0;
  lx->line = 1;
  lx->prev_end = SIZE_MAX;
}

bool wave_lex_skip_bom(wave_lexer *lx) {
  if (lx->len < 3 || memcmp(lx->text, "\xEF\xBB\xBF", 3) != 0)
    return false;
  lx->pos = lx->line_begin = 3;
  return true;
}

void wave_lex_next(wave_lexer *lx, wave_token *t) {
  lx->pos = skip_while(lx, lx->pos, is_blank);
  size_t start = lx->pos;
  memset(t, 0, sizeof(*t));
  t->text = lx->text + start;
  t->line = lx->line;
  t->col = col_of(lx, start);
  t->line_start = !lx->line_has_token;
  t->glued = start == lx->prev_end;
  t->len = 1;
  if (start >= lx->len) {
    t->kind = WAVE_TOK_EOF;
    t->len = 0;
    return;
  }
  char c = lx->text[start];
  lx->pos = start + 1;
  switch (c) {
  case '\n':
    t->kind = WAVE_TOK_NEWLINE;
    lx->line++;
    lx->line_begin = lx->pos;
    lx->line_has_token = false;
    lx->prev_end = SIZE_MAX;
    return;
  case ';':
  case '#':
    lex_comment(lx, t, start);
    break;
  case ',':
    t->kind = WAVE_TOK_COMMA;
    break;
  case ':':
    t->kind = WAVE_TOK_COLON;
    break;
  case '.':
    if (is_alpha(at(lx, start + 1))) {
      t->kind = WAVE_TOK_DIRECTIVE;
      lx->pos = skip_while(lx, start + 1, is_ident_char);
    } else {
      fail(lx, t, start, start + 1, "'.' must be followed by a letter");
    }
    break;
  case '@':
    lex_guard(lx, t, start);
    break;
  case '!':
    lex_not_pred(lx, t, start);
    break;
  default:
    if (c == '-' || is_digit(c))
      lex_number(lx, t, start);
    else if (c == 'r' && is_digit(at(lx, start + 1)))
      lex_gpr(lx, t, start);
    else if (starts_pred(lx, start))
      lex_pred(lx, t, start);
    else if (c == 's' && at(lx, start + 1) == 'r')
      lex_sreg(lx, t, start);
    else if (is_alpha(c) || c == '_')
      lex_word(lx, t, start);
    else if (c >= 0x20 && c < 0x7f)
      fail(lx, t, start, start + 1, "unexpected character '%c'", c);
    else
      fail(lx, t, start, start + 1, "unexpected byte 0x%02X", (unsigned)(unsigned char)c);
    break;
  }
  /* Labels and comments measured their own text; errors span what they skipped. */
  if (t->kind != WAVE_TOK_ERROR && t->kind != WAVE_TOK_LABEL && t->kind != WAVE_TOK_COMMENT)
    t->len = lx->pos - start;
  lx->prev_end = lx->pos;
  lx->line_has_token = true;
}
