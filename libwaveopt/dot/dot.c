/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel's graph through cgraph: one node per block of blocks.c, one edge per edge, the
 * analyses' verdicts in colours and in the blocks' HTML-like labels, and a legend subgraph.
 * docs/dot.md is the reader's side of the same rules:
 *
 * - a block's fill is the divergent colour when an enclosing if or loop is divergent
 *   (wave_uniformity_node_divergent), the uniform colour otherwise; then, else, break,
 *   continue, back and reconvergence edges take the colour of their own branch; fall-through
 *   edges are black;
 * - every block shows its divergence-stack depth, static and divergent (wave_depth_at of the
 *   innermost enclosing if or loop; at a region's top level the region's entry depth);
 * - the blocks that hold the if, loop and call lines of wave_depth_deepest get a thick purple
 *   border;
 * - barriers and wave operations the barriers analysis finds not converged, and loops the
 *   deadlock analysis flags, are written in red on their lines and give their block a dashed
 *   red border; converged barriers are marked too;
 * - with a profile (wave_dot_options.profile) the fill is a heat step of the SIMD efficiency
 *   measured on the block's lines instead (block_heat), and the divergence class moves to the
 *   border; if and loop lines give their measured split or divergent-exit rate, and a branch
 *   the analysis calls divergent that ran but never split gives its block a dotted border.
 *   Lines are looked up by number only, so that after passes a block shows what the input's
 *   code on its lines measured.
 *
 * Every node and edge also carries `waveblock` / `wavekind` and `wavediv` attributes naming
 * its kind and class, for programs that read the graph back.
 */
#include "waveopt/dot.h"

#include <gvc.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dot/blocks.h"
#include "dot/ids.h"
#include "support/grow.h"
#include "support/key_index.h"
#include "support/strbuf.h"
#include "waveopt/barriers.h"
#include "waveopt/deadlock.h"
#include "waveopt/uniformity.h"

#define DIVERGENT_COLOR "#d62728"
#define UNIFORM_COLOR "#1f77b4"
#define DIVERGENT_FILL "#fde0dd"
#define UNIFORM_FILL "#deebf7"
#define DEEPEST_COLOR "#6a3d9a"
#define FINDING_COLOR "#d62728"
#define PROFILE_COLOR "#8c510a"
#define NOT_RUN_FILL "#eeeeee"

/* The heat scale, low to high: a block's efficiency takes the first step it is below; only
 * every lane active (1.0) reaches the last. Light enough for black text on each, and apart
 * from the divergence blues and reds, which are borders when a profile is drawn. */
static const struct {
  double below;
  const char *fill, *legend;
} heat_steps[] = {
    {0.25, "#f4a3a3", "SIMD efficiency below 25%"},
    {0.50, "#f9c98f", "25% to 50%"},
    {0.75, "#fbeb9a", "50% to 75%"},
    {1.00, "#d9efa8", "75% to below 100%"},
    {2.00, "#a9dba0", "100%: every lane"},
};

static const struct {
  const char *name, *style, *arrowhead, *legend;
} edge_kinds[DOT_EDGE_KINDS] = {
    [DOT_EDGE_THEN] = {"then", "solid", "normal", "then: into the then-list"},
    [DOT_EDGE_ELSE] = {"else", "dashed", "normal", "else: into the else-list, or past the if"},
    [DOT_EDGE_FALL] = {"fall", "solid", "normal", "fall-through"},
    [DOT_EDGE_BACK] = {"back", "bold", "normal", "loop back edge (endloop)"},
    [DOT_EDGE_BREAK] = {"break", "dotted", "normal", "break: leaves the loop"},
    [DOT_EDGE_CONTINUE] = {"continue", "dotted", "empty", "continue: next iteration"},
    [DOT_EDGE_RECONVERGE] = {"reconverge", "dashed", "dot", "reconvergence at endif/endloop"},
};

static const char *const block_kinds[] = {
    [DOT_BLOCK_ENTRY] = "entry", [DOT_BLOCK_THEN] = "then",   [DOT_BLOCK_ELSE] = "else",
    [DOT_BLOCK_ENDIF] = "endif", [DOT_BLOCK_LOOP] = "loop",   [DOT_BLOCK_EXIT] = "exit",
    [DOT_BLOCK_SPLIT] = "split"};

void wave_dot_options_init(wave_dot_options *options) {
  memset(options, 0, sizeof(*options));
  options->deepest = WAVE_DEPTH_STATIC;
}

/* ---- routing cgraph's errors ------------------------------------------------------------- */

/* cgraph's error callback takes no context, so the diags of the call in progress are reached
 * through this thread's pointer, set and restored around each call. The callback receives a
 * message in pieces ("Error", ": ", text); a diagnostic is made of each whole line, gathered
 * in memory from the kernel's module's allocator while a kernel is drawn, from malloc's in the
 * calls given no kernel (making a renderer, writing a graph). */
typedef struct route {
  wave_diags *diags;
  wave_strbuf line;
  agusererrf saved_handler;
  agerrlevel_t saved_level;
  struct route *outer;
  bool reported;
} route;

static _Thread_local route *current_route;

