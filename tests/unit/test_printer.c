/* SPDX-License-Identifier: Apache-2.0 */
/* The canonical printer: exact text for builder-made modules, dialect rules, write errors. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/module.h"
#include "test_util.h"
#include "waveopt/waveopt.h"

/* ---- building helpers ---------------------------------------------------------------------- */

static wave_module *mod;

static void setup(void) { mod = wave_module_create("test.wave"); }
static void teardown(void) { wave_module_destroy(mod); }

TestSuite(printer, .init = setup, .fini = teardown);

#define OPS(...)                                                                         \
  (unsigned)(sizeof((wave_operand[]){__VA_ARGS__}) / sizeof(wave_operand)),            \
      (wave_operand[]) { __VA_ARGS__ }

static wave_node *entry_block(wave_kernel *k) {
  wave_node *b = wave_node_list_tail_block(mod, wave_region_body(wave_kernel_first_region(k)));
  cr_assert_not_null(b);
  return b;
}

static wave_instr *add_guarded(wave_node *block, int guard, bool neg, wave_opcode op, unsigned n,
                               const wave_operand *ops) {
  wave_instr *in = wave_instr_create(mod, op, guard, neg, n, ops);
  cr_assert_not_null(in);
  wave_block_append(block, in);
  return in;
}

static wave_instr *add(wave_node *block, wave_opcode op, unsigned n, const wave_operand *ops) {
  return add_guarded(block, WAVE_NO_GUARD, false, op, n, ops);
}

static wave_operand imm_form(uint32_t bits, wave_imm_form form) {
  wave_operand o = wave_imm(bits);
  o.imm_form = (uint8_t)form;
  return o;
}

static wave_operand half(uint32_t r, wave_half h) {
  wave_operand o = wave_gpr(r);
  o.half = (uint8_t)h;
  return o;
}

static char *print_with(wave_dialect dialect, bool strip, unsigned max_indent) {
  wave_print_options opts = {dialect, strip, max_indent};
  size_t len = 0;
  char *text = wave_print_to_string(mod, &opts, &len);
  if (text)
    cr_assert_eq(len, strlen(text));
  return text;
}

static void expect_text(wave_dialect dialect, bool strip, const char *expected) {
  char *text = print_with(dialect, strip, 0);
  cr_assert_not_null(text, "printing failed");
  cr_assert_str_eq(text, expected);
  free(text);
}

/* ---- every operand kind ---------------------------------------------------------------------- */

