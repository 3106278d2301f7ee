/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier: every error rule has a failing and a passing case, every toolchain warning a
 * warned and a quiet case. Kernels are built with the builder API, so the verifier sees IR the
 * parser would never produce (structured opcodes in blocks, guarded breaks, p4, ...). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/waveopt.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct fixture {
  wave_module *m;
  wave_kernel *k;
  wave_node_list *body; /* the entry region's body */
  wave_builder b;       /* what the helpers below build with */
  wave_diags d;
  bool ok;              /* what wave_verify_module returned */
} fixture;

static fixture setup(void) {
  fixture t;
  t.m = wave_module_create("t.wave");
  cr_assert_not_null(t.m);
  t.k = wave_kernel_create(t.m, "k");
  cr_assert_not_null(t.k);
  t.body = wave_region_body(wave_kernel_first_region(t.k));
  wave_diags_init(&t.d);
  t.ok = false;
  return t;
}

static void teardown(fixture *t) {
  wave_diags_free(&t->d);
  wave_module_destroy(t->m);
}

/* The fixture's builder at the end of list, with everything it builds at line:5. Tests build
 * lists out of order (an else after the code that follows its if), so each helper call says
 * where it builds rather than following one cursor. */
static wave_builder *at_end(fixture *t, wave_node_list *list, uint32_t line) {
  wave_loc loc = {.line = line, .col = 5};
  t->b = wave_builder_at(t->m, wave_cursor_list_end(list), loc);
  return &t->b;
}

static wave_instr *built(wave_instr *i) {
  cr_assert_not_null(i);
  return i;
}

static wave_instr *guarded(wave_instr *i, int guard, bool negated) {
  wave_instr_set_guard(i, guard, negated);
  return i;
}