static void flush_line(route *r) {
  char *text = wave_strbuf_take(&r->line, NULL);
  const char *msg = text;
  if (!msg) {
    r->diags->out_of_memory = true;
    return;
  }
  size_t n = strlen(text);
  while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r'))
    text[--n] = '\0';
  if (strncmp(msg, "Error: ", 7) == 0)
    msg += 7;
  else if (strncmp(msg, "Warning: ", 9) == 0)
    msg += 9;
  if (*msg) {
    wave_diag_report(r->diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0, "graphviz: %s",
                     msg);
    r->reported = true;
  }
  wave_mem_free(r->line.allocator, text);
}

static int route_error(char *piece) {
  route *r = current_route;
  if (!r)
    return 0;
  for (const char *s = piece; *s;) {
    size_t n = strcspn(s, "\n");
    wave_strbuf_append(&r->line, s, n);
    s += n;
    if (*s == '\n') {
      flush_line(r);
      s++;
    }
  }
  return 0;
}

static void route_begin(route *r, wave_diags *diags, const wave_allocator *allocator) {
  *r = (route){.diags = diags, .line = {.allocator = allocator}, .outer = current_route};
  current_route = r;
  r->saved_handler = agseterrf(route_error);
  /* Warnings (unknown attribute values, font fallbacks) would only be noise here. */
  r->saved_level = agseterr(AGERR);
}

static void route_end(route *r) {
  if (r->line.len)
    flush_line(r);
  wave_mem_free(r->line.allocator, wave_strbuf_take(&r->line, NULL));
  agseterr(r->saved_level);
  agseterrf(r->saved_handler);
  current_route = r->outer;
}

static void fail(route *r, const char *what) {
  if (!r->reported)
    wave_diag_report(r->diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0, "%s", what);
}

/* ---- HTML-like label text ----------------------------------------------------------------- */

/* Appends text escaped for an HTML-like label: the markup characters as entities, control
 * characters and bytes that are not UTF-8 as U+FFFD, so that any comment is safe. */
static void put_escaped(wave_strbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                                 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool valid = len != 0 && (len != 2 || c >= 0xC2);
    for (size_t k = 1; valid && k < len; k++)
      valid = (p[k] & 0xC0) == 0x80;
    if (!valid) {
      wave_strbuf_puts(b, "&#xFFFD;");
      p++;
      continue;
    }
    if (len > 1) {
      wave_strbuf_append(b, (const char *)p, len);
      p += len;
      continue;
    }
    switch (c) {
    case '&': wave_strbuf_puts(b, "&amp;"); break;
    case '<': wave_strbuf_puts(b, "&lt;"); break;
    case '>': wave_strbuf_puts(b, "&gt;"); break;
    case '"': wave_strbuf_puts(b, "&quot;"); break;
    case '\t': wave_strbuf_puts(b, " "); break;
    default:
      if (c < 0x20 || c == 0x7F)
        wave_strbuf_puts(b, "&#xFFFD;");
      else
        wave_strbuf_append(b, (const char *)p, 1);
    }
    p++;
  }
}

/* ---- what the analyses say ---------------------------------------------------------------- */

/* A set of nodes and instructions: added to, then sealed by indexing, then asked. */
typedef struct ptr_set {
  const wave_allocator *allocator; /* of items */
  const void **items;
  size_t count, cap;
  wave_key_index index;
} ptr_set;

static bool ptr_set_add(ptr_set *s, const void *p) {
  if (!wave_grow(s->allocator, (void **)&s->items, &s->cap, s->count + 1, sizeof(*s->items)))
    return false;
  s->items[s->count++] = p;
  return true;
}

static bool ptr_set_seal(ptr_set *s) {
  return wave_key_index_build(&s->index, s->allocator, s->items, s->count);
}

static bool ptr_set_has(const ptr_set *s, const void *p) {
  return wave_key_index_find(&s->index, p) != WAVE_KEY_NOT_FOUND;
}

static void ptr_set_free(ptr_set *s) {
  wave_mem_free(s->allocator, s->items);
  wave_key_index_free(&s->index);
}

typedef struct facts {
  const wave_kernel *kernel;
  const wave_allocator *allocator; /* the kernel's module's: the drawing's own tables and text */
  wave_uniformity *u;
  wave_depth *depth;
  wave_barriers *barriers;
  wave_deadlock *deadlock;
  ptr_set deepest;      /* the nodes and calls of the highlighted deepest path */
  ptr_set deadlocked;   /* the loops with a WAVE_WAIT_DEADLOCK verdict */
  const wave_profile_kernel *profile;
} facts;

static void facts_free(facts *f) {
  wave_deadlock_destroy(f->deadlock);
  wave_barriers_destroy(f->barriers);
  wave_depth_destroy(f->depth);
  wave_uniformity_destroy(f->u);
  ptr_set_free(&f->deepest);
  ptr_set_free(&f->deadlocked);
}

