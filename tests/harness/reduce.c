/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test-case reducer: shrinks a kernel on which a transformation misbehaves, in the manner of
 * delta debugging. The items are instructions and whole if/loop regions, in text order; chunks
 * of consecutive items are deleted (halves first, then quarters, ... down to single items),
 * and a change stays only when the smaller kernel verifies, its original runs without error
 * at every width, and the test fails as before. When no single item can go, each region is
 * tried in place of its body; the two moves alternate until neither makes progress.
 *
 * Deleted items stay in the module's arena, so undoing a deletion is reinserting them at the
 * remembered position (in reverse order of removal).
 */
#include <stdlib.h>
#include <string.h>

#include "difftest.h"

enum { MAX_TRIALS = 50000 };

typedef struct item {
  wave_node *node;       /* an if or loop; NULL for an instruction */
  wave_instr *instr;
  /* where it was, for undoing */
  wave_node_list *list;
  wave_node *prev_node;
  wave_node *block;
  wave_instr *prev_instr;
} item;

typedef struct items {
  item *v;
  size_t n, cap;
} items;

static bool push(items *it, wave_node *node, wave_instr *instr) {
  if (it->n == it->cap) {
    size_t cap = it->cap ? it->cap * 2 : 256;
    item *v = realloc(it->v, cap * sizeof(*v));
    if (!v)
      return false;
    it->v = v;
    it->cap = cap;
  }
  memset(&it->v[it->n], 0, sizeof(item));
  it->v[it->n].node = node;
  it->v[it->n].instr = instr;
  it->n++;
  return true;
}

/* Every if, loop and instruction of the module in text order. */
static bool collect(wave_module *m, items *it) {
  it->n = 0;
  for (wave_kernel *k = m->first_kernel; k; k = k->next) {
    for (wave_region *reg = k->first_region; reg; reg = reg->next) {
      wave_walker w;
      wave_walk_init(&w, &reg->body);
      while (wave_walk_next(&w)) {
        if (w.event == WAVE_WALK_IF || w.event == WAVE_WALK_LOOP) {
          if (!push(it, w.node, NULL))
            return false;
        } else if (w.event == WAVE_WALK_BLOCK) {
          for (wave_instr *i = w.node->u.block.first; i; i = i->next)
            if (!push(it, NULL, i))
              return false;
        }
      }
    }
  }
  return true;
}

static void remove_item(item *x) {
  if (x->node) {
    x->list = x->node->list;
    x->prev_node = x->node->prev;
    wave_node_remove(x->node);
  } else {
    x->block = x->instr->block;
    x->prev_instr = x->instr->prev;
    wave_instr_remove(x->instr);
  }
}

static void restore_item(const item *x) {
  if (x->node) {
    if (x->prev_node)
      wave_node_insert_after(x->prev_node, x->node);
    else
      wave_node_list_prepend(x->list, x->node);
  } else {
    if (x->prev_instr)
      wave_instr_insert_after(x->prev_instr, x->instr);
    else
      wave_block_prepend(x->block, x->instr);
  }
}

static char *print_docs(const wave_module *m, size_t *len) {
  wave_print_options po = {0};
  po.dialect = WAVE_DIALECT_DOCS;
  return wave_print_to_string(m, &po, len);
}

typedef struct reducer {
  wave_difftest trial;      /* the test narrowed to the failing width, with a step budget */
  const wave_difftest *full;
  wave_diff_status target;
  wave_module *module;
  size_t trials;
} reducer;

static bool has_wave_ops(wave_module *m) {
  for (wave_kernel *k = m->first_kernel; k; k = k->next) {
    for (wave_region *reg = k->first_region; reg; reg = reg->next) {
      wave_walker w;
      wave_walk_init(&w, &reg->body);
      while (wave_walk_next(&w))
        if (w.event == WAVE_WALK_BLOCK)
          for (wave_instr *i = w.node->u.block.first; i; i = i->next)
            if (wave_opcode_get((wave_opcode)i->op)->category == WAVE_CAT_WAVE)
              return true;
    }
  }
  return false;
}

/* Deleting an address computation can leave lanes storing different values to one place; the
 * result then depends on the schedule, and a transformation that merely reorders issue would
 * seem to break it. Without wave operations the per-thread schedule is a second opinion:
 * a race-free kernel leaves the same memory under both. */