/* EMIT(t, list, line, OPCODE, operands...): an unguarded instruction at the end of list. */
#define EMIT(t, list, line, op, ...) \
  built(wave_build(at_end(t, list, line), WAVE_OP_##op, __VA_ARGS__))
#define EMIT0(t, list, line, op) \
  built(wave_build_instr(at_end(t, list, line), WAVE_OP_##op, 0, NULL))
#define GUARDED(t, list, line, guard, neg, op, ...) \
  guarded(EMIT(t, list, line, op, __VA_ARGS__), guard, neg)
#define GUARDED0(t, list, line, guard, neg, op) guarded(EMIT0(t, list, line, op), guard, neg)

static wave_node *add_if(fixture *t, wave_node_list *list, uint32_t line, wave_operand cond) {
  wave_node *n = wave_build_if(at_end(t, list, line), cond);
  cr_assert_not_null(n);
  return n;
}

static wave_node *add_loop(fixture *t, wave_node_list *list, uint32_t line) {
  wave_node *n = wave_build_loop(at_end(t, list, line));
  cr_assert_not_null(n);
  return n;
}

#define THEN(n) (wave_if_then((n)))
#define ELSE(n) (wave_if_else((n)))
#define BODY(n) (wave_loop_body((n)))

static void halt(fixture *t, wave_node_list *list) { EMIT0(t, list, 999, HALT); }

/* Gives one of the kernel's lines a place in the file, as the parser would. */
static void set_line(wave_kernel *k, wave_kernel_line line, uint32_t at, uint32_t col) {
  wave_src src = wave_kernel_origin(k, line);
  src.loc.line = at;
  src.loc.col = col;
  wave_kernel_set_origin(k, line, &src);
}

static void verify(fixture *t) { t->ok = wave_verify_module(t->m, &t->d); }

/* Ends the entry region with a halt, as most kernels here do, and verifies. */
static void halt_and_verify(fixture *t) {
  halt(t, t->body);
  verify(t);
}

static const wave_diag *find(const fixture *t, const char *text) {
  for (size_t i = 0; i < t->d.count; i++)
    if (strstr(t->d.items[i].message, text))
      return &t->d.items[i];
  return NULL;
}

static size_t count(const fixture *t, const char *text) {
  size_t n = 0;
  for (size_t i = 0; i < t->d.count; i++)
    n += strstr(t->d.items[i].message, text) != NULL;
  return n;
}

static void dump(const fixture *t) {
  for (size_t i = 0; i < t->d.count; i++)
    cr_log_info("%u:%u: %s", t->d.items[i].line, t->d.items[i].col, t->d.items[i].message);
}

/* A diagnostic with this text exists, with this severity and place (col 0: not checked). */
static void expect(const fixture *t, wave_severity sev, uint32_t line, uint32_t col,
                   const char *text) {
  const wave_diag *d = find(t, text);
  if (!d)
    dump(t);
  cr_assert_not_null(d, "no diagnostic containing \"%s\"", text);
  cr_assert_eq(d->severity, sev, "severity of \"%s\"", d->message);
  cr_assert_eq(d->line, line, "line of \"%s\"", d->message);
  if (col)
    cr_assert_eq(d->col, col, "column of \"%s\"", d->message);
  cr_assert_str_eq(d->file, "t.wave");
  if (sev == WAVE_SEV_WARNING)
    cr_assert_str_eq(d->flag, "toolchain", "flag of \"%s\"", d->message);
  if (sev == WAVE_SEV_ERROR)
    cr_assert_not(t->ok, "verification must fail on \"%s\"", d->message);
}

static void expect_error(const fixture *t, uint32_t line, uint32_t col, const char *text) {
  expect(t, WAVE_SEV_ERROR, line, col, text);
}

static void expect_warning(const fixture *t, uint32_t line, uint32_t col, const char *text) {
  expect(t, WAVE_SEV_WARNING, line, col, text);
}

static void expect_clean(const fixture *t) {
  if (t->d.count)
    dump(t);
  cr_assert(t->ok);
  cr_assert_eq(t->d.count, 0, "expected no diagnostic, got %zu", t->d.count);
  cr_assert_eq(t->d.num_errors + t->d.num_warnings, 0);
}

static wave_operand at_col(wave_operand o, uint32_t col) {
  o.col = col;
  return o;
}

static wave_operand half(wave_operand o, wave_half h) {
  o.half = (uint8_t)h;
  return o;
}

static wave_operand none(void) {
  wave_operand o = {0};
  return o;
}

/* ---- module shapes ------------------------------------------------------------------------ */

Test(verify, empty_module_is_clean) {
  wave_module *m = wave_module_create("t.wave");
  wave_diags d;
  wave_diags_init(&d);
  cr_assert(wave_verify_module(m, &d));
  cr_assert_eq(d.count, 0);
  wave_diags_free(&d);
  wave_module_destroy(m);
}

/* An empty kernel runs straight off its end: valid, but the emulator then fails. */
Test(verify, empty_kernel_only_warns_about_its_end) {
  fixture t = setup();
  set_line(t.k, WAVE_KERNEL_LINE_END, 2, 1);
  verify(&t);
  cr_assert(t.ok);
  cr_assert_eq(t.d.count, 1);
  expect_warning(&t, 2, 1, "kernel 'k' can run past its end without 'halt' or 'return'");
  teardown(&t);
}

Test(verify, well_formed_kernel_is_clean) {
  fixture t = setup();
  EMIT(&t, t.body, 1, MOV_SR, wave_gpr(4), wave_sreg(4));
  EMIT(&t, t.body, 2, MOV_IMM, wave_gpr(5), wave_imm(7));
  EMIT(&t, t.body, 3, ICMP_LT, wave_pred(1), wave_gpr(4), wave_gpr(5));
  wave_node *i = add_if(&t, t.body, 4, wave_pred(1));
  EMIT(&t, THEN(i), 5, DEVICE_STORE_U32, wave_gpr(4), wave_gpr(5));
  EMIT(&t, ELSE(i), 6, ATOMIC_ADD, none(), wave_gpr(4), wave_gpr(5),
       wave_scope_operand(WAVE_SCOPE_DEVICE));
  wave_node *l = add_loop(&t, t.body, 7);
  EMIT(&t, BODY(l), 8, BREAK, wave_pred(1));
  GUARDED(&t, t.body, 9, 2, false, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  GUARDED(&t, t.body, 10, 3, true, SELECT, wave_gpr(1), wave_pred(0), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 11, FENCE_RELEASE, wave_scope_operand(WAVE_SCOPE_WORKGROUP));
  EMIT(&t, t.body, 12, DADD, wave_gpr(28), wave_gpr(30), wave_gpr(2));
  EMIT(&t, t.body, 13, DEVICE_LOAD_U128, wave_gpr(28), wave_gpr(0));
  EMIT(&t, t.body, 14, MOV, wave_gpr(6), wave_sreg(3));
  GUARDED0(&t, t.body, 15, 1, false, HALT);
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);
}

/* ---- structure ---------------------------------------------------------------------------- */

Test(verify, structured_opcodes_cannot_be_block_instructions) {
  static const wave_opcode ops[] = {WAVE_OP_IF, WAVE_OP_ELSE, WAVE_OP_ENDIF, WAVE_OP_LOOP,
                                    WAVE_OP_ENDLOOP};
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
    fixture t = setup();
    unsigned n = wave_opcode_num_slots(ops[i]);
    wave_operand cond = wave_pred(1);
    built(wave_build_instr(at_end(&t, t.body, 3), ops[i], n, &cond));
    halt_and_verify(&t);
    expect_error(&t, 3, 5, "cannot be an instruction in a block");
    cr_assert_not_null(strstr(find(&t, "cannot be")->message, wave_opcode_table[ops[i]].mnemonic));
    cr_assert_eq(t.d.count, 1, "one error, no cascade");
    teardown(&t);
  }
}

/* An opcode past the table (IR built by hand, or memory gone bad) is one error naming its
 * number; nothing else is read from the instruction. */
Test(verify, opcode_past_the_table) {
  fixture t = setup();
  wave_instr *in = EMIT(&t, t.body, 3, MOV, wave_gpr(1), wave_gpr(2));
  wave_instr_set_op(in, WAVE_OP_COUNT + 7);
  halt_and_verify(&t);
  char text[32];
  snprintf(text, sizeof text, "invalid opcode %u", (unsigned)WAVE_OP_COUNT + 7);
  expect_error(&t, 3, 5, text);
  cr_assert_eq(t.d.count, 1, "one error, no cascade");
  cr_assert_not(t.ok);
  teardown(&t);
}

Test(verify, structured_control_flow_as_nodes_is_clean) {
  fixture t = setup();
  wave_node *i = add_if(&t, t.body, 1, wave_pred(1));
  wave_if_set_has_else(i, true);
  wave_node *l = add_loop(&t, ELSE(i), 2);
  EMIT(&t, BODY(l), 3, BREAK, wave_pred(2));
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);
}

Test(verify, break_and_continue_need_a_loop) {
  fixture t = setup();
  EMIT(&t, t.body, 1, BREAK, wave_pred(1));
  wave_node *i = add_if(&t, t.body, 2, wave_pred(1));
  EMIT(&t, THEN(i), 3, CONTINUE, wave_pred(2));
  halt_and_verify(&t);
  expect_error(&t, 1, 5, "'break' is not inside a loop");
  expect_error(&t, 3, 5, "'continue' is not inside a loop");
  cr_assert_null(find(&t, "hangs"), "a malformed continue gets no toolchain warning");
  teardown(&t);
}

Test(verify, break_inside_a_loop_is_clean) {
  fixture t = setup();
  wave_node *l = add_loop(&t, t.body, 1);
  EMIT(&t, BODY(l), 2, BREAK, wave_pred(1));
  wave_node *inner = add_loop(&t, BODY(l), 3);
  EMIT(&t, BODY(inner), 4, BREAK, wave_pred(2));
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);
}

/* A loop around a call does not enclose the subroutine's break. */
Test(verify, break_needs_a_loop_of_its_own_region) {
  fixture t = setup();
  wave_node *l = add_loop(&t, t.body, 1);
  EMIT(&t, BODY(l), 2, CALL, wave_label_operand("sub"));
  EMIT(&t, BODY(l), 3, BREAK, wave_pred(1));
  halt(&t, t.body);
  wave_region *sub = wave_region_create(t.k, "sub");
  EMIT(&t, wave_region_body(sub), 5, BREAK, wave_pred(2));
  EMIT0(&t, wave_region_body(sub), 6, RETURN);
  verify(&t);
  expect_error(&t, 5, 5, "'break' is not inside a loop of its region");
  cr_assert_eq(t.d.num_errors, 1, "the break of line 3 is fine");
  teardown(&t);
}

Test(verify, guards_on_break_continue_call_are_errors) {
  fixture t = setup();
  wave_node *l = add_loop(&t, t.body, 1);
  GUARDED(&t, BODY(l), 2, 1, false, BREAK, wave_pred(2));
  GUARDED(&t, BODY(l), 3, 2, true, CONTINUE, wave_pred(1));
  GUARDED(&t, BODY(l), 4, 0, false, CALL, wave_label_operand("sub"));
  EMIT(&t, BODY(l), 5, BREAK, wave_pred(3));
  halt(&t, t.body);
  wave_region *sub = wave_region_create(t.k, "sub");
  EMIT0(&t, wave_region_body(sub), 7, RETURN);
  verify(&t);
  expect_error(&t, 2, 5, "guard on a structured control-flow instruction 'break'");
  expect_error(&t, 3, 5, "guard on a structured control-flow instruction 'continue'");
  expect_error(&t, 4, 5, "guard on a structured control-flow instruction 'call'");
  cr_assert_eq(t.d.num_errors, 3);
  teardown(&t);
}

Test(verify, if_condition_must_be_a_predicate) {
  fixture t = setup();
  add_if(&t, t.body, 1, at_col(wave_gpr(1), 8));
  add_if(&t, t.body, 2, wave_pred(4));
  add_if(&t, t.body, 3, wave_sreg(2));
  add_if(&t, t.body, 4, wave_pred(3));
  add_if(&t, t.body, 5, wave_not_pred(1));
  halt_and_verify(&t);
  expect_error(&t, 1, 8, "the condition of 'if' must be a predicate register");
  expect_error(&t, 2, 5, "predicate p4 does not exist");
  cr_assert_eq(count(&t, "must be a predicate register"), 2);
  cr_assert_eq(t.d.count, 3, "if p3 and the documentation dialect's if !p1 are fine");
  teardown(&t);
}

/* ---- operand counts and kinds ------------------------------------------------------------- */

Test(verify, operand_count_follows_the_shape) {
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, wave_gpr(1), wave_gpr(2));
  EMIT0(&t, t.body, 2, FENCE_ACQUIRE);
  EMIT(&t, t.body, 3, NOP, wave_gpr(1));
  EMIT(&t, t.body, 4, ATOMIC_ADD, wave_gpr(4), wave_gpr(2), wave_scope_operand(WAVE_SCOPE_DEVICE));
  EMIT(&t, t.body, 5, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  halt_and_verify(&t);
  expect_error(&t, 1, 5, "'iadd' expects 3 operands, got 2");
  expect_error(&t, 2, 5, "'fence_acquire' expects 1 operand, got 0");
  expect_error(&t, 3, 5, "'nop' expects 0 operands, got 1");
  expect_error(&t, 4, 5, "'atomic_add' expects 4 operands, got 3");
  cr_assert_eq(t.d.count, 4, "no cascade of operand errors");
  teardown(&t);
}

/* The no-return atomic omits its destination: that slot, and only that one, may be empty. */
Test(verify, omitted_operand_only_in_optional_slot) {
  fixture t = setup();
  EMIT(&t, t.body, 1, ATOMIC_ADD, none(), wave_gpr(1), wave_gpr(2),
       wave_scope_operand(WAVE_SCOPE_SYSTEM));
  EMIT(&t, t.body, 2, LOCAL_ATOMIC_ADD, none(), wave_gpr(1), wave_gpr(2));
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);

  t = setup();
  EMIT(&t, t.body, 1, LOCAL_ATOMIC_ADD, wave_gpr(3), at_col(none(), 22), wave_gpr(2));
  halt_and_verify(&t);
  expect_error(&t, 1, 22, "expected register as operand 2 of 'local_atomic_add'");
  teardown(&t);
}

