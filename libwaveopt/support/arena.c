/* SPDX-License-Identifier: Apache-2.0 */
/* madvise's MADV_HUGEPAGE is beyond POSIX. */
#define _DEFAULT_SOURCE

#include "support/arena.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "support/grow.h"

/* Chunks grow geometrically so that a 1M-instruction module needs few mallocs, while a tiny
 * module stays small. */
enum {
  WAVE_ARENA_FIRST_CHUNK = 16 * 1024,
  WAVE_ARENA_MAX_CHUNK = 4 * 1024 * 1024,
};

typedef struct wave_chunk {
  struct wave_chunk *prev;
  size_t size;
  size_t used;
  bool mapped; /* by mmap, not the allocator (new_chunk) */
  alignas(max_align_t) unsigned char data[];
} wave_chunk;

/* A block from malloc the arena frees with itself (wave_arena_adopt). */
typedef struct wave_adopted {
  struct wave_adopted *next;
  void *block;
} wave_adopted;

struct wave_arena {
  /* NULL for malloc, else own_allocator, a copy: what the arena was made with may live in the
   * arena itself (a module's does). */
  const wave_allocator *allocator;
  wave_allocator own_allocator;
  wave_chunk *head;
  size_t next_size;
  wave_adopted *adopted;
};

/* A zeroed chunk of at least *size bytes of data (*size is set to what it holds). Chunks of
 * huge-page size and more are mapped on their own, aligned to huge pages, and offered to the
 * kernel as such: a million-instruction module fills some thirty of them, and with 4 KiB pages
 * its first touch of every page costs a fault (most of -O0's system time) and its walks a TLB
 * miss every few instructions. Mapped memory is zero, and unmapping it gives it back whole,
 * where a heap would keep what each compaction frees (ir/compact.c). Where the kernel takes
 * no advice, or has no huge pages, they are ordinary pages. A caller's allocator gives every
 * chunk. */
static wave_chunk *new_chunk(const wave_allocator *allocator, size_t *size) {
  size_t bytes = sizeof(wave_chunk) + *size;
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
  if (wave_mem_is_malloc(allocator) && bytes >= WAVE_HUGE_PAGE &&
      bytes <= SIZE_MAX - 2 * (size_t)WAVE_HUGE_PAGE) {
    bytes = (bytes + WAVE_HUGE_PAGE - 1) & ~(size_t)(WAVE_HUGE_PAGE - 1);
    size_t mapped = bytes + WAVE_HUGE_PAGE;
    char *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return NULL;
    char *start = p + ((WAVE_HUGE_PAGE - (uintptr_t)p % WAVE_HUGE_PAGE) % WAVE_HUGE_PAGE);
    if (start > p)
      munmap(p, (size_t)(start - p));
    if (p + mapped > start + bytes)
      munmap(start + bytes, (size_t)(p + mapped - (start + bytes)));
    madvise(start, bytes, MADV_HUGEPAGE);
    wave_chunk *chunk = (wave_chunk *)start;
    chunk->mapped = true;
    *size = bytes - sizeof(wave_chunk);
    return chunk;
  }
#endif
  return wave_mem_calloc(allocator, 1, bytes);
}

static void free_chunk(const wave_allocator *allocator, wave_chunk *chunk) {
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
  if (chunk->mapped) {
    munmap(chunk, sizeof(wave_chunk) + chunk->size);
    return;
  }
#endif
  wave_mem_free(allocator, chunk);
}

wave_arena *wave_arena_create(const wave_allocator *allocator) {
  wave_arena *arena = wave_mem_calloc(allocator, 1, sizeof(*arena));
  if (arena) {
    arena->allocator = wave_mem_keep(&arena->own_allocator, allocator);
    arena->next_size = WAVE_ARENA_FIRST_CHUNK;
  }
  return arena;
}

void wave_arena_destroy(wave_arena *arena) {
  if (!arena)
    return;
  for (wave_adopted *a = arena->adopted; a; a = a->next)
    wave_mem_free(arena->allocator, a->block);
  wave_chunk *chunk = arena->head;
  while (chunk) {
    wave_chunk *prev = chunk->prev;
    free_chunk(arena->allocator, chunk);
    chunk = prev;
  }
  wave_mem_free_holder(arena->allocator, arena);
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
    /* Chunks are zero already, and arena memory is never reused, so no allocation needs
     * clearing again. */
    chunk = new_chunk(arena->allocator, &chunk_size);
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
