/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state of the verifier's one walk, beneath both checkers. verify.c walks every region once
 * and reports errors (what makes a module meaningless); verify_toolchain.c is called from that
 * same walk and reports warnings about constructs the real toolchain mishandles
 * (docs/toolchain.md), including the reachability walk that finds kernels able to run past their
 * end. The checkers share this state, not each other's functions.
 */
#ifndef WAVE_VERIFY_STATE_H
#define WAVE_VERIFY_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/code.h"
#include "waveopt/waveopt.h"


#define WAVE_VERIFY_NONE ((size_t)-1)

/* One open if or loop of the reachability walk. */
typedef struct wave_verify_frame {
  size_t outer_loop;     /* frame index of the enclosing loop, or WAVE_VERIFY_NONE */
  bool entry_reachable;  /* reachable at the `if` / `loop` */
  bool then_reachable;   /* if: the end of the then-list is reachable */
  bool has_break;        /* loop: its own body holds a break */
} wave_verify_frame;

typedef struct wave_verify {
  const wave_module *module;
  wave_diags *diags;
  bool out_of_memory;

  /* The kernel being verified and its regions, in source order. */
  const wave_kernel *kernel;
  wave_label_table labels;
  size_t region_index;     /* the region being walked */
  bool *called;            /* a `call` names this region */
  bool *falls_through;     /* the region's end is reachable when its start is */

  unsigned loop_depth;     /* loops around the current statement, within its region */

  /* Reachability (verify_toolchain.c). */
  wave_verify_frame *frames;
  size_t num_frames, frame_capacity;
  size_t loop_frame;       /* innermost open loop frame, or WAVE_VERIFY_NONE */
  bool reachable;
  bool nesting_warned;     /* the 32-frame warning is given once per kernel */
} wave_verify;

/* Where a diagnostic about an operand goes: its own column when the parser recorded one. */
static inline wave_loc wave_verify_operand_loc(wave_loc statement, const wave_operand *o) {
  wave_loc loc = statement;
  if (o->col)
    loc.col = o->col;
  return loc;
}

/* Warnings about the kernel's directives; called before its regions are walked. */
void wave_verify_toolchain_kernel_begin(wave_verify *v);
/* Starts the reachability walk of region v->region_index, assuming its start is reachable. */
void wave_verify_toolchain_region_begin(wave_verify *v);
/* An if/else/endif/loop/endloop event of the region walk. */
void wave_verify_toolchain_event(wave_verify *v, const wave_walker *walker);
/* Every instruction, well-formed or not: it only updates reachability. */
void wave_verify_toolchain_flow(wave_verify *v, const wave_instr *instr);
/* Warnings about one instruction that passed every error check; block holds it. */
void wave_verify_toolchain_instr(wave_verify *v, const wave_node *block, const wave_instr *instr);
void wave_verify_toolchain_region_end(wave_verify *v);
/* Decides whether the kernel can run past its end; needs every region's falls_through and the
 * call targets, so it runs after the last region. */
void wave_verify_toolchain_kernel_end(wave_verify *v);


#endif
