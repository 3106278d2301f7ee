/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Object ids for cgraph that follow the order in which the graph's objects are made, so that
 * the DOT text of a kernel is the same every time it is drawn.
 *
 * cgraph lists subgraphs by id, and its default id discipline makes a named object's id the
 * address of its interned name: the order of the legend and loop clusters in the output then
 * followed where malloc happened to put the names, and two drawings of one kernel in one
 * process could differ (tests/threads found it). Its anonymous objects (our edges) take ids
 * from a counter that is a static of graphviz, shared unguarded by every graph of the process.
 *
 * Here a graph's ids come from its own state, made (from the kernel's module's allocator) when
 * the graph is opened and freed when it is closed: a name gets the next even id the first time
 * it is mapped and the same one after (found through a table of the names seen, by hash), an
 * anonymous object the next odd one.
 * The names are interned in the graph's string table (agstrdup), as the default does: cgraph
 * reads a header in front of every name it prints (whether to quote it as HTML), and closing
 * the graph frees the table, names and all, after this state.
 * Printing an even id gives its name back; printing an odd one gives NULL, which is how cgraph
 * knows an object has no name. Ids the caller asks for by number are refused, as the default
 * does.
 */
#include "dot/ids.h"

#include <stdint.h>
#include <string.h>

#include "support/grow.h"
#include "waveopt/ir.h"

typedef struct id_state {
  /* NULL for malloc, else own_allocator: a copy, because the caller may agclose the graph
   * after destroying the module whose allocator this is (the graph holds none of its
   * memory). */
  const wave_allocator *allocator;
  wave_allocator own_allocator;
  Agraph_t *root; /* whose string table holds the names */
  char **names;   /* a name's id is 2 * its index */
  size_t num_names, cap_names;
  uint32_t *slots; /* open addressing: an index + 1, or 0 for an empty slot */
  size_t mask;     /* slots - 1, a power of two at least twice num_names */
  IDTYPE next_anonymous;
} id_state;

static void *ids_open(Agraph_t *g, Agdisc_t *disc) {
  /* only wave_dot_disc_init's disciplines name ids_open */
  const wave_allocator *a = ((const wave_dot_disc *)disc)->allocator;
  id_state *s = wave_mem_calloc(a, 1, sizeof(*s));
  if (s) {
    s->allocator = wave_mem_keep(&s->own_allocator, a);
    s->root = g;
    s->next_anonymous = 1;
  }
  return s;
}

static size_t slot_of(const id_state *s, const char *name) {
  size_t h = wave_hash_name(name, strlen(name)) & s->mask;
  while (s->slots[h] && strcmp(s->names[s->slots[h] - 1], name) != 0)
    h = (h + 1) & s->mask;
  return h;
}

/* Room for one more name, the table at most half full. */
static bool reserve(id_state *s) {
  if (!wave_grow(s->allocator, (void **)&s->names, &s->cap_names, s->num_names + 1,
                 sizeof(*s->names)))
    return false;
  if (s->slots && 2 * (s->num_names + 1) <= s->mask + 1)
    return true;
  size_t size = s->slots ? 2 * (s->mask + 1) : 64;
  uint32_t *slots = wave_mem_calloc(s->allocator, size, sizeof(*slots));
  if (!slots)
    return false;
  wave_mem_free(s->allocator, s->slots);
  s->slots = slots;
  s->mask = size - 1;
  for (size_t i = 0; i < s->num_names; i++)
    s->slots[slot_of(s, s->names[i])] = (uint32_t)i + 1;
  return true;
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int createflag) {
  (void)objtype;
  id_state *s = state;
  if (!s)
    return 0; /* ids_open ran out of memory: every object fails to be made */
  if (!str) {
    *id = s->next_anonymous;
    s->next_anonymous += 2;
    return 1;
  }
  if (s->slots) {
    size_t h = slot_of(s, str);
    if (s->slots[h]) {
      *id = 2 * (IDTYPE)(s->slots[h] - 1);
      return 1;
    }
  }
  if (!createflag || s->num_names >= UINT32_MAX - 1 || !reserve(s))
    return 0;
  char *copy = agstrdup(s->root, str);
  if (!copy)
    return 0;
  s->names[s->num_names] = copy;
  s->slots[slot_of(s, copy)] = (uint32_t)s->num_names + 1;
  *id = 2 * (IDTYPE)s->num_names++;
  return 1;
}

static long ids_alloc(void *state, int objtype, IDTYPE id) {
  (void)state, (void)objtype, (void)id;
  return 0;
}

/* A name stays mapped until the graph closes: cgraph may ask for it again by name. */
static void ids_free(void *state, int objtype, IDTYPE id) { (void)state, (void)objtype, (void)id; }

static char *ids_print(void *state, int objtype, IDTYPE id) {
  (void)objtype;
  const id_state *s = state;
  return s && id % 2 == 0 && id / 2 < s->num_names ? s->names[id / 2] : NULL;
}

static void ids_close(void *state) {
  id_state *s = state;
  if (!s)
    return;
  wave_mem_free(s->allocator, s->names);
  wave_mem_free(s->allocator, s->slots);
  wave_mem_free_holder(s->allocator, s);
}

static void ids_register(void *state, int objtype, void *obj) {
  (void)state, (void)objtype, (void)obj;
}

static Agiddisc_t ordered_ids = {ids_open,  ids_map,   ids_alloc,   ids_free,
                                 ids_print, ids_close, ids_register};

void wave_dot_disc_init(wave_dot_disc *disc, const wave_allocator *allocator) {
  *disc = (wave_dot_disc){{&AgMemDisc, &ordered_ids, &AgIoDisc}, allocator};
}
