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
 * from 64; false, with the array as it was, when memory runs out or the size overflows. */
bool wave_grow(void **array, size_t *cap, size_t need, size_t size);

#endif
