/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every block the library takes goes through these, with the allocator of the object it is
 * for (waveopt/alloc.h); NULL stands for malloc's. They are the only place that names malloc,
 * calloc, realloc or free (tests/style/allocations.sh checks), so that a caller's allocator,
 * and a test that fails its n-th block, reach every allocation.
 */
#ifndef WAVE_SUPPORT_ALLOC_H
#define WAVE_SUPPORT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "waveopt/alloc.h"

/* NULL or the allocator itself (false): whether blocks come from malloc, where the library
 * may advise the kernel about their pages (support/grow.c) or map large ones itself
 * (support/arena.c), which it must not do to a caller's memory. */
static inline bool wave_mem_is_malloc(const wave_allocator *a) { return a == NULL; }

/* What an object made with `given` (a caller's allocator or NULL) uses from then on: NULL, or
 * `own`, a copy kept in the object, since the caller's struct need not outlive the call. */
static inline const wave_allocator *wave_mem_keep(wave_allocator *own,
                                                  const wave_allocator *given) {
  if (!given)
    return NULL;
  *own = *given;
  return own;
}

void *wave_mem_alloc(const wave_allocator *a, size_t size);
/* count * size zeroed bytes; NULL on overflow too. */
void *wave_mem_calloc(const wave_allocator *a, size_t count, size_t size);
/* realloc's contract: a NULL block allocates; NULL, the block untouched, when memory is out. */
void *wave_mem_realloc(const wave_allocator *a, void *block, size_t size);
/* NULL blocks are ignored, as free does. */
void wave_mem_free(const wave_allocator *a, void *block);
/* Frees `holder`, the object that keeps the copy `kept` points at (wave_mem_keep; NULL for
 * malloc): the copy is read before the block that holds it goes back. */
void wave_mem_free_holder(const wave_allocator *kept, void *holder);
/* The len bytes at s and a NUL. */
char *wave_mem_strndup(const wave_allocator *a, const char *s, size_t len);

#endif
