/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Liveness of GPRs and predicates at every point of a kernel: a backward dataflow over the
 * region tree, flattened first into a graph of points so that no part of it recurses and a
 * kernel nested 100 000 deep costs what a flat one of the same size costs.
 *
 * The question is asked per lane: may this lane's value of the register still be read? A
 * lane's registers change only where the lane itself is active (docs/language.md "Notation":
 * lanes outside the mask are untouched), and the statements a lane is active for, in the
 * order it runs them, form a path through the graph below. So per lane this is textbook
 * liveness over the graph, and a write that lane runs replaces its old value, wherever it
 * stands: inside an if or a loop too. The wave-level reading of docs/language.md "Partial
 * definitions" (`rd = M ? op : rd_old`) is about the register of all lanes at once; the lanes
 * that keep rd_old took another path (the other side of the if, out by an earlier break),
 * and that path is in the graph, so their value stays live where they stand. A loop-carried
 * value, for example, stays live before a break that leads to its use, whatever the body
 * writes after the break.
 *
 * Points, in text order: every instruction, and markers for `if`, `else`, `endif`, `loop`,
 * `endloop` and the end of each region. A region falls into the next one (docs/language.md
 * "Labels and subroutines"); the last region's end has no successor. Edges:
 *   - `if p`: to the then-list and to the else-list; every lane takes one of them
 *     (docs/language.md "If and else"), a uniform branch included;
 *   - the end of the then-list jumps to the endif;
 *   - `endloop` goes back to `loop`; `break` also goes to the point after `endloop` and
 *     `continue` to `loop` (docs/language.md "Loops"). Lanes leave a loop only by break;
 *   - an unguarded `halt`, and `return` in the entry region (where no call can be pending),
 *     have no successor: nothing is live after them; a guarded one falls through
 *     (docs/language.md "Halt and return").
 * The worklist iterates to the least fixpoint; each point's set only grows, so the number of
 * rounds is bounded by the lattice height.
 *
 * Transfer: live-in = uses + (live-out - kills). Uses come from wave_instr_uses (pairs and
 * quads expanded, a guarded instruction's destinations included: lanes the guard turns off
 * keep the old value, so a guarded write kills nothing). `call` and a subroutine's `return`
 * read every register: the callee and the caller share them and are not analysed together. A
 * register read before any write at kernel entry comes out live-in there (a kernel argument).
 *
 * One read escapes the per-lane view: shuffles and broadcast fetch their source from other
 * lanes, inactive and ended ones included (wave_instr_other_lane_uses). A lane parked or ended
 * while others run such a read must keep the value, though the read lies on no path of its
 * own. For those registers only (the kernel's "other-lane" set):
 *   - a write kills only at a region's top level, where every lane of the region that has not
 *     ended is active, so no lane is parked while the others run from there;
 *   - lanes parked at the end of a then-list wait while the else-list runs: an extra edge
 *     from the else marker to the else-list carries these registers;
 *   - a lane that ends (`halt`, or `return` in the entry region, guarded or not) keeps them
 *     for good: they are live into it.
 * Elsewhere the lanes that run on are the only ones off their own path, and they run on along
 * graph edges: a then-list from its if, the rest of the body from a break or continue.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm/builtin.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "waveopt/waveopt.h"

enum point_kind { P_INSTR, P_IF, P_ELSE, P_ENDIF, P_LOOP, P_ENDLOOP, P_REGION_END };

#define NO_POINT UINT32_MAX

/* What a P_INSTR's writes kill (see the rules above). */
enum kill_rule { KILLS_NOTHING, KILLS_LANE_REGS, KILLS_ALL };

typedef struct point {
  uint8_t kind;
  uint8_t kill;             /* P_INSTR: enum kill_rule */
  bool other_lane_edge;     /* its last successor carries only the other-lane registers */
  uint8_t num_succ;
  uint8_t cond;             /* P_IF: the predicate it reads */
  const wave_instr *instr;  /* P_INSTR */
  uint32_t succ[3];
  uint32_t partner;         /* P_IF: its else; P_LOOP: its endloop; break, continue: loop */
} point;

/* Where a node's points lie: [first, after), and an if's else marker. */
typedef struct node_span {
  const void *key;
  uint32_t first, after, mid;
} node_span;

struct wave_liveness {
  const wave_kernel *kernel;
  size_t num_points;
  point *points;
  wave_regset *in, *out;
  node_span *instrs, *nodes;  /* sorted by key */
  size_t num_instrs, num_nodes;
  uint32_t *region_ends;      /* by region order */
  size_t num_regions;
  wave_regset everything;     /* r0..registers-1 and p0..p3 */
  wave_regset other_lanes;    /* read by some instruction in lanes other than their own */
};

typedef struct builder {
  wave_liveness *lv;
  size_t cap_points, cap_instrs, cap_nodes, cap_stack;
  uint32_t *stack;            /* open if/loop points */
  size_t depth;
  bool failed;
} builder;

static bool grow(void **array, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return true;
  size_t cap2 = *cap ? *cap * 2 : 64;
  while (cap2 < need)
    cap2 *= 2;
  void *p = realloc(*array, cap2 * size);
  if (!p)
    return false;
  *array = p;
  *cap = cap2;
  return true;
}

static uint32_t add_point(builder *b, uint8_t kind, const wave_instr *instr) {
  wave_liveness *lv = b->lv;
  if (!grow((void **)&lv->points, &b->cap_points, lv->num_points + 1, sizeof(point))) {
    b->failed = true;
    return NO_POINT;
  }
  uint32_t i = (uint32_t)lv->num_points++;
  point *p = &lv->points[i];
  memset(p, 0, sizeof(*p));
  p->kind = kind;
  p->instr = instr;
  p->partner = NO_POINT;
  return i;
}

static void add_span(builder *b, node_span **spans, size_t *num, size_t *cap, const void *key,
                     uint32_t first, uint32_t after, uint32_t mid) {
  if (!grow((void **)spans, cap, *num + 1, sizeof(node_span))) {
    b->failed = true;
    return;
  }
  (*spans)[(*num)++] = (node_span){key, first, after, mid};
}

static bool push(builder *b, uint32_t i) {
  if (!grow((void **)&b->stack, &b->cap_stack, b->depth + 1, sizeof(uint32_t)))
    return b->failed = true, false;
  b->stack[b->depth++] = i;
  return true;
}

/* The innermost open loop's point, or NO_POINT (a break outside loops: the verifier's
 * business; the edge is then just left out). */
static uint32_t innermost_loop(const builder *b) {
  for (size_t d = b->depth; d-- > 0;)
    if (b->lv->points[b->stack[d]].kind == P_LOOP)
      return b->stack[d];
  return NO_POINT;
}

/* halt, and return where no call can be pending: the lanes that run it end, guarded or not. */
static bool ends_lanes(const wave_instr *instr, bool entry_region) {
  return instr->op == WAVE_OP_HALT || (instr->op == WAVE_OP_RETURN && entry_region);
}

static void add_instr(builder *b, const wave_instr *instr, unsigned depth, bool entry_region) {
  uint32_t i = add_point(b, P_INSTR, instr);
  if (i == NO_POINT)
    return;
  point *p = &b->lv->points[i];
  bool guarded = instr->guard != WAVE_NO_GUARD;
  p->kill = guarded ? KILLS_NOTHING : depth == 0 ? KILLS_ALL : KILLS_LANE_REGS;
  if (guarded || !ends_lanes(instr, entry_region))
    p->succ[p->num_succ++] = i + 1;
  if (instr->op == WAVE_OP_BREAK || instr->op == WAVE_OP_CONTINUE)
    p->partner = innermost_loop(b);
  /* Complete before solve() runs, which is all the kill rule needs. */
  wave_regset other;
  wave_instr_other_lane_uses(instr, &other);
  b->lv->other_lanes = wave_regset_union(b->lv->other_lanes, other);
  add_span(b, &b->lv->instrs, &b->lv->num_instrs, &b->cap_instrs, instr, i, i + 1, i);
}

static void flatten_region(builder *b, const wave_region *region, bool entry_region) {
  wave_const_walker w;
  wave_const_walk_init(&w, &region->body);
  while (!b->failed && wave_const_walk_next(&w)) {
    const wave_node *n = w.node;
    wave_liveness *lv = b->lv;
    uint32_t i;
    switch (w.event) {
    case WAVE_WALK_BLOCK: {
      uint32_t first = (uint32_t)lv->num_points;
      wave_foreach_instr(instr, n)
        add_instr(b, instr, w.depth, entry_region);
      add_span(b, &lv->nodes, &lv->num_nodes, &b->cap_nodes, n, first,
               (uint32_t)lv->num_points, first);
      break;
    }
    case WAVE_WALK_IF:
    case WAVE_WALK_LOOP:
      i = add_point(b, w.event == WAVE_WALK_IF ? P_IF : P_LOOP, NULL);
      if (i != NO_POINT && push(b, i)) {
        lv->points[i].succ[lv->points[i].num_succ++] = i + 1;
        if (w.event == WAVE_WALK_IF)
          lv->points[i].cond = (uint8_t)n->u.if_.cond.value;
      }
      break;
    case WAVE_WALK_ELSE:
      i = add_point(b, P_ELSE, NULL);
      if (i != NO_POINT)
        lv->points[b->stack[b->depth - 1]].partner = i;
      break;
    case WAVE_WALK_ENDIF: {
      uint32_t head = b->stack[--b->depth];
      i = add_point(b, P_ENDIF, NULL);
      if (i == NO_POINT)
        break;
      point *h = &lv->points[head];
      uint32_t els = h->partner;
      h->succ[h->num_succ++] = els + 1;
      point *e = &lv->points[els];
      e->succ[e->num_succ++] = i;
      if (els + 1 != i) {
        e->succ[e->num_succ++] = els + 1;
        e->other_lane_edge = true;
      }
      lv->points[i].succ[lv->points[i].num_succ++] = i + 1;
      add_span(b, &lv->nodes, &lv->num_nodes, &b->cap_nodes, n, head, i + 1, els);
      break;
    }
    case WAVE_WALK_ENDLOOP: {
      uint32_t head = b->stack[--b->depth];
      i = add_point(b, P_ENDLOOP, NULL);
      if (i == NO_POINT)
        break;
      lv->points[head].partner = i;
      lv->points[i].succ[lv->points[i].num_succ++] = head;
      add_span(b, &lv->nodes, &lv->num_nodes, &b->cap_nodes, n, head, i + 1, i);
      break;
    }
    }
  }
}

static int by_key(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const node_span *)a)->key;
  uintptr_t y = (uintptr_t)((const node_span *)b)->key;
  return x < y ? -1 : x > y;
}

