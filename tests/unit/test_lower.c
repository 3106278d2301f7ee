/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of documentation-dialect forms. Every case is checked twice: the shape of the emitted
 * code (unguarded helpers writing only scratch registers, the original guard on the last
 * instruction, printable by the assembly dialect) and its behaviour: a small evaluator runs
 * the original form with its intended meaning and the lowered sequence with the real
 * instructions' meaning, over every predicate combination and a spread of register values,
 * and the results must agree.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/waveopt.h"

static wave_module *mod;
static wave_diags diags;

static void setup(void) {
  mod = wave_module_create("t.wave");
  wave_diags_init(&diags);
}
static void teardown(void) {
  wave_module_destroy(mod);
  wave_diags_free(&diags);
}

TestSuite(lower, .init = setup, .fini = teardown);

#define OPS(...)                                                                         \
  (unsigned)(sizeof((wave_operand[]){__VA_ARGS__}) / sizeof(wave_operand)),            \
      (wave_operand[]) { __VA_ARGS__ }

static wave_instr *make(int guard, bool neg, wave_opcode op, unsigned n, const wave_operand *ops) {
  wave_instr *in = wave_instr_create(mod, op, guard, neg, n, ops);
  cr_assert_not_null(in);
  return in;
}

static wave_instr *add(wave_node *block, wave_opcode op, unsigned n, const wave_operand *ops) {
  wave_instr *in = make(WAVE_NO_GUARD, false, op, n, ops);
  wave_block_append(block, in);
  return in;
}

static wave_operand imm_form(uint32_t bits, wave_imm_form form) {
  wave_operand o = wave_imm(bits);
  o.imm_form = (uint8_t)form;
  return o;
}

static wave_node *tail_block(wave_node_list *list) {
  wave_node *b = wave_node_list_tail_block(mod, list);
  cr_assert_not_null(b);
  return b;
}

/* ---- the evaluator --------------------------------------------------------------------------- */

typedef struct machine {
  uint32_t r[256];
  bool p[4];
  int exits; /* break/continue taken: -1 not reached, 0 no, 1 yes */
} machine;

static float as_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

/* strict: only what the real assembler accepts (the lowered code); otherwise the documentation
 * dialect with its intended meaning (the reference). */
static uint32_t src_value(const machine *m, const wave_operand *o, bool strict) {
  if (o->kind == WAVE_OPERAND_IMM) {
    cr_assert(!strict, "immediate left in a register slot");
    return o->value;
  }
  cr_assert_eq(o->kind, WAVE_OPERAND_GPR);
  return m->r[o->value];
}

static bool pred_value(const machine *m, const wave_operand *o, bool strict) {
  cr_assert_eq(o->kind, WAVE_OPERAND_PRED);
  cr_assert(!(strict && o->negated), "negated predicate left after lowering");
  cr_assert_lt(o->value, 4);
  return m->p[o->value] != (o->negated != 0);
}

static bool compare(wave_opcode op, uint32_t a, uint32_t b) {
  int32_t sa = (int32_t)a, sb = (int32_t)b;
  float fa = as_float(a), fb = as_float(b);
  switch (op) {
  case WAVE_OP_ICMP_EQ: case WAVE_OP_UCMP_EQ: return a == b;
  case WAVE_OP_ICMP_NE: case WAVE_OP_UCMP_NE: return a != b;
  case WAVE_OP_ICMP_LT: return sa < sb;
  case WAVE_OP_ICMP_LE: return sa <= sb;
  case WAVE_OP_ICMP_GT: return sa > sb;
  case WAVE_OP_ICMP_GE: return sa >= sb;
  case WAVE_OP_UCMP_LT: return a < b;
  case WAVE_OP_UCMP_LE: return a <= b;
  case WAVE_OP_UCMP_GT: return a > b;
  case WAVE_OP_UCMP_GE: return a >= b;
  case WAVE_OP_FCMP_EQ: return fa == fb;
  case WAVE_OP_FCMP_NE: return !(fa == fb); /* true when either is NaN */
  case WAVE_OP_FCMP_LT: return fa < fb;
  case WAVE_OP_FCMP_LE: return fa <= fb;
  case WAVE_OP_FCMP_GT: return fa > fb;
  case WAVE_OP_FCMP_GE: return fa >= fb;
  default: cr_assert_fail("not a compare: %s", wave_opcode_table[op].mnemonic); return false;
  }
}

static void exec(machine *m, const wave_instr *in, bool strict) {
  wave_opcode op = wave_instr_op(in);
  cr_assert(!(strict && wave_opcode_has(op, WAVE_F_PSEUDO)), "pseudo form %s left",
            wave_opcode_table[op].mnemonic);
  if (op == WAVE_OP_BREAK || op == WAVE_OP_CONTINUE)
    m->exits = 0;
  if (wave_instr_guard(in) != WAVE_NO_GUARD &&
      m->p[wave_instr_guard(in)] == (wave_instr_guard_negated(in) != 0))
    return;
  wave_operand o[WAVE_MAX_OPERANDS];
  for (unsigned k = 0; k < WAVE_MAX_OPERANDS; k++)
    o[k] = wave_instr_operand(in, k);
  uint32_t d = o[0].value;
#define S(i) src_value(m, &o[i], strict)
#define P(i) pred_value(m, &o[i], strict)
  switch (op) {
  case WAVE_OP_NOP: break;
  case WAVE_OP_MOV_IMM: cr_assert_eq(o[1].kind, WAVE_OPERAND_IMM); m->r[d] = o[1].value; break;
  case WAVE_OP_MOV: m->r[d] = S(1); break;
  case WAVE_OP_IADD: m->r[d] = S(1) + S(2); break;
  case WAVE_OP_ISUB: m->r[d] = S(1) - S(2); break;
  case WAVE_OP_IMUL: m->r[d] = S(1) * S(2); break;
  case WAVE_OP_IMAD: m->r[d] = S(1) * S(2) + S(3); break;
  case WAVE_OP_SHL: m->r[d] = S(1) << (S(2) & 31); break;
  case WAVE_OP_XOR: m->r[d] = S(1) ^ S(2); break;
  case WAVE_OP_SELECT: m->r[d] = P(1) ? S(2) : S(3); break;
  case WAVE_OP_PAND: m->p[d] = P(1) && P(2); break;
  case WAVE_OP_POR: m->p[d] = P(1) || P(2); break;
  case WAVE_OP_PXOR: m->p[d] = P(1) != P(2); break;
  case WAVE_OP_PNOT: m->p[d] = !P(1); break;
  case WAVE_OP_WAVE_ANY: m->p[d] = P(1); break; /* one lane */
  case WAVE_OP_BREAK: case WAVE_OP_CONTINUE: m->exits = P(0); break;
  default:
    cr_assert_eq(wave_opcode_table[op].category, WAVE_CAT_CMP, "no evaluator for %s",
                 wave_opcode_table[op].mnemonic);
    m->p[d] = compare(op, S(1), S(2));
    break;
  }
#undef S
#undef P
}

/* ---- checking one rewrite -------------------------------------------------------------------- */

enum { USER_REGS = 10 }; /* the test kernels mention r0..r9, so scratch starts at r10 */
#define NO_PRED 99u     /* check_shape: no helper may write any predicate */

