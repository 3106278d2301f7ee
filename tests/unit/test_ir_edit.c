/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The editing API of waveopt/edit.h: region bookkeeping on insertion, traversal, surgery
 * (extract, reinsert, replace, split, merge), the cursor and builder, deep clones, checked
 * downcasts, instruction facts from the opcode table, register sets and operand accessors.
 *
 * Expected trees are written out by hand as the text each test should print back, or as the
 * list of instructions in order, so that a wrong link or a lost instruction shows as a
 * difference; none of them was copied from the output of the code under test.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/module.h"
#include "test_util.h"
#include "waveopt/waveopt.h"

/* ---- regions of nested lists -------------------------------------------------------------- */

/* loop A { if B { loop C { nop } } else { if D { } } }, built bottom-up and detached. */
typedef struct nest {
  wave_node *a, *b, *c, *d;
} nest;

static nest build_detached_nest(wave_module *m) {
  nest t = {wave_loop_create(m), wave_if_create(m, wave_pred(1)), wave_loop_create(m),
            wave_if_create(m, wave_pred(2))};
  cr_assert(t.a && t.b && t.c && t.d);
  tu_add(m, wave_node_list_tail_block(m, wave_loop_body(t.c)), WAVE_OP_NOP, 0, NULL);
  wave_node_list_append(wave_if_then(t.b), t.c);
  wave_node_list_append(wave_loop_body(t.a), t.b);
  /* One level attached after its parent was: the order of construction must not matter. */
  wave_node_list_append(wave_if_else(t.b), t.d);
  return t;
}

static void assert_nest_region(const nest *t, const wave_region *r) {
  const wave_node_list *lists[] = {wave_loop_body(t->a), wave_if_then(t->b), wave_if_else(t->b),
                                   wave_loop_body(t->c), wave_if_then(t->d), wave_if_else(t->d)};
  for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
    cr_assert_eq(wave_node_list_region(lists[i]), r, "list %zu names the wrong region", i);
}

Test(regions, detached_subtree_takes_the_region_it_is_inserted_into) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_region *sub = wave_region_create(k, "sub");
  cr_assert(k && sub);
  nest t = build_detached_nest(m);
  assert_nest_region(&t, NULL);
  wave_node_list_append(wave_region_body(wave_kernel_first_region(k)), t.a);
  assert_nest_region(&t, wave_kernel_first_region(k));

  wave_node_remove(t.a);
  wave_node_list_prepend(wave_region_body(sub), t.a);
  assert_nest_region(&t, sub);
  cr_assert_eq(wave_node_list_of(t.a), wave_region_body(sub));
  wave_module_destroy(m);
}

Test(regions, every_insertion_function_updates_the_subtree) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_region *sub = wave_region_create(k, "sub");
  cr_assert(k && sub);
  wave_node *anchor = wave_loop_create(m);
  wave_node_list_append(wave_region_body(sub), anchor);
  nest t = build_detached_nest(m);
  wave_node_insert_before(anchor, t.a);
  assert_nest_region(&t, sub);
  wave_node_remove(t.a);
  wave_node_list_append(wave_region_body(wave_kernel_first_region(k)), t.a);
  assert_nest_region(&t, wave_kernel_first_region(k));
  wave_node_remove(t.a);
  wave_node_insert_after(anchor, t.a);
  assert_nest_region(&t, sub);
  cr_assert_eq(wave_node_next(anchor), t.a);
  wave_module_destroy(m);
}

/* ---- walkers ------------------------------------------------------------------------------ */


Test(walkers, const_walker_reports_the_mutable_walkers_events) {
  wave_module *m = wave_module_create("t.wave");
  const wave_kernel *k = tu_sample_kernel(m);
  static const wave_walk_event events[] = {
      WAVE_WALK_BLOCK, WAVE_WALK_IF,      WAVE_WALK_BLOCK, WAVE_WALK_ELSE, WAVE_WALK_LOOP,
      WAVE_WALK_BLOCK, WAVE_WALK_ENDLOOP, WAVE_WALK_ENDIF, WAVE_WALK_BLOCK};
  static const unsigned depths[] = {0, 0, 1, 0, 1, 2, 1, 0, 0};
  static const wave_opcode first_op[] = {WAVE_OP_NOP, 0, WAVE_OP_HALT, 0, 0, WAVE_OP_BREAK,
                                         0, 0, WAVE_OP_NOP};
  wave_const_walker w;
  wave_const_walk_init(&w, wave_region_body(wave_kernel_first_region(k)));
  unsigned n = 0;
  while (wave_const_walk_next(&w)) {
    cr_assert_lt(n, 9);
    cr_assert_eq(w.event, events[n], "event %u", n);
    cr_assert_eq(w.depth, depths[n], "depth %u", n);
    if (w.event == WAVE_WALK_BLOCK)
      cr_assert_eq(wave_instr_op(wave_block_first(w.node)), first_op[n], "block at event %u", n);
    n++;
  }
  cr_assert_eq(n, 9);
  cr_assert_not(wave_const_walk_next(&w), "the walk stays ended");
  wave_module_destroy(m);
}

Test(walkers, const_walker_on_an_empty_list_ends_at_once) {
  wave_module *m = wave_module_create("empty.wave");
  const wave_node_list *empty = m ? wave_node_list_create(m) : NULL;
  cr_assert_not_null(empty);
  wave_const_walker w;
  wave_const_walk_init(&w, empty);
  cr_assert_not(wave_const_walk_next(&w));
  cr_assert_null(w.node);
  wave_module_destroy(m);
}

/* ---- register sets ------------------------------------------------------------------------ */

Test(regset, members_across_word_boundaries_and_kinds) {
  wave_regset s = wave_regset_empty();
  cr_assert(wave_regset_is_empty(s));
  static const unsigned regs[] = {0, 63, 64, 127, 128, 254};
  for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
    wave_regset_set(&s, WAVE_REG_GPR(regs[i]));
  wave_regset_set(&s, WAVE_REG_PRED(0));
  wave_regset_set(&s, WAVE_REG_PRED(3));
  cr_assert_eq(WAVE_REG_PRED(0), 255u, "predicates follow r254");
  cr_assert_eq(WAVE_NUM_REGS, 259);
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++) {
    bool member = r == 0 || r == 63 || r == 64 || r == 127 || r == 128 || r == 254 ||
                  r == 255 || r == 258;
    cr_assert_eq(wave_regset_test(s, r), member, "index %u", r);
  }
  wave_regset_clear(&s, WAVE_REG_GPR(64));
  cr_assert_not(wave_regset_test(s, 64));
  cr_assert(wave_regset_test(s, 63));
  wave_regset before = s;
  wave_regset_set(&s, WAVE_NUM_REGS);
  wave_regset_set(&s, 100000);
  cr_assert(wave_regset_equal(s, before), "indices past p3 are ignored");
  cr_assert_not(wave_regset_test(s, WAVE_NUM_REGS));
}

Test(regset, algebra) {
  wave_regset a = wave_regset_empty(), b = wave_regset_empty();
  wave_regset_set_range(&a, 2, 4);   /* r2 r3 r4 r5 */
  wave_regset_set_range(&b, 4, 3);   /* r4 r5 r6 */
  wave_regset_set(&b, WAVE_REG_PRED(1));
  wave_regset u = wave_regset_union(a, b), i = wave_regset_intersect(a, b);
  wave_regset d = wave_regset_subtract(a, b);
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++) {
    cr_assert_eq(wave_regset_test(u, r), (r >= 2 && r <= 6) || r == WAVE_REG_PRED(1), "%u", r);
    cr_assert_eq(wave_regset_test(i, r), r == 4 || r == 5, "%u", r);
    cr_assert_eq(wave_regset_test(d, r), r == 2 || r == 3, "%u", r);
  }
  cr_assert_not(wave_regset_equal(a, b));
  cr_assert(wave_regset_equal(wave_regset_union(d, i), a));
  cr_assert(wave_regset_is_empty(wave_regset_subtract(a, a)));
  cr_assert_not(wave_regset_is_empty(i));
}

Test(regset, first_free) {
  wave_regset s = wave_regset_empty();
  wave_regset_set_range(&s, 0, 3);
  wave_regset_set(&s, WAVE_REG_PRED(1));
  wave_regset_set(&s, WAVE_REG_PRED(2));
  unsigned r = 999;
  cr_assert(wave_regset_first_free(s, WAVE_REG_GPR(0), WAVE_REG_GPR(32), &r));
  cr_assert_eq(r, 3);
  cr_assert(wave_regset_first_free(s, WAVE_REG_PRED(1), WAVE_REG_PRED(4), &r));
  cr_assert_eq(r, WAVE_REG_PRED(3));
  cr_assert_not(wave_regset_first_free(s, WAVE_REG_GPR(0), WAVE_REG_GPR(3), &r),
               "r0-r2 are all taken");
  wave_regset_set(&s, WAVE_REG_PRED(3));
  cr_assert_not(wave_regset_first_free(s, WAVE_REG_PRED(1), WAVE_REG_PRED(4), &r));
}

/* ---- instruction facts -------------------------------------------------------------------- */

