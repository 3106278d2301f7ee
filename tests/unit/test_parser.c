/* SPDX-License-Identifier: Apache-2.0 */
/* The parser: every mnemonic, every error class at its exact position, the region tree,
 * comments, the documentation-dialect normalizations, deep nesting and error recovery. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/module.h"
#include "test_util.h"
#include "waveopt/waveopt.h"

static wave_module *parse(wave_diags *d, const char *text) {
  wave_diags_init(d);
  return wave_parse_string(text, strlen(text), "t.wave", d);
}

/* Parses text that must be accepted without any diagnostic. */
static wave_module *parse_ok(const char *text) { return tu_parse_ok(text, "t.wave", true); }

static const wave_diag *first_of(const wave_diags *d, wave_severity severity) {
  for (size_t i = 0; i < d->count; i++)
    if (d->items[i].severity == severity)
      return &d->items[i];
  return NULL;
}

/* The first error of `text` is `message` (a substring) at line:col, and parsing fails. */
static void expect_error(const char *text, uint32_t line, uint32_t col, const char *message) {
  wave_diags d;
  wave_module *m = parse(&d, text);
  const wave_diag *e = first_of(&d, WAVE_SEV_ERROR);
  if (!e || e->line != line || e->col != col || !strstr(e->message, message))
    tu_log_diags(&d);
  cr_assert_null(m, "accepted:\n%s", text);
  cr_assert_not_null(e, "no error for:\n%s", text);
  cr_assert_eq(e->line, line, "line %u, want %u for:\n%s", e->line, line, text);
  cr_assert_eq(e->col, col, "column %u, want %u for:\n%s", e->col, col, text);
  cr_assert(strstr(e->message, message), "message '%s' lacks '%s'", e->message, message);
  cr_assert_str_eq(e->file, "t.wave");
  wave_diags_free(&d);
}

static wave_node_list *entry(wave_module *m) {
  return &wave_module_first_kernel(m)->first_region->body;
}

static wave_instr *first_instr(wave_module *m) {
  wave_node *n = wave_node_list_first(entry(m));
  cr_assert_not_null(n);
  cr_assert_eq(wave_node_kind_of(n), WAVE_NODE_BLOCK);
  return wave_block_first(n);
}

/* The only instruction of a kernel whose body is `line`. */
static wave_instr *parse_one(wave_module **m, const char *line) {
  char text[512];
  snprintf(text, sizeof(text), ".kernel k\n%s\n.end\n", line);
  *m = parse_ok(text);
  wave_instr *i = first_instr(*m);
  cr_assert_not_null(i);
  cr_assert_null(wave_instr_next(i), "more than one instruction in '%s'", line);
  return i;
}

static void assert_operand(const wave_instr *i, unsigned slot, wave_operand_kind kind,
                           uint32_t value) {
  cr_assert_gt(wave_instr_num_operands(i), slot);
  wave_operand o = wave_instr_operand(i, slot);
  cr_assert_eq(o.kind, kind, "%s slot %u kind %d, want %d",
               wave_opcode_table[wave_instr_op(i)].mnemonic, slot, o.kind, kind);
  cr_assert_eq(o.value, value, "%s slot %u value %u, want %u",
               wave_opcode_table[wave_instr_op(i)].mnemonic, slot, o.value, value);
}

/* ---- every mnemonic ----------------------------------------------------------------------- */

static bool structured_keyword(wave_opcode op) {
  return op == WAVE_OP_IF || op == WAVE_OP_ELSE || op == WAVE_OP_ENDIF || op == WAVE_OP_LOOP ||
         op == WAVE_OP_ENDLOOP;
}

/* A valid operand for each slot kind, and what it must parse to. */
static void operand_for(char kind, unsigned slot, char *text, size_t size, wave_operand *want) {
  memset(want, 0, sizeof(*want));
  switch (kind) {
  case 'q':
  case 'p':
    snprintf(text, size, "p%u", (slot + 1) % 4);
    *want = wave_pred((slot + 1) % 4);
    break;
  case 's':
    snprintf(text, size, "sr_lane_id");
    *want = wave_sreg(4);
    break;
  case 'i':
    snprintf(text, size, "42");
    *want = wave_imm(42);
    break;
  case 'l':
    snprintf(text, size, "target");
    *want = wave_label_operand("target");
    break;
  case 'c':
    snprintf(text, size, ".workgroup");
    *want = wave_scope_operand(WAVE_SCOPE_WORKGROUP);
    break;
  default:
    snprintf(text, size, "r%u", 10 + slot);
    *want = wave_gpr(10 + slot);
    break;
  }
}

Test(parser, every_real_mnemonic) {
  size_t cap = 64 * 1024, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  len += (size_t)snprintf(text + len, cap - len, ".kernel all\n");
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++) {
    if (structured_keyword((wave_opcode)op))
      continue;
    len += (size_t)snprintf(text + len, cap - len, "  %s", wave_opcode_table[op].mnemonic);
    for (unsigned s = 0; s < wave_opcode_num_slots((wave_opcode)op); s++) {
      char operand[32];
      wave_operand want;
      operand_for(wave_opcode_slot_kind((wave_opcode)op, s), s, operand, sizeof(operand), &want);
      len += (size_t)snprintf(text + len, cap - len, "%s %s", s ? "," : "", operand);
    }
    len += (size_t)snprintf(text + len, cap - len, "\n");
  }
  snprintf(text + len, cap - len, "target:\n  halt\n.end\n");
  wave_module *m = parse_ok(text);

  wave_node *block = wave_node_list_first(entry(m));
  cr_assert_eq(wave_node_kind_of(block), WAVE_NODE_BLOCK);
  cr_assert_null(wave_node_next(block), "straight-line code is one block");
  wave_instr *i = wave_block_first(block);
  unsigned line = 2, seen = 0;
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++) {
    if (structured_keyword((wave_opcode)op))
      continue;
    cr_assert_not_null(i, "missing %s", wave_opcode_table[op].mnemonic);
    cr_assert_eq(wave_instr_op(i), op, "line %u parsed as %s, want %s", line,
                 wave_opcode_table[wave_instr_op(i)].mnemonic, wave_opcode_table[op].mnemonic);
    cr_assert_eq(wave_instr_num_operands(i), wave_opcode_num_slots((wave_opcode)op));
    cr_assert_eq(wave_instr_guard(i), WAVE_NO_GUARD);
    cr_assert_eq(wave_instr_loc(i).line, line);
    cr_assert_eq(wave_instr_loc(i).col, 3);
    for (unsigned s = 0; s < wave_instr_num_operands(i); s++) {
      char operand[32];
      wave_operand want;
      operand_for(wave_opcode_slot_kind((wave_opcode)op, s), s, operand, sizeof(operand), &want);
      assert_operand(i, s, (wave_operand_kind)want.kind, want.value);
      if (want.kind == WAVE_OPERAND_LABEL)
        cr_assert_str_eq(wave_instr_operand(i, s).label, "target");
      cr_assert_gt(wave_instr_operand(i, s).col, 3);
    }
    i = wave_instr_next(i);
    line++;
    seen++;
  }
  cr_assert_null(i);
  cr_assert_eq(seen + 5, WAVE_NUM_REAL_OPCODES);
  wave_region *target = wave_module_first_kernel(m)->first_region->next;
  cr_assert_not_null(target);
  cr_assert_str_eq(target->label, "target");
  cr_assert_eq(wave_instr_op(wave_block_first(wave_node_list_first(&target->body))), WAVE_OP_HALT);
  wave_module_destroy(m);
  free(text);
}

