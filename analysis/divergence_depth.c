/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Divergence-stack depth: the most frames a wave may hold at once, counting every if and loop
 * (the static depth) or only those that can split the wave (the divergent depth), and the way
 * to a deepest point.
 *
 * Rules. The interpreter pushes one frame at every `if` and `loop` and pops it at the endif or
 * when the loop is left (docs/language.md "Active mask and divergence stack", "Machine
 * limits": a frame whether or not the construct diverges). A `call` records the stack's depth
 * and the subroutine pushes on top of the caller's frames; `return` drops back to the recorded
 * depth (docs/language.md "Calls"). Execution falls from a region into the next one at the same
 * depth, the labels sitting at the top level (docs/language.md "Labels and subroutines"). So a
 * wave holds, at any point, the frames of the ifs and loops open around it in its region plus
 * the frames open at each pending call. For the divergent depth a construct counts when the
 * uniformity analysis calls it divergent: an if whose predicate may differ between the active
 * lanes, a loop that lanes may leave at different iterations.
 *
 * Computation, linear in the kernel's size (but a sort of its ifs and loops for the node
 * queries). One pass over the kernel's flat layout (ir/layout.h, shared with the other
 * analyses; no recursion: an if or loop finds the one around it through the parent index it
 * keeps, so 100 000-deep nests cost nothing special) gives every if and loop its depth inside its
 * region, and every call an edge of a graph of regions weighted by the frames open at the call; a
 * region that does not end in an unguarded halt or return also gets a weight-0 edge into the next
 * region. The deepest entry of each region is then a longest path from the kernel's entry: the
 * graph's strongly connected components (Tarjan's algorithm, with an explicit stack) are taken in
 * topological order; a component with an edge of positive weight inside it is a recursion
 * that deepens on every lap, so it and everything it reaches is unbounded; otherwise its
 * inner edges weigh 0 and all its regions share one entry depth. Recursion at the top level
 * of a subroutine does not deepen the stack and stays bounded (the interpreter still stops it
 * after WAVE_MAX_CALL_DEPTH calls, a limit the spec leaves to the machine).
 *
 * Soundness: the answer is an upper bound. Every if and loop is assumed to push (the
 * interpreter skips the frame of an if that is uniformly false and has no else), every call
 * to be made, every region that may fall through to fall through, and uniformity only errs
 * towards divergent. tests/unit/test_depth.c runs generated and corpus kernels and checks the
 * interpreter's deepest stack against the static depth.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "support/grow.h"
#include "support/key_index.h"
#include "waveopt/depth.h"

#define NONE UINT32_MAX
#define KINDS 2

/* An if or a loop. */
typedef struct site {
  const wave_node *node;
  uint32_t region;
  uint32_t outer[KINDS];    /* the innermost site around it that counts for the kind, or NONE */
  uint32_t local[KINDS];    /* frames of the kind from its region's start, its own included */
  bool divergent;
} site;

/* A way from one region into another: a call, or falling into the next region. */
typedef struct edge {
  const wave_instr *call;   /* NULL when falling through */
  uint32_t from, to;
  uint32_t around[KINDS];   /* the innermost site around the call that counts, or NONE */
  uint32_t weight[KINDS];   /* frames of the kind open at the call */
} edge;

typedef struct region_info {
  uint32_t first_edge, num_edges;
  uint32_t deepest[KINDS];  /* its site with the most frames of the kind, or NONE */
  uint32_t comp;            /* strongly connected component; NONE when never entered */
  uint32_t base[KINDS];     /* frames open when it is entered, at the deepest */
  uint32_t via[KINDS];      /* the edge that enters it that deep; NONE for the entry */
  bool unbounded[KINDS];
} region_info;

typedef struct deepest_way {
  uint32_t max;             /* WAVE_DEPTH_UNBOUNDED when unbounded */
  wave_depth_step *steps;
  size_t length, cycle, cap;
} deepest_way;

struct wave_depth {
  site *sites;
  size_t num_sites;
  edge *edges;
  size_t num_edges;
  region_info *regions;
  size_t num_regions;
  uint32_t num_comps;
  const void **site_nodes;  /* each site's node, in the same order */
  wave_key_index by_node;
  deepest_way ways[KINDS];
  const wave_allocator *allocator; /* the kernel's module's, for destroy */
};

static bool counts(const site *s, int kind) { return kind == WAVE_DEPTH_STATIC || s->divergent; }