Test(printer, every_operand_kind_guard_and_hint) {
  wave_kernel *k = wave_kernel_create(mod, "all_operands");
  k->has_registers = true;
  k->registers = 40;
  k->has_local_memory = true;
  k->local_memory = 1024;
  k->has_workgroup_size = true;
  k->workgroup_size[0] = 64;
  k->workgroup_size[1] = 2;
  k->workgroup_size[2] = 1;
  wave_node *b = entry_block(k);
  add(b, WAVE_OP_IADD, OPS(wave_gpr(0), wave_gpr(1), wave_gpr(254)));
  add(b, WAVE_OP_HADD, OPS(half(3, WAVE_HALF_LO), half(4, WAVE_HALF_HI), wave_gpr(5)));
  add(b, WAVE_OP_MOV_SR, OPS(wave_gpr(6), wave_sreg(4)));
  add(b, WAVE_OP_MOV_SR, OPS(wave_gpr(7), wave_sreg(19)));
  add(b, WAVE_OP_MOV_SR, OPS(wave_gpr(7), wave_sreg(0)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(8), imm_form(0xFFFFFFFFu, WAVE_IMM_DECIMAL)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(8), imm_form(0, WAVE_IMM_DECIMAL)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(9), imm_form((uint32_t)-5, WAVE_IMM_NEGATIVE)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(9), imm_form(0x80000000u, WAVE_IMM_NEGATIVE)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(10), imm_form(0x40A00000u, WAVE_IMM_HEX)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(10), imm_form(0xabcu, WAVE_IMM_HEX)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(10), imm_form(0, WAVE_IMM_HEX)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(11), imm_form(0x3F800000u, WAVE_IMM_FLOAT)));
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(11), imm_form(0x2Au, WAVE_IMM_FLOAT)));
  add(b, WAVE_OP_ICMP_LT, OPS(wave_pred(1), wave_gpr(0), wave_gpr(1)));
  add(b, WAVE_OP_SELECT, OPS(wave_gpr(13), wave_pred(2), wave_gpr(0), wave_gpr(1)));
  add_guarded(b, 1, false, WAVE_OP_FADD, OPS(wave_gpr(14), wave_gpr(14), wave_gpr(15)));
  add_guarded(b, 3, true, WAVE_OP_HALT, 0, NULL);
  add_guarded(b, 0, true, WAVE_OP_MOV, OPS(wave_gpr(1), wave_gpr(2)));
  wave_instr *load = add(b, WAVE_OP_DEVICE_LOAD_U32, OPS(wave_gpr(16), wave_gpr(17)));
  wave_instr_set_cache_hint(load, WAVE_HINT_UNCACHED);
  wave_instr *cached = add(b, WAVE_OP_LOCAL_LOAD_U8, OPS(wave_gpr(16), wave_gpr(17)));
  wave_instr_set_cache_hint(cached, WAVE_HINT_CACHED);
  wave_instr *streaming = add(b, WAVE_OP_DEVICE_LOAD_U64, OPS(wave_gpr(18), wave_gpr(17)));
  wave_instr_set_cache_hint(streaming, WAVE_HINT_STREAMING);
  add(b, WAVE_OP_DEVICE_STORE_U32, OPS(wave_gpr(17), wave_gpr(16)));
  add(b, WAVE_OP_ATOMIC_ADD,
      OPS(wave_gpr(20), wave_gpr(17), wave_gpr(16), wave_scope_operand(WAVE_SCOPE_DEVICE)));
  wave_operand none = {0};
  add(b, WAVE_OP_ATOMIC_OR,
      OPS(none, wave_gpr(17), wave_gpr(16), wave_scope_operand(WAVE_SCOPE_SYSTEM)));
  add(b, WAVE_OP_LOCAL_ATOMIC_CAS, OPS(wave_gpr(21), wave_gpr(17), wave_gpr(16), wave_gpr(15)));
  add(b, WAVE_OP_FENCE_RELEASE, OPS(wave_scope_operand(WAVE_SCOPE_WORKGROUP)));
  add(b, WAVE_OP_FENCE_ACQUIRE, OPS(wave_scope_operand(WAVE_SCOPE_WAVE)));
  add(b, WAVE_OP_WAVE_BALLOT, OPS(wave_gpr(22), wave_pred(0)));
  add(b, WAVE_OP_WAVE_ANY, OPS(wave_pred(3), wave_pred(2)));
  add(b, WAVE_OP_MMA_COMPUTE, OPS(wave_gpr(1), wave_gpr(2), wave_gpr(3)));
  add(b, WAVE_OP_CALL, OPS(wave_label_operand("sub")));
  add(b, WAVE_OP_BARRIER, 0, NULL);
  add(b, WAVE_OP_RETURN, 0, NULL);
  wave_region *sub = wave_region_create(k, "sub");
  cr_assert_not_null(sub);
  wave_node *sb = wave_node_list_tail_block(mod, wave_region_body(sub));
  add(sb, WAVE_OP_NOP, 0, NULL);
  add(sb, WAVE_OP_HALT, 0, NULL);

  static const char expected[] =
      ".kernel all_operands\n"
      ".registers 40\n"
      ".local_memory 1024\n"
      ".workgroup_size 64, 2, 1\n"
      "    iadd r0, r1, r254\n"
      "    hadd r3.lo, r4.hi, r5\n"
      "    mov_sr r6, sr_lane_id\n"
      "    mov_sr r7, sr_mma_k\n"
      "    mov_sr r7, sr_thread_id_x\n"
      "    mov_imm r8, 4294967295\n"
      "    mov_imm r8, 0\n"
      "    mov_imm r9, -5\n"
      "    mov_imm r9, -2147483648\n"
      "    mov_imm r10, 0x40A00000\n"
      "    mov_imm r10, 0xABC\n"
      "    mov_imm r10, 0x0\n"
      "    mov_imm r11, 0x3F800000\n"
      "    mov_imm r11, 0x0000002A\n"
      "    icmp_lt p1, r0, r1\n"
      "    select r13, p2, r0, r1\n"
      "    @p1 fadd r14, r14, r15\n"
      "    @!p3 halt\n"
      "    @!p0 mov r1, r2\n"
      "    device_load_u32.uncached r16, r17\n"
      "    local_load_u8.cached r16, r17\n"
      "    device_load_u64.streaming r18, r17\n"
      "    device_store_u32 r17, r16\n"
      "    atomic_add r20, r17, r16, .device\n"
      "    atomic_or r17, r16, .system\n"
      "    local_atomic_cas r21, r17, r16, r15\n"
      "    fence_release .workgroup\n"
      "    fence_acquire .wave\n"
      "    wave_ballot r22, p0\n"
      "    wave_any p3, p2\n"
      "    mma_compute r1, r2, r3\n"
      "    call sub\n"
      "    barrier\n"
      "    return\n"
      "sub:\n"
      "    nop\n"
      "    halt\n"
      ".end\n";
  expect_text(WAVE_DIALECT_ASM, false, expected);
  expect_text(WAVE_DIALECT_DOCS, false, expected);
}

Test(printer, empty_module_prints_nothing) { expect_text(WAVE_DIALECT_ASM, false, ""); }

Test(printer, kernel_defaults_print_no_directives) {
  wave_kernel *k = wave_kernel_create(mod, "plain");
  add(entry_block(k), WAVE_OP_HALT, 0, NULL);
  expect_text(WAVE_DIALECT_ASM, false, ".kernel plain\n    halt\n.end\n");
}

/* ---- structure, comments and labels --------------------------------------------------------- */