Test(verify, operand_kinds_per_slot) {
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, at_col(wave_pred(1), 10), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 2, ICMP_EQ, at_col(wave_gpr(1), 13), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 3, SELECT, wave_gpr(1), at_col(wave_gpr(1), 15), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 4, MOV_SR, wave_gpr(1), at_col(wave_gpr(4), 16));
  EMIT(&t, t.body, 5, MOV_IMM, wave_gpr(1), at_col(wave_gpr(4), 17));
  EMIT(&t, t.body, 6, ATOMIC_ADD, wave_gpr(1), wave_gpr(2), wave_gpr(3), at_col(wave_gpr(0), 18));
  EMIT(&t, t.body, 7, CALL, at_col(wave_gpr(0), 19));
  EMIT(&t, t.body, 8, MMA_COMPUTE, wave_gpr(1), at_col(wave_pred(2), 20), wave_gpr(3));
  EMIT(&t, t.body, 9, DEVICE_STORE_U32, wave_gpr(1), at_col(wave_imm(5), 21));
  EMIT(&t, t.body, 10, WAVE_ANY, wave_pred(1), at_col(wave_gpr(3), 22));
  EMIT(&t, t.body, 11, IADD, wave_gpr(1), wave_gpr(2),
       at_col(wave_scope_operand(WAVE_SCOPE_WAVE), 23));
  EMIT(&t, t.body, 12, CALL, at_col(wave_label_operand(NULL), 24));
  halt_and_verify(&t);
  expect_error(&t, 1, 10, "expected register as operand 1 of 'iadd'");
  expect_error(&t, 2, 13, "expected predicate register as operand 1 of 'icmp_eq'");
  expect_error(&t, 3, 15, "expected predicate register as operand 2 of 'select'");
  expect_error(&t, 4, 16, "expected special register as operand 2 of 'mov_sr'");
  expect_error(&t, 5, 17, "expected immediate as operand 2 of 'mov_imm'");
  expect_error(&t, 6, 18, "expected scope specifier as operand 4 of 'atomic_add'");
  expect_error(&t, 7, 19, "expected label as operand 1 of 'call'");
  expect_error(&t, 8, 20, "expected register naming an MMA fragment as operand 2");
  expect_error(&t, 9, 21, "expected register as operand 2 of 'device_store_u32'");
  expect_error(&t, 10, 22, "expected predicate register as operand 2 of 'wave_any'");
  expect_error(&t, 11, 23, "expected register as operand 3 of 'iadd'");
  cr_assert_eq(count(&t, "expected label as operand 1 of 'call'"), 2, "a call without a name");
  cr_assert_eq(t.d.num_errors, 12);
  teardown(&t);
}

/* Documentation-dialect forms are valid IR (lowered before printing) and get no warning. */
Test(verify, documentation_dialect_forms_are_clean) {
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, wave_gpr(1), wave_gpr(1), wave_imm(1));
  EMIT(&t, t.body, 2, SHL, wave_gpr(1), wave_imm(2), wave_gpr(1));
  EMIT(&t, t.body, 3, PAND, wave_pred(1), wave_pred(2), wave_pred(3));
  EMIT(&t, t.body, 4, PNOT, wave_pred(1), wave_pred(2));
  EMIT(&t, t.body, 5, UCMP_GE, wave_pred(1), wave_gpr(2), wave_imm(9));
  wave_node *l = add_loop(&t, t.body, 6);
  EMIT(&t, BODY(l), 7, BREAK, wave_not_pred(1));
  EMIT(&t, t.body, 8, SELECT, wave_gpr(1), wave_not_pred(2), wave_imm(1), wave_gpr(3));
  add_if(&t, t.body, 9, wave_not_pred(1));
  EMIT(&t, t.body, 10, MOV, wave_gpr(1), wave_imm(5));
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);
}

/* A negated predicate read is documentation dialect (lowering computes the inverse); a negated
 * destination means nothing. */
Test(verify, negated_predicates_only_as_sources) {
  fixture t = setup();
  EMIT(&t, t.body, 1, ICMP_EQ, at_col(wave_not_pred(1), 13), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 2, PAND, wave_not_pred(2), wave_pred(2), wave_pred(3));
  EMIT(&t, t.body, 3, SELECT, wave_gpr(1), wave_not_pred(2), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 4, PAND, wave_pred(1), wave_pred(2), wave_not_pred(3));
  EMIT(&t, t.body, 5, WAVE_ANY, wave_pred(1), wave_not_pred(3));
  halt_and_verify(&t);
  expect_error(&t, 1, 13, "a predicate destination cannot be negated ('!p1')");
  expect_error(&t, 2, 5, "a predicate destination cannot be negated ('!p2')");
  cr_assert_eq(t.d.count, 2, "negated sources on lines 3-5 are fine");
  teardown(&t);
}

/* ---- register ranges ---------------------------------------------------------------------- */