static const uint32_t interesting[] = {
    0, 1, 5, 100, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFF6u /* -10 */,
    0x3F800000u /* 1.0f */, 0x80000000u /* -0.0f */, 0x7FC00000u /* NaN */,
    0x7F800000u /* +inf */, 0xBF800000u /* -1.0f */,
};
#define NUM_INTERESTING (sizeof(interesting) / sizeof(interesting[0]))

static void init_machine(machine *m, unsigned preds, unsigned v0, unsigned v1) {
  for (unsigned i = 0; i < 256; i++)
    m->r[i] = 0xA5A50000u ^ (i * 2654435761u) ^ (preds << 8) ^ v0;
  m->r[0] = interesting[v0];
  m->r[1] = interesting[v1];
  m->r[2] = interesting[(v0 + v1) % NUM_INTERESTING];
  m->r[3] = interesting[(v0 * 3 + 1) % NUM_INTERESTING];
  for (unsigned p = 0; p < 4; p++)
    m->p[p] = (preds >> p) & 1;
  m->exits = -1;
}

/* The kernel under test: r0..r9 mentioned up front, then `begin: nop`, the form, `nop`. */
typedef struct harness {
  wave_kernel *kernel;
  wave_node *block;
  wave_instr *begin, *end, *form;
  wave_instr *original; /* a detached copy of the form as built */
} harness;

/* A kernel "k" whose entry block mentions r0..r9; returns that block. */
static wave_node *new_kernel(wave_kernel **kernel) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  cr_assert_not_null(k);
  wave_node *b = tail_block(wave_region_body(wave_kernel_first_region(k)));
  add(b, WAVE_OP_IADD, OPS(wave_gpr(USER_REGS - 1), wave_gpr(0), wave_gpr(0)));
  if (kernel)
    *kernel = k;
  return b;
}

/* Appends `nop`, the form (line 7, with comments), `nop` to block. */
static void place_form(harness *h, wave_node *block, int guard, bool neg, wave_opcode op,
                       unsigned n, const wave_operand *ops) {
  h->block = block;
  h->begin = add(block, WAVE_OP_NOP, 0, NULL);
  h->form = make(guard, neg, op, n, ops);
  tu_set_origin(h->form, (wave_loc){"t.wave", 7, 5}, "; leading", "; trailing");
  wave_block_append(block, h->form);
  h->end = add(block, WAVE_OP_NOP, 0, NULL);
  h->original = wave_instr_clone(mod, h->form);
  cr_assert_not_null(h->original);
}

static harness build(int guard, bool neg, wave_opcode op, unsigned n, const wave_operand *ops) {
  harness h;
  place_form(&h, new_kernel(&h.kernel), guard, neg, op, n, ops);
  return h;
}

static void check_printable(void) {
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  char *text = wave_print_to_string(mod, &opts, NULL);
  cr_assert_not_null(text, "lowered module does not print in the assembly dialect");
  free(text);
}

/* Checks the shape of what replaced h->original and returns how many instructions it has. */
static unsigned check_shape(const harness *h, uint32_t free_pred_written) {
  unsigned count = 0;
  const wave_instr *last = NULL;
  for (const wave_instr *in = wave_instr_next(h->begin); in != h->end; in = wave_instr_next(in)) {
    cr_assert_not_null(in);
    cr_assert_eq(wave_instr_loc(in).line, 7, "lowered code lost the source line");
    cr_assert_eq(wave_instr_loc(in).col, 5);
    if (count == 0) {
      cr_assert_str_eq(wave_instr_origin(in).comment, "; trailing");
      cr_assert_str_eq(wave_instr_origin(in).leading, "; leading");
    } else {
      cr_assert_null(wave_instr_origin(in).comment);
      cr_assert_null(wave_instr_origin(in).leading);
    }
    last = in;
    count++;
  }
  cr_assert_not_null(last);
  for (const wave_instr *in = wave_instr_next(h->begin); in != last; in = wave_instr_next(in)) {
    cr_assert_eq(wave_instr_guard(in), WAVE_NO_GUARD, "a helper instruction is guarded");
    wave_reg_ref refs[WAVE_MAX_REG_REFS];
    unsigned n = wave_instr_reg_refs(in, refs);
    for (unsigned i = 0; i < n; i++) {
      if (!refs[i].is_def)
        continue;
      if (refs[i].is_pred)
        cr_assert_eq(refs[i].first, free_pred_written, "a helper writes a used predicate");
      else
        cr_assert_geq(refs[i].first, USER_REGS, "a helper writes r%u", refs[i].first);
    }
  }
  cr_assert_eq(wave_instr_guard(last), wave_instr_guard(h->original), "the guard moved");
  cr_assert_eq(wave_instr_guard_negated(last), wave_instr_guard_negated(h->original));
  cr_assert_eq(wave_instr_cache_hint(last), wave_instr_cache_hint(h->original));
  check_printable();
  return count;
}

/* Runs [want, want_stop) with its intended meaning and [got, got_stop) strictly from the same
 * states, and compares every user register, every predicate but the scratch one, and whether
 * break/continue fires. */
static void compare_from_every_state(const wave_instr *want_first, const wave_instr *want_stop,
                                     const wave_instr *got_first, const wave_instr *got_stop,
                                     int scratch_pred) {
  for (unsigned preds = 0; preds < 16; preds++) {
    for (unsigned v0 = 0; v0 < NUM_INTERESTING; v0++) {
      for (unsigned v1 = 0; v1 < NUM_INTERESTING; v1++) {
        machine want, got;
        init_machine(&want, preds, v0, v1);
        init_machine(&got, preds, v0, v1);
        for (const wave_instr *in = want_first; in != want_stop; in = wave_instr_next(in))
          exec(&want, in, false);
        for (const wave_instr *in = got_first; in != got_stop; in = wave_instr_next(in))
          exec(&got, in, true);
        for (unsigned r = 0; r < USER_REGS; r++)
          cr_assert_eq(got.r[r], want.r[r], "r%u: %08x, want %08x (preds %x, r0 %08x, r1 %08x)",
                       r, got.r[r], want.r[r], preds, want.r[0], want.r[1]);
        for (int p = 0; p < 4; p++) {
          if (p != scratch_pred)
            cr_assert_eq(got.p[p], want.p[p], "p%d differs (preds %x, r0 %08x, r1 %08x)", p,
                         preds, want.r[0], want.r[1]);
        }
        cr_assert_eq(got.exits, want.exits, "break/continue differs (preds %x)", preds);
      }
    }
  }
}

/* The original form against the sequence it was lowered to. */
static void check_behaviour(const harness *h, int scratch_pred) {
  /* `original` is a copy outside every list: running it one step ends at its next, NULL. */
  compare_from_every_state(h->original, NULL, wave_instr_next(h->begin), h->end, scratch_pred);
}

static bool lower_ok(void) {
  bool ok = wave_lower_docs_dialect(mod, &diags);
  if (!ok && diags.count)
    cr_log_error("%s", diags.items[0].message);
  return ok;
}

/* Builds, lowers, and checks one form; returns the number of instructions it became. */
static unsigned check_form(int guard, bool neg, wave_opcode op, unsigned n,
                           const wave_operand *ops) {
  harness h = build(guard, neg, op, n, ops);
  cr_assert(lower_ok());
  cr_assert_eq(diags.count, 0);
  unsigned count = check_shape(&h, NO_PRED);
  check_behaviour(&h, -1);
  return count;
}