static void build_commented_module(void) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  k->kernel_src.leading = "; kernel comment";
  k->kernel_src.comment = "; on .kernel";
  k->has_registers = true;
  k->registers = 8;
  k->registers_src.leading = "# regs";
  k->registers_src.comment = "; eight";
  k->end_src.leading = "; before end";
  k->end_src.comment = "; the end";
  wave_node_list *body = wave_region_body(wave_kernel_first_region(k));
  wave_node *b = wave_node_list_tail_block(mod, body);
  wave_instr *sum = add(b, WAVE_OP_IADD, OPS(wave_gpr(0), wave_gpr(1), wave_gpr(2)));
  tu_set_origin(sum, wave_instr_loc(sum), "; lead 1\n; lead 2", "; sum");
  wave_node *ifn = wave_if_create(mod, wave_pred(1));
  wave_node_list_append(body, ifn);
  wave_loc at = wave_node_origin(ifn, WAVE_LINE_IF).loc;
  tu_set_node_origin(ifn, WAVE_LINE_IF, at, "; about the if", "; cond");
  tu_set_node_origin(ifn, WAVE_LINE_ELSE, at, NULL, "; otherwise");
  tu_set_node_origin(ifn, WAVE_LINE_ENDIF, at, NULL, "; done");
  wave_if_set_has_else(ifn, true);
  wave_node *tb = wave_node_list_tail_block(mod, wave_if_then(ifn));
  wave_instr *inner = add(tb, WAVE_OP_NOP, 0, NULL);
  tu_set_origin(inner, wave_instr_loc(inner), "; inside", NULL);
  wave_node *eb = wave_node_list_tail_block(mod, wave_if_else(ifn));
  add(eb, WAVE_OP_WAIT, 0, NULL);
  wave_node *lp = wave_loop_create(mod);
  wave_node_list_append(body, lp);
  tu_set_node_origin(lp, WAVE_LINE_LOOP, at, NULL, "; spin");
  tu_set_node_origin(lp, WAVE_LINE_ENDLOOP, at, "; closing", NULL);
  wave_node *lb = wave_node_list_tail_block(mod, wave_loop_body(lp));
  add(lb, WAVE_OP_BREAK, OPS(wave_pred(1)));
  wave_node *after = wave_node_list_tail_block(mod, body);
  add(after, WAVE_OP_HALT, 0, NULL);
  wave_region *sub = wave_region_create(k, "helper");
  sub->label_src.leading = "; subroutine";
  sub->label_src.comment = "; called nowhere";
  add(wave_node_list_tail_block(mod, wave_region_body(sub)), WAVE_OP_RETURN, 0, NULL);

  wave_kernel *k2 = wave_kernel_create(mod, "k2");
  k2->kernel_src.leading = "; second kernel";
  add(entry_block(k2), WAVE_OP_HALT, 0, NULL);

  wave_stray_label *top = wave_module_alloc(mod, sizeof(*top));
  top->name = "top";
  top->src.leading = "; stray before";
  top->before = k;
  wave_stray_label *mid = wave_module_alloc(mod, sizeof(*mid));
  mid->name = "between";
  mid->before = k2;
  wave_stray_label *tail = wave_module_alloc(mod, sizeof(*tail));
  tail->name = "tail";
  tail->src.comment = "; last label";
  top->next = mid;
  mid->next = tail;
  mod->first_stray = top;
  mod->last_stray = tail;
  mod->trailing = "; trailing 1\n; trailing 2";
}

Test(printer, comments_labels_and_stray_labels) {
  build_commented_module();
  expect_text(WAVE_DIALECT_ASM, false,
              "; stray before\n"
              "top:\n"
              "; kernel comment\n"
              ".kernel k ; on .kernel\n"
              "# regs\n"
              ".registers 8 ; eight\n"
              "    ; lead 1\n"
              "    ; lead 2\n"
              "    iadd r0, r1, r2 ; sum\n"
              "    ; about the if\n"
              "    if p1 ; cond\n"
              "        ; inside\n"
              "        nop\n"
              "    else ; otherwise\n"
              "        wait\n"
              "    endif ; done\n"
              "    loop ; spin\n"
              "        break p1\n"
              "    ; closing\n"
              "    endloop\n"
              "    halt\n"
              "; subroutine\n"
              "helper: ; called nowhere\n"
              "    return\n"
              "; before end\n"
              ".end ; the end\n"
              "\n"
              "between:\n"
              "; second kernel\n"
              ".kernel k2\n"
              "    halt\n"
              ".end\n"
              "\n"
              "tail: ; last label\n"
              "; trailing 1\n"
              "; trailing 2\n");
}

Test(printer, strip_comments_drops_every_comment) {
  build_commented_module();
  expect_text(WAVE_DIALECT_ASM, true,
              "top:\n"
              ".kernel k\n"
              ".registers 8\n"
              "    iadd r0, r1, r2\n"
              "    if p1\n"
              "        nop\n"
              "    else\n"
              "        wait\n"
              "    endif\n"
              "    loop\n"
              "        break p1\n"
              "    endloop\n"
              "    halt\n"
              "helper:\n"
              "    return\n"
              ".end\n"
              "\n"
              "between:\n"
              ".kernel k2\n"
              "    halt\n"
              ".end\n"
              "\n"
              "tail:\n");
}

Test(printer, else_only_when_present_or_nonempty) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node_list *body = wave_region_body(wave_kernel_first_region(k));
  wave_node *a = wave_if_create(mod, wave_pred(1));
  wave_node_list_append(body, a);
  wave_node *b = wave_if_create(mod, wave_pred(2));
  wave_if_set_has_else(b, true);
  wave_node_list_append(body, b);
  wave_node *c = wave_if_create(mod, wave_pred(3));
  wave_node_list_append(body, c);
  add(wave_node_list_tail_block(mod, wave_if_else(c)), WAVE_OP_NOP, 0, NULL);
  expect_text(WAVE_DIALECT_ASM, false,
              ".kernel k\n"
              "    if p1\n"
              "    endif\n"
              "    if p2\n"
              "    else\n"
              "    endif\n"
              "    if p3\n"
              "    else\n"
              "        nop\n"
              "    endif\n"
              ".end\n");
}

/* ---- indentation cap ------------------------------------------------------------------------- */

/* depth loops nested in each other with a nop in the innermost. */
static void build_nest(unsigned depth) {
  wave_kernel *k = wave_kernel_create(mod, "deep");
  wave_node_list *list = wave_region_body(wave_kernel_first_region(k));
  for (unsigned i = 0; i < depth; i++) {
    wave_node *lp = wave_loop_create(mod);
    cr_assert_not_null(lp);
    wave_node_list_append(list, lp);
    list = wave_loop_body(lp);
  }
  add(wave_node_list_tail_block(mod, list), WAVE_OP_NOP, 0, NULL);
}

static void append_line(char **at, unsigned level, unsigned cap, const char *word) {
  unsigned spaces = 4 * (level < cap ? level : cap);
  memset(*at, ' ', spaces);
  *at += spaces;
  *at += sprintf(*at, "%s\n", word);
}