#define OPS(...) ((const wave_operand[]){__VA_ARGS__})
#define NUM_OPS(...) ((unsigned)(sizeof(OPS(__VA_ARGS__)) / sizeof(wave_operand)))
/* A detached instruction: INSTR(m, guard, OPCODE, operands...). */
#define INSTR(m, guard, op, ...) \
  make_instr(m, guard, WAVE_OP_##op, NUM_OPS(__VA_ARGS__), OPS(__VA_ARGS__))
#define INSTR0(m, guard, op) make_instr(m, guard, WAVE_OP_##op, 0, NULL)

static wave_instr *make_instr(wave_module *m, int guard, wave_opcode op, unsigned n,
                              const wave_operand *ops) {
  wave_instr *i = wave_instr_create(m, op, guard, false, n, ops);
  cr_assert_not_null(i);
  return i;
}

Test(facts, speculation_guards_and_convergence) {
  wave_module *m = wave_module_create(NULL);
  wave_operand r1 = wave_gpr(1), r2 = wave_gpr(2);
  wave_instr *iadd = INSTR(m, WAVE_NO_GUARD, IADD, r1, r1, r2);
  wave_instr *idiv = INSTR(m, WAVE_NO_GUARD, IDIV, r1, r1, r2);
  wave_instr *load = INSTR(m, WAVE_NO_GUARD, DEVICE_LOAD_U32, r1, r2);
  wave_instr *store = INSTR(m, WAVE_NO_GUARD, LOCAL_STORE_U32, r1, r2);
  wave_instr *atomic = INSTR(m, WAVE_NO_GUARD, LOCAL_ATOMIC_ADD, r1, r1, r2);
  wave_instr *reduce = INSTR(m, WAVE_NO_GUARD, WAVE_REDUCE_ADD, r1, r2);
  wave_instr *sel = INSTR(m, WAVE_NO_GUARD, SELECT, r1, wave_pred(1), r1, r2);
  wave_instr *halt = INSTR0(m, WAVE_NO_GUARD, HALT);
  wave_instr *barrier = INSTR0(m, WAVE_NO_GUARD, BARRIER);
  wave_instr *brk = INSTR(m, WAVE_NO_GUARD, BREAK, wave_pred(1));
  wave_instr *mma = INSTR(m, WAVE_NO_GUARD, MMA_COMPUTE, wave_gpr(0), wave_gpr(1), r2);

  cr_assert(wave_instr_can_speculate(iadd));
  cr_assert(wave_instr_can_speculate(sel));
  cr_assert_not(wave_instr_can_speculate(idiv), "division by zero traps");
  cr_assert_not(wave_instr_can_speculate(load));
  cr_assert_not(wave_instr_can_speculate(store));
  cr_assert_not(wave_instr_can_speculate(atomic));
  cr_assert_not(wave_instr_can_speculate(reduce));
  cr_assert_not(wave_instr_can_speculate(halt));

  cr_assert(wave_instr_can_guard(iadd));
  cr_assert(wave_instr_can_guard(sel));
  cr_assert(wave_instr_can_guard(halt));
  cr_assert_not(wave_instr_can_guard(load), "wave-ptx drops guards on memory access");
  cr_assert_not(wave_instr_can_guard(store));
  cr_assert_not(wave_instr_can_guard(reduce));
  cr_assert_not(wave_instr_can_guard(brk));

  cr_assert(wave_instr_is_convergent(reduce));
  cr_assert(wave_instr_is_convergent(barrier));
  cr_assert(wave_instr_is_convergent(mma));
  cr_assert_not(wave_instr_is_convergent(iadd));
  cr_assert_not(wave_instr_is_convergent(load));
  wave_module_destroy(m);
}

Test(facts, no_memory_or_mma_instruction_is_speculated_or_guarded) {
  wave_module *m = wave_module_create(NULL);
  for (int op = 0; op < WAVE_OP_COUNT; op++) {
    wave_category c = wave_opcode_table[op].category;
    if (c != WAVE_CAT_LOAD && c != WAVE_CAT_STORE && c != WAVE_CAT_ATOMIC && c != WAVE_CAT_MMA)
      continue;
    wave_instr *i = make_instr(m, WAVE_NO_GUARD, (wave_opcode)op, 0, NULL);
    cr_assert_not(wave_instr_can_speculate(i), "%s", wave_opcode_table[op].mnemonic);
    cr_assert_not(wave_instr_can_guard(i), "%s", wave_opcode_table[op].mnemonic);
  }
  wave_module_destroy(m);
}

/* Asserts that set holds exactly the registers listed (WAVE_REG_* indices). */
static void assert_regs(wave_regset set, const unsigned *regs, size_t n, const char *what) {
  wave_regset expected = wave_regset_empty();
  for (size_t i = 0; i < n; i++)
    wave_regset_set(&expected, regs[i]);
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++)
    cr_assert_eq(wave_regset_test(set, r), wave_regset_test(expected, r), "%s: register %u",
                 what, r);
}
#define REGS(...) ((const unsigned[]){__VA_ARGS__})
#define ASSERT_REGS(set, what, ...) \
  assert_regs(set, REGS(__VA_ARGS__), sizeof(REGS(__VA_ARGS__)) / sizeof(unsigned), what)
#define ASSERT_NO_REGS(set, what) assert_regs(set, NULL, 0, what)

Test(facts, equal_instructions) {
  wave_module *m = wave_module_create(NULL);
  wave_instr *a = INSTR(m, 1, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  cr_assert(wave_instr_equal(a, INSTR(m, 1, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3))));
  cr_assert_not(wave_instr_equal(a, INSTR(m, 2, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3))),
                "another guard");
  cr_assert_not(wave_instr_equal(a, INSTR(m, WAVE_NO_GUARD, IADD, wave_gpr(1), wave_gpr(2),
                                          wave_gpr(3))),
                "no guard");
  cr_assert_not(wave_instr_equal(a, INSTR(m, 1, ISUB, wave_gpr(1), wave_gpr(2), wave_gpr(3))),
                "another opcode");
  cr_assert_not(wave_instr_equal(a, INSTR(m, 1, IADD, wave_gpr(1), wave_gpr(3), wave_gpr(2))),
                "operands swapped");
  wave_operand hex = wave_imm(16);
  hex.imm_form = WAVE_IMM_HEX;
  cr_assert(wave_instr_equal(INSTR(m, WAVE_NO_GUARD, MOV_IMM, wave_gpr(1), wave_imm(16)),
                             INSTR(m, WAVE_NO_GUARD, MOV_IMM, wave_gpr(1), hex)),
            "16 and 0x10 are the same immediate");
  cr_assert_not(wave_instr_equal(INSTR(m, WAVE_NO_GUARD, CALL, wave_label_operand("f")),
                                 INSTR(m, WAVE_NO_GUARD, CALL, wave_label_operand("g"))),
                "another label");
  wave_module_destroy(m);
}

Test(facts, uses_and_defs_expand_pairs_quads_and_guards) {
  wave_module *m = wave_module_create(NULL);
  wave_regset u, d;
  wave_instr *dadd = INSTR(m, WAVE_NO_GUARD, DADD, wave_gpr(2), wave_gpr(4), wave_gpr(6));
  wave_instr_uses(dadd, &u);
  wave_instr_defs(dadd, &d);
  ASSERT_REGS(u, "dadd uses", 4, 5, 6, 7);
  ASSERT_REGS(d, "dadd defs", 2, 3);

  wave_instr *guarded = INSTR(m, 3, DADD, wave_gpr(2), wave_gpr(4), wave_gpr(6));
  wave_instr_uses(guarded, &u);
  wave_instr_defs(guarded, &d);
  ASSERT_REGS(u, "@p3 dadd uses", WAVE_REG_PRED(3), 2, 3, 4, 5, 6, 7);
  ASSERT_REGS(d, "@p3 dadd defs", 2, 3);
  wave_regset both_u, both_d;
  wave_instr_uses_defs(guarded, &both_u, &both_d);
  cr_assert(wave_regset_equal(both_u, u) && wave_regset_equal(both_d, d),
            "wave_instr_uses_defs answers as the two calls do");

  wave_instr *st = INSTR(m, WAVE_NO_GUARD, DEVICE_STORE_U128, wave_gpr(1), wave_gpr(8));
  wave_instr_uses(st, &u);
  wave_instr_defs(st, &d);
  ASSERT_REGS(u, "store uses", 1, 8, 9, 10, 11);
  ASSERT_NO_REGS(d, "store defs");

  wave_instr *ld = INSTR(m, WAVE_NO_GUARD, DEVICE_LOAD_U128, wave_gpr(8), wave_gpr(1));
  wave_instr_defs(ld, &d);
  ASSERT_REGS(d, "u128 load defs", 8, 9, 10, 11);

  wave_instr *no_ret = INSTR(m, WAVE_NO_GUARD, ATOMIC_ADD, wave_gpr(0), wave_gpr(1), wave_gpr(2),
                             wave_scope_operand(WAVE_SCOPE_DEVICE));
  wave_instr_uses(no_ret, &u);
  wave_instr_defs(no_ret, &d);
  ASSERT_REGS(u, "atomic uses", 1, 2);
  ASSERT_NO_REGS(d, "an r0 atomic destination writes nothing");

  wave_instr *cmp = INSTR(m, WAVE_NO_GUARD, ICMP_LT, wave_pred(1), wave_gpr(2), wave_gpr(3));
  wave_instr_defs(cmp, &d);
  ASSERT_REGS(d, "compare defs", WAVE_REG_PRED(1));
  wave_instr *sel = INSTR(m, WAVE_NO_GUARD, SELECT, wave_gpr(1), wave_pred(0), wave_gpr(2),
                          wave_gpr(3));
  wave_instr_uses(sel, &u);
  ASSERT_REGS(u, "select uses", WAVE_REG_PRED(0), 2, 3);

  wave_instr *mov_sr = INSTR(m, WAVE_NO_GUARD, MOV, wave_gpr(1), wave_sreg(4));
  wave_instr_uses(mov_sr, &u);
  ASSERT_NO_REGS(u, "mov reads sr_lane_id itself, not r4");
  wave_instr *iadd_sr = INSTR(m, WAVE_NO_GUARD, IADD, wave_gpr(1), wave_sreg(4), wave_gpr(2));
  wave_instr_uses(iadd_sr, &u);
  ASSERT_REGS(u, "sr_lane_id in an iadd is encoded as r4", 2, 4);

  wave_instr *top = INSTR(m, WAVE_NO_GUARD, DADD, wave_gpr(254), wave_gpr(2), wave_gpr(4));
  wave_instr_defs(top, &d);
  ASSERT_REGS(d, "r255 does not exist", 254);

  cr_assert(wave_instr_reads_reg(guarded, WAVE_REG_PRED(3)));
  cr_assert(wave_instr_reads_reg(guarded, WAVE_REG_GPR(3)), "partial write keeps r3");
  cr_assert_not(wave_instr_reads_reg(dadd, WAVE_REG_GPR(3)));
  cr_assert(wave_instr_writes_reg(dadd, WAVE_REG_GPR(3)));
  cr_assert_not(wave_instr_writes_reg(dadd, WAVE_REG_GPR(4)));
  cr_assert(wave_instr_writes_reg(cmp, WAVE_REG_PRED(1)));
  cr_assert_not(wave_instr_writes_reg(cmp, WAVE_REG_GPR(1)), "p1 is not r1");
  wave_module_destroy(m);
}