/* ---- predicate logic ------------------------------------------------------------------------- */

Test(lower, predicate_logic_matches_its_truth_table) {
  const struct {
    wave_opcode op;
    unsigned n;
    wave_operand ops[3];
    int guard;
    bool neg;
  } cases[] = {
      {WAVE_OP_PAND, 3, {wave_pred(2), wave_pred(0), wave_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_POR, 3, {wave_pred(2), wave_pred(0), wave_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_PXOR, 3, {wave_pred(2), wave_pred(0), wave_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_PNOT, 2, {wave_pred(1), wave_pred(2)}, WAVE_NO_GUARD, false},
      /* destination equal to a source */
      {WAVE_OP_PAND, 3, {wave_pred(0), wave_pred(0), wave_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_POR, 3, {wave_pred(1), wave_pred(0), wave_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_PXOR, 3, {wave_pred(3), wave_pred(3), wave_pred(3)}, WAVE_NO_GUARD, false},
      {WAVE_OP_PNOT, 2, {wave_pred(2), wave_pred(2)}, WAVE_NO_GUARD, false},
      /* guarded, including by the destination or a source */
      {WAVE_OP_PAND, 3, {wave_pred(2), wave_pred(0), wave_pred(1)}, 3, false},
      {WAVE_OP_POR, 3, {wave_pred(0), wave_pred(1), wave_pred(2)}, 3, true},
      {WAVE_OP_PXOR, 3, {wave_pred(1), wave_pred(1), wave_pred(2)}, 1, false},
      {WAVE_OP_PNOT, 2, {wave_pred(3), wave_pred(0)}, 3, true},
      /* negated sources */
      {WAVE_OP_PAND, 3, {wave_pred(2), wave_not_pred(0), wave_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_POR, 3, {wave_pred(2), wave_pred(0), wave_not_pred(1)}, WAVE_NO_GUARD, false},
      {WAVE_OP_PXOR, 3, {wave_pred(2), wave_not_pred(0), wave_not_pred(3)}, 1, true},
      {WAVE_OP_PNOT, 2, {wave_pred(1), wave_not_pred(2)}, WAVE_NO_GUARD, false},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    unsigned count =
        check_form(cases[i].guard, cases[i].neg, cases[i].op, cases[i].n, cases[i].ops);
    unsigned expect = cases[i].op == WAVE_OP_PXOR ? 6 : cases[i].op == WAVE_OP_PNOT ? 4 : 5;
    cr_assert_eq(count, expect, "case %zu became %u instructions", i, count);
  }
}

/* The evaluator's reference is checked against literal tables too, so that a wrong reference
 * cannot hide a wrong lowering. */
Test(lower, literal_truth_tables) {
  const struct {
    wave_opcode op;
    bool table[4]; /* indexed by p0 + 2*p1 */
  } tables[] = {
      {WAVE_OP_PAND, {false, false, false, true}},
      {WAVE_OP_POR, {false, true, true, true}},
      {WAVE_OP_PXOR, {false, true, true, false}},
      {WAVE_OP_PNOT, {true, false, true, false}}, /* not p0 */
  };
  for (size_t t = 0; t < 4; t++) {
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    harness h = tables[t].op == WAVE_OP_PNOT
                    ? build(WAVE_NO_GUARD, false, WAVE_OP_PNOT, OPS(wave_pred(2), wave_pred(0)))
                    : build(WAVE_NO_GUARD, false, tables[t].op,
                            OPS(wave_pred(2), wave_pred(0), wave_pred(1)));
    cr_assert(lower_ok());
    for (unsigned in = 0; in < 4; in++) {
      machine m;
      init_machine(&m, in, 0, 0);
      for (const wave_instr *i = wave_instr_next(h.begin); i != h.end; i = wave_instr_next(i))
        exec(&m, i, true);
      cr_assert_eq(m.p[2], tables[t].table[in], "%s with p0=%u p1=%u",
                   wave_opcode_table[tables[t].op].mnemonic, in & 1, in >> 1);
    }
  }
}

static void expect_lowered(const char *expected) {
  cr_assert(lower_ok());
  wave_print_options opts = {WAVE_DIALECT_ASM, true, 0};
  char *text = wave_print_to_string(mod, &opts, NULL);
  cr_assert_not_null(text, "the lowered module does not print in the assembly dialect");
  cr_assert_str_eq(text, expected);
  free(text);
}

Test(lower, and_uses_the_documented_idiom) {
  wave_node *b = new_kernel(NULL);
  wave_block_append(b, make(2, true, WAVE_OP_PAND, OPS(wave_pred(3), wave_pred(0), wave_pred(1))));
  expect_lowered(".kernel k\n"
                 "    iadd r9, r0, r0\n"
                 "    mov_imm r10, 0\n"
                 "    mov_imm r11, 1\n"
                 "    select r12, p0, r11, r10\n"
                 "    select r12, p1, r12, r10\n"
                 "    @!p2 icmp_ne p3, r12, r10\n"
                 ".end\n");
}

Test(lower, xor_and_not_sequences) {
  wave_node *b = new_kernel(NULL);
  wave_block_append(b, make(1, false, WAVE_OP_PXOR, OPS(wave_pred(0), wave_pred(2), wave_pred(3))));
  add(b, WAVE_OP_PNOT, OPS(wave_pred(1), wave_pred(1)));
  expect_lowered(".kernel k\n"
                 "    iadd r9, r0, r0\n"
                 "    mov_imm r10, 0\n"
                 "    mov_imm r11, 1\n"
                 "    select r12, p2, r11, r10\n"
                 "    select r13, p3, r11, r10\n"
                 "    xor r12, r12, r13\n"
                 "    @p1 icmp_ne p0, r12, r10\n"
                 "    mov_imm r10, 0\n"
                 "    mov_imm r11, 1\n"
                 "    select r12, p1, r10, r11\n"
                 "    icmp_ne p1, r12, r10\n"
                 ".end\n");
}

/* ---- negated predicate operands -------------------------------------------------------------- */

/* break/continue inside a loop: the harness block sits in the loop body. */
static harness build_in_loop(int guard, bool neg, wave_opcode op, wave_operand pred,
                             unsigned mention_preds) {
  harness h;
  wave_node *first = new_kernel(&h.kernel);
  for (unsigned p = 0; p < 4; p++) {
    if (mention_preds & (1u << p))
      add(first, WAVE_OP_ICMP_EQ, OPS(wave_pred(p), wave_gpr(0), wave_gpr(1)));
  }
  wave_node *loop = wave_loop_create(mod);
  wave_node_list_append(wave_region_body(wave_kernel_first_region(h.kernel)), loop);
  place_form(&h, tail_block(wave_loop_body(loop)), guard, neg, op, OPS(pred));
  return h;
}

Test(lower, negated_break_and_continue) {
  const struct {
    wave_opcode op;
    unsigned pred;
    int guard;
    bool neg;
    unsigned mentioned; /* predicates the kernel uses besides the operand */
    unsigned free_pred;
  } cases[] = {
      {WAVE_OP_BREAK, 1, WAVE_NO_GUARD, false, 0x5, 3},
      {WAVE_OP_CONTINUE, 0, WAVE_NO_GUARD, false, 0xA, 2},
      {WAVE_OP_BREAK, 3, 1, false, 0x1, 2},   /* guarded break keeps its guard */
      {WAVE_OP_CONTINUE, 2, 1, true, 0x0, 0}, /* lowest free predicate is taken */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    harness h = build_in_loop(cases[i].guard, cases[i].neg, cases[i].op,
                              wave_not_pred(cases[i].pred), cases[i].mentioned);
    cr_assert(lower_ok());
    unsigned count = check_shape(&h, cases[i].free_pred);
    cr_assert_eq(count, 5);
    cr_assert_eq(wave_instr_op(h.form), cases[i].op);
    cr_assert_eq(wave_instr_operand(h.form, 0).value, cases[i].free_pred);
    cr_assert_eq(wave_instr_operand(h.form, 0).negated, 0);
    check_behaviour(&h, (int)cases[i].free_pred);
  }
}

Test(lower, negated_break_text) {
  harness h = build_in_loop(WAVE_NO_GUARD, false, WAVE_OP_BREAK, wave_not_pred(1), 0x7);
  wave_instr_remove(h.begin);
  wave_instr_remove(h.end);
  expect_lowered(".kernel k\n"
                 "    iadd r9, r0, r0\n"
                 "    icmp_eq p0, r0, r1\n"
                 "    icmp_eq p1, r0, r1\n"
                 "    icmp_eq p2, r0, r1\n"
                 "    loop\n"
                 "        mov_imm r10, 0\n"
                 "        mov_imm r11, 1\n"
                 "        select r12, p1, r10, r11\n"
                 "        icmp_ne p3, r12, r10\n"
                 "        break p3\n"
                 "    endloop\n"
                 ".end\n");
}

/* Reads of p0, p2 and p3 after the loop of build_in_loop: none of them is dead at its break. */
static void read_after_loop(const harness *h) {
  wave_node *after = tail_block(wave_region_body(wave_kernel_first_region(h->kernel)));
  for (unsigned p = 0; p < 4; p++) {
    if (p != 1)
      add(after, WAVE_OP_SELECT, OPS(wave_gpr(3), wave_pred(p), wave_gpr(0), wave_gpr(1)));
  }
}

/* The kernel mentions all four predicates, but p0, p2 and p3 are only written before the loop:
 * dead at the break, and the lowest of them serves. */
Test(lower, a_dead_predicate_serves_when_all_four_are_mentioned) {
  harness h = build_in_loop(WAVE_NO_GUARD, false, WAVE_OP_BREAK, wave_not_pred(1), 0xD);
  cr_assert(lower_ok());
  cr_assert_eq(check_shape(&h, 0), 5);
  cr_assert_eq(wave_instr_operand(h.form, 0).value, 0);
  cr_assert_eq(wave_instr_operand(h.form, 0).negated, 0);
  check_behaviour(&h, 0);
}

/* In a module with a call the kernel's liveness is not asked: a subroutine lowered with
 * another kernel may run on the caller's predicates. */
Test(lower, a_module_with_a_call_takes_no_dead_predicate) {
  harness h = build_in_loop(WAVE_NO_GUARD, false, WAVE_OP_BREAK, wave_not_pred(1), 0xD);
  add(tail_block(wave_region_body(wave_kernel_first_region(h.kernel))), WAVE_OP_CALL,
      OPS(wave_label_operand("sub")));
  wave_region *sub = wave_region_create(h.kernel, "sub");
  add(tail_block(wave_region_body(sub)), WAVE_OP_RETURN, 0, NULL);
  cr_assert_not(wave_lower_docs_dialect(mod, &diags));
  cr_assert_str_eq(diags.items[0].message,
                   "cannot lower 'break !p1': every predicate register is in use");
}

Test(lower, no_free_predicate_is_an_error) {
  harness h = build_in_loop(WAVE_NO_GUARD, false, WAVE_OP_BREAK, wave_not_pred(1), 0xD);
  read_after_loop(&h);
  cr_assert_not(wave_lower_docs_dialect(mod, &diags));
  cr_assert_eq(diags.num_errors, 1);
  cr_assert_str_eq(diags.items[0].message,
                   "cannot lower 'break !p1': every predicate register is in use");
  cr_assert_eq(diags.items[0].line, 7);
  cr_assert_eq(diags.items[0].col, 5);
  cr_assert_str_eq(diags.items[0].file, "t.wave");
  /* refused rewrites leave the instruction as it was */
  cr_assert_eq(wave_instr_next(h.begin), h.form);
  cr_assert(wave_instr_operand(h.form, 0).negated);
  cr_assert_str_eq(wave_instr_origin(h.form).comment, "; trailing");
}

Test(lower, negated_select_swaps_its_values) {
  unsigned count =
      check_form(WAVE_NO_GUARD, false, WAVE_OP_SELECT,
                 OPS(wave_gpr(0), wave_not_pred(1), wave_gpr(2), wave_gpr(3)));
  cr_assert_eq(count, 1);
  count = check_form(3, true, WAVE_OP_SELECT,
                     OPS(wave_gpr(1), wave_not_pred(3), wave_gpr(1), wave_imm(42)));
  cr_assert_eq(count, 2);
}

Test(lower, negated_wave_vote_operand) {
  harness h = build(WAVE_NO_GUARD, false, WAVE_OP_WAVE_ANY, OPS(wave_pred(0), wave_not_pred(2)));
  cr_assert(lower_ok());
  cr_assert_eq(check_shape(&h, 1), 5);
  cr_assert_eq(wave_instr_operand(h.form, 1).value, 1);
  check_behaviour(&h, 1);
}

/* `if !p` needs its inverse computed before the if, in the block in front of it. With
 * all_mentioned the kernel writes all four predicates first and reads p0 in the then-side and
 * p1 after the if: p3 is the one dead at the if. */
static void check_negated_if(bool block_before, bool all_mentioned) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node_list *body = wave_region_body(wave_kernel_first_region(k));
  if (block_before)
    add(tail_block(body), WAVE_OP_ICMP_LT, OPS(wave_pred(0), wave_gpr(0), wave_gpr(9)));
  for (unsigned p = 0; all_mentioned && p < 4; p++)
    add(tail_block(body), WAVE_OP_ICMP_EQ, OPS(wave_pred(p), wave_gpr(0), wave_gpr(1)));
  wave_node *ifn = wave_if_create(mod, wave_not_pred(2));
  tu_set_node_origin(ifn, WAVE_LINE_IF, (wave_loc){"t.wave", 3, 5}, NULL, "; inverted");
  wave_node_list_append(body, ifn);
  add(tail_block(wave_if_then(ifn)), WAVE_OP_NOP, 0, NULL);
  if (all_mentioned) {
    add(tail_block(wave_if_then(ifn)), WAVE_OP_SELECT,
        OPS(wave_gpr(3), wave_pred(0), wave_gpr(0), wave_gpr(1)));
    add(tail_block(body), WAVE_OP_SELECT, OPS(wave_gpr(4), wave_pred(1), wave_gpr(0), wave_gpr(1)));
  }
  cr_assert(lower_ok());
  /* The lowest predicate the kernel never mentions, or the one dead at the if. */
  unsigned pf = all_mentioned ? 3 : block_before ? 1 : 0;
  cr_assert_eq(wave_if_cond(ifn).value, pf);
  cr_assert_eq(wave_if_cond(ifn).negated, 0);
  wave_node *prev = wave_node_prev(ifn);
  cr_assert_not_null(prev);
  cr_assert_eq(wave_node_kind_of(prev), WAVE_NODE_BLOCK);
  cr_assert_eq(wave_node_list_first(body), prev, "the helper code must go right before the if");
  const wave_instr *seq = wave_block_first(prev);
  while (seq && wave_instr_loc(seq).line != 3)
    seq = wave_instr_next(seq);
  cr_assert_not_null(seq);
  cr_assert_str_eq(wave_instr_origin(seq).comment, "; inverted");
  cr_assert_null(wave_node_origin(ifn, WAVE_LINE_IF).comment);
  for (unsigned preds = 0; preds < 16; preds++) {
    machine m;
    init_machine(&m, preds, 0, 0);
    for (const wave_instr *in = seq; in; in = wave_instr_next(in)) {
      cr_assert_eq(wave_instr_guard(in), WAVE_NO_GUARD);
      cr_assert_eq(wave_instr_loc(in).line, 3);
      exec(&m, in, true);
    }
    for (unsigned p = 0; p < 4; p++) {
      bool before = (preds >> p) & 1;
      if (p == pf)
        cr_assert_eq(m.p[p], !((preds >> 2) & 1), "if condition for preds %x", preds);
      else
        cr_assert_eq(m.p[p], before, "p%u changed", p);
    }
  }
  check_printable();
}

Test(lower, negated_if_after_a_block) { check_negated_if(true, false); }
Test(lower, negated_if_first_in_its_list) { check_negated_if(false, false); }
Test(lower, negated_if_takes_the_predicate_dead_there) { check_negated_if(true, true); }

/* ---- immediates and missing compares --------------------------------------------------------- */

Test(lower, alu_immediates) {
  cr_assert_eq(check_form(WAVE_NO_GUARD, false, WAVE_OP_IADD,
                          OPS(wave_gpr(0), wave_gpr(1), wave_imm(5))), 2);
  cr_assert_eq(check_form(1, false, WAVE_OP_ISUB, OPS(wave_gpr(0), wave_imm(7), wave_gpr(1))), 2);
  cr_assert_eq(check_form(2, true, WAVE_OP_IMAD,
                          OPS(wave_gpr(2), imm_form(3, WAVE_IMM_HEX), wave_gpr(1),
                              imm_form((uint32_t)-4, WAVE_IMM_NEGATIVE))), 3);
  cr_assert_eq(check_form(WAVE_NO_GUARD, false, WAVE_OP_SELECT,
                          OPS(wave_gpr(3), wave_pred(1), wave_imm(1), wave_imm(0))), 3);
  cr_assert_eq(check_form(WAVE_NO_GUARD, false, WAVE_OP_SHL,
                          OPS(wave_gpr(3), wave_gpr(0), wave_imm(2))), 2);
  wave_operand minus_ten = imm_form((uint32_t)-10, WAVE_IMM_NEGATIVE);
  cr_assert_eq(check_form(3, false, WAVE_OP_ICMP_LT, OPS(wave_pred(1), wave_gpr(0), minus_ten)), 2);
}

Test(lower, immediate_keeps_its_spelling_and_mov_becomes_mov_imm) {
  wave_node *b = new_kernel(NULL);
  add(b, WAVE_OP_IADD, OPS(wave_gpr(0), wave_gpr(0), imm_form(0x10, WAVE_IMM_HEX)));
  wave_block_append(b, make(3, false, WAVE_OP_FMUL,
                            OPS(wave_gpr(1), imm_form(0x40A00000u, WAVE_IMM_FLOAT), wave_gpr(1))));
  add(b, WAVE_OP_ISUB, OPS(wave_gpr(2), imm_form((uint32_t)-7, WAVE_IMM_NEGATIVE), wave_imm(9)));
  wave_block_append(b, make(1, true, WAVE_OP_MOV, OPS(wave_gpr(5), imm_form(0xFF, WAVE_IMM_HEX))));
  expect_lowered(".kernel k\n"
                 "    iadd r9, r0, r0\n"
                 "    mov_imm r10, 0x10\n"
                 "    iadd r0, r0, r10\n"
                 "    mov_imm r10, 0x40A00000\n"
                 "    @p3 fmul r1, r10, r1\n"
                 "    mov_imm r10, -7\n"
                 "    mov_imm r11, 9\n"
                 "    isub r2, r10, r11\n"
                 "    @!p1 mov_imm r5, 0xFF\n"
                 ".end\n");
}

Test(lower, missing_compares) {
  const wave_opcode ops[] = {WAVE_OP_UCMP_GE, WAVE_OP_UCMP_GT, WAVE_OP_UCMP_EQ, WAVE_OP_UCMP_NE,
                             WAVE_OP_FCMP_GE};
  const wave_opcode real[] = {WAVE_OP_UCMP_LE, WAVE_OP_UCMP_LT, WAVE_OP_ICMP_EQ, WAVE_OP_ICMP_NE,
                              WAVE_OP_FCMP_LE};
  const bool swapped[] = {true, true, false, false, true};
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    harness h = build(WAVE_NO_GUARD, false, ops[i], OPS(wave_pred(2), wave_gpr(0), wave_gpr(1)));
    cr_assert(lower_ok());
    cr_assert_eq(check_shape(&h, NO_PRED), 1);
    cr_assert_eq(wave_instr_op(h.form), real[i]);
    cr_assert_eq(wave_instr_operand(h.form, 1).value, swapped[i] ? 1 : 0);
    cr_assert_eq(wave_instr_operand(h.form, 2).value, swapped[i] ? 0 : 1);
    check_behaviour(&h, -1);
    /* guarded, with an immediate, writing a predicate that also guards it */
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    cr_assert_eq(check_form(2, false, ops[i], OPS(wave_pred(2), wave_gpr(0), wave_imm(100))), 2);
    wave_module_destroy(mod);
    mod = wave_module_create("t.wave");
    cr_assert_eq(check_form(1, true, ops[i],
                            OPS(wave_pred(3), imm_form(0x7FC00000u, WAVE_IMM_HEX), wave_gpr(1))),
                 2);
  }
}

Test(lower, fcmp_ge_keeps_nan_false) {
  /* a >= b with a NaN operand is false; fcmp_le b, a gives the same. */
  harness h = build(WAVE_NO_GUARD, false, WAVE_OP_FCMP_GE,
                    OPS(wave_pred(1), wave_gpr(0), wave_gpr(1)));
  cr_assert(lower_ok());
  machine m;
  init_machine(&m, 0xF, 10 /* NaN */, 8 /* 1.0 */);
  for (const wave_instr *in = wave_instr_next(h.begin); in != h.end; in = wave_instr_next(in))
    exec(&m, in, true);
  cr_assert_not(m.p[1]);
  init_machine(&m, 0, 8 /* 1.0 */, 12 /* -1.0 */);
  for (const wave_instr *in = wave_instr_next(h.begin); in != h.end; in = wave_instr_next(in))
    exec(&m, in, true);
  cr_assert(m.p[1]);
}

/* ---- scratch registers ----------------------------------------------------------------------- */

Test(lower, scratch_registers_are_shared_across_the_kernel) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node_list *body = wave_region_body(wave_kernel_first_region(k));
  add(tail_block(body), WAVE_OP_IADD, OPS(wave_gpr(0), wave_gpr(3), wave_imm(1)));
  wave_node *ifn = wave_if_create(mod, wave_pred(0));
  wave_node_list_append(body, ifn);
  wave_node *lp = wave_loop_create(mod);
  wave_node_list_append(wave_if_else(ifn), lp);
  add(tail_block(wave_loop_body(lp)), WAVE_OP_PAND, OPS(wave_pred(1), wave_pred(0), wave_pred(2)));
  add(tail_block(wave_loop_body(lp)), WAVE_OP_BREAK, OPS(wave_pred(1)));
  wave_region *sub = wave_region_create(k, "sub");
  add(tail_block(wave_region_body(sub)), WAVE_OP_IMUL, OPS(wave_gpr(1), wave_imm(2), wave_imm(3)));
  add(tail_block(wave_region_body(sub)), WAVE_OP_RETURN, 0, NULL);
  expect_lowered(".kernel k\n"
                 "    mov_imm r4, 1\n"
                 "    iadd r0, r3, r4\n"
                 "    if p0\n"
                 "    else\n"
                 "        loop\n"
                 "            mov_imm r4, 0\n"
                 "            mov_imm r5, 1\n"
                 "            select r6, p0, r5, r4\n"
                 "            select r6, p2, r6, r4\n"
                 "            icmp_ne p1, r6, r4\n"
                 "            break p1\n"
                 "        endloop\n"
                 "    endif\n"
                 "sub:\n"
                 "    mov_imm r4, 2\n"
                 "    mov_imm r5, 3\n"
                 "    imul r1, r4, r5\n"
                 "    return\n"
                 ".end\n");
  cr_assert_eq(wave_kernel_registers(k), WAVE_DEFAULT_REGISTERS);
  cr_assert_not(wave_kernel_has_registers(k), "scratch r4..r6 fit in the default register count");
}

Test(lower, scratch_goes_above_register_pairs_and_grows_registers) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_kernel_set_registers(k, 12);
  wave_node *b = tail_block(wave_region_body(wave_kernel_first_region(k)));
  add(b, WAVE_OP_DADD, OPS(wave_gpr(10), wave_gpr(0), wave_gpr(2))); /* writes r10 and r11 */
  add(b, WAVE_OP_PXOR, OPS(wave_pred(0), wave_pred(1), wave_pred(2)));
  cr_assert(lower_ok());
  cr_assert_eq(wave_kernel_registers(k), 16, "xor needs r12..r15");
  const wave_instr *first = wave_instr_next(wave_block_first(b));
  cr_assert_eq(wave_instr_op(first), WAVE_OP_MOV_IMM);
  cr_assert_eq(wave_instr_operand(first, 0).value, 12);
}

Test(lower, default_register_count_grows_when_needed) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node *b = tail_block(wave_region_body(wave_kernel_first_region(k)));
  add(b, WAVE_OP_DEVICE_LOAD_U128, OPS(wave_gpr(28), wave_gpr(0))); /* r28..r31 */
  add(b, WAVE_OP_POR, OPS(wave_pred(0), wave_pred(1), wave_pred(2)));
  cr_assert(lower_ok());
  cr_assert(wave_kernel_has_registers(k));
  cr_assert_eq(wave_kernel_registers(k), 35);
}

Test(lower, kernels_have_their_own_scratch) {
  wave_kernel *a = wave_kernel_create(mod, "a");
  add(tail_block(wave_region_body(wave_kernel_first_region(a))), WAVE_OP_IADD,
      OPS(wave_gpr(50), wave_gpr(0), wave_imm(1)));
  wave_kernel *b = wave_kernel_create(mod, "b");
  add(tail_block(wave_region_body(wave_kernel_first_region(b))), WAVE_OP_IADD,
      OPS(wave_gpr(3), wave_gpr(0), wave_imm(1)));
  cr_assert(lower_ok());
  cr_assert_eq(
      wave_instr_operand(
          wave_block_first(wave_node_list_first(wave_region_body(wave_kernel_first_region(a)))), 0)
          .value,
      51);
  cr_assert_eq(
      wave_instr_operand(
          wave_block_first(wave_node_list_first(wave_region_body(wave_kernel_first_region(b)))), 0)
          .value,
      4);
  cr_assert_eq(wave_kernel_registers(a), 52);
  cr_assert(wave_kernel_has_registers(a));
  cr_assert_not(wave_kernel_has_registers(b));
}

/* A call may run another kernel's subroutine on the caller's registers (labels are file-wide),
 * so with calls around the scratch registers must be free in every kernel. */
Test(lower, calls_make_scratch_module_wide) {
  wave_kernel *a = wave_kernel_create(mod, "a");
  wave_node *ab = tail_block(wave_region_body(wave_kernel_first_region(a)));
  add(ab, WAVE_OP_MOV, OPS(wave_gpr(20), wave_gpr(0)));
  add(ab, WAVE_OP_ICMP_EQ, OPS(wave_pred(0), wave_gpr(20), wave_gpr(0)));
  add(ab, WAVE_OP_CALL, OPS(wave_label_operand("sub")));
  add(ab, WAVE_OP_HALT, 0, NULL);
  wave_kernel *b = wave_kernel_create(mod, "b");
  wave_kernel_set_registers(b, 8);
  add(tail_block(wave_region_body(wave_kernel_first_region(b))), WAVE_OP_HALT, 0, NULL);
  wave_region *sub = wave_region_create(b, "sub");
  wave_node *sb = tail_block(wave_region_body(sub));
  wave_instr *in = add(sb, WAVE_OP_PNOT, OPS(wave_pred(1), wave_pred(1)));
  add(sb, WAVE_OP_RETURN, 0, NULL);
  cr_assert(lower_ok());
  cr_assert_eq(wave_instr_op(in), WAVE_OP_ICMP_NE);
  cr_assert_eq(wave_instr_operand(in, 1).value, 23,
               "scratch must be above r20, which kernel a uses");
  cr_assert_eq(wave_instr_operand(wave_block_first(sb), 0).value, 21);
  cr_assert_eq(wave_kernel_registers(b), 24);
  cr_assert_eq(wave_kernel_registers(a), 32);
}

Test(lower, the_last_register_can_be_scratch) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node *b = tail_block(wave_region_body(wave_kernel_first_region(k)));
  add(b, WAVE_OP_MOV, OPS(wave_gpr(251), wave_gpr(0)));
  add(b, WAVE_OP_PAND, OPS(wave_pred(0), wave_pred(1), wave_pred(2)));
  cr_assert(lower_ok());
  cr_assert_eq(wave_kernel_registers(k), 255);
}

