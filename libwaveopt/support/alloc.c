/* SPDX-License-Identifier: Apache-2.0 */
#include "support/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Zero bytes are asked as one: malloc(0) may return NULL, which would read as out of memory,
 * and a caller's allocator is promised never to see 0. */
void *wave_mem_alloc(const wave_allocator *a, size_t size) {
  size = size ? size : 1;
  return a ? a->allocate(a->user, size) : malloc(size);
}

void *wave_mem_calloc(const wave_allocator *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return NULL;
  if (!a)
    return calloc(count ? count : 1, size ? size : 1);
  void *block = wave_mem_alloc(a, count * size);
  if (block)
    memset(block, 0, count * size);
  return block;
}

void *wave_mem_realloc(const wave_allocator *a, void *block, size_t size) {
  if (!block)
    return wave_mem_alloc(a, size);
  size = size ? size : 1;
  return a ? a->reallocate(a->user, block, size) : realloc(block, size);
}

void wave_mem_free(const wave_allocator *a, void *block) {
  if (!block)
    return;
  if (a)
    a->release(a->user, block);
  else
    free(block);
}

void wave_mem_free_holder(const wave_allocator *kept, void *holder) {
  wave_allocator copy = kept ? *kept : (wave_allocator){0};
  wave_mem_free(kept ? &copy : NULL, holder);
}

char *wave_mem_strndup(const wave_allocator *a, const char *s, size_t len) {
  char *d = len < SIZE_MAX ? wave_mem_alloc(a, len + 1) : NULL;
  if (d) {
    memcpy(d, s, len);
    d[len] = '\0';
  }
  return d;
}
