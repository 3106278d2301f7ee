/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The two rewrites of the predicated-break pass (passes/predicated_break.c, whose opening
 * comment says why each is safe), one if at a time, for any pass that wants them: bound-depth
 * and the emulator legalization turn `if pA { break pB }` into a break outside the if with
 * wave_exit_if_hoist.
 *
 *   wave_exit_if_hoist         if pA { S; break pB; T }  ->  @pA S; pD = pA and pB; break pD;
 *                                                           @pA T
 *                              (continue alike; the else-side with !pA)
 *   wave_trailing_if_continue  loop { ...; if pA { S } }     ->  loop { ...; continue !pA; S }
 *                              (only where the target runs continue)
 *
 * Both keep the stale-liveness rule of xform/xform.h, so one liveness result, computed before
 * the first rewrite, serves every rewrite of a pass run. Neither touches anything outside the
 * if and the block right before it (where a compare may be inverted).
 */
#ifndef WAVE_XFORM_PREDICATED_BREAK_H
#define WAVE_XFORM_PREDICATED_BREAK_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/code.h"
#include "waveopt/edit.h"
#include "waveopt/liveness.h"
#include "waveopt/regset.h"
#include "waveopt/target.h"

typedef struct wave_exit_if_env {
  const wave_target *target;
  const wave_liveness *liveness;   /* of the kernel before this run's first rewrite */
  uint32_t max_registers;          /* .registers may grow up to this (wave_pass_max_registers) */
  /* Registers no rewrite takes as scratch. In a kernel with a call, every register some region
   * mentions: subroutines share their caller's registers (as wave_xform_taken says). While
   * negated predicate operands wait for the documentation-dialect lowering, the predicate it
   * will use: the lowest one the kernel never mentions. */
  wave_regset reserved;
} wave_exit_if_env;

/* Fills env for rewrites in a kernel; kernel_taken is wave_xform_kernel_taken of it, asked
 * once for all the rewrites (a kernel-wide question per rewrite would make a pass
 * quadratic). */
void wave_exit_if_env_init(wave_exit_if_env *env, const wave_target *target,
                           const wave_liveness *liveness, wave_regset kernel_taken,
                           uint32_t max_registers);

typedef enum wave_exit_if_status {
  WAVE_EXIT_IF_DONE,
  WAVE_EXIT_IF_NOT_SHAPE,   /* not the shape the rewrite handles: nothing to say */
  WAVE_EXIT_IF_REFUSED,     /* the shape, but the rewrite is unsafe or impossible: see why */
  WAVE_EXIT_IF_NO_MEMORY,   /* the if may hold dead scratch writes; the caller fails */
} wave_exit_if_status;

typedef struct wave_exit_if_result {
  wave_exit_if_status status;
  const wave_instr *exit;      /* the break or continue: moved (DONE), or the one refused */
  const wave_instr *inverted;  /* DONE: the compare turned into its negation, else NULL */
  /* DONE: the condition of the break or continue, e.g. "p3 = p1 and p2"; REFUSED: why, a
   * phrase to follow "not converted: ". A compare that could not be inverted where a negation
   * was needed is named in `note` (empty otherwise), e.g. for a missed remark. */
  char what[192];
  char note[192];
  const wave_instr *note_at;
} wave_exit_if_result;

/* `if pA { S; break pB; T }` with the else-side empty, or the mirror image, anywhere inside a
 * loop: S and T go under the if's guard, the break reads pA and pB combined, and all of it
 * takes the if's place. Refused when S or T holds what cannot take a guard on the target
 * (memory on portable, convergent ops, exits, guarded code), when control flow or a second
 * break sits beside the break, and when no predicate or too few scratch registers are free. */
wave_exit_if_status wave_exit_if_hoist(const wave_exit_if_env *env, wave_node *if_node,
                                       wave_exit_if_result *result);

/* `if pA { S }` (or only an else-side) ending a loop body: a continue for the lanes that skip
 * S, then S one level up. Refused where the target does not run continue, and when no
 * predicate or too few scratch registers are free for the negated condition. */
wave_exit_if_status wave_trailing_if_continue(const wave_exit_if_env *env, wave_node *if_node,
                                              wave_exit_if_result *result);

#endif