/* The innermost site at `at` or around it that counts for the kind; NONE for none. */
static uint32_t counting(const wave_depth *d, uint32_t at, int kind) {
  return at == NONE || counts(&d->sites[at], kind) ? at : d->sites[at].outer[kind];
}

static uint32_t local_at(const wave_depth *d, uint32_t at, int kind) {
  return at == NONE ? 0 : d->sites[at].local[kind];
}

/* Whether execution may run off the region's end into the next one. */
static bool falls_through(const wave_region *r) {
  const wave_node *last = wave_node_list_last(wave_region_body(r));
  if (!last || wave_node_kind_of(last) != WAVE_NODE_BLOCK || !wave_block_last(last))
    return true;
  const wave_instr *i = wave_block_last(last);
  return wave_instr_guard(i) != WAVE_NO_GUARD ||
         (wave_instr_op(i) != WAVE_OP_HALT && wave_instr_op(i) != WAVE_OP_RETURN);
}

/* ---- the walk: sites and edges ------------------------------------------------------------ */

typedef struct builder {
  wave_depth *d;
  size_t cap_sites, cap_edges;
} builder;

static bool add_edge(builder *b, const wave_instr *call, uint32_t from, uint32_t to,
                     uint32_t open) {
  wave_depth *d = b->d;
  if (!wave_grow(d->allocator, (void **)&d->edges, &b->cap_edges, d->num_edges + 1, sizeof(edge)))
    return false;
  edge *e = &d->edges[d->num_edges++];
  e->call = call;
  e->from = from;
  e->to = to;
  for (int k = 0; k < KINDS; k++) {
    e->around[k] = counting(d, open, k);
    e->weight[k] = local_at(d, e->around[k], k);
  }
  return true;
}

/* `at` is the node's position among the layout's statements but blocks, where a uniformity
 * result computed from the same layout keeps it. */
static bool add_site(builder *b, const wave_node *node, uint32_t region, uint32_t open,
                     const wave_uniformity *u, size_t at) {
  wave_depth *d = b->d;
  if (!wave_grow(d->allocator, (void **)&d->sites, &b->cap_sites, d->num_sites + 1, sizeof(site)))
    return false;
  uint32_t index = (uint32_t)d->num_sites++;
  site *s = &d->sites[index];
  s->node = node;
  s->region = region;
  s->divergent = !u || wave_uniformity_node_divergent_at(u, node, at);
  region_info *r = &d->regions[region];
  for (int k = 0; k < KINDS; k++) {
    s->outer[k] = counting(d, open, k);
    s->local[k] = local_at(d, s->outer[k], k) + counts(s, k);
    if (counts(s, k) && (r->deepest[k] == NONE || s->local[k] > d->sites[r->deepest[k]].local[k]))
      r->deepest[k] = index;
  }
  return true;
}

static bool index_kernel(wave_depth *d, const wave_label_table *labels, const wave_layout *layout,
                         const wave_uniformity *u) {
  builder b = {d, 0, 0};
  d->num_regions = labels->num_regions;
  d->regions = wave_mem_calloc(d->allocator, d->num_regions, sizeof(region_info));
  if (!d->regions)
    return false;
  const wave_layout_item *item = layout->items;
  size_t blocks = 0;   /* items so far that are blocks */
  for (uint32_t ri = 0; ri < d->num_regions; ri++) {
    const wave_region *region = labels->regions[ri];
    region_info *info = &d->regions[ri];
    info->first_edge = (uint32_t)d->num_edges;
    info->comp = NONE;
    for (int k = 0; k < KINDS; k++)
      info->deepest[k] = info->via[k] = NONE;
    uint32_t open = NONE;   /* the innermost if or loop around the walk's position */
    for (; item->kind != WAVE_LAYOUT_END_REGION; item++) {
      switch ((wave_layout_kind)item->kind) {
      case WAVE_LAYOUT_IF:
      case WAVE_LAYOUT_LOOP:
        if (!add_site(&b, wave_layout_node(item), ri, open, u,
                      (size_t)(item - layout->items) - blocks))
          return false;
        open = (uint32_t)d->num_sites - 1;
        break;
      case WAVE_LAYOUT_ENDIF:
      case WAVE_LAYOUT_ENDLOOP:
        open = d->sites[open].outer[WAVE_DEPTH_STATIC];
        break;
      case WAVE_LAYOUT_BLOCK:
        blocks++;
        break;
      case WAVE_LAYOUT_INSTR: {
        const wave_instr *i = wave_layout_instr(item);
        if (item->op != WAVE_OP_CALL || !wave_instr_num_operands(i) ||
            wave_instr_operand(i, 0).kind != WAVE_OPERAND_LABEL)
          break;
        size_t to = wave_label_table_find(labels, wave_instr_operand(i, 0).label);
        if (to != WAVE_NO_REGION && !add_edge(&b, i, ri, (uint32_t)to, open))
          return false;
        break;
      }
      default:
        break;
      }
    }
    item++;
    if (ri + 1 < d->num_regions && falls_through(region) && !add_edge(&b, NULL, ri, ri + 1, NONE))
      return false;
    info->num_edges = (uint32_t)d->num_edges - info->first_edge;
  }
  return true;
}