Test(printer, indentation_is_capped_at_16_levels) {
  enum { DEPTH = 40 };
  build_nest(DEPTH);
  char *expected = malloc(64 * 1024);
  char *at = expected;
  at += sprintf(at, ".kernel deep\n");
  for (unsigned i = 0; i < DEPTH; i++)
    append_line(&at, i + 1, 16, "loop");
  append_line(&at, DEPTH + 1, 16, "nop");
  for (unsigned i = DEPTH; i-- > 0;)
    append_line(&at, i + 1, 16, "endloop");
  sprintf(at, ".end\n");
  char *text = print_with(WAVE_DIALECT_ASM, false, 0);
  cr_assert_not_null(text);
  cr_assert_str_eq(text, expected);
  /* The cap really bites: the deepest lines are 64 spaces in, not 164. */
  cr_assert_not_null(
      strstr(text, "\n                                                                nop\n"));
  cr_assert_null(strstr(text, "                                                                 "));
  free(text);
  free(expected);
}

Test(printer, explicit_indent_cap) {
  build_nest(3);
  char *text = print_with(WAVE_DIALECT_ASM, false, 2);
  cr_assert_not_null(text);
  cr_assert_str_eq(text, ".kernel deep\n"
                         "    loop\n"
                         "        loop\n"
                         "        loop\n"
                         "        nop\n"
                         "        endloop\n"
                         "        endloop\n"
                         "    endloop\n"
                         ".end\n");
  free(text);
}

Test(printer, hundred_thousand_deep_nest_prints_in_linear_size) {
  enum { DEPTH = 100000 };
  build_nest(DEPTH);
  size_t len = 0;
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  char *text = wave_print_to_string(mod, &opts, &len);
  cr_assert_not_null(text);
  size_t expect = strlen(".kernel deep\n") + strlen(".end\n") + 4 * 16 + strlen("nop\n");
  for (unsigned level = 1; level <= DEPTH; level++) {
    unsigned spaces = 4 * (level < 16 ? level : 16);
    expect += spaces + strlen("loop\n") + spaces + strlen("endloop\n");
  }
  cr_assert_eq(len, expect);
  free(text);
}

/* ---- dialects -------------------------------------------------------------------------------- */

typedef struct docs_form {
  const char *text;
  wave_opcode op;
  unsigned n;
  wave_operand ops[4];
} docs_form;

static docs_form docs_forms(unsigned i, bool *more) {
  wave_operand neg_p1 = wave_not_pred(1);
  const docs_form forms[] = {
      {"and p2, p0, p1", WAVE_OP_PAND, 3, {wave_pred(2), wave_pred(0), wave_pred(1)}},
      {"or p3, p3, p0", WAVE_OP_POR, 3, {wave_pred(3), wave_pred(3), wave_pred(0)}},
      {"xor p1, p2, p3", WAVE_OP_PXOR, 3, {wave_pred(1), wave_pred(2), wave_pred(3)}},
      {"not p1, p2", WAVE_OP_PNOT, 2, {wave_pred(1), wave_pred(2)}},
      {"break !p1", WAVE_OP_BREAK, 1, {neg_p1}},
      {"continue !p1", WAVE_OP_CONTINUE, 1, {neg_p1}},
      {"select r0, !p1, r1, r2", WAVE_OP_SELECT, 4,
       {wave_gpr(0), neg_p1, wave_gpr(1), wave_gpr(2)}},
      {"iadd r0, r0, 1", WAVE_OP_IADD, 3, {wave_gpr(0), wave_gpr(0), wave_imm(1)}},
      {"shl r4, 0x10, r3", WAVE_OP_SHL, 3, {wave_gpr(4), imm_form(16, WAVE_IMM_HEX), wave_gpr(3)}},
      {"isub r1, r1, -3", WAVE_OP_ISUB, 3,
       {wave_gpr(1), wave_gpr(1), imm_form((uint32_t)-3, WAVE_IMM_NEGATIVE)}},
      {"mov r5, 7", WAVE_OP_MOV, 2, {wave_gpr(5), wave_imm(7)}},
      {"ucmp_ge p1, r0, r1", WAVE_OP_UCMP_GE, 3, {wave_pred(1), wave_gpr(0), wave_gpr(1)}},
      {"ucmp_gt p1, r0, r1", WAVE_OP_UCMP_GT, 3, {wave_pred(1), wave_gpr(0), wave_gpr(1)}},
      {"ucmp_eq p1, r0, r1", WAVE_OP_UCMP_EQ, 3, {wave_pred(1), wave_gpr(0), wave_gpr(1)}},
      {"ucmp_ne p1, r0, r1", WAVE_OP_UCMP_NE, 3, {wave_pred(1), wave_gpr(0), wave_gpr(1)}},
      {"fcmp_ge p2, r3, 0x3F800000", WAVE_OP_FCMP_GE, 3,
       {wave_pred(2), wave_gpr(3), imm_form(0x3F800000u, WAVE_IMM_FLOAT)}},
  };
  unsigned count = sizeof(forms) / sizeof(forms[0]);
  *more = i + 1 < count;
  return forms[i < count ? i : 0];
}

Test(printer, docs_dialect_prints_pseudo_forms_and_asm_refuses_them) {
  bool more = true;
  for (unsigned i = 0; more; i++) {
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    docs_form f = docs_forms(i, &more);
    wave_kernel *k = wave_kernel_create(mod, "k");
    add(entry_block(k), f.op, f.n, f.ops);
    char expected[128];
    snprintf(expected, sizeof(expected), ".kernel k\n    %s\n.end\n", f.text);
    expect_text(WAVE_DIALECT_DOCS, false, expected);
    cr_assert_null(print_with(WAVE_DIALECT_ASM, false, 0), "asm dialect printed '%s'", f.text);
    wave_print_options asm_opts = {WAVE_DIALECT_ASM, false, 0};
    FILE *sink = fopen("/dev/null", "w");
    cr_assert_eq(wave_print_file(mod, &asm_opts, sink), -1);
    fclose(sink);
  }
}