static bool facts_compute(facts *f, const wave_kernel *kernel, const wave_dot_options *o) {
  wave_uniformity_config config = {.assume_divergent = o->assume_divergent};
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  *f = (facts){.kernel = kernel,
               .allocator = a,
               .deepest = {.allocator = a},
               .deadlocked = {.allocator = a},
               .profile = o->profile};
  f->u = wave_uniformity_compute(kernel, &config);
  f->depth = f->u ? wave_depth_compute(kernel, f->u) : NULL;
  f->barriers = f->u ? wave_barriers_compute(kernel, f->u) : NULL;
  f->deadlock = f->u ? wave_deadlock_compute(kernel, f->u) : NULL;
  if (!f->deadlock || !f->barriers || !f->depth)
    return false;
  wave_depth_path way = wave_depth_deepest(f->depth, o->deepest);
  for (size_t i = 0; i < way.length; i++) {
    const void *step = way.steps[i].node ? (const void *)way.steps[i].node
                                          : (const void *)way.steps[i].call;
    if (!ptr_set_add(&f->deepest, step))
      return false;
  }
  for (size_t i = 0; i < wave_deadlock_num_loops(f->deadlock); i++) {
    const wave_loop_verdict *v = wave_deadlock_loop(f->deadlock, i);
    if (v->wait == WAVE_WAIT_DEADLOCK && !ptr_set_add(&f->deadlocked, v->loop))
      return false;
  }
  return ptr_set_seal(&f->deepest) && ptr_set_seal(&f->deadlocked);
}

static void put_depth(wave_strbuf *b, uint32_t d) {
  if (d == WAVE_DEPTH_UNBOUNDED)
    wave_strbuf_puts(b, "unbounded");
  else
    wave_strbuf_printf(b, "%u", d);
}

/* The frames open at a block: those of its innermost if or loop, or at a region's top level
 * the region's entry depth, read off its first top-level if or loop (one frame less). */
static void put_block_depth(wave_strbuf *b, const facts *f, const dot_block *blk,
                            const wave_region *region) {
  const wave_node *at = blk->inside;
  bool top_level = !at;
  wave_strbuf_puts(b, "stack depth ");
  if (top_level && !wave_region_prev(region)) {
    wave_strbuf_puts(b, "0, divergent 0");
    return;
  }
  for (at = top_level ? wave_node_list_first(wave_region_body(region)) : at;
       at && wave_node_kind_of(at) == WAVE_NODE_BLOCK;)
    at = wave_node_next(at);
  if (!at) {
    wave_strbuf_puts(b, "as at its calls");
    return;
  }
  uint32_t s = wave_depth_at(f->depth, WAVE_DEPTH_STATIC, at);
  uint32_t d = wave_depth_at(f->depth, WAVE_DEPTH_DIVERGENT, at);
  if (top_level) {
    s -= s != WAVE_DEPTH_UNBOUNDED;
    d -= d != WAVE_DEPTH_UNBOUNDED && wave_uniformity_node_divergent(f->u, at);
  }
  put_depth(b, s);
  wave_strbuf_puts(b, ", divergent ");
  put_depth(b, d);
}

/* ---- labels ------------------------------------------------------------------------------- */

/* Where a row's line came from: its line number and the comment written on it; an empty
 * wave_src for a block's row, which has no line. */
static wave_src row_src(const dot_row *row) {
  if (row->instr)
    return wave_instr_origin(row->instr);
  const wave_node *n = row->node;
  switch (row->event) {
  case WAVE_WALK_IF:
    return wave_node_origin(n, WAVE_LINE_IF);
  case WAVE_WALK_ELSE:
    return wave_node_origin(n, WAVE_LINE_ELSE);
  case WAVE_WALK_ENDIF:
    return wave_node_origin(n, WAVE_LINE_ENDIF);
  case WAVE_WALK_LOOP:
    return wave_node_origin(n, WAVE_LINE_LOOP);
  case WAVE_WALK_ENDLOOP:
    return wave_node_origin(n, WAVE_LINE_ENDLOOP);
  case WAVE_WALK_BLOCK: break;
  }
  return (wave_src){{NULL, 0, 0}, NULL, NULL};
}

static void put_verdict(wave_strbuf *b, bool divergent, const char *why) {
  wave_strbuf_printf(b, "  <FONT COLOR=\"%s\">", divergent ? DIVERGENT_COLOR : UNIFORM_COLOR);
  put_escaped(b, divergent ? "divergent" : "uniform");
  if (divergent && why && *why) {
    wave_strbuf_puts(b, ": ");
    put_escaped(b, why);
  }
  wave_strbuf_puts(b, "</FONT>");
}

static void put_finding(wave_strbuf *b, const char *what, const char *why) {
  wave_strbuf_printf(b, "  <FONT COLOR=\"%s\"><B>", FINDING_COLOR);
  put_escaped(b, what);
  wave_strbuf_puts(b, "</B>");
  if (why && *why) {
    wave_strbuf_puts(b, ": ");
    put_escaped(b, why);
  }
  wave_strbuf_puts(b, "</FONT>");
}

/* The deadlock analysis's verdict on a loop it flagged, worded as its warning is. */
static void put_deadlock(wave_strbuf *b, const facts *f, const wave_node *loop) {
  const wave_loop_verdict *v = NULL;
  for (size_t i = 0; !v && i < wave_deadlock_num_loops(f->deadlock); i++)
    if (wave_deadlock_loop(f->deadlock, i)->loop == loop)
      v = wave_deadlock_loop(f->deadlock, i);
  const wave_node *p = v->parker;
  char why[256];
  snprintf(why, sizeof(why),
           "it waits for the %s at line %u; the %s at line %u that may write "
           "it runs only in lanes parked by the %s at line %u",
           wave_opcode_get(wave_instr_op(v->read))->mnemonic, wave_instr_loc(v->read).line,
           wave_opcode_get(wave_instr_op(v->writer))->mnemonic, wave_instr_loc(v->writer).line,
           wave_node_kind_of(p) == WAVE_NODE_IF ? "if" : "loop",
           wave_node_kind_of(p) == WAVE_NODE_IF ? wave_node_origin(p, WAVE_LINE_IF).loc.line
                                                : wave_node_origin(p, WAVE_LINE_LOOP).loc.line);
  put_finding(b, "possible SIMT deadlock", why);
}