/* The sets hold every register the references name (a guarded write's destinations read too),
 * for every instruction of generated kernels. */
Test(facts, uses_and_defs_sets_match_the_references) {
  size_t checked = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    o.size = 200;
    wave_gen_launch g;
    wave_module *m = tu_generate(&o, &g);
    wave_foreach_block(b, wave_module_first_kernel(m)) {
      wave_foreach_instr(in, b) {
        wave_reg_ref refs[WAVE_MAX_REG_REFS];
        unsigned n = wave_instr_reg_refs(in, refs);
        wave_regset want_u = wave_regset_empty(), want_d = wave_regset_empty();
        for (unsigned i = 0; i < n; i++)
          for (unsigned k = 0; k < refs[i].count; k++)
            wave_regset_set(refs[i].is_def ? &want_d : &want_u,
                            refs[i].is_pred ? WAVE_REG_PRED(refs[i].first + k)
                                            : WAVE_REG_GPR(refs[i].first + k));
        if (wave_instr_guard(in) != WAVE_NO_GUARD)
          want_u = wave_regset_union(want_u, want_d);
        wave_regset u, d, u_only, d_only;
        wave_instr_uses_defs(in, &u, &d);
        wave_instr_uses(in, &u_only);
        wave_instr_defs(in, &d_only);
        cr_assert(wave_regset_equal(u, want_u) && wave_regset_equal(d, want_d) &&
                      wave_regset_equal(u_only, want_u) && wave_regset_equal(d_only, want_d),
                  "seed %llu: '%s' at %u:%u", (unsigned long long)seed,
                  wave_opcode_get(wave_instr_op(in))->mnemonic, wave_instr_loc(in).line,
                  wave_instr_loc(in).col);
        checked++;
      }
    }
    wave_module_destroy(m);
  }
  cr_assert_gt(checked, 1000);
}

Test(facts, other_lane_uses_are_the_value_source_of_shuffles_and_broadcast) {
  wave_module *m = wave_module_create(NULL);
  wave_regset u;
  static const wave_opcode fetching[] = {WAVE_OP_WAVE_SHUFFLE, WAVE_OP_WAVE_SHUFFLE_UP,
                                         WAVE_OP_WAVE_SHUFFLE_DOWN, WAVE_OP_WAVE_SHUFFLE_XOR,
                                         WAVE_OP_WAVE_BROADCAST};
  for (size_t i = 0; i < sizeof(fetching) / sizeof(fetching[0]); i++) {
    wave_operand ops[] = {wave_gpr(1), wave_gpr(5), wave_gpr(7)};
    wave_instr *shuffle = make_instr(m, 2, fetching[i], 3, ops);
    wave_instr_other_lane_uses(shuffle, &u);
    /* Not the lane index (read in the lane itself), nor the guard. */
    ASSERT_REGS(u, wave_opcode_table[fetching[i]].mnemonic, 5);
  }
  wave_instr *via_sreg = INSTR(m, WAVE_NO_GUARD, WAVE_SHUFFLE, wave_gpr(1), wave_sreg(4),
                               wave_gpr(7));
  wave_instr_other_lane_uses(via_sreg, &u);
  ASSERT_REGS(u, "sr_lane_id as the source is r4", 4);
  /* Reductions, scans and votes read active lanes only: lanes on their own paths. */
  wave_instr *reduce = INSTR(m, WAVE_NO_GUARD, WAVE_REDUCE_ADD, wave_gpr(1), wave_gpr(5));
  wave_instr_other_lane_uses(reduce, &u);
  ASSERT_NO_REGS(u, "wave_reduce_add");
  wave_instr *add = INSTR(m, WAVE_NO_GUARD, IADD, wave_gpr(1), wave_gpr(5), wave_gpr(7));
  wave_instr_other_lane_uses(add, &u);
  ASSERT_NO_REGS(u, "iadd");
  wave_module_destroy(m);
}

/* ---- operand accessors -------------------------------------------------------------------- */

static bool same_operand(wave_operand o, wave_operand expected) {
  return o.kind == expected.kind && o.value == expected.value;
}

static bool is_none(wave_operand o) { return o.kind == WAVE_OPERAND_NONE && o.value == 0; }

/* A guarded write reads the old value of its destination (lanes off keep it) and its guard;
 * what its operands read is neither. */
Test(operands, what_the_operands_read_leaves_the_guard_out) {
  wave_module *m = wave_module_create(NULL);
  wave_instr *add = INSTR(m, 2, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(1));
  wave_regset uses, reads;
  wave_instr_uses(add, &uses);
  wave_instr_operand_reads(add, &reads);
  cr_assert(wave_regset_test(uses, WAVE_REG_PRED(2)) && wave_regset_test(uses, WAVE_REG_GPR(1)));
  cr_assert_not(wave_regset_test(reads, WAVE_REG_PRED(2)), "the guard is no operand");
  cr_assert(wave_regset_test(reads, WAVE_REG_GPR(1)), "r1 is a source as well");
  cr_assert(wave_regset_test(reads, WAVE_REG_GPR(2)));
  wave_instr *mov = INSTR(m, 1, MOV, wave_gpr(3), wave_gpr(4));
  wave_instr_operand_reads(mov, &reads);
  cr_assert_not(wave_regset_test(reads, WAVE_REG_GPR(3)), "a guarded destination is not read");
  cr_assert_not(wave_regset_test(reads, WAVE_REG_PRED(1)));
  cr_assert(wave_regset_test(reads, WAVE_REG_GPR(4)));
  wave_module_destroy(m);
}

/* A new opcode of another shape: the slots it gains are empty until set, and no instruction
 * grows past WAVE_MAX_OPERANDS. */
Test(operands, an_instruction_changes_its_number_of_operands) {
  wave_module *m = wave_module_create(NULL);
  wave_instr *mov = INSTR(m, WAVE_NO_GUARD, MOV, wave_gpr(1), wave_gpr(2));
  wave_instr_set_op(mov, WAVE_OP_IADD);
  cr_assert(wave_instr_set_num_operands(mov, 3));
  cr_assert_eq(wave_instr_num_operands(mov), 3);
  cr_assert(is_none(wave_instr_operand(mov, 2)));
  cr_assert_eq(wave_instr_operand(mov, 1).value, 2, "the kept slots keep their operands");
  cr_assert(wave_instr_set_operand(mov, 2, wave_gpr(5)));
  cr_assert_not(wave_instr_set_num_operands(mov, WAVE_MAX_OPERANDS + 1));
  cr_assert_eq(wave_instr_num_operands(mov), 3, "a refused change changes nothing");
  cr_assert(wave_instr_set_num_operands(mov, 2));
  cr_assert(is_none(wave_instr_operand(mov, 2)), "past the last is empty again");
  wave_module_destroy(m);
}

/* Operands are stored in a smaller form than wave_operand (ir/code.h): every field an operand
 * can have comes back as it went in, a label as the very pointer given. */
Test(operands, every_field_comes_back_as_stored) {
  wave_module *m = wave_module_create(NULL);
  wave_operand hi = wave_gpr(254), neg = wave_not_pred(3), imm = wave_imm(0xDEADBEEFu),
               lab = wave_label_operand("far_away"), scope = wave_scope_operand(WAVE_SCOPE_SYSTEM);
  hi.half = WAVE_HALF_HI;
  hi.col = 65535;
  neg.col = 7;
  imm.imm_form = WAVE_IMM_FLOAT;
  lab.col = 40;
  wave_operand in[] = {hi, neg, imm, lab, scope, wave_sreg(19)};
  wave_instr *i = wave_instr_create(m, WAVE_OP_NOP, WAVE_NO_GUARD, false, 6, in);
  cr_assert_not_null(i);
  for (unsigned k = 0; k < 6; k++) {
    wave_operand o = wave_instr_operand(i, k);
    cr_assert(o.kind == in[k].kind && o.half == in[k].half && o.negated == in[k].negated &&
                  o.imm_form == in[k].imm_form && o.col == in[k].col,
              "operand %u", k);
    if (o.kind == WAVE_OPERAND_LABEL)
      cr_assert_eq(o.label, in[k].label);
    else
      cr_assert_eq(o.value, in[k].value, "operand %u", k);
  }
  /* Another module's copy names the same label through its own table. */
  wave_module *other = wave_module_create(NULL);
  wave_instr *copy = wave_instr_clone(other, i);
  cr_assert_str_eq(wave_instr_operand(copy, 3).label, "far_away");
  cr_assert(wave_instr_set_operand(copy, 0, wave_label_operand("near")));
  cr_assert_str_eq(wave_instr_operand(copy, 0).label, "near");
  cr_assert_eq(wave_instr_operand(i, 0).kind, WAVE_OPERAND_GPR, "the original is its own");
  wave_module_destroy(other);
  wave_module_destroy(m);
}