Test(printer, docs_negated_if_condition) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node *ifn = wave_if_create(mod, wave_not_pred(2));
  wave_node_list_append(wave_region_body(wave_kernel_first_region(k)), ifn);
  expect_text(WAVE_DIALECT_DOCS, false, ".kernel k\n    if !p2\n    endif\n.end\n");
  cr_assert_null(print_with(WAVE_DIALECT_ASM, false, 0));
}

Test(printer, guarded_pseudo_form_in_docs_dialect) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  add_guarded(entry_block(k), 3, true, WAVE_OP_PAND,
              OPS(wave_pred(0), wave_pred(1), wave_pred(2)));
  expect_text(WAVE_DIALECT_DOCS, false, ".kernel k\n    @!p3 and p0, p1, p2\n.end\n");
}

/* ---- writing --------------------------------------------------------------------------------- */

typedef struct failing_writer {
  unsigned calls;
  unsigned fail_at; /* 1-based call that fails */
  size_t bytes;
} failing_writer;

static int failing_write(void *ctx, const char *data, size_t len) {
  failing_writer *w = ctx;
  w->calls++;
  if (w->calls >= w->fail_at)
    return 1;
  w->bytes += len;
  return 0;
}

static void build_long_kernel(unsigned n) {
  wave_kernel *k = wave_kernel_create(mod, "long");
  wave_node *b = entry_block(k);
  for (unsigned i = 0; i < n; i++)
    add(b, WAVE_OP_IMAD, OPS(wave_gpr(i % 200), wave_gpr(1), wave_gpr(2), wave_gpr(3)));
}

Test(printer, write_error_stops_printing) {
  build_long_kernel(20000); /* far more than one buffer of output */
  wave_print_options opts = {0};
  failing_writer first = {0, 1, 0};
  cr_assert_eq(wave_print_module(mod, &opts, failing_write, &first), -1);
  cr_assert_eq(first.calls, 1, "printing went on after the first write failed");
  failing_writer third = {0, 3, 0};
  cr_assert_eq(wave_print_module(mod, &opts, failing_write, &third), -1);
  cr_assert_eq(third.calls, 3);
  failing_writer never = {0, 1u << 30, 0};
  cr_assert_eq(wave_print_module(mod, &opts, failing_write, &never), 0);
  cr_assert_gt(never.calls, 3);
  size_t len = 0;
  char *text = wave_print_to_string(mod, &opts, &len);
  cr_assert_not_null(text);
  cr_assert_eq(never.bytes, len);
  free(text);
}

Test(printer, asm_refusal_stops_before_writing_more) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  add(entry_block(k), WAVE_OP_PNOT, OPS(wave_pred(1), wave_pred(2)));
  build_long_kernel(20000);
  wave_print_options opts = {0};
  failing_writer w = {0, 1u << 30, 0};
  cr_assert_eq(wave_print_module(mod, &opts, failing_write, &w), -1);
  cr_assert_eq(w.calls, 0, "%zu bytes were written after the refusal", w.bytes);
  opts.dialect = WAVE_DIALECT_DOCS;
  cr_assert_eq(wave_print_module(mod, &opts, failing_write, &w), 0);
  cr_assert_gt(w.bytes, 20000 * 10);
}

/* A comment longer than the printer's buffer goes to the writer in one piece, after what the
 * buffer held; a failure of that write stops printing like any other. */
Test(printer, comment_longer_than_the_buffer) {
  enum { LONG = 20000 };
  char *comment = malloc(LONG + 1);
  cr_assert_not_null(comment);
  comment[0] = ';';
  memset(comment + 1, 'x', LONG - 1);
  comment[LONG] = '\0';
  wave_kernel *k = wave_kernel_create(mod, "k");
  k->kernel_src.leading = comment;
  add(entry_block(k), WAVE_OP_HALT, 0, NULL);
  char *text = print_with(WAVE_DIALECT_ASM, false, 0);
  cr_assert_not_null(text);
  cr_assert_eq(strncmp(text, comment, LONG), 0);
  cr_assert_str_eq(text + LONG, "\n.kernel k\n    halt\n.end\n");
  free(text);
  wave_print_options opts = {0};
  failing_writer w = {0, 1, 0};
  cr_assert_eq(wave_print_module(mod, &opts, failing_write, &w), -1);
  cr_assert_eq(w.calls, 1, "printing went on after the long comment's write failed");
  free(comment);
}

/* IR built by hand can hold what no text spells: an unknown special register, memory scope,
 * operand kind, opcode or cache hint, or a label without a name. Neither dialect prints it:
 * the printer answers -1 instead of writing text that would mean something else. */