Test(lower, running_out_of_registers_is_an_error) {
  wave_kernel *k = wave_kernel_create(mod, "k");
  wave_node *b = tail_block(wave_region_body(wave_kernel_first_region(k)));
  add(b, WAVE_OP_MOV, OPS(wave_gpr(252), wave_gpr(0)));
  wave_instr *in = add(b, WAVE_OP_PAND, OPS(wave_pred(0), wave_pred(1), wave_pred(2)));
  tu_set_origin(in, (wave_loc){"t.wave", 4, 5}, NULL, NULL);
  wave_instr *ok = add(b, WAVE_OP_IADD, OPS(wave_gpr(0), wave_gpr(0), wave_imm(1)));
  cr_assert_not(wave_lower_docs_dialect(mod, &diags));
  cr_assert_eq(diags.num_errors, 1);
  cr_assert_str_eq(diags.items[0].message,
                   "cannot lower 'and p0, p1, p2': no general register is left for its scratch "
                   "values");
  cr_assert_eq(diags.items[0].line, 4);
  cr_assert_eq(wave_instr_op(in), WAVE_OP_PAND,
               "a refused rewrite must leave the instruction alone");
  cr_assert_eq(wave_instr_op(wave_instr_prev(in)), WAVE_OP_MOV);
  cr_assert_eq(wave_instr_operand(ok, 2).value, 253, "the one-register rewrite still fits");
  cr_assert_leq(wave_kernel_registers(k), 255);
}

