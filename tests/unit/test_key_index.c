/* SPDX-License-Identifier: Apache-2.0 */
/*
 * support/key_index.h: every address of the array is found at its own place, an address the
 * array lacks is not found, and the table's wrap-around and an empty array hold no surprises.
 * Its users (liveness, barriers, depth, dce, loop-unroll, the DOT output) are tested through
 * what they answer; this holds the index itself to what its header says.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/key_index.h"

enum { MANY = 5000 };

Test(key_index, finds_every_key_at_its_place_and_nothing_else) {
  /* Neighbouring elements of one array: addresses as close together as a kernel's nodes. */
  static char pool[2 * MANY];
  static const void *keys[MANY];
  for (size_t i = 0; i < MANY; i++)
    keys[i] = &pool[2 * i];
  wave_key_index index;
  cr_assert(wave_key_index_build(&index, NULL, keys, MANY));
  for (size_t i = 0; i < MANY; i++)
    cr_assert_eq(wave_key_index_find(&index, keys[i]), i, "key %zu", i);
  for (size_t i = 0; i < MANY; i++)
    cr_assert_eq(wave_key_index_find(&index, &pool[2 * i + 1]), WAVE_KEY_NOT_FOUND, "%zu", i);
  cr_assert_eq(wave_key_index_find(&index, NULL), WAVE_KEY_NOT_FOUND);
  wave_key_index_free(&index);
}

Test(key_index, an_empty_array_finds_nothing) {
  wave_key_index index;
  cr_assert(wave_key_index_build(&index, NULL, NULL, 0));
  int x;
  cr_assert_eq(wave_key_index_find(&index, &x), WAVE_KEY_NOT_FOUND);
  wave_key_index_free(&index);
  wave_key_index_free(&index);
}

Test(key_index, a_repeated_key_is_found_at_one_of_its_places) {
  int a, b;
  const void *keys[] = {&a, &b, &a};
  wave_key_index index;
  cr_assert(wave_key_index_build(&index, NULL, keys, 3));
  size_t at = wave_key_index_find(&index, &a);
  cr_assert(at == 0 || at == 2);
  cr_assert_eq(wave_key_index_find(&index, &b), 1);
  wave_key_index_free(&index);
}

/* A full table of one size class (16 slots, 8 keys) whose probes all start at the last slots
 * must wrap to the first ones: keys chosen by trying addresses until eight land there. */
Test(key_index, probes_wrap_around_the_table) {
  static char pool[1 << 16];
  const void *keys[8];
  size_t n = 0;
  wave_key_index probe;
  for (size_t i = 0; n < 8 && i < sizeof(pool); i++) {
    const void *one[] = {&pool[i]};
    cr_assert(wave_key_index_build(&probe, NULL, one, 1));
    size_t slot = 0;
    while (probe.slots[slot] == 0)
      slot++;
    wave_key_index_free(&probe);
    if (slot == 15)
      keys[n++] = &pool[i];
  }
  cr_assert_eq(n, 8, "not enough addresses hash to the last slot");
  wave_key_index index;
  cr_assert(wave_key_index_build(&index, NULL, keys, 8));
  cr_assert_eq(index.mask, 15);
  for (size_t i = 0; i < 8; i++)
    cr_assert_eq(wave_key_index_find(&index, keys[i]), i, "key %zu", i);
  cr_assert_eq(wave_key_index_find(&index, &pool[sizeof(pool) - 1]), WAVE_KEY_NOT_FOUND);
  wave_key_index_free(&index);
}