Test(printer, forms_no_text_spells_are_refused) {
  enum { SREG, SCOPE, LABEL, KIND, OPCODE, HINT, CASES };
  for (int c = 0; c < CASES; c++) {
    wave_module_destroy(mod);
    mod = wave_module_create("test.wave");
    wave_node *b = entry_block(wave_kernel_create(mod, "k"));
    wave_instr *in;
    switch (c) {
    case SREG:
      in = add(b, WAVE_OP_MOV_SR, OPS(wave_gpr(1), wave_sreg(0)));
      tu_set_operand_value(in, 1, WAVE_NUM_SREGS);
      break;
    case SCOPE:
      in = add(b, WAVE_OP_FENCE_ACQUIRE, OPS(wave_scope_operand(WAVE_SCOPE_DEVICE)));
      tu_set_operand_value(in, 0, 4);
      break;
    case LABEL:
      in = add(b, WAVE_OP_CALL, OPS(wave_label_operand("f")));
      cr_assert(wave_instr_set_operand(in, 0, wave_label_operand(NULL)));
      break;
    case KIND:
      in = add(b, WAVE_OP_MOV, OPS(wave_gpr(1), wave_gpr(2)));
      {
        wave_operand o = wave_gpr(2);
        o.kind = 99;
        cr_assert(wave_instr_set_operand(in, 1, o));
      }
      break;
    case OPCODE:
      in = add(b, WAVE_OP_MOV, OPS(wave_gpr(1), wave_gpr(2)));
      wave_instr_set_op(in, WAVE_OP_COUNT);
      break;
    case HINT:
      in = add(b, WAVE_OP_DEVICE_LOAD_U32, OPS(wave_gpr(1), wave_gpr(2)));
      wave_instr_set_cache_hint(in, 9);
      break;
    }
    add(b, WAVE_OP_HALT, 0, NULL);
    for (int d = 0; d < 2; d++) {
      wave_print_options opts = {d ? WAVE_DIALECT_DOCS : WAVE_DIALECT_ASM, false, 0};
      failing_writer w = {0, 1u << 30, 0};
      cr_assert_eq(wave_print_module(mod, &opts, failing_write, &w), -1, "case %d, dialect %d",
                   c, d);
      cr_assert_eq(w.calls, 0, "case %d, dialect %d: %zu bytes written", c, d, w.bytes);
    }
  }
}

Test(printer, full_disk_is_an_error) {
  FILE *full = fopen("/dev/full", "w");
  if (!full)
    cr_skip_test("no /dev/full");
  build_long_kernel(10);
  wave_print_options opts = {0};
  cr_assert_eq(wave_print_file(mod, &opts, full), -1);
  fclose(full);
}

Test(printer, print_file_writes_the_same_text) {
  build_commented_module();
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  cr_assert_eq(wave_print_file(mod, NULL, f), 0);
  long size = ftell(f);
  rewind(f);
  char *data = calloc(1, (size_t)size + 1);
  cr_assert_eq(fread(data, 1, (size_t)size, f), (size_t)size);
  char *text = wave_print_to_string(mod, NULL, NULL);
  cr_assert_str_eq(data, text);
  free(data);
  free(text);
  fclose(f);
}

Test(printer, million_instructions_print_fast) {
  enum { N = 1000000 };
  build_long_kernel(N);
  clock_t start = clock();
  size_t len = 0;
  char *text = wave_print_to_string(mod, NULL, &len);
  double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  cr_assert_not_null(text);
  cr_assert_gt(len, (size_t)N * 20);
  cr_assert_str_eq(text + len - 5, ".end\n");
  free(text);
  cr_log_info("printed %d instructions in %.3f s", N, seconds);
  /* Generous so that sanitizer builds pass; an unbuffered printf-per-token printer is slower. */
  cr_assert_lt(seconds, 3.0, "printing 1M instructions took %.2f s", seconds);
}

/* ---- wave_format_instr ----------------------------------------------------------------------- */

Test(printer, format_instr_for_diagnostics) {
  wave_instr *in = wave_instr_create(mod, WAVE_OP_BREAK, 2, true, OPS(wave_not_pred(1)));
  char buf[64];
  cr_assert_eq(wave_format_instr(in, buf, sizeof(buf)), strlen("@!p2 break !p1"));
  cr_assert_str_eq(buf, "@!p2 break !p1");
  char small[6];
  cr_assert_eq(wave_format_instr(in, small, sizeof(small)), 14);
  cr_assert_str_eq(small, "@!p2 ");
  cr_assert_eq(wave_format_instr(in, NULL, 0), 14);
}

/* ---- round trips through the parser ---------------------------------------------------------- */

/* One statement of a region, flattened: an instruction or a structure keyword. */
typedef struct item {
  wave_walk_event event;
  const wave_node *node;
  const wave_instr *instr;
} item;

typedef struct flat {
  item *items;
  size_t count, cap;
} flat;

static void push(flat *f, item it) {
  if (f->count == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->items = realloc(f->items, f->cap * sizeof(*f->items));
    cr_assert_not_null(f->items);
  }
  f->items[f->count++] = it;
}

static void flatten(flat *f, wave_node_list *list) {
  wave_walker w;
  wave_walk_init(&w, list);
  while (wave_walk_next(&w)) {
    if (w.event == WAVE_WALK_BLOCK) {
      for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in))
        push(f, (item){WAVE_WALK_BLOCK, w.node, in});
    } else if (w.event != WAVE_WALK_ELSE || wave_if_has_else(w.node) ||
               wave_node_list_first(wave_if_else(w.node))) {
      push(f, (item){w.event, w.node, NULL});
    }
  }
}

static void same_operand(const wave_operand *a, const wave_operand *b, const char *where) {
  cr_assert_eq(a->kind, b->kind, "%s: operand kind", where);
  cr_assert_eq(a->value, b->value, "%s: operand value", where);
  cr_assert_eq(a->negated, b->negated, "%s: negation", where);
  cr_assert_eq(a->half, b->half, "%s: half", where);
  if (a->kind == WAVE_OPERAND_LABEL)
    cr_assert_str_eq(a->label, b->label, "%s: label", where);
}

