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
