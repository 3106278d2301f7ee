/* SPDX-License-Identifier: Apache-2.0 */
/* Finding an address's position in an array (support/key_index.h), by open addressing. */
#include "support/key_index.h"

#include "support/grow.h"

/* Addresses are aligned and close together: multiplying by a large odd constant spreads their
 * middle bits over the high half, which the fold brings down into the slot number. */
static size_t slot_of(const void *key, size_t mask) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32 ^ h) & mask;
}

bool wave_key_index_build(wave_key_index *index, const wave_allocator *allocator,
                          const void *const *keys, size_t num) {
  index->allocator = allocator;
  index->keys = keys;
  index->slots = NULL;
  index->mask = 0;
  if (num >= UINT32_MAX)
    return false;
  size_t cap = 16;
  while (cap < 2 * num)
    cap *= 2;
  uint32_t *slots = wave_calloc_huge(allocator, cap, sizeof(*slots));
  if (!slots)
    return false;
  for (size_t i = 0; i < num; i++) {
    size_t s = slot_of(keys[i], cap - 1);
    while (slots[s])
      s = (s + 1) & (cap - 1);
    slots[s] = (uint32_t)(i + 1);
  }
  index->slots = slots;
  index->mask = cap - 1;
  return true;
}

size_t wave_key_index_find(const wave_key_index *index, const void *key) {
  if (!index->slots)
    return WAVE_KEY_NOT_FOUND;
  for (size_t s = slot_of(key, index->mask);; s = (s + 1) & index->mask) {
    uint32_t at = index->slots[s];
    if (!at)
      return WAVE_KEY_NOT_FOUND;
    if (index->keys[at - 1] == key)
      return at - 1;
  }
}

void wave_key_index_free(wave_key_index *index) {
  wave_mem_free(index->allocator, index->slots);
  index->slots = NULL;
}
