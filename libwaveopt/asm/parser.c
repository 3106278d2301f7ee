/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The WAVE parser: tokens -> region tree, in one pass over the text.
 *
 * Statements are token-driven as in the upstream assembler (docs/language.md "Statements"): an
 * operand list ends at the first token that is not a comma, so several statements may share a
 * line. The open if/loop nodes live on an explicit heap stack, never on the C stack, so any nesting
 * depth parses in linear time. Labels are collected as they come and IDENT operands are
 * checked against them once the whole file is read (docs/language.md "Checking order").
 *
 * After an error the rest of the line is skipped; parsing stops after diags->max_errors
 * errors (20 unless the caller chose). The partial module is destroyed when anything failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asm/parser_stream.h"
#include "ir/code.h"
#include "ir/ir_internal.h"
#include "support/grow.h"

enum { DEFAULT_ERROR_LIMIT = 20 };

/* ---- labels ------------------------------------------------------------------------------- */

static wave_label_entry *find_label(const wave_parser *p, const char *name, size_t len,
                                    uint32_t hash) {
  if (!p->labels_cap)
    return NULL;
  size_t mask = p->labels_cap - 1;
  for (size_t i = hash & mask; p->labels[i].name; i = (i + 1) & mask) {
    wave_label_entry *e = &p->labels[i];
    if (e->hash == hash && e->len == len && memcmp(e->name, name, len) == 0)
      return e;
  }
  return NULL;
}

static bool grow_labels(wave_parser *p) {
  size_t cap = p->labels_cap ? p->labels_cap * 2 : 64;
  wave_label_entry *table = wave_mem_calloc(p->module->allocator, cap, sizeof(*table));
  if (!table)
    return wave_parser_out_of_memory(p);
  for (size_t i = 0; i < p->labels_cap; i++) {
    if (!p->labels[i].name)
      continue;
    size_t j = p->labels[i].hash & (cap - 1);
    while (table[j].name)
      j = (j + 1) & (cap - 1);
    table[j] = p->labels[i];
  }
  wave_mem_free(p->module->allocator, p->labels);
  p->labels = table;
  p->labels_cap = cap;
  return true;
}

/* Enters the label of token t; returns its arena name, or NULL after a duplicate (reported)
 * or when memory ran out. */
static const char *define_label(wave_parser *p, const wave_token *t) {
  uint32_t hash = wave_hash_name(t->text, t->len);
  wave_label_entry *prev = find_label(p, t->text, t->len, hash);
  if (prev) {
    ERROR_AT(p, t->line, t->col, "duplicate label '%.*s'", wave_lex_quote_len(t->len), t->text);
    NOTE_AT(p, prev->loc.line, prev->loc.col, "previous definition of '%.*s' is here",
            wave_lex_quote_len(t->len), t->text);
    return NULL;
  }
  if ((p->num_labels + 1) * 2 > p->labels_cap && !grow_labels(p))
    return NULL;
  const char *name = wave_module_strdup(p->module, t->text, t->len);
  if (!name) {
    wave_parser_out_of_memory(p);
    return NULL;
  }
  size_t i = hash & (p->labels_cap - 1);
  while (p->labels[i].name)
    i = (i + 1) & (p->labels_cap - 1);
  wave_label_entry e = {name, (uint32_t)t->len, hash, {p->module->file, t->line, t->col}};
  p->labels[i] = e;
  p->num_labels++;
  return name;
}

static bool add_ref(wave_parser *p, const char *name, const wave_token *t) {
  if (p->num_refs == p->refs_cap) {
    size_t cap = p->refs_cap ? p->refs_cap * 2 : 64;
    wave_label_ref *grown = wave_mem_realloc(p->module->allocator, p->refs, cap * sizeof(*grown));
    if (!grown)
      return wave_parser_out_of_memory(p);
    p->refs = grown;
    p->refs_cap = cap;
  }
  wave_label_ref ref = {name, (uint32_t)t->len, t->line, t->col, NULL};
  p->refs[p->num_refs++] = ref;
  return true;
}

static bool error_limit_reached(const wave_parser *p) {
  return p->diags->max_errors && p->diags->num_errors >= p->diags->max_errors;
}

