/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The WAVE lexer (docs/language.md "Tokens", "Numbers" and "Registers"). It turns a byte buffer
 * into tokens one at a time, never reading outside [text, text + len): any byte sequence is safe
 * input. Problems come back as WAVE_TOK_ERROR tokens carrying a message and the exact column, so
 * that the parser decides how to report and recover.
 */
#ifndef WAVE_LEXER_H
#define WAVE_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


typedef enum wave_token_kind {
  WAVE_TOK_EOF,
  WAVE_TOK_NEWLINE,
  WAVE_TOK_COMMENT,   /* ';' or '#' to the end of the line; text trimmed at the right */
  WAVE_TOK_COMMA,
  WAVE_TOK_COLON,     /* only a ':' that does not end a label definition */
  WAVE_TOK_DIRECTIVE, /* '.' word: text includes the dot */
  WAVE_TOK_GUARD,     /* @pN or @!pN: value, negated */
  WAVE_TOK_GPR,       /* rN, rN.lo, rN.hi: value, half */
  WAVE_TOK_PRED,      /* pN: value */
  WAVE_TOK_NOT_PRED,  /* !pN (documentation dialect, `break !p1`): value */
  WAVE_TOK_SREG,      /* sr_*: value is the encoding index */
  WAVE_TOK_INT,       /* magnitude, negative, hex */
  WAVE_TOK_FLOAT,     /* f32, f64, negative */
  WAVE_TOK_IDENT,
  WAVE_TOK_LABEL,     /* IDENT followed by ':' on the same line; text is the name only */
  WAVE_TOK_ERROR,     /* message; col points at the offending character */
} wave_token_kind;

typedef struct wave_token {
  wave_token_kind kind;
  const char *text;   /* points into the lexed buffer */
  size_t len;
  uint32_t line, col; /* from 1; col counts bytes */
  bool line_start;    /* no other token precedes it on its line */
  bool glued;         /* no blank between it and the previous token */
  bool negated;
  bool negative;
  bool hex;
  uint8_t half;       /* wave_half */
  uint32_t value;
  uint64_t magnitude; /* absolute value of an integer literal */
  float f32;          /* a float literal rounded once to binary32 ... */
  double f64;         /* ... and to binary64 (the upstream assembler keeps its low word) */
  const char *message;
} wave_token;

typedef struct wave_lexer {
  const char *text;
  size_t len;
  size_t pos;
  size_t line_begin;  /* offset of the current line's first byte */
  uint32_t line;
  size_t prev_end;    /* end offset of the previous token, for `glued` */
  bool line_has_token;
  char message[160];
} wave_lexer;

void wave_lex_init(wave_lexer *lexer, const char *text, size_t len);
/* Steps over a UTF-8 byte order mark at the start of the text, which columns then do not
 * count (editors show none); returns whether there was one. Call right after wave_lex_init. */
bool wave_lex_skip_bom(wave_lexer *lexer);
/* Reads the next token; after WAVE_TOK_EOF it keeps returning WAVE_TOK_EOF. A token's message
 * stays valid until the next call. */
void wave_lex_next(wave_lexer *lexer, wave_token *token);

/* Bytes of a token's text worth quoting in a message: long names are cut. */
int wave_lex_quote_len(size_t len);


#endif
