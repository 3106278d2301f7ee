/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rewrite of the hoist-common pass for one if, for passes that want it on an if of their
 * own choosing: the identical instructions that start both of its sides move before it, and
 * those that end both sides move after it, under the rules of passes/hoist_common.c.
 */
#ifndef WAVE_XFORM_HOIST_COMMON_H
#define WAVE_XFORM_HOIST_COMMON_H

#include <stdbool.h>

#include "waveopt/pass.h"

/* Moves what may move out of the if `node`, with a passed remark per instruction moved and a
 * missed one for the first pair of same-opcode instructions that may not, and adds the count
 * to *moved. The sides may be left empty (simplify-cfg removes such ifs). False when memory
 * ran out: the kernel is then still correct, possibly with a block left empty. */
bool wave_hoist_common(wave_node *node, wave_pass_context *ctx, unsigned *moved);

#endif