Test(parser, structured_keywords_build_nodes) {
  wave_module *m = parse_ok(".kernel k\n  if p2\n  else\n  endif\n  loop\n  endloop\n.end\n");
  wave_node *n = wave_node_list_first(entry(m));
  cr_assert_eq(wave_node_kind_of(n), WAVE_NODE_IF);
  cr_assert_eq(wave_if_cond(n).kind, WAVE_OPERAND_PRED);
  cr_assert_eq(wave_if_cond(n).value, 2);
  cr_assert_eq(wave_if_cond(n).col, 6);
  cr_assert(wave_if_has_else(n));
  cr_assert_null(wave_node_list_first(wave_if_then(n)));
  cr_assert_null(wave_node_list_first(wave_if_else(n)));
  cr_assert_eq(wave_node_origin(n, WAVE_LINE_IF).loc.line, 2);
  cr_assert_eq(wave_node_origin(n, WAVE_LINE_ELSE).loc.line, 3);
  cr_assert_eq(wave_node_origin(n, WAVE_LINE_ENDIF).loc.line, 4);
  n = wave_node_next(n);
  cr_assert_eq(wave_node_kind_of(n), WAVE_NODE_LOOP);
  cr_assert_null(wave_node_list_first(wave_loop_body(n)));
  cr_assert_eq(wave_node_origin(n, WAVE_LINE_LOOP).loc.line, 5);
  cr_assert_eq(wave_node_origin(n, WAVE_LINE_ENDLOOP).loc.line, 6);
  cr_assert_null(wave_node_next(n));
  wave_module_destroy(m);
}

/* ---- the region tree ---------------------------------------------------------------------- */

Test(parser, nested_structure) {
  wave_module *m = parse_ok(".kernel k\n"
                            "  nop\n"
                            "  if p1\n"
                            "    iadd r0, r1, r2\n"
                            "    loop\n"
                            "      break p1\n"
                            "      if p2\n"
                            "      endif\n"
                            "      continue p3\n"
                            "    endloop\n"
                            "  else\n"
                            "    halt\n"
                            "  endif\n"
                            "  return\n"
                            ".end\n");
  wave_node *b0 = wave_node_list_first(entry(m));
  cr_assert_eq(wave_node_kind_of(b0), WAVE_NODE_BLOCK);
  cr_assert_eq(wave_instr_op(wave_block_first(b0)), WAVE_OP_NOP);
  wave_node *if1 = wave_node_next(b0);
  cr_assert_eq(wave_node_kind_of(if1), WAVE_NODE_IF);
  cr_assert_eq(wave_node_list_of(if1), entry(m));
  wave_node *then0 = wave_node_list_first(wave_if_then(if1));
  cr_assert_eq(wave_instr_op(wave_block_first(then0)), WAVE_OP_IADD);
  wave_node *loop = wave_node_next(then0);
  cr_assert_eq(wave_node_kind_of(loop), WAVE_NODE_LOOP);
  cr_assert_eq(wave_node_list_parent(wave_node_list_of(loop)), if1);
  wave_node *lb = wave_node_list_first(wave_loop_body(loop));
  cr_assert_eq(wave_instr_op(wave_block_first(lb)), WAVE_OP_BREAK);
  assert_operand(wave_block_first(lb), 0, WAVE_OPERAND_PRED, 1);
  wave_node *inner = wave_node_next(lb);
  cr_assert_eq(wave_node_kind_of(inner), WAVE_NODE_IF);
  cr_assert_not(wave_if_has_else(inner));
  cr_assert_eq(wave_instr_op(wave_block_first(wave_node_next(inner))), WAVE_OP_CONTINUE);
  cr_assert_null(wave_node_next(wave_node_next(inner)));
  cr_assert_null(wave_node_next(loop));
  cr_assert(wave_if_has_else(if1));
  cr_assert_eq(wave_instr_op(wave_block_first(wave_node_list_first(wave_if_else(if1)))),
               WAVE_OP_HALT);
  wave_node *after = wave_node_next(if1);
  cr_assert_eq(wave_node_kind_of(after), WAVE_NODE_BLOCK);
  cr_assert_eq(wave_instr_op(wave_block_first(after)), WAVE_OP_RETURN);
  cr_assert_null(wave_node_next(after));
  wave_module_destroy(m);
}