/* An instruction keeps its location inline and its comments, or a file not its module's, in a
 * note of its own (ir/code.h): all come back as set, a clone's note is its own, and an origin
 * without comments takes them away. */
Test(operands, origins_come_back_as_set) {
  wave_module *m = wave_module_create("own.wave");
  wave_instr *nop = INSTR(m, WAVE_NO_GUARD, NOP);
  wave_src none = wave_instr_origin(nop);
  cr_assert(none.loc.file == NULL && none.loc.line == 0 && !none.comment && !none.leading);
  wave_src own = {{wave_module_file(m), 3, 5}, NULL, NULL};
  cr_assert(wave_instr_set_origin(nop, &own));
  cr_assert_eq(wave_instr_loc(nop).file, wave_module_file(m),
               "the module's own file needs no note");
  wave_src other = {{"other.wave", 7, 2}, "; trailing", "; leading"};
  cr_assert(wave_instr_set_origin(nop, &other));
  wave_instr *copy = wave_instr_clone(m, nop);
  cr_assert(wave_instr_set_origin(nop, &own));
  wave_src back = wave_instr_origin(copy);
  cr_assert_str_eq(back.loc.file, "other.wave");
  cr_assert(back.loc.line == 7 && back.loc.col == 2);
  cr_assert_str_eq(back.comment, "; trailing", "the clone's note is not the original's");
  cr_assert_str_eq(back.leading, "; leading");
  wave_src now = wave_instr_origin(nop);
  cr_assert(now.loc.file == wave_module_file(m) && now.loc.line == 3 && !now.comment &&
            !now.leading);
  wave_module_destroy(m);
}

/* The registers of an instruction as its references name them, expanded here by hand: what
 * the sets the analyses read must equal. */
static void expect_sets_from_refs(const wave_instr *in, const char *what) {
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(in, refs);
  wave_regset uses = wave_regset_empty(), defs = wave_regset_empty();
  for (unsigned i = 0; i < n; i++) {
    for (unsigned k = 0; k < refs[i].count; k++) {
      uint32_t r = refs[i].first + k;
      if (refs[i].is_pred ? r >= WAVE_NUM_PREDS : r > WAVE_MAX_GPR)
        continue;
      wave_regset_set(refs[i].is_def ? &defs : &uses,
                      refs[i].is_pred ? WAVE_REG_PRED(r) : WAVE_REG_GPR(r));
    }
  }
  if (wave_instr_guard(in) != WAVE_NO_GUARD)
    uses = wave_regset_union(uses, defs);
  wave_regset u, d;
  wave_instr_uses_defs(in, &u, &d);
  cr_assert(wave_regset_equal(u, uses), "%s: reads", what);
  cr_assert(wave_regset_equal(d, defs), "%s: writes", what);
}

/* Registers are decoded once, when an instruction is made or changed (ir/code.h), not at every
 * question: for every opcode, guarded and not, and after each kind of change, the sets agree
 * with the references. */
Test(operands, registers_follow_every_change) {
  wave_module *m = wave_module_create(NULL);
  for (unsigned op = 0; op < WAVE_OP_COUNT; op++) {
    wave_operand ops[WAVE_MAX_OPERANDS];
    unsigned n = wave_opcode_num_slots((wave_opcode)op);
    for (unsigned i = 0; i < n; i++) {
      switch (wave_opcode_slot_kind((wave_opcode)op, i)) {
      case 'q':
      case 'p':
        ops[i] = wave_pred(i % WAVE_NUM_PREDS);
        break;
      case 's':
        ops[i] = wave_sreg(1);
        break;
      case 'i':
        ops[i] = wave_imm(7);
        break;
      case 'l':
        ops[i] = wave_label_operand("sub");
        break;
      case 'c':
        ops[i] = wave_scope_operand(WAVE_SCOPE_DEVICE);
        break;
      default:
        ops[i] = wave_gpr(10 + 4 * i);
        break;
      }
    }
    for (int guard = WAVE_NO_GUARD; guard <= 1; guard += 2) {
      wave_instr *in = wave_instr_create(m, (wave_opcode)op, guard, false, n, ops);
      cr_assert_not_null(in);
      expect_sets_from_refs(in, wave_opcode_table[op].mnemonic);
    }
  }
  wave_instr *in = INSTR(m, WAVE_NO_GUARD, MOV, wave_gpr(1), wave_gpr(2));
  wave_instr_set_op(in, WAVE_OP_DSQRT);
  expect_sets_from_refs(in, "mov become dsqrt, pairs of the same operands");
  wave_instr_set_op(in, WAVE_OP_DADD);
  cr_assert(wave_instr_set_num_operands(in, 3));
  cr_assert(wave_instr_set_operand(in, 2, wave_gpr(6)));
  expect_sets_from_refs(in, "mov become dadd");
  wave_regset u, d;
  wave_instr_uses_defs(in, &u, &d);
  cr_assert(wave_regset_test(u, WAVE_REG_GPR(7)) && wave_regset_test(d, WAVE_REG_GPR(2)),
            "dadd reads and writes pairs");
  wave_instr_set_guard(in, 3, true);
  expect_sets_from_refs(in, "guarded");
  cr_assert(wave_instr_set_operand(in, 1, wave_gpr(40)));
  wave_instr_uses(in, &u);
  cr_assert(wave_regset_test(u, WAVE_REG_GPR(41)) && !wave_regset_test(u, WAVE_REG_GPR(3)),
            "the new source is read with its pair, the old one's pair no more");
  expect_sets_from_refs(in, "new source");
  wave_module_destroy(m);
}

/* What the stored form cannot hold: a column past 65535 is not known (0); a half or an
 * immediate form outside its enum is refused, by the setter and by the constructor. */
Test(operands, what_the_stored_form_cannot_hold) {
  wave_module *m = wave_module_create(NULL);
  wave_operand far = wave_gpr(1);
  far.col = 70000;
  wave_instr *mov = INSTR(m, WAVE_NO_GUARD, MOV, far, wave_gpr(2));
  cr_assert_eq(wave_instr_operand(mov, 0).col, 0, "a column past 65535 is not known");
  wave_operand bad_half = wave_gpr(3), bad_form = wave_imm(1);
  bad_half.half = 4;
  bad_form.imm_form = 4;
  cr_assert_not(wave_instr_set_operand(mov, 1, bad_half));
  cr_assert_not(wave_instr_set_operand(mov, 1, bad_form));
  cr_assert_eq(wave_instr_operand(mov, 1).value, 2, "a refused operand changes nothing");
  cr_assert_null(wave_instr_create(m, WAVE_OP_MOV, WAVE_NO_GUARD, false, 1, &bad_half));
  wave_module_destroy(m);
}

