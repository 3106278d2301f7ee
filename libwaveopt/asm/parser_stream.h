/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parser state and its token stream (parser_stream.c), shared by the statement parser
 * (parser.c) and the documentation-dialect forms (parser_docs.c). One wave_parser lives on the
 * stack of wave_parse_string; everything it owns outside the module arena is freed before that
 * call returns.
 */
#ifndef WAVE_PARSER_STREAM_H
#define WAVE_PARSER_STREAM_H

#include "asm/lexer.h"
#include "ir/code.h"
#include "waveopt/waveopt.h"


/* A label definition in the file's single namespace (docs/language.md "Labels and subroutines"). */
typedef struct wave_label_entry {
  const char *name;   /* arena copy, NUL-terminated */
  uint32_t len;
  uint32_t hash;
  wave_loc loc;
} wave_label_entry;

/* An IDENT operand to check once every label of the file is known. */
typedef struct wave_label_ref {
  const char *name;
  uint32_t len;
  uint32_t line, col;
  /* Set when the operand hangs off a structured keyword that takes none (`endif else`): a
   * defined label there is still an error, only a different one. */
  const char *owner;
} wave_label_ref;

typedef struct wave_parser {
  wave_module *module;
  wave_diags *diags;
  wave_lexer lexer;
  wave_token tok;             /* the current token; comments never appear here */
  wave_opcode_index opcodes;
  bool out_of_memory;

  wave_kernel *kernel;        /* the open kernel, NULL between kernels */
  wave_region *region;        /* where top-level statements of the open kernel go */
  wave_node **open;           /* open if/loop nodes, innermost last */
  size_t depth, open_cap;
  wave_stray_label *unplaced; /* first stray label still waiting for the kernel after it */

  char *leading;              /* whole-line comments waiting for the next statement */
  size_t leading_len, leading_cap;
  wave_token trailing;        /* a comment after a statement, attached at the end of its line */
  bool has_trailing;
  wave_code_line last_line; /* the statement that owns a trailing comment on its line */

  wave_label_entry *labels;   /* open-addressing hash table */
  size_t num_labels, labels_cap;
  wave_label_ref *refs;
  size_t num_refs, refs_cap;
} wave_parser;

/* ---- parser_stream.c --------------------------------------------------------------------- */

/* Moves to the next token, filing comments on the way. */
void wave_parser_advance(wave_parser *p);
void wave_parser_report(wave_parser *p, wave_severity severity, const char *flag, uint32_t line,
                        uint32_t col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define ERROR_AT(p, line, col, ...) \
  wave_parser_report(p, WAVE_SEV_ERROR, NULL, line, col, __VA_ARGS__)
#define NOTE_AT(p, line, col, ...) \
  wave_parser_report(p, WAVE_SEV_NOTE, NULL, line, col, __VA_ARGS__)

/* Reports an error at a token: its lexical error if it is one, else "expected WHAT". */
void wave_parser_expected(wave_parser *p, const wave_token *t, const char *what);
/* Records that memory ran out; returns false so callers can `return` it. */
bool wave_parser_out_of_memory(wave_parser *p);
/* The whole-line comments waiting for the next statement (arena copy), or NULL; clears them. */
const char *wave_parser_take_leading(wave_parser *p);
/* A statement's position at token t; comments are filled in by wave_parser_place_src once the
 * statement is kept. */
wave_src wave_parser_src_at(const wave_parser *p, const wave_token *t);
void wave_parser_place_src(wave_parser *p, wave_src *dst, const wave_src *src);
/* The same for an instruction. */
void wave_parser_place_instr(wave_parser *p, wave_instr *instr, const wave_src *src);
/* At a line end: the trailing comment goes to the last statement kept on its line. */
void wave_parser_end_of_line(wave_parser *p);

/* ---- parser_docs.c ----------------------------------------------------------------------- */

/* Reads a mnemonic at the current token (an IDENT), joining glued `.word` suffixes while the
 * joined name is an opcode (`icmp.lt`, `device_load.u32`), then an optional cache hint.
 * Reports unknown mnemonics, with a suggestion when one is close. */
bool wave_parse_mnemonic(wave_parser *p, wave_opcode *op, wave_cache_hint *hint);

/* Turns an INT or FLOAT token into an immediate for `slot` of `op`: mov_imm's value, or a
 * documentation-dialect immediate in a GPR-read slot (`iadd r0, r0, 1`). */
bool wave_parse_immediate(wave_parser *p, const wave_token *t, wave_opcode op, unsigned slot,
                          wave_operand *out);

/* Rewrites the documentation-dialect spellings whose IR form differs from the written one:
 * predicate logic on and/or/xor/not, `mov rD, sr_x`, atomics without scope or destination. */
void wave_normalize_docs(wave_opcode *op, wave_operand *ops, unsigned *num_operands);


#endif