/* Forms the parser never produces but a caller of the API may build: each is refused with an
 * error at the instruction, which stays as it was. */
Test(lower, malformed_forms_built_by_hand_are_refused) {
  const struct {
    wave_opcode op;
    unsigned n;
    wave_operand ops[4];
    const char *message;
  } cases[] = {
      {WAVE_OP_PAND, 3, {wave_pred(0), wave_gpr(1), wave_pred(2)},
       "cannot lower 'and p0, r1, p2': its operands are not predicate registers"},
      {WAVE_OP_DADD, 3, {wave_gpr(2), wave_gpr(4), wave_imm(5)},
       "cannot lower 'dadd r2, r4, 5': this operand cannot be an immediate"},
      {WAVE_OP_IADD, 3, {wave_gpr(1), wave_not_pred(1), wave_not_pred(2)},
       "cannot lower 'iadd r1, !p1, !p2': only one negated predicate operand can be lowered"},
  };
  for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    wave_module_destroy(mod);
    wave_diags_free(&diags);
    setup();
    harness h = build(WAVE_NO_GUARD, false, cases[i].op, cases[i].n, cases[i].ops);
    cr_assert_not(wave_lower_docs_dialect(mod, &diags), "case %u", i);
    cr_assert_eq(diags.num_errors, 1, "case %u", i);
    cr_assert_str_eq(diags.items[0].message, cases[i].message, "case %u", i);
    cr_assert_eq(wave_instr_next(h.begin), h.form, "case %u: nothing emitted before it", i);
    cr_assert_eq(wave_instr_op(h.form), cases[i].op, "case %u", i);
    for (unsigned k = 0; k < cases[i].n; k++) {
      wave_operand o = wave_instr_operand(h.form, k);
      const wave_operand *was = &cases[i].ops[k];
      cr_assert(o.kind == was->kind && o.value == was->value && o.negated == was->negated,
                "case %u operand %u", i, k);
    }
  }
}