static void resolve_labels(wave_parser *p) {
  for (size_t i = 0; i < p->num_refs && !error_limit_reached(p); i++) {
    const wave_label_ref *r = &p->refs[i];
    if (!find_label(p, r->name, r->len, wave_hash_name(r->name, r->len)))
      ERROR_AT(p, r->line, r->col, "undefined label '%.*s'", wave_lex_quote_len(r->len), r->name);
    else if (r->owner)
      ERROR_AT(p, r->line, r->col, "'%s' takes no operands", r->owner);
  }
}

/* ---- the open if/loop stack --------------------------------------------------------------- */

static wave_node *innermost(const wave_parser *p) {
  return p->depth ? p->open[p->depth - 1] : NULL;
}

static wave_node_list *current_list(const wave_parser *p) {
  wave_node *top = innermost(p);
  if (!top)
    return &p->region->body;
  if (wave_node_kind_of(top) == WAVE_NODE_LOOP)
    return wave_loop_body(top);
  return wave_if_has_else(top) ? wave_if_else(top) : wave_if_then(top);
}

static bool push_open(wave_parser *p, wave_node *node) {
  if (p->depth == p->open_cap) {
    size_t cap = p->open_cap ? p->open_cap * 2 : 32;
    wave_node **grown = wave_mem_realloc(p->module->allocator, p->open, cap * sizeof(*grown));
    if (!grown)
      return wave_parser_out_of_memory(p);
    p->open = grown;
    p->open_cap = cap;
  }
  p->open[p->depth++] = node;
  return true;
}

static const char *construct_name(const wave_node *node) {
  return wave_node_kind_of(node) == WAVE_NODE_LOOP ? "loop" : "if";
}

static const wave_src *opener_src(const wave_node *node) {
  return wave_node_kind_of(node) == WAVE_NODE_LOOP ? wave_code_node_src(node, WAVE_LINE_LOOP)
                                                   : wave_code_node_src(node, WAVE_LINE_IF);
}

/* Every construct still open when its kernel ends is an error at its opening keyword. */
static void close_open(wave_parser *p, const char *before) {
  for (size_t i = 0; i < p->depth && !error_limit_reached(p); i++) {
    const wave_src *src = opener_src(p->open[i]);
    ERROR_AT(p, src->loc.line, src->loc.col, "'%s' is not closed before %s",
             construct_name(p->open[i]), before);
  }
  p->depth = 0;
}

/* ---- statements --------------------------------------------------------------------------- */

static bool token_is(const wave_token *t, const char *s) {
  size_t n = strlen(s);
  return t->len == n && memcmp(t->text, s, n) == 0;
}

static bool scope_word(const char *s, size_t len, uint32_t *scope) {
  for (uint32_t i = 0; i < 4; i++) {
    if (strlen(wave_scope_names[i]) == len && memcmp(wave_scope_names[i], s, len) == 0) {
      *scope = i;
      return true;
    }
  }
  return false;
}

static bool parse_label(wave_parser *p) {
  wave_token t = p->tok;
  wave_src src = wave_parser_src_at(p, &t);
  const char *name = define_label(p, &t);
  if (!name)
    return false;
  wave_parser_advance(p);
  if (!p->kernel) {
    wave_stray_label *stray = wave_module_alloc(p->module, sizeof(*stray));
    if (!stray)
      return wave_parser_out_of_memory(p);
    stray->name = name;
    wave_parser_place_src(p, &stray->src, &src);
    if (p->module->last_stray)
      p->module->last_stray->next = stray;
    else
      p->module->first_stray = stray;
    p->module->last_stray = stray;
    if (!p->unplaced)
      p->unplaced = stray;
    return true;
  }
  if (p->depth) {
    ERROR_AT(p, t.line, t.col,
             "label '%s' inside an open '%s': subroutines must start at the top level of a kernel",
             name, construct_name(innermost(p)));
    return false;
  }
  wave_region *region = wave_region_create(p->kernel, name);
  if (!region)
    return wave_parser_out_of_memory(p);
  wave_parser_place_src(p, &region->label_src, &src);
  p->region = region;
  return true;
}

/* Directive arguments follow the immediate rule: -2^31 .. 2^32-1, negatives wrap (docs/language.md
 * "Directives"). */