static bool schedule_independent(const reducer *rd, const char *text, size_t len) {
  wave_difftest race = rd->trial;
  race.transform = NULL;
  race.original_mode = WAVE_MODE_SIMT;
  race.transformed_mode = WAVE_MODE_THREAD;
  wave_diff_report report;
  return wave_difftest_run(&race, text, len, &report) == WAVE_DIFF_PASS;
}

/* Whether the module as it stands still fails the way the input did, and is still a kernel
 * whose original runs cleanly. */
static bool still_fails(reducer *rd) {
  rd->trials++;
  size_t len;
  char *text = print_docs(rd->module, &len);
  if (!text)
    return false;
  wave_diff_report report;
  bool fails = wave_difftest_run(&rd->trial, text, len, &report) == rd->target &&
               (has_wave_ops(rd->module) || schedule_independent(rd, text, len));
  free(text);
  if (!fails)
    return false;
  wave_difftest all_widths = *rd->full;
  all_widths.max_steps = rd->trial.max_steps;
  return wave_difftest_original_ok(&all_widths, rd->module, NULL);
}

/* Deletes chunks of items until no single item can go. Sets *progress when anything went;
 * false when memory ran out. */
static bool delete_items(reducer *rd, items *it, bool *progress) {
  size_t chunk = it->n / 2 ? it->n / 2 : 1;
  for (;;) {
    bool deleted = false;
    for (size_t i = 0; i < it->n && rd->trials < MAX_TRIALS;) {
      size_t k = it->n - i < chunk ? it->n - i : chunk;
      for (size_t j = 0; j < k; j++)
        remove_item(&it->v[i + j]);
      if (still_fails(rd)) {
        deleted = *progress = true;
        if (!collect(rd->module, it))
          return false;
      } else {
        for (size_t j = k; j-- > 0;)
          restore_item(&it->v[i + j]);
        i += k;
      }
    }
    if (rd->trials >= MAX_TRIALS || (chunk == 1 && !deleted))
      return true;
    if (chunk > 1)
      chunk /= 2;
  }
}

/* Replacing an if or loop by one of its bodies, in place, so that what matters inside a region
 * can outlive the region (deleting the region would take it along). A loop loses its own
 * breaks and continues on the way, which would otherwise leave the loop they belong to. */
typedef struct unwrapping {
  wave_node *node;
  wave_node_list *body;
  wave_node *first, *last;    /* the body's nodes, now in the enclosing list */
  wave_node_list *list;
  wave_node *prev;
  items exits;                /* the loop's removed breaks and continues */
} unwrapping;

/* Removes the breaks and continues of `body` that leave its own loop (not a nested one).
 * False, with nothing removed, when memory ran out. */
static bool remove_exits(wave_node_list *body, items *exits) {
  unsigned nested = 0;
  wave_walker w;
  wave_walk_init(&w, body);
  while (wave_walk_next(&w)) {
    if (w.event == WAVE_WALK_LOOP || w.event == WAVE_WALK_ENDLOOP) {
      nested += w.event == WAVE_WALK_LOOP ? 1 : -1;
    } else if (w.event == WAVE_WALK_BLOCK && nested == 0) {
      for (wave_instr *in = w.node->u.block.first; in; in = in->next)
        if ((in->op == WAVE_OP_BREAK || in->op == WAVE_OP_CONTINUE) && !push(exits, NULL, in))
          return false;
    }
  }
  for (size_t i = 0; i < exits->n; i++)
    remove_item(&exits->v[i]);
  return true;
}

/* False, with nothing changed, when memory ran out. */
static bool unwrap(unwrapping *u, wave_node *node, wave_node_list *body) {
  u->exits.n = 0;
  if (node->kind == WAVE_NODE_LOOP && !remove_exits(body, &u->exits))
    return false;
  u->node = node;
  u->body = body;
  u->first = body->first;
  u->last = body->last;
  u->list = node->list;
  u->prev = node->prev;
  while (body->first) {
    wave_node *n = body->first;
    wave_node_remove(n);
    wave_node_insert_before(node, n);
  }
  wave_node_remove(node);
  return true;
}

