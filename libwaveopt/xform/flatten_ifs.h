/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Flattening one if with the if inside it into a single if on a combined predicate, one
 * divergence-stack frame less: the rewrite of the flatten-ifs pass, for other passes to call
 * (bound-depth). passes/flatten_ifs.c tells the two shapes, the rules and why they are safe.
 *
 *   wave_flatten f;
 *   wave_flatten_init(&f, kernel, target, liveness, wave_xform_kernel_taken(kernel), comments,
 *                     max_registers, max_hoist);
 *   ... wave_flatten_if(&f, node, &outcome) for each if, outer ones before inner ones ...
 *   wave_comment_moves_apply(comments);
 *
 * Visiting the ifs in text order collapses chains: the surviving inner if is the next one.
 * After an or-form rewrite the outer then-side is gone, with the outcome.ifs_removed ifs in it,
 * which are the next ones in text order: skip them. Nothing else is detached.
 *
 * Liveness: one result, computed before the first rewrite, serves every later one. Each
 * rewrite keeps the stale-liveness rule of xform/xform.h, and the only register it makes live
 * where the result says dead is the combined predicate, between the code that forms it and
 * the if that reads it; the rewrite treats the predicates of both ifs as taken whatever the
 * result says, so a later rewrite of the surviving if asks only sound questions. A caller
 * whose own rewrites break the rule must recompute liveness before calling again.
 */
#ifndef WAVE_XFORM_FLATTEN_IFS_H
#define WAVE_XFORM_FLATTEN_IFS_H

#include <stdbool.h>
#include <stddef.h>

#include "xform/comments.h"
#include "xform/xform.h"

/* What the rewrites of one kernel share; wave_flatten_init fills it. */
typedef struct wave_flatten {
  wave_kernel *kernel;
  const wave_target *target;
  const wave_liveness *liveness;
  wave_comment_moves *comments;  /* the comments of the removed if, else and endif lines */
  uint32_t max_registers;        /* .registers may grow up to this (wave_pass_max_registers) */
  unsigned max_hoist;            /* instructions that may move onto lanes that did not run them */
  /* Taken by every rewrite: with a call in the kernel, every register it mentions; with a
   * negated predicate operand left to lower, every predicate it does not mention. */
  wave_regset shared;
  wave_regset other_lanes;       /* registers some instruction reads from other lanes */
  /* A measured profile of the kernel (wave_pass_profile), or NULL (wave_flatten_init's
   * default): with one, an and-form whose inner if was never reached is refused. */
  const struct wave_profile_kernel *profile;
} wave_flatten;

/* kernel_taken: wave_xform_kernel_taken(kernel), which the caller may share with other
 * rewrites of the same round. */
void wave_flatten_init(wave_flatten *f, wave_kernel *kernel, const wave_target *target,
                       const wave_liveness *liveness, wave_regset kernel_taken,
                       wave_comment_moves *comments, uint32_t max_registers,
                       unsigned max_hoist);

typedef enum wave_flatten_status {
  WAVE_FLATTEN_DONE,        /* the outer if is gone; the inner one stands in its place */
  WAVE_FLATTEN_NO_SHAPE,    /* no if inside it to flatten with: nothing to say */
  WAVE_FLATTEN_REFUSED,     /* the shape is there but the rewrite is not safe: `why` says */
  WAVE_FLATTEN_NO_MEMORY,   /* the kernel still runs as before; extra dead code may be left */
} wave_flatten_status;

typedef struct wave_flatten_outcome {
  wave_node *inner;         /* DONE, REFUSED: the if inside; DONE: now on the combined predicate */
  bool or_form;             /* the inner if was in the else-side (the or-form) */
  unsigned hoisted;         /* DONE: instructions that now run on lanes that did not run them */
  size_t ifs_removed;       /* DONE: ifs that went with the duplicate then-side (or-form) */
  char what[256];           /* DONE: "p2 = p1 and p2" */
  char why[224];            /* REFUSED: the reason, naming the construct and its line:col */
} wave_flatten_outcome;

/* The checks of wave_flatten_if that need no liveness: NO_SHAPE or REFUSED as it would
 * answer, else DONE (the shape is there; whether the rewrite is safe is still open). A caller
 * may ask it first and compute liveness only for an if of the shape. */
wave_flatten_status wave_flatten_shape(wave_node *outer, wave_flatten_outcome *out);

/* Flattens `outer` (an if) with the if inside it, in either form, if that is safe. */
wave_flatten_status wave_flatten_if(const wave_flatten *f, wave_node *outer,
                                    wave_flatten_outcome *out);

#endif