Test(verify, registers_must_lie_below_dot_registers) {
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, at_col(wave_gpr(40), 10), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 2, IADD, wave_gpr(1), at_col(wave_gpr(32), 15), wave_gpr(3));
  EMIT(&t, t.body, 3, DADD, at_col(wave_gpr(31), 10), wave_gpr(2), wave_gpr(4));
  EMIT(&t, t.body, 4, DEVICE_LOAD_U128, wave_gpr(29), wave_gpr(0));
  EMIT(&t, t.body, 5, DEVICE_STORE_U64, wave_gpr(0), wave_gpr(31));
  EMIT(&t, t.body, 6, IADD, wave_gpr(31), wave_gpr(31), wave_gpr(31));
  EMIT(&t, t.body, 7, DEVICE_LOAD_U128, wave_gpr(28), wave_gpr(0));
  halt_and_verify(&t);
  expect_error(&t, 1, 10, "register r40 is beyond .registers 32 (the emulator drops such "
                          "writes; ptxas rejects them)");
  expect_error(&t, 2, 15, "register r32 is beyond .registers 32 (the emulator reads such "
                          "registers as 0; ptxas rejects them)");
  expect_error(&t, 3, 10, "register r32 (part of the 2-register operand r31) is beyond "
                          ".registers 32 (the emulator drops such writes");
  expect_error(&t, 4, 5, "register r32 (part of the 4-register operand r29)");
  expect_error(&t, 5, 5, "register r32 (part of the 2-register operand r31) is beyond "
                         ".registers 32 (the emulator reads");
  cr_assert_eq(t.d.num_errors, 5, "lines 6 and 7 stay within r0-r31");
  teardown(&t);
}

Test(verify, dot_registers_bounds_the_check) {
  fixture t = setup();
  wave_kernel_set_registers(t.k, 8);
  EMIT(&t, t.body, 1, IADD, wave_gpr(7), wave_gpr(0), wave_gpr(6));
  EMIT(&t, t.body, 2, IADD, wave_gpr(8), wave_gpr(0), wave_gpr(6));
  halt_and_verify(&t);
  expect_error(&t, 2, 5, "register r8 is beyond .registers 8");
  cr_assert_eq(t.d.num_errors, 1);
  teardown(&t);
}

Test(verify, registers_must_be_encodable) {
  fixture t = setup();
  wave_kernel_set_registers(t.k, 255);
  EMIT(&t, t.body, 1, IADD, wave_gpr(255), wave_gpr(0), wave_gpr(0));
  EMIT(&t, t.body, 2, DADD, wave_gpr(254), wave_gpr(0), wave_gpr(0));
  EMIT(&t, t.body, 3, IADD, wave_gpr(254), wave_gpr(0), wave_gpr(0));
  halt_and_verify(&t);
  expect_error(&t, 1, 5, "register r255 does not exist (registers are r0-r254)");
  cr_assert_eq(count(&t, "register r255 does not exist"), 2, "the pair r254:r255 too");
  cr_assert_eq(t.d.num_errors, 2);
  teardown(&t);
}

/* Fragment ids are register numbers but name no register: .registers does not bound them. */
Test(verify, fragment_ids_are_not_registers) {
  fixture t = setup();
  EMIT(&t, t.body, 1, MMA_COMPUTE, wave_gpr(40), wave_gpr(41), wave_gpr(42));
  EMIT(&t, t.body, 2, MMA_COMPUTE, wave_gpr(255), wave_gpr(1), wave_gpr(2));
  halt_and_verify(&t);
  cr_assert_null(find(&t, "beyond .registers"));
  expect_error(&t, 2, 5, "register r255 does not exist");
  cr_assert_eq(t.d.num_errors, 1);
  teardown(&t);
}