Test(parser, labels_start_regions) {
  wave_module *m = parse_ok(".kernel k\n"
                            "  call sub\n"
                            "  halt\n"
                            "sub:\n"
                            "  iadd r0, r0, r1\n"
                            "  return\n"
                            "other: nop\n"
                            ".end\n"
                            ".kernel k2\n"
                            "start:\n"
                            "  call other\n"
                            ".end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  cr_assert_eq(wave_module_num_kernels(m), 2);
  wave_region *r = wave_kernel_first_region(k);
  cr_assert_null(wave_region_label(r));
  cr_assert_eq(wave_instr_op(wave_block_first(wave_node_list_first(wave_region_body(r)))),
               WAVE_OP_CALL);
  cr_assert_str_eq(
      wave_instr_operand(wave_block_first(wave_node_list_first(wave_region_body(r))), 0).label,
      "sub");
  r = r->next;
  cr_assert_str_eq(wave_region_label(r), "sub");
  cr_assert_eq(wave_region_origin(r).loc.line, 4);
  cr_assert_eq(wave_region_origin(r).loc.col, 1);
  cr_assert_eq(wave_region_kernel(r), k);
  r = r->next;
  cr_assert_str_eq(wave_region_label(r), "other");
  cr_assert_eq(wave_instr_op(wave_block_first(wave_node_list_first(wave_region_body(r)))),
               WAVE_OP_NOP);
  cr_assert_null(r->next);
  cr_assert_eq(wave_kernel_last_region(k), r);
  wave_kernel *k2 = k->next;
  cr_assert_str_eq(k2->name, "k2");
  cr_assert_null(wave_node_list_first(wave_region_body(wave_kernel_first_region(k2))),
                 "the entry region before 'start:' is empty");
  cr_assert_str_eq(wave_kernel_first_region(k2)->next->label, "start");
  wave_module_destroy(m);
}

Test(parser, stray_labels_outside_kernels) {
  wave_module *m = parse_ok("head:\n"
                            ".kernel a\n  halt\n.end\n"
                            "mid1:\nmid2:\n"
                            ".kernel b\n  call head\n.end\n"
                            "tail:\n");
  wave_stray_label *s = m->first_stray;
  cr_assert_str_eq(s->name, "head");
  cr_assert_eq(s->before, wave_module_first_kernel(m));
  cr_assert_eq(s->src.loc.line, 1);
  s = s->next;
  cr_assert_str_eq(s->name, "mid1");
  cr_assert_eq(s->before, m->last_kernel);
  s = s->next;
  cr_assert_str_eq(s->name, "mid2");
  cr_assert_eq(s->before, m->last_kernel);
  s = s->next;
  cr_assert_str_eq(s->name, "tail");
  cr_assert_null(s->before);
  cr_assert_null(s->next);
  cr_assert_eq(m->last_stray, s);
  wave_module_destroy(m);
}

Test(parser, kernel_metadata) {
  wave_module *m = parse_ok(".kernel a\n"
                            ".registers 12\n"
                            ".local_memory 4096\n"
                            ".workgroup_size 64, 2, 1\n"
                            "  halt\n"
                            ".end\n"
                            ".kernel b\n"
                            "  halt\n"
                            ".end\n"
                            ".workgroup_size 256\n"
                            ".registers -1\n");
  wave_kernel *a = wave_module_first_kernel(m), *b = a->next;
  cr_assert(wave_kernel_has_registers(a) && wave_kernel_has_local_memory(a) &&
            wave_kernel_has_workgroup_size(a));
  cr_assert_eq(a->registers, 12);
  cr_assert_eq(wave_kernel_local_memory(a), 4096);
  cr_assert_eq(wave_kernel_workgroup_size(a, 0), 64);
  cr_assert_eq(wave_kernel_workgroup_size(a, 1), 2);
  cr_assert_eq(wave_kernel_workgroup_size(a, 2), 1);
  cr_assert_eq(a->registers_src.loc.line, 2);
  cr_assert_eq(a->local_memory_src.loc.line, 3);
  cr_assert_eq(a->workgroup_size_src.loc.line, 4);
  cr_assert_eq(a->kernel_src.loc.line, 1);
  cr_assert_eq(a->end_src.loc.line, 6);
  /* After its .end, the directives still apply to the most recent kernel (docs/language.md
   * "Directives"); the documentation's one-value .workgroup_size means X, 1, 1. */
  cr_assert(wave_kernel_has_workgroup_size(b));
  cr_assert_eq(wave_kernel_workgroup_size(b, 0), 256);
  cr_assert_eq(wave_kernel_workgroup_size(b, 1), 1);
  cr_assert_eq(wave_kernel_workgroup_size(b, 2), 1);
  cr_assert_eq(b->registers, 0xFFFFFFFFu, "negative values wrap to u32");
  cr_assert_not(wave_kernel_has_local_memory(b));
  cr_assert_eq(wave_kernel_local_memory(b), 0);
  wave_module_destroy(m);
}

Test(parser, directive_before_first_kernel_is_ignored_with_a_warning) {
  wave_diags d;
  wave_module *m = parse(&d, ".registers 8\n.kernel k\n  halt\n.end\n");
  cr_assert_not_null(m);
  cr_assert_eq(d.count, 1);
  cr_assert_eq(d.items[0].severity, WAVE_SEV_WARNING);
  cr_assert_eq(d.items[0].line, 1);
  cr_assert_eq(d.items[0].col, 1);
  cr_assert(strstr(d.items[0].message, "'.registers' before the first '.kernel' is ignored"));
  cr_assert_not(wave_module_first_kernel(m)->has_registers);
  cr_assert_eq(wave_module_first_kernel(m)->registers, WAVE_DEFAULT_REGISTERS);
  wave_module_destroy(m);
  wave_diags_free(&d);
}

Test(parser, several_statements_on_one_line) {
  wave_module *m = parse_ok(".kernel k\n"
                            "  iadd r0, r1, r2 isub r3, r4, r5 ; both\n"
                            "  lbl: nop\n"
                            "  iadd r0, r1, r2 .end\n");
  wave_instr *i = first_instr(m);
  cr_assert_eq(wave_instr_op(i), WAVE_OP_IADD);
  cr_assert_null(wave_instr_origin(i).comment,
                 "the trailing comment belongs to the last statement");
  cr_assert_eq(wave_instr_op(wave_instr_next(i)), WAVE_OP_ISUB);
  cr_assert_eq(wave_instr_loc(wave_instr_next(i)).col, 19);
  cr_assert_str_eq(wave_instr_origin(wave_instr_next(i)).comment, "; both");
  wave_region *lbl = wave_module_first_kernel(m)->first_region->next;
  cr_assert_str_eq(lbl->label, "lbl");
  cr_assert_eq(wave_instr_op(wave_block_first(wave_node_list_first(&lbl->body))), WAVE_OP_NOP);
  cr_assert_eq(wave_instr_loc(wave_block_first(wave_node_list_first(&lbl->body))).col, 8);
  cr_assert_eq(wave_module_first_kernel(m)->end_src.loc.line, 4);
  cr_assert_eq(wave_module_first_kernel(m)->end_src.loc.col, 19);
  wave_module_destroy(m);
}

/* ---- comments and positions ----------------------------------------------------------------- */

Test(parser, comments_travel_with_statements) {
  wave_module *m = parse_ok("; file header\r\n"
                            ";   second line   \r\n"
                            ".kernel k ; the kernel\r\n"
                            "\r\n"
                            "  # hash comment\r\n"
                            "  nop   ; trailing   \r\n"
                            "  if p1 ; if\r\n"
                            "  ; before else\r\n"
                            "  else ; else\r\n"
                            "  endif ; endif\r\n"
                            "  loop\r\n"
                            "  endloop ; endloop\r\n"
                            "sub: ; label\r\n"
                            "  halt\r\n"
                            "; before end\r\n"
                            ".end ; end\r\n"
                            "; after 1\r\n"
                            "\r\n"
                            "  ; after 2\r\n");
  wave_kernel *k = wave_module_first_kernel(m);
  cr_assert_str_eq(wave_kernel_origin(k, WAVE_KERNEL_LINE_KERNEL).leading,
                   "; file header\n;   second line");
  cr_assert_str_eq(wave_kernel_origin(k, WAVE_KERNEL_LINE_KERNEL).comment, "; the kernel");
  wave_instr *nop = first_instr(m);
  cr_assert_str_eq(wave_instr_origin(nop).leading, "# hash comment");
  cr_assert_str_eq(wave_instr_origin(nop).comment, "; trailing");
  wave_node *n = wave_node_next(wave_node_list_first(entry(m)));
  cr_assert_str_eq(wave_node_origin(n, WAVE_LINE_IF).comment, "; if");
  cr_assert_null(wave_node_origin(n, WAVE_LINE_IF).leading);
  cr_assert_str_eq(wave_node_origin(n, WAVE_LINE_ELSE).leading, "; before else");
  cr_assert_str_eq(wave_node_origin(n, WAVE_LINE_ELSE).comment, "; else");
  cr_assert_str_eq(wave_node_origin(n, WAVE_LINE_ENDIF).comment, "; endif");
  cr_assert_null(wave_node_origin(wave_node_next(n), WAVE_LINE_LOOP).comment);
  cr_assert_str_eq(wave_node_origin(wave_node_next(n), WAVE_LINE_ENDLOOP).comment, "; endloop");
  cr_assert_str_eq(wave_kernel_first_region(k)->next->label_src.comment, "; label");
  cr_assert_str_eq(wave_kernel_origin(k, WAVE_KERNEL_LINE_END).leading, "; before end");
  cr_assert_str_eq(wave_kernel_origin(k, WAVE_KERNEL_LINE_END).comment, "; end");
  cr_assert_str_eq(m->trailing, "; after 1\n; after 2");
  wave_module_destroy(m);
}

Test(parser, stray_label_comments) {
  wave_module *m = parse_ok("; lead\nx: ; note\n.kernel k\n.end\n");
  cr_assert_str_eq(m->first_stray->src.leading, "; lead");
  cr_assert_str_eq(m->first_stray->src.comment, "; note");
  cr_assert_null(wave_module_first_kernel(m)->kernel_src.leading);
  cr_assert_null(m->trailing);
  wave_module_destroy(m);
}

Test(parser, source_text_and_lines_are_kept) {
  const char *text = ".kernel k\n  nop\r\n.end";
  wave_module *m = parse_ok(text);
  cr_assert_eq(m->source.len, strlen(text));
  cr_assert_eq(memcmp(m->source.text, text, m->source.len), 0);
  cr_assert_str_eq(wave_module_file(m), "t.wave");
  cr_assert_eq(m->source.num_lines, 3);
  static const char *const lines[] = {".kernel k", "  nop", ".end"};
  wave_diags d;
  wave_diags_init(&d);
  for (uint32_t i = 0; i < 3; i++) {
    wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, i + 1, 1}, "n");
    cr_assert_str_eq(d.items[i].source_line, lines[i], "line %u", i + 1);
  }
  wave_diags_free(&d);
  cr_assert_str_eq(wave_instr_loc(first_instr(m)).file, "t.wave");
  wave_module_destroy(m);
}

