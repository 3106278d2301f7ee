/* SPDX-License-Identifier: Apache-2.0 */
/* Calls replaced by the subroutines they name (inline_calls.c says when and why). */
#ifndef WAVE_XFORM_INLINE_CALLS_H
#define WAVE_XFORM_INLINE_CALLS_H

#include <stdbool.h>

#include "waveopt/pass.h"

/* How many times its own size the copies may add to a kernel. */
#define WAVE_INLINE_GROWTH 8

/* When legalize inlines: before its other rewrites, which then apply to the copies too, and
 * after them, for the subroutines those made inlinable (a return inside an if rewritten into
 * a flag). */
typedef enum wave_inline_round {
  WAVE_INLINE_FIRST, /* says nothing of the calls it keeps: the last round will */
  WAVE_INLINE_LAST,  /* keeps calls to subroutines that halt (the rewrites of a halt in an if
                      * are done by then) and says why it keeps each call */
} wave_inline_round;

/* Inlines every call of the kernel that can be in this round, with a passed remark for each;
 * *changed is set when one was inlined. False when memory ran out: the calls inlined so far
 * stay inlined, each whole, and the kernel is valid. */
bool wave_inline_calls(wave_kernel *kernel, wave_pass_context *ctx, wave_inline_round round,
                       bool *changed);

#endif
