/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the profile writer and reader share: how a flattened program (interp/interp_program.h)
 * is cut into source lines, and the text by which a profile names the code it measured. Both
 * sides build it the same way from the same program, so a profile matches exactly the kernels
 * whose lines hold the same opcodes.
 */
#ifndef WAVE_PROFILE_INTERNAL_H
#define WAVE_PROFILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "support/strbuf.h"
#include "waveopt/interp.h"

/* Statement `index` of the program, at source line `line`. */
typedef struct profile_slot {
  uint32_t line;
  uint32_t index;
} profile_slot;

/* The program's statements (all entries but the end marker, the last) ordered by line, then
 * by program order; malloc'd (n may be 0), NULL when memory runs out. */
profile_slot *profile_slots(const wave_program_entry *entries, size_t num_entries, size_t *n);

/* The end of the run of slots on the line of slots[from]. */
size_t profile_line_end(const profile_slot *slots, size_t n, size_t from);

/* Appends the opcodes of slots [from, to) to b, separated by spaces. */
void profile_put_ops(wave_strbuf *b, const wave_program_entry *entries, const profile_slot *slots,
                     size_t from, size_t to);

/* FNV-1a 64 of "LINE OPS\n" for every line in order: the profile's "signature". */
uint64_t profile_hash(uint64_t hash, const char *text, size_t len);
#define PROFILE_HASH_INIT 0xcbf29ce484222325ull

#endif
