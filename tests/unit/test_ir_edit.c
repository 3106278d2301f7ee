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