Test(operands, destination_and_sources_by_role) {
  wave_module *m = wave_module_create(NULL);
  wave_instr *iadd = INSTR(m, WAVE_NO_GUARD, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  cr_assert_eq(wave_instr_num_operands(iadd), 3);
  cr_assert(same_operand(wave_instr_dest(iadd), wave_gpr(1)));
  cr_assert_eq(wave_instr_num_srcs(iadd), 2);
  cr_assert(same_operand(wave_instr_src(iadd, 0), wave_gpr(2)));
  cr_assert(same_operand(wave_instr_src(iadd, 1), wave_gpr(3)));
  cr_assert(is_none(wave_instr_src(iadd, 2)));
  cr_assert(is_none(wave_instr_operand(iadd, 3)));
  cr_assert(wave_instr_set_src(iadd, 1, wave_gpr(9)));
  cr_assert(same_operand(wave_instr_operand(iadd, 2), wave_gpr(9)));
  cr_assert_not(wave_instr_set_src(iadd, 2, wave_gpr(9)));
  cr_assert_not(wave_instr_set_operand(iadd, 3, wave_gpr(9)));
  cr_assert(wave_instr_set_dest(iadd, wave_gpr(7)));
  cr_assert_eq(wave_instr_operand(iadd, 0).value, 7);

  wave_instr *st = INSTR(m, WAVE_NO_GUARD, DEVICE_STORE_U32, wave_gpr(5), wave_gpr(6));
  cr_assert(is_none(wave_instr_dest(st)), "a store writes no register");
  cr_assert_not(wave_instr_set_dest(st, wave_gpr(1)));
  cr_assert_eq(wave_instr_num_srcs(st), 2);
  cr_assert(same_operand(wave_instr_src(st, 0), wave_gpr(5)), "the address comes first");

  wave_instr *atomic = INSTR(m, WAVE_NO_GUARD, ATOMIC_ADD, {0}, wave_gpr(1), wave_gpr(2),
                             wave_scope_operand(WAVE_SCOPE_DEVICE));
  cr_assert(is_none(wave_instr_dest(atomic)), "the destination is omitted");
  cr_assert_eq(wave_instr_num_srcs(atomic), 3);
  cr_assert(same_operand(wave_instr_src(atomic, 2), wave_scope_operand(WAVE_SCOPE_DEVICE)));
  cr_assert(wave_instr_set_dest(atomic, wave_gpr(7)));
  cr_assert(same_operand(wave_instr_dest(atomic), wave_gpr(7)));

  wave_instr *cmp = INSTR(m, WAVE_NO_GUARD, ICMP_LT, wave_pred(1), wave_gpr(2), wave_gpr(3));
  cr_assert(same_operand(wave_instr_dest(cmp), wave_pred(1)));
  wave_instr *barrier = INSTR0(m, WAVE_NO_GUARD, BARRIER);
  cr_assert(is_none(wave_instr_dest(barrier)));
  cr_assert_eq(wave_instr_num_srcs(barrier), 0);
  cr_assert(is_none(wave_instr_src(barrier, 0)));

  wave_instr_set_guard(iadd, 2, true);
  cr_assert(wave_instr_guard(iadd) == 2 && wave_instr_guard_negated(iadd));
  wave_instr_set_guard(iadd, WAVE_NO_GUARD, true);
  cr_assert(wave_instr_guard(iadd) == WAVE_NO_GUARD && !wave_instr_guard_negated(iadd));
  wave_module_destroy(m);
}

/* ---- shared trees ------------------------------------------------------------------------- */

typedef struct tree {
  wave_module *m;
  wave_kernel *k;
  wave_node_list *body;  /* the entry region's */
} tree;

static tree new_tree(void) {
  tree t;
  t.m = wave_module_create("t.wave");
  cr_assert_not_null(t.m);
  t.k = wave_kernel_create(t.m, "k");
  cr_assert_not_null(t.k);
  t.body = wave_region_body(wave_kernel_first_region(t.k));
  return t;
}

static wave_node *add_if(tree *t, wave_node_list *list, unsigned pred) {
  wave_node *n = wave_if_create(t->m, wave_pred(pred));
  cr_assert_not_null(n);
  wave_node_list_append(list, n);
  return n;
}

static wave_node *add_loop(tree *t, wave_node_list *list) {
  wave_node *n = wave_loop_create(t->m);
  cr_assert_not_null(n);
  wave_node_list_append(list, n);
  return n;
}

#define THEN(n) (wave_if_then((n)))
#define ELSE(n) (wave_if_else((n)))
#define BODY(n) (wave_loop_body((n)))

/* [1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{} [6] */
typedef struct sample {
  tree t;
  wave_node *b1, *outer_if, *b2, *inner_loop, *b3, *b4, *inner_if, *b5, *empty_loop, *b6;
} sample;

static sample new_sample(void) {
  sample s;
  s.t = new_tree();
  tree *t = &s.t;
  s.b1 = wave_instr_node(tu_tag(t->m, t->body, 1));
  s.outer_if = add_if(t, t->body, 1);
  s.b2 = wave_instr_node(tu_tag(t->m, THEN(s.outer_if), 2));
  s.inner_loop = add_loop(t, THEN(s.outer_if));
  s.b3 = wave_instr_node(tu_tag(t->m, BODY(s.inner_loop), 3));
  s.b4 = wave_instr_node(tu_tag(t->m, ELSE(s.outer_if), 4));
  s.inner_if = add_if(t, ELSE(s.outer_if), 2);
  s.b5 = wave_instr_node(tu_tag(t->m, ELSE(s.inner_if), 5));
  s.empty_loop = add_loop(t, t->body);
  s.b6 = wave_instr_node(tu_tag(t->m, t->body, 6));
  tu_assert_shape(t->body, "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{} [6]");
  return s;
}

/* ---- downcasts and navigation ------------------------------------------------------------- */

Test(navigation, downcasts_check_the_kind_and_keep_constness) {
  sample s = new_sample();
  cr_assert_eq(wave_node_as_if(s.outer_if), s.outer_if);
  cr_assert_null(wave_node_as_loop(s.outer_if));
  cr_assert_null(wave_node_as_block(s.outer_if));
  cr_assert_eq(wave_node_as_loop(s.inner_loop), s.inner_loop);
  cr_assert_eq(wave_node_as_block(s.b1), s.b1);
  cr_assert_null(wave_node_as_if(s.b1));
  cr_assert_null(wave_node_as_if((wave_node *)NULL));
  const wave_node *c = s.outer_if;
  _Static_assert(_Generic(wave_node_as_if(c), const wave_node *: 1, default: 0),
                 "a const node downcasts to a const node");
  _Static_assert(_Generic(wave_node_as_if(s.outer_if), wave_node *: 1, default: 0),
                 "a mutable node downcasts to a mutable node");
  cr_assert_eq(wave_node_as_if(c), c);
  cr_assert_null(wave_node_as_block(c));
  wave_module_destroy(s.t.m);
}

Test(navigation, parents_regions_and_enclosing_loops) {
  sample s = new_sample();
  cr_assert_eq(wave_node_parent(s.b3), s.inner_loop);
  cr_assert_eq(wave_node_parent(s.inner_loop), s.outer_if);
  cr_assert_eq(wave_node_parent(s.b5), s.inner_if);
  cr_assert_null(wave_node_parent(s.outer_if));
  cr_assert_eq(wave_instr_node(wave_block_first(s.b3)), s.b3);
  cr_assert_eq(wave_node_region(s.b5), wave_kernel_first_region(s.t.k));
  cr_assert_eq(wave_node_enclosing_loop(s.b3), s.inner_loop);
  cr_assert_null(wave_node_enclosing_loop(s.inner_loop), "a loop does not enclose itself");
  cr_assert_null(wave_node_enclosing_loop(s.b5), "ifs are no loops");
  cr_assert_null(wave_node_enclosing_loop(s.b1));
  cr_assert(wave_node_list_is_empty(BODY(s.empty_loop)));
  cr_assert(wave_node_list_is_empty(THEN(s.inner_if)));
  cr_assert_not(wave_node_list_is_empty(ELSE(s.inner_if)));
  cr_assert_not(wave_block_is_empty(s.b1));
  wave_node *detached = wave_block_create(s.t.m);
  cr_assert(wave_block_is_empty(detached));
  cr_assert_null(wave_node_parent(detached));
  cr_assert_null(wave_node_region(detached));
  wave_module_destroy(s.t.m);
}

Test(navigation, previous_and_next_block_in_text_order) {
  sample s = new_sample();
  wave_node *order[] = {s.b1, s.b2, s.b3, s.b4, s.b5, s.b6};
  for (unsigned i = 0; i < 6; i++) {
    cr_assert_eq(wave_block_next(order[i]), i < 5 ? order[i + 1] : NULL, "after block %u",
                 i + 1);
    cr_assert_eq(wave_block_prev(order[i]), i > 0 ? order[i - 1] : NULL, "before block %u",
                 i + 1);
  }
  wave_module_destroy(s.t.m);
}

Test(navigation, foreach_block_visits_regions_in_order) {
  sample s = new_sample();
  tree *t = &s.t;
  wave_region *empty = wave_region_create(t->k, "empty");
  wave_region *sub = wave_region_create(t->k, "sub");
  cr_assert(empty && sub);
  wave_node *loop = add_loop(t, wave_region_body(sub));
  tu_tag(t->m, BODY(loop), 7);
  tu_tag(t->m, wave_region_body(sub), 8);
  uint32_t seen[16], n = 0;
  wave_foreach_block(b, t->k) {
    cr_assert_lt(n, 16);
    seen[n++] = wave_instr_operand(wave_block_first(b), 1).value;
  }
  cr_assert_eq(n, 8);
  for (uint32_t i = 0; i < n; i++)
    cr_assert_eq(seen[i], i + 1);

  n = 0;
  wave_foreach_block_in_region(b, sub) seen[n++] = wave_instr_operand(wave_block_first(b), 1).value;
  cr_assert(n == 2 && seen[0] == 7 && seen[1] == 8);
  n = 0;
  wave_foreach_block_in_region(b, empty) n++;
  cr_assert_eq(n, 0);

  n = 0;
  wave_foreach_block(b, t->k) {
    if (b == s.b3)
      break;
    n++;
  }
  cr_assert_eq(n, 2, "break leaves the loop at once");
  wave_block_iter it = wave_block_iter_region(wave_kernel_first_region(t->k));
  for (unsigned i = 0; i < 6; i++)
    cr_assert_not_null(wave_block_iter_next(&it));
  cr_assert_null(wave_block_iter_next(&it));
  cr_assert_null(wave_block_iter_next(&it), "the iterator stays at its end");
  wave_module_destroy(t->m);
}

Test(navigation, safe_iteration_survives_removing_the_current_item) {
  sample s = new_sample();
  tree *t = &s.t;
  for (uint32_t k = 10; k < 15; k++)
    tu_tag(t->m, t->body, k);
  tu_assert_shape(t->body, "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{} [6 10 11 12 13 14]");
  wave_foreach_instr_safe(i, s.b6) {
    if (wave_instr_operand(i, 1).value % 2 == 0)
      wave_instr_remove(i);
  }
  wave_foreach_node_safe(n, t->body) {
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      wave_node_remove(n);
  }
  tu_assert_shape(t->body, "[1] [11 13]");
  unsigned count = 0;
  wave_foreach_node(n, t->body) count++;
  wave_foreach_instr(i, s.b6) count++;
  cr_assert_eq(count, 4);
  wave_module_destroy(t->m);
}

/* ---- surgery ------------------------------------------------------------------------------ */

Test(surgery, extract_stitches_the_gap_and_keeps_the_region) {
  sample s = new_sample();
  tree *t = &s.t;
  wave_instr *i6 = wave_block_first(s.b6);
  wave_node_list *out = wave_node_list_create(t->m);
  cr_assert_not_null(out);
  cr_assert(wave_node_list_extract(s.outer_if, s.empty_loop, out));
  tu_assert_shape(t->body, "[1 6]");
  tu_assert_shape(out, "if{[2] loop{[3]}}{[4] if{}{[5]}} loop{}");
  cr_assert_null(wave_node_list_parent(out));
  cr_assert_eq(wave_node_list_region(out), wave_kernel_first_region(t->k));
  cr_assert_eq(wave_node_list_of(s.outer_if), out);
  cr_assert_eq(wave_node_list_of(s.empty_loop), out);
  cr_assert_eq(wave_instr_node(i6), s.b1, "the instruction moved to the merged block");
  cr_assert_null(wave_block_first(s.b6));
  cr_assert_null(wave_node_list_of(s.b6), "the emptied block left the tree");
  tu_assert_valid(t->k);

  wave_node_list *one = wave_node_list_create(t->m);
  cr_assert_not_null(one);
  cr_assert(wave_node_list_extract(s.b4, s.b4, one));
  tu_assert_shape(one, "[4]");
  tu_assert_shape(ELSE(s.outer_if), "if{}{[5]}");
  wave_module_destroy(t->m);
}

Test(surgery, extract_refuses_a_bad_range) {
  sample s = new_sample();
  wave_node_list *out = wave_node_list_create(s.t.m);
  cr_assert_not_null(out);
  cr_assert_not(wave_node_list_extract(s.b6, s.b1, out), "last before first");
  cr_assert_not(wave_node_list_extract(s.b1, s.b2, out), "two lists");
  tu_assert_shape(s.t.body, "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{} [6]");
  cr_assert_null(wave_node_list_first(out));
  wave_module_destroy(s.t.m);
}

Test(surgery, reinsert_at_every_kind_of_cursor) {
  tree t = new_tree();
  wave_instr *i1 = tu_tag(t.m, t.body, 1);
  wave_instr *i2 = tu_tag(t.m, t.body, 2);
  tu_tag(t.m, t.body, 3);
  /* A detached list: if{[9]}{}, never inserted anywhere. */
  wave_node_list *nodes = wave_node_list_create(t.m);
  cr_assert_not_null(nodes);
  wave_node *iff = add_if(&t, nodes, 1);
  tu_tag(t.m, THEN(iff), 9);
  cr_assert(wave_node_list_reinsert(t.m, wave_cursor_before_instr(i2), nodes));
  tu_assert_shape(t.body, "[1] if{[9]}{} [2 3]");
  cr_assert(wave_node_list_is_empty(nodes));
  cr_assert_eq(wave_node_list_region(THEN(iff)), wave_kernel_first_region(t.k));
  tu_assert_valid(t.k);

  /* [7] loop{} [8] into the middle of [2 3]: both ends merge with the halves. */
  wave_node *b7 = wave_block_create(t.m);
  cr_assert_not_null(b7);
  wave_node_list_append(nodes, b7);
  tu_tag(t.m, nodes, 7);
  add_loop(&t, nodes);
  tu_tag(t.m, nodes, 8);
  cr_assert(wave_node_list_reinsert(t.m, wave_cursor_after_instr(i2), nodes));
  tu_assert_shape(t.body, "[1] if{[9]}{} [2 7] loop{} [8 3]");
  tu_assert_valid(t.k);

  /* A then-list moved to the end of the region: it is any list the cursor is not in. */
  cr_assert(wave_node_list_reinsert(t.m, wave_cursor_list_end(t.body), THEN(iff)));
  tu_assert_shape(t.body, "[1] if{}{} [2 7] loop{} [8 3 9]");
  cr_assert(wave_node_list_reinsert(t.m, wave_cursor_block_start(wave_instr_node(i1)), nodes),
            "an empty list changes nothing");
  tu_assert_shape(t.body, "[1] if{}{} [2 7] loop{} [8 3 9]");
  tu_assert_valid(t.k);

  wave_node *detached = wave_loop_create(t.m);
  cr_assert_not(wave_node_list_reinsert(t.m, wave_cursor_after_node(detached), nodes),
                "a cursor beside a detached node lies in no list");
  wave_module_destroy(t.m);
}

Test(surgery, extract_then_reinsert_moves_code_to_another_region) {
  sample s = new_sample();
  tree *t = &s.t;
  wave_region *sub = wave_region_create(t->k, "sub");
  cr_assert_not_null(sub);
  tu_tag(t->m, wave_region_body(sub), 7);
  wave_node_list *out = wave_node_list_create(t->m);
  cr_assert_not_null(out);
  cr_assert(wave_node_list_extract(s.b1, s.outer_if, out));
  cr_assert(wave_node_list_reinsert(t->m, wave_cursor_list_start(wave_region_body(sub)), out));
  tu_assert_shape(t->body, "loop{} [6]");
  tu_assert_shape(wave_region_body(sub), "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} [7]");
  cr_assert_eq(wave_node_list_region(BODY(s.inner_loop)), sub);
  cr_assert_eq(wave_node_list_region(ELSE(s.inner_if)), sub);
  tu_assert_valid(t->k);
  wave_module_destroy(t->m);
}

Test(surgery, replace_an_if_by_one_of_its_lists) {
  sample s = new_sample();
  tree *t = &s.t;
  cr_assert(wave_node_replace(s.outer_if, THEN(s.outer_if)));
  tu_assert_shape(t->body, "[1 2] loop{[3]} loop{} [6]");
  cr_assert_null(wave_node_list_of(s.outer_if));
  cr_assert(wave_node_list_is_empty(THEN(s.outer_if)));
  cr_assert_eq(wave_node_list_of(s.inner_loop), t->body);
  tu_assert_valid(t->k);

  wave_node_list *nothing = wave_node_list_create(t->m);
  cr_assert_not_null(nothing);
  cr_assert(wave_node_replace(s.inner_loop, nothing));
  tu_assert_shape(t->body, "[1 2] loop{} [6]");
  cr_assert(wave_node_replace(s.empty_loop, nothing));
  tu_assert_shape(t->body, "[1 2 6]"); /* the blocks on both sides join */
  tu_assert_valid(t->k);
  cr_assert_not(wave_node_replace(s.empty_loop, nothing), "detached now");
  wave_module_destroy(t->m);
}

Test(surgery, replace_with_a_list_of_blocks_only) {
  sample s = new_sample();
  tree *t = &s.t;
  wave_node_list *four = wave_node_list_create(t->m);
  cr_assert_not_null(four);
  cr_assert(wave_node_list_extract(s.b4, s.b4, four));
  cr_assert(wave_node_replace(s.outer_if, four));
  tu_assert_shape(t->body, "[1 4] loop{} [6]");
  tu_assert_valid(t->k);
  wave_module_destroy(t->m);
}

Test(surgery, split_and_merge) {
  tree t = new_tree();
  wave_instr *i1 = tu_tag(t.m, t.body, 1);
  wave_instr *i2 = tu_tag(t.m, t.body, 2);
  wave_instr *i3 = tu_tag(t.m, t.body, 3);
  wave_node *b = wave_instr_node(i1);
  cr_assert_eq(wave_block_split(t.m, i1), b, "nothing to split before the first");
  wave_node *tail = wave_block_split(t.m, i2);
  cr_assert(tail && tail != b);
  tu_assert_shape(t.body, "[1] [2 3]");
  cr_assert(wave_instr_node(i2) == tail && wave_instr_node(i3) == tail && wave_instr_node(i1) == b);
  cr_assert(wave_block_last(b) == i1 && wave_instr_next(i1) == NULL && wave_instr_prev(i2) == NULL);
  cr_assert_eq(wave_node_next(b), tail);
  cr_assert_not(wave_block_merge(tail, b), "wrong order");
  cr_assert(wave_block_merge(b, tail));
  tu_assert_shape(t.body, "[1 2 3]");
  cr_assert(wave_instr_node(i2) == b && wave_instr_next(i1) == i2 && wave_instr_prev(i2) == i1 &&
            wave_block_last(b) == i3);
  cr_assert_null(wave_node_list_of(tail));
  tu_assert_valid(t.k);
  wave_node *loop = add_loop(&t, t.body);
  cr_assert_not(wave_block_merge(b, loop), "only blocks merge");
  wave_instr *lone = wave_instr_create(t.m, WAVE_OP_NOP, WAVE_NO_GUARD, false, 0, NULL);
  cr_assert_null(wave_block_split(t.m, lone), "a detached instruction has no block");
  wave_module_destroy(t.m);
}

/* ---- cursor and builder ------------------------------------------------------------------- */

static wave_instr *tag_instr(wave_module *m, uint32_t tag) {
  wave_operand ops[] = {wave_gpr(1), wave_imm(tag)};
  wave_instr *i = wave_instr_create(m, WAVE_OP_MOV_IMM, WAVE_NO_GUARD, false, 2, ops);
  cr_assert_not_null(i);
  return i;
}

static void insert_tag(tree *t, wave_cursor at, uint32_t tag) {
  cr_assert(wave_instr_insert(t->m, at, tag_instr(t->m, tag)), "inserting %u", tag);
}

Test(cursor, instructions_join_the_neighbouring_block) {
  tree t = new_tree();
  wave_node *iff = add_if(&t, t.body, 1);
  insert_tag(&t, wave_cursor_list_start(t.body), 1);
  tu_assert_shape(t.body, "[1] if{}{}");
  insert_tag(&t, wave_cursor_list_end(t.body), 2);
  tu_assert_shape(t.body, "[1] if{}{} [2]");
  insert_tag(&t, wave_cursor_before_node(iff), 3);
  insert_tag(&t, wave_cursor_after_node(iff), 4);
  tu_assert_shape(t.body, "[1 3] if{}{} [4 2]");
  insert_tag(&t, wave_cursor_list_end(THEN(iff)), 5);
  wave_instr *first = wave_block_first(wave_node_list_first(t.body));
  insert_tag(&t, wave_cursor_before_instr(first), 6);
  insert_tag(&t, wave_cursor_after_instr(wave_block_last(wave_node_list_first(t.body))), 7);
  insert_tag(&t, wave_cursor_block_start(wave_node_list_last(t.body)), 8);
  insert_tag(&t, wave_cursor_block_end(wave_node_list_last(t.body)), 9);
  tu_assert_shape(t.body, "[6 1 3 7] if{[5]}{} [8 4 2 9]");
  tu_assert_valid(t.k);

  cr_assert_not(wave_instr_insert(t.m, wave_cursor_list_end(t.body), first),
                "an attached instruction");
  wave_node *loose = wave_loop_create(t.m);
  cr_assert_not(wave_instr_insert(t.m, wave_cursor_after_node(loose), tag_instr(t.m, 10)),
                "beside a detached node");
  tu_assert_shape(t.body, "[6 1 3 7] if{[5]}{} [8 4 2 9]");
  wave_module_destroy(t.m);
}

Test(cursor, nodes_split_blocks_and_blocks_merge) {
  tree t = new_tree();
  tu_tag(t.m, t.body, 1);
  wave_instr *i2 = tu_tag(t.m, t.body, 2);
  wave_node *loop = wave_loop_create(t.m);
  cr_assert(wave_node_insert(t.m, wave_cursor_before_instr(i2), loop));
  tu_assert_shape(t.body, "[1] loop{} [2]");
  wave_node *block = wave_block_create(t.m);
  cr_assert_not(wave_node_insert(t.m, wave_cursor_list_end(BODY(loop)), block),
                "an empty block would break the normal form");
  wave_block_append(block, tag_instr(t.m, 3));
  cr_assert(wave_node_insert(t.m, wave_cursor_after_node(loop), block));
  tu_assert_shape(t.body, "[1] loop{} [3 2]");
  cr_assert_not(wave_node_insert(t.m, wave_cursor_list_end(t.body), loop), "attached");
  tu_assert_valid(t.k);
  wave_module_destroy(t.m);
}

/* Code lives in the arena of the module it was made in: linked into another module's tree, it
 * would vanish with its module, and its labels would index the wrong table. Every way to link
 * refuses it, and an instruction or node already linked somewhere, leaving both trees as they
 * were; the text printed before and after each refusal is the same. */
Test(misuse, code_of_another_module_is_refused) {
  wave_module *a = tu_parse_ok(".kernel a\n    mov_imm r1, 1\n    halt\n.end\n", "a.wave", false);
  wave_module *b = tu_parse_ok(".kernel b\n    mov_imm r2, 2\n    halt\n.end\n", "b.wave", false);
  char *a_text = wave_print_to_string(a, NULL, NULL), *b_text = wave_print_to_string(b, NULL, NULL);
  wave_node_list *a_body = wave_region_body(wave_kernel_first_region(wave_module_first_kernel(a)));
  wave_node *a_block = wave_node_list_first(a_body);
  wave_instr *a_first = wave_block_first(a_block);
  wave_instr *b_instr = wave_instr_create(b, WAVE_OP_NOP, WAVE_NO_GUARD, false, 0, NULL);
  wave_node *b_loop = wave_loop_create(b);
  cr_assert(b_instr && b_loop);

  cr_assert_not(wave_block_append(a_block, b_instr));
  cr_assert_not(wave_block_prepend(a_block, b_instr));
  cr_assert_not(wave_instr_insert_before(a_first, b_instr));
  cr_assert_not(wave_instr_insert_after(a_first, b_instr));
  cr_assert_not(wave_instr_insert(a, wave_cursor_block_end(a_block), b_instr));
  cr_assert_not(wave_instr_insert(b, wave_cursor_block_end(a_block), b_instr),
                "the cursor's place is a's");
  cr_assert_not(wave_node_list_append(a_body, b_loop));
  cr_assert_not(wave_node_list_prepend(a_body, b_loop));
  cr_assert_not(wave_node_insert_before(a_block, b_loop));
  cr_assert_not(wave_node_insert_after(a_block, b_loop));
  cr_assert_not(wave_node_insert(a, wave_cursor_list_end(a_body), b_loop));
  cr_assert_null(wave_block_split(b, wave_instr_next(a_first)));
  wave_node_list *carry = wave_node_list_create(a);
  cr_assert(carry && wave_node_list_append(carry, b_loop), "an unused detached list takes any");
  cr_assert_not(wave_node_list_reinsert(a, wave_cursor_list_end(a_body), carry));
  cr_assert_not(wave_node_replace(a_block, carry));

  /* Linked already: its own module's block refuses it too. */
  cr_assert_not(wave_block_append(a_block, a_first));
  cr_assert_not(wave_node_list_append(a_body, a_block));

  char *a_after = wave_print_to_string(a, NULL, NULL),
       *b_after = wave_print_to_string(b, NULL, NULL);
  cr_assert_str_eq(a_after, a_text);
  cr_assert_str_eq(b_after, b_text);
  cr_assert(wave_validate_module(a, "after the refusals", NULL));
  cr_assert(wave_validate_module(b, "after the refusals", NULL));
  /* Where it belongs, the same instruction goes in. */
  wave_node_list *b_body = wave_region_body(wave_kernel_first_region(wave_module_first_kernel(b)));
  cr_assert(wave_block_prepend(wave_node_list_first(b_body), b_instr));
  free(a_text);
  free(b_text);
  free(a_after);
  free(b_after);
  wave_module_destroy(a);
  wave_module_destroy(b);
}

Test(builder, emits_in_order_with_the_given_location) {
  tree t = new_tree();
  wave_instr *i1 = tu_tag(t.m, t.body, 1);
  tu_tag(t.m, t.body, 2);
  wave_loc loc = {"orig.wave", 7, 3};
  wave_builder b = wave_builder_at(t.m, wave_cursor_after_instr(i1), loc);
  wave_instr *i10 = wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(1), wave_imm(10));
  cr_assert_not_null(i10);
  wave_node *iff = wave_build_if(&b, wave_pred(2));
  cr_assert_not_null(iff);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(1), wave_imm(11)));
  b.cursor = wave_cursor_after_node(iff);
  cr_assert_not_null(wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(1), wave_imm(12)));
  wave_node *loop = wave_build_loop(&b);
  cr_assert_not_null(loop);
  wave_instr *brk = wave_build(&b, WAVE_OP_BREAK, wave_pred(3));
  cr_assert_not_null(wave_build_instr(&b, WAVE_OP_BARRIER, 0, NULL));
  tu_assert_shape(t.body, "[1 10] if{[11]}{} [12] loop{[break barrier]} [2]");
  tu_assert_valid(t.k);
  cr_assert(wave_instr_loc(i10).line == 7 && wave_instr_loc(i10).col == 3);
  cr_assert_str_eq(wave_instr_loc(i10).file, "orig.wave");
  cr_assert_eq(wave_instr_loc(brk).line, 7);
  wave_operand cond = wave_instr_operand(brk, 0);
  cr_assert(cond.kind == WAVE_OPERAND_PRED && cond.value == 3);
  cr_assert(wave_node_origin(iff, WAVE_LINE_IF).loc.line == 7 &&
            wave_node_origin(iff, WAVE_LINE_ENDIF).loc.line == 7);
  cr_assert(wave_if_cond(iff).kind == WAVE_OPERAND_PRED && wave_if_cond(iff).value == 2);
  cr_assert(wave_node_origin(loop, WAVE_LINE_LOOP).loc.line == 7 &&
            wave_node_origin(loop, WAVE_LINE_ENDLOOP).loc.line == 7);
  cr_assert_eq(wave_instr_guard(i10), WAVE_NO_GUARD);

  wave_builder stuck = wave_builder_at(t.m, wave_cursor_after_node(wave_loop_create(t.m)), loc);
  cr_assert_null(wave_build(&stuck, WAVE_OP_MOV_IMM, wave_gpr(1), wave_imm(13)));
  cr_assert_null(wave_build_if(&stuck, wave_pred(1)));
  tu_assert_shape(t.body, "[1 10] if{[11]}{} [12] loop{[break barrier]} [2]");
  wave_module_destroy(t.m);
}