Test(verify, predicate_special_scope_and_guard_ranges) {
  fixture t = setup();
  EMIT(&t, t.body, 1, ICMP_EQ, at_col(wave_pred(4), 13), wave_gpr(1), wave_gpr(2));
  EMIT(&t, t.body, 2, MOV_SR, wave_gpr(1), at_col(wave_sreg(20), 16));
  EMIT(&t, t.body, 3, FENCE_ACQUIRE, at_col(wave_scope_operand((wave_scope)4), 19));
  GUARDED(&t, t.body, 4, 4, false, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 5, ICMP_EQ, wave_pred(3), wave_gpr(1), wave_gpr(2));
  EMIT(&t, t.body, 6, MOV_SR, wave_gpr(1), wave_sreg(19));
  EMIT(&t, t.body, 7, FENCE_ACQUIRE, wave_scope_operand(WAVE_SCOPE_SYSTEM));
  GUARDED(&t, t.body, 8, 3, false, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  halt_and_verify(&t);
  expect_error(&t, 1, 13, "predicate p4 does not exist (predicates are p0-p3)");
  expect_error(&t, 2, 16, "special register 20 does not exist");
  expect_error(&t, 3, 19, "scope 4 does not exist");
  expect_error(&t, 4, 5, "guard predicate p4 does not exist");
  cr_assert_eq(t.d.count, 4, "lines 5-8 are fine");
  teardown(&t);
}

/* sr_N in a GPR slot is the GPR rN (docs/language.md "Registers"), so rN must exist too. */
Test(verify, special_register_in_gpr_slot_is_range_checked_as_its_gpr) {
  fixture t = setup();
  wave_kernel_set_registers(t.k, 16);
  EMIT(&t, t.body, 1, IADD, wave_gpr(1), at_col(wave_sreg(19), 14), wave_gpr(2));
  EMIT(&t, t.body, 2, MOV, wave_gpr(1), wave_sreg(19));
  halt_and_verify(&t);
  expect_error(&t, 1, 14, "register r19 is beyond .registers 16");
  cr_assert_eq(t.d.num_errors, 1, "mov reads sr_mma_k itself, not r19");
  cr_assert_eq(t.d.count, 1, "an instruction with errors gets no toolchain warnings");
  teardown(&t);
}

/* ---- call targets ------------------------------------------------------------------------- */

Test(verify, call_target_must_be_a_label_of_the_kernel) {
  fixture t = setup();
  EMIT(&t, t.body, 1, CALL, at_col(wave_label_operand("other_sub"), 10));
  EMIT(&t, t.body, 2, CALL, wave_label_operand("nowhere"));
  EMIT(&t, t.body, 3, CALL, wave_label_operand("sub"));
  halt(&t, t.body);
  wave_region *sub = wave_region_create(t.k, "sub");
  EMIT0(&t, wave_region_body(sub), 5, RETURN);
  wave_kernel *other = wave_kernel_create(t.m, "other");
  halt(&t, wave_region_body(wave_kernel_first_region(other)));
  wave_region *other_sub = wave_region_create(other, "other_sub");
  EMIT0(&t, wave_region_body(other_sub), 9, RETURN);
  verify(&t);
  expect_error(&t, 1, 10, "call target 'other_sub' is not a label of kernel 'k'");
  expect_error(&t, 2, 5, "call target 'nowhere' is not a label of kernel 'k'");
  cr_assert_eq(t.d.num_errors, 2, "call sub is fine");
  teardown(&t);
}

/* ---- guards ------------------------------------------------------------------------------- */

Test(verify, p0_guard_is_no_guard) {
  fixture t = setup();
  GUARDED(&t, t.body, 1, 0, false, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  GUARDED(&t, t.body, 2, 0, false, DEVICE_STORE_U32, wave_gpr(1), wave_gpr(2));
  halt_and_verify(&t);
  cr_assert(t.ok, "warnings do not fail verification");
  expect_warning(&t, 1, 5, "'@p0' is not a guard: every real tool runs 'iadd' unguarded");
  cr_assert_eq(count(&t, "'@p0' is not a guard"), 2);
  cr_assert_eq(t.d.count, 2, "one guard warning per instruction");
  teardown(&t);
}

Test(verify, negated_p0_guard_is_lost_by_wave_ptx) {
  fixture t = setup();
  GUARDED(&t, t.body, 1, 0, true, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  GUARDED(&t, t.body, 2, 1, true, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  GUARDED(&t, t.body, 3, 1, false, MOV_IMM, wave_gpr(1), wave_imm(3));
  halt_and_verify(&t);
  expect_warning(&t, 1, 5, "'@!p0' guard is dropped by wave-ptx");
  cr_assert_eq(t.d.count, 1, "@!p1 and @p1 on ALU work survive every tool");
  teardown(&t);
}

Test(verify, guards_wave_ptx_drops) {
  fixture t = setup();
  GUARDED(&t, t.body, 1, 1, false, DEVICE_STORE_U32, wave_gpr(1), wave_gpr(2));
  GUARDED(&t, t.body, 2, 2, true, LOCAL_LOAD_U32, wave_gpr(1), wave_gpr(2));
  GUARDED(&t, t.body, 3, 1, false, ATOMIC_ADD, wave_gpr(3), wave_gpr(1), wave_gpr(2),
          wave_scope_operand(WAVE_SCOPE_DEVICE));
  GUARDED(&t, t.body, 4, 1, false, WAVE_REDUCE_ADD, wave_gpr(1), wave_gpr(2));
  GUARDED(&t, t.body, 5, 1, false, MMA_LOAD_A, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  GUARDED(&t, t.body, 6, 0, true, DEVICE_LOAD_U32, wave_gpr(1), wave_gpr(2));
  GUARDED0(&t, t.body, 7, 1, false, RETURN);
  GUARDED0(&t, t.body, 8, 2, false, BARRIER);
  GUARDED0(&t, t.body, 9, 3, false, HALT);
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 1, 5, "guard on 'device_store_u32' is dropped by wave-ptx");
  expect_warning(&t, 2, 5, "guard on 'local_load_u32' is dropped by wave-ptx");
  expect_warning(&t, 3, 5, "guard on 'atomic_add' is dropped by wave-ptx");
  expect_warning(&t, 4, 5, "guard on 'wave_reduce_add' is dropped by wave-ptx");
  expect_warning(&t, 5, 5, "guard on 'mma_load_a' is dropped by wave-ptx");
  expect_warning(&t, 6, 5, "guard on 'device_load_u32' is dropped by wave-ptx");
  expect_warning(&t, 7, 5, "guard on 'return' is not honoured");
  expect_warning(&t, 8, 5, "guard on 'barrier' is not honoured");
  cr_assert_eq(count(&t, "guard"), 8, "one guard warning each; @p3 halt is fine");
  teardown(&t);
}

/* ---- operand warnings --------------------------------------------------------------------- */

Test(verify, r0_as_atomic_destination) {
  fixture t = setup();
  EMIT(&t, t.body, 1, ATOMIC_ADD, at_col(wave_gpr(0), 16), wave_gpr(1), wave_gpr(2),
       wave_scope_operand(WAVE_SCOPE_DEVICE));
  EMIT(&t, t.body, 2, LOCAL_ATOMIC_EXCHANGE, wave_gpr(0), wave_gpr(1), wave_gpr(2));
  EMIT(&t, t.body, 3, LOCAL_ATOMIC_EXCHANGE, wave_gpr(5), wave_gpr(1), wave_gpr(2));
  EMIT(&t, t.body, 4, LOCAL_ATOMIC_EXCHANGE, none(), wave_gpr(0), wave_gpr(0));
  halt_and_verify(&t);
  expect_warning(&t, 1, 16, "r0 as an atomic destination means 'no return': the old value is "
                            "not written");
  cr_assert_eq(t.d.count, 2, "r5 and an omitted destination are fine; r0 as a source too");
  teardown(&t);
}

Test(verify, special_registers_outside_mov_sr) {
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, wave_gpr(0), at_col(wave_sreg(4), 14), wave_gpr(1));
  EMIT(&t, t.body, 2, FADD, at_col(wave_sreg(0), 10), wave_gpr(1), wave_gpr(2));
  EMIT(&t, t.body, 3, MOV_SR, wave_gpr(4), wave_sreg(4));
  EMIT(&t, t.body, 4, MOV, wave_gpr(4), wave_sreg(14));
  halt_and_verify(&t);
  cr_assert(t.ok, "the assembler accepts it");
  expect_warning(&t, 1, 14, "special register 'sr_lane_id' outside mov_sr is encoded as "
                            "register r4 (read it with mov_sr first)");
  expect_warning(&t, 2, 10, "special register 'sr_thread_id_x' outside mov_sr");
  cr_assert_eq(t.d.count, 2, "mov_sr and mov (assembled as mov_sr) are fine");
  teardown(&t);
}

Test(verify, half_registers_are_ignored_by_every_tool) {
  fixture t = setup();
  EMIT(&t, t.body, 1, HADD2, at_col(half(wave_gpr(1), WAVE_HALF_LO), 11), wave_gpr(2),
       at_col(half(wave_gpr(3), WAVE_HALF_HI), 23));
  EMIT(&t, t.body, 2, HADD2, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  halt_and_verify(&t);
  expect_warning(&t, 1, 11, "half register '.lo' is ignored by every tool");
  expect_warning(&t, 1, 23, "half register '.hi' is ignored by every tool");
  cr_assert_eq(t.d.count, 2);
  teardown(&t);
}

/* ---- control-flow warnings ---------------------------------------------------------------- */

Test(verify, every_continue_warns) {
  fixture t = setup();
  wave_node *l = add_loop(&t, t.body, 1);
  EMIT(&t, BODY(l), 2, CONTINUE, wave_pred(1));
  wave_node *i = add_if(&t, BODY(l), 3, wave_pred(2));
  EMIT(&t, THEN(i), 4, CONTINUE, wave_not_pred(1));
  EMIT(&t, BODY(l), 5, BREAK, wave_pred(3));
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 2, 5, "'continue' hangs or overflows the control-flow stack on the "
                           "upstream emulator");
  cr_assert_eq(count(&t, "'continue' hangs"), 2);
  cr_assert_eq(t.d.count, 2, "the top-level break is fine");
  teardown(&t);
}

Test(verify, break_nested_in_if_is_deferred_by_the_emulator) {
  fixture t = setup();
  wave_node *l = add_loop(&t, t.body, 1);
  wave_node *i = add_if(&t, BODY(l), 2, wave_pred(1));
  EMIT(&t, THEN(i), 3, BREAK, wave_pred(2));
  wave_node *i2 = add_if(&t, BODY(l), 4, wave_pred(1));
  wave_node *inner = add_loop(&t, ELSE(i2), 5);
  EMIT(&t, BODY(inner), 6, BREAK, wave_pred(3));
  EMIT(&t, BODY(l), 7, BREAK, wave_pred(3));
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 3, 5, "'break' inside an 'if' is deferred by the upstream emulator: its "
                           "lanes run the rest of the loop body once more");
  cr_assert_eq(t.d.count, 1, "breaks at the top of their own loop body are fine");
  teardown(&t);
}

Test(verify, call_warns) {
  fixture t = setup();
  EMIT(&t, t.body, 1, CALL, wave_label_operand("sub"));
  halt(&t, t.body);
  wave_region *sub = wave_region_create(t.k, "sub");
  EMIT0(&t, wave_region_body(sub), 3, RETURN);
  verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 1, 5, "'call' is rejected by wave-ptx, and the upstream assembler "
                           "miscomputes call targets");
  cr_assert_eq(t.d.count, 1);
  teardown(&t);
}

static void nest_ifs(fixture *t, wave_node_list *list, unsigned levels, uint32_t first_line) {
  for (unsigned i = 0; i < levels; i++)
    list = THEN(add_if(t, list, first_line + i, wave_pred(1)));
  EMIT0(t, list, first_line + levels, NOP);
}

Test(verify, nesting_beyond_32_frames) {
  fixture t = setup();
  nest_ifs(&t, t.body, 32, 1);
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);

  t = setup();
  nest_ifs(&t, t.body, 31, 1);
  wave_node_list *deep = t.body;
  for (unsigned i = 0; i < 31; i++)
    deep = THEN(wave_node_list_first(deep));
  wave_node *l = add_loop(&t, deep, 100);
  EMIT(&t, BODY(l), 101, BREAK, wave_pred(1));
  add_loop(&t, BODY(l), 102);
  nest_ifs(&t, t.body, 40, 200);
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 102, 5, "'loop' opens nesting level 33, deeper than the 32 "
                             "divergence-stack frames of the upstream emulator");
  cr_assert_eq(t.d.count, 1, "once per kernel");
  teardown(&t);
}

