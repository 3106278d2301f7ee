/* SPDX-License-Identifier: Apache-2.0 */
/* The flat layout of a kernel (ir/layout.h): one walk of the region tree, no recursion. */
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "ir/layout.h"
#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/waveopt.h"

typedef struct builder {
  wave_layout *l;
  size_t cap_items, cap_regs;
  bool failed;
} builder;

static wave_layout_item *add(builder *b, wave_layout_kind kind, const void *what,
                             unsigned depth) {
  wave_layout *l = b->l;
  if (l->num_items == b->cap_items && !wave_grow(l->allocator, (void **)&l->items, &b->cap_items,
                                                 l->num_items + 1, sizeof(*l->items))) {
    b->failed = true;
    return NULL;
  }
  wave_layout_item *item = &l->items[l->num_items++];
  l->count[kind]++;
  *item = (wave_layout_item){.what = what, .depth = depth, .kind = (uint8_t)kind,
                             .guard = WAVE_NO_GUARD};
  return item;
}

static void add_instr(builder *b, const wave_instr *instr, unsigned depth) {
  wave_layout *l = b->l;
  wave_layout_item *item = add(b, WAVE_LAYOUT_INSTR, instr, depth);
  size_t need = l->num_regs + 2 * WAVE_MAX_INSTR_REGS;
  if (!item || (need > b->cap_regs && !wave_grow(l->allocator, (void **)&l->regs, &b->cap_regs,
                                                 need, sizeof(*l->regs)))) {
    b->failed = true;
    return;
  }
  item->op = wave_instr_op(instr);
  item->guard = wave_instr_guard(instr);
  item->regs = (uint32_t)l->num_regs;
  uint16_t defs[WAVE_MAX_INSTR_REGS];
  unsigned num_uses, num_defs;
  wave_instr_reg_lists(instr, &l->regs[l->num_regs], &num_uses, defs, &num_defs);
  for (unsigned i = 0; i < num_defs; i++)
    l->regs[l->num_regs + num_uses + i] = defs[i];
  l->num_regs += num_uses + num_defs;
  item->num_uses = (uint8_t)num_uses;
  item->num_defs = (uint8_t)num_defs;
  if ((wave_instr_op(instr) == WAVE_OP_BREAK || wave_instr_op(instr) == WAVE_OP_CONTINUE) &&
      wave_instr_num_operands(instr))
    item->branch_pred = (uint8_t)(wave_instr_operand(instr, 0).value < WAVE_LAYOUT_LARGE_PRED
                                      ? wave_instr_operand(instr, 0).value
                                      : WAVE_LAYOUT_LARGE_PRED);
  for (unsigned i = 0; i < wave_instr_num_operands(instr); i++) {
    wave_operand o = wave_instr_operand(instr, i);
    if (o.kind == WAVE_OPERAND_SREG && o.value < 8 &&
        wave_opcode_reads_sreg(wave_instr_op(instr), i))
      item->low_sregs |= (uint8_t)(1u << o.value);
  }
}

static void add_region(builder *b, const wave_region *region) {
  wave_const_walker w;
  wave_const_walk_init(&w, &region->body);
  while (!b->failed && wave_const_walk_next(&w)) {
    const wave_node *n = w.node;
    wave_layout_item *item;
    switch (w.event) {
    case WAVE_WALK_BLOCK:
      if (add(b, WAVE_LAYOUT_BLOCK, n, w.depth)) {
        size_t first = b->l->num_items;
        wave_foreach_instr(instr, n) add_instr(b, instr, w.depth);
        /* add may have moved the items. */
        b->l->items[first - 1].count = (uint32_t)(b->l->num_items - first);
      }
      break;
    case WAVE_WALK_IF:
      if ((item = add(b, WAVE_LAYOUT_IF, n, w.depth)) != NULL)
        item->pred = wave_if_cond(n).value;
      break;
    case WAVE_WALK_ELSE:
      add(b, WAVE_LAYOUT_ELSE, n, w.depth);
      break;
    case WAVE_WALK_ENDIF:
      add(b, WAVE_LAYOUT_ENDIF, n, w.depth);
      break;
    case WAVE_WALK_LOOP:
      add(b, WAVE_LAYOUT_LOOP, n, w.depth);
      break;
    case WAVE_WALK_ENDLOOP:
      add(b, WAVE_LAYOUT_ENDLOOP, n, w.depth);
      break;
    }
  }
  add(b, WAVE_LAYOUT_END_REGION, region, 0);
}

/* The registers add_instr lists for the instruction, or more: the guard and, when guarded,
 * its writes again among the uses (wave_instr_reg_lists). */
static size_t regs_at_most(const wave_instr *instr) {
  if (instr->num_reads == WAVE_CODE_UNDECODED)
    return 2 * WAVE_MAX_INSTR_REGS;
  size_t n = (size_t)instr->num_reads + instr->num_writes;
  return instr->guard == WAVE_NO_GUARD ? n : n + 1 + instr->num_writes;
}

/* The size of the kernel's layout, counted by a walk that reads only instruction headers. A
 * kernel's first layout has no earlier size to start from, and doubling its arrays would cost
 * the copies and the free heap they leave: -passes=lint's peak RSS on the random stored 1M
 * kernel 169 -> 125 MB. */
static wave_layout_size count(const wave_kernel *kernel) {
  wave_layout_size size = {0, 0};
  for (const wave_region *r = kernel->first_region; r; r = r->next) {
    wave_const_walker w;
    wave_const_walk_init(&w, &r->body);
    size.items++; /* its END_REGION */
    while (wave_const_walk_next(&w)) {
      size.items++;
      if (w.event == WAVE_WALK_BLOCK) {
        wave_foreach_instr(instr, w.node) {
          size.items++;
          size.regs += regs_at_most(instr);
        }
      }
    }
  }
  return size;
}

wave_layout *wave_layout_build(const wave_kernel *kernel, const wave_layout_size *expect) {
  const wave_allocator *allocator = kernel->module->allocator;
  wave_layout *l = wave_mem_calloc(allocator, 1, sizeof(*l));
  if (!l)
    return NULL;
  l->kernel = kernel;
  l->allocator = allocator;
  builder b = {.l = l};
  wave_layout_size counted;
  if (!expect) {
    counted = count(kernel);
    expect = &counted;
  }
  /* Room for one more instruction's registers than expected, which add_instr asks for. */
  if (!wave_alloc_array(allocator, (void **)&l->items, &b.cap_items, expect->items + 1,
                        sizeof(*l->items)) ||
      !wave_alloc_array(allocator, (void **)&l->regs, &b.cap_regs,
                        expect->regs + 2 * WAVE_MAX_INSTR_REGS, sizeof(*l->regs)))
    b.failed = true;
  for (const wave_region *r = kernel->first_region; r && !b.failed; r = r->next)
    add_region(&b, r);
  if (b.failed) {
    wave_layout_destroy(l);
    return NULL;
  }
  return l;
}

void wave_layout_destroy(wave_layout *layout) {
  if (!layout)
    return;
  wave_mem_free(layout->allocator, layout->items);
  wave_mem_free(layout->allocator, layout->regs);
  wave_mem_free(layout->allocator, layout);
}