Test(lower, real_code_is_left_alone) {
  wave_node *b = new_kernel(NULL);
  add(b, WAVE_OP_MOV_IMM, OPS(wave_gpr(1), imm_form(0x3F800000u, WAVE_IMM_FLOAT)));
  wave_block_append(b, make(1, false, WAVE_OP_SELECT,
                            OPS(wave_gpr(2), wave_pred(0), wave_gpr(1), wave_gpr(0))));
  add(b, WAVE_OP_UCMP_LE, OPS(wave_pred(1), wave_gpr(1), wave_gpr(2)));
  add(b, WAVE_OP_HALT, 0, NULL);
  expect_lowered(".kernel k\n"
                 "    iadd r9, r0, r0\n"
                 "    mov_imm r1, 0x3F800000\n"
                 "    @p1 select r2, p0, r1, r0\n"
                 "    ucmp_le p1, r1, r2\n"
                 "    halt\n"
                 ".end\n");
}

Test(lower, deep_nesting_does_not_recurse) {
  enum { DEPTH = 100000 };
  wave_kernel *k = wave_kernel_create(mod, "deep");
  wave_node_list *list = wave_region_body(wave_kernel_first_region(k));
  for (unsigned i = 0; i < DEPTH; i++) {
    wave_node *ifn = wave_if_create(mod, wave_not_pred(i & 1));
    cr_assert_not_null(ifn);
    wave_node_list_append(list, ifn);
    list = wave_if_then(ifn);
  }
  wave_instr *in = add(tail_block(list), WAVE_OP_IADD, OPS(wave_gpr(0), wave_gpr(0), wave_imm(1)));
  cr_assert(lower_ok());
  cr_assert_eq(wave_instr_op(wave_instr_prev(in)), WAVE_OP_MOV_IMM);
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  char *text = wave_print_to_string(mod, &opts, NULL);
  cr_assert_not_null(text);
  free(text);
}