static bool directive_int(wave_parser *p, const char *directive, uint32_t *out) {
  const wave_token *t = &p->tok;
  if (t->kind != WAVE_TOK_INT) {
    char what[64];
    snprintf(what, sizeof(what), "an integer after '%s'", directive);
    wave_parser_expected(p, t, what);
    return false;
  }
  if (t->magnitude > (t->negative ? (uint64_t)INT32_MAX + 1 : (uint64_t)UINT32_MAX)) {
    ERROR_AT(p, t->line, t->col, "value '%.*s' of '%s' is out of range", wave_lex_quote_len(t->len),
             t->text, directive);
    return false;
  }
  *out = t->negative ? (uint32_t)(0u - (uint32_t)t->magnitude) : (uint32_t)t->magnitude;
  wave_parser_advance(p);
  return true;
}

static bool parse_kernel(wave_parser *p, const wave_src *src) {
  if (p->tok.kind != WAVE_TOK_IDENT) {
    wave_parser_expected(p, &p->tok, "a kernel name after '.kernel'");
    return false;
  }
  if (p->kernel) {
    /* Recover as if the missing '.end' had been there, so that the rest of the file still
     * parses against the right kernel. */
    ERROR_AT(p, src->loc.line, src->loc.col,
             "kernels cannot nest: kernel '%s' is not closed with '.end'", p->kernel->name);
    p->depth = 0;
  }
  const char *name = wave_module_strdup(p->module, p->tok.text, p->tok.len);
  wave_kernel *kernel = name ? wave_kernel_create(p->module, name) : NULL;
  if (!kernel)
    return wave_parser_out_of_memory(p);
  wave_parser_place_src(p, &kernel->kernel_src, src);
  for (wave_stray_label *s = p->unplaced; s; s = s->next)
    s->before = kernel;
  p->unplaced = NULL;
  p->kernel = kernel;
  p->region = kernel->first_region;
  wave_parser_advance(p);
  return true;
}

static bool parse_end(wave_parser *p, const wave_src *src) {
  if (!p->kernel) {
    ERROR_AT(p, src->loc.line, src->loc.col, "'.end' without an open kernel");
    return false;
  }
  close_open(p, "'.end'");
  wave_parser_place_src(p, &p->kernel->end_src, src);
  p->kernel = NULL;
  return true;
}

/* `.workgroup_size X, Y, Z`, or the documentation dialect's `.workgroup_size X` (= X, 1, 1). */
static bool parse_workgroup_size(wave_parser *p, uint32_t size[3]) {
  size[1] = size[2] = 1;
  if (!directive_int(p, ".workgroup_size", &size[0]))
    return false;
  if (p->tok.kind != WAVE_TOK_COMMA)
    return true;
  wave_parser_advance(p);
  if (!directive_int(p, ".workgroup_size", &size[1]))
    return false;
  if (p->tok.kind != WAVE_TOK_COMMA) {
    wave_parser_expected(p, &p->tok, "',' and the third value of '.workgroup_size'");
    return false;
  }
  wave_parser_advance(p);
  return directive_int(p, ".workgroup_size", &size[2]);
}

/* .registers, .local_memory and .workgroup_size: they set the most recently opened kernel,
 * even after its .end (docs/language.md "Directives"). */
static bool parse_metadata(wave_parser *p, const wave_token *d, const wave_src *src) {
  bool workgroup = token_is(d, ".workgroup_size"), registers = token_is(d, ".registers");
  uint32_t value = 0, size[3];
  if (!(workgroup ? parse_workgroup_size(p, size)
                  : directive_int(p, registers ? ".registers" : ".local_memory", &value)))
    return false;
  wave_kernel *k = p->module->last_kernel;
  if (!k) {
    wave_parser_report(p, WAVE_SEV_WARNING, NULL, d->line, d->col,
                       "'%.*s' before the first '.kernel' is ignored", (int)d->len, d->text);
    p->last_line = (wave_code_line){NULL, NULL};
    return true;
  }
  if (registers) {
    k->registers = value;
    k->has_registers = true;
    wave_parser_place_src(p, &k->registers_src, src);
  } else if (!workgroup) {
    k->local_memory = value;
    k->has_local_memory = true;
    wave_parser_place_src(p, &k->local_memory_src, src);
  } else {
    memcpy(k->workgroup_size, size, sizeof(size));
    k->has_workgroup_size = true;
    wave_parser_place_src(p, &k->workgroup_size_src, src);
  }
  return true;
}

