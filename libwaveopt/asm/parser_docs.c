/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The documentation dialect (docs/language.md "Documentation dialect") as the parser accepts it.
 * The guides and the spec write `icmp.lt`, `device_load.u32`, `iadd r0, r0, 1`, `and p2, p0, p1`,
 * `break !p1`, `atomic_add r2, r1, r0` without a scope. Here each is read into the IR form that
 * says what was meant: dotted mnemonics become the real opcode, predicate logic becomes the pseudo
 * opcodes, immediates stay immediates, atomics get their scope and an explicit empty
 * destination slot. wave_lower_docs_dialect later rewrites the pseudo forms into real code;
 * the verifier judges what remains.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "asm/parser_stream.h"
#include "support/text.h"

/* No mnemonic is this long: longer names are never joined or compared. */
enum { MAX_MNEMONIC = 64 };

static bool cache_hint_of(const wave_token *t, wave_cache_hint *hint) {
  static const struct {
    const char *name;
    wave_cache_hint hint;
  } hints[] = {
      {".cached", WAVE_HINT_CACHED},
      {".uncached", WAVE_HINT_UNCACHED},
      {".streaming", WAVE_HINT_STREAMING},
  };
  if (t->kind != WAVE_TOK_DIRECTIVE)
    return false;
  for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
    if (strlen(hints[i].name) == t->len && memcmp(hints[i].name, t->text, t->len) == 0) {
      *hint = hints[i].hint;
      return true;
    }
  }
  return false;
}

static bool is_scope_suffix(const wave_token *t) {
  for (int i = 0; i < 4; i++) {
    size_t n = strlen(wave_scope_names[i]);
    if (t->len == n + 1 && memcmp(t->text + 1, wave_scope_names[i], n) == 0)
      return true;
  }
  return false;
}

/* The closest mnemonic, when it is close enough to be a plausible typo. */
static const char *suggest(const char *name, size_t len) {
  wave_suggest s;
  wave_suggest_init(&s, name, len);
  for (int op = 0; op < WAVE_OP_COUNT; op++)
    wave_suggest_offer(&s, wave_opcode_table[op].mnemonic);
  return wave_suggestion(&s);
}

/* Reports the mnemonic at `base` as unknown. The glued suffixes still ahead were meant as part
 * of the name (`cmp.lt`): they are shown, and the suggestion is looked up with them joined. */
static void report_unknown(wave_parser *p, const wave_token *base) {
  char shown[2 * MAX_MNEMONIC], joined[2 * MAX_MNEMONIC];
  int n = snprintf(shown, sizeof(shown), "%.*s", wave_lex_quote_len(base->len), base->text);
  memcpy(joined, shown, (size_t)n + 1);
  wave_cache_hint ignored;
  while (p->tok.kind == WAVE_TOK_DIRECTIVE && p->tok.glued && !is_scope_suffix(&p->tok) &&
         !cache_hint_of(&p->tok, &ignored) && (size_t)n + p->tok.len < sizeof(shown)) {
    memcpy(shown + n, p->tok.text, p->tok.len);
    memcpy(joined + n, p->tok.text, p->tok.len);
    joined[n] = '_';
    n += (int)p->tok.len;
    shown[n] = joined[n] = '\0';
    wave_parser_advance(p);
  }
  const char *close = suggest(joined, (size_t)n);
  if (close)
    wave_parser_report(p, WAVE_SEV_ERROR, NULL, base->line, base->col,
                       "unknown instruction '%s'; did you mean '%s'?", shown, close);
  else
    wave_parser_report(p, WAVE_SEV_ERROR, NULL, base->line, base->col,
                       "unknown instruction '%s'", shown);
}

bool wave_parse_mnemonic(wave_parser *p, wave_opcode *op, wave_cache_hint *hint) {
  wave_token base = p->tok;
  char name[MAX_MNEMONIC];
  size_t len = base.len;
  bool fits = len < MAX_MNEMONIC;
  bool found = wave_opcode_index_find(&p->opcodes, base.text, base.len, op);
  if (fits)
    memcpy(name, base.text, len);
  *hint = WAVE_HINT_NONE;
  wave_parser_advance(p);
  /* `icmp.lt` -> icmp_lt, `device_load.u32` -> device_load_u32; the first suffix that does not
   * make a mnemonic is left for the operands (`fence_release.workgroup`). */
  while (fits && p->tok.kind == WAVE_TOK_DIRECTIVE && p->tok.glued &&
         !cache_hint_of(&p->tok, hint)) {
    size_t suffix = p->tok.len - 1, joined = len + 1 + suffix;
    wave_opcode candidate;
    if (joined >= MAX_MNEMONIC)
      break;
    name[len] = '_';
    memcpy(name + len + 1, p->tok.text + 1, suffix);
    if (!wave_opcode_index_find(&p->opcodes, name, joined, &candidate))
      break;
    *op = candidate;
    found = true;
    len = joined;
    wave_parser_advance(p);
  }
  if (!found) {
    report_unknown(p, &base);
    return false;
  }
  if (cache_hint_of(&p->tok, hint))
    wave_parser_advance(p);
  return true;
}