/* ---- parsed documentation-dialect text ------------------------------------------------------- */

static wave_module *parse(const char *text) { return tu_parse_ok(text, "docs.wave", false); }

static const char straight_line_docs[] =
    ".kernel k\n"
    "    and p2, p0, p1\n"
    "    iadd r0, r0, 1\n"
    "    or p3, p2, p0\n"
    "    xor p1, p1, p3\n"
    "    not p0, p1\n"
    "    ucmp_ge p2, r0, r1\n"
    "    select r2, p2, 7, r1\n"
    "    @p1 isub r3, r3, -3\n"
    "    @!p2 and p1, p0, p3\n"
    "    fcmp_ge p3, r1, r0\n"
    "    ucmp_gt p0, r2, 5\n"
    "    imad r1, r0, 3, r1\n"
    "    @p3 or p2, p2, p2\n"
    "    ucmp_ne p1, r1, 0x10\n"
    "    ucmp_eq p3, r3, r2\n"
    "    shl r9, r2, 31\n"
    ".end\n";

/* The whole straight-line kernel, unlowered (with its intended meaning) and lowered, from the
 * same states: the shared scratch registers must never carry a stale value between rewrites. */
Test(lower, parsed_straight_line_kernel_keeps_its_meaning) {
  wave_module *docs = parse(straight_line_docs);
  wave_module *lowered = parse(straight_line_docs);
  cr_assert(wave_lower_docs_dialect(lowered, &diags));
  const wave_node *a = wave_node_list_first(
      wave_region_body(wave_kernel_first_region(wave_module_first_kernel(docs))));
  const wave_node *b = wave_node_list_first(
      wave_region_body(wave_kernel_first_region(wave_module_first_kernel(lowered))));
  cr_assert_eq(wave_node_next(a), NULL);
  cr_assert_eq(wave_node_next(b), NULL);
  compare_from_every_state(wave_block_first(a), NULL, wave_block_first(b), NULL, -1);
  cr_assert_eq(wave_kernel_registers(wave_module_first_kernel(lowered)), WAVE_DEFAULT_REGISTERS);
  wave_module_destroy(docs);
  wave_module_destroy(lowered);
}

static bool is_docs_form(const wave_instr *in) {
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_PSEUDO))
    return true;
  for (unsigned i = 0; i < wave_instr_num_operands(in); i++) {
    wave_operand o = wave_instr_operand(in, i);
    if (o.negated ||
        (o.kind == WAVE_OPERAND_IMM && wave_opcode_slot_kind(wave_instr_op(in), i) != 'i'))
      return true;
  }
  return false;
}