static bool parse_directive(wave_parser *p) {
  wave_token d = p->tok;
  wave_src src = wave_parser_src_at(p, &d);
  wave_parser_advance(p);
  if (token_is(&d, ".kernel"))
    return parse_kernel(p, &src);
  if (token_is(&d, ".end"))
    return parse_end(p, &src);
  if (token_is(&d, ".registers") || token_is(&d, ".local_memory") ||
      token_is(&d, ".workgroup_size"))
    return parse_metadata(p, &d, &src);
  ERROR_AT(p, d.line, d.col, "unknown directive '%.*s'", wave_lex_quote_len(d.len), d.text);
  return false;
}

/* ---- instructions ------------------------------------------------------------------------- */

static bool starts_operand(wave_token_kind k) {
  switch (k) {
  case WAVE_TOK_GPR: case WAVE_TOK_PRED: case WAVE_TOK_NOT_PRED: case WAVE_TOK_SREG:
  case WAVE_TOK_INT: case WAVE_TOK_FLOAT: case WAVE_TOK_IDENT: case WAVE_TOK_DIRECTIVE:
    return true;
  default:
    return false;
  }
}

/* Tokens that can only be operands: seen where a statement would start, a comma is missing. */
static bool only_operand(wave_token_kind k) {
  return starts_operand(k) && k != WAVE_TOK_IDENT && k != WAVE_TOK_DIRECTIVE;
}

static bool parse_operand(wave_parser *p, wave_opcode op, unsigned slot, wave_operand *o) {
  const wave_token *t = &p->tok;
  memset(o, 0, sizeof(*o));
  o->col = t->col;
  o->value = t->value;
  switch (t->kind) {
  case WAVE_TOK_GPR:
    o->kind = WAVE_OPERAND_GPR;
    o->half = t->half;
    return true;
  case WAVE_TOK_PRED:
    o->kind = WAVE_OPERAND_PRED;
    return true;
  case WAVE_TOK_NOT_PRED:
    if (op != WAVE_OP_BREAK && op != WAVE_OP_CONTINUE) {
      ERROR_AT(p, t->line, t->col, "'!' is only allowed on the predicate of 'break' or 'continue'");
      return false;
    }
    o->kind = WAVE_OPERAND_PRED;
    o->negated = 1;
    return true;
  case WAVE_TOK_SREG:
    o->kind = WAVE_OPERAND_SREG;
    return true;
  case WAVE_TOK_INT:
  case WAVE_TOK_FLOAT:
    return wave_parse_immediate(p, t, op, slot, o);
  case WAVE_TOK_IDENT:
    if (scope_word(t->text, t->len, &o->value)) {
      o->kind = WAVE_OPERAND_SCOPE;
      return true;
    }
    o->kind = WAVE_OPERAND_LABEL;
    o->label = wave_module_strdup(p->module, t->text, t->len);
    return o->label ? add_ref(p, o->label, t) : wave_parser_out_of_memory(p);
  case WAVE_TOK_DIRECTIVE:
    if (scope_word(t->text + 1, t->len - 1, &o->value)) {
      o->kind = WAVE_OPERAND_SCOPE;
      return true;
    }
    ERROR_AT(p, t->line, t->col, "expected scope specifier, found '%.*s'",
             wave_lex_quote_len(t->len), t->text);
    return false;
  default:
    wave_parser_expected(p, t, "an operand");
    return false;
  }
}

/* operand { ',' operand }, all on the statement's line. */
static bool parse_operands(wave_parser *p, wave_opcode op, wave_operand *ops, unsigned *n) {
  *n = 0;
  if (p->tok.kind == WAVE_TOK_ERROR) {
    wave_parser_expected(p, &p->tok, "an operand");
    return false;
  }
  if (!starts_operand(p->tok.kind))
    return true;
  for (;;) {
    if (*n == WAVE_MAX_OPERANDS) {
      ERROR_AT(p, p->tok.line, p->tok.col, "too many operands (at most %d)", WAVE_MAX_OPERANDS);
      return false;
    }
    if (!parse_operand(p, op, *n, &ops[*n]))
      return false;
    (*n)++;
    wave_parser_advance(p);
    if (p->tok.kind != WAVE_TOK_COMMA)
      break;
    wave_token comma = p->tok;
    wave_parser_advance(p);
    if (!starts_operand(p->tok.kind)) {
      if (p->tok.kind == WAVE_TOK_ERROR)
        wave_parser_expected(p, &p->tok, "an operand");
      else
        ERROR_AT(p, comma.line, comma.col, "expected an operand after ','");
      return false;
    }
  }
  if (only_operand(p->tok.kind)) {
    ERROR_AT(p, p->tok.line, p->tok.col, "expected ',' between operands");
    return false;
  }
  return true;
}

