/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test-case reducer: shrinks a kernel on which a transformation misbehaves, in the manner of
 * delta debugging. The items are instructions and whole if/loop regions, in text order; chunks
 * of consecutive items are deleted (halves first, then quarters, ... down to single items),
 * and a change stays only when the smaller kernel verifies, its original runs without error
 * at every width, and the test fails as before. When no single item can go, each region is
 * tried in place of its body; the two moves alternate until neither makes progress.
 *
 * Every candidate is made from a fresh parse of the current kernel with the editing API
 * (waveopt/edit.h) and printed again, so a rejected edit needs no undoing and the reducer keeps
 * no positions into a tree it has changed.
 */
#include <stdlib.h>
#include <string.h>

#include "difftest.h"
#include "waveopt/edit.h"

enum { MAX_TRIALS = 50000 };

/* An instruction or a whole if/loop, in text order. */
typedef struct item {
  wave_node *node;       /* an if or loop; NULL for an instruction */
  wave_instr *instr;
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
  it->v[it->n].node = node;
  it->v[it->n].instr = instr;
  it->n++;
  return true;
}

/* Every if, loop and instruction of the module in text order. */
static bool collect(wave_module *m, items *it) {
  it->n = 0;
  wave_foreach_kernel(k, m) {
    wave_foreach_region(reg, k) {
      wave_walker w;
      wave_walk_init(&w, wave_region_body(reg));
      while (wave_walk_next(&w)) {
        if (w.event == WAVE_WALK_IF || w.event == WAVE_WALK_LOOP) {
          if (!push(it, w.node, NULL))
            return false;
        } else if (w.event == WAVE_WALK_BLOCK) {
          wave_foreach_instr(i, w.node)
            if (!push(it, NULL, i))
              return false;
        }
      }
    }
  }
  return true;
}

static bool has_wave_ops(wave_module *m) {
  wave_foreach_kernel(k, m) wave_foreach_block(b, k) wave_foreach_instr(
      i, b) if (wave_opcode_get(wave_instr_op(i))->category == WAVE_CAT_WAVE) return true;
  return false;
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
  char *text;               /* the smallest kernel that still fails, documentation dialect */
  size_t len;
  size_t num_items;         /* of text */
  size_t trials;
} reducer;

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

/* Whether a candidate still fails the way the input did, and is still a kernel whose original
 * runs cleanly. */
static bool still_fails(reducer *rd, wave_module *m, const char *text, size_t len) {
  rd->trials++;
  wave_diff_report report;
  if (wave_difftest_run(&rd->trial, text, len, &report) != rd->target ||
      !(has_wave_ops(m) || schedule_independent(rd, text, len)))
    return false;
  wave_difftest all_widths = *rd->full;
  all_widths.max_steps = rd->trial.max_steps;
  return wave_difftest_original_ok(&all_widths, m, NULL);
}

/* Deleting items first .. first+count-1 (count > 0), or putting the if or loop at item `first`
 * in place of one of its bodies, so that what matters inside a region can outlive the region
 * (deleting the region would take it along). */
typedef struct edit {
  size_t first, count;
  int body;   /* -1: delete; 0: a loop's body or an if's then-list; 1: an if's else-list */
} edit;

static bool delete_items(wave_module *m, items *it, size_t first, size_t count) {
  wave_node_list *gone = wave_node_list_create(m);
  if (!gone)
    return false;
  /* Last first: an item nested in a region goes before the region does. */
  for (size_t j = first + count; j-- > first;) {
    if (it->v[j].node)
      wave_node_list_extract(it->v[j].node, it->v[j].node, gone);
    else
      wave_instr_remove(it->v[j].instr);
  }
  return true;
}

/* A loop's own breaks and continues (not a nested loop's) would leave the loop they belong to
 * once its body stands in its place. False when memory ran out. */
static bool remove_exits(wave_node_list *body) {
  items exits = {0};
  unsigned nested = 0;
  bool ok = true;
  wave_walker w;
  wave_walk_init(&w, body);
  while (ok && wave_walk_next(&w)) {
    if (w.event == WAVE_WALK_LOOP || w.event == WAVE_WALK_ENDLOOP) {
      nested += w.event == WAVE_WALK_LOOP ? 1 : -1;
    } else if (w.event == WAVE_WALK_BLOCK && nested == 0) {
      wave_foreach_instr(in, w.node) if (ok && (wave_instr_op(in) == WAVE_OP_BREAK ||
                                                wave_instr_op(in) == WAVE_OP_CONTINUE)) ok =
          push(&exits, NULL, in);
    }
  }
  for (size_t i = 0; ok && i < exits.n; i++)
    wave_instr_remove(exits.v[i].instr);
  free(exits.v);
  return ok;
}