/* What a block's rows found, for its border. */
typedef struct row_marks {
  bool finding;       /* a barrier or deadlock finding */
  bool deepest;       /* a step of the deepest path */
  bool never_split;   /* a branch the analysis calls divergent that ran and never split */
} row_marks;

/* The measured rate of the if or loop on a row. */
static void put_measured_branch(wave_strbuf *b, const facts *f, const wave_node *n,
                                uint32_t line, row_marks *marks) {
  bool is_if = wave_node_kind_of(n) == WAVE_NODE_IF;
  const wave_profile_branch *br =
      wave_profile_find_branch(f->profile, line, is_if ? WAVE_PROFILE_IF : WAVE_PROFILE_LOOP);
  wave_strbuf_printf(b, "  <FONT COLOR=\"%s\">", PROFILE_COLOR);
  if (!br) {
    wave_strbuf_puts(b, "not in the profile</FONT>");
    return;
  }
  if (!br->runs) {
    wave_strbuf_puts(b, "never reached in the profile</FONT>");
    return;
  }
  uint64_t count = is_if ? br->splits : br->divergent_exits;
  wave_strbuf_printf(b, "%s %" PRIu64 "/%" PRIu64 " = %.1f%%",
                     is_if ? "split" : "exits diverged", count, br->runs,
                     100.0 * wave_profile_branch_rate(br));
  if (!count && wave_uniformity_node_divergent(f->u, n)) {
    wave_strbuf_puts(b, is_if ? ": <B>never split</B>" : ": <B>exits never diverged</B>");
    marks->never_split = true;
  }
  wave_strbuf_puts(b, "</FONT>");
}

/* One row of the table, noting in marks what it holds. */
static void put_row(wave_strbuf *b, const facts *f, const dot_row *row, row_marks *marks) {
  char text[512], why[512];
  wave_src src = row_src(row);
  uint32_t line = src.loc.line;
  wave_strbuf_puts(b, "<TR><TD ALIGN=\"LEFT\">");
  if (line)
    wave_strbuf_printf(b, "%4u  ", line);
  else
    wave_strbuf_puts(b, "   -  ");
  const wave_instr *i = row->instr;
  const wave_node *n = row->node;
  if (i) {
    wave_format_instr(i, text, sizeof(text));
    put_escaped(b, text);
  } else if (row->event == WAVE_WALK_IF) {
    snprintf(text, sizeof(text), "if %sp%u", wave_if_cond(n).negated ? "!" : "",
             wave_if_cond(n).value);
    put_escaped(b, text);
  } else {
    static const char *const words[] = {[WAVE_WALK_ELSE] = "else", [WAVE_WALK_ENDIF] = "endif",
                                        [WAVE_WALK_LOOP] = "loop",
                                        [WAVE_WALK_ENDLOOP] = "endloop"};
    put_escaped(b, words[row->event]);
  }
  const char *comment = src.comment;
  if (comment) {
    wave_strbuf_puts(b, "  <FONT COLOR=\"gray40\">");
    put_escaped(b, comment);
    wave_strbuf_puts(b, "</FONT>");
  }
  if (i && (wave_instr_op(i) == WAVE_OP_BREAK || wave_instr_op(i) == WAVE_OP_CONTINUE)) {
    wave_uniformity_explain_instr(f->u, i, why, sizeof(why));
    put_verdict(b, wave_uniformity_branch_divergent(f->u, i), why);
  } else if (n && (row->event == WAVE_WALK_IF || row->event == WAVE_WALK_LOOP)) {
    wave_uniformity_explain_node(f->u, n, why, sizeof(why));
    put_verdict(b, wave_uniformity_node_divergent(f->u, n), why);
    if (f->profile)
      put_measured_branch(b, f, n, line, marks);
  }
  if (i) {
    const wave_barrier_finding *found = wave_barriers_find(f->barriers, i);
    if (found) {
      put_finding(b,
                  wave_instr_op(i) == WAVE_OP_BARRIER ? "barrier not converged" : "not converged",
                  found->why);
      marks->finding = true;
    } else if (wave_instr_op(i) == WAVE_OP_BARRIER) {
      wave_strbuf_puts(b, "  <B>[barrier]</B>");
    }
  }
  if (n && row->event == WAVE_WALK_LOOP && ptr_set_has(&f->deadlocked, n)) {
    put_deadlock(b, f, n);
    marks->finding = true;
  }
  if ((i && wave_instr_op(i) == WAVE_OP_CALL && ptr_set_has(&f->deepest, i)) ||
      (n && (row->event == WAVE_WALK_IF || row->event == WAVE_WALK_LOOP) &&
       ptr_set_has(&f->deepest, n))) {
    wave_strbuf_printf(b, "  <FONT COLOR=\"%s\"><B>deepest path</B></FONT>", DEEPEST_COLOR);
    marks->deepest = true;
  }
  wave_strbuf_puts(b, "</TD></TR>");
}