Test(parser, operand_columns_and_halves) {
  wave_module *m;
  wave_instr *i = parse_one(&m, "\t@!p3 hadd r0.lo, r1.hi,r2");
  cr_assert_eq(wave_instr_loc(i).col, 2);
  cr_assert_eq(wave_instr_guard(i), 3);
  cr_assert(wave_instr_guard_negated(i));
  cr_assert_eq(wave_instr_operand(i, 0).col, 12);
  cr_assert_eq(wave_instr_operand(i, 0).half, WAVE_HALF_LO);
  cr_assert_eq(wave_instr_operand(i, 1).col, 19);
  cr_assert_eq(wave_instr_operand(i, 1).half, WAVE_HALF_HI);
  cr_assert_eq(wave_instr_operand(i, 2).col, 25);
  cr_assert_eq(wave_instr_operand(i, 2).half, WAVE_HALF_NONE);
  wave_module_destroy(m);
}

/* ---- documentation dialect ---------------------------------------------------------------- */

typedef struct docs_case {
  const char *line;
  wave_opcode op;
  unsigned num_operands;
  wave_operand_kind kinds[WAVE_MAX_OPERANDS];
  uint32_t values[WAVE_MAX_OPERANDS];
} docs_case;

#define G WAVE_OPERAND_GPR
#define P WAVE_OPERAND_PRED
#define I WAVE_OPERAND_IMM
#define S WAVE_OPERAND_SCOPE
#define N WAVE_OPERAND_NONE
#define SR WAVE_OPERAND_SREG

Test(parser, documentation_dialect_forms) {
  static const docs_case cases[] = {
      {"icmp.lt p0, r0, r1", WAVE_OP_ICMP_LT, 3, {P, G, G}, {0, 0, 1}},
      {"fcmp.gt p1, r2, r3", WAVE_OP_FCMP_GT, 3, {P, G, G}, {1, 2, 3}},
      {"device_load.u32 r1, r2", WAVE_OP_DEVICE_LOAD_U32, 2, {G, G}, {1, 2}},
      {"local_store.u32 r1, r2", WAVE_OP_LOCAL_STORE_U32, 2, {G, G}, {1, 2}},
      {"fence_release.workgroup", WAVE_OP_FENCE_RELEASE, 1, {S}, {WAVE_SCOPE_WORKGROUP}},
      {"fence_acquire system", WAVE_OP_FENCE_ACQUIRE, 1, {S}, {WAVE_SCOPE_SYSTEM}},
      {"mov.imm r1, 5", WAVE_OP_MOV_IMM, 2, {G, I}, {1, 5}},
      {"ucmp_ge p1, r1, r2", WAVE_OP_UCMP_GE, 3, {P, G, G}, {1, 1, 2}},
      {"ucmp.gt p1, r1, r2", WAVE_OP_UCMP_GT, 3, {P, G, G}, {1, 1, 2}},
      {"ucmp_eq p1, r1, r2", WAVE_OP_UCMP_EQ, 3, {P, G, G}, {1, 1, 2}},
      {"ucmp_ne p1, r1, r2", WAVE_OP_UCMP_NE, 3, {P, G, G}, {1, 1, 2}},
      {"fcmp_ge p1, r1, r2", WAVE_OP_FCMP_GE, 3, {P, G, G}, {1, 1, 2}},
      {"and p2, p0, p1", WAVE_OP_PAND, 3, {P, P, P}, {2, 0, 1}},
      {"or p2, p0, p1", WAVE_OP_POR, 3, {P, P, P}, {2, 0, 1}},
      {"xor p2, p0, p1", WAVE_OP_PXOR, 3, {P, P, P}, {2, 0, 1}},
      {"not p3, p2", WAVE_OP_PNOT, 2, {P, P}, {3, 2}},
      {"and r2, r0, r1", WAVE_OP_AND, 3, {G, G, G}, {2, 0, 1}},
      {"not r3, r2", WAVE_OP_NOT, 2, {G, G}, {3, 2}},
      {"break !p1", WAVE_OP_BREAK, 1, {P}, {1}},
      {"continue !p0", WAVE_OP_CONTINUE, 1, {P}, {0}},
      {"iadd r0, r0, 1", WAVE_OP_IADD, 3, {G, G, I}, {0, 0, 1}},
      {"shl r4, r3, 2", WAVE_OP_SHL, 3, {G, G, I}, {4, 3, 2}},
      {"isub r4, 7, r3", WAVE_OP_ISUB, 3, {G, I, G}, {4, 7, 3}},
      {"fmul r1, r1, 2.0", WAVE_OP_FMUL, 3, {G, G, I}, {1, 1, 0x40000000}},
      {"icmp_lt p1, r1, -1", WAVE_OP_ICMP_LT, 3, {P, G, I}, {1, 1, 0xFFFFFFFF}},
      {"select r1, p1, 1, 0", WAVE_OP_SELECT, 4, {G, P, I, I}, {1, 1, 1, 0}},
      {"atomic_add r2, r1, r0", WAVE_OP_ATOMIC_ADD, 4, {G, G, G, S}, {2, 1, 0, 2}},
      {"atomic_add r1, r0", WAVE_OP_ATOMIC_ADD, 4, {N, G, G, S}, {0, 1, 0, 2}},
      {"atomic_add r1, r2, .device", WAVE_OP_ATOMIC_ADD, 4, {N, G, G, S}, {0, 1, 2, 2}},
      {"atomic_max r1, r2, .wave", WAVE_OP_ATOMIC_MAX, 4, {N, G, G, S}, {0, 1, 2, 0}},
      {"atomic_or r3, r1, r2, system", WAVE_OP_ATOMIC_OR, 4, {G, G, G, S}, {3, 1, 2, 3}},
      {"atomic_cas r1, r2, r3, r4", WAVE_OP_ATOMIC_CAS, 5, {G, G, G, G, S}, {1, 2, 3, 4, 2}},
      {"atomic_cas r2, r3, r4", WAVE_OP_ATOMIC_CAS, 5, {N, G, G, G, S}, {0, 2, 3, 4, 2}},
      {"local_atomic_add r1, r2", WAVE_OP_LOCAL_ATOMIC_ADD, 3, {N, G, G}, {0, 1, 2}},
      {"local_atomic_add r3, r1, r2", WAVE_OP_LOCAL_ATOMIC_ADD, 3, {G, G, G}, {3, 1, 2}},
      {"local_atomic_cas r1, r2, r3", WAVE_OP_LOCAL_ATOMIC_CAS, 4, {N, G, G, G}, {0, 1, 2, 3}},
      {"mov r1, sr_wave_id", WAVE_OP_MOV_SR, 2, {G, SR}, {1, 3}},
      {"mov r1, r2", WAVE_OP_MOV, 2, {G, G}, {1, 2}},
      {"mov_sr r1, sr_mma_k", WAVE_OP_MOV_SR, 2, {G, SR}, {1, 19}},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    wave_module *m;
    char line[128];
    snprintf(line, sizeof(line), "  %s", cases[c].line);
    wave_instr *i = parse_one(&m, line);
    cr_assert_eq(wave_instr_op(i), cases[c].op, "'%s' parsed as %s", cases[c].line,
                 wave_opcode_table[wave_instr_op(i)].mnemonic);
    cr_assert_eq(wave_instr_num_operands(i), cases[c].num_operands, "'%s' has %u operands",
                 cases[c].line, wave_instr_num_operands(i));
    for (unsigned s = 0; s < cases[c].num_operands; s++) {
      wave_operand o = wave_instr_operand(i, s);
      cr_assert_eq(o.kind, cases[c].kinds[s], "'%s' slot %u kind %d", cases[c].line, s, o.kind);
      if (cases[c].kinds[s] != WAVE_OPERAND_NONE)
        cr_assert_eq(o.value, cases[c].values[s], "'%s' slot %u value %u", cases[c].line, s,
                     o.value);
    }
    wave_module_destroy(m);
  }
}

