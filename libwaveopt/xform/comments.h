/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Comments of lines a rewrite removes (an if, else or endif line that goes while the code it
 * held stays) are kept as whole-line comments before the line that takes their place, in text
 * order. A pass records each removed line as it goes and writes the comments once at the end:
 * a line can collect the comments of many removed lines (the line after a collapsed chain of
 * 100 000 nested ifs collects every endif's), and writing its text once per removal would cost
 * the square of the chain's length. A line that collected comments and is removed in turn
 * hands them on with its own.
 */
#ifndef WAVE_XFORM_COMMENTS_H
#define WAVE_XFORM_COMMENTS_H

#include <stdbool.h>

#include "ir/code.h"
#include "waveopt/edit.h"

/* The source line printed right after `node` within its region: the first line of the next
 * node, else the else, endif or endloop line of the list's parent, else the next region's
 * label or the kernel's .end. */
wave_code_line wave_line_after(wave_node *node);

typedef struct wave_comment_moves wave_comment_moves;

/* NULL when memory ran out. Lines' texts go into the module's arena. */
wave_comment_moves *wave_comment_moves_create(wave_module *module);
void wave_comment_moves_destroy(wave_comment_moves *moves);

/* The line `from` is removed: its comments, and those moved onto it before, are to go before
 * the line `to`, ahead of what was moved there before. So removed lines that end up before the
 * same line are recorded from the last in text order to the first. `from` loses its comments
 * at once; false when memory ran out, with nothing recorded and `from` unchanged. */
bool wave_comment_moves_add(wave_comment_moves *moves, wave_code_line from, wave_code_line to);

/* Makes room for `lines` more calls of wave_comment_moves_add, which then cannot fail: a
 * rewrite reserves before it changes the tree. False when memory ran out. */
bool wave_comment_moves_reserve(wave_comment_moves *moves, size_t lines);

/* Records and writes at once the moves from[0..count) -> to (from the last to the first, so
 * they keep their order), for a rewrite that removes a few lines far apart: no line collects
 * the comments of many. False when memory ran out, with nothing moved. */
bool wave_comment_moves_now(wave_module *module, const wave_code_line *from, size_t count,
                            wave_code_line to);

/* Removes `node`, an if both of whose sides hold nothing, its if, else and endif lines'
 * comments recorded to go before the line after it. False when memory ran out, with nothing
 * changed. */
bool wave_comment_moves_remove_if(wave_comment_moves *moves, wave_node *node);

/* Writes what was recorded into the leading comments of the lines that stay, and forgets it.
 * False when memory ran out; the lines whose text could not be built keep what they had. */
bool wave_comment_moves_apply(wave_comment_moves *moves);

#endif
