/* SPDX-License-Identifier: Apache-2.0 */
/* Object ids for cgraph in the order objects are made (ids.c). */
#ifndef WAVE_DOT_IDS_H
#define WAVE_DOT_IDS_H

#include <cgraph.h>

/* The discipline to agopen a graph with: graphviz's memory and I/O, ordered ids. */
extern Agdisc_t wave_dot_ordered_disc;

#endif