Test(parser, negated_break_and_inserted_operands) {
  wave_module *m;
  wave_instr *i = parse_one(&m, "  break !p2");
  cr_assert(wave_instr_operand(i, 0).negated);
  cr_assert_eq(wave_instr_operand(i, 0).col, 9);
  wave_module_destroy(m);
  i = parse_one(&m, "  atomic_add r1, r2");
  cr_assert_eq(wave_instr_operand(i, 0).col, 0, "inserted slots have no column");
  cr_assert_eq(wave_instr_operand(i, 1).col, 14);
  cr_assert_eq(wave_instr_operand(i, 3).col, 0);
  wave_module_destroy(m);
}

Test(parser, cache_hints) {
  static const struct {
    const char *line;
    wave_opcode op;
    wave_cache_hint hint;
  } cases[] = {
      {"  device_load_u32.uncached r1, r2", WAVE_OP_DEVICE_LOAD_U32, WAVE_HINT_UNCACHED},
      {"  device_load_u32 .cached r1, r2", WAVE_OP_DEVICE_LOAD_U32, WAVE_HINT_CACHED},
      {"  device_load.u32.streaming r1, r2", WAVE_OP_DEVICE_LOAD_U32, WAVE_HINT_STREAMING},
      {"  local_store.u32.uncached r1, r2", WAVE_OP_LOCAL_STORE_U32, WAVE_HINT_UNCACHED},
      {"  iadd.cached r1, r2, r3", WAVE_OP_IADD, WAVE_HINT_CACHED},
      {"  iadd r1, r2, r3", WAVE_OP_IADD, WAVE_HINT_NONE},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    wave_module *m;
    wave_instr *i = parse_one(&m, cases[c].line);
    cr_assert_eq(wave_instr_op(i), cases[c].op, "%s", cases[c].line);
    cr_assert_eq(wave_instr_cache_hint(i), cases[c].hint, "%s", cases[c].line);
    cr_assert_eq(wave_instr_num_operands(i), wave_opcode_num_slots(cases[c].op));
    wave_module_destroy(m);
  }
}

Test(parser, immediate_forms) {
  static const struct {
    const char *line;
    uint32_t value;
    wave_imm_form form;
  } cases[] = {
      {"  mov_imm r1, 42", 42, WAVE_IMM_DECIMAL},
      {"  mov_imm r1, 4294967295", 0xFFFFFFFF, WAVE_IMM_DECIMAL},
      {"  mov_imm r1, -1", 0xFFFFFFFF, WAVE_IMM_NEGATIVE},
      {"  mov_imm r1, -2147483648", 0x80000000, WAVE_IMM_NEGATIVE},
      {"  mov_imm r1, 0x3F800000", 0x3F800000, WAVE_IMM_HEX},
      {"  mov_imm r1, 0xFFFF_FFFF", 0xFFFFFFFF, WAVE_IMM_HEX},
      {"  mov_imm r1, 1_000", 1000, WAVE_IMM_DECIMAL},
      {"  mov_imm r1, 007", 7, WAVE_IMM_DECIMAL},
      {"  fadd r1, r1, -0.5", 0xBF000000, WAVE_IMM_FLOAT},
      {"  fadd r1, r1, 1e3", 0x447A0000, WAVE_IMM_FLOAT},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    wave_module *m;
    wave_instr *i = parse_one(&m, cases[c].line);
    wave_operand o = wave_instr_operand(i, wave_instr_num_operands(i) - 1);
    cr_assert_eq(o.kind, WAVE_OPERAND_IMM, "%s", cases[c].line);
    cr_assert_eq(o.value, cases[c].value, "%s: 0x%08X", cases[c].line, o.value);
    cr_assert_eq(o.imm_form, cases[c].form, "%s: form %d", cases[c].line, o.imm_form);
    wave_module_destroy(m);
  }
}

/* Every real tool runs `@p0 X` unguarded; mov_imm of a float literal loads the low word of the
 * binary64 pattern upstream. Both parse, with a warning in the "toolchain" group. */
Test(parser, toolchain_warnings) {
  wave_diags d;
  wave_module *m = parse(&d, ".kernel k\n  @p0 iadd r0, r1, r2\n  @!p0 nop\n"
                             "  mov_imm r0, 1.0\n  mov_imm r1, 3.14\n.end\n");
  cr_assert_not_null(m);
  cr_assert_eq(d.count, 3);
  cr_assert_eq(d.num_errors, 0);
  const wave_diag *w = &d.items[0];
  cr_assert_eq(w->severity, WAVE_SEV_WARNING);
  cr_assert_str_eq(w->flag, "toolchain");
  cr_assert_eq(w->line, 2);
  cr_assert_eq(w->col, 3);
  cr_assert(strstr(w->message, "'@p0' is not a guard: every real tool runs 'iadd' unguarded"));
  wave_instr *i = first_instr(m);
  cr_assert_eq(wave_instr_guard(i), WAVE_NO_GUARD);
  cr_assert_eq(wave_instr_guard(wave_instr_next(i)), 0, "@!p0 is kept as written");
  cr_assert(wave_instr_guard_negated(wave_instr_next(i)));
  w = &d.items[1];
  cr_assert_str_eq(w->flag, "toolchain");
  cr_assert_eq(w->line, 4);
  cr_assert_eq(w->col, 15);
  cr_assert(strstr(w->message, "stores float literal '1.0' as 0x00000000"), "%s", w->message);
  cr_assert(strstr(w->message, "binary32 bits 0x3F800000"));
  cr_assert(strstr(d.items[2].message, "as 0x51EB851F"), "%s", d.items[2].message);
  wave_instr *one = wave_instr_next(wave_instr_next(i));
  cr_assert_eq(wave_instr_operand(one, 1).value, 0x3F800000, "the IR holds the intended value");
  cr_assert_eq(wave_instr_operand(one, 1).imm_form, WAVE_IMM_FLOAT);
  cr_assert_eq(wave_instr_operand(wave_instr_next(one), 1).value, 0x4048F5C3);
  wave_module_destroy(m);
  wave_diags_free(&d);
}

Test(parser, p0_guard_on_a_structured_keyword_is_dropped) {
  wave_diags d;
  wave_module *m = parse(&d, ".kernel k\n  @p0 if p1\n  endif\n.end\n");
  cr_assert_not_null(m);
  cr_assert_eq(d.count, 1);
  cr_assert_str_eq(d.items[0].flag, "toolchain");
  cr_assert(strstr(d.items[0].message, "runs 'if' unguarded"));
  cr_assert_eq(wave_node_kind_of(wave_node_list_first(entry(m))), WAVE_NODE_IF);
  wave_module_destroy(m);
  wave_diags_free(&d);
}

Test(parser, warnings_as_errors_fail_the_parse) {
  wave_diags d;
  wave_diags_init(&d);
  d.warnings_as_errors = true;
  const char *text = ".kernel k\n  @p0 nop\n.end\n";
  cr_assert_null(wave_parse_string(text, strlen(text), "t.wave", &d));
  cr_assert_eq(d.num_errors, 1);
  wave_diags_free(&d);
}

/* Handed-over text is the module's source itself, not a copy; text that fails to parse is freed
 * with its module (the sanitizer build reports a leak otherwise), its lines still quoted. */
static char *heap_text(const char *text) {
  char *copy = malloc(strlen(text) + 1);
  cr_assert_not_null(copy);
  return strcpy(copy, text);
}

Test(parser, handed_over_text_is_the_source) {
  wave_diags d;
  wave_diags_init(&d);
  char *text = heap_text(".kernel k\n  nop\n.end\n");
  wave_module *m = wave_parse_owned(text, strlen(text), "t.wave", &d);
  cr_assert_not_null(m);
  cr_assert_eq(m->source.text, text, "the module keeps the buffer it was given");
  cr_assert_eq(m->source.len, strlen(".kernel k\n  nop\n.end\n"));
  cr_assert_eq(m->source.num_lines, 4);
  wave_module_destroy(m);
  char *bad = heap_text(".kernel k\n  frob r1\n.end\n");
  cr_assert_null(wave_parse_owned(bad, strlen(bad), "t.wave", &d));
  cr_assert_eq(d.num_errors, 1);
  cr_assert_str_eq(d.items[0].source_line, "  frob r1", "the line is quoted before the text goes");
  wave_diags_free(&d);
}