Test(verify, nesting_warning_once_per_kernel_at_the_first_excess) {
  fixture t = setup();
  nest_ifs(&t, t.body, 33, 1);
  halt(&t, t.body);
  wave_kernel *k2 = wave_kernel_create(t.m, "k2");
  nest_ifs(&t, wave_region_body(wave_kernel_first_region(k2)), 50, 100);
  halt(&t, wave_region_body(wave_kernel_first_region(k2)));
  verify(&t);
  expect_warning(&t, 33, 5, "'if' opens nesting level 33");
  cr_assert_eq(count(&t, "opens nesting level"), 2);
  cr_assert_eq(t.d.items[1].line, 132);
  teardown(&t);
}

/* ---- running off the end ------------------------------------------------------------------ */

/* Verifies, checks whether the kernel was found to run off its end, and frees the fixture. */
static void expect_falls_off(fixture *t, bool falls) {
  set_line(t->k, WAVE_KERNEL_LINE_END, 50, 0);
  verify(t);
  cr_assert(t->ok);
  if (falls)
    expect_warning(t, 50, 0, "kernel 'k' can run past its end");
  else
    cr_assert_null(find(t, "past its end"), "kernel should always stop");
  teardown(t);
}

Test(verify, kernel_without_halt_falls_off) {
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  expect_falls_off(&t, true);

  t = setup();
  EMIT0(&t, t.body, 1, RETURN);
  expect_falls_off(&t, false);
}

Test(verify, guarded_halt_does_not_end_the_path) {
  fixture t = setup();
  GUARDED0(&t, t.body, 1, 1, false, HALT);
  expect_falls_off(&t, true);
}

Test(verify, halt_on_one_side_of_an_if_is_not_enough) {
  fixture t = setup();
  wave_node *i = add_if(&t, t.body, 1, wave_pred(1));
  halt(&t, THEN(i));
  expect_falls_off(&t, true);

  t = setup();
  i = add_if(&t, t.body, 1, wave_pred(1));
  halt(&t, ELSE(i));
  expect_falls_off(&t, true);

  t = setup();
  i = add_if(&t, t.body, 1, wave_pred(1));
  halt(&t, THEN(i));
  EMIT0(&t, ELSE(i), 3, RETURN);
  expect_falls_off(&t, false);
}

Test(verify, loop_without_break_never_finishes) {
  fixture t = setup();
  wave_node *l = add_loop(&t, t.body, 1);
  EMIT(&t, BODY(l), 2, IADD, wave_gpr(1), wave_gpr(1), wave_gpr(2));
  EMIT(&t, t.body, 3, IADD, wave_gpr(1), wave_gpr(1), wave_gpr(2));
  expect_falls_off(&t, false);

  /* An inner loop's break leaves only the inner loop. */
  t = setup();
  l = add_loop(&t, t.body, 1);
  wave_node *inner = add_loop(&t, BODY(l), 2);
  EMIT(&t, BODY(inner), 3, BREAK, wave_pred(1));
  expect_falls_off(&t, false);

  /* A break anywhere in the loop's own body, even inside an if, ends it. */
  t = setup();
  l = add_loop(&t, t.body, 1);
  wave_node *i = add_if(&t, BODY(l), 2, wave_pred(1));
  EMIT(&t, THEN(i), 3, BREAK, wave_pred(2));
  expect_falls_off(&t, true);

  t = setup();
  l = add_loop(&t, t.body, 1);
  EMIT(&t, BODY(l), 2, BREAK, wave_pred(2));
  halt(&t, t.body);
  expect_falls_off(&t, false);
}

Test(verify, regions_fall_through_in_source_order) {
  /* The entry region runs into the next region, which halts. */
  fixture t = setup();
  EMIT(&t, t.body, 1, IADD, wave_gpr(1), wave_gpr(1), wave_gpr(2));
  wave_region *next = wave_region_create(t.k, "next");
  halt(&t, wave_region_body(next));
  expect_falls_off(&t, false);

  /* A subroutine nobody calls and nobody falls into is never run. */
  t = setup();
  halt(&t, t.body);
  wave_region *dead = wave_region_create(t.k, "dead");
  EMIT(&t, wave_region_body(dead), 3, IADD, wave_gpr(1), wave_gpr(1), wave_gpr(2));
  expect_falls_off(&t, false);

  /* A called subroutine that never returns runs off the kernel's end. */
  t = setup();
  EMIT(&t, t.body, 1, CALL, wave_label_operand("sub"));
  halt(&t, t.body);
  wave_region *sub = wave_region_create(t.k, "sub");
  EMIT(&t, wave_region_body(sub), 3, IADD, wave_gpr(1), wave_gpr(1), wave_gpr(2));
  expect_falls_off(&t, true);

  t = setup();
  EMIT(&t, t.body, 1, CALL, wave_label_operand("sub"));
  halt(&t, t.body);
  sub = wave_region_create(t.k, "sub");
  EMIT0(&t, wave_region_body(sub), 3, RETURN);
  wave_region *tail = wave_region_create(t.k, "tail");
  EMIT(&t, wave_region_body(tail), 5, IADD, wave_gpr(1), wave_gpr(1), wave_gpr(2));
  expect_falls_off(&t, false);
}

/* ---- target limits ------------------------------------------------------------------------ */