static void put_title(wave_strbuf *b, const dot_cfg *cfg, size_t index,
                      const wave_region *region) {
  const dot_block *blk = &cfg->blocks[index];
  wave_strbuf_printf(b, "<TR><TD ALIGN=\"LEFT\"><B>B%zu %s</B>", index, block_kinds[blk->kind]);
  if (blk->kind == DOT_BLOCK_ENTRY && wave_region_label(region)) {
    wave_strbuf_puts(b, " of ");
    put_escaped(b, wave_region_label(region));
  } else if (blk->kind == DOT_BLOCK_SPLIT) {
    wave_strbuf_printf(b, " after %s (line %u)",
                       wave_instr_op(blk->split) == WAVE_OP_BREAK ? "break" : "continue",
                       wave_instr_loc(blk->split).line);
  } else if (blk->opener) {
    uint32_t line = wave_node_kind_of(blk->opener) == WAVE_NODE_IF
                        ? wave_node_origin(blk->opener, WAVE_LINE_IF).loc.line
                        : wave_node_origin(blk->opener, WAVE_LINE_LOOP).loc.line;
    wave_strbuf_printf(b, " of the %s at line %u",
                       wave_node_kind_of(blk->opener) == WAVE_NODE_IF ? "if" : "loop", line);
  }
  wave_strbuf_puts(b, "</TD></TR>");
}

/* ---- the graph ---------------------------------------------------------------------------- */

static void set(void *obj, const char *name, const char *value) {
  agsafeset(obj, (char *)name, (char *)value, "");
}

/* Sets an HTML-like label from html, which came from `a` and is given back to it. */
static bool set_html(Agraph_t *g, void *obj, const char *name, char *html,
                     const wave_allocator *a) {
  if (!html)
    return false;
  char *s = agstrdup_html(g, html);
  wave_mem_free(a, html);
  if (!s)
    return false;
  agsafeset(obj, (char *)name, s, "");
  agstrfree(g, s);
  return true;
}

/* What the profile measured on a block's lines: each line it holds counted once (a line may
 * hold several statements, and after passes several blocks may hold one line). The else line
 * is left out: it issues with the lanes of the then-side it ends. */
typedef struct heat {
  uint64_t issued, lanes;
  double efficiency;   /* lanes / (issued * wave width); meaningless when issued is 0 */
} heat;

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static bool block_heat(const facts *f, const dot_cfg *cfg, const dot_block *blk, heat *h) {
  *h = (heat){0};
  uint32_t *lines = wave_mem_alloc(f->allocator, blk->num_rows * sizeof(*lines));
  if (!lines)
    return false;
  size_t n = 0;
  for (size_t r = 0; r < blk->num_rows; r++) {
    const dot_row *row = &cfg->rows[blk->first_row + r];
    uint32_t line = row_src(row).loc.line;
    if (line && row->event != WAVE_WALK_ELSE)
      lines[n++] = line;
  }
  qsort(lines, n, sizeof(*lines), compare_u32);
  for (size_t i = 0; i < n; i++) {
    const wave_profile_line *l = i && lines[i] == lines[i - 1]
                                     ? NULL
                                     : wave_profile_find_line(f->profile, lines[i]);
    if (l) {
      h->issued += l->issued;
      h->lanes += l->lanes;
    }
  }
  wave_mem_free(f->allocator, lines);
  if (h->issued)
    h->efficiency = (double)h->lanes / ((double)h->issued * wave_profile_wave_width(f->profile));
  return true;
}

/* The fill of a block: its heat step with a profile, else its static class. */
static const char *block_fill(const dot_block *blk, const heat *h) {
  if (!h)
    return blk->divergent ? DIVERGENT_FILL : UNIFORM_FILL;
  if (!h->issued)
    return NOT_RUN_FILL;
  size_t step = 0;
  while (step + 1 < sizeof(heat_steps) / sizeof(heat_steps[0]) &&
         h->efficiency >= heat_steps[step].below)
    step++;
  return heat_steps[step].fill;
}

