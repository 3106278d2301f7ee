/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Growing a malloc'd array: the one helper behind every array the analyses and the
 * interpreter build as they walk, so that doubling and the overflow check live in one place.
 */
#ifndef WAVE_GROW_H
#define WAVE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *array (with *cap elements of `size` bytes) hold at least `need` elements, doubling
 * from 64; false, with the array as it was, when memory runs out or the size overflows.
 * Inline for the case of room to spare: the walks push one element at a time, millions of
 * times, and a call each cost early-cse alone 0.2 G instructions on a 1M kernel. */
bool wave_grow_array(void **array, size_t *cap, size_t need, size_t size);
static inline bool wave_grow(void **array, size_t *cap, size_t need, size_t size) {
  return need <= *cap || wave_grow_array(array, cap, need, size);
}

#endif
