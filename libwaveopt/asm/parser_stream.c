/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parser's token stream: the next token with comments filed on the way (whole-line
 * comments wait for the next statement, a trailing one goes to the last statement of its line),
 * and reporting at a token. Both the statement parser (parser.c) and the documentation-dialect
 * forms (parser_docs.c) read tokens through here, so neither calls the other back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/parser_stream.h"

enum { MESSAGE_MAX = 512 };

/* ---- reporting ---------------------------------------------------------------------------- */

void wave_parser_report(wave_parser *p, wave_severity severity, const char *flag, uint32_t line,
                        uint32_t col, const char *fmt, ...) {
  char message[MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof(message), fmt, ap);
  va_end(ap);
  wave_loc loc = {p->module->file, line, col};
  wave_module_report(p->module, p->diags, severity, flag, loc, "%s", message);
}

/* Quotes a token for "found ..." in messages. */
static void describe(const wave_token *t, char *buf, size_t size) {
  if (t->kind == WAVE_TOK_NEWLINE)
    snprintf(buf, size, "end of line");
  else if (t->kind == WAVE_TOK_EOF)
    snprintf(buf, size, "end of file");
  else if (t->kind == WAVE_TOK_LABEL)
    snprintf(buf, size, "label '%.*s:'", wave_lex_quote_len(t->len), t->text);
  else
    snprintf(buf, size, "'%.*s'", wave_lex_quote_len(t->len), t->text);
}

void wave_parser_expected(wave_parser *p, const wave_token *t, const char *what) {
  if (t->kind == WAVE_TOK_ERROR) {
    ERROR_AT(p, t->line, t->col, "%s", t->message);
    return;
  }
  char found[96];
  describe(t, found, sizeof(found));
  ERROR_AT(p, t->line, t->col, "expected %s, found %s", what, found);
}

bool wave_parser_out_of_memory(wave_parser *p) {
  p->out_of_memory = true;
  return false;
}

/* ---- comments ----------------------------------------------------------------------------- */

static void add_leading(wave_parser *p, const wave_token *t) {
  size_t need = p->leading_len + t->len + 2;
  if (need > p->leading_cap) {
    size_t cap = p->leading_cap ? p->leading_cap : 256;
    while (cap < need)
      cap *= 2;
    char *grown = wave_mem_realloc(p->module->allocator, p->leading, cap);
    if (!grown) {
      wave_parser_out_of_memory(p);
      return;
    }
    p->leading = grown;
    p->leading_cap = cap;
  }
  if (p->leading_len)
    p->leading[p->leading_len++] = '\n';
  memcpy(p->leading + p->leading_len, t->text, t->len);
  p->leading_len += t->len;
}

const char *wave_parser_take_leading(wave_parser *p) {
  if (!p->leading_len)
    return NULL;
  const char *s = wave_module_strdup(p->module, p->leading, p->leading_len);
  if (!s)
    wave_parser_out_of_memory(p);
  p->leading_len = 0;
  return s;
}

void wave_parser_advance(wave_parser *p) {
  for (;;) {
    wave_lex_next(&p->lexer, &p->tok);
    if (p->tok.kind != WAVE_TOK_COMMENT)
      return;
    if (p->tok.line_start) {
      add_leading(p, &p->tok);
    } else {
      p->trailing = p->tok;
      p->has_trailing = true;
    }
  }
}

/* A statement's position; its comments are filled in by place_src once it is kept. */
wave_src wave_parser_src_at(const wave_parser *p, const wave_token *t) {
  wave_src src = {{p->module->file, t->line, t->col}, NULL, NULL};
  return src;
}

void wave_parser_place_src(wave_parser *p, wave_src *dst, const wave_src *src) {
  *dst = *src;
  dst->leading = wave_parser_take_leading(p);
  p->last_line = wave_code_src_line(dst);
}

void wave_parser_place_instr(wave_parser *p, wave_instr *instr, const wave_src *src) {
  wave_src placed = *src;
  placed.leading = wave_parser_take_leading(p);
  if (!wave_instr_set_origin(instr, &placed))
    wave_parser_out_of_memory(p);
  p->last_line = wave_code_instr_line(instr);
}

/* At a line end: the trailing comment goes to the last statement kept on its line. */
void wave_parser_end_of_line(wave_parser *p) {
  if (!p->has_trailing)
    return;
  p->has_trailing = false;
  if (!p->last_line.src && !p->last_line.instr)
    return;
  wave_src last = wave_code_line_origin(p->last_line);
  if (last.loc.line == p->trailing.line) {
    const char *comment = wave_module_strdup(p->module, p->trailing.text, p->trailing.len);
    if (!comment || !wave_code_line_set_comments(p->last_line, last.leading, comment))
      wave_parser_out_of_memory(p);
  }
}
