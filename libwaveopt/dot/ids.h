/* SPDX-License-Identifier: Apache-2.0 */
/* Object ids for cgraph in the order objects are made (ids.c). */
#ifndef WAVE_DOT_IDS_H
#define WAVE_DOT_IDS_H

#include <cgraph.h>

#include "support/alloc.h"

/* The discipline to agopen a graph with: graphviz's memory and I/O, ordered ids whose tables
 * come from `allocator` (the kernel's module's; NULL: malloc). cgraph hands the Agdisc_t
 * given to agopen to the id discipline's open and keeps only the three pointers inside it,
 * so this need live only while agopen runs. */
typedef struct wave_dot_disc {
  Agdisc_t disc; /* first: ids.c finds the allocator from the Agdisc_t cgraph passes it */
  const wave_allocator *allocator;
} wave_dot_disc;

void wave_dot_disc_init(wave_dot_disc *disc, const wave_allocator *allocator);

#endif