static bool append_node(wave_parser *p, wave_node *node) {
  if (!node)
    return wave_parser_out_of_memory(p);
  wave_node_list_append(current_list(p), node);
  return wave_node_kind_of(node) == WAVE_NODE_BLOCK || push_open(p, node);
}

/* The innermost open construct must be an `if` (want_if) or a `loop`; else a stray keyword. */
static wave_node *expect_open(wave_parser *p, const wave_src *src, const char *keyword,
                              bool want_if) {
  wave_node *top = innermost(p);
  if (top && (wave_node_kind_of(top) == WAVE_NODE_IF) == want_if)
    return top;
  ERROR_AT(p, src->loc.line, src->loc.col, "'%s' without a matching '%s'", keyword,
           want_if ? "if" : "loop");
  if (top)
    NOTE_AT(p, opener_src(top)->loc.line, opener_src(top)->loc.col,
            "the innermost open construct is this '%s'", construct_name(top));
  return NULL;
}

/* if/else/endif/loop/endloop become tree structure, not instructions. */
static bool parse_structured(wave_parser *p, wave_opcode op, const wave_operand *ops, unsigned n,
                             const wave_src *src, size_t first_ref) {
  const char *keyword = wave_opcode_table[op].mnemonic;
  if (op == WAVE_OP_IF) {
    if (n != 1 || ops[0].kind != WAVE_OPERAND_PRED) {
      uint32_t col = n == 0 ? src->loc.col : n == 1 ? ops[0].col : ops[1].col;
      ERROR_AT(p, src->loc.line, col, "'if' takes exactly one predicate register operand");
      return false;
    }
    wave_node *node = wave_if_create(p->module, ops[0]);
    if (!append_node(p, node))
      return false;
    wave_parser_place_src(p, wave_code_node_src(node, WAVE_LINE_IF), src);
    return true;
  }
  /* `endif else` reads `else` as an operand; like upstream, it is first a label reference. */
  for (unsigned i = 0; i < n; i++) {
    if (ops[i].kind != WAVE_OPERAND_LABEL) {
      ERROR_AT(p, src->loc.line, ops[i].col, "'%s' takes no operands", keyword);
      return false;
    }
  }
  for (size_t i = first_ref; i < p->num_refs; i++)
    p->refs[i].owner = keyword;
  wave_node *top;
  switch (op) {
  case WAVE_OP_LOOP: {
    wave_node *node = wave_loop_create(p->module);
    if (!append_node(p, node))
      return false;
    wave_parser_place_src(p, wave_code_node_src(node, WAVE_LINE_LOOP), src);
    return true;
  }
  case WAVE_OP_ELSE:
    if (!(top = expect_open(p, src, keyword, true)))
      return false;
    if (wave_if_has_else(top)) {
      ERROR_AT(p, src->loc.line, src->loc.col, "second 'else' for the same 'if'");
      NOTE_AT(p, wave_node_origin(top, WAVE_LINE_ELSE).loc.line,
              wave_node_origin(top, WAVE_LINE_ELSE).loc.col, "the first 'else' is here");
      return false;
    }
    wave_if_set_has_else(top, true);
    wave_parser_place_src(p, wave_code_node_src(top, WAVE_LINE_ELSE), src);
    return true;
  case WAVE_OP_ENDIF:
    if (!(top = expect_open(p, src, keyword, true)))
      return false;
    p->depth--;
    wave_parser_place_src(p, wave_code_node_src(top, WAVE_LINE_ENDIF), src);
    return true;
  default:
    if (!(top = expect_open(p, src, keyword, false)))
      return false;
    p->depth--;
    wave_parser_place_src(p, wave_code_node_src(top, WAVE_LINE_ENDLOOP), src);
    return true;
  }
}

