/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Keeping comments when a rewrite removes source lines. Comments belong to instructions and to
 * if/else/endif/loop/endloop lines (waveopt/edit.h), so a pass that drops such a line (an
 * emptied if, the endif and if between two merged ifs) would drop the user's words with it.
 * These helpers move them, as whole-line comments, before the line that now stands where the
 * removed one did.
 */
#ifndef WAVE_XFORM_COMMENTS_H
#define WAVE_XFORM_COMMENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "waveopt/ir.h"

/* The source line printed right after `node` within its region: the next statement, or the
 * else/endif/endloop line that closes node's list, or the next region's label, or `.end`. */
wave_src *wave_xform_line_after(wave_node *node);

/* The first source line of a list (its first instruction, if or loop line), NULL when empty. */
wave_src *wave_xform_first_line(wave_node_list *list);

/* Puts the comments of the `count` lines `from` (leading lines, then the trailing comment, in
 * order) before the line `to`, ahead of its own leading comments. False when memory ran out,
 * with nothing changed. */
bool wave_xform_move_comments(wave_module *module, const wave_src *from, size_t count,
                              wave_src *to);

#endif