/* A stream comes back whole with a NUL after it, whether it is a file (read at its size) or
 * not (read by growing a buffer): here 5 MB, past the size from which buffers are advised as
 * huge pages, and a few bytes. */
Test(parser, streams_are_read_whole) {
  size_t sizes[] = {5u << 20, 7, 0};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    size_t n = sizes[s];
    char *want = malloc(n + 1);
    cr_assert_not_null(want);
    for (size_t k = 0; k < n; k++)
      want[k] = (char)('a' + k % 23);
    for (int kind = 0; kind < 2; kind++) {
      FILE *f = kind ? fmemopen(want, n ? n : 1, "rb") : tmpfile();
      cr_assert_not_null(f);
      if (!kind) {
        cr_assert_eq(fwrite(want, 1, n, f), n);
        rewind(f);
      }
      size_t len = 99;
      int err = -1;
      char *got = wave_read_stream(f, &len, &err);
      fclose(f);
      size_t expect = kind && !n ? 1 : n;
      cr_assert_not_null(got, "%zu bytes, %s: error %d", n, kind ? "memory" : "file", err);
      cr_assert_eq(err, 0);
      cr_assert_eq(len, expect, "%zu bytes read as %zu", expect, len);
      cr_assert(memcmp(got, want, n) == 0);
      cr_assert_eq(got[len], '\0');
      free(got);
    }
    free(want);
  }
}

/* ---- errors ------------------------------------------------------------------------------- */

typedef struct error_case {
  const char *text;
  uint32_t line, col;
  const char *message;
} error_case;

#define K(body) ".kernel k\n" body "\n.end\n"

static void run_error_cases(const error_case *cases, size_t n) {
  for (size_t c = 0; c < n; c++)
    expect_error(cases[c].text, cases[c].line, cases[c].col, cases[c].message);
}

