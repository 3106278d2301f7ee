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

#include "test_util.h"
#include "waveopt/waveopt.h"

/* ---- regions of nested lists ----------------------------------------------------------------- */

/* loop A { if B { loop C { nop } } else { if D { } } }, built bottom-up and detached. */
typedef struct nest {
  wave_node *a, *b, *c, *d;
} nest;

static nest build_detached_nest(wave_module *m) {
  nest t = {wave_loop_create(m), wave_if_create(m, wave_pred(1)), wave_loop_create(m),
            wave_if_create(m, wave_pred(2))};
  cr_assert(t.a && t.b && t.c && t.d);
  tu_add(m, wave_node_list_tail_block(m, &t.c->u.loop.body), WAVE_OP_NOP, 0, NULL);
  wave_node_list_append(&t.b->u.if_.then_body, t.c);
  wave_node_list_append(&t.a->u.loop.body, t.b);
  /* One level attached after its parent was: the order of construction must not matter. */
  wave_node_list_append(&t.b->u.if_.else_body, t.d);
  return t;
}

static void assert_nest_region(const nest *t, const wave_region *r) {
  const wave_node_list *lists[] = {&t->a->u.loop.body,   &t->b->u.if_.then_body,
                                   &t->b->u.if_.else_body, &t->c->u.loop.body,
                                   &t->d->u.if_.then_body, &t->d->u.if_.else_body};
  for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
    cr_assert_eq(lists[i]->region, r, "list %zu names the wrong region", i);
}

Test(regions, detached_subtree_takes_the_region_it_is_inserted_into) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_region *sub = wave_region_create(k, "sub");
  cr_assert(k && sub);
  nest t = build_detached_nest(m);
  assert_nest_region(&t, NULL);
  wave_node_list_append(&k->first_region->body, t.a);
  assert_nest_region(&t, k->first_region);

  wave_node_remove(t.a);
  wave_node_list_prepend(&sub->body, t.a);
  assert_nest_region(&t, sub);
  cr_assert_eq(t.a->list, &sub->body);
  wave_module_destroy(m);
}

Test(regions, every_insertion_function_updates_the_subtree) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_region *sub = wave_region_create(k, "sub");
  cr_assert(k && sub);
  wave_node *anchor = wave_loop_create(m);
  wave_node_list_append(&sub->body, anchor);
  nest t = build_detached_nest(m);
  wave_node_insert_before(anchor, t.a);
  assert_nest_region(&t, sub);
  wave_node_remove(t.a);
  wave_node_list_append(&k->first_region->body, t.a);
  assert_nest_region(&t, k->first_region);
  wave_node_remove(t.a);
  wave_node_insert_after(anchor, t.a);
  assert_nest_region(&t, sub);
  cr_assert_eq(anchor->next, t.a);
  wave_module_destroy(m);
}

/* ---- walkers ----------------------------------------------------------------------------- */

/* block{nop}; if p1 { block{halt} } else { loop { block{break p2} } }; block{nop} */
static wave_kernel *build_sample(wave_module *m) {
  wave_kernel *k = wave_kernel_create(m, "k");
  cr_assert_not_null(k);
  wave_node_list *body = &k->first_region->body;
  tu_add(m, wave_node_list_tail_block(m, body), WAVE_OP_NOP, 0, NULL);
  wave_node *iff = wave_if_create(m, wave_pred(1));
  wave_node_list_append(body, iff);
  tu_add(m, wave_node_list_tail_block(m, &iff->u.if_.then_body), WAVE_OP_HALT, 0, NULL);
  wave_node *loop = wave_loop_create(m);
  wave_node_list_append(&iff->u.if_.else_body, loop);
  wave_operand p2 = wave_pred(2);
  tu_add(m, wave_node_list_tail_block(m, &loop->u.loop.body), WAVE_OP_BREAK, 1, &p2);
  tu_add(m, wave_node_list_tail_block(m, body), WAVE_OP_NOP, 0, NULL);
  return k;
}

Test(walkers, const_walker_reports_the_mutable_walkers_events) {
  wave_module *m = wave_module_create("t.wave");
  const wave_kernel *k = build_sample(m);
  static const wave_walk_event events[] = {
      WAVE_WALK_BLOCK, WAVE_WALK_IF,      WAVE_WALK_BLOCK, WAVE_WALK_ELSE, WAVE_WALK_LOOP,
      WAVE_WALK_BLOCK, WAVE_WALK_ENDLOOP, WAVE_WALK_ENDIF, WAVE_WALK_BLOCK};
  static const unsigned depths[] = {0, 0, 1, 0, 1, 2, 1, 0, 0};
  static const wave_opcode first_op[] = {WAVE_OP_NOP, 0, WAVE_OP_HALT, 0, 0, WAVE_OP_BREAK,
                                         0, 0, WAVE_OP_NOP};
  wave_const_walker w;
  wave_const_walk_init(&w, &k->first_region->body);
  unsigned n = 0;
  while (wave_const_walk_next(&w)) {
    cr_assert_lt(n, 9);
    cr_assert_eq(w.event, events[n], "event %u", n);
    cr_assert_eq(w.depth, depths[n], "depth %u", n);
    if (w.event == WAVE_WALK_BLOCK)
      cr_assert_eq(w.node->u.block.first->op, first_op[n], "block at event %u", n);
    n++;
  }
  cr_assert_eq(n, 9);
  cr_assert_not(wave_const_walk_next(&w), "the walk stays ended");
  wave_module_destroy(m);
}