/* ---- clones ------------------------------------------------------------------------------- */

/* Asserts that the two trees hold no node or instruction in common and equal instructions. */
static void assert_disjoint_copy(const wave_node_list *orig, const wave_node_list *copy) {
  wave_const_walker a, b;
  wave_const_walk_init(&a, orig);
  wave_const_walk_init(&b, copy);
  for (;;) {
    bool more = wave_const_walk_next(&a);
    cr_assert_eq(wave_const_walk_next(&b), more);
    if (!more)
      break;
    cr_assert_eq(a.event, b.event);
    cr_assert_neq(a.node, b.node, "a node is shared");
    if (a.event == WAVE_WALK_IF) {
      cr_assert_eq(wave_node_list_parent(wave_if_then(b.node)), b.node);
      cr_assert_eq(wave_node_list_parent(wave_if_else(b.node)), b.node);
      cr_assert_eq(wave_if_cond(a.node).value, wave_if_cond(b.node).value);
    }
    if (a.event != WAVE_WALK_BLOCK)
      continue;
    const wave_instr *x = wave_block_first(a.node), *y = wave_block_first(b.node);
    for (; x && y; x = wave_instr_next(x), y = wave_instr_next(y)) {
      cr_assert_neq(x, y, "an instruction is shared");
      cr_assert_eq(wave_instr_node(y), b.node);
      cr_assert(wave_instr_op(x) == wave_instr_op(y) &&
                wave_instr_num_operands(x) == wave_instr_num_operands(y));
      for (unsigned k = 0; k < wave_instr_num_operands(x); k++) {
        wave_operand ox = wave_instr_operand(x, k), oy = wave_instr_operand(y, k);
        cr_assert(ox.kind == oy.kind && ox.half == oy.half && ox.negated == oy.negated &&
                  ox.imm_form == oy.imm_form && ox.value == oy.value && ox.label == oy.label &&
                  ox.col == oy.col);
      }
      cr_assert_eq(wave_instr_origin(x).comment, wave_instr_origin(y).comment);
    }
    cr_assert(!x && !y);
  }
}