static const node_span *find_span(const node_span *spans, size_t num, const void *key) {
  node_span probe = {key, 0, 0, 0};
  return bsearch(&probe, spans, num, sizeof(node_span), by_key);
}

/* Break and continue learnt their loop's head while flattening; the endloop is known now. */
static void link_exits(wave_liveness *lv) {
  for (size_t i = 0; i < lv->num_points; i++) {
    point *p = &lv->points[i];
    if (p->kind != P_INSTR || p->partner == NO_POINT)
      continue;
    uint32_t head = p->partner;
    p->succ[p->num_succ++] =
        p->instr->op == WAVE_OP_BREAK ? lv->points[head].partner + 1 : head;
  }
}

static bool crosses_regions(const point *p, bool entry_region) {
  return p->kind == P_INSTR && (p->instr->op == WAVE_OP_CALL ||
                                (p->instr->op == WAVE_OP_RETURN && !entry_region));
}

static wave_regset gen_of(const wave_liveness *lv, const point *p, bool entry_region) {
  wave_regset s = wave_regset_empty();
  if (p->kind == P_IF)
    wave_regset_set(&s, WAVE_REG_PRED(p->cond));
  if (p->kind != P_INSTR)
    return s;
  if (crosses_regions(p, entry_region))
    return lv->everything;
  wave_instr_uses(p->instr, &s);
  if (ends_lanes(p->instr, entry_region))
    s = wave_regset_union(s, lv->other_lanes);
  return s;
}