static void same_region(wave_region *ra, wave_region *rb) {
  cr_assert_eq(ra->label == NULL, rb->label == NULL);
  if (ra->label)
    cr_assert_str_eq(ra->label, rb->label);
  flat fa = {0}, fb = {0};
  flatten(&fa, &ra->body);
  flatten(&fb, &rb->body);
  cr_assert_eq(fa.count, fb.count, "statement count in region %s", ra->label ? ra->label : "");
  for (size_t i = 0; i < fa.count; i++) {
    item *a = &fa.items[i], *b = &fb.items[i];
    cr_assert_eq(a->event, b->event, "statement %zu", i);
    if (a->event == WAVE_WALK_IF) {
      wave_operand ca = wave_if_cond(a->node), cb = wave_if_cond(b->node);
      same_operand(&ca, &cb, "if");
    }
    if (a->event != WAVE_WALK_BLOCK)
      continue;
    const wave_instr *x = a->instr, *y = b->instr;
    const char *m = wave_opcode_table[wave_instr_op(x)].mnemonic;
    cr_assert_eq(wave_instr_op(x), wave_instr_op(y), "statement %zu: %s vs %s", i, m,
                 wave_opcode_table[wave_instr_op(y)].mnemonic);
    cr_assert_eq(wave_instr_guard(x), wave_instr_guard(y), "%s guard", m);
    cr_assert_eq(wave_instr_guard_negated(x), wave_instr_guard_negated(y), "%s guard negation", m);
    cr_assert_eq(wave_instr_cache_hint(x), wave_instr_cache_hint(y), "%s hint", m);
    cr_assert_eq(wave_instr_num_operands(x), wave_instr_num_operands(y), "%s operand count", m);
    for (unsigned o = 0; o < wave_instr_num_operands(x); o++) {
      wave_operand ox = wave_instr_operand(x, o), oy = wave_instr_operand(y, o);
      same_operand(&ox, &oy, m);
    }
  }
  free(fa.items);
  free(fb.items);
}

/* The two modules denote the same program: kernels, metadata, labels and every statement. */
static void same_module(const wave_module *a, const wave_module *b) {
  cr_assert_eq(wave_module_num_kernels(a), wave_module_num_kernels(b));
  const wave_kernel *ka = wave_module_first_kernel(a), *kb = wave_module_first_kernel(b);
  for (; ka; ka = ka->next, kb = kb->next) {
    cr_assert_str_eq(ka->name, kb->name);
    cr_assert_eq(wave_kernel_has_registers(ka), wave_kernel_has_registers(kb));
    cr_assert_eq(ka->registers, kb->registers);
    cr_assert_eq(wave_kernel_has_local_memory(ka), wave_kernel_has_local_memory(kb));
    cr_assert_eq(wave_kernel_local_memory(ka), wave_kernel_local_memory(kb));
    cr_assert_eq(wave_kernel_has_workgroup_size(ka), wave_kernel_has_workgroup_size(kb));
    cr_assert_arr_eq(ka->workgroup_size, kb->workgroup_size, sizeof(ka->workgroup_size));
    wave_region *ra = wave_kernel_first_region(ka), *rb = wave_kernel_first_region(kb);
    for (; ra && rb; ra = ra->next, rb = rb->next)
      same_region(ra, rb);
    cr_assert(!ra && !rb, "region count of %s", ka->name);
  }
  const wave_stray_label *sa = a->first_stray, *sb = b->first_stray;
  for (; sa && sb; sa = sa->next, sb = sb->next) {
    cr_assert_str_eq(sa->name, sb->name);
    cr_assert_eq(sa->before == NULL, sb->before == NULL);
    if (sa->before)
      cr_assert_str_eq(sa->before->name, sb->before->name);
  }
  cr_assert(!sa && !sb, "stray label count");
}

static wave_module *parse(const char *text) { return tu_parse_ok(text, "rt.wave", false); }

static char *print_module(const wave_module *m, wave_dialect dialect, bool strip) {
  wave_print_options opts = {dialect, strip, 0};
  char *text = wave_print_to_string(m, &opts, NULL);
  cr_assert_not_null(text);
  return text;
}

/* print(parse(x)) is a fixed point and denotes what x denotes. */
static void check_round_trip(const char *source, wave_dialect dialect) {
  for (int strip = 0; strip < 2; strip++) {
    wave_module *m1 = parse(source);
    char *once = print_module(m1, dialect, strip);
    wave_module *m2 = parse(once);
    char *twice = print_module(m2, dialect, strip);
    cr_assert_str_eq(twice, once, "not a fixed point");
    same_module(m1, m2);
    free(once);
    free(twice);
    wave_module_destroy(m1);
    wave_module_destroy(m2);
  }
}

static const char real_dialect_text[] =
    "; header comment\n"
    "start_label:\n"
    ".kernel first ; first kernel\n"
    "    mov_sr r1, sr_thread_id_x\n"
    "    mov r2, sr_lane_id ; becomes mov_sr\n"
    "    mov_imm r3, 1_000\n"
    "    mov_imm r4, 007\n"
    "    mov_imm r5, 0xdead_BEEF\n"
    "    mov_imm r6, -2147483648\n"
    "    mov_imm r7, 4294967295\n"
    "    mov_imm r8, 2.5\n"
    "    hadd r9.lo, r9.hi, r10\n"
    "    @p0 iadd r1, r1, r1\n"
    "    @!p0 iadd r1, r1, r1\n"
    "\t@p3   fadd r1,r1 ,r1\n"
    "    device_load_u32 .uncached r9, r1\n"
    "    device_load_u32.streaming r9, r1\n"
    "    fence_release.workgroup\n"
    "    fence_acquire device\n"
    "    atomic_add r0, r1, r2, system\n"
    "    atomic_or r1, r2, .wave\n"
    "    local_atomic_add r1, r2\n"
    "    local_atomic_cas r3, r1, r2, r4\n"
    "    wave_ballot r5, p2\n"
    "    mma_store_c r1, r2, r3\n"
    "    call lbl\n"
    "    halt\n"
    "lbl: nop\n"
    "    iadd r0, r1, r2 isub r3, r4, r5\n"
    "    return # hash comment\n"
    ".end\n"
    ".registers 40\n"
    ".local_memory 4096\n"
    ".workgroup_size 8, 4, 2\n"
    "\n"
    "middle:\n"
    "   ; before the second kernel\n"
    ".kernel second\r\n"
    "    loop\r\n"
    "        icmp_eq p1, r0, r0 ; always\r\n"
    "        ; leading the break\r\n"
    "        break p1\r\n"
    "    endloop\r\n"
    "    if p1 ; then\r\n"
    "        device_store_u128 r0, r4\r\n"
    "    else ; else\r\n"
    "        if p2\r\n"
    "        endif\r\n"
    "    endif ; done\r\n"
    "    halt\r\n"
    ".end\r\n"
    "end_label:\n"
    "; the end\n";