/* False when the edit does not apply (item `first` is no region with that body, or the body is
 * empty) or memory ran out. */
static bool unwrap(const item *x, int body) {
  wave_node *node = x->node;
  if (!node)
    return false;
  wave_node_list *list = wave_node_kind_of(node) == WAVE_NODE_LOOP
                             ? (body ? NULL : wave_loop_body(node))
                         : body ? wave_if_else(node)
                                : wave_if_then(node);
  if (!list || wave_node_list_is_empty(list))
    return false;
  if (wave_node_kind_of(node) == WAVE_NODE_LOOP && !remove_exits(list))
    return false;
  return wave_node_replace(node, list);
}

/* Makes the candidate from a fresh parse of the current kernel and keeps it when it still
 * fails; returns whether it was kept. */
static bool try_edit(reducer *rd, const edit *e) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_string(rd->text, rd->len, "<reduce>", &diags);
  wave_diags_free(&diags);
  items it = {0};
  bool applies = m && collect(m, &it) && e->first + e->count <= it.n;
  if (applies && e->body < 0)
    applies = delete_items(m, &it, e->first, e->count);
  else if (applies)
    applies = unwrap(&it.v[e->first], e->body);
  bool kept = false;
  if (applies) {
    wave_foreach_kernel(k, m) wave_normalize_kernel(k);
    size_t len;
    char *text = print_docs(m, &len);
    if (text && still_fails(rd, m, text, len) && collect(m, &it)) {
      free(rd->text);
      rd->text = text;
      rd->len = len;
      rd->num_items = it.n;
      kept = true;
    } else {
      free(text);
    }
  }
  free(it.v);
  wave_module_destroy(m);
  return kept;
}

/* Deletes chunks of items (halves, quarters, ... single items) until no single item can go. */
static bool delete_chunks(reducer *rd) {
  bool progress = false;
  size_t chunk = rd->num_items / 2 ? rd->num_items / 2 : 1;
  for (;;) {
    bool deleted = false;
    for (size_t i = 0; i < rd->num_items && rd->trials < MAX_TRIALS;) {
      size_t k = rd->num_items - i < chunk ? rd->num_items - i : chunk;
      edit e = {i, k, -1};
      if (try_edit(rd, &e))
        deleted = progress = true;
      else
        i += k;
    }
    if (rd->trials >= MAX_TRIALS || (chunk == 1 && !deleted))
      return progress;
    if (chunk > 1)
      chunk /= 2;
  }
}

/* Tries to unwrap every region (an if into its then- or else-list, a loop into its body). */
static bool unwrap_regions(reducer *rd) {
  bool progress = false;
  for (size_t i = 0; i < rd->num_items && rd->trials < MAX_TRIALS; i++) {
    for (int body = 0; body < 2; body++) {
      edit e = {i, 1, body};
      if (try_edit(rd, &e)) {
        progress = true;
        i--; /* the body's first item now stands where the region was */
        break;
      }
    }
  }
  return progress;
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
  if (status != WAVE_DIFF_MISMATCH && status != WAVE_DIFF_BAD_TRANSFORM &&
      status != WAVE_DIFF_HAZARD)
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
  wave_module *m = wave_parse_string(text, len, "<reduce>", &diags);
  wave_diags_free(&diags);
  uint64_t steps = 0;
  if (m && wave_difftest_original_ok(test, m, &steps)) {
    rd.text = print_docs(m, &rd.len);
    rd.num_items = count_items(m);
  }
  wave_module_destroy(m);
  if (!rd.text)
    return NULL;
  /* Deletions may lengthen loops, but a kernel that runs far longer than the input is one
   * whose loop counter was deleted: cut it short. */
  rd.trial.max_steps = 16 * steps + 100000;
  stats->items_before = rd.num_items;
  for (bool progress = true; progress && rd.trials < MAX_TRIALS;) {
    bool deleted = delete_chunks(&rd);
    bool unwrapped = unwrap_regions(&rd);
    progress = deleted || unwrapped;
  }
  stats->items_after = rd.num_items;
  stats->trials = rd.trials;
  return rd.text;
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