/* ---- the region graph ------------------------------------------------------------------------ */

typedef struct graph_scratch {
  uint32_t *members;        /* regions grouped by component */
  uint32_t *comp_start;     /* members[comp_start[c] .. comp_start[c + 1]) */
  uint32_t *queue;
  uint32_t *seen;           /* == stamp: reached by the current search */
  uint32_t stamp;
  uint32_t *pending;        /* deepest entry found so far from earlier components, NONE: none */
  uint32_t *pending_via;
  bool *pending_unbounded;
  uint32_t *lap;            /* edges of a path inside one component */
} graph_scratch;

/* Tarjan's strongly connected components of the regions reachable from the entry, numbered
 * in the order they complete: an edge between two components goes to a lower number. */
static bool find_components(wave_depth *d) {
  size_t n = d->num_regions;
  const wave_allocator *a = d->allocator;
  uint32_t *index = wave_mem_alloc(a, n * sizeof(uint32_t));
  uint32_t *low = wave_mem_alloc(a, n * sizeof(uint32_t));
  uint32_t *stack = wave_mem_alloc(a, n * sizeof(uint32_t));
  uint32_t *dfs = wave_mem_alloc(a, n * sizeof(uint32_t));
  uint32_t *next = wave_mem_alloc(a, n * sizeof(uint32_t));
  bool *on_stack = wave_mem_calloc(a, n, sizeof(bool));
  bool ok = index && low && stack && dfs && next && on_stack;
  if (ok) {
    for (size_t r = 0; r < n; r++)
      index[r] = NONE;
    uint32_t count = 0, sp = 0, dp = 0;
    index[0] = low[0] = count++;
    stack[sp++] = 0;
    on_stack[0] = true;
    dfs[dp] = 0;
    next[dp++] = d->regions[0].first_edge;
    while (dp) {
      uint32_t v = dfs[dp - 1];
      const region_info *rv = &d->regions[v];
      if (next[dp - 1] < rv->first_edge + rv->num_edges) {
        uint32_t w = d->edges[next[dp - 1]++].to;
        if (index[w] == NONE) {
          index[w] = low[w] = count++;
          stack[sp++] = w;
          on_stack[w] = true;
          dfs[dp] = w;
          next[dp++] = d->regions[w].first_edge;
        } else if (on_stack[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      if (low[v] == index[v]) {
        uint32_t w;
        do {
          w = stack[--sp];
          on_stack[w] = false;
          d->regions[w].comp = d->num_comps;
        } while (w != v);
        d->num_comps++;
      }
      if (--dp && low[v] < low[dfs[dp - 1]])
        low[dfs[dp - 1]] = low[v];
    }
  }
  wave_mem_free(a, index);
  wave_mem_free(a, low);
  wave_mem_free(a, stack);
  wave_mem_free(a, dfs);
  wave_mem_free(a, next);
  wave_mem_free(a, on_stack);
  return ok;
}

static bool scratch_init(graph_scratch *g, const wave_depth *d) {
  size_t n = d->num_regions;
  const wave_allocator *a = d->allocator;
  memset(g, 0, sizeof(*g));
  g->members = wave_mem_alloc(a, n * sizeof(uint32_t));
  g->comp_start = wave_mem_calloc(a, d->num_comps + 1, sizeof(uint32_t));
  g->queue = wave_mem_alloc(a, n * sizeof(uint32_t));
  g->seen = wave_mem_calloc(a, n, sizeof(uint32_t));
  g->pending = wave_mem_alloc(a, n * sizeof(uint32_t));
  g->pending_via = wave_mem_alloc(a, n * sizeof(uint32_t));
  g->pending_unbounded = wave_mem_alloc(a, n * sizeof(bool));
  g->lap = wave_mem_alloc(a, n * sizeof(uint32_t));
  if (!g->members || !g->comp_start || !g->queue || !g->seen || !g->pending || !g->pending_via ||
      !g->pending_unbounded || !g->lap)
    return false;
  for (size_t r = 0; r < n; r++)
    if (d->regions[r].comp != NONE)
      g->comp_start[d->regions[r].comp + 1]++;
  for (uint32_t c = 0; c < d->num_comps; c++)
    g->comp_start[c + 1] += g->comp_start[c];
  uint32_t *fill = g->queue;   /* free until the first search */
  memcpy(fill, g->comp_start, d->num_comps * sizeof(uint32_t));
  for (uint32_t r = 0; r < n; r++)
    if (d->regions[r].comp != NONE)
      g->members[fill[d->regions[r].comp]++] = r;
  return true;
}

static void scratch_free(graph_scratch *g, const wave_allocator *a) {
  wave_mem_free(a, g->members);
  wave_mem_free(a, g->comp_start);
  wave_mem_free(a, g->queue);
  wave_mem_free(a, g->seen);
  wave_mem_free(a, g->pending);
  wave_mem_free(a, g->pending_via);
  wave_mem_free(a, g->pending_unbounded);
  wave_mem_free(a, g->lap);
}

/* Breadth-first from `start` along the edges inside its component: parent[x] becomes the
 * edge that first reaches x, for every other region x of the component. */
static void search_component(const wave_depth *d, graph_scratch *g, uint32_t start,
                             uint32_t *parent) {
  uint32_t comp = d->regions[start].comp, head = 0, tail = 0;
  g->stamp++;
  g->seen[start] = g->stamp;
  g->queue[tail++] = start;
  while (head < tail) {
    const region_info *r = &d->regions[g->queue[head++]];
    for (uint32_t e = r->first_edge; e < r->first_edge + r->num_edges; e++) {
      uint32_t to = d->edges[e].to;
      if (d->regions[to].comp != comp || g->seen[to] == g->stamp)
        continue;
      g->seen[to] = g->stamp;
      parent[to] = e;
      g->queue[tail++] = to;
    }
  }
}

/* Sets base, via and unbounded of the kind for every region the entry reaches: components in
 * topological order, each entered at the deepest of the edges into it. */
static void solve(wave_depth *d, graph_scratch *g, int kind) {
  for (size_t r = 0; r < d->num_regions; r++) {
    g->pending[r] = NONE;
    g->pending_unbounded[r] = false;
  }
  g->pending[0] = 0;
  g->pending_via[0] = NONE;
  for (uint32_t c = d->num_comps; c-- > 0;) {
    uint32_t root = NONE;
    bool unbounded = false;
    for (uint32_t i = g->comp_start[c]; i < g->comp_start[c + 1]; i++) {
      uint32_t m = g->members[i];
      const region_info *r = &d->regions[m];
      if (g->pending[m] != NONE && (root == NONE || g->pending[m] > g->pending[root]))
        root = m;
      unbounded = unbounded || g->pending_unbounded[m];
      for (uint32_t e = r->first_edge; e < r->first_edge + r->num_edges; e++)
        unbounded =
            unbounded || (d->regions[d->edges[e].to].comp == c && d->edges[e].weight[kind] > 0);
    }
    uint32_t *via = g->lap;
    search_component(d, g, root, via);
    via[root] = g->pending_via[root];
    uint32_t base = g->pending[root];
    for (uint32_t i = g->comp_start[c]; i < g->comp_start[c + 1]; i++) {
      uint32_t m = g->members[i];
      region_info *r = &d->regions[m];
      r->base[kind] = base;
      r->via[kind] = via[m];
      r->unbounded[kind] = unbounded;
      for (uint32_t e = r->first_edge; e < r->first_edge + r->num_edges; e++) {
        uint32_t to = d->edges[e].to;
        if (d->regions[to].comp == c)
          continue;
        uint32_t depth = base + d->edges[e].weight[kind];
        g->pending_unbounded[to] = g->pending_unbounded[to] || unbounded;
        if (g->pending[to] == NONE || depth > g->pending[to]) {
          g->pending[to] = depth;
          g->pending_via[to] = e;
        }
      }
    }
  }
}

/* ---- the way to the deepest point ----------------------------------------------------------- */

static bool add_step(const wave_depth *d, deepest_way *way, const wave_node *node,
                     const wave_instr *call) {
  if (!wave_grow(d->allocator, (void **)&way->steps, &way->cap, way->length + 1,
                 sizeof(wave_depth_step)))
    return false;
  way->steps[way->length++] = (wave_depth_step){node, call};
  return true;
}

/* The sites of the kind open at `at` (at included), outermost first. */
static bool add_sites(const wave_depth *d, deepest_way *way, uint32_t at, int kind) {
  size_t n = 0;
  for (uint32_t s = at; s != NONE; s = d->sites[s].outer[kind])
    n++;
  if (!wave_grow(d->allocator, (void **)&way->steps, &way->cap, way->length + n,
                 sizeof(wave_depth_step)))
    return false;
  way->length += n;
  size_t i = way->length;
  for (uint32_t s = at; s != NONE; s = d->sites[s].outer[kind])
    way->steps[--i] = (wave_depth_step){d->sites[s].node, NULL};
  return true;
}

static bool add_crossing(const wave_depth *d, deepest_way *way, uint32_t e, int kind) {
  const edge *x = &d->edges[e];
  return !x->call || (add_sites(d, way, x->around[kind], kind) && add_step(d, way, NULL, x->call));
}

/* The crossings by which the entry reaches `region` at its deepest; `chain` has room for one
 * edge per region. */
static bool add_entry_way(const wave_depth *d, deepest_way *way, uint32_t region, int kind,
                          uint32_t *chain) {
  size_t n = 0;
  for (uint32_t r = region; d->regions[r].via[kind] != NONE; r = d->edges[chain[n - 1]].from)
    chain[n++] = d->regions[r].via[kind];
  while (n)
    if (!add_crossing(d, way, chain[--n], kind))
      return false;
  return true;
}

/* The deepest point of a bounded kind: the region site with the most frames. */
static bool find_deepest(wave_depth *d, graph_scratch *g, int kind) {
  deepest_way *way = &d->ways[kind];
  uint32_t best = NONE;
  way->max = 0;
  for (uint32_t r = 0; r < d->num_regions; r++) {
    const region_info *info = &d->regions[r];
    if (info->comp == NONE)
      continue;
    uint32_t depth = info->base[kind] + local_at(d, info->deepest[kind], kind);
    if (best == NONE || depth > way->max) {
      best = r;
      way->max = depth;
    }
  }
  bool ok = add_entry_way(d, way, best, kind, g->queue) &&
            add_sites(d, way, d->regions[best].deepest[kind], kind);
  way->cycle = way->length;
  return ok;
}

/* The way of an unbounded kind: into the first deepening recursion (in topological order),
 * then once around it, ending with the edge of positive weight that closes the lap. */
static bool find_recursion(wave_depth *d, graph_scratch *g, int kind) {
  deepest_way *way = &d->ways[kind];
  way->max = WAVE_DEPTH_UNBOUNDED;
  uint32_t closing = NONE;
  for (uint32_t c = d->num_comps; c-- > 0 && closing == NONE;)
    for (uint32_t i = g->comp_start[c]; i < g->comp_start[c + 1] && closing == NONE; i++) {
      const region_info *r = &d->regions[g->members[i]];
      for (uint32_t e = r->first_edge; e < r->first_edge + r->num_edges; e++)
        if (d->regions[d->edges[e].to].comp == c && d->edges[e].weight[kind] > 0) {
          closing = e;
          break;
        }
    }
  uint32_t start = d->edges[closing].to, end = d->edges[closing].from;
  if (!add_entry_way(d, way, start, kind, g->queue))
    return false;
  way->cycle = way->length;
  search_component(d, g, start, g->lap);
  size_t n = 0;
  for (uint32_t r = end; r != start; r = d->edges[g->queue[n - 1]].from)
    g->queue[n++] = g->lap[r];
  while (n)
    if (!add_crossing(d, way, g->queue[--n], kind))
      return false;
  return add_crossing(d, way, closing, kind);
}

static bool index_nodes(wave_depth *d) {
  d->site_nodes =
      wave_mem_alloc(d->allocator, (d->num_sites ? d->num_sites : 1) * sizeof(*d->site_nodes));
  if (!d->site_nodes)
    return false;
  for (size_t s = 0; s < d->num_sites; s++)
    d->site_nodes[s] = d->sites[s].node;
  return wave_key_index_build(&d->by_node, d->allocator, d->site_nodes, d->num_sites);
}

wave_depth *wave_depth_from_layout(const wave_kernel *kernel, const wave_layout *layout,
                                  const wave_uniformity *uniformity) {
  const wave_allocator *allocator = wave_module_allocator(wave_kernel_module(kernel));
  wave_depth *d = wave_mem_calloc(allocator, 1, sizeof(*d));
  wave_label_table labels;
  if (!d || !wave_label_table_init(&labels, kernel)) {
    wave_mem_free(allocator, d);
    return NULL;
  }
  d->allocator = allocator;
  graph_scratch g = {0};
  bool ok = index_kernel(d, &labels, layout, uniformity) && find_components(d) && index_nodes(d) &&
            scratch_init(&g, d);
  for (int k = 0; ok && k < KINDS; k++) {
    solve(d, &g, k);
    bool unbounded = false;
    for (size_t r = 0; r < d->num_regions; r++)
      unbounded = unbounded || (d->regions[r].comp != NONE && d->regions[r].unbounded[k]);
    ok = unbounded ? find_recursion(d, &g, k) : find_deepest(d, &g, k);
  }
  scratch_free(&g, d->allocator);
  wave_label_table_free(&labels);
  if (!ok) {
    wave_depth_destroy(d);
    return NULL;
  }
  return d;
}

wave_depth *wave_depth_compute(const wave_kernel *kernel, const wave_uniformity *uniformity) {
  wave_layout *layout = wave_layout_build(kernel, NULL);
  wave_depth *d = layout ? wave_depth_from_layout(kernel, layout, uniformity) : NULL;
  wave_layout_destroy(layout);
  return d;
}

void wave_depth_destroy(wave_depth *d) {
  if (!d)
    return;
  wave_mem_free(d->allocator, d->sites);
  wave_mem_free(d->allocator, d->edges);
  wave_mem_free(d->allocator, d->regions);
  wave_mem_free(d->allocator, d->site_nodes);
  wave_key_index_free(&d->by_node);
  for (int k = 0; k < KINDS; k++)
    wave_mem_free(d->allocator, d->ways[k].steps);
  wave_mem_free(d->allocator, d);
}

/* ---- queries ------------------------------------------------------------------------------- */

uint32_t wave_depth_max(const wave_depth *d, wave_depth_kind kind) { return d->ways[kind].max; }

bool wave_depth_unbounded(const wave_depth *d, wave_depth_kind kind) {
  return d->ways[kind].max == WAVE_DEPTH_UNBOUNDED;
}

uint32_t wave_depth_at(const wave_depth *d, wave_depth_kind kind, const wave_node *node) {
  size_t found = wave_key_index_find(&d->by_node, node);
  if (found == WAVE_KEY_NOT_FOUND)
    return WAVE_DEPTH_UNBOUNDED;
  const site *s = &d->sites[found];
  const region_info *r = &d->regions[s->region];
  if (r->comp == NONE)
    return s->local[kind];
  return r->unbounded[kind] ? WAVE_DEPTH_UNBOUNDED : r->base[kind] + s->local[kind];
}

wave_depth_path wave_depth_deepest(const wave_depth *d, wave_depth_kind kind) {
  const deepest_way *way = &d->ways[kind];
  return (wave_depth_path){way->steps, way->length, way->cycle};
}

bool wave_depth_equal(const wave_depth *a, const wave_depth *b) {
  if (a->num_sites != b->num_sites || a->num_edges != b->num_edges)
    return false;
  for (int k = 0; k < KINDS; k++)
    if (a->ways[k].max != b->ways[k].max)
      return false;
  for (size_t i = 0; i < a->num_sites; i++) {
    const site *x = &a->sites[i], *y = &b->sites[i];
    if (x->node != y->node || x->divergent != y->divergent || x->region != y->region ||
        x->outer[WAVE_DEPTH_STATIC] != y->outer[WAVE_DEPTH_STATIC])
      return false;
  }
  for (size_t i = 0; i < a->num_edges; i++) {
    const edge *x = &a->edges[i], *y = &b->edges[i];
    if (x->call != y->call || x->from != y->from || x->to != y->to)
      return false;
  }
  return true;
}

/* ---- printing ------------------------------------------------------------------------------ */

typedef struct printer {
  wave_write_fn write;
  void *ctx;
  int status;
} printer;

static void emit(printer *p, const char *s) {
  if (p->status == 0)
    p->status = p->write(p->ctx, s, strlen(s));
}

static void emit_step(printer *p, const wave_depth_step *step) {
  char text[160];
  if (step->call)
    snprintf(text, sizeof(text), "call %s (line %u)", wave_instr_operand(step->call, 0).label,
             (unsigned)wave_instr_loc(step->call).line);
  else if (wave_node_kind_of(step->node) == WAVE_NODE_IF)
    snprintf(text, sizeof(text), "if (line %u)",
             (unsigned)wave_node_origin(step->node, WAVE_LINE_IF).loc.line);
  else
    snprintf(text, sizeof(text), "loop (line %u)",
             (unsigned)wave_node_origin(step->node, WAVE_LINE_LOOP).loc.line);
  emit(p, text);
}

static void emit_depth(printer *p, uint32_t depth) {
  char text[16];
  snprintf(text, sizeof(text), "%u", (unsigned)depth);
  emit(p, depth == WAVE_DEPTH_UNBOUNDED ? "unbounded" : text);
}

/* Whether the printer keeps step i of a way of `length` steps (see wave_depth_path_print). */
static bool keeps_step(size_t i, size_t length, size_t cycle, size_t max_steps) {
  return !max_steps || length <= max_steps || i < max_steps / 2 || i >= length - max_steps / 2 ||
         i == cycle;
}

int wave_depth_path_print(wave_depth_path path, size_t max_steps, wave_write_fn write, void *ctx) {
  printer p = {write, ctx, 0};
  if (!path.length)
    emit(&p, "(none)");
  size_t left_out = 0;
  for (size_t i = 0; i < path.length && p.status == 0; i++) {
    if (!keeps_step(i, path.length, path.cycle, max_steps)) {
      left_out++;
      continue;
    }
    if (left_out) {
      char text[48];
      snprintf(text, sizeof(text), " > ... %zu more ...", left_out);
      emit(&p, text);
      left_out = 0;
    }
    if (i)
      emit(&p, " > ");
    if (i == path.cycle)
      emit(&p, "[");
    emit_step(&p, &path.steps[i]);
  }
  if (path.cycle < path.length)
    emit(&p, "] repeats without end");
  return p.status;
}

static void emit_way(printer *p, const char *name, wave_depth_path way) {
  emit(p, "; ");
  emit(p, name);
  emit(p, ": ");
  if (p->status == 0)
    p->status = wave_depth_path_print(way, 0, p->write, p->ctx);
  emit(p, "\n");
}

int wave_depth_print(const wave_depth *d, const wave_kernel *kernel, wave_write_fn write,
                     void *ctx) {
  printer p = {write, ctx, 0};
  emit(&p, wave_kernel_name(kernel));
  emit(&p, ": static depth ");
  emit_depth(&p, d->ways[WAVE_DEPTH_STATIC].max);
  emit(&p, ", divergent depth ");
  emit_depth(&p, d->ways[WAVE_DEPTH_DIVERGENT].max);
  emit(&p, "\n");
  emit_way(&p, "static", wave_depth_deepest(d, WAVE_DEPTH_STATIC));
  emit_way(&p, "divergent", wave_depth_deepest(d, WAVE_DEPTH_DIVERGENT));
  return p.status;
}

/* ---- registration -------------------------------------------------------------------------- */

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  const wave_uniformity *u = wave_analysis_get(am, kernel, WAVE_ANALYSIS_UNIFORMITY);
  if (!u)
    return NULL;   /* the uniformity analysis said why */
  const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
  wave_depth *d = layout ? wave_depth_from_layout(kernel, layout, u) : NULL;
  if (!d)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, wave_kernel_loc(kernel), NULL, 0,
                     "out of memory computing the divergence-stack depth of kernel '%s'",
                     wave_kernel_name(kernel));
  return d;
}

static void destroy(void *result) { wave_depth_destroy(result); }

static bool equal(const void *a, const void *b) { return wave_depth_equal(a, b); }

static int print(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx) {
  return wave_depth_print(result, kernel, write, ctx);
}

const wave_analysis_info wave_analysis_depth = {
    .name = "depth",
    .help = "the most divergence-stack frames a wave may hold, all or only divergent ones",
    .compute = compute,
    .destroy = destroy,
    .equal = equal,
    .print = print,
};
