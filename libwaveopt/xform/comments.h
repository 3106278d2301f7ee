/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Comments of the lines a rewrite removes. Comments belong to instructions and to the
 * if/else/endif and loop/endloop lines (waveopt/edit.h), so a pass that dissolves an if loses
 * the comments of its three lines unless it moves them; these helpers move them, as whole-line
 * comments, before a line that stays.
 */
#ifndef WAVE_XFORM_COMMENTS_H
#define WAVE_XFORM_COMMENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "waveopt/edit.h"

/* The source line printed right after `node` within its region: the first instruction of the
 * next block, the next if or loop line, else the else, endif or endloop line of the parent, the
 * next region's label, or the kernel's .end. */
wave_src *wave_xform_line_after(wave_node *node);

/* Puts the comments of from[0..count) (their whole-line comments and their trailing ones, in
 * that order) as whole-line comments before the line `to`, ahead of its own. False when memory
 * ran out, with nothing changed. */
bool wave_xform_move_comments(wave_module *module, const wave_src *from, size_t count,
                              wave_src *to);

#endif