static const char docs_dialect_text[] =
    "; documentation dialect\n"
    ".kernel k ; the kernel\n"
    ".workgroup_size 64, 1, 1\n"
    "    icmp.lt p0, r0, r1\n"
    "    and p2, p0, p1 ; both\n"
    "    or p3, p2, p0\n"
    "    xor p1, p1, p3\n"
    "    not p1, p2\n"
    "    iadd r0, r0, 1\n"
    "    shl r4, r3, 0x2\n"
    "    isub r5, r5, -3\n"
    "    mov r6, 7\n"
    "    mov_imm r7, 1.5\n"
    "    fmul r7, r7, 2.0\n"
    "    ucmp_ge p1, r0, r1\n"
    "    ucmp_gt p1, r0, 5\n"
    "    fcmp_ge p2, r0, r1\n"
    "    ucmp_eq p1, r0, r1\n"
    "    ucmp_ne p1, r0, r1\n"
    "    device_load.u32 r1, r0\n"
    "    device_load.u32.uncached r1, r0\n"
    "    atomic_add r2, r1, r0\n"
    "    @!p3 iadd r0, r0, 2\n"
    "    @p1 and p0, p0, p3\n"
    "    loop\n"
    "        break !p1\n"
    "        continue !p0\n"
    "    endloop\n"
    "    halt\n"
    ".end\n"
    ".registers 10\n"
    "; trailing comment\n";

Test(roundtrip, real_dialect_is_a_fixed_point) {
  check_round_trip(real_dialect_text, WAVE_DIALECT_ASM);
  check_round_trip(TU_AXPY_TEXT, WAVE_DIALECT_ASM);
}

Test(roundtrip, docs_dialect_is_a_fixed_point) {
  check_round_trip(docs_dialect_text, WAVE_DIALECT_DOCS);
  wave_module *m = parse(docs_dialect_text);
  cr_assert_eq(wave_print_to_string(m, NULL, NULL), NULL,
               "the assembly dialect must refuse unlowered forms");
  wave_module_destroy(m);
}

/* docs/language.md "Example kernels", example 1, printed: the expected text stays written out, so
 * that a change in the canonical form shows here. */
Test(roundtrip, real_dialect_canonical_text) {
  wave_module *m = parse(TU_AXPY_TEXT);
  char *text = print_module(m, WAVE_DIALECT_ASM, false);
  cr_assert_str_eq(text,
                   "; y[i] = a * x[i] + y[i] for every i < n (f32 data)\n"
                   ".kernel axpy_guarded\n"
                   ".registers 12\n"
                   ".workgroup_size 64, 1, 1\n"
                   "    mov_sr r4, sr_workgroup_id_x\n"
                   "    mov_sr r5, sr_workgroup_size_x\n"
                   "    mov_sr r6, sr_thread_id_x\n"
                   "    imad r4, r4, r5, r6 ; i = group * size + local id\n"
                   "    ucmp_lt p1, r4, r2 ; lane in range?\n"
                   "    if p1\n"
                   "        mov_imm r7, 2\n"
                   "        shl r8, r4, r7 ; byte offset = i << 2\n"
                   "        iadd r9, r0, r8\n"
                   "        iadd r10, r1, r8\n"
                   "        device_load_u32 r9, r9 ; x[i]\n"
                   "        device_load_u32 r11, r10 ; y[i]\n"
                   "        fma r11, r3, r9, r11 ; a*x[i] + y[i]  (4th operand = addend)\n"
                   "        device_store_u32 r10, r11 ; address first, value second\n"
                   "    endif\n"
                   "    halt\n"
                   ".end\n");
  free(text);
  wave_module_destroy(m);
}

static char *deep_text(unsigned depth) {
  size_t cap = (size_t)depth * 40 + 64;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  char *at = text;
  at += sprintf(at, ".kernel deep\n");
  for (unsigned i = 0; i < depth; i++)
    at += sprintf(at, i % 2 ? "loop\n" : "if p1\n");
  at += sprintf(at, "iadd r0, r0, r0\n");
  for (unsigned i = depth; i-- > 0;)
    at += sprintf(at, i % 2 ? "endloop\n" : "endif\n");
  sprintf(at, ".end\n");
  return text;
}

Test(roundtrip, hundred_thousand_deep_nesting) {
  char *text = deep_text(100000);
  check_round_trip(text, WAVE_DIALECT_ASM);
  free(text);
}

Test(roundtrip, indentation_cap_does_not_change_meaning) {
  char *text = deep_text(40);
  wave_module *m1 = parse(text);
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 3};
  char *capped = wave_print_to_string(m1, &opts, NULL);
  cr_assert_not_null(capped);
  wave_module *m2 = parse(capped);
  same_module(m1, m2);
  char *again = wave_print_to_string(m2, &opts, NULL);
  cr_assert_str_eq(again, capped);
  free(text);
  free(capped);
  free(again);
  wave_module_destroy(m1);
  wave_module_destroy(m2);
}