Test(clone, a_list_and_a_node_with_everything_nested) {
  sample s = new_sample();
  tree *t = &s.t;
  tu_set_origin(wave_block_first(s.b3), wave_instr_loc(wave_block_first(s.b3)), NULL, "; three");
  wave_node_list *copy = wave_node_list_create(t->m);
  cr_assert_not_null(copy);
  cr_assert(wave_node_list_clone(t->m, t->body, copy));
  tu_assert_shape(copy, "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{} [6]");
  assert_disjoint_copy(t->body, copy);
  cr_assert_null(wave_node_list_parent(copy));

  wave_region *sub = wave_region_create(t->k, "sub");
  cr_assert_not_null(sub);
  cr_assert(wave_node_list_reinsert(t->m, wave_cursor_list_start(wave_region_body(sub)), copy));
  tu_assert_valid(t->k);
  tu_assert_shape(t->body, "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{} [6]");

  wave_node *n = wave_node_clone(t->m, s.outer_if);
  cr_assert_not_null(n);
  cr_assert_null(wave_node_list_of(n));
  cr_assert(wave_node_prev(n) == NULL && wave_node_next(n) == NULL);
  wave_node_list *holder = wave_node_list_create(t->m);
  cr_assert_not_null(holder);
  wave_node_list_append(holder, n);
  tu_assert_shape(holder, "if{[2] loop{[3]}}{[4] if{}{[5]}}");
  wave_node_remove(n);
  cr_assert(wave_node_insert(t->m, wave_cursor_list_end(BODY(s.empty_loop)), n));
  tu_assert_shape(t->body, "[1] if{[2] loop{[3]}}{[4] if{}{[5]}} loop{if{[2] loop{[3]}}{[4] "
                           "if{}{[5]}}} [6]");
  tu_assert_valid(t->k);

  wave_instr *orig = wave_block_first(s.b3);
  wave_instr *i = wave_instr_clone(t->m, orig);
  cr_assert(i && i != orig && !wave_instr_node(i) && !wave_instr_prev(i) && !wave_instr_next(i));
  cr_assert(wave_instr_op(i) == wave_instr_op(orig) && wave_instr_operand(i, 1).value == 3);
  cr_assert_str_eq(wave_instr_origin(i).comment, "; three");
  wave_module_destroy(t->m);
}