/* The backward fixpoint over predecessor lists, with a worklist seeded in reverse text order
 * so that straight-line code settles in one sweep. */
static bool solve(wave_liveness *lv, const bool *in_entry) {
  size_t n = lv->num_points;
  uint32_t *pred_start = calloc(n + 1, sizeof(uint32_t));
  uint32_t *preds = NULL, *work = malloc(n * sizeof(uint32_t) + 1);
  bool *queued = malloc(n + 1);
  bool ok = pred_start && work && queued;
  size_t edges = 0;
  for (size_t i = 0; ok && i < n; i++)
    for (unsigned s = 0; s < lv->points[i].num_succ; s++, edges++)
      pred_start[lv->points[i].succ[s] + 1]++;
  ok = ok && (preds = malloc(edges * sizeof(uint32_t) + 1)) != NULL;
  if (ok) {
    for (size_t i = 0; i < n; i++)
      pred_start[i + 1] += pred_start[i];
    uint32_t *fill = calloc(n + 1, sizeof(uint32_t));
    ok = fill != NULL;
    for (size_t i = 0; ok && i < n; i++)
      for (unsigned s = 0; s < lv->points[i].num_succ; s++) {
        uint32_t t = lv->points[i].succ[s];
        preds[pred_start[t] + fill[t]++] = (uint32_t)i;
      }
    free(fill);
  }
  if (ok) {
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
      work[top++] = (uint32_t)i;
      queued[i] = true;
    }
    while (top > 0) {
      uint32_t i = work[--top];
      queued[i] = false;
      const point *p = &lv->points[i];
      /* Lanes leave a call for the callee and a return for some caller: from neither does
       * text order say where they go. */
      wave_regset out = wave_regset_empty();
      if (crosses_regions(p, in_entry[i]))
        out = lv->everything;
      for (unsigned s = 0; s < p->num_succ; s++) {
        wave_regset next = lv->in[p->succ[s]];
        if (p->other_lane_edge && s + 1 == p->num_succ)
          next = wave_regset_intersect(next, lv->other_lanes);
        out = wave_regset_union(out, next);
      }
      wave_regset in = out;
      if (p->kind == P_INSTR && p->kill != KILLS_NOTHING) {
        wave_regset defs;
        wave_instr_defs(p->instr, &defs);
        if (p->kill == KILLS_LANE_REGS)
          defs = wave_regset_subtract(defs, lv->other_lanes);
        in = wave_regset_subtract(in, defs);
      }
      in = wave_regset_union(in, gen_of(lv, p, in_entry[i]));
      lv->out[i] = out;
      if (wave_regset_equal(in, lv->in[i]))
        continue;
      lv->in[i] = in;
      for (uint32_t e = pred_start[i]; e < pred_start[i + 1]; e++)
        if (!queued[preds[e]]) {
          queued[preds[e]] = true;
          work[top++] = preds[e];
        }
    }
  }
  free(pred_start);
  free(preds);
  free(work);
  free(queued);
  return ok;
}