static bool is_structured_keyword(wave_opcode op) {
  return op == WAVE_OP_IF || op == WAVE_OP_ELSE || op == WAVE_OP_ENDIF || op == WAVE_OP_LOOP ||
         op == WAVE_OP_ENDLOOP;
}

static bool parse_instruction(wave_parser *p) {
  wave_token first = p->tok;
  wave_src src = wave_parser_src_at(p, &first);
  int guard = WAVE_NO_GUARD;
  bool guard_negated = false;
  if (first.kind == WAVE_TOK_GUARD) {
    guard = (int)first.value;
    guard_negated = first.negated;
    wave_parser_advance(p);
    if (p->tok.kind != WAVE_TOK_IDENT) {
      wave_parser_expected(p, &p->tok, "an instruction after the guard");
      return false;
    }
  }
  wave_opcode op;
  wave_cache_hint hint;
  if (!wave_parse_mnemonic(p, &op, &hint))
    return false;
  /* wave-dis writes a last-slot scope as a suffix of the mnemonic (`atomic_add.device r10,
   * r4`, where wave-asm reads `atomic_add r10, r4, .device`): read as that last operand, so
   * that a disassembled kernel parses. A scope in the first slot (`fence_release.workgroup`)
   * is the operand list itself. */
  wave_token suffix = p->tok;
  uint32_t suffix_scope = 0;
  unsigned slots = wave_opcode_num_slots(op);
  bool scope_suffix = suffix.kind == WAVE_TOK_DIRECTIVE && suffix.glued && slots > 1 &&
                      wave_opcode_slot_kind(op, slots - 1) == 'c' &&
                      scope_word(suffix.text + 1, suffix.len - 1, &suffix_scope);
  if (scope_suffix)
    wave_parser_advance(p);
  size_t first_ref = p->num_refs;
  wave_operand ops[WAVE_MAX_OPERANDS];
  unsigned n;
  bool ok = parse_operands(p, op, ops, &n);
  if (ok && scope_suffix) {
    if (n == WAVE_MAX_OPERANDS) {
      ERROR_AT(p, suffix.line, suffix.col, "too many operands (at most %d)", WAVE_MAX_OPERANDS);
      ok = false;
    } else {
      ops[n] = wave_operand_of(WAVE_OPERAND_SCOPE, suffix_scope, NULL);
      ops[n++].col = suffix.col;
    }
  }
  if (ok && !p->kernel) {
    ERROR_AT(p, first.line, first.col, "instruction outside kernel");
    ok = false;
  }
  if (ok && guard == 0 && !guard_negated) {
    wave_parser_report(p, WAVE_SEV_WARNING, "toolchain", first.line, first.col,
                       "'@p0' is not a guard: every real tool runs '%s' unguarded",
                       wave_opcode_table[op].mnemonic);
    guard = WAVE_NO_GUARD;
  }
  if (ok && is_structured_keyword(op)) {
    /* A guarded opener is still opened (and a guarded closer still closes), so that its
     * partner does not draw a second, cascading error. */
    if (guard != WAVE_NO_GUARD)
      ERROR_AT(p, first.line, first.col, "guard on a structured control-flow instruction");
    ok = parse_structured(p, op, ops, n, &src, first_ref) && guard == WAVE_NO_GUARD;
    if (!ok)
      p->num_refs = first_ref;
    return ok;
  }
  if (!ok) {
    p->num_refs = first_ref;
    return false;
  }
  wave_normalize_docs(&op, ops, &n);
  wave_instr *instr = wave_instr_create(p->module, op, guard, guard_negated, n, ops);
  wave_node *block = instr ? wave_node_list_tail_block(p->module, current_list(p)) : NULL;
  if (!block)
    return wave_parser_out_of_memory(p);
  wave_instr_set_cache_hint(instr, (uint8_t)hint);
  wave_parser_place_instr(p, instr, &src);
  wave_block_append(block, instr);
  return true;
}

static bool parse_statement(wave_parser *p) {
  switch (p->tok.kind) {
  case WAVE_TOK_LABEL:
    return parse_label(p);
  case WAVE_TOK_DIRECTIVE:
    return parse_directive(p);
  case WAVE_TOK_GUARD:
  case WAVE_TOK_IDENT:
    return parse_instruction(p);
  default:
    wave_parser_expected(p, &p->tok, "an instruction, a label or a directive");
    return false;
  }
}

