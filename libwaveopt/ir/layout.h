/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A kernel laid out flat for the analyses: one item per statement in the order of
 * wave_const_walk, region after region, each instruction decoded there once (opcode, guard,
 * the registers wave_instr_uses_defs names, the predicate of a branch, the ids it reads), an
 * if's predicate beside it. The analyses all walk the whole kernel; walking
 * the region tree means a dependent cache miss per instruction (about 30 ns each on a
 * 1M-instruction kernel), and decoding means the opcode table's shapes again, so the five
 * together used to pay both five or six times. Built once per kernel and shared through the
 * analysis manager (wave_analysis_manager_layout), they pay once and read a dense array.
 *
 * The layout describes the kernel as it was when built and holds pointers into it: the
 * manager drops it whenever the kernel is invalidated, and no result keeps a pointer into it.
 */
#ifndef WAVE_IR_LAYOUT_H
#define WAVE_IR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "waveopt/ir.h"
#include "waveopt/regset.h"

typedef enum wave_layout_kind {
  WAVE_LAYOUT_INSTR,
  WAVE_LAYOUT_BLOCK,       /* a block; its instructions are the `count` items after it */
  WAVE_LAYOUT_IF,
  WAVE_LAYOUT_ELSE,        /* the then-list is done (also when the if has no else) */
  WAVE_LAYOUT_ENDIF,
  WAVE_LAYOUT_LOOP,
  WAVE_LAYOUT_ENDLOOP,
  WAVE_LAYOUT_END_REGION,  /* the region's body is done */
  WAVE_LAYOUT_KINDS
} wave_layout_kind;

typedef struct wave_layout_item {
  /* INSTR: the instruction; BLOCK, IF, ELSE, ENDIF, LOOP, ENDLOOP: the node (for the markers,
   * the if or loop they close); END_REGION: the region. */
  const void *what;
  union {
    uint32_t regs;         /* INSTR: where its registers start in the layout's regs: num_uses
                            * read (ascending), then num_defs written (ascending) */
    uint32_t count;        /* BLOCK: its instructions */
    uint32_t pred;         /* IF: its predicate's number (cond.value) */
  };
  uint32_t depth;          /* wave_const_walker's depth at the statement */
  uint16_t op;             /* INSTR: wave_opcode */
  uint8_t kind;            /* wave_layout_kind */
  int8_t guard;            /* INSTR: its guard's predicate or WAVE_NO_GUARD */
  uint8_t num_uses, num_defs;
  uint8_t low_sregs;       /* INSTR: bit s set when it reads special register s < 8 as itself
                            * (wave_opcode_reads_sreg): the thread, wave and lane ids */
  uint8_t branch_pred;     /* break, continue: their predicate operand's number, or
                            * WAVE_LAYOUT_LARGE_PRED when it is that or more (a malformed one:
                            * read the operand) */
} wave_layout_item;

#define WAVE_LAYOUT_LARGE_PRED 255

/* The predicate operand of a break or continue item. */
static inline uint32_t wave_layout_branch_pred(const wave_layout_item *item) {
  return item->branch_pred < WAVE_LAYOUT_LARGE_PRED
             ? item->branch_pred
             : wave_instr_operand(((const wave_instr *)item->what), 0).value;
}

typedef struct wave_layout {
  const wave_kernel *kernel;
  const wave_allocator *allocator; /* the kernel's module's, which the arrays come from */
  wave_layout_item *items;
  size_t num_items;
  uint16_t *regs;          /* register indices of waveopt/regset.h */
  size_t num_regs;
  /* Items of each kind (num_items in all): the analyses size their arrays from these once
   * rather than growing them, which on a large kernel copies and faults in every page again. */
  size_t count[WAVE_LAYOUT_KINDS];
} wave_layout;

/* How large a layout is expected to come out: the analysis manager remembers the size of a
 * kernel's last layout, and a fixpoint changes a kernel little from one build to the next. */
typedef struct wave_layout_size {
  size_t items, regs;
} wave_layout_size;

/* NULL when memory runs out. The arrays are allocated at once for `expect`, or without it for
 * the size a walk of the kernel counts first, and grow only beyond it: doubling a
 * million-item array copies it each time and leaves the smaller copies behind as free heap
 * that the process keeps (a third of what a layout of the random 1M kernel cost at its
 * peak). */
wave_layout *wave_layout_build(const wave_kernel *kernel, const wave_layout_size *expect);
static inline wave_layout_size wave_layout_size_of(const wave_layout *layout) {
  wave_layout_size size = {layout->num_items, layout->num_regs};
  return size;
}
void wave_layout_destroy(wave_layout *layout);

static inline const wave_instr *wave_layout_instr(const wave_layout_item *item) {
  return (const wave_instr *)item->what;
}
static inline const wave_node *wave_layout_node(const wave_layout_item *item) {
  return (const wave_node *)item->what;
}

/* An instruction's registers: num_uses it reads (wave_instr_uses), then num_defs it writes
 * (wave_instr_defs). */
static inline const uint16_t *wave_layout_uses(const wave_layout *layout,
                                               const wave_layout_item *item) {
  return &layout->regs[item->regs];
}
static inline const uint16_t *wave_layout_defs(const wave_layout *layout,
                                               const wave_layout_item *item) {
  return &layout->regs[item->regs + item->num_uses];
}

#endif