wave_liveness *wave_liveness_compute(const wave_kernel *kernel) {
  wave_liveness *lv = calloc(1, sizeof(*lv));
  if (!lv)
    return NULL;
  lv->kernel = kernel;
  for (unsigned r = 0; r < kernel->registers && r <= WAVE_MAX_GPR; r++)
    wave_regset_set(&lv->everything, WAVE_REG_GPR(r));
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    wave_regset_set(&lv->everything, WAVE_REG_PRED(p));
  builder b = {.lv = lv};
  size_t cap_regions = 0;
  bool *in_entry = NULL;
  wave_foreach_region(region, kernel) {
    bool entry = region == kernel->first_region;
    flatten_region(&b, region, entry);
    uint32_t end = b.failed ? NO_POINT : add_point(&b, P_REGION_END, NULL);
    if (end != NO_POINT && region->next)
      lv->points[end].succ[lv->points[end].num_succ++] = end + 1;
    if (!b.failed && !grow((void **)&lv->region_ends, &cap_regions, lv->num_regions + 1,
                           sizeof(uint32_t)))
      b.failed = true;
    if (b.failed)
      break;
    lv->region_ends[lv->num_regions++] = end;
  }
  free(b.stack);
  if (!b.failed) {
    link_exits(lv);
    qsort(lv->instrs, lv->num_instrs, sizeof(node_span), by_key);
    qsort(lv->nodes, lv->num_nodes, sizeof(node_span), by_key);
    lv->in = calloc(lv->num_points + 1, sizeof(wave_regset));
    lv->out = calloc(lv->num_points + 1, sizeof(wave_regset));
    in_entry = calloc(lv->num_points + 1, sizeof(bool));
  }
  if (b.failed || !lv->in || !lv->out || !in_entry) {
    free(in_entry);
    wave_liveness_destroy(lv);
    return NULL;
  }
  uint32_t entry_end = lv->num_regions ? lv->region_ends[0] : 0;
  for (size_t i = 0; i < lv->num_points && i <= entry_end; i++)
    in_entry[i] = true;
  bool ok = solve(lv, in_entry);
  free(in_entry);
  if (!ok) {
    wave_liveness_destroy(lv);
    return NULL;
  }
  return lv;
}