Test(walkers, const_walker_on_an_empty_list_ends_at_once) {
  const wave_node_list empty = {0};
  wave_const_walker w;
  wave_const_walk_init(&w, &empty);
  cr_assert_not(wave_const_walk_next(&w));
  cr_assert_null(w.node);
}

/* ---- register sets --------------------------------------------------------------------------- */

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

/* ---- instruction facts ----------------------------------------------------------------------- */

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

/* ---- operand accessors ----------------------------------------------------------------------- */

static bool same_operand(const wave_operand *o, wave_operand expected) {
  return o && o->kind == expected.kind && o->value == expected.value;
}

Test(operands, destination_and_sources_by_role) {
  wave_module *m = wave_module_create(NULL);
  wave_instr *iadd = INSTR(m, WAVE_NO_GUARD, IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3));
  cr_assert_eq(wave_instr_num_operands(iadd), 3);
  cr_assert(same_operand(wave_instr_dest(iadd), wave_gpr(1)));
  cr_assert_eq(wave_instr_num_srcs(iadd), 2);
  cr_assert(same_operand(wave_instr_src(iadd, 0), wave_gpr(2)));
  cr_assert(same_operand(wave_instr_src(iadd, 1), wave_gpr(3)));
  cr_assert_null(wave_instr_src(iadd, 2));
  cr_assert_null(wave_instr_operand(iadd, 3));
  cr_assert(wave_instr_set_src(iadd, 1, wave_gpr(9)));
  cr_assert(same_operand(wave_instr_operand(iadd, 2), wave_gpr(9)));
  cr_assert_not(wave_instr_set_src(iadd, 2, wave_gpr(9)));
  cr_assert_not(wave_instr_set_operand(iadd, 3, wave_gpr(9)));
  cr_assert(wave_instr_set_dest(iadd, wave_gpr(7)));
  cr_assert_eq(iadd->operands[0].value, 7);

  wave_instr *st = INSTR(m, WAVE_NO_GUARD, DEVICE_STORE_U32, wave_gpr(5), wave_gpr(6));
  cr_assert_null(wave_instr_dest(st), "a store writes no register");
  cr_assert_not(wave_instr_set_dest(st, wave_gpr(1)));
  cr_assert_eq(wave_instr_num_srcs(st), 2);
  cr_assert(same_operand(wave_instr_src(st, 0), wave_gpr(5)), "the address comes first");

  wave_instr *atomic = INSTR(m, WAVE_NO_GUARD, ATOMIC_ADD, {0}, wave_gpr(1), wave_gpr(2),
                             wave_scope_operand(WAVE_SCOPE_DEVICE));
  cr_assert_null(wave_instr_dest(atomic), "the destination is omitted");
  cr_assert_eq(wave_instr_num_srcs(atomic), 3);
  cr_assert(same_operand(wave_instr_src(atomic, 2), wave_scope_operand(WAVE_SCOPE_DEVICE)));
  cr_assert(wave_instr_set_dest(atomic, wave_gpr(7)));
  cr_assert(same_operand(wave_instr_dest(atomic), wave_gpr(7)));

  wave_instr *cmp = INSTR(m, WAVE_NO_GUARD, ICMP_LT, wave_pred(1), wave_gpr(2), wave_gpr(3));
  cr_assert(same_operand(wave_instr_dest(cmp), wave_pred(1)));
  wave_instr *barrier = INSTR0(m, WAVE_NO_GUARD, BARRIER);
  cr_assert_null(wave_instr_dest(barrier));
  cr_assert_eq(wave_instr_num_srcs(barrier), 0);
  cr_assert_null(wave_instr_src(barrier, 0));

  wave_instr_set_guard(iadd, 2, true);
  cr_assert(iadd->guard == 2 && iadd->guard_negated);
  wave_instr_set_guard(iadd, WAVE_NO_GUARD, true);
  cr_assert(iadd->guard == WAVE_NO_GUARD && !iadd->guard_negated);
  wave_module_destroy(m);
}
