/* SPDX-License-Identifier: Apache-2.0 */
/* The lexer on its own: every token kind, the number, register and guard rules of
 * docs/language.md "Tokens", "Numbers" and "Registers", and the exact column of every lexical
 * error. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "asm/lexer.h"
#include "waveopt/ir.h"

enum { MAX_TOKENS = 64 };

typedef struct lexed {
  wave_token t[MAX_TOKENS];
  char messages[MAX_TOKENS][160];
  int n;
} lexed;

/* Lexes the first len bytes of text (up to and including EOF); error messages are copied
 * because the lexer reuses its buffer. */
static void lex_n(lexed *out, const char *text, size_t len) {
  wave_lexer lx;
  wave_lex_init(&lx, text, len);
  out->n = 0;
  do {
    cr_assert_lt(out->n, MAX_TOKENS, "too many tokens");
    wave_token *t = &out->t[out->n];
    wave_lex_next(&lx, t);
    if (t->kind == WAVE_TOK_ERROR) {
      snprintf(out->messages[out->n], sizeof(out->messages[0]), "%s", t->message);
      t->message = out->messages[out->n];
    }
    out->n++;
  } while (out->t[out->n - 1].kind != WAVE_TOK_EOF);
}

static void lex(lexed *out, const char *text) { lex_n(out, text, strlen(text)); }

static void assert_text(const wave_token *t, const char *text) {
  cr_assert_eq(t->len, strlen(text), "token length %zu, want %zu ('%s')", t->len, strlen(text),
               text);
  cr_assert(memcmp(t->text, text, t->len) == 0, "token text differs from '%s'", text);
}

/* The single token of `text` (followed by EOF), which must be of this kind. */
static wave_token only(lexed *l, const char *text, wave_token_kind kind) {
  lex(l, text);
  cr_assert_eq(l->n, 2, "'%s' gave %d tokens", text, l->n - 1);
  cr_assert_eq(l->t[0].kind, kind, "'%s' kind %d, want %d", text, l->t[0].kind, kind);
  return l->t[0];
}

/* The single token of `text`, of this kind, with this register or predicate number. */
static wave_token only_value(lexed *l, const char *text, wave_token_kind kind, uint32_t value) {
  wave_token t = only(l, text, kind);
  cr_assert_eq(t.value, value, "'%s' value %u, want %u", text, t.value, value);
  return t;
}

static void assert_error(const char *text, uint32_t col, const char *message) {
  lexed l;
  lex(&l, text);
  for (int i = 0; i < l.n; i++) {
    if (l.t[i].kind == WAVE_TOK_ERROR) {
      cr_assert_eq(l.t[i].col, col, "'%s': error at column %u, want %u (%s)", text, l.t[i].col,
                   col, l.t[i].message);
      cr_assert(strstr(l.t[i].message, message), "'%s': message '%s' lacks '%s'", text,
                l.t[i].message, message);
      return;
    }
  }
  cr_assert_fail("'%s' lexed without an error", text);
}

/* ---- token kinds -------------------------------------------------------------------------- */

Test(lexer, every_token_kind) {
  lexed l;
  lex(&l, "lbl: @!p1 iadd r3.lo, p2, sr_lane_id, -42, 2.5, .device ; c\n!p3 x");
  wave_token_kind want[] = {WAVE_TOK_LABEL, WAVE_TOK_GUARD, WAVE_TOK_IDENT, WAVE_TOK_GPR,
                            WAVE_TOK_COMMA, WAVE_TOK_PRED, WAVE_TOK_COMMA, WAVE_TOK_SREG,
                            WAVE_TOK_COMMA, WAVE_TOK_INT, WAVE_TOK_COMMA, WAVE_TOK_FLOAT,
                            WAVE_TOK_COMMA, WAVE_TOK_DIRECTIVE, WAVE_TOK_COMMENT,
                            WAVE_TOK_NEWLINE, WAVE_TOK_NOT_PRED, WAVE_TOK_IDENT, WAVE_TOK_EOF};
  cr_assert_eq(l.n, (int)(sizeof(want) / sizeof(want[0])));
  for (int i = 0; i < l.n; i++)
    cr_assert_eq(l.t[i].kind, want[i], "token %d is kind %d, want %d", i, l.t[i].kind, want[i]);
  assert_text(&l.t[0], "lbl");
  cr_assert_eq(l.t[1].value, 1);
  cr_assert(l.t[1].negated);
  assert_text(&l.t[2], "iadd");
  cr_assert_eq(l.t[3].value, 3);
  cr_assert_eq(l.t[3].half, WAVE_HALF_LO);
  cr_assert_eq(l.t[5].value, 2);
  cr_assert_eq(l.t[7].value, 4, "sr_lane_id is special register 4");
  cr_assert(l.t[9].negative);
  cr_assert_eq(l.t[9].magnitude, 42);
  cr_assert_float_eq(l.t[11].f64, 2.5, 0);
  assert_text(&l.t[13], ".device");
  assert_text(&l.t[14], "; c");
  cr_assert_eq(l.t[16].value, 3);
  cr_assert(l.t[16].negated);
  cr_assert_eq(l.t[17].line, 2);
  cr_assert_eq(l.t[17].col, 5);
}

