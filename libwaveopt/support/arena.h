/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bump allocator behind every module: IR objects die together with their module, so there is
 * no per-object free and no ownership to track inside passes.
 */
#ifndef WAVE_ARENA_H
#define WAVE_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "support/alloc.h"

typedef struct wave_arena wave_arena;

/* Chunks come from `allocator` (NULL: malloc, and mmap for large ones), which must outlive
 * the arena. */
wave_arena *wave_arena_create(const wave_allocator *allocator);
void wave_arena_destroy(wave_arena *arena);
/* Zeroed memory aligned for any object; NULL when memory runs out or size overflows. */
void *wave_arena_alloc(wave_arena *arena, size_t size);

/* Makes a block from the arena's allocator the arena's, freed when the arena is destroyed; false,
 * with the block still the caller's, when memory runs out. */
bool wave_arena_adopt(wave_arena *arena, void *block);

#endif