Test(parser, lexical_errors_have_exact_columns) {
  static const error_case cases[] = {
      {K("  iadd r0, r1, r255"), 2, 16, "register index must be 0-254"},
      {K("  iadd r0, r256, r1"), 2, 12, "register index must be 0-254"},
      {K("  if p4\n  endif"), 2, 6, "predicate register must be p0-p3"},
      {K("  @ p1 nop"), 2, 3, "'@' must be followed directly by a predicate register"},
      {K("  @p1\n"), 2, 6, "expected an instruction after the guard, found end of line"},
      {K("  mov r0, src"), 2, 11, "invalid special register 'src'"},
      {K("  mov r0, sr_foo"), 2, 11, "unknown special register 'sr_foo'"},
      {K("  mov_imm r0, 0X10"), 2, 16, "invalid character 'X' in number"},
      {K("  mov_imm r0, -0x10"), 2, 17, "invalid character 'x' in number"},
      {K("  mov_imm r0, .5"), 2, 15, "'.' must be followed by a letter"},
      {K("  hadd r0.x, r1, r2"), 2, 10, "invalid register suffix '.x'"},
      {K("  iadd r2d2, r1, r2"), 2, 8, "invalid register name 'r2d2'"},
      {K("  mov_imm r0, 99999999999999999999"), 2, 15, "does not fit in 64 bits"},
      {K("  iadd r0, r1, [r2]"), 2, 16, "unexpected character '['"},
      {K("  nop ! p1"), 2, 7, "'!' must be followed directly by a predicate register"},
      {".kernel k\n  nop\n\xff\n.end\n", 3, 1, "unexpected byte 0xFF"},
  };
  run_error_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(parser, syntax_errors) {
  static const error_case cases[] = {
      {K("  iadd r0 r1 r2"), 2, 11, "expected ',' between operands"},
      {K("  iadd r0, r1,"), 2, 14, "expected an operand after ','"},
      {K("  iadd r0, r1, ; comment"), 2, 14, "expected an operand after ','"},
      {K("  iadd r0,, r1"), 2, 10, "expected an operand after ','"},
      {K("  r1, r2"), 2, 3, "expected an instruction, a label or a directive, found 'r1'"},
      {K("  , nop"), 2, 3, "expected an instruction, a label or a directive, found ','"},
      {K("  : nop"), 2, 3, "found ':'"},
      {K("  iadd r0, r1, r2, r3, r4, r5, r6"), 2, 32, "too many operands (at most 6)"},
      {K("  fence_release.workgroup r1"), 2, 27, "expected ',' between operands"},
      {K("  icmp.lt.x p0, r0, r1"), 2, 10, "expected scope specifier, found '.x'"},
      {K("  halt .end"), 2, 8, "expected scope specifier, found '.end'"},
      {K("  if !p1\n  endif"), 2, 6,
       "'!' is only allowed on the predicate of 'break' or 'continue'"},
      {K("  iadd r0, !p1, r2"), 2, 12, "'!' is only allowed"},
      {K("  device_store_u32 r1, 2"), 2, 24, "expected register, found immediate '2'"},
      {K("  atomic_add r1, r2, 5"), 2, 22, "expected register, found immediate '5'"},
      {K("  wave_reduce_add r1, 3"), 2, 23, "expected register, found immediate '3'"},
      {K("  if 1\n  endif"), 2, 6, "expected predicate register, found immediate '1'"},
      {K("  fence_release 2"), 2, 17, "expected scope specifier, found immediate '2'"},
      {K("  call 4"), 2, 8, "expected label, found immediate '4'"},
      {K("  mov_sr r1, 4"), 2, 14, "expected special register, found immediate '4'"},
      {K("  mov_imm r0, 4294967296"), 2, 15, "immediate '4294967296' is out of range"},
      {K("  mov_imm r0, -2147483649"), 2, 15, "(-2147483648 to 4294967295)"},
      {K("  iadd r0, r0, 0x100000000"), 2, 16, "is out of range"},
      {K("  mov_imm r0, 1e39"), 2, 15,
       "floating-point literal '1e39' is out of range for binary32"},
  };
  run_error_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(parser, unknown_mnemonics_and_suggestions) {
  static const error_case cases[] = {
      {K("  iad r0, r1, r2"), 2, 3, "unknown instruction 'iad'; did you mean 'iadd'?"},
      {K("  IADD r0, r1, r2"), 2, 3, "unknown instruction 'IADD'; did you mean 'iadd'?"},
      {K("  cmp.lt p0, r0, r1"), 2, 3, "unknown instruction 'cmp.lt'; did you mean 'icmp_lt'?"},
      {K("  device_lod.u32 r0, r1"), 2, 3, "did you mean 'device_load_u32'?"},
      {K("  umin r0, r1, r2"), 2, 3, "unknown instruction 'umin'"},
      {K("  frobnicate r0"), 2, 3, "unknown instruction 'frobnicate'"},
      {K("  nop\n  x"), 3, 3, "unknown instruction 'x'"},
  };
  run_error_cases(cases, sizeof(cases) / sizeof(cases[0]));
  wave_diags d;
  cr_assert_null(parse(&d, K("  frobnicate r0")));
  cr_assert_null(strstr(d.items[0].message, "did you mean"), "no suggestion when nothing is close");
  wave_diags_free(&d);
}

Test(parser, kernel_and_directive_errors) {
  static const error_case cases[] = {
      {"iadd r0, r1, r2\n", 1, 1, "instruction outside kernel"},
      {".kernel k\n.end\n  @p1 halt\n", 3, 3, "instruction outside kernel"},
      {".kernel a\n.kernel b\n.end\n", 2, 1, "kernels cannot nest: kernel 'a' is not closed"},
      {".end\n", 1, 1, "'.end' without an open kernel"},
      {".kernel k\n.end\n.end\n", 3, 1, "'.end' without an open kernel"},
      {".kernel k\n  nop\n", 1, 1, "kernel 'k' is not closed: missing '.end'"},
      {".kernel\n", 1, 8, "expected a kernel name after '.kernel', found end of line"},
      {".kernel 5k\n", 1, 10, "invalid character 'k' in number"},
      {".kernel r1\n.end\n", 1, 9, "expected a kernel name after '.kernel', found 'r1'"},
      {K(".registers x"), 2, 12, "expected an integer after '.registers', found 'x'"},
      {K(".registers 1.5"), 2, 12, "expected an integer after '.registers'"},
      {K(".local_memory 4294967296"), 2, 15,
       "value '4294967296' of '.local_memory' is out of range"},
      {K(".workgroup_size 8, 4"), 2, 21, "expected ',' and the third value of '.workgroup_size'"},
      {K(".workgroup_size 8, 4, "), 2, 23, "expected an integer after '.workgroup_size'"},
      {K(".workgroup_size"), 2, 16, "expected an integer after '.workgroup_size'"},
      {K(".align 4"), 2, 1, "unknown directive '.align'"},
      {K(".Kernel x"), 2, 1, "unknown directive '.Kernel'"},
      {K(".device"), 2, 1, "unknown directive '.device'"},
  };
  run_error_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(parser, structural_errors) {
  static const error_case cases[] = {
      {K("  if p1\n  else\n  else\n  endif"), 4, 3, "second 'else' for the same 'if'"},
      {K("  else"), 2, 3, "'else' without a matching 'if'"},
      {K("  endif"), 2, 3, "'endif' without a matching 'if'"},
      {K("  endloop"), 2, 3, "'endloop' without a matching 'loop'"},
      {K("  loop\n  endif\n  endloop"), 3, 3, "'endif' without a matching 'if'"},
      {K("  if p1\n  endloop\n  endif"), 3, 3, "'endloop' without a matching 'loop'"},
      {K("  loop\n  else\n  endloop"), 3, 3, "'else' without a matching 'if'"},
      {K("  nop\n  if p1\n    loop\n  nop"), 3, 3, "'if' is not closed before '.end'"},
      {K("  if p2"), 2, 3, "'if' is not closed before '.end'"},
      {K("  loop"), 2, 3, "'loop' is not closed before '.end'"},
      {".kernel k\n  loop\n", 1, 1, "kernel 'k' is not closed"},
      {K("  @p1 if p0\n  endif"), 2, 3, "guard on a structured control-flow instruction"},
      {K("  if p0\n  @p1 else\n  endif"), 3, 3, "guard on a structured control-flow instruction"},
      {K("  if p0\n  @!p2 endif"), 3, 3, "guard on a structured control-flow instruction"},
      {K("  @p3 loop\n  endloop"), 2, 3, "guard on a structured control-flow instruction"},
      {K("  loop\n  @!p0 endloop"), 3, 3, "guard on a structured control-flow instruction"},
      {K("  if p1, p2\n  endif"), 2, 10, "'if' takes exactly one predicate register operand"},
      {K("  if\n  endif"), 2, 3, "'if' takes exactly one predicate register operand"},
      {K("  if r1\n  endif"), 2, 6, "'if' takes exactly one predicate register operand"},
      {K("  loop r1\n  endloop"), 2, 8, "'loop' takes no operands"},
      {K("  if p1\n  endif p1"), 3, 9, "'endif' takes no operands"},
      {K("  if p1\n    sub:\n  endif"), 3, 5,
       "label 'sub' inside an open 'if': subroutines must start at the top level of a kernel"},
      {K("  loop\n    sub:\n  endloop"), 3, 5, "label 'sub' inside an open 'loop'"},
  };
  run_error_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(parser, label_errors) {
  static const error_case cases[] = {
      {K("  call nowhere"), 2, 8, "undefined label 'nowhere'"},
      {K("  iadd r0, foo, r1"), 2, 12, "undefined label 'foo'"},
      {K("  nop nop"), 2, 7, "undefined label 'nop'"},
      {K("  if p1\n  endif else"), 3, 9, "undefined label 'else'"},
      {K("x:\n  nop\nx:\n  nop"), 4, 1, "duplicate label 'x'"},
      {"a:\n.kernel k\n  halt\n.end\n.kernel k2\na:\n.end\n", 6, 1, "duplicate label 'a'"},
      {K("x:\n  if p1\n  endif x"), 4, 9, "'endif' takes no operands"},
  };
  run_error_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(parser, label_resolution_sees_the_whole_file) {
  wave_module *m = parse_ok(".kernel a\n  call later\n.end\n.kernel b\nlater:\n  return\n.end\n");
  wave_module_destroy(m);
  m = parse_ok(K("  fence_release device\n  fence_acquire .wave\n  atomic_add r1, r2, r3, system"));
  wave_module_destroy(m);
}

Test(parser, duplicate_label_points_at_the_first) {
  wave_diags d;
  cr_assert_null(parse(&d, "x:\n.kernel k\n  nop\n  x: nop\n.end\n"));
  cr_assert_eq(d.count, 2);
  cr_assert_eq(d.items[0].line, 4);
  cr_assert_eq(d.items[0].col, 3);
  cr_assert_eq(d.items[1].severity, WAVE_SEV_NOTE);
  cr_assert_eq(d.items[1].line, 1);
  cr_assert_eq(d.items[1].col, 1);
  cr_assert(strstr(d.items[1].message, "previous definition of 'x' is here"));
  wave_diags_free(&d);
}

Test(parser, diagnostics_quote_the_line) {
  wave_diags d;
  cr_assert_null(parse(&d, ".kernel k\r\n  iadd r0 r1 r2\r\n.end\r\n"));
  cr_assert_eq(d.count, 1);
  cr_assert_str_eq(d.items[0].source_line, "  iadd r0 r1 r2");
  wave_diags_free(&d);
}

/* ---- recovery and limits ------------------------------------------------------------------ */

Test(parser, recovery_reports_one_error_per_line) {
  wave_diags d;
  cr_assert_null(parse(&d, K("  iadd r0 r1 r2 [x]\n  foo\n  nop\n  halt r255")));
  cr_assert_eq(d.num_errors, 3);
  cr_assert_eq(d.items[0].line, 2);
  cr_assert_eq(d.items[1].line, 3);
  cr_assert_eq(d.items[2].line, 5);
  wave_diags_free(&d);
}

Test(parser, stops_after_twenty_errors) {
  char text[4096] = ".kernel k\n";
  tu_repeat(text, sizeof text, "  bogus\n", 40);
  strcat(text, ".end\n");
  wave_diags d;
  cr_assert_null(parse(&d, text));
  cr_assert_eq(d.num_errors, 20);
  cr_assert_eq(d.count, 21);
  cr_assert_eq(d.items[19].line, 21);
  cr_assert_eq(d.items[20].severity, WAVE_SEV_NOTE);
  cr_assert(strstr(d.items[20].message, "too many errors"));
  cr_assert_eq(d.max_errors, 0, "the caller's setting is restored");
  wave_diags_free(&d);

  wave_diags_init(&d);
  d.max_errors = 3;
  cr_assert_null(wave_parse_string(text, strlen(text), "t.wave", &d));
  cr_assert_eq(d.num_errors, 3);
  cr_assert_eq(d.max_errors, 3);
  wave_diags_free(&d);
}

Test(parser, never_crashes_on_odd_bytes) {
  static const char text[] = ".kernel k\n\0\0 iadd\xff r0,\x80\n  \x01\n  nop\n.end";
  wave_diags d;
  wave_diags_init(&d);
  cr_assert_null(wave_parse_string(text, sizeof(text) - 1, "t.wave", &d));
  cr_assert_eq(d.items[0].line, 2);
  cr_assert_eq(d.items[0].col, 1);
  cr_assert_str_eq(d.items[0].message, "unexpected byte 0x00");
  wave_diags_free(&d);

  /* A long line, a long name and a huge number. */
  size_t n = 1 << 20;
  char *big = malloc(n + 64);
  cr_assert_not_null(big);
  memcpy(big, ".kernel k\n  call ", 17);
  memset(big + 17, 'a', n);
  memcpy(big + 17 + n, "\n  mov_imm r0, 1", 16);
  memset(big + 33 + n, '9', 20);
  memcpy(big + 53 + n, "\n.end\n", 6);
  wave_diags_init(&d);
  cr_assert_null(wave_parse_string(big, n + 59, "t.wave", &d));
  cr_assert_eq(d.num_errors, 2);
  cr_assert(strstr(d.items[0].message, "does not fit in 64 bits"));
  cr_assert(strstr(d.items[1].message, "undefined label 'aaaa"));
  cr_assert_lt(strlen(d.items[1].message), 120, "long names are cut in messages");
  wave_diags_free(&d);
  free(big);
}

/* A file of megabytes is not kept whole: the parse gives its pages back as it passes them, and
 * a diagnostic found later quotes its line from the file. A file that shrank meanwhile gives
 * no quote, and no crash. */
/* A file of `head` and then a 12 MB kernel whose second line (`iadd r40, ...`) the verifier
 * rejects, positioned where the kernel starts. */
static FILE *large_file(const char *head) {
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  fputs(head, f);
  long start = ftell(f);
  fputs(".kernel k\n    iadd r40, r1, r2\n", f);
  char pad[4097];
  memset(pad, ' ', 4096);
  pad[4096] = '\0';
  for (int i = 0; i < 3000; i++)
    fprintf(f, "    nop%s\n", pad);
  fputs("    halt\n.end\n", f);
  cr_assert_eq(fseek(f, start, SEEK_SET), 0);
  return f;
}

static wave_module *parse_large(FILE *f) {
  wave_diags d;
  wave_diags_init(&d);
  int err = -1;
  wave_module *m = wave_parse_stream(f, "big.wave", &d, &err);
  cr_assert(m && err == 0 && d.count == 0);
  wave_diags_free(&d);
  return m;
}

/* The line the verifier quotes in its error about large_file's second line; NULL for none. */
static char *quoted_by_verify(const wave_module *m) {
  wave_diags d;
  wave_diags_init(&d);
  cr_assert_not(wave_verify_module(m, &d));
  cr_assert_eq(d.items[0].line, 2);
  char *line = d.items[0].source_line;
  d.items[0].source_line = NULL;
  wave_diags_free(&d);
  return line;
}

Test(parser, a_large_file_is_quoted_from_the_file) {
  FILE *f = large_file("");
  wave_module *m = parse_large(f);
  cr_assert_gt(m->source.released, 4u << 20, "the parse gave back %zu bytes", m->source.released);
  char *line = quoted_by_verify(m);
  cr_assert_str_eq(line, "    iadd r40, r1, r2");
  free(line);

  cr_assert_eq(ftruncate(fileno(f), 10), 0);
  cr_assert_null(quoted_by_verify(m), "the file no longer has the line");
  wave_module_destroy(m);
  fclose(f);
}

/* Offsets in the text are offsets in the file only for a stream read from its start: one read
 * from further on keeps its whole text, and quotes from it. */
Test(parser, a_large_stream_read_from_its_middle_keeps_its_text) {
  FILE *f = large_file("; a line the parse never sees\n");
  wave_module *m = parse_large(f);
  cr_assert_eq(m->source.released, 0, "nothing given back");
  char *line = quoted_by_verify(m);
  cr_assert_str_eq(line, "    iadd r40, r1, r2");
  free(line);
  wave_module_destroy(m);
  fclose(f);
}

Test(parser, empty_and_null_input) {
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_string(NULL, 0, NULL, &d);
  cr_assert_not_null(m);
  cr_assert_eq(wave_module_num_kernels(m), 0);
  cr_assert_str_eq(wave_module_file(m), "<input>");
  cr_assert_eq(m->source.num_lines, 1);
  wave_module_destroy(m);
  m = parse_ok("; only a comment\n\n");
  cr_assert_str_eq(m->trailing, "; only a comment");
  wave_module_destroy(m);
  wave_diags_free(&d);
}

/* ---- deep nesting ------------------------------------------------------------------------- */

enum { DEEP = 100000 };

Test(parser, hundred_thousand_deep_nesting) {
  size_t cap = (size_t)DEEP * 24 + 64, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  len += (size_t)sprintf(text, ".kernel deep\n");
  for (int i = 0; i < DEEP; i++)
    len += (size_t)sprintf(text + len, i % 2 ? "loop\n" : "if p1\n");
  len += (size_t)sprintf(text + len, "nop\n");
  for (int i = DEEP - 1; i >= 0; i--)
    len += (size_t)sprintf(text + len, i % 2 ? "endloop\n" : "else\nendif\n");
  sprintf(text + len, ".end\n");
  wave_module *m = parse_ok(text);
  wave_node *n = wave_node_list_first(entry(m));
  for (int i = 0; i < DEEP; i++) {
    cr_assert_not_null(n);
    cr_assert_eq(wave_node_kind_of(n), i % 2 ? WAVE_NODE_LOOP : WAVE_NODE_IF, "depth %d", i);
    cr_assert_null(wave_node_next(n));
    if (i % 2 == 0)
      cr_assert(wave_if_has_else(n));
    n = i % 2 ? wave_node_list_first(wave_loop_body(n)) : wave_node_list_first(wave_if_then(n));
  }
  cr_assert_eq(wave_node_kind_of(n), WAVE_NODE_BLOCK);
  cr_assert_eq(wave_instr_op(wave_block_first(n)), WAVE_OP_NOP);
  cr_assert_eq(wave_instr_loc(wave_block_first(n)).line, DEEP + 2);
  wave_module_destroy(m);
  free(text);
}

Test(parser, deep_unclosed_nesting_is_reported_without_recursion) {
  size_t cap = (size_t)DEEP * 8 + 64, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  len += (size_t)sprintf(text, ".kernel deep\n");
  for (int i = 0; i < DEEP; i++)
    len += (size_t)sprintf(text + len, "if p1\n");
  sprintf(text + len, ".end\n");
  wave_diags d;
  cr_assert_null(parse(&d, text));
  cr_assert_eq(d.items[0].line, 2);
  cr_assert(strstr(d.items[0].message, "'if' is not closed before '.end'"));
  cr_assert_eq(d.num_errors, 20);
  wave_diags_free(&d);
  free(text);
}

/* ---- files -------------------------------------------------------------------------------- */

Test(parser, parse_file_reads_and_reports) {
  char path[] = "/tmp/wave_parser_testXXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  const char *text = ".kernel f\n  halt\n.end\n";
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_file(path, &d);
  cr_assert_not_null(m);
  cr_assert_str_eq(wave_module_file(m), path);
  cr_assert_str_eq(wave_module_first_kernel(m)->name, "f");
  wave_module_destroy(m);
  unlink(path);

  cr_assert_null(wave_parse_file(path, &d));
  cr_assert_eq(d.count, 1);
  cr_assert_eq(d.items[0].line, 0);
  char want[128];
  snprintf(want, sizeof(want), "cannot open '%s': No such file or directory", path);
  cr_assert_str_eq(d.items[0].message, want);
  wave_diags_free(&d);

  wave_diags_init(&d);
  cr_assert_null(wave_parse_file("/tmp", &d));
  cr_assert(strstr(d.items[0].message, "cannot read '/tmp'"), "%s", d.items[0].message);
  wave_diags_free(&d);
}