Test(clone, an_empty_list) {
  tree t = new_tree();
  wave_node_list *copy = wave_node_list_create(t.m);
  wave_node *stale = wave_block_create(t.m);
  cr_assert(copy && stale);
  wave_node_list_append(copy, stale); /* what clone must forget, not keep */
  cr_assert(wave_node_list_clone(t.m, t.body, copy));
  cr_assert(wave_node_list_first(copy) == NULL && wave_node_list_last(copy) == NULL);
  wave_module_destroy(t.m);
}

/* ---- compaction --------------------------------------------------------------------------- */

/* The module's instructions in text order, with the kernel and region holding each. */
typedef struct code_map {
  const wave_instr **instrs;
  size_t count;
} code_map;

static code_map map_code(wave_module *m) {
  code_map map = {NULL, 0};
  size_t cap = 0;
  wave_foreach_kernel(k, m) {
    wave_foreach_block(b, k) {
      wave_foreach_instr(in, b) {
        if (map.count == cap) {
          cap = cap ? 2 * cap : 64;
          map.instrs = realloc(map.instrs, cap * sizeof(*map.instrs));
          cr_assert_not_null(map.instrs);
        }
        map.instrs[map.count++] = in;
      }
    }
  }
  return map;
}

/* Compacts every corpus module: its text, kernels and regions stay, every instruction is a new
 * one (addresses are only compared, never read: the old memory is gone), the copies are laid
 * out in text order, and the counters start again from the copies. */
Test(compact, corpus_text_kernels_and_regions_stay_code_moves) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  cr_assert_gt(n, 0);
  for (size_t f = 0; f < n; f++) {
    const char *path = files[f].name;
    wave_module *m = tu_parse_corpus(path);
    /* The documentation dialect prints every form the corpus holds. */
    const wave_print_options docs = {.dialect = WAVE_DIALECT_DOCS};
    char *before = wave_print_to_string(m, &docs, NULL);
    cr_assert_not_null(before, "%s", path);
    const wave_kernel *first_kernel = wave_module_first_kernel(m);
    const wave_region *first_region = wave_kernel_first_region(first_kernel);
    code_map old = map_code(m);
    cr_assert_eq(m->instrs_made, old.count, "%s", path);
    cr_assert(wave_module_compact(m), "%s", path);
    code_map fresh = map_code(m);
    char *after = wave_print_to_string(m, &docs, NULL);
    cr_assert(after && strcmp(before, after) == 0, "%s", path);
    cr_assert(wave_module_first_kernel(m) == first_kernel &&
              wave_kernel_first_region(first_kernel) == first_region);
    cr_assert_eq(fresh.count, old.count, "%s", path);
    for (size_t i = 0; i < fresh.count; i++) {
      cr_assert_neq(fresh.instrs[i], old.instrs[i], "%s: instruction %zu stayed", path, i);
      if (i > 0 &&
          wave_region_kernel(
              wave_node_list_region(wave_node_list_of(wave_instr_node(fresh.instrs[i])))) ==
              wave_node_list_region(wave_node_list_of(wave_instr_node(fresh.instrs[i - 1])))
                  ->kernel)
        cr_assert_gt((uintptr_t)fresh.instrs[i], (uintptr_t)fresh.instrs[i - 1],
                     "%s: instruction %zu lies before the one before it", path, i);
    }
    cr_assert(m->instrs_made == fresh.count && m->instrs_removed == 0, "%s", path);
    wave_foreach_kernel(k, m) tu_assert_valid(k);
    wave_diags d;
    wave_diags_init(&d);
    cr_assert(wave_verify_module(m, &d), "%s", path);
    wave_diags_free(&d);
    free(old.instrs);
    free(fresh.instrs);
    free(before);
    free(after);
    wave_module_destroy(m);
  }
}

Test(compact, pays_once_a_quarter_of_the_code_is_removed) {
  wave_module *m = tu_parse_ok(".kernel k\n    mov_imm r1, 1\n    mov_imm r2, 2\n"
                               "    mov_imm r3, 3\n    mov_imm r4, 4\n    mov_imm r5, 5\n"
                               "    halt\n.end\n", "pays.wave", false);
  cr_assert_eq(m->instrs_made, 6);
  cr_assert_not(wave_module_compact_pays(m));
  wave_node *block =
      wave_node_list_first(wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))));
  wave_instr_remove(wave_block_first(block));
  cr_assert_eq(m->instrs_removed, 1);
  cr_assert_not(wave_module_compact_pays(m));
  wave_instr_remove(wave_block_first(block));
  cr_assert(wave_module_compact_pays(m));
  cr_assert(wave_module_compact(m));
  cr_assert(m->instrs_made == 4 && m->instrs_removed == 0);
  cr_assert_not(wave_module_compact_pays(m));
  char *text = wave_print_to_string(m, NULL, NULL);
  cr_assert_str_eq(text, ".kernel k\n    mov_imm r3, 3\n    mov_imm r4, 4\n    mov_imm r5, 5\n"
                         "    halt\n.end\n");
  free(text);
  wave_module_destroy(m);
}

/* Cloning walks by links: a nest 100 000 deep compacts without recursion. */
Test(compact, nesting_100000_deep_does_not_recurse) {
  enum { DEPTH = 100000 };
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  for (unsigned d = 0; d < DEPTH; d++) {
    cr_assert_not_null(wave_build_instr(&b, WAVE_OP_MOV_IMM, 2,
                                        (wave_operand[]){wave_gpr(1), wave_imm(d)}));
    cr_assert_not_null(wave_build_if(&b, wave_pred(1)));
  }
  cr_assert(wave_module_compact(m));
  cr_assert_eq(m->instrs_made, DEPTH);
  tu_assert_valid(k);
  wave_module_destroy(m);
}