bool wave_parse_immediate(wave_parser *p, const wave_token *t, wave_opcode op, unsigned slot,
                          wave_operand *out) {
  char kind = wave_opcode_slot_kind(op, slot);
  int shown = wave_lex_quote_len(t->len);
  /* Operands past the shape are kept as written: the verifier reports the count. */
  if (kind != 'i' && kind != '\0' && !wave_opcode_accepts_docs_immediate(op, slot)) {
    wave_parser_report(p, WAVE_SEV_ERROR, NULL, t->line, t->col,
                       "expected %s, found immediate '%.*s'", wave_slot_kind_noun(kind), shown,
                       t->text);
    return false;
  }
  out->kind = WAVE_OPERAND_IMM;
  if (t->kind == WAVE_TOK_INT) {
    /* mov_imm's range (docs/language.md "Numbers"): -2^31 .. 2^32-1, negatives as two's
     * complement. */
    if (t->magnitude > (t->negative ? (uint64_t)INT32_MAX + 1 : (uint64_t)UINT32_MAX)) {
      wave_parser_report(p, WAVE_SEV_ERROR, NULL, t->line, t->col,
                         "immediate '%.*s' is out of range (-2147483648 to 4294967295)", shown,
                         t->text);
      return false;
    }
    out->value = t->negative ? 0u - (uint32_t)t->magnitude : (uint32_t)t->magnitude;
    out->imm_form = t->hex ? WAVE_IMM_HEX : t->negative ? WAVE_IMM_NEGATIVE : WAVE_IMM_DECIMAL;
    return true;
  }
  if (isinf(t->f32)) {
    wave_parser_report(p, WAVE_SEV_ERROR, NULL, t->line, t->col,
                       "floating-point literal '%.*s' is out of range for binary32", shown,
                       t->text);
    return false;
  }
  memcpy(&out->value, &t->f32, sizeof(out->value));
  out->imm_form = WAVE_IMM_FLOAT;
  if (op == WAVE_OP_MOV_IMM) {
    uint64_t bits64;
    memcpy(&bits64, &t->f64, sizeof(bits64));
    wave_parser_report(p, WAVE_SEV_WARNING, "toolchain", t->line, t->col,
                       "the upstream assembler stores float literal '%.*s' as 0x%08X (the low 32 "
                       "bits of its binary64 encoding), not as its binary32 bits 0x%08X",
                       shown, t->text, (unsigned)(uint32_t)bits64, (unsigned)out->value);
  }
  return true;
}

static wave_opcode predicate_form(wave_opcode op) {
  switch (op) {
  case WAVE_OP_AND: return WAVE_OP_PAND;
  case WAVE_OP_OR: return WAVE_OP_POR;
  case WAVE_OP_XOR: return WAVE_OP_PXOR;
  default: return WAVE_OP_PNOT;
  }
}

/* Upstream accepts an atomic with one operand fewer than its shape and reads it as having no
 * destination (docs/language.md "Atomics"); the docs also drop the scope of device atomics. The IR
 * keeps operands aligned with the shape's slots, so the omitted destination becomes an explicit
 * empty slot and the omitted scope becomes `.device`. */
static void complete_atomic(wave_opcode op, wave_operand *ops, unsigned *n) {
  unsigned slots = wave_opcode_num_slots(op);
  bool has_scope_slot = wave_opcode_slot_kind(op, slots - 1) == 'c';
  bool scoped = *n > 0 && ops[*n - 1].kind == WAVE_OPERAND_SCOPE;
  if (has_scope_slot && !scoped && (*n + 1 == slots || *n + 2 == slots))
    ops[(*n)++] = wave_scope_operand(WAVE_SCOPE_DEVICE);
  if (*n + 1 == slots) {
    memmove(ops + 1, ops, *n * sizeof(*ops));
    memset(&ops[0], 0, sizeof(ops[0]));
    ops[0].kind = WAVE_OPERAND_NONE;
    (*n)++;
  }
}

void wave_normalize_docs(wave_opcode *op, wave_operand *ops, unsigned *n) {
  switch (*op) {
  case WAVE_OP_AND:
  case WAVE_OP_OR:
  case WAVE_OP_XOR:
  case WAVE_OP_NOT:
    if (*n > 0 && ops[0].kind == WAVE_OPERAND_PRED)
      *op = predicate_form(*op);
    break;
  case WAVE_OP_MOV:
    if (*n == 2 && ops[1].kind == WAVE_OPERAND_SREG)
      *op = WAVE_OP_MOV_SR;
    break;
  default:
    if (wave_opcode_table[*op].category == WAVE_CAT_ATOMIC)
      complete_atomic(*op, ops, n);
    break;
  }
}