void wave_liveness_destroy(wave_liveness *lv) {
  if (!lv)
    return;
  free(lv->points);
  free(lv->in);
  free(lv->out);
  free(lv->instrs);
  free(lv->nodes);
  free(lv->region_ends);
  free(lv);
}

wave_regset wave_liveness_in(const wave_liveness *lv, const wave_instr *instr) {
  const node_span *s = find_span(lv->instrs, lv->num_instrs, instr);
  return s ? lv->in[s->first] : lv->everything;
}

wave_regset wave_liveness_out(const wave_liveness *lv, const wave_instr *instr) {
  const node_span *s = find_span(lv->instrs, lv->num_instrs, instr);
  return s ? lv->out[s->first] : lv->everything;
}

/* The point whose live-in is live at the end of an empty or finished list. */
static uint32_t list_end_point(const wave_liveness *lv, const wave_node_list *list) {
  if (!list->parent) {
    size_t r = 0;
    wave_foreach_region(region, lv->kernel) {
      if (&region->body == list)
        return r < lv->num_regions ? lv->region_ends[r] : NO_POINT;
      r++;
    }
    return NO_POINT;
  }
  const node_span *s = find_span(lv->nodes, lv->num_nodes, list->parent);
  if (!s)
    return NO_POINT;
  if (list->parent->kind == WAVE_NODE_IF && list == &list->parent->u.if_.then_body)
    return s->mid;
  return s->after - 1;  /* the endif or endloop marker */
}

static uint32_t node_point(const wave_liveness *lv, const wave_node *node, bool after) {
  const node_span *s = find_span(lv->nodes, lv->num_nodes, node);
  if (!s)
    return NO_POINT;
  if (!after)
    return s->first;
  /* The last node of a then-list or loop body is followed by its list's end marker. */
  return node->next || !node->list ? s->after : list_end_point(lv, node->list);
}

wave_regset wave_liveness_at(const wave_liveness *lv, wave_cursor at) {
  uint32_t p = NO_POINT;
  switch (at.kind) {
  case WAVE_CURSOR_BEFORE_INSTR:
    return wave_liveness_in(lv, at.at.instr);
  case WAVE_CURSOR_AFTER_INSTR:
    return wave_liveness_out(lv, at.at.instr);
  case WAVE_CURSOR_BLOCK_START:
  case WAVE_CURSOR_BEFORE_NODE:
    p = node_point(lv, at.at.node, false);
    break;
  case WAVE_CURSOR_BLOCK_END:
  case WAVE_CURSOR_AFTER_NODE:
    p = node_point(lv, at.at.node, true);
    break;
  case WAVE_CURSOR_LIST_START:
    p = at.at.list->first ? node_point(lv, at.at.list->first, false)
                          : list_end_point(lv, at.at.list);
    break;
  case WAVE_CURSOR_LIST_END:
    p = list_end_point(lv, at.at.list);
    break;
  }
  return p < lv->num_points ? lv->in[p] : lv->everything;
}

wave_regset wave_liveness_across(const wave_liveness *lv, const wave_node *node) {
  uint32_t before = node_point(lv, node, false), after = node_point(lv, node, true);
  if (before >= lv->num_points || after >= lv->num_points)
    return lv->everything;
  return wave_regset_intersect(lv->in[before], lv->in[after]);
}

wave_regset wave_liveness_free(const wave_liveness *lv, wave_cursor at) {
  return wave_regset_subtract(lv->everything, wave_liveness_at(lv, at));
}

