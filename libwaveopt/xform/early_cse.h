/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rewrite of the early-cse pass on one region, for passes that want it on a region of
 * their own choosing: reads of a register that holds the value another register already holds
 * are redirected to that one, and instructions that write a register with the value it already
 * holds are removed, under the rules of passes/early_cse.c.
 */
#ifndef WAVE_XFORM_EARLY_CSE_H
#define WAVE_XFORM_EARLY_CSE_H

#include <stdbool.h>

#include "waveopt/pass.h"

/* Rewrites `region`, with a passed remark per rewrite and a missed one for each instruction
 * that repeats an earlier one but may not take its value, and adds the reads redirected and
 * the instructions removed to *rewrites. Clears *settled when a second run could find more:
 * it removed the last write of a register inside a loop, and a loop's body is judged by the
 * writes it held when the walk entered it (a register it no longer writes keeps its value
 * across the loop). The region is left in normal form. False when memory ran out: the region
 * is then unchanged or correct with part of the rewrites done. */
bool wave_early_cse_region(wave_region *region, wave_pass_context *ctx, unsigned *rewrites,
                           bool *settled);

#endif
