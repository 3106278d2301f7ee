/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exits that leave through per-lane flags instead of `continue`, a `break` nested in an `if`,
 * and `halt` or `return` inside a region, for targets that run those wrongly
 * (docs/toolchain.md "Continue", "Break inside an if", "Halt and return inside regions").
 * Legalize calls it for each if or loop at the top level of a region; the story of the
 * rewrite, and why it is safe, opens exit_flags.c.
 *
 *                                     mov_imm rZ, 0 ; mov_imm rO, 1 ; mov_imm rK, 0
 *   loop                              loop
 *     A                                 mov_imm rK, 0
 *     if p1                             A
 *       B ; continue p2 ; C      ->     if p1
 *     endif                               B ; select rK, p2, rO, rK
 *     D                                   icmp_eq p3, rK, rZ ; if p3  C  endif
 *   endloop                             endif
 *                                       icmp_eq p3, rK, rZ ; if p3  D  endif
 *                                     endloop
 *
 * a break nested in an if sets rK and a break flag rB (its predicate's number + 1), tested by a
 * break right after the part of the loop body that holds it; and a halt or return inside the
 * node sets rK and (where a loop is around it) a done flag rD
 * as well: each loop around breaks on rD right after the part that holds the exit, and at the
 * region's top level `@p3 halt` on rK ends those lanes for good (in a subroutine, the code up
 * to the subroutine's return runs under rK == 0 instead).
 */
#ifndef WAVE_XFORM_EXIT_FLAGS_H
#define WAVE_XFORM_EXIT_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/code.h"
#include "waveopt/edit.h"
#include "waveopt/liveness.h"
#include "waveopt/regset.h"
#include "waveopt/target.h"

typedef struct wave_exit_flags_env {
  const wave_target *target;
  const wave_liveness *liveness;  /* of the kernel before this run's first rewrite */
  /* Registers no rewrite takes: wave_xform_kernel_taken of the kernel. Where the kernel has a
   * call (has_call), each rewrite adds the scratch it takes, since a subroutine shares its
   * caller's registers and the flags of one node may live across a call. */
  wave_regset *reserved;
  bool has_call;
  uint32_t max_registers;         /* .registers may grow up to this (wave_pass_max_registers) */
  uint32_t max_depth;             /* divergence-stack frames allowed; 0: no limit */
  bool continues;                 /* rewrite every continue */
  bool halts;                     /* rewrite halt and return inside ifs and loops */
  bool breaks;                    /* rewrite breaks nested in ifs */
  /* Called once for each exit rewritten (its opcode and place), before it is removed. */
  void (*rewritten)(void *arg, const wave_instr *exit);
  void *arg;
} wave_exit_flags_env;

typedef enum wave_exit_flags_status {
  WAVE_EXIT_FLAGS_DONE,
  WAVE_EXIT_FLAGS_NONE,       /* nothing to rewrite in the node */
  WAVE_EXIT_FLAGS_REFUSED,    /* left as it is, unchanged: `what` says why */
  WAVE_EXIT_FLAGS_FAILED,     /* cannot be done (scratch, depth): `what` says why; when the
                               * depth limit is what failed, the node is already rewritten */
  WAVE_EXIT_FLAGS_NO_MEMORY,
} wave_exit_flags_status;

typedef struct wave_exit_flags_result {
  wave_loc loc;     /* REFUSED, FAILED: the construct the message names */
  char what[224];   /* REFUSED, FAILED: the message, naming the construct and its line:col */
} wave_exit_flags_result;

/* Whether `top`, an if or loop at the top level of its region, holds an exit that env's
 * continues, halts and breaks ask to rewrite: whether wave_exit_flags_lower has anything to do
 * there. It reads neither env's liveness nor its reserved registers, so a caller can ask
 * before computing them. */
bool wave_exit_flags_wanted(const wave_exit_flags_env *env, const wave_node *top);

/* Rewrites the exits inside `top`, an if or loop at the top level of its region. Everything is
 * decided (scratch, predicates) before the first edit, so REFUSED and a missing register leave
 * the kernel as it was. The tree may leave normal form (adjacent blocks): the caller runs
 * wave_normalize_kernel once after its last rewrite. */
wave_exit_flags_status wave_exit_flags_lower(const wave_exit_flags_env *env, wave_node *top,
                                             wave_exit_flags_result *result);

#endif
