/* SPDX-License-Identifier: Apache-2.0 */
#include "support/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool wave_grow_array(void **array, size_t *cap, size_t need, size_t size) {
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
  void *p = realloc(*array, n * size);
  if (!p)
    return false;
  *array = p;
  *cap = n;
  return true;
}
