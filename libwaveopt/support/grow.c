/* SPDX-License-Identifier: Apache-2.0 */
/* madvise's MADV_HUGEPAGE and MADV_DONTNEED are beyond POSIX. */
#define _DEFAULT_SOURCE

#include "support/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void wave_advise_huge(void *block, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (!block || bytes < 2 * WAVE_HUGE_PAGE)
    return;
  /* Only the pages wholly inside the block: its ends may share a page with other blocks. */
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t begin = ((uintptr_t)block + page - 1) & ~(page - 1);
  uintptr_t end = ((uintptr_t)block + bytes) & ~(page - 1);
  if (end > begin)
    madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#endif
}

void *wave_calloc_huge(const wave_allocator *a, size_t count, size_t size) {
  void *block = wave_mem_calloc(a, count, size);
  if (block && wave_mem_is_malloc(a))
    wave_advise_huge(block, count * size);
  return block;
}

void *wave_realloc_huge(const wave_allocator *a, void *block, size_t old_bytes, size_t bytes) {
  if (bytes < 2 * WAVE_HUGE_PAGE || !wave_mem_is_malloc(a))
    return wave_mem_realloc(a, block, bytes);
  /* Advised before the copy touches it: realloc would copy into 4 KiB pages first. */
  void *grown = wave_mem_alloc(a, bytes);
  if (!grown)
    return NULL;
  wave_advise_huge(grown, bytes);
  if (block)
    memcpy(grown, block, old_bytes < bytes ? old_bytes : bytes);
  wave_mem_free(a, block);
  return grown;
}

bool wave_grow_array(const wave_allocator *a, void **array, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return true;
  size_t n = *cap ? *cap : 64;
  while (n < need) {
    if (n > SIZE_MAX / 2)
      return false;
    n *= 2;
  }
  if (size && n > SIZE_MAX / size)
    return false;
  void *p = wave_realloc_huge(a, *array, *cap * size, n * size);
  if (!p)
    return false;
  *array = p;
  *cap = n;
  return true;
}

bool wave_alloc_array(const wave_allocator *a, void **array, size_t *cap, size_t n, size_t size) {
  n = n ? n : 1;
  void *p = size && n > SIZE_MAX / size ? NULL : wave_realloc_huge(a, NULL, 0, n * size);
  if (!p)
    return false;
  *array = p;
  *cap = n;
  return true;
}

size_t wave_release_huge(void *block, size_t bytes) {
  uintptr_t begin = ((uintptr_t)block + WAVE_HUGE_PAGE - 1) & ~(WAVE_HUGE_PAGE - 1);
  uintptr_t end = ((uintptr_t)block + bytes) & ~(WAVE_HUGE_PAGE - 1);
  if (end <= begin || madvise((void *)begin, end - begin, MADV_DONTNEED) != 0)
    return 0;
  return end - (uintptr_t)block;
}
