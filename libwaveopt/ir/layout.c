/* SPDX-License-Identifier: Apache-2.0 */
/* The flat layout of a kernel (ir/layout.h): one walk of the region tree, no recursion. */
#include <stdlib.h>

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
  if (!wave_grow((void **)&l->items, &b->cap_items, l->num_items + 1, sizeof(*l->items))) {
    b->failed = true;
    return NULL;
  }
  wave_layout_item *item = &l->items[l->num_items++];
  *item = (wave_layout_item){.what = what, .depth = depth, .kind = (uint8_t)kind,
                             .guard = WAVE_NO_GUARD};
  return item;
}

/* Appends the members of s, ascending; their number. */
static uint8_t add_regs(builder *b, wave_regset s) {
  wave_layout *l = b->l;
  size_t first = l->num_regs;
  for (unsigned k = 0; k < WAVE_REGSET_WORDS; k++)
    for (uint64_t m = s.words[k]; m; m &= m - 1)
      l->regs[l->num_regs++] = (uint16_t)(k * 64 + (unsigned)__builtin_ctzll(m));
  return (uint8_t)(l->num_regs - first);
}

static void add_instr(builder *b, const wave_instr *instr, unsigned depth) {
  wave_layout *l = b->l;
  /* One instruction names a few dozen registers at most; room for every one keeps the
   * appends below free of checks. */
  wave_layout_item *item = add(b, WAVE_LAYOUT_INSTR, instr, depth);
  if (!item || !wave_grow((void **)&l->regs, &b->cap_regs, l->num_regs + 2 * WAVE_NUM_REGS,
                          sizeof(*l->regs))) {
    b->failed = true;
    return;
  }
  item->op = instr->op;
  item->guard = instr->guard;
  item->regs = (uint32_t)l->num_regs;
  wave_regset uses, defs;
  wave_instr_uses_defs(instr, &uses, &defs);
  item->num_uses = add_regs(b, uses);
  item->num_defs = add_regs(b, defs);
  l->num_instrs++;
}

static void add_region(builder *b, const wave_region *region) {
  wave_const_walker w;
  wave_const_walk_init(&w, &region->body);
  while (!b->failed && wave_const_walk_next(&w)) {
    const wave_node *n = w.node;
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
      add(b, WAVE_LAYOUT_IF, n, w.depth);
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

wave_layout *wave_layout_build(const wave_kernel *kernel) {
  wave_layout *l = calloc(1, sizeof(*l));
  if (!l)
    return NULL;
  l->kernel = kernel;
  builder b = {.l = l};
  for (const wave_region *r = kernel->first_region; r && !b.failed; r = r->next) {
    add_region(&b, r);
    l->num_regions++;
  }
  if (b.failed) {
    wave_layout_destroy(l);
    return NULL;
  }
  return l;
}

void wave_layout_destroy(wave_layout *layout) {
  if (!layout)
    return;
  free(layout->items);
  free(layout->regs);
  free(layout);
}
