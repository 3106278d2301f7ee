/* SPDX-License-Identifier: Apache-2.0 */
#include "support/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

/* Chunks grow geometrically so that a 1M-instruction module needs few mallocs, while a tiny
 * module stays small. */
enum { WAVE_ARENA_FIRST_CHUNK = 16 * 1024, WAVE_ARENA_MAX_CHUNK = 4 * 1024 * 1024 };

typedef struct wave_chunk {
  struct wave_chunk *prev;
  size_t size;
  size_t used;
  alignas(max_align_t) unsigned char data[];
} wave_chunk;

/* A block from malloc the arena frees with itself (wave_arena_adopt). */
typedef struct wave_adopted {
  struct wave_adopted *next;
  void *block;
} wave_adopted;

struct wave_arena {
  wave_chunk *head;
  size_t next_size;
  wave_adopted *adopted;
};

wave_arena *wave_arena_create(void) {
  wave_arena *arena = calloc(1, sizeof(*arena));
  if (arena)
    arena->next_size = WAVE_ARENA_FIRST_CHUNK;
  return arena;
}

void wave_arena_destroy(wave_arena *arena) {
  if (!arena)
    return;
  for (wave_adopted *a = arena->adopted; a; a = a->next)
    free(a->block);
  wave_chunk *chunk = arena->head;
  while (chunk) {
    wave_chunk *prev = chunk->prev;
    free(chunk);
    chunk = prev;
  }
  free(arena);
}

static size_t align_up(size_t n) {
  const size_t a = alignof(max_align_t);
  return (n + a - 1) & ~(a - 1);
}

void *wave_arena_alloc(wave_arena *arena, size_t size) {
  if (size > SIZE_MAX / 2)
    return NULL;
  size = align_up(size ? size : 1);
  wave_chunk *chunk = arena->head;
  if (!chunk || chunk->size - chunk->used < size) {
    size_t chunk_size = arena->next_size;
    if (chunk_size < size)
      chunk_size = size;
    /* calloc'd chunks are zero already (large ones come straight from the kernel), and arena
     * memory is never reused, so no allocation needs clearing again. */
    chunk = calloc(1, sizeof(*chunk) + chunk_size);
    if (!chunk)
      return NULL;
    chunk->prev = arena->head;
    chunk->size = chunk_size;
    chunk->used = 0;
    arena->head = chunk;
    if (arena->next_size < WAVE_ARENA_MAX_CHUNK)
      arena->next_size *= 2;
  }
  void *p = chunk->data + chunk->used;
  chunk->used += size;
  return p;
}

bool wave_arena_adopt(wave_arena *arena, void *block) {
  wave_adopted *a = wave_arena_alloc(arena, sizeof(*a));
  if (!a)
    return false;
  *a = (wave_adopted){arena->adopted, block};
  arena->adopted = a;
  return true;
}
