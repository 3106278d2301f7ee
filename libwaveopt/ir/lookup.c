/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finding things by name: kernels of a module, the regions of a kernel by label, and the one
 * string hash (FNV-1a) that every name table of the library uses (the opcode index, the
 * parser's file-wide label namespace, the label table below).
 *
 * A label table is built on demand for one kernel rather than kept in the IR: passes add and
 * remove regions, and a cached table would go stale silently. Building one is linear.
 */
#include <string.h>

#include "ir/module.h"
#include "support/alloc.h"
#include "waveopt/waveopt.h"

uint32_t wave_hash_name(const char *name, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)name[i]) * 16777619u;
  return h;
}

wave_kernel *wave_module_find_kernel(const wave_module *module, const char *name) {
  for (wave_kernel *k = module->first_kernel; k; k = k->next) {
    if (!name || (k->name && strcmp(k->name, name) == 0))
      return k;
  }
  return NULL;
}

wave_kernel *wave_module_kernel_at(const wave_module *module, size_t index) {
  wave_kernel *k = module->first_kernel;
  for (; k && index; index--)
    k = k->next;
  return k;
}

size_t wave_label_table_find(const wave_label_table *table, const char *name) {
  size_t mask = table->capacity - 1;
  size_t h = wave_hash_name(name, strlen(name)) & mask;
  for (; table->slots[h]; h = (h + 1) & mask) {
    size_t index = table->slots[h] - 1;
    if (strcmp(table->regions[index]->label, name) == 0)
      return index;
  }
  return WAVE_NO_REGION;
}

/* The table's arrays come from the kernel's module's allocator, which its entry region leads
 * back to: the public struct has no room to record it. */
static void release(wave_label_table *table, const wave_allocator *allocator) {
  wave_mem_free(allocator, table->regions);
  wave_mem_free(allocator, table->slots);
  memset(table, 0, sizeof(*table));
}

void wave_label_table_free(wave_label_table *table) {
  if (table->regions)
    release(table, table->regions[0]->kernel->module->allocator);
}

bool wave_label_table_init(wave_label_table *table, const wave_kernel *kernel) {
  memset(table, 0, sizeof(*table));
  size_t n = 0;
  for (const wave_region *r = kernel->first_region; r; r = r->next)
    n++;
  size_t capacity = 1;
  while (capacity < 2 * n)
    capacity *= 2;
  table->num_regions = n;
  table->capacity = capacity;
  const wave_allocator *allocator = kernel->module->allocator;
  table->regions = wave_mem_calloc(allocator, n ? n : 1, sizeof(*table->regions));
  table->slots = wave_mem_calloc(allocator, capacity, sizeof(*table->slots));
  if (!table->regions || !table->slots) {
    release(table, allocator);
    return false;
  }
  size_t i = 0;
  for (wave_region *r = kernel->first_region; r; r = r->next, i++) {
    table->regions[i] = r;
    /* With duplicate labels (only a builder can make them) the first one wins, as a reader of
     * the text would find it first. */
    if (r->label && wave_label_table_find(table, r->label) == WAVE_NO_REGION) {
      size_t h = wave_hash_name(r->label, strlen(r->label)) & (capacity - 1);
      while (table->slots[h])
        h = (h + 1) & (capacity - 1);
      table->slots[h] = i + 1;
    }
  }
  return true;
}
