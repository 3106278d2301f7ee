/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which position of an array of addresses holds a given address. Analyses and passes keep
 * their facts about instructions and nodes in arrays of their own order (text order, the order
 * ifs end, the order a walk finds call sites) and are asked about one instruction or node at
 * a time; this finds its entry. It hashes the address into a table of positions at most half
 * full, so a lookup probes one or two slots whatever the kernel's size, where a sorted copy
 * and a binary search would take twenty on a large one.
 *
 * The index reads the caller's array and keeps no copy: the array must stay as it is while
 * the index is used. An address the array holds more than once is found at one of its places.
 */
#ifndef WAVE_KEY_INDEX_H
#define WAVE_KEY_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/alloc.h"

#define WAVE_KEY_NOT_FOUND SIZE_MAX

typedef struct wave_key_index {
  const wave_allocator *allocator; /* where slots come from (support/alloc.h) */
  const void *const *keys;
  uint32_t *slots;   /* a position + 1, or 0 for an empty slot */
  size_t mask;       /* slots - 1; the slot count is a power of two */
} wave_key_index;

/* Indexes keys[0..num); false when memory runs out (or num does not fit the slots), and the
 * index then holds nothing to free. */
bool wave_key_index_build(wave_key_index *index, const wave_allocator *allocator,
                          const void *const *keys, size_t num);

/* The position of key in the indexed array, or WAVE_KEY_NOT_FOUND. */
size_t wave_key_index_find(const wave_key_index *index, const void *key);

void wave_key_index_free(wave_key_index *index);

#endif