static void skip_line(wave_parser *p) {
  while (p->tok.kind != WAVE_TOK_NEWLINE && p->tok.kind != WAVE_TOK_EOF)
    wave_parser_advance(p);
}

static bool must_stop(const wave_parser *p) { return p->out_of_memory || error_limit_reached(p); }

static void parse_statements(wave_parser *p) {
  wave_parser_advance(p);
  while (!must_stop(p)) {
    if (p->tok.kind == WAVE_TOK_EOF) {
      wave_parser_end_of_line(p);
      return;
    }
    if (p->tok.kind == WAVE_TOK_NEWLINE) {
      wave_parser_end_of_line(p);
      wave_parser_advance(p);
      continue;
    }
    /* Everything before this line is parsed and copied out of the text. */
    wave_source_release(&p->module->source, p->lexer.line_begin);
    if (!parse_statement(p))
      skip_line(p);
  }
}

static void finish(wave_parser *p) {
  if (p->kernel) {
    const wave_src *src = &p->kernel->kernel_src;
    ERROR_AT(p, src->loc.line, src->loc.col, "kernel '%s' is not closed: missing '.end'",
             p->kernel->name);
    close_open(p, "the end of the file");
  }
  resolve_labels(p);
  p->module->trailing = wave_parser_take_leading(p);
}

/* ---- entry points ------------------------------------------------------------------------- */

static void report_plain(wave_diags *diags, const char *file, const char *message) {
  wave_loc loc = {file, 0, 0};
  wave_diag_report(diags, WAVE_SEV_ERROR, NULL, loc, NULL, 0, "%s", message);
}

/* A module for `filename` whose source is text[0..len): a copy, or `taken` itself (text, from
 * malloc, handed over), which `fd` (or -1) can read again. NULL, reported, when the text is
 * too large or memory runs out; taken text is freed and fd closed then. */
static wave_module *module_for(const char *text, size_t len, char *taken, int fd,
                               const char *filename, wave_diags *diags,
                               const wave_allocator *allocator) {
  wave_module *module = NULL;
  /* Line starts and columns are 32-bit. */
  if (len >= UINT32_MAX)
    report_plain(diags, filename, "input is too large (4 GiB at most)");
  else
    module = wave_module_create_with(filename, allocator);
  if (module && taken && wave_module_adopt(module, taken)) {
    module->source.text = taken;
    module->source.fd = fd;
    taken = NULL;
    fd = -1;
  } else if (module && !taken) {
    module->source.text = wave_module_strdup(module, text ? text : "", len);
  }
  wave_mem_free(NULL, taken); /* handed over but not kept */
  if (fd >= 0)
    close(fd);
  if (module)
    module->source.len = len;
  if (!module && len < UINT32_MAX)
    report_plain(diags, filename, "out of memory");
  if (module && (!module->source.text || !wave_source_index(&module->source))) {
    wave_module_destroy(module);
    module = NULL;
    report_plain(diags, filename, "out of memory");
  }
  return module;
}

static wave_module *parse_module(wave_module *module, wave_diags *diags);

wave_module *wave_parse_string(const char *text, size_t len, const char *filename,
                               wave_diags *diags) {
  return wave_parse_string_with(text, len, filename, diags, NULL);
}

wave_module *wave_parse_string_with(const char *text, size_t len, const char *filename,
                                    wave_diags *diags, const wave_allocator *allocator) {
  if (!text)
    len = 0;
  wave_module *module =
      module_for(text, len, NULL, -1, filename ? filename : "<input>", diags, allocator);
  return module ? parse_module(module, diags) : NULL;
}

wave_module *wave_parse_owned(char *text, size_t len, const char *filename, wave_diags *diags) {
  wave_module *module =
      module_for(text, len, text, -1, filename ? filename : "<input>", diags, NULL);
  return module ? parse_module(module, diags) : NULL;
}