static bool add_block(Agraph_t *g, Agraph_t *cluster, const facts *f, const dot_cfg *cfg,
                      size_t index, const wave_region *region, Agnode_t **out) {
  const dot_block *blk = &cfg->blocks[index];
  char name[32];
  snprintf(name, sizeof(name), "B%zu", index);
  Agnode_t *node = agnode(cluster, name, 1);
  if (!node)
    return false;
  heat h = {0};
  if (f->profile && !block_heat(f, cfg, blk, &h))
    return false;
  wave_strbuf b = {.allocator = f->allocator};
  row_marks marks = {0};
  wave_strbuf_puts(&b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\">");
  put_title(&b, cfg, index, region);
  wave_strbuf_puts(&b, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"10\">");
  put_block_depth(&b, f, blk, region);
  if (f->profile && h.issued)
    wave_strbuf_printf(&b, "; SIMD efficiency %.1f%% over %" PRIu64 " issues",
                       100.0 * h.efficiency, h.issued);
  else if (f->profile)
    wave_strbuf_puts(&b, "; not run in the profile");
  wave_strbuf_puts(&b, "</FONT></TD></TR>");
  for (size_t r = 0; r < blk->num_rows; r++)
    put_row(&b, f, &cfg->rows[blk->first_row + r], &marks);
  wave_strbuf_puts(&b, "</TABLE>");
  if (!set_html(g, node, "label", wave_strbuf_take(&b, NULL), f->allocator))
    return false;
  set(node, "fillcolor", block_fill(blk, f->profile ? &h : NULL));
  set(node, "waveblock", block_kinds[blk->kind]);
  set(node, "wavediv", blk->divergent ? "divergent" : "uniform");
  if (f->profile) {
    char eff[32];
    snprintf(eff, sizeof(eff), "%.6f", h.efficiency);
    set(node, "waveeff", h.issued ? eff : "none");
    set(node, "color", blk->divergent ? DIVERGENT_COLOR : UNIFORM_COLOR);
    set(node, "penwidth", "2");
  }
  if (marks.never_split) {
    set(node, "style", "filled,dotted");
    set(node, "wavenever_split", "1");
  }
  if (marks.finding) {
    set(node, "color", FINDING_COLOR);
    set(node, "style", "filled,dashed");
    set(node, "wavefinding", "1");
  } else if (marks.deepest) {
    set(node, "color", DEEPEST_COLOR);
  }
  if (marks.deepest) {
    set(node, "penwidth", "3");
    set(node, "wavedeepest", "1");
  }
  *out = node;
  return true;
}

static void style_edge(Agedge_t *e, dot_edge_kind kind, bool divergent) {
  if (kind != DOT_EDGE_FALL)
    set(e, "label", edge_kinds[kind].name);
  set(e, "style", edge_kinds[kind].style);
  set(e, "arrowhead", edge_kinds[kind].arrowhead);
  set(e, "wavekind", edge_kinds[kind].name);
  if (kind == DOT_EDGE_FALL) {
    set(e, "color", "black");
  } else {
    set(e, "color", divergent ? DIVERGENT_COLOR : UNIFORM_COLOR);
    set(e, "wavediv", divergent ? "divergent" : "uniform");
  }
}

/* An invisible edge that only places the legend's pieces. */
static bool place(Agraph_t *g, Agnode_t *from, Agnode_t *to) {
  Agedge_t *e = agedge(g, from, to, NULL, 1);
  if (!e)
    return false;
  set(e, "style", "invis");
  set(e, "wavelegend", "1");
  return true;
}

typedef struct swatch {
  const char *text, *fill, *border, *style, *penwidth;
} swatch;

static const swatch static_swatches[] = {
    {"block under a divergent if or loop", DIVERGENT_FILL, "black", "filled", "1"},
    {"block under uniform control", UNIFORM_FILL, "black", "filled", "1"},
    {"holds a step of the deepest path", UNIFORM_FILL, DEEPEST_COLOR, "filled", "3"},
    {"barrier or deadlock finding", UNIFORM_FILL, FINDING_COLOR, "filled,dashed", "3"}};

/* With a profile the fill is the heat and the class is the border. */
static const swatch profiled_swatches[] = {
    {"red border: under a divergent if or loop", "white", DIVERGENT_COLOR, "filled", "2"},
    {"blue border: under uniform control", "white", UNIFORM_COLOR, "filled", "2"},
    {"dotted: a divergent branch that never split in the profile", "white", DIVERGENT_COLOR,
     "filled,dotted", "2"},
    {"holds a step of the deepest path", "white", DEEPEST_COLOR, "filled", "3"},
    {"barrier or deadlock finding", "white", FINDING_COLOR, "filled,dashed", "3"}};

/* The legend is a grid a few entries wide rather than one long row: in one row it came out
 * wider than the graph of most kernels, which graphviz then shrank to fit beside it. */
enum { LEGEND_EDGES_PER_ROW = 3, LEGEND_SWATCHES_PER_ROW = 3 };

/* Rows of sample blocks, nodes prefix0, prefix1, ... in subgraphs `name`0, `name`1, ..., the
 * first placed under *below and each next one under the one before; *below becomes the first
 * block of the last row. */
static bool add_swatches(Agraph_t *legend, const char *name, const char *prefix,
                         const swatch *list, size_t count, Agnode_t **below) {
  Agraph_t *row = NULL;
  Agnode_t *prev = NULL;
  for (size_t i = 0; i < count; i++) {
    char node_name[64];
    if (i % LEGEND_SWATCHES_PER_ROW == 0) {
      snprintf(node_name, sizeof(node_name), "%s%zu", name, i / LEGEND_SWATCHES_PER_ROW);
      row = agsubg(legend, node_name, 1);
      if (!row)
        return false;
      set(row, "rank", "same");
      prev = NULL;
    }
    snprintf(node_name, sizeof(node_name), "%s%zu", prefix, i);
    Agnode_t *n = agnode(row, node_name, 1);
    if (!n || !(prev ? place(row, prev, n) : place(legend, *below, n)))
      return false;
    set(n, "label", list[i].text);
    set(n, "fillcolor", list[i].fill);
    set(n, "color", list[i].border);
    set(n, "style", list[i].style);
    set(n, "penwidth", list[i].penwidth);
    if (!prev)
      *below = n;
    prev = n;
  }
  return true;
}

/* Explains every edge style and every fill and border: example edges in kind order, each from
 * a point down to its description, a few to a row, and below them rows of sample blocks (with
 * a profile, the heat scale first). */