static void rewrap(const unwrapping *u) {
  for (wave_node *n = u->first, *next; n; n = next) {
    next = n == u->last ? NULL : n->next;
    wave_node_remove(n);
    wave_node_list_append(u->body, n);
  }
  if (u->prev)
    wave_node_insert_after(u->prev, u->node);
  else
    wave_node_list_prepend(u->list, u->node);
  for (size_t i = u->exits.n; i-- > 0;)
    restore_item(&u->exits.v[i]);
}

/* Tries to unwrap every region (an if into its then- or else-list, a loop into its body). */
static bool unwrap_regions(reducer *rd, items *it, bool *progress) {
  unwrapping u = {0};
  bool ok = true;
  for (size_t i = 0; ok && i < it->n && rd->trials < MAX_TRIALS; i++) {
    wave_node *node = it->v[i].node;
    if (!node)
      continue;
    wave_node_list *bodies[2] = {&node->u.loop.body, NULL};
    if (node->kind == WAVE_NODE_IF) {
      bodies[0] = &node->u.if_.then_body;
      bodies[1] = &node->u.if_.else_body;
    }
    for (unsigned b = 0; b < 2 && bodies[b]; b++) {
      if (!bodies[b]->first)
        continue;
      if (!(ok = unwrap(&u, node, bodies[b])))
        break;
      if (still_fails(rd)) {
        *progress = true;
        ok = collect(rd->module, it);
        i--; /* the body's first item now stands where the region was */
        break;
      }
      rewrap(&u);
    }
  }
  free(u.exits.v);
  return ok;
}

static bool shrink(reducer *rd) {
  items it = {0};
  bool ok = collect(rd->module, &it), progress = true;
  while (ok && progress && rd->trials < MAX_TRIALS) {
    progress = false;
    ok = delete_items(rd, &it, &progress) && unwrap_regions(rd, &it, &progress);
  }
  free(it.v);
  return ok;
}

static size_t count_items(wave_module *m) {
  items it = {0};
  size_t n = collect(m, &it) ? it.n : 0;
  free(it.v);
  return n;
}

char *wave_reduce(const wave_difftest *test, const char *text, size_t len,
                  wave_reduce_stats *stats) {
  wave_reduce_stats local = {0};
  stats = stats ? stats : &local;
  memset(stats, 0, sizeof(*stats));
  wave_diff_report report;
  wave_diff_status status = wave_difftest_run(test, text, len, &report);
  if (status != WAVE_DIFF_MISMATCH && status != WAVE_DIFF_BAD_TRANSFORM)
    return NULL;

  reducer rd = {0};
  rd.full = test;
  rd.target = status;
  rd.trial = *test;
  if (report.width) {
    rd.trial.widths[0] = report.width;
    rd.trial.num_widths = 1;
  }
  wave_diags diags;
  wave_diags_init(&diags);
  rd.module = wave_parse_string(text, len, "<reduce>", &diags);
  wave_diags_free(&diags);
  uint64_t steps = 0;
  if (!rd.module || !wave_difftest_original_ok(test, rd.module, &steps)) {
    wave_module_destroy(rd.module);
    return NULL;
  }
  /* Deletions may lengthen loops, but a kernel that runs far longer than the input is one
   * whose loop counter was deleted: cut it short. */
  rd.trial.max_steps = 16 * steps + 100000;
  stats->items_before = count_items(rd.module);
  char *out = NULL;
  if (shrink(&rd)) {
    size_t out_len;
    out = print_docs(rd.module, &out_len);
  }
  stats->items_after = count_items(rd.module);
  stats->trials = rd.trials;
  wave_module_destroy(rd.module);
  return out;
}

bool wave_reduce_to_file(const wave_difftest *test, const char *text, size_t len,
                         const char *header, const char *path, FILE *log) {
  wave_reduce_stats stats;
  char *reduced = wave_reduce(test, text, len, &stats);
  if (!reduced) {
    fprintf(log, "reducer: the kernel does not fail the test, or memory ran out\n");
    return false;
  }
  FILE *f = fopen(path, "w");
  bool ok = f && (!header || fputs(header, f) >= 0) && fputs(reduced, f) >= 0;
  if (f && fclose(f) != 0)
    ok = false;
  free(reduced);
  if (!ok) {
    fprintf(log, "reducer: cannot write '%s'\n", path);
    return false;
  }
  fprintf(log, "reduced kernel (%zu of %zu items, %zu trials): %s\n", stats.items_after,
          stats.items_before, stats.trials, path);
  return true;
}