Test(verify, f16_scalar_and_f32_mma_are_rejected_by_ptxas) {
  fixture t = setup();
  EMIT(&t, t.body, 1, HADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 2, HSUB, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 3, HMUL, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 4, MMA_LOAD_A, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 5, MMA_LOAD_B, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 6, MMA_COMPUTE, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 7, MMA_STORE_C, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 8, HADD2, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  EMIT(&t, t.body, 9, HMA, wave_gpr(1), wave_gpr(2), wave_gpr(3), wave_gpr(4));
  EMIT(&t, t.body, 10, BADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 1, 5, "scalar f16 'hadd' is rejected by ptxas in the PTX that wave-ptx makes");
  expect_warning(&t, 2, 5, "scalar f16 'hsub'");
  expect_warning(&t, 3, 5, "scalar f16 'hmul'");
  expect_warning(&t, 4, 5, "f32 MMA 'mma_load_a' is rejected by ptxas");
  expect_warning(&t, 5, 5, "f32 MMA 'mma_load_b'");
  expect_warning(&t, 6, 5, "f32 MMA 'mma_compute'");
  expect_warning(&t, 7, 5, "f32 MMA 'mma_store_c'");
  cr_assert_eq(t.d.count, 7, "hadd2, hma and badd are fine");
  teardown(&t);
}

Test(verify, workgroup_size_beyond_the_spec_limit) {
  fixture t = setup();
  wave_kernel_set_workgroup_size(t.k, 16, 32, 1);
  set_line(t.k, WAVE_KERNEL_LINE_WORKGROUP_SIZE, 3, 1);
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 3, 1, ".workgroup_size 16, 32, 1 has 512 threads, more than the spec's "
                           "MAX_WORKGROUP_SIZE of 256");
  teardown(&t);

  t = setup();
  wave_kernel_set_workgroup_size(t.k, 0x10000, 0x10000, 0x10000);
  set_line(t.k, WAVE_KERNEL_LINE_KERNEL, 1, 0);
  halt_and_verify(&t);
  expect_warning(&t, 1, 0, "has 281474976710656 threads");
  teardown(&t);

  t = setup();
  wave_kernel_set_workgroup_size(t.k, 64, 4, 1);
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);
}

Test(verify, registers_directive_beyond_the_encoding) {
  fixture t = setup();
  wave_kernel_set_registers(t.k, 300);
  set_line(t.k, WAVE_KERNEL_LINE_REGISTERS, 2, 0);
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 2, 0, ".registers 300 is more than 254: only r0-r254 can be encoded");
  teardown(&t);

  t = setup();
  wave_kernel_set_registers(t.k, 254);
  EMIT(&t, t.body, 1, IADD, wave_gpr(253), wave_gpr(0), wave_gpr(0));
  halt_and_verify(&t);
  expect_clean(&t);
  teardown(&t);
}

/* ---- diagnostics policy ------------------------------------------------------------------- */