static bool add_legend(Agraph_t *g, bool profiled) {
  Agraph_t *legend = agsubg(g, "cluster_legend", 1);
  if (!legend)
    return false;
  set(legend, "label", profiled ? "legend: fill = SIMD efficiency measured in the profile, "
                                  "border = divergence class"
                                : "legend");
  set(legend, "style", "rounded");
  char name[32];
  Agraph_t *texts = NULL;
  Agnode_t *prev = NULL, *below = NULL;
  for (int k = 0; k <= DOT_EDGE_KINDS; k++) {
    if (k % LEGEND_EDGES_PER_ROW == 0) {
      snprintf(name, sizeof(name), "legend_texts%d", k / LEGEND_EDGES_PER_ROW);
      texts = agsubg(legend, name, 1);
      if (!texts)
        return false;
      set(texts, "rank", "same");
      prev = NULL;
    }
    snprintf(name, sizeof(name), "legend_%d_from", k);
    Agnode_t *from = agnode(legend, name, 1);
    snprintf(name, sizeof(name), "legend_%d_to", k);
    Agnode_t *to = agnode(texts, name, 1);
    Agedge_t *e = from && to ? agedge(legend, from, to, NULL, 1) : NULL;
    if (!e || (prev && !place(texts, prev, to)) || (!prev && below && !place(legend, below, from)))
      return false;
    set(from, "shape", "point");
    set(to, "shape", "plaintext");
    set(to, "style", "");
    set(to, "fontname", "Helvetica");
    if (k == DOT_EDGE_KINDS) {
      /* The same styles in the divergent colour. */
      style_edge(e, DOT_EDGE_THEN, true);
      set(to, "label", "red: the branch may split the wave\\nblue: it is uniform");
    } else {
      style_edge(e, (dot_edge_kind)k, false);
      set(to, "label", edge_kinds[k].legend);
    }
    set(e, "label", "");
    set(e, "wavelegend", "1");
    if (!prev)
      below = to;
    prev = to;
  }
  if (!profiled)
    return add_swatches(legend, "legend_samples", "legend_swatch", static_swatches,
                        sizeof(static_swatches) / sizeof(static_swatches[0]), &below);
  enum { STEPS = sizeof(heat_steps) / sizeof(heat_steps[0]) };
  swatch scale[STEPS + 1];
  for (size_t i = 0; i < STEPS; i++)
    scale[i] = (swatch){heat_steps[i].legend, heat_steps[i].fill, "black", "filled", "1"};
  scale[STEPS] = (swatch){"not run in the profile", NOT_RUN_FILL, "black", "filled", "1"};
  return add_swatches(legend, "legend_heat", "legend_heat", scale, STEPS + 1, &below) &&
         add_swatches(legend, "legend_samples", "legend_swatch", profiled_swatches,
                      sizeof(profiled_swatches) / sizeof(profiled_swatches[0]), &below);
}

static bool add_graph(Agraph_t *g, const facts *f, const dot_cfg *cfg) {
  const wave_kernel *k = f->kernel;
  wave_strbuf b = {.allocator = f->allocator};
  wave_strbuf_puts(&b, "<B>kernel ");
  put_escaped(&b, wave_kernel_name(k));
  wave_strbuf_puts(&b, "</B>: stack depth ");
  put_depth(&b, wave_depth_max(f->depth, WAVE_DEPTH_STATIC));
  wave_strbuf_puts(&b, ", divergent ");
  put_depth(&b, wave_depth_max(f->depth, WAVE_DEPTH_DIVERGENT));
  if (!set_html(g, g, "label", wave_strbuf_take(&b, NULL), f->allocator))
    return false;
  set(g, "labelloc", "t");
  set(g, "fontname", "Helvetica");
  if (!agattr(g, AGNODE, "shape", "box") || !agattr(g, AGNODE, "style", "filled") ||
      !agattr(g, AGNODE, "fontname", "Courier") || !agattr(g, AGEDGE, "fontname", "Helvetica") ||
      !agattr(g, AGEDGE, "fontsize", "10"))
    return false;
  Agnode_t **nodes = wave_mem_calloc(f->allocator, cfg->num_blocks, sizeof(*nodes));
  if (!nodes)
    return false;
  bool ok = true;
  const wave_region *region = wave_kernel_first_region(k);
  Agraph_t *cluster = g;
  for (size_t i = 0; ok && i < cfg->num_blocks; i++) {
    if (i && cfg->blocks[i].region != cfg->blocks[i - 1].region)
      region = wave_region_next(region);
    /* Subroutines get a box of their own; the entry region is the graph itself. */
    if (cfg->blocks[i].kind == DOT_BLOCK_ENTRY && wave_region_label(region)) {
      char name[48];
      snprintf(name, sizeof(name), "cluster_region%zu", cfg->blocks[i].region);
      cluster = agsubg(g, name, 1);
      ok = cluster != NULL;
      if (ok) {
        wave_strbuf t = {.allocator = f->allocator};
        wave_strbuf_puts(&t, "<B>");
        put_escaped(&t, wave_region_label(region));
        wave_strbuf_puts(&t, ":</B>");
        ok = set_html(g, cluster, "label", wave_strbuf_take(&t, NULL), f->allocator);
      }
    }
    ok = ok && add_block(g, cluster, f, cfg, i, region, &nodes[i]);
  }
  for (size_t i = 0; ok && i < cfg->num_edges; i++) {
    const dot_edge *d = &cfg->edges[i];
    Agedge_t *e = agedge(g, nodes[d->from], nodes[d->to], NULL, 1);
    ok = e != NULL;
    if (ok)
      style_edge(e, d->kind, d->divergent);
  }
  wave_mem_free(f->allocator, nodes);
  return ok && add_legend(g, f->profile != NULL);
}