bool wave_liveness_equal(const wave_liveness *a, const wave_liveness *b) {
  if (a->num_points != b->num_points)
    return false;
  for (size_t i = 0; i < a->num_points; i++)
    if (!wave_regset_equal(a->in[i], b->in[i]) || !wave_regset_equal(a->out[i], b->out[i]))
      return false;
  return true;
}

/* ---- the analysis ------------------------------------------------------------------------- */

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  (void)am;
  wave_liveness *lv = wave_liveness_compute(kernel);
  if (!lv)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0,
                     "out of memory computing liveness of kernel '%s'", kernel->name);
  return lv;
}

static void destroy(void *result) { wave_liveness_destroy(result); }

static bool equal(const void *a, const void *b) { return wave_liveness_equal(a, b); }

typedef struct out_buf {
  wave_write_fn write;
  void *ctx;
  int status;
} out_buf;

static void put(out_buf *o, const char *s, size_t len) {
  if (o->status == 0)
    o->status = o->write(o->ctx, s, len);
}

static void puts_(out_buf *o, const char *s) { put(o, s, strlen(s)); }

static void indent(out_buf *o, unsigned depth) {
  for (unsigned d = 0; d < depth + 1 && d < 16; d++)
    put(o, "    ", 4);
}

static void put_set(out_buf *o, wave_regset s) {
  puts_(o, "; live:");
  char name[16];
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++) {
    if (!wave_regset_test(s, r))
      continue;
    int n = r > WAVE_MAX_GPR ? snprintf(name, sizeof(name), " p%u", r - (WAVE_MAX_GPR + 1))
                             : snprintf(name, sizeof(name), " r%u", r);
    put(o, name, (size_t)n);
  }
}

/* The kernel in the documentation dialect, one statement a line, each instruction followed
 * by the registers live after it. */
static int print(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx) {
  const wave_liveness *lv = result;
  out_buf o = {write, ctx, 0};
  puts_(&o, ".kernel ");
  puts_(&o, kernel->name);
  puts_(&o, "\n");
  char text[256];
  wave_foreach_region(region, kernel) {
    if (region->label) {
      puts_(&o, region->label);
      puts_(&o, ":\n");
    }
    wave_const_walker w;
    wave_const_walk_init(&w, &region->body);
    while (o.status == 0 && wave_const_walk_next(&w)) {
      const wave_node *n = w.node;
      switch (w.event) {
      case WAVE_WALK_BLOCK:
        wave_foreach_instr(instr, n) {
          indent(&o, w.depth);
          size_t len = wave_format_instr(instr, text, sizeof(text));
          put(&o, text, len < sizeof(text) ? len : sizeof(text) - 1);
          /* Annotations start in one column, or one space after a long line. */
          for (size_t col = 4 * (size_t)(w.depth + 1) + len; col < 40; col++)
            put(&o, " ", 1);
          put(&o, " ", 1);
          put_set(&o, wave_liveness_out(lv, instr));
          puts_(&o, "\n");
        }
        break;
      case WAVE_WALK_IF:
        indent(&o, w.depth);
        snprintf(text, sizeof(text), "if %sp%u\n", n->u.if_.cond.negated ? "!" : "",
                 (unsigned)n->u.if_.cond.value);
        puts_(&o, text);
        break;
      case WAVE_WALK_ELSE:
        if (n->u.if_.has_else || n->u.if_.else_body.first) {
          indent(&o, w.depth);
          puts_(&o, "else\n");
        }
        break;
      case WAVE_WALK_ENDIF:
        indent(&o, w.depth);
        puts_(&o, "endif\n");
        break;
      case WAVE_WALK_LOOP:
        indent(&o, w.depth);
        puts_(&o, "loop\n");
        break;
      case WAVE_WALK_ENDLOOP:
        indent(&o, w.depth);
        puts_(&o, "endloop\n");
        break;
      }
    }
  }
  puts_(&o, ".end\n");
  return o.status;
}

const wave_analysis_info wave_analysis_liveness = {
    .name = "liveness",
    .help = "GPRs and predicates live at every point, per lane",
    .compute = compute,
    .destroy = destroy,
    .equal = equal,
    .print = print,
};
