/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Toolchain hazards of a kernel, as the differential harness compares them before and after a
 * transformation (difftest.h): what wave_target_scan finds, plus what the barriers analysis
 * finds where the wave is not converged: a barrier on every target, a wave operation on a
 * target whose wave operations need every live lane (wave-ptx, portable). Legalize may rewrite
 * a halt into a flag that parks lanes before a wave operation only where the target computes
 * it over the active lanes; this is the check that holds every pass, legalize included, to
 * that (docs/toolchain.md "Rules our output keeps" 6).
 *
 * Rule 6 is about regions: a convergent instruction must not move into, out of or across one.
 * So a wave operation or barrier newly found not converged counts when what makes it so, an
 * if, a loop or a branch, is not one the original had at that line (legalize's flag if takes
 * the line of the halt it replaces). Where the original had that construct, the finding is the
 * analysis judging its predicate less precisely than before (a value merged from lanes that a
 * guarded top-level halt then ends, say), and the dynamic check of difftest.c holds the
 * instruction to what really runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "difftest.h"
#include "waveopt/barriers.h"
#include "waveopt/edit.h"

enum { DIVERGENT_WAVE_OP = WAVE_HAZARD_DEPTH + 1, DIVERGENT_BARRIER };

/* A construct that can make code not converged: an if, a loop (wave_barrier_cause), a break
 * or continue (WAVE_BARRIER_CAUSE_BRANCH), at a line. */
typedef struct construct {
  uint32_t cause, line;
} construct;

typedef struct hazard {
  uint32_t kind, line;
  construct why;   /* DIVERGENT_*: what makes it not converged */
  char what[96];
} hazard;

typedef struct list {
  void *items;
  size_t count, cap;
} list;

struct wave_hazard_set {
  list hazards;      /* hazard */
  list constructs;   /* construct */
  bool out_of_memory;
};

static void *push(wave_hazard_set *set, list *l, size_t size) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    void *items = realloc(l->items, cap * size);
    if (!items) {
      set->out_of_memory = true;
      return NULL;
    }
    l->items = items;
    l->cap = cap;
  }
  return (char *)l->items + size * l->count++;
}

static void add(wave_hazard_set *set, uint32_t kind, uint32_t line, construct why,
                const char *fmt, const char *name) {
  hazard *h = push(set, &set->hazards, sizeof(hazard));
  if (!h)
    return;
  h->kind = kind;
  h->line = kind == WAVE_HAZARD_DEPTH ? 0 : line;
  h->why = why;
  snprintf(h->what, sizeof(h->what), fmt, name, line);
}

static void add_finding(void *arg, const wave_target_finding *f) {
  construct none = {0, 0};
  add(arg, f->hazard, f->loc.line, none, "%s at line %u", f->what);
}

static void add_construct(wave_hazard_set *set, uint32_t cause, uint32_t line) {
  construct *c = push(set, &set->constructs, sizeof(construct));
  if (c)
    *c = (construct){cause, line};
}

static void find_constructs(wave_hazard_set *set, const wave_kernel *kernel) {
  wave_foreach_region(r, kernel) {
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (wave_const_walk_next(&w)) {
      if (w.event == WAVE_WALK_IF)
        add_construct(set, WAVE_BARRIER_CAUSE_IF, wave_node_origin(w.node, WAVE_LINE_IF).loc.line);
      else if (w.event == WAVE_WALK_LOOP)
        add_construct(set, WAVE_BARRIER_CAUSE_LOOP,
                      wave_node_origin(w.node, WAVE_LINE_LOOP).loc.line);
      if (w.event != WAVE_WALK_BLOCK)
        continue;
      for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in)) {
        if (wave_instr_op(in) == WAVE_OP_BREAK || wave_instr_op(in) == WAVE_OP_CONTINUE)
          add_construct(set, WAVE_BARRIER_CAUSE_BRANCH, wave_instr_loc(in).line);
      }
    }
  }
}

wave_hazard_set *wave_hazards_find(const wave_kernel *kernel, const wave_target *target) {
  wave_hazard_set *set = calloc(1, sizeof(*set));
  if (!set)
    return NULL;
  wave_target_scan(kernel, target, add_finding, set);
  find_constructs(set, kernel);
  wave_barriers *b = wave_barriers_compute(kernel, NULL);
  if (!b)
    set->out_of_memory = true;
  for (size_t i = 0; b && i < wave_barriers_num_findings(b); i++) {
    const wave_barrier_finding *f = wave_barriers_finding(b, i);
    const char *name = wave_opcode_get(wave_instr_op(f->instr))->mnemonic;
    construct why = {f->cause, f->line};
    if (wave_instr_op(f->instr) == WAVE_OP_BARRIER)
      add(set, DIVERGENT_BARRIER, wave_instr_loc(f->instr).line, why,
          "'%s' at line %u where lanes diverge", name);
    else if (!target->divergent_wave_ops_ok)
      add(set, DIVERGENT_WAVE_OP, wave_instr_loc(f->instr).line, why,
          "'%s' at line %u where the wave is not converged", name);
  }
  wave_barriers_destroy(b);
  if (set->out_of_memory) {
    wave_hazard_set_destroy(set);
    return NULL;
  }
  return set;
}

void wave_hazard_set_destroy(wave_hazard_set *set) {
  if (set) {
    free(set->hazards.items);
    free(set->constructs.items);
  }
  free(set);
}

static bool has(const wave_hazard_set *set, const hazard *h) {
  const hazard *items = set->hazards.items;
  for (size_t i = 0; i < set->hazards.count; i++) {
    if (items[i].kind == h->kind && items[i].line == h->line)
      return true;
  }
  return false;
}

static bool had_construct(const wave_hazard_set *set, const hazard *h) {
  const construct *items = set->constructs.items;
  if (h->kind != DIVERGENT_WAVE_OP && h->kind != DIVERGENT_BARRIER)
    return false;
  for (size_t i = 0; i < set->constructs.count; i++) {
    if (items[i].cause == h->why.cause && items[i].line == h->why.line)
      return true;
  }
  return false;
}

bool wave_hazards_added(const wave_hazard_set *before, const wave_hazard_set *after,
                        const bool *ran, size_t num_lines, char *what, size_t size) {
  const hazard *items = after->hazards.items;
  for (size_t i = 0; i < after->hazards.count; i++) {
    const hazard *h = &items[i];
    if (h->line && h->line < num_lines && !ran[h->line])
      continue;
    if (!has(before, h) && !had_construct(before, h)) {
      snprintf(what, size, "%s", h->what);
      return true;
    }
  }
  return false;
}