static unsigned count_docs_forms(wave_module *m) {
  unsigned n = 0;
  wave_foreach_kernel(k, m) {
    for (wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
      wave_walker w;
      wave_walk_init(&w, wave_region_body(r));
      while (wave_walk_next(&w)) {
        if (w.event == WAVE_WALK_IF)
          n += wave_if_cond(w.node).negated;
        if (w.event != WAVE_WALK_BLOCK)
          continue;
        for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in))
          n += is_docs_form(in);
      }
    }
  }
  return n;
}

static const char structured_docs[] =
    "; negated exits and logic inside structure\n"
    ".kernel loops\n"
    ".registers 8\n"
    "    icmp.lt p0, r0, r1\n"
    "    loop\n"
    "        iadd r0, r0, 1 ; count\n"
    "        ucmp_ge p1, r0, r7\n"
    "        break !p1\n"
    "        if p0\n"
    "            xor p2, p0, p1\n"
    "            continue !p2\n"
    "        endif\n"
    "    endloop\n"
    "    halt\n"
    "sub:\n"
    "    not p0, p0\n"
    "    return\n"
    ".end\n"
    "\n"
    ".kernel second\n"
    "    mov r1, 0x3F800000\n"
    "    fcmp_ge p1, r1, 1.0\n"
    "    @p1 halt\n"
    ".end\n";

Test(lower, lowered_text_reparses_without_documentation_forms) {
  wave_module *m = parse(structured_docs);
  cr_assert_gt(count_docs_forms(m), 0);
  cr_assert(wave_lower_docs_dialect(m, &diags));
  cr_assert_eq(count_docs_forms(m), 0);
  cr_assert(wave_kernel_has_registers(wave_module_first_kernel(m)));
  cr_assert_eq(wave_kernel_registers(wave_module_first_kernel(m)), 12,
               "r8..r11 were added for scratch values");
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  char *text = wave_print_to_string(m, &opts, NULL);
  cr_assert_not_null(text);
  wave_module *again = parse(text);
  cr_assert_eq(count_docs_forms(again), 0);
  /* lowering real code changes nothing */
  cr_assert(wave_lower_docs_dialect(again, &diags));
  char *same = wave_print_to_string(again, &opts, NULL);
  cr_assert_str_eq(same, text);
  free(text);
  free(same);
  wave_module_destroy(m);
  wave_module_destroy(again);
}

Test(lower, lowered_structured_text) {
  wave_module *m = parse(structured_docs);
  cr_assert(wave_lower_docs_dialect(m, &diags));
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  char *text = wave_print_to_string(m, &opts, NULL);
  cr_assert_not_null(text);
  cr_assert_str_eq(text,
                   "; negated exits and logic inside structure\n"
                   ".kernel loops\n"
                   ".registers 12\n"
                   "    icmp_lt p0, r0, r1\n"
                   "    loop\n"
                   "        mov_imm r8, 1 ; count\n"
                   "        iadd r0, r0, r8\n"
                   "        ucmp_le p1, r7, r0\n"
                   "        mov_imm r8, 0\n"
                   "        mov_imm r9, 1\n"
                   "        select r10, p1, r8, r9\n"
                   "        icmp_ne p3, r10, r8\n"
                   "        break p3\n"
                   "        if p0\n"
                   "            mov_imm r8, 0\n"
                   "            mov_imm r9, 1\n"
                   "            select r10, p0, r9, r8\n"
                   "            select r11, p1, r9, r8\n"
                   "            xor r10, r10, r11\n"
                   "            icmp_ne p2, r10, r8\n"
                   "            mov_imm r8, 0\n"
                   "            mov_imm r9, 1\n"
                   "            select r10, p2, r8, r9\n"
                   "            icmp_ne p3, r10, r8\n"
                   "            continue p3\n"
                   "        endif\n"
                   "    endloop\n"
                   "    halt\n"
                   "sub:\n"
                   "    mov_imm r8, 0\n"
                   "    mov_imm r9, 1\n"
                   "    select r10, p0, r8, r9\n"
                   "    icmp_ne p0, r10, r8\n"
                   "    return\n"
                   ".end\n"
                   "\n"
                   ".kernel second\n"
                   "    mov_imm r1, 0x3F800000\n"
                   "    mov_imm r2, 0x3F800000\n"
                   "    fcmp_le p1, r2, r1\n"
                   "    @p1 halt\n"
                   ".end\n");
  free(text);
  wave_module_destroy(m);
}

/* Whether the kernel mentions all four predicates and negates one in a break or continue: its
 * lowering then needs a predicate dead there. */
static bool needs_a_dead_predicate(wave_module *m) {
  unsigned mentioned = 0;
  bool negated = false;
  wave_foreach_kernel(k, m) {
    wave_foreach_block(b, k) {
      wave_foreach_instr(in, b) {
        for (unsigned i = 0; i < wave_instr_num_operands(in); i++) {
          wave_operand o = wave_instr_operand(in, i);
          if (o.kind == WAVE_OPERAND_PRED)
            mentioned |= 1u << o.value;
          negated |= o.negated != 0;
        }
        if (wave_instr_guard(in) != WAVE_NO_GUARD)
          mentioned |= 1u << wave_instr_guard(in);
      }
    }
  }
  return mentioned == 0xF && negated;
}

/* Generated documentation-dialect kernels that use all four predicates (wavegen --all-preds):
 * each negated break or continue must take a predicate dead at it. A kernel with every
 * predicate live at one is refused with the lowering's error; every other behaves the same
 * lowered, and optimized at -O2 (where the lower-docs pass lowers it first), in the
 * interpreter at W = 8, 32 and 64. Both outcomes occur, and the lowered kernels include ones
 * that needed a dead predicate. */
Test(lower, generated_kernels_using_all_four_predicates, .timeout = 300) {
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_pipeline *o2 = wave_pipeline_parse(registry, wave_pipeline_for_level(2), &diags);
  cr_assert_not_null(o2);
  wave_difftest_pipeline ctx = {.pipeline = o2, .target = wave_target_lookup("portable"),
                                .max_registers = 255};
  unsigned lowered = 0, needed = 0, refused = 0;
  for (uint64_t seed = 0; seed < 200; seed++) {
    wave_gen_options g;
    wave_gen_options_init(&g);
    g.seed = seed;
    g.docs_dialect = true;
    g.docs_all_preds = true;
    wave_diff_report report;
    wave_diff_status status = tu_difftest_generated(&g, wave_transform_lower_docs, NULL, &report);
    if (status == WAVE_DIFF_BAD_TRANSFORM &&
        strstr(report.message, "every predicate register is in use")) {
      refused++;
      continue;
    }
    cr_assert_eq(status, WAVE_DIFF_PASS, "seed %llu: %s", (unsigned long long)seed,
                 report.message);
    status = tu_difftest_generated(&g, wave_transform_pipeline, &ctx, &report);
    cr_assert_eq(status, WAVE_DIFF_PASS, "seed %llu at -O2: %s", (unsigned long long)seed,
                 report.message);
    lowered++;
    wave_gen_launch launch;
    wave_module *m = tu_generate(&g, &launch);
    needed += needs_a_dead_predicate(m);
    wave_module_destroy(m);
  }
  cr_log_info("all four predicates: %u kernels lowered (%u through a dead predicate), %u "
              "refused",
              lowered, needed, refused);
  cr_assert_geq(needed, 10);
  cr_assert_gt(refused, 0);
  wave_pipeline_destroy(o2);
  wave_pass_registry_destroy(registry);
}
