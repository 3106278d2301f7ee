/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Barrier divergence: convergent operations at points that are not converged.
 *
 * A `barrier` must be reached by every thread of the workgroup that has not ended
 * (docs/language.md "Barriers and fences"; otherwise undefined, docs/language.md "Undefined
 * behaviour"). Uniformity (analysis/uniformity.c) knows the converged points, but per wave:
 * a condition uniform in each wave may still differ between the waves of a workgroup
 * (sr_wave_id, or a wave_reduce_* or wave_ballot result, which is one value per wave), and the
 * interpreter reports a barrier that the waves reach apart as barrier divergence too. So the
 * barriers are judged by a second uniformity result classified across the workgroup
 * (wave_uniformity_config.across_workgroup), in which those per-wave values are sources: a
 * barrier is flagged exactly when that result says it is reached and not converged. Lanes
 * that ended do not take part (docs/language.md "Halt and return"): a guarded halt before a
 * barrier is fine, as the uniformity analysis has it.
 *
 * Wave operations (wave_*, the shuffles) need only their own wave converged: the per-wave
 * result judges them. One at a point that is not converged is well defined in WAVE (it acts on
 * the active lanes, docs/language.md "Wave operations"), but wave-ptx turns it into a
 * full-mask shfl.sync, undefined in PTX (docs/toolchain.md "Wave operations under divergence"):
 * always a warning [-Wtoolchain].
 *
 * Soundness rests on the uniformity analysis: every point it calls converged is reached by all
 * lanes (threads) that entered the region and have not ended. The rest of this file only names
 * the construct responsible, in one walk of the region tree with an explicit frame stack: the
 * innermost enclosing divergent if; a break or continue earlier in the iteration (on the path
 * to the point: the else-side of an if does not see its then-side) that only some lanes take;
 * an enclosing loop that lanes leave at different iterations; the instruction's own guard;
 * for code after a label, a call to it from a point that is not converged (the uniformity
 * analysis does not follow calls, so code after a label is never converged).
 */
#include <stdio.h>
#include <string.h>

#include "asm/annotate.h"
#include "ir/code.h"
#include "pm/builtin.h"
#include "support/grow.h"
#include "support/key_index.h"
#include "support/strbuf.h"
#include "waveopt/barriers.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"

enum { PER_WAVE, ACROSS, NUM_VIEWS };

/* One barrier or wave operation, in text order. */
typedef struct site {
  const wave_instr *instr;
  bool reached;
  int32_t finding;          /* index into findings, -1 when converged or not reached */
} site;

struct wave_barriers {
  site *sites;
  size_t num_sites;
  const void **site_instrs; /* each site's instruction, in the same order */
  wave_key_index by_instr;
  wave_barrier_finding *findings;
  size_t num_findings;
  const wave_allocator *allocator; /* the kernel's module's, for destroy */
};

/* ---- the walk ---------------------------------------------------------------------------- */

typedef struct frame {
  const wave_node *node;    /* an if or a loop; NULL for the region */
  bool dead_at_entry, then_dead;
  bool live_break;          /* loop: some break is reached */
  /* Per view: the first break or continue on the path through this frame (this side of an
   * if) that leaves only some of the lanes of the innermost loop. */
  const wave_instr *exit[NUM_VIEWS], *then_exit[NUM_VIEWS];
} frame;

typedef struct walk {
  const wave_kernel *kernel;
  const wave_allocator *allocator;
  const wave_uniformity *u[NUM_VIEWS];
  int num_views;            /* 0: nothing to check; 1: wave operations only; NUM_VIEWS */
  wave_barriers *b;
  frame *frames;
  size_t depth, cap;
  size_t cap_sites, cap_findings;
  const wave_instr **calls; /* every call of the kernel, for the CALL cause */
  size_t num_calls, cap_calls;
  bool oom;
} walk;

static frame *push(walk *w, const wave_node *node, bool dead) {
  if (!wave_grow(w->allocator, (void **)&w->frames, &w->cap, w->depth + 1, sizeof(frame))) {
    w->oom = true;
    return NULL;
  }
  frame *f = &w->frames[w->depth++];
  memset(f, 0, sizeof(*f));
  f->node = node;
  f->dead_at_entry = dead;
  return f;
}

static bool is_wave_op(wave_opcode op) {
  return wave_opcode_get(op)->category == WAVE_CAT_WAVE && wave_opcode_has(op, WAVE_F_CONVERGENT);
}

/* The loop frame a break or continue at the top of the stack acts on, or NULL. */
static frame *innermost_loop(walk *w) {
  for (size_t i = w->depth; i-- > 1;)
    if (wave_node_kind_of(w->frames[i].node) == WAVE_NODE_LOOP)
      return &w->frames[i];
  return NULL;
}

static uint32_t node_line(const wave_node *node) {
  return wave_node_kind_of(node) == WAVE_NODE_IF ? wave_node_origin(node, WAVE_LINE_IF).loc.line
                                                 : wave_node_origin(node, WAVE_LINE_LOOP).loc.line;
}

/* The uniformity's explanation, into a buffer of the caller's: it is only copied into the
 * finding's text, so it needs no block of its own. */
static const char *explained(const wave_uniformity *u, const wave_node *node,
                             const wave_instr *instr, char *why, size_t size) {
  if (node)
    wave_uniformity_explain_node(u, node, why, size);
  else
    wave_uniformity_explain_instr(u, instr, why, size);
  return why;
}

/* The text of a finding's cause, from the result's allocator; NULL when memory ran out. */
static char *describe(const wave_allocator *allocator, const wave_uniformity *u,
                      const wave_barrier_finding *f, const wave_region *region) {
  char why[512];
  wave_strbuf text = {.allocator = allocator};
  switch (f->cause) {
  case WAVE_BARRIER_CAUSE_IF:
    wave_strbuf_printf(&text, "the if at line %u is divergent (%s)", f->line,
                       explained(u, f->node, NULL, why, sizeof(why)));
    break;
  case WAVE_BARRIER_CAUSE_LOOP:
    wave_strbuf_printf(&text, "lanes leave the loop at line %u at different iterations (%s)",
                       f->line, explained(u, f->node, NULL, why, sizeof(why)));
    break;
  case WAVE_BARRIER_CAUSE_BRANCH: {
    const char *what = wave_opcode_get(wave_instr_op(f->branch))->mnemonic;
    if (wave_uniformity_branch_divergent(u, f->branch))
      wave_strbuf_printf(&text, "the %s at line %u earlier in the iteration is divergent (%s)",
                         what, f->line, explained(u, NULL, f->branch, why, sizeof(why)));
    else
      wave_strbuf_printf(&text,
                         "the %s at line %u earlier in the iteration is reached by only some "
                         "lanes",
                         what, f->line);
    break;
  }
  case WAVE_BARRIER_CAUSE_GUARD:
    wave_strbuf_printf(&text, "its guard p%d may differ between lanes", wave_instr_guard(f->instr));
    break;
  case WAVE_BARRIER_CAUSE_CALL:
    wave_strbuf_printf(&text, "it follows label '%s', called at line %u where lanes are parked",
                       wave_region_label(region), f->line);
    break;
  case WAVE_BARRIER_CAUSE_SUBROUTINE:
    wave_strbuf_printf(&text,
                       "it follows label '%s', and calls are not followed: its callers may "
                       "have lanes parked",
                       wave_region_label(region) ? wave_region_label(region) : "?");
    break;
  }
  return wave_strbuf_take(&text, NULL);
}

/* Names the construct that keeps instr from being converged in view v. */
static void find_cause(walk *w, int v, const wave_instr *instr, const wave_region *region,
                       wave_barrier_finding *f) {
  const wave_uniformity *u = w->u[v];
  for (size_t i = w->depth; i-- > 1;) {
    const frame *fr = &w->frames[i];
    if (wave_node_kind_of(fr->node) == WAVE_NODE_IF &&
        wave_uniformity_node_divergent(u, fr->node)) {
      f->cause = WAVE_BARRIER_CAUSE_IF;
      f->node = fr->node;
      f->line = node_line(fr->node);
      return;
    }
    if (fr->exit[v]) {
      f->cause = WAVE_BARRIER_CAUSE_BRANCH;
      f->branch = fr->exit[v];
      f->line = wave_instr_loc(fr->exit[v]).line;
      return;
    }
    if (wave_node_kind_of(fr->node) == WAVE_NODE_LOOP &&
        wave_uniformity_node_divergent(u, fr->node)) {
      f->cause = WAVE_BARRIER_CAUSE_LOOP;
      f->node = fr->node;
      f->line = node_line(fr->node);
      return;
    }
  }
  if (wave_instr_guard(instr) != WAVE_NO_GUARD &&
      wave_uniformity_reg_divergent(u, instr, WAVE_REG_PRED(wave_instr_guard(instr)))) {
    f->cause = WAVE_BARRIER_CAUSE_GUARD;
    f->line = wave_instr_loc(instr).line;
    return;
  }
  f->cause = WAVE_BARRIER_CAUSE_SUBROUTINE;
  if (!wave_region_label(region))
    return;
  for (size_t i = 0; i < w->num_calls; i++) {
    const wave_instr *call = w->calls[i];
    if (wave_instr_operand(call, 0).label &&
        !strcmp(wave_instr_operand(call, 0).label, wave_region_label(region)) &&
        !wave_uniformity_instr_converged(u, call)) {
      f->cause = WAVE_BARRIER_CAUSE_CALL;
      f->branch = call;
      f->line = wave_instr_loc(call).line;
      return;
    }
  }
}

static void check(walk *w, const wave_instr *instr, const wave_region *region, bool dead) {
  wave_barriers *b = w->b;
  if (!wave_grow(w->allocator, (void **)&b->sites, &w->cap_sites, b->num_sites + 1, sizeof(site))) {
    w->oom = true;
    return;
  }
  site *s = &b->sites[b->num_sites++];
  s->instr = instr;
  s->reached = !dead;
  s->finding = -1;
  bool barrier = wave_instr_op(instr) == WAVE_OP_BARRIER;
  int v = barrier ? ACROSS : PER_WAVE;
  if (dead || wave_uniformity_instr_converged(w->u[v], instr))
    return;
  if (!wave_grow(w->allocator, (void **)&b->findings, &w->cap_findings, b->num_findings + 1,
                 sizeof(*b->findings))) {
    w->oom = true;
    return;
  }
  wave_barrier_finding *f = &b->findings[b->num_findings];
  memset(f, 0, sizeof(*f));
  f->instr = instr;
  f->across_waves = barrier && wave_uniformity_instr_converged(w->u[PER_WAVE], instr);
  find_cause(w, v, instr, region, f);
  f->why = describe(w->allocator, w->u[v], f, region);
  if (!f->why) {
    w->oom = true;
    return;
  }
  s->finding = (int32_t)b->num_findings++;
}

/* A break or continue: remember it in its frame when it leaves only some lanes. */
static void note_branch(walk *w, const wave_instr *instr, bool dead) {
  frame *loop = innermost_loop(w);
  if (dead || !loop)
    return;
  if (wave_instr_op(instr) == WAVE_OP_BREAK)
    loop->live_break = true;
  frame *top = &w->frames[w->depth - 1];
  for (int v = 0; v < w->num_views; v++)
    if (!top->exit[v] && (wave_uniformity_branch_divergent(w->u[v], instr) ||
                          !wave_uniformity_instr_converged(w->u[v], instr)))
      top->exit[v] = instr;
}

static void walk_region(walk *w, const wave_region *region) {
  w->depth = 0;
  if (!push(w, NULL, false))
    return;
  bool dead = false;
  wave_const_walker it;
  wave_const_walk_init(&it, wave_region_body(region));
  while (!w->oom && wave_const_walk_next(&it)) {
    const wave_node *n = it.node;
    frame *f = &w->frames[w->depth - 1];
    switch (it.event) {
    case WAVE_WALK_BLOCK:
      wave_foreach_instr(instr, n) {
        if (wave_instr_op(instr) == WAVE_OP_BARRIER || is_wave_op(wave_instr_op(instr)))
          check(w, instr, region, dead);
        else if (wave_instr_op(instr) == WAVE_OP_BREAK || wave_instr_op(instr) == WAVE_OP_CONTINUE)
          note_branch(w, instr, dead);
        else if ((wave_instr_op(instr) == WAVE_OP_HALT || wave_instr_op(instr) == WAVE_OP_RETURN) &&
                 wave_instr_guard(instr) == WAVE_NO_GUARD)
          dead = true;
      }
      break;
    case WAVE_WALK_IF:
    case WAVE_WALK_LOOP:
      push(w, n, dead);
      break;
    case WAVE_WALK_ELSE:
      f->then_dead = dead;
      memcpy(f->then_exit, f->exit, sizeof(f->exit));
      memset(f->exit, 0, sizeof(f->exit));
      dead = f->dead_at_entry;
      break;
    case WAVE_WALK_ENDIF:
    case WAVE_WALK_ENDLOOP: {
      frame *parent = &w->frames[w->depth - 2];
      if (it.event == WAVE_WALK_ENDIF) {
        dead = dead && f->then_dead;
        for (int v = 0; v < NUM_VIEWS; v++)
          if (!parent->exit[v])
            parent->exit[v] = f->then_exit[v] ? f->then_exit[v] : f->exit[v];
      } else {
        /* Lanes leave a loop only by a break (docs/language.md "Loops"). */
        dead = f->dead_at_entry || !f->live_break;
      }
      w->depth--;
      break;
    }
    }
  }
}

/* What the kernel holds: whether it has a barrier or a wave operation at all, and (into w,
 * when given) its calls for the CALL cause. Most kernels have neither barriers nor wave
 * operations, and then no uniformity is needed; a kernel without a barrier needs none across
 * the workgroup. Read from the layout: the opcodes lie in one dense array there. */
static void survey(const wave_layout *layout, bool *barriers, bool *wave_ops, walk *w) {
  *barriers = *wave_ops = false;
  for (size_t i = 0; i < layout->num_items; i++) {
    const wave_layout_item *item = &layout->items[i];
    if (item->kind != WAVE_LAYOUT_INSTR)
      continue;
    *barriers |= item->op == WAVE_OP_BARRIER;
    *wave_ops |= is_wave_op(item->op);
    if (!w || item->op != WAVE_OP_CALL)
      continue;
    if (!wave_grow(w->allocator, (void **)&w->calls, &w->cap_calls, w->num_calls + 1,
                   sizeof(*w->calls)))
      w->oom = true;
    else
      w->calls[w->num_calls++] = wave_layout_instr(item);
  }
}

/* The result from the kernel's layout; per_wave NULL: computed here when needed. */
static wave_barriers *barriers_compute(const wave_kernel *kernel, const wave_layout *layout,
                                       const wave_uniformity *per_wave) {
  const wave_allocator *allocator = wave_module_allocator(wave_kernel_module(kernel));
  wave_barriers *b = wave_mem_calloc(allocator, 1, sizeof(*b));
  walk w = {0};
  w.kernel = kernel;
  w.allocator = allocator;
  if (b)
    b->allocator = allocator;
  w.b = b;
  w.oom = !b;
  bool barriers = false, wave_ops = false;
  if (b)
    survey(layout, &barriers, &wave_ops, &w);
  wave_uniformity *own = NULL, *workgroup = NULL;
  if (barriers || wave_ops) {
    if (!per_wave)
      per_wave = own = wave_uniformity_compute(kernel, NULL);
    w.num_views = 1;
    if (barriers) {
      wave_uniformity_config across = {.across_workgroup = true};
      workgroup = wave_uniformity_compute(kernel, &across);
      w.num_views = NUM_VIEWS;
      w.oom |= !workgroup;
    }
    w.u[PER_WAVE] = per_wave;
    w.u[ACROSS] = workgroup;
    w.oom |= !per_wave;
  }
  for (const wave_region *r = wave_kernel_first_region(kernel); r && !w.oom && w.num_views;
       r = wave_region_next(r))
    walk_region(&w, r);
  if (!w.oom && b->num_sites) {
    b->site_instrs = wave_mem_alloc(allocator, b->num_sites * sizeof(*b->site_instrs));
    w.oom = !b->site_instrs;
    for (size_t i = 0; !w.oom && i < b->num_sites; i++)
      b->site_instrs[i] = b->sites[i].instr;
    w.oom =
        w.oom || !wave_key_index_build(&b->by_instr, b->allocator, b->site_instrs, b->num_sites);
  }
  wave_mem_free(allocator, w.frames);
  wave_mem_free(allocator, w.calls);
  wave_uniformity_destroy(own);
  wave_uniformity_destroy(workgroup);
  if (w.oom) {
    wave_barriers_destroy(b);
    return NULL;
  }
  return b;
}

wave_barriers *wave_barriers_compute(const wave_kernel *kernel, const wave_uniformity *per_wave) {
  wave_layout *layout = wave_layout_build(kernel, NULL);
  wave_barriers *b = layout ? barriers_compute(kernel, layout, per_wave) : NULL;
  wave_layout_destroy(layout);
  return b;
}

void wave_barriers_destroy(wave_barriers *b) {
  if (!b)
    return;
  for (size_t i = 0; i < b->num_findings; i++)
    wave_mem_free(b->allocator, (char *)b->findings[i].why);
  wave_mem_free(b->allocator, b->findings);
  wave_mem_free(b->allocator, b->sites);
  wave_mem_free(b->allocator, b->site_instrs);
  wave_key_index_free(&b->by_instr);
  wave_mem_free(b->allocator, b);
}

/* ---- queries ----------------------------------------------------------------------------- */

size_t wave_barriers_num_findings(const wave_barriers *b) { return b->num_findings; }

const wave_barrier_finding *wave_barriers_finding(const wave_barriers *b, size_t index) {
  return index < b->num_findings ? &b->findings[index] : NULL;
}

const wave_barrier_finding *wave_barriers_find(const wave_barriers *b, const wave_instr *instr) {
  size_t k = wave_key_index_find(&b->by_instr, instr);
  if (k == WAVE_KEY_NOT_FOUND || b->sites[k].finding < 0)
    return NULL;
  return &b->findings[b->sites[k].finding];
}

bool wave_barriers_equal(const wave_barriers *a, const wave_barriers *b) {
  if (a->num_findings != b->num_findings)
    return false;
  for (size_t i = 0; i < a->num_findings; i++) {
    const wave_barrier_finding *x = &a->findings[i], *y = &b->findings[i];
    if (x->instr != y->instr || x->across_waves != y->across_waves || x->cause != y->cause ||
        x->node != y->node || x->branch != y->branch)
      return false;
  }
  return true;
}

/* ---- reporting --------------------------------------------------------------------------- */

void wave_barriers_diagnose(const wave_barriers *b, const wave_kernel *kernel, bool asked,
                            wave_diags *diags) {
  for (size_t i = 0; i < b->num_findings; i++) {
    const wave_barrier_finding *f = &b->findings[i];
    if (wave_instr_op(f->instr) == WAVE_OP_BARRIER)
      wave_module_report(wave_kernel_module(kernel), diags,
                         asked ? WAVE_SEV_ERROR : WAVE_SEV_WARNING,
                         asked ? NULL : "barrier-divergence", wave_instr_loc(f->instr),
                         "barrier may be reached by only some %s: %s",
                         f->across_waves ? "waves of the workgroup" : "lanes of the wave", f->why);
    else
      wave_module_report(wave_kernel_module(kernel), diags, WAVE_SEV_WARNING, "toolchain",
                         wave_instr_loc(f->instr),
                         "'%s' where the wave is not converged: %s; wave-ptx makes it a "
                         "full-mask shfl.sync, undefined in PTX",
                         wave_opcode_get(wave_instr_op(f->instr))->mnemonic, f->why);
  }
}

typedef struct listing {
  const wave_barriers *b;
  size_t next;              /* sites come in text order */
} listing;

static const char *verdict(void *ctx, const wave_instr *instr, char *buf, size_t size) {
  listing *l = ctx;
  if (l->next >= l->b->num_sites || l->b->sites[l->next].instr != instr)
    return NULL;
  const site *s = &l->b->sites[l->next++];
  if (s->finding < 0)
    return s->reached ? "converged" : "not reached";
  snprintf(buf, size, "not converged: %s", l->b->findings[s->finding].why);
  return buf;
}

int wave_barriers_print(const wave_barriers *b, const wave_kernel *kernel, wave_write_fn write,
                        void *ctx) {
  listing l = {b, 0};
  wave_annotator a = {.ctx = &l, .instr = verdict};
  return wave_print_annotated(kernel, &a, write, ctx);
}

/* ---- registration ------------------------------------------------------------------------ */

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  /* Uniformity comes from the manager, cached for other users, but only when it is needed. */
  const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
  bool barriers = false, wave_ops = false;
  if (layout)
    survey(layout, &barriers, &wave_ops, NULL);
  const wave_uniformity *u = NULL;
  if ((barriers || wave_ops) && !(u = wave_analysis_get(am, kernel, WAVE_ANALYSIS_UNIFORMITY)))
    return NULL;
  wave_barriers *b = layout ? barriers_compute(kernel, layout, u) : NULL;
  if (!b)
    wave_module_report(wave_kernel_module(kernel), diags, WAVE_SEV_ERROR, NULL,
                       wave_kernel_loc(kernel), "barriers: out of memory");
  return b;
}

static void destroy(void *result) { wave_barriers_destroy(result); }

static bool equal(const void *a, const void *b) { return wave_barriers_equal(a, b); }

static int print(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx) {
  return wave_barriers_print(result, kernel, write, ctx);
}

static void diagnose(const void *result, const wave_kernel *kernel, bool asked, wave_diags *diags) {
  wave_barriers_diagnose(result, kernel, asked, diags);
}

const wave_analysis_info wave_analysis_barriers = {
    .name = "barriers",
    .help = "barriers that only some threads of the workgroup may reach, and wave operations "
            "where the wave is not converged",
    .compute = compute,
    .destroy = destroy,
    .equal = equal,
    .print = print,
    .diagnose = diagnose,
};