/* A UTF-8 byte order mark is stepped over only at the very start, when asked, and columns on
 * the first line count from after it; anywhere else its first byte is a lexical error. */
Test(lexer, byte_order_mark) {
  const char text[] = "\xEF\xBB\xBF.kernel k\n  halt";
  wave_lexer lx;
  wave_lex_init(&lx, text, strlen(text));
  cr_assert(wave_lex_skip_bom(&lx));
  wave_token t;
  wave_lex_next(&lx, &t);
  cr_assert_eq(t.kind, WAVE_TOK_DIRECTIVE);
  cr_assert(t.line == 1 && t.col == 1, "%u:%u", t.line, t.col);
  assert_text(&t, ".kernel");
  wave_lex_next(&lx, &t);
  cr_assert(t.kind == WAVE_TOK_IDENT && t.col == 9, "kind %d col %u", t.kind, t.col);
  wave_lex_next(&lx, &t);
  wave_lex_next(&lx, &t);
  cr_assert(t.line == 2 && t.col == 3, "%u:%u", t.line, t.col);
  wave_lex_init(&lx, text + 1, strlen(text) - 1);
  cr_assert_not(wave_lex_skip_bom(&lx));
  wave_lex_init(&lx, "\xEF\xBB", 2);
  cr_assert_not(wave_lex_skip_bom(&lx));
  assert_error("nop \xEF\xBB\xBF", 5, "unexpected byte 0xEF");
}

Test(lexer, colon_that_is_not_a_label_end) {
  lexed l;
  lex(&l, "r1:");
  cr_assert_eq(l.t[0].kind, WAVE_TOK_GPR);
  cr_assert_eq(l.t[1].kind, WAVE_TOK_COLON);
  cr_assert_eq(l.t[1].col, 3);
}

Test(lexer, labels_need_the_colon_on_the_same_line) {
  lexed l;
  lex(&l, "loop :\nfoo\n:");
  cr_assert_eq(l.t[0].kind, WAVE_TOK_LABEL, "blanks may separate a label from its colon");
  assert_text(&l.t[0], "loop");
  cr_assert_eq(l.t[1].kind, WAVE_TOK_NEWLINE);
  cr_assert_eq(l.t[2].kind, WAVE_TOK_IDENT);
  cr_assert_eq(l.t[3].kind, WAVE_TOK_NEWLINE);
  cr_assert_eq(l.t[4].kind, WAVE_TOK_COLON);
  lex(&l, "foo ; x:\n");
  cr_assert_eq(l.t[0].kind, WAVE_TOK_IDENT, "a colon inside a comment does not make a label");
}

Test(lexer, identifiers_and_case) {
  lexed l;
  /* R0: registers are lower-case only */
  static const char *const idents[] = {"R0", "_x9_", "return", "pand", "s", "stop"};
  for (size_t i = 0; i < sizeof(idents) / sizeof(idents[0]); i++)
    only(&l, idents[i], WAVE_TOK_IDENT);
}

Test(lexer, directives_and_glue) {
  lexed l;
  lex(&l, "icmp.lt .kernel x.y");
  cr_assert_eq(l.t[1].kind, WAVE_TOK_DIRECTIVE);
  assert_text(&l.t[1], ".lt");
  cr_assert(l.t[1].glued);
  cr_assert_eq(l.t[2].kind, WAVE_TOK_DIRECTIVE);
  cr_assert_not(l.t[2].glued);
  assert_text(&l.t[2], ".kernel");
  cr_assert(l.t[4].glued);
  assert_text(&l.t[4], ".y");
  lex(&l, "a\n.b");
  cr_assert_not(l.t[2].glued, "nothing is glued across a line end");
}