static wave_module *parse_module(wave_module *module, wave_diags *diags) {
  size_t len = module->source.len;
  const char *filename = module->file;
  wave_parser *p = wave_mem_calloc(module->allocator, 1, sizeof(*p));
  if (!p) {
    report_plain(diags, filename, "out of memory");
    wave_module_destroy(module);
    return NULL;
  }
  p->module = module;
  p->diags = diags;
  wave_lex_init(&p->lexer, module->source.text, len);
  wave_opcode_index_init(&p->opcodes);

  size_t errors_before = diags->num_errors;
  size_t caller_limit = diags->max_errors;
  if (!caller_limit)
    diags->max_errors = errors_before + DEFAULT_ERROR_LIMIT;
  /* Some editors write one; wave-asm rejects the file then, and what waveopt prints has none. */
  if (wave_lex_skip_bom(&p->lexer))
    wave_parser_report(p, WAVE_SEV_WARNING, "toolchain", 1, 1,
                       "the file starts with a UTF-8 byte order mark, which wave-asm rejects; "
                       "it is read as if absent");
  parse_statements(p);
  if (!must_stop(p))
    finish(p);
  if (p->out_of_memory)
    report_plain(diags, module->file, "out of memory");
  else if (error_limit_reached(p))
    wave_parser_report(p, WAVE_SEV_NOTE, NULL, 0, 0, "too many errors; stopping");
  diags->max_errors = caller_limit;

  wave_mem_free(module->allocator, p->open);
  wave_mem_free(module->allocator, p->leading);
  wave_mem_free(module->allocator, p->labels);
  wave_mem_free(module->allocator, p->refs);
  wave_mem_free(module->allocator, p);
  if (diags->num_errors > errors_before) {
    wave_module_destroy(module);
    return NULL;
  }
  return module;
}

char *wave_read_stream(FILE *in, size_t *len, int *err) {
  size_t cap = 64 * 1024, n = 0;
  /* A regular file is read into a buffer of its size at once, advised as huge pages before
   * the read fills it: growing a buffer by doubling touches every page of each larger copy,
   * which on a file of tens of megabytes cost more system time than parsing it. */
  struct stat st;
  if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uintmax_t)st.st_size < SIZE_MAX / 4)
    cap = (size_t)st.st_size + 2;
  *err = 0;
  *len = 0;
  /* The caller's buffer, from malloc (waveopt.h). */
  char *text = wave_mem_alloc(NULL, cap);
  if (text)
    wave_advise_huge(text, cap);
  while (text) {
    /* Room for the NUL wave_parse_owned wants after the text. */
    if (n + 1 >= cap) {
      char *grown = cap <= SIZE_MAX / 2 ? wave_realloc_huge(NULL, text, cap, 2 * cap) : NULL;
      if (!grown)
        break;
      text = grown;
      cap *= 2;
    }
    size_t got = fread(text + n, 1, cap - n - 1, in);
    n += got;
    if (got == 0) {
      if (!ferror(in)) {
        text[n] = '\0';
        *len = n;
        return text;
      }
      *err = errno ? errno : EIO;
      wave_mem_free(NULL, text);
      return NULL;
    }
  }
  wave_mem_free(NULL, text);
  *err = ENOMEM;
  return NULL;
}

/* Text from a file at least this large is read again for quotes rather than kept whole: a
 * smaller one costs less memory than the descriptor kept for it is worth. */
#define REREAD_MIN ((size_t)4 << 20)

wave_module *wave_parse_stream(FILE *in, const char *filename, wave_diags *diags, int *err) {
  /* Offsets in the text are offsets in the file only when it is read from its start. */
  bool from_start = ftello(in) == 0;
  size_t len = 0;
  char *text = wave_read_stream(in, &len, err);
  if (!text)
    return NULL;
  int fd = -1;
  struct stat st;
  if (from_start && len >= REREAD_MIN && fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) &&
      (uintmax_t)st.st_size == len)
    fd = fcntl(fileno(in), F_DUPFD_CLOEXEC, 0);
  wave_module *module =
      module_for(text, len, text, fd, filename ? filename : "<input>", diags, NULL);
  return module ? parse_module(module, diags) : NULL;
}

wave_module *wave_parse_file(const char *path, wave_diags *diags) {
  FILE *f = fopen(path, "rb");
  int err = f ? 0 : errno;
  wave_module *module = f ? wave_parse_stream(f, path, diags, &err) : NULL;
  if (f)
    fclose(f);
  if (err) {
    char reason[128], message[512];
    if (strerror_r(err, reason, sizeof(reason)) != 0)
      snprintf(reason, sizeof(reason), "error %d", err);
    snprintf(message, sizeof(message), "cannot %s '%s': %s", f ? "read" : "open", path, reason);
    report_plain(diags, NULL, message);
  }
  return module;
}
