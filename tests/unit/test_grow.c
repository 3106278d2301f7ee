/* SPDX-License-Identifier: Apache-2.0 */
/*
 * support/grow.h: an array grown one element at a time keeps every element, on both sides of
 * the size from which its growth is advised to the kernel as huge pages and copied by hand
 * rather than by realloc; an exact allocation is exact; calloc's huge twin zeroes what it
 * gives; advice on a block of any size, or on none, changes nothing in it.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/grow.h"

/* Past four huge pages of uint32_t: every doubling from 64 elements, small and large. */
enum { MANY = 5 * (int)(WAVE_HUGE_PAGE / sizeof(uint32_t)) / 2 };

Test(grow, keeps_every_element_through_every_doubling) {
  uint32_t *a = NULL;
  size_t cap = 0;
  for (uint32_t i = 0; i < MANY; i++) {
    cr_assert(wave_grow(NULL, (void **)&a, &cap, (size_t)i + 1, sizeof(*a)));
    a[i] = i * 2654435761u;
  }
  cr_assert_geq(cap, (size_t)MANY);
  for (uint32_t i = 0; i < MANY; i++)
    cr_assert_eq(a[i], i * 2654435761u, "element %u", i);
  free(a);
}

Test(grow, refuses_a_size_that_overflows) {
  uint32_t *a = NULL;
  size_t cap = 0;
  cr_assert_not(wave_grow(NULL, (void **)&a, &cap, SIZE_MAX / 2, sizeof(*a)));
  cr_assert_null(a);
  cr_assert_eq(cap, 0);
}

/* An exact allocation has the capacity asked for (no power of two above it), at least one
 * element, and doubles from there; an overflowing size is refused with the array untouched. */
Test(grow, alloc_array_is_exact_and_grows_from_there) {
  uint32_t *a = NULL;
  size_t cap = 0;
  cr_assert(wave_alloc_array(NULL, (void **)&a, &cap, 1000, sizeof(*a)));
  cr_assert_eq(cap, 1000);
  for (uint32_t i = 0; i < 1001; i++) {
    cr_assert(wave_grow(NULL, (void **)&a, &cap, (size_t)i + 1, sizeof(*a)));
    a[i] = i;
  }
  cr_assert_eq(cap, 2000, "doubled from the exact size");
  for (uint32_t i = 0; i < 1001; i++)
    cr_assert_eq(a[i], i);
  free(a);
  uint32_t *none = NULL;
  cr_assert(wave_alloc_array(NULL, (void **)&none, &cap, 0, sizeof(*none)));
  cr_assert_eq(cap, 1);
  free(none);
  uint32_t *big = NULL;
  cap = 7;
  cr_assert_not(wave_alloc_array(NULL, (void **)&big, &cap, SIZE_MAX / 2, sizeof(*big)));
  cr_assert_null(big);
  cr_assert_eq(cap, 7);
}

Test(grow, realloc_huge_keeps_the_contents_either_way) {
  size_t sizes[] = {100, 4 * WAVE_HUGE_PAGE, 5 * WAVE_HUGE_PAGE + 3};
  unsigned char *b = NULL;
  size_t had = 0;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    unsigned char *grown = wave_realloc_huge(NULL, b, had, sizes[s]);
    cr_assert_not_null(grown);
    for (size_t k = 0; k < had; k++)
      cr_assert_eq(grown[k], (unsigned char)(k * 7), "byte %zu after growing to %zu", k, sizes[s]);
    for (size_t k = had; k < sizes[s]; k++)
      grown[k] = (unsigned char)(k * 7);
    b = grown;
    had = sizes[s];
  }
  free(b);
}

Test(grow, calloc_huge_zeroes_and_advice_changes_nothing) {
  size_t sizes[] = {0, 1, 4096, 3 * WAVE_HUGE_PAGE};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    unsigned char *b = wave_calloc_huge(NULL, sizes[s] ? sizes[s] : 1, 1);
    cr_assert_not_null(b);
    size_t n = sizes[s] ? sizes[s] : 1;
    for (size_t k = 0; k < n; k += 4093)
      cr_assert_eq(b[k], 0);
    memset(b, 0x5a, n);
    wave_advise_huge(b, n);
    for (size_t k = 0; k < n; k += 4093)
      cr_assert_eq(b[k], 0x5a);
    free(b);
  }
  wave_advise_huge(NULL, 10 * WAVE_HUGE_PAGE);
}