Test(lexer, eof_repeats) {
  wave_lexer lx;
  wave_token t;
  wave_lex_init(&lx, "x", 1);
  wave_lex_next(&lx, &t);
  for (int i = 0; i < 3; i++) {
    wave_lex_next(&lx, &t);
    cr_assert_eq(t.kind, WAVE_TOK_EOF);
    cr_assert_eq(t.col, 2);
  }
  wave_lex_init(&lx, NULL, 10);
  wave_lex_next(&lx, &t);
  cr_assert_eq(t.kind, WAVE_TOK_EOF, "a NULL buffer is empty");
}

/* ---- numbers ------------------------------------------------------------------------------ */

static void assert_int(const char *text, uint64_t magnitude, bool negative, bool hex) {
  lexed l;
  wave_token t = only(&l, text, WAVE_TOK_INT);
  cr_assert_eq(t.magnitude, magnitude, "'%s' = %llu", text, (unsigned long long)t.magnitude);
  cr_assert_eq(t.negative, negative, "'%s' sign", text);
  cr_assert_eq(t.hex, hex, "'%s' hex", text);
  assert_text(&t, text);
}

Test(lexer, decimal_integers) {
  assert_int("0", 0, false, false);
  assert_int("42", 42, false, false);
  assert_int("1_000", 1000, false, false);
  assert_int("007", 7, false, false);
  assert_int("-5", 5, true, false);
  assert_int("-0", 0, true, false);
  assert_int("9223372036854775807", 9223372036854775807ull, false, false);
  assert_int("-9223372036854775808", 9223372036854775808ull, true, false);
}

Test(lexer, hex_integers) {
  assert_int("0x10", 16, false, true);
  assert_int("0xFF_ff", 0xffff, false, true);
  assert_int("0x3F800000", 0x3F800000, false, true);
  assert_int("0x7fffffffffffffff", 0x7fffffffffffffffull, false, true);
}

Test(lexer, float_literals) {
  static const struct {
    const char *text;
    double value;
  } cases[] = {{"1.", 1.0},     {"2.5", 2.5},      {"1e3", 1000.0},  {"1.5e-3", 1.5e-3},
               {"-1.5", -1.5},  {"1E+2", 100.0},   {"0.000125", 1.25e-4}, {"1_0.5", 10.5},
               {"1e-999", 0.0}, {"000.5", 0.5}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    lexed l;
    wave_token t = only(&l, cases[i].text, WAVE_TOK_FLOAT);
    cr_assert_eq(t.f64, cases[i].value, "'%s' = %g", cases[i].text, t.f64);
    cr_assert_eq(t.f32, (float)cases[i].value, "'%s'", cases[i].text);
  }
}

/* The binary32 value is rounded once from the decimal, not through binary64. */
Test(lexer, float_bits_are_exact) {
  lexed l;
  wave_token t = only(&l, "3.14", WAVE_TOK_FLOAT);
  uint32_t b32;
  uint64_t b64;
  memcpy(&b32, &t.f32, 4);
  memcpy(&b64, &t.f64, 8);
  cr_assert_eq(b32, 0x4048F5C3u);
  cr_assert_eq((uint32_t)b64, 0x51EB851Fu, 
               "the low word is 0x51EB851F (docs/toolchain.md, Float literals)");
  /* 2^-1 + 2^-25 + 2^-60: within 2^-24 relative of a binary32 halfway point, so a double
   * rounding (decimal -> binary64 -> binary32) would go the wrong way. */
  t = only(&l, "0.5000000298023223885626742", WAVE_TOK_FLOAT);
  memcpy(&b32, &t.f32, 4);
  cr_assert_eq(b32, 0x3F000001u, "got 0x%08X", b32);
  t = only(&l, "1e99", WAVE_TOK_FLOAT);
  cr_assert(isinf(t.f32), "out of binary32 range becomes inf for the parser to reject");
  cr_assert_not(isinf(t.f64));
}

Test(lexer, very_long_mantissa_rounds_correctly) {
  char text[3000] = "1.";
  memset(text + 2, '0', 2000);
  strcpy(text + 2002, "1");
  lexed l;
  wave_token t = only(&l, text, WAVE_TOK_FLOAT);
  cr_assert_eq(t.f64, 1.0);
  cr_assert_eq(t.len, strlen(text));
}