static void build_warned_kernel(fixture *t) {
  GUARDED(t, t->body, 1, 0, false, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  halt(t, t->body);
}

Test(verify, ignored_warnings_are_dropped) {
  fixture t = setup();
  build_warned_kernel(&t);
  t.d.ignore_warnings = true;
  verify(&t);
  cr_assert(t.ok);
  cr_assert_eq(t.d.count, 0);
  teardown(&t);
}

Test(verify, warnings_as_errors_fail_verification) {
  fixture t = setup();
  build_warned_kernel(&t);
  t.d.warnings_as_errors = true;
  verify(&t);
  cr_assert_not(t.ok);
  cr_assert_eq(t.d.count, 1);
  cr_assert_eq(t.d.items[0].severity, WAVE_SEV_ERROR);
  cr_assert_str_eq(t.d.items[0].flag, "toolchain");
  teardown(&t);
}

/* Earlier errors in the list do not make a clean module fail. */
Test(verify, result_counts_only_this_call) {
  fixture t = setup();
  halt(&t, t.body);
  wave_loc loc = {"x", 1, 1};
  wave_diag_report(&t.d, WAVE_SEV_ERROR, NULL, loc, NULL, 0, "earlier");
  verify(&t);
  cr_assert(t.ok);
  cr_assert_eq(t.d.count, 1);
  teardown(&t);
}

Test(verify, source_line_is_quoted_when_known) {
  fixture t = setup();
  wave_module_destroy(t.m);
  static const char text[] = ".kernel k\n    iadd r40, r1, r2\n    halt\n.end\n";
  t.m = wave_parse_string(text, sizeof(text) - 1, "t.wave", &t.d);
  cr_assert_not_null(t.m);
  verify(&t);
  expect_error(&t, 2, 10, "register r40 is beyond");
  cr_assert_str_eq(t.d.items[0].source_line, "    iadd r40, r1, r2");
  teardown(&t);
}

/* ---- scale -------------------------------------------------------------------------------- */

/* 100 000 nested statements (loops and ifs alternating, a break in every loop, half of them
 * inside an if) verify without recursion and in linear time. */
Test(verify, deep_nesting_is_linear_and_stackless, .timeout = 20) {
  enum { DEPTH = 100000 };
  fixture t = setup();
  wave_node_list *list = t.body;
  for (unsigned i = 0; i < DEPTH; i++) {
    if (i % 2 == 0) {
      wave_node *l = add_loop(&t, list, i + 1);
      list = BODY(l);
    } else {
      wave_node *n = add_if(&t, list, i + 1, wave_pred(1));
      EMIT(&t, list, i + 1, BREAK, wave_pred(2));
      list = THEN(n);
      EMIT(&t, list, i + 1, BREAK, wave_pred(3));
    }
  }
  EMIT(&t, list, DEPTH + 1, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  halt_and_verify(&t);
  cr_assert(t.ok);
  expect_warning(&t, 33, 5, "'loop' opens nesting level 33");
  cr_assert_eq(count(&t, "opens nesting level"), 1);
  cr_assert_eq(count(&t, "'break' inside an 'if'"), DEPTH / 2);
  cr_assert_null(find(&t, "past its end"));
  cr_assert_eq(t.d.count, DEPTH / 2 + 1);
  teardown(&t);
}

/* Many subroutines, each calling the next: label lookups go through a hash table. */
Test(verify, many_regions_and_calls_are_linear, .timeout = 20) {
  enum { REGIONS = 50000 };
  fixture t = setup();
  char name[32];
  wave_node_list *list = t.body;
  for (unsigned i = 0; i < REGIONS; i++) {
    snprintf(name, sizeof(name), "sub%u", i);
    EMIT(&t, list, 2 * i + 1, CALL, wave_label_operand(name));
    EMIT0(&t, list, 2 * i + 2, RETURN);
    list = wave_region_body(wave_region_create(t.k, name));
  }
  EMIT0(&t, list, 2 * REGIONS + 1, RETURN);
  verify(&t);
  cr_assert(t.ok);
  cr_assert_eq(count(&t, "'call' is rejected"), REGIONS);
  cr_assert_eq(t.d.count, REGIONS);
  teardown(&t);
}

/* ---- parsed text -------------------------------------------------------------------------- */

static void parse(fixture *t, const char *text) {
  t->m = tu_parse_ok(text, "t.wave", true);
  wave_diags_init(&t->d);
  t->k = wave_module_first_kernel(t->m);
  t->body = t->k ? wave_region_body(wave_kernel_first_region(t->k)) : NULL;
  verify(t);
}

/* docs/language.md "Example kernels", examples 1 and 3: correct kernels on every tool. */
Test(verify_text, reference_examples_are_clean) {
  fixture t;
  parse(&t, TU_AXPY_TEXT
            ".kernel wave_sums\n"
            ".registers 16\n"
            "    mov_sr   r10, sr_lane_id\n"
            "    mov_imm  r11, 0\n"
            "    icmp_eq  p1, r10, r11\n"
            "    wave_reduce_add r9, r8\n"
            "    if p1\n"
            "        atomic_add r1, r9, .device\n"
            "    endif\n"
            "    mov_imm  r13, 16\n"
            "    wave_shuffle_xor r14, r12, r13\n"
            "    fadd     r12, r12, r14\n"
            "    halt\n"
            ".end\n");
  expect_clean(&t);
  teardown(&t);
}

/* Example 2 of docs/language.md "Example kernels" is correct WAVE, but its continue hangs the
 * upstream emulator. */
Test(verify_text, loop_with_continue_warns_once) {
  fixture t;
  parse(&t, ".kernel loop_demo\n"
            ".registers 16\n"
            "    mov_imm  r2, 0\n"
            "    loop\n"
            "        icmp_ge  p1, r2, r1\n"
            "        break    p1\n"
            "        icmp_eq  p2, r9, r6\n"
            "        continue p2\n"
            "        iadd     r3, r3, r8\n"
            "    endloop\n"
            "    halt\n"
            ".end\n");
  cr_assert(t.ok);
  cr_assert_eq(t.d.count, 1);
  expect_warning(&t, 8, 9, "'continue' hangs or overflows the control-flow stack");
  cr_assert_str_eq(t.d.items[0].source_line, "        continue p2");
  teardown(&t);
}

Test(verify_text, errors_point_at_the_operand) {
  fixture t;
  parse(&t, ".kernel k\n"
            ".registers 16\n"
            "    iadd r0, p1, r2\n"
            "    iadd r1, r2, r16\n"
            "    dadd r15, r2, r4\n"
            "    mov_sr r1, r2\n"
            "    fence_acquire r1\n"
            "    halt\n"
            ".end\n");
  cr_assert_not(t.ok);
  expect_error(&t, 3, 14, "expected register as operand 2 of 'iadd'");
  expect_error(&t, 4, 18, "register r16 is beyond .registers 16 (the emulator reads such "
                          "registers as 0");
  expect_error(&t, 5, 10, "register r16 (part of the 2-register operand r15)");
  expect_error(&t, 6, 16, "expected special register as operand 2 of 'mov_sr'");
  expect_error(&t, 7, 19, "expected scope specifier as operand 1 of 'fence_acquire'");
  cr_assert_eq(t.d.count, 5);
  cr_assert_str_eq(t.d.items[0].source_line, "    iadd r0, p1, r2");
  teardown(&t);
}

Test(verify_text, toolchain_warnings_in_text) {
  fixture t;
  parse(&t, ".kernel k\n"
            "    atomic_add r0, r1, r2, .device\n"
            "    iadd r1, sr_lane_id, r2.lo\n"
            "    @p1 device_store_u32 r1, r2\n"
            "    @!p0 iadd r1, r2, r3\n"
            "    hmul r1, r2, r3\n"
            "    mma_compute r1, r2, r3\n"
            "    loop\n"
            "        if p1\n"
            "            break p2\n"
            "        endif\n"
            "    endloop\n"
            "    halt\n"
            ".end\n");
  cr_assert(t.ok);
  expect_warning(&t, 2, 16, "r0 as an atomic destination means 'no return'");
  expect_warning(&t, 3, 14,
                 "special register 'sr_lane_id' outside mov_sr is encoded as register r4");
  expect_warning(&t, 3, 26, "half register '.lo' is ignored by every tool");
  expect_warning(&t, 4, 5, "guard on 'device_store_u32' is dropped by wave-ptx");
  expect_warning(&t, 5, 5, "'@!p0' guard is dropped by wave-ptx");
  expect_warning(&t, 6, 5, "scalar f16 'hmul' is rejected by ptxas");
  expect_warning(&t, 7, 5, "f32 MMA 'mma_compute' is rejected by ptxas");
  expect_warning(&t, 10, 13, "'break' inside an 'if' is deferred by the upstream emulator");
  cr_assert_eq(t.d.count, 8);
  teardown(&t);
}

/* `mov r, sr_x` and a device atomic without destination are real syntax, not problems. */
Test(verify_text, accepted_spellings_are_clean) {
  fixture t;
  parse(&t, ".kernel k\n"
            "    mov r3, sr_lane_id\n"
            "    atomic_add r1, r9, .device\n"
            "    local_atomic_add r1, r9\n"
            "    fence_release.workgroup\n"
            "    halt\n"
            ".end\n");
  expect_clean(&t);
  teardown(&t);
}

Test(verify_text, running_past_end_is_reported_at_dot_end) {
  fixture t;
  parse(&t, ".kernel first\n"
            "    halt\n"
            ".end\n"
            ".kernel second\n"
            "    call sub\n"
            "    halt\n"
            "sub:\n"
            "    nop\n"
            ".end\n");
  cr_assert(t.ok);
  expect_warning(&t, 9, 1, "kernel 'second' can run past its end without 'halt' or 'return'");
  expect_warning(&t, 5, 5, "'call' is rejected by wave-ptx");
  cr_assert_eq(t.d.count, 2);
  teardown(&t);
}

Test(verify_text, call_target_in_another_kernel) {
  fixture t;
  parse(&t, ".kernel first\n"
            "    halt\n"
            "helper:\n"
            "    return\n"
            ".end\n"
            ".kernel second\n"
            "    call helper\n"
            "    halt\n"
            ".end\n");
  expect_error(&t, 7, 10, "call target 'helper' is not a label of kernel 'second'");
  cr_assert_eq(t.d.count, 1);
  teardown(&t);
}

Test(verify_text, directives_beyond_spec_limits) {
  fixture t;
  parse(&t, ".kernel k\n"
            ".registers 300\n"
            ".workgroup_size 32, 16, 1\n"
            "    halt\n"
            ".end\n");
  cr_assert(t.ok);
  expect_warning(&t, 2, 1, ".registers 300 is more than 254");
  expect_warning(&t, 3, 1, ".workgroup_size 32, 16, 1 has 512 threads");
  cr_assert_eq(t.d.count, 2);
  teardown(&t);
}

Test(verify_text, nesting_of_33_ifs_in_text) {
  char text[4096] = ".kernel k\n";
  tu_repeat(text, sizeof text, "if p1\n", 33);
  strcat(text, "nop\n");
  tu_repeat(text, sizeof text, "endif\n", 33);
  strcat(text, "halt\n.end\n");
  fixture t;
  parse(&t, text);
  cr_assert(t.ok);
  expect_warning(&t, 34, 1, "'if' opens nesting level 33");
  cr_assert_eq(t.d.count, 1);
  teardown(&t);
}

/* The parser rejects guards on if/else/endif/loop/endloop; guards on break, continue and call
 * reach the verifier. */
Test(verify_text, guarded_break_continue_call) {
  fixture t;
  parse(&t, ".kernel k\n"
            "    loop\n"
            "        @p1 break p2\n"
            "        @!p2 continue p3\n"
            "        @p3 call sub\n"
            "        break p3\n"
            "    endloop\n"
            "    halt\n"
            "sub:\n"
            "    return\n"
            ".end\n");
  expect_error(&t, 3, 9, "guard on a structured control-flow instruction 'break'");
  expect_error(&t, 4, 9, "guard on a structured control-flow instruction 'continue'");
  expect_error(&t, 5, 9, "guard on a structured control-flow instruction 'call'");
  cr_assert_eq(t.d.count, 3);
  teardown(&t);
}
