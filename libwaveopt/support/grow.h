/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Growing an array: the one helper behind every array the analyses and the interpreter build
 * as they walk, so that doubling and the overflow check live in one place. Each takes the
 * allocator the array comes from (support/alloc.h; NULL: malloc's).
 */
#ifndef WAVE_GROW_H
#define WAVE_GROW_H

#include <stdbool.h>
#include <stddef.h>

#include "support/alloc.h"

/* Makes *array (with *cap elements of `size` bytes) hold at least `need` elements, doubling
 * from 64; false, with the array as it was, when memory runs out or the size overflows.
 * Inline for the case of room to spare: the walks push one element at a time, millions of
 * times, and a call each cost early-cse alone 0.2 G instructions on a 1M kernel. */
bool wave_grow_array(const wave_allocator *a, void **array, size_t *cap, size_t need, size_t size);
static inline bool wave_grow(const wave_allocator *a, void **array, size_t *cap, size_t need,
                             size_t size) {
  return need <= *cap || wave_grow_array(a, array, cap, need, size);
}

/* Allocates *array with room for exactly n elements of `size` bytes (*cap = n; at least one
 * element), for an array whose size is known or expected before it is filled: later growth
 * doubles from there (wave_grow). Exact rather than the power of two above it: the arrays of
 * an analysis computed again after a change are freed just before, and arrays of about their
 * size take their place in the heap, where larger ones would lie beside the freed blocks
 * (-O2's peak RSS on bench_pipeline's 1M kernel 197 -> 179 MB for the layout's). False, with
 * *array untouched, when memory runs out or the size overflows. */
bool wave_alloc_array(const wave_allocator *a, void **array, size_t *cap, size_t n, size_t size);

/* The size of a huge page on the machines the library is built for (x86-64, arm64 with 4 KiB
 * base pages). */
#define WAVE_HUGE_PAGE ((size_t)2 * 1024 * 1024)

/* Offers the whole huge pages inside a malloc'd block of `bytes` to the kernel as such. The
 * analyses' arrays on a million-instruction kernel are megabytes each, and faulting them in by
 * 4 KiB pages cost -O2 a quarter of its time (support/arena.c does the same for the IR).
 * Blocks smaller than two huge pages, and systems that take no such advice, are left alone. */
void wave_advise_huge(void *block, size_t bytes);
/* calloc, with the advice above for a large block from malloc. */
void *wave_calloc_huge(const wave_allocator *a, size_t count, size_t size);
/* realloc of a block of old_bytes to bytes, a large one advised before its contents are copied
 * in (realloc would fault every page of the copy in singly). NULL, the block untouched, when
 * memory runs out. */
void *wave_realloc_huge(const wave_allocator *a, void *block, size_t old_bytes, size_t bytes);

/* Gives the whole huge pages inside [block, block + bytes) of a malloc'd block back to the
 * system: they read as zero afterwards. Returns how far from block the pages given back end, 0
 * when there were none or the system refused. */
size_t wave_release_huge(void *block, size_t bytes);

#endif