Test(lexer, number_errors) {
  assert_error("9223372036854775808", 1, "does not fit in 64 bits");
  assert_error("-9223372036854775809", 1, "does not fit in 64 bits");
  assert_error("0x10000000000000000", 1, "does not fit in 64 bits");
  assert_error("0x", 1, "hex literal '0x' has no digits");
  assert_error("0x_", 1, "no digits");
  assert_error("x, 0X10", 5, "invalid character 'X' in number");
  assert_error("0b101", 2, "invalid character 'b' in number");
  assert_error("-0x10", 3, "invalid character 'x' in number");
  assert_error("1.5f", 4, "invalid character 'f' in number");
  assert_error("  -x", 3, "'-' must be followed by a digit");
  assert_error("- 1", 1, "'-' must be followed by a digit");
  assert_error("1e", 3, "exponent of '1e' has no digits");
  assert_error("2.5e+x", 6, "has no digits");
  assert_error(".5", 1, "'.' must be followed by a letter");
}

/* ---- registers and guards ----------------------------------------------------------------- */

Test(lexer, general_registers) {
  lexed l;
  wave_token t = only_value(&l, "r0", WAVE_TOK_GPR, 0);
  cr_assert_eq(t.half, WAVE_HALF_NONE);
  only_value(&l, "r254", WAVE_TOK_GPR, 254);
  only_value(&l, "r007", WAVE_TOK_GPR, 7);
  t = only(&l, "r3.hi", WAVE_TOK_GPR);
  cr_assert_eq(t.half, WAVE_HALF_HI);
  assert_text(&t, "r3.hi");
  assert_error("r255", 1, "register index must be 0-254");
  assert_error("x r256", 3, "register index must be 0-254");
  assert_error("r99999999999999999999", 1, "register index must be 0-254");
  assert_error("r0.x", 3, "invalid register suffix '.x'");
  assert_error("r0.", 3, "invalid register suffix '.'");
  assert_error("r1.low", 3, "invalid register suffix '.low'");
  assert_error("r2d2", 1, "invalid register name 'r2d2'");
  assert_error("r3.lo2", 1, "invalid register name");
}

Test(lexer, predicate_registers) {
  lexed l;
  for (uint32_t i = 0; i < 4; i++) {
    char text[4];
    snprintf(text, sizeof(text), "p%u", i);
    only_value(&l, text, WAVE_TOK_PRED, i);
  }
  assert_error("p4", 1, "predicate register must be p0-p3");
  assert_error("  p10", 3, "predicate register must be p0-p3");
  assert_error("p1x", 1, "invalid register name 'p1x'");
}

Test(lexer, special_registers) {
  lexed l;
  for (uint32_t i = 0; i < WAVE_NUM_SREGS; i++)
    only_value(&l, wave_sreg_names[i], WAVE_TOK_SREG, i);
  assert_error("src", 1, "invalid special register 'src': names begin with 'sr_'");
  assert_error("sr", 1, "invalid special register 'sr'");
  assert_error("a, sr_foo", 4, "unknown special register 'sr_foo'");
}

Test(lexer, guards) {
  lexed l;
  wave_token t = only_value(&l, "@p1", WAVE_TOK_GUARD, 1);
  cr_assert_not(t.negated);
  t = only_value(&l, "@!p0", WAVE_TOK_GUARD, 0);
  cr_assert(t.negated);
  assert_error("@ p1", 1, "'@' must be followed directly by a predicate register");
  assert_error("  @! p1", 3, "'@' must be followed directly");
  assert_error("@r1", 1, "'@' must be followed directly");
  assert_error("@p", 1, "'@' must be followed directly");
  assert_error("@p4", 1, "predicate register must be p0-p3");
  assert_error("@!p7", 1, "predicate register must be p0-p3");
  assert_error("@p1x", 1, "invalid register name '@p1x'");
}

Test(lexer, negated_predicate_operand) {
  lexed l;
  only_value(&l, "!p2", WAVE_TOK_NOT_PRED, 2);
  assert_error("! p1", 1, "'!' must be followed directly by a predicate register");
  assert_error("!r1", 1, "'!' must be followed directly by a predicate register");
}

/* ---- comments, lines, bytes --------------------------------------------------------------- */

Test(lexer, comments_keep_their_text) {
  lexed l;
  lex(&l, "; whole line  \t\nnop # trailing #x  \r\n");
  cr_assert_eq(l.t[0].kind, WAVE_TOK_COMMENT);
  assert_text(&l.t[0], "; whole line");
  cr_assert(l.t[0].line_start);
  cr_assert_eq(l.t[1].kind, WAVE_TOK_NEWLINE);
  cr_assert_eq(l.t[3].kind, WAVE_TOK_COMMENT);
  assert_text(&l.t[3], "# trailing #x");
  cr_assert_not(l.t[3].line_start);
  cr_assert_eq(l.t[3].col, 5);
  lex(&l, "   ; indented");
  cr_assert(l.t[0].line_start, "blanks before a comment keep it a whole-line comment");
  assert_text(&l.t[0], "; indented");
}