Agraph_t *wave_dot_build(const wave_kernel *kernel, const wave_dot_options *options,
                         wave_diags *diags) {
  wave_dot_options defaults;
  if (!options) {
    wave_dot_options_init(&defaults);
    options = &defaults;
  }
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  route r;
  route_begin(&r, diags, a);
  facts f;
  dot_cfg cfg = {0};
  Agraph_t *g = NULL;
  bool ok = facts_compute(&f, kernel, options) && dot_cfg_build(&cfg, kernel, f.u);
  if (ok) {
    wave_dot_disc disc;
    wave_dot_disc_init(&disc, a);
    g = agopen((char *)wave_kernel_name(kernel), Agdirected, &disc.disc);
    ok = g && add_graph(g, &f, &cfg);
  }
  if (!ok) {
    fail(&r, "out of memory drawing the graph");
    if (g)
      agclose(g);
    g = NULL;
  }
  dot_cfg_free(&cfg);
  facts_free(&f);
  route_end(&r);
  return g;
}

/* ---- writing ------------------------------------------------------------------------------ */

static const char *const format_names[] = {
    [WAVE_DOT_FORMAT_DOT] = "dot", [WAVE_DOT_FORMAT_SVG] = "svg",
    [WAVE_DOT_FORMAT_PNG] = "png", [WAVE_DOT_FORMAT_PDF] = "pdf"};

bool wave_dot_format_parse(const char *name, wave_dot_format *format) {
  for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
    if (strcmp(name, format_names[i]) == 0) {
      *format = (wave_dot_format)i;
      return true;
    }
  return false;
}

const char *wave_dot_format_name(wave_dot_format format) { return format_names[format]; }

struct wave_dot_renderer {
  GVC_t *gvc;
};

/* The renderer is made from diags alone, for any module's graphs, so it and the text of
 * graphviz's errors while it starts come from malloc (NULL). */
wave_dot_renderer *wave_dot_renderer_create(wave_diags *diags) {
  wave_dot_renderer *renderer = wave_mem_alloc(NULL, sizeof(*renderer));
  if (!renderer) {
    diags->out_of_memory = true;
    return NULL;
  }
  route r;
  route_begin(&r, diags, NULL);
  renderer->gvc = gvContext();
  if (!renderer->gvc)
    fail(&r, "cannot start graphviz");
  route_end(&r);
  if (!renderer->gvc) {
    wave_mem_free(NULL, renderer);
    return NULL;
  }
  return renderer;
}

void wave_dot_renderer_destroy(wave_dot_renderer *renderer) {
  if (!renderer)
    return;
  gvFreeContext(renderer->gvc);
  wave_mem_free(NULL, renderer);
}

/* Rendering goes to memory first: graphviz ends the process when a write to its output
 * fails, and a full disk must be an error we return. */
static int render(Agraph_t *graph, wave_dot_format format, GVC_t *gvc, FILE *out, route *r) {
  if (gvLayout(gvc, graph, "dot") != 0) {
    fail(r, "graphviz could not lay the graph out");
    return -1;
  }
  int rc = -1;
  char *data = NULL;
  unsigned len = 0;
  if (gvRenderData(gvc, graph, format_names[format], &data, &len) != 0 || !data)
    fail(r, "graphviz could not render the graph");
  else if (fwrite(data, 1, len, out) != len)
    fail(r, "cannot write the graph");
  else
    rc = 0;
  if (data)
    gvFreeRenderData(data);
  gvFreeLayout(gvc, graph);
  return rc;
}

int wave_dot_write(Agraph_t *graph, wave_dot_format format, wave_dot_renderer *renderer,
                   FILE *out, wave_diags *diags) {
  /* No kernel here, only graphviz's graph: graphviz's errors are gathered with malloc. */
  route r;
  route_begin(&r, diags, NULL);
  int rc = 0;
  if (format != WAVE_DOT_FORMAT_DOT) {
    if (renderer) {
      rc = render(graph, format, renderer->gvc, out, &r);
    } else {
      fail(&r, "rendering needs a wave_dot_renderer");
      rc = -1;
    }
  } else if (agwrite(graph, out) == EOF || ferror(out)) {
    fail(&r, "cannot write the graph");
    rc = -1;
  }
  route_end(&r);
  return r.reported ? -1 : rc;
}

size_t wave_dot_file_stem(const char *kernel_name, char *buf, size_t size) {
  size_t n = 0;
  for (const char *s = kernel_name; *s && n < WAVE_DOT_STEM_MAX; s++, n++) {
    char c = *s;
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_';
    if (n + 1 < size)
      buf[n] = keep ? c : '_';
  }
  if (n == 0) {
    if (size > 1)
      buf[0] = '_';
    n = 1;
  }
  if (size)
    buf[n < size ? n : size - 1] = '\0';
  return n;
}