Test(lexer, crlf_and_tabs) {
  lexed l;
  lex(&l, ".kernel k\r\n\tiadd\tr0,\tr1\r\n");
  cr_assert_eq(l.t[0].kind, WAVE_TOK_DIRECTIVE);
  cr_assert_eq(l.t[1].kind, WAVE_TOK_IDENT);
  assert_text(&l.t[1], "k");
  cr_assert_eq(l.t[2].kind, WAVE_TOK_NEWLINE);
  cr_assert_eq(l.t[3].kind, WAVE_TOK_IDENT);
  cr_assert_eq(l.t[3].line, 2);
  cr_assert_eq(l.t[3].col, 2, "columns count bytes: a tab is one");
  cr_assert_eq(l.t[4].kind, WAVE_TOK_GPR);
  cr_assert_eq(l.t[4].col, 7);
  cr_assert_eq(l.t[6].col, 11);
  cr_assert_eq(l.t[7].kind, WAVE_TOK_NEWLINE);
  cr_assert_eq(l.t[8].kind, WAVE_TOK_EOF);
  cr_assert_eq(l.t[8].line, 3);
}

Test(lexer, stray_characters_and_bytes) {
  assert_error("iadd [r0]", 6, "unexpected character '['");
  assert_error("a + b", 3, "unexpected character '+'");
  assert_error("(", 1, "unexpected character '('");
  assert_error("\xc3\xa9", 1, "unexpected byte 0xC3");
  assert_error("\v", 1, "unexpected byte 0x0B");
  lexed l;
  lex_n(&l, "a\0b", 3);
  cr_assert_eq(l.t[0].kind, WAVE_TOK_IDENT);
  cr_assert_eq(l.t[1].kind, WAVE_TOK_ERROR);
  cr_assert_str_eq(l.t[1].message, "unexpected byte 0x00");
  cr_assert_eq(l.t[1].col, 2);
  cr_assert_eq(l.t[2].kind, WAVE_TOK_IDENT, "lexing resumes after a bad byte");
  /* Found by fuzz_parse: a comment cut at its NUL did not print back the same. */
  lex_n(&l, "; a\0b\nx", 8);
  cr_assert_eq(l.t[0].kind, WAVE_TOK_ERROR);
  cr_assert_str_eq(l.t[0].message, "unexpected byte 0x00 in a comment");
  cr_assert_eq(l.t[0].col, 4);
  cr_assert_eq(l.t[1].kind, WAVE_TOK_NEWLINE, "lexing resumes at the end of the line");
  cr_assert_eq(l.t[2].kind, WAVE_TOK_IDENT);
}

/* The buffer is not NUL-terminated: nothing past len may be read. */
Test(lexer, stops_at_len) {
  static const char *const prefixes[] = {"r1", "0x1", "1.5e", "sr_lane_id", "@!p", "abc", ";x",
                                         "-", "r1.", "foo  "};
  for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
    char text[32];
    size_t n = strlen(prefixes[i]);
    memcpy(text, prefixes[i], n);
    memcpy(text + n, "2:hi_rest", 10);
    lexed l;
    lex_n(&l, text, n);
    wave_token last = l.t[l.n - 2];
    cr_assert_leq((size_t)(last.text - text) + last.len, n, "'%s' read past len", prefixes[i]);
    cr_assert_neq(last.kind, WAVE_TOK_LABEL, "'%s' saw the ':' past len", prefixes[i]);
  }
}

Test(lexer, long_words_are_quoted_short) {
  char text[400];
  memset(text, 'q', sizeof(text) - 1);
  memcpy(text, "src", 3);
  text[sizeof(text) - 1] = '\0';
  lexed l;
  lex(&l, text);
  cr_assert_eq(l.t[0].kind, WAVE_TOK_ERROR);
  cr_assert_lt(strlen(l.t[0].message), 120);
  cr_assert_eq(l.t[1].kind, WAVE_TOK_EOF, "the whole bad word is skipped");
  cr_assert_eq(wave_lex_quote_len(3), 3);
  cr_assert_eq(wave_lex_quote_len(1000), 64);
}
