/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SIMT deadlock: a loop that waits for memory only parked lanes would write.
 *
 * Under SIMT execution a wave runs one side of a divergent if while the lanes of the other
 * side are parked (the then-side first), and lanes that leave a loop early wait at its endloop
 * until every lane has left (docs/language.md "If and else", "Loops"). A loop whose lanes wait
 * for a store that only parked lanes will run therefore never ends, although every thread run
 * on its own would finish (Habermaier & Knapp, "On the correctness of the SIMT execution
 * model of GPUs", §5; ElTantawy & Aamodt, MICRO 2016). The two classic shapes:
 *
 *     if p1                           ; lanes disagree on p1
 *         loop                        ; the then-side polls a flag...
 *             device_load_u32 r3, r0
 *             icmp_ne  p2, r3, r2
 *             break    p2
 *         endloop
 *     else
 *         device_store_u32 r0, r4     ; ...that the parked else-side would set
 *     endif
 *
 *     loop                            ; a spin lock: one lane wins the CAS, leaves the loop
 *         atomic_cas r4, r0, r2, r3, .device
 *         icmp_eq  p1, r4, r2
 *         break    p1
 *     endloop                         ; and waits here for the others, which wait for
 *     atomic_exchange r0, r2, .device ; the release it would make after the loop
 *
 * The rules, in the order they are applied to each loop:
 *   1. A loop holding a call, halt or return is not judged: lanes may leave it without a break,
 *      and calls are not followed. A loop without a break ends only with its lanes.
 *   2. The loop *waits on memory* when every one of its own breaks depends on a value read from
 *      memory inside it, at an address the loop never changes (a load or an atomic with a
 *      result): the lanes poll one word until someone else changes it. "Depends" follows data
 *      (a register computed from such a value, flow-sensitively through the body, around the
 *      back edge and through continues) and control (a break, or a definition, inside an if
 *      whose predicate depends). A loop with a break that does not depend (a trip count, a
 *      search bounded by a length) ends by itself; so does one that walks memory, changing the
 *      address as it goes.
 *   3. A waiting loop that also writes the memory space it polls, other than with the polling
 *      atomics themselves, may release its own lanes (the SIMT-safe lock that releases inside
 *      the loop): no finding.
 *   4. Otherwise the writers that count are the stores and atomics to that space that parked
 *      lanes run before any lane of the loop could: walking out from the loop, the code after
 *      it in the same list once some lanes are parked — by the loop's own divergent breaks, or
 *      by a divergent if or loop passed on the way out — and the else-side of a divergent if
 *      whose then-side holds the loop. The first such writer is the finding (or, a few writers
 *      on, one through the polled address register: the release rather than the critical
 *      section), with the construct that parks its lanes.
 * Divergence comes from the uniformity analysis, computed only when some loop waits on memory.
 *
 * What is not seen: writers in subroutines, code that lanes parked by a divergent continue run
 * in the next iteration, addresses (any writer to the polled space counts, any writer inside
 * the loop releases). Every finding is a "possible" deadlock, a warning; the tests confirm
 * each one in the interpreter (SIMT runs out of budget, thread by thread it finishes).
 *
 * Cost: one pass over the kernel's flat layout (ir/layout.h, shared with the other analyses,
 * each instruction's registers decoded there) records every if and loop and, for each loop,
 * its own statements (not those of nested loops) in text order; the dependence pass over a loop's
 * statements repeats until the values carried around the back edge stop growing, at most once per
 * register; the writers of each space sit in text-ordered arrays, so every "first writer in this
 * stretch" is a binary search; the walk outward from a loop continues the one from its parent, so
 * one table filled parents first answers it for every loop of a nest (fill_reach). Linear in the
 * kernel but for the bounded repetition and the searches; no recursion.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "asm/annotate.h"
#include "ir/code.h"
#include "pm/builtin.h"
#include "support/grow.h"
#include "waveopt/deadlock.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"

#define NONE UINT32_MAX

struct wave_deadlock {
  wave_loop_verdict *loops;
  size_t num_loops;
  size_t num_findings;
  const wave_allocator *allocator; /* the kernel's module's, for destroy */
};

/* ---- the survey ---------------------------------------------------------------------------- */

/* An if or a loop, in text order of its first line. Instructions are numbered in text order
 * across the kernel; the construct's statements are [start, end), an if's else-side [mid, end). */
typedef struct construct {
  const wave_node *node;
  uint32_t parent;          /* the enclosing construct, NONE at a region's top level */
  uint32_t list_end;        /* where the list holding it ends */
  uint32_t start, mid, end;
  uint32_t loop;            /* a loop's index in loops; NONE for an if */
} construct;

typedef struct loop_info {
  uint32_t construct;
  wave_regset defs;         /* written anywhere inside, nested loops included */
  bool leaves_otherwise;    /* a call, halt or return inside */
  bool own_break, own_read; /* a break of its own; a load or atomic of its own (not nested) */
  uint32_t first_event, num_events;
} loop_info;

typedef enum event_kind { EV_INSTR, EV_IF, EV_ELSE, EV_ENDIF, EV_INNER } event_kind;

/* One statement of a loop's own body. */
typedef struct event {
  uint32_t loop;            /* the innermost loop around it */
  uint32_t index;           /* EV_INSTR: the instruction's number; EV_INNER: the inner loop */
  uint32_t item;            /* its item's index in the layout (16 bytes an event, not 24: a
                             * kernel's events are most of its statements, twice over) */
  uint8_t kind;
} event;

typedef struct writer {
  uint32_t index;
  const wave_instr *instr;
} writer;

enum { LOCAL, DEVICE, SPACES };

typedef struct survey {
  const wave_layout *layout;
  const wave_allocator *allocator; /* the kernel's module's, for every array here */
  construct *constructs;
  size_t num_constructs, cap_constructs;
  loop_info *loops;
  size_t num_loops, cap_loops;
  event *events;
  size_t num_events, cap_events;
  writer *writers[SPACES];
  size_t num_writers[SPACES], cap_writers[SPACES];
  uint8_t *source;          /* per instruction: it is a polled read of its loop */
  uint32_t num_instrs;
  uint32_t *stack;          /* open constructs */
  uint32_t *inner_loop;     /* per open construct: the innermost loop at or outside it, or NONE */
  size_t cap_stack, cap_inner;
  bool failed;
} survey;

#define PUSH(s, array, count, cap, value)                                                          \
  do {                                                                                             \
    if (!wave_grow((s)->allocator, (void **)&(s)->array, &(s)->cap, (s)->count + 1,                \
                   sizeof(*(s)->array)))                                                           \
      (s)->failed = true;                                                                          \
    else                                                                                           \
      (s)->array[(s)->count++] = (value);                                                          \
  } while (0)

static int space_of(wave_opcode op) {
  if (wave_opcode_has(op, WAVE_F_LOCAL_MEM))
    return LOCAL;
  return wave_opcode_has(op, WAVE_F_DEVICE_MEM) ? DEVICE : -1;
}

/* The innermost loop around a statement at this nesting depth, or NONE. */
static uint32_t loop_around(const survey *s, size_t depth) {
  return depth ? s->inner_loop[depth - 1] : NONE;
}

/* The innermost loop owns the statement; statements outside every loop are not needed. */
static void add_event(survey *s, size_t depth, event_kind kind, uint32_t index,
                      const wave_layout_item *item) {
  uint32_t loop = loop_around(s, depth);
  if (loop != NONE) {
    event e = {loop, index, (uint32_t)(item - s->layout->items), (uint8_t)kind};
    PUSH(s, events, num_events, cap_events, e);
  }
}

static void note_instr(survey *s, size_t depth, const wave_layout_item *item) {
  const wave_instr *instr = wave_layout_instr(item);
  uint32_t index = s->num_instrs++;
  add_event(s, depth, EV_INSTR, index, item);
  int space = space_of(item->op);
  if (space >= 0 && wave_opcode_has(item->op, WAVE_F_WRITES_MEM) &&
      !wave_opcode_has(item->op, WAVE_F_CALL)) {
    writer w = {index, instr};
    PUSH(s, writers[space], num_writers[space], cap_writers[space], w);
  }
  uint32_t loop = loop_around(s, depth);
  if (loop == NONE)
    return;
  /* Only the innermost loop is updated here; close_loop passes the facts outward. */
  loop_info *l = &s->loops[loop];
  wave_regset_add_list(&l->defs, wave_layout_defs(s->layout, item), item->num_defs);
  l->leaves_otherwise |= wave_opcode_has(item->op, WAVE_F_CALL | WAVE_F_EXIT);
  l->own_break |= item->op == WAVE_OP_BREAK;
  l->own_read |= wave_opcode_has(item->op, WAVE_F_READS_MEM) && space >= 0;
}

static void open_construct(survey *s, size_t depth, const wave_layout_item *item) {
  const wave_node *node = wave_layout_node(item);
  bool is_if = item->kind == WAVE_LAYOUT_IF;
  construct c = {node, depth ? s->stack[depth - 1] : NONE, 0, s->num_instrs, NONE, 0, NONE};
  if (is_if)
    add_event(s, depth, EV_IF, 0, item);
  else {
    add_event(s, depth, EV_INNER, (uint32_t)s->num_loops, item);
    loop_info l = {.construct = (uint32_t)s->num_constructs, .defs = wave_regset_empty()};
    c.loop = (uint32_t)s->num_loops;
    PUSH(s, loops, num_loops, cap_loops, l);
  }
  if (!wave_grow(s->allocator, (void **)&s->stack, &s->cap_stack, depth + 1, sizeof(*s->stack)) ||
      !wave_grow(s->allocator, (void **)&s->inner_loop, &s->cap_inner, depth + 1,
                 sizeof(*s->inner_loop))) {
    s->failed = true;
    return;
  }
  s->stack[depth] = (uint32_t)s->num_constructs;
  s->inner_loop[depth] = c.loop != NONE ? c.loop : loop_around(s, depth);
  PUSH(s, constructs, num_constructs, cap_constructs, c);
}

static void close_loop(survey *s, size_t depth) {
  const loop_info *l = &s->loops[s->inner_loop[depth]];
  uint32_t outer = loop_around(s, depth);
  if (outer != NONE) {
    s->loops[outer].defs = wave_regset_union(s->loops[outer].defs, l->defs);
    s->loops[outer].leaves_otherwise |= l->leaves_otherwise;
  }
}

/* The constructs whose list is the region's body end with the region; the others end where
 * their parent's list does, which walk_region sets when it closes the parent's side. The
 * region's statements are the layout's from *at to the region's end, *at left after it. */
static void walk_region(survey *s, const wave_layout_item **at) {
  size_t first = s->num_constructs;
  const wave_layout_item *item = *at;
  for (; !s->failed && item->kind != WAVE_LAYOUT_END_REGION; item++) {
    size_t depth = item->depth;
    switch ((wave_layout_kind)item->kind) {
    case WAVE_LAYOUT_INSTR:
      note_instr(s, depth, item);
      break;
    case WAVE_LAYOUT_IF:
    case WAVE_LAYOUT_LOOP:
      open_construct(s, depth, item);
      break;
    case WAVE_LAYOUT_ELSE:
      s->constructs[s->stack[depth]].mid = s->num_instrs;
      add_event(s, depth, EV_ELSE, 0, item);
      break;
    case WAVE_LAYOUT_ENDIF:
      add_event(s, depth, EV_ENDIF, 0, item);
      s->constructs[s->stack[depth]].end = s->num_instrs;
      break;
    case WAVE_LAYOUT_ENDLOOP:
      s->constructs[s->stack[depth]].end = s->num_instrs;
      close_loop(s, depth);
      break;
    default:
      break;
    }
  }
  *at = item + 1;
  /* Every construct is closed now: a list ends where its parent's side, or the region, does. */
  for (size_t i = first; i < s->num_constructs && !s->failed; i++) {
    construct *c = &s->constructs[i];
    if (c->parent == NONE)
      c->list_end = s->num_instrs;
    else {
      const construct *p = &s->constructs[c->parent];
      c->list_end = p->loop == NONE && c->start < p->mid ? p->mid : p->end;
    }
  }
}

/* Groups the events by loop, keeping text order within each (a counting sort). */
static bool group_events(survey *s) {
  if (!s->num_events)
    return true;
  event *sorted = wave_mem_alloc(s->allocator, s->num_events * sizeof(*sorted));
  if (!sorted)
    return false;
  for (size_t i = 0; i < s->num_events; i++)
    s->loops[s->events[i].loop].num_events++;
  uint32_t at = 0;
  for (size_t l = 0; l < s->num_loops; l++) {
    s->loops[l].first_event = at;
    at += s->loops[l].num_events;
    s->loops[l].num_events = 0;
  }
  for (size_t i = 0; i < s->num_events; i++) {
    loop_info *l = &s->loops[s->events[i].loop];
    sorted[l->first_event + l->num_events++] = s->events[i];
  }
  wave_mem_free(s->allocator, s->events);
  s->events = sorted;
  return true;
}

static void survey_free(survey *s) {
  wave_mem_free(s->allocator, s->constructs);
  wave_mem_free(s->allocator, s->loops);
  wave_mem_free(s->allocator, s->events);
  for (int k = 0; k < SPACES; k++)
    wave_mem_free(s->allocator, s->writers[k]);
  wave_mem_free(s->allocator, s->source);
  wave_mem_free(s->allocator, s->stack);
  wave_mem_free(s->allocator, s->inner_loop);
}

static bool survey_kernel(survey *s, const wave_layout *layout) {
  memset(s, 0, sizeof(*s));
  s->layout = layout;
  s->allocator = wave_module_allocator(wave_kernel_module(layout->kernel));
  /* Sized once from the layout (an event per statement at most): doubling would copy and
   * fault in the arrays again. */
  const size_t *count = layout->count;
  if (!wave_alloc_array(s->allocator, (void **)&s->constructs, &s->cap_constructs,
                        count[WAVE_LAYOUT_IF] + count[WAVE_LAYOUT_LOOP], sizeof(*s->constructs)) ||
      !wave_alloc_array(s->allocator, (void **)&s->loops, &s->cap_loops, count[WAVE_LAYOUT_LOOP],
                        sizeof(*s->loops)) ||
      !wave_alloc_array(s->allocator, (void **)&s->events, &s->cap_events,
                        layout->num_items - count[WAVE_LAYOUT_BLOCK], sizeof(*s->events)))
    return false;
  const wave_layout_item *at = layout->items;
  for (size_t r = 0; r < layout->count[WAVE_LAYOUT_END_REGION] && !s->failed; r++)
    walk_region(s, &at);
  if (s->failed || !group_events(s))
    return false;
  s->source = wave_mem_calloc(s->allocator, s->num_instrs ? s->num_instrs : 1, 1);
  return s->source != NULL;
}

/* ---- what a loop waits on ------------------------------------------------------------------- */

/* A read whose result can change only because someone else writes the word: a load or an
 * atomic with a destination, at an address the loop does not write. */
static bool polls(const wave_layout_item *item, const loop_info *l) {
  if (!wave_opcode_has(item->op, WAVE_F_READS_MEM) ||
      wave_opcode_has(item->op, WAVE_F_CALL | WAVE_F_HIDDEN_STATE) || space_of(item->op) < 0)
    return false;
  const wave_instr *instr = wave_layout_instr(item);
  wave_operand dest = wave_instr_dest(instr), addr = wave_instr_src(instr, 0);
  return dest.kind != WAVE_OPERAND_NONE && addr.kind == WAVE_OPERAND_GPR && item->num_defs &&
         !wave_regset_test(l->defs, WAVE_REG_GPR(addr.value));
}

typedef struct if_frame {
  wave_regset at_if, then_end;
  bool control;
} if_frame;

typedef struct wait {
  bool every_break_waits, has_break;
  const wave_instr *read;   /* the first polled read */
  bool spaces[SPACES];
} wait;

/* One pass over the loop's own statements from `top`, the dependent registers at the start of
 * an iteration; returns those at the start of the next one. */
static wave_regset depend_pass(survey *s, uint32_t loop, wave_regset top, if_frame **frames,
                               size_t *cap, wait *out) {
  const loop_info *l = &s->loops[loop];
  wave_regset t = top, carried = wave_regset_empty();
  bool control = false;
  size_t depth = 0;
  *out = (wait){true, false, NULL, {false, false}};
  for (uint32_t e = l->first_event; e < l->first_event + l->num_events && !s->failed; e++) {
    const event *ev = &s->events[e];
    switch (ev->kind) {
    case EV_INSTR: {
      const wave_layout_item *item = &s->layout->items[ev->item];
      const uint16_t *defs = wave_layout_defs(s->layout, item);
      bool depends =
          control || wave_regset_meets_list(&t, wave_layout_uses(s->layout, item), item->num_uses);
      if (item->op == WAVE_OP_BREAK) {
        out->has_break = true;
        out->every_break_waits &= depends;
      } else if (item->op == WAVE_OP_CONTINUE) {
        carried = wave_regset_union(carried, t);
      } else if (polls(item, l)) {
        s->source[ev->index] = 1;
        out->spaces[space_of(item->op)] = true;
        if (!out->read)
          out->read = wave_layout_instr(item);
        wave_regset_add_list(&t, defs, item->num_defs);
      } else if (depends) {
        wave_regset_add_list(&t, defs, item->num_defs);
      } else if (item->guard == WAVE_NO_GUARD) {
        wave_regset_remove_list(&t, defs, item->num_defs);   /* a guarded write leaves other
                                                              * lanes' values */
      }
      break;
    }
    case EV_IF: {
      if (!wave_grow(s->allocator, (void **)frames, cap, depth + 1, sizeof(**frames))) {
        s->failed = true;
        break;
      }
      (*frames)[depth++] = (if_frame){t, wave_regset_empty(), control};
      control |= wave_regset_test(t, WAVE_REG_PRED(s->layout->items[ev->item].pred));
      break;
    }
    case EV_ELSE:
      (*frames)[depth - 1].then_end = t;
      t = (*frames)[depth - 1].at_if;
      break;
    case EV_ENDIF:
      depth--;
      t = wave_regset_union(t, (*frames)[depth].then_end);
      control = (*frames)[depth].control;
      break;
    case EV_INNER:
      /* What an inner loop computes is not followed: its writes end the dependence. */
      t = wave_regset_subtract(t, s->loops[ev->index].defs);
      break;
    }
  }
  return wave_regset_union(top, wave_regset_union(t, carried));
}

/* Rule 2: whether every break of the loop waits on memory. The dependent registers at the top
 * of an iteration only grow from pass to pass, so the passes stop within one per register. */
static bool waits_on_memory(survey *s, uint32_t loop, if_frame **frames, size_t *cap, wait *w) {
  wave_regset top = wave_regset_empty();
  for (;;) {
    wave_regset next = depend_pass(s, loop, top, frames, cap, w);
    if (s->failed || wave_regset_equal(next, top))
      break;
    top = next;
  }
  return !s->failed && w->has_break && w->every_break_waits && w->read;
}

/* ---- who writes it -------------------------------------------------------------------------- */

/* How far a search for a writer through the polled address looks past the first writer. */
enum { SAME_ADDRESS_LOOKAHEAD = 64 };

static bool same_address(const wave_instr *store, const wave_instr *read) {
  wave_operand a = wave_instr_src(store, 0), b = wave_instr_src(read, 0);
  return a.kind != WAVE_OPERAND_NONE && a.kind == b.kind && a.value == b.value &&
         space_of(wave_instr_op(store)) == space_of(wave_instr_op(read));
}

/* The first writer to one of the spaces in [from, to), skipping the loop's polled reads when
 * skip_sources; NULL when none. Given a read, a writer through the same address register a
 * little further on is preferred: it names the release of a lock rather than the first store
 * of its critical section. */
static const wave_instr *first_writer(const survey *s, const bool spaces[SPACES], uint32_t from,
                                      uint32_t to, bool skip_sources, const wave_instr *read) {
  const writer *best = NULL, *same = NULL;
  for (int k = 0; k < SPACES; k++) {
    if (!spaces[k])
      continue;
    size_t lo = 0, hi = s->num_writers[k];
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (s->writers[k][mid].index < from)
        lo = mid + 1;
      else
        hi = mid;
    }
    size_t seen = 0;
    for (size_t i = lo;
         i < s->num_writers[k] && s->writers[k][i].index < to && seen < SAME_ADDRESS_LOOKAHEAD;
         i++) {
      const writer *w = &s->writers[k][i];
      if (skip_sources && s->source[w->index])
        continue;
      if (!best || w->index < best->index)
        best = w;
      if (!read)
        break;
      seen++;
      if (same_address(w->instr, read)) {
        if (!same || w->index < same->index)
          same = w;
        break;
      }
    }
  }
  return same ? same->instr : best ? best->instr : NULL;
}

/* Rule 4 for every construct at once: walking out from it, the first stretch of code where
 * parked lanes meet a writer, and who parks them. The walk from a construct continues the walk
 * from its parent, and parents come first in the constructs' order, so one pass fills the table
 * and a loop nested 100 000 deep costs what a flat one does. */
typedef struct stretch {
  uint32_t from, to;        /* from == to: no writer on the way out */
  uint32_t parker;          /* a construct, or NONE: whatever parked the lanes further in */
} stretch;

typedef struct reach {
  stretch *parked;          /* from a construct with lanes already parked */
  stretch *unparked;        /* from a construct with none parked yet */
} reach;

static bool has_writer(const survey *s, const bool spaces[SPACES], uint32_t from, uint32_t to) {
  return from < to && first_writer(s, spaces, from, to, false, NULL);
}

static void fill_reach(const survey *s, const wave_uniformity *u, const bool spaces[SPACES],
                       reach *r) {
  const stretch none = {0, 0, NONE};
  for (uint32_t i = 0; i < s->num_constructs; i++) {
    const construct *x = &s->constructs[i];
    uint32_t p = x->parent;
    const construct *a = p == NONE ? NULL : &s->constructs[p];
    bool divergent = a && wave_uniformity_node_divergent(u, a->node);
    bool else_side =
        divergent && a->loop == NONE && x->start < a->mid && has_writer(s, spaces, a->mid, a->end);
    stretch beside = {a ? a->mid : 0, a ? a->end : 0, p};
    if (has_writer(s, spaces, x->end, x->list_end))
      r->parked[i] = (stretch){x->end, x->list_end, NONE};
    else
      r->parked[i] = else_side ? beside : a ? r->parked[p] : none;
    if (else_side)
      r->unparked[i] = beside;
    else if (divergent) {
      r->unparked[i] = r->parked[p];
      if (r->unparked[i].parker == NONE)
        r->unparked[i].parker = p;
    } else
      r->unparked[i] = a ? r->unparked[p] : none;
  }
}

/* Rules 3 and 4 for a loop that waits on memory; reaches are indexed by the spaces it polls. */
static void judge(const survey *s, uint32_t loop, const wait *w, const wave_uniformity *u,
                  const reach *r, wave_loop_verdict *v) {
  uint32_t c = s->loops[loop].construct;
  const construct *x = &s->constructs[c];
  v->read = w->read;
  v->wait = WAVE_WAIT_SELF;
  if (first_writer(s, w->spaces, x->start, x->end, true, NULL))
    return;
  bool divergent = wave_uniformity_node_divergent(u, x->node);
  stretch out = divergent ? r->parked[c] : r->unparked[c];
  v->wait = WAVE_WAIT_UNPARKED;
  if (out.from == out.to)
    return;
  v->wait = WAVE_WAIT_DEADLOCK;
  v->writer = first_writer(s, w->spaces, out.from, out.to, false, w->read);
  v->parker = s->constructs[out.parker == NONE ? c : out.parker].node;
}

static int space_mask(const bool spaces[SPACES]) {
  return (spaces[LOCAL] ? 1 : 0) | (spaces[DEVICE] ? 2 : 0);
}

static wave_deadlock *conclude(const survey *s, const wave_uniformity *u, const bool *spins,
                               const wait *waits) {
  const wave_allocator *a = s->allocator;
  wave_deadlock *d = wave_mem_calloc(a, 1, sizeof(*d));
  reach reaches[4] = {{NULL, NULL}};   /* by space_mask, filled when a loop polls those spaces */
  if (d)
    d->allocator = a;
  bool failed = !d || !(d->loops = wave_mem_calloc(a, s->num_loops, sizeof(*d->loops)));
  if (!failed)
    d->num_loops = s->num_loops;
  for (uint32_t l = 0; l < s->num_loops && !failed; l++) {
    wave_loop_verdict *v = &d->loops[l];
    v->loop = s->constructs[s->loops[l].construct].node;
    if (s->loops[l].leaves_otherwise)
      v->wait = WAVE_WAIT_NOT_JUDGED;
    else if (!waits[l].has_break)
      v->wait = WAVE_WAIT_NO_BREAK;
    else if (!spins[l])
      v->wait = WAVE_WAIT_NONE;
    else {
      reach *r = &reaches[space_mask(waits[l].spaces)];
      if (!r->parked) {
        r->parked = wave_mem_alloc(a, s->num_constructs * sizeof(*r->parked));
        r->unparked = wave_mem_alloc(a, s->num_constructs * sizeof(*r->unparked));
        if (!r->parked || !r->unparked) {
          failed = true;
          break;
        }
        fill_reach(s, u, waits[l].spaces, r);
      }
      judge(s, l, &waits[l], u, r, v);
    }
    d->num_findings += v->wait == WAVE_WAIT_DEADLOCK;
  }
  for (int m = 0; m < 4; m++) {
    wave_mem_free(a, reaches[m].parked);
    wave_mem_free(a, reaches[m].unparked);
  }
  if (failed) {
    wave_deadlock_destroy(d);
    return NULL;
  }
  return d;
}

/* The analysis proper, with the uniformity taken from `get` only when a loop waits. */
typedef const wave_uniformity *(*uniformity_fn)(void *ctx);

static wave_deadlock *analyse(const wave_layout *layout, uniformity_fn get, void *ctx,
                              bool *uniformity_failed) {
  survey s;
  wave_deadlock *d = NULL;
  bool *spins = NULL;
  wait *waits = NULL;
  if_frame *frames = NULL;
  size_t cap = 0, num_spins = 0;
  *uniformity_failed = false;
  if (!survey_kernel(&s, layout) ||
      !(spins = wave_mem_calloc(s.allocator, s.num_loops + 1, sizeof(*spins))) ||
      !(waits = wave_mem_calloc(s.allocator, s.num_loops + 1, sizeof(*waits))))
    goto out;
  for (uint32_t l = 0; l < s.num_loops && !s.failed; l++) {
    const loop_info *info = &s.loops[l];
    waits[l].has_break = info->own_break;
    /* Without a break there is nothing to judge, without a read of its own nothing to poll. */
    if (!info->leaves_otherwise && info->own_break && info->own_read)
      num_spins += spins[l] = waits_on_memory(&s, l, &frames, &cap, &waits[l]);
  }
  if (s.failed)
    goto out;
  const wave_uniformity *u = num_spins ? get(ctx) : NULL;
  if (num_spins && !u)
    *uniformity_failed = true;
  else
    d = conclude(&s, u, spins, waits);
out:
  wave_mem_free(s.allocator, frames);
  wave_mem_free(s.allocator, spins);
  wave_mem_free(s.allocator, waits);
  survey_free(&s);
  return d;
}

typedef struct own_uniformity {
  const wave_kernel *kernel;
  const wave_uniformity *given;
  wave_uniformity *computed;
} own_uniformity;

static const wave_uniformity *own_get(void *ctx) {
  own_uniformity *o = ctx;
  if (o->given)
    return o->given;
  return o->computed = wave_uniformity_compute(o->kernel, NULL);
}

wave_deadlock *wave_deadlock_compute(const wave_kernel *kernel, const wave_uniformity *u) {
  own_uniformity o = {kernel, u, NULL};
  bool failed;
  wave_layout *layout = wave_layout_build(kernel, NULL);
  wave_deadlock *d = layout ? analyse(layout, own_get, &o, &failed) : NULL;
  wave_layout_destroy(layout);
  wave_uniformity_destroy(o.computed);
  return d;
}

void wave_deadlock_destroy(wave_deadlock *d) {
  if (!d)
    return;
  wave_mem_free(d->allocator, d->loops);
  wave_mem_free(d->allocator, d);
}

size_t wave_deadlock_num_loops(const wave_deadlock *d) { return d->num_loops; }

const wave_loop_verdict *wave_deadlock_loop(const wave_deadlock *d, size_t index) {
  return index < d->num_loops ? &d->loops[index] : NULL;
}

size_t wave_deadlock_num_findings(const wave_deadlock *d) { return d->num_findings; }

bool wave_deadlock_equal(const wave_deadlock *a, const wave_deadlock *b) {
  if (a->num_loops != b->num_loops)
    return false;
  for (size_t i = 0; i < a->num_loops; i++) {
    const wave_loop_verdict *x = &a->loops[i], *y = &b->loops[i];
    if (x->loop != y->loop || x->wait != y->wait || x->read != y->read || x->writer != y->writer ||
        x->parker != y->parker)
      return false;
  }
  return true;
}

/* ---- reporting ------------------------------------------------------------------------------ */

static unsigned node_line(const wave_node *node) {
  return wave_node_kind_of(node) == WAVE_NODE_IF ? wave_node_origin(node, WAVE_LINE_IF).loc.line
                                                 : wave_node_origin(node, WAVE_LINE_LOOP).loc.line;
}

static const char *mnemonic(const wave_instr *instr) {
  return wave_opcode_get(wave_instr_op(instr))->mnemonic;
}

/* Completes "runs only in lanes ...". */
static void describe_parker(const wave_loop_verdict *v, char *buf, size_t size) {
  if (v->parker == v->loop)
    snprintf(buf, size,
             "that left the loop early, which wait at its endloop until every lane "
             "has left");
  else if (wave_node_kind_of(v->parker) == WAVE_NODE_IF)
    snprintf(buf, size, "parked by the divergent if at line %u until the loop ends",
             node_line(v->parker));
  else
    snprintf(buf, size, "that left the loop at line %u early, which wait at its endloop",
             node_line(v->parker));
}

void wave_deadlock_diagnose(const wave_deadlock *d, const wave_kernel *kernel, wave_diags *diags) {
  char parker[128];
  for (size_t i = 0; i < d->num_loops; i++) {
    const wave_loop_verdict *v = &d->loops[i];
    if (v->wait != WAVE_WAIT_DEADLOCK)
      continue;
    describe_parker(v, parker, sizeof(parker));
    wave_module_report(wave_kernel_module(kernel), diags, WAVE_SEV_WARNING, "simt-deadlock",
                       wave_node_origin(v->loop, WAVE_LINE_LOOP).loc,
                       "possible SIMT deadlock: the loop spins until the %s at line %u reads "
                       "a new value, but the %s at line %u that may write it runs only in "
                       "lanes %s",
                       mnemonic(v->read), (unsigned)wave_instr_loc(v->read).line,
                       mnemonic(v->writer), (unsigned)wave_instr_loc(v->writer).line, parker);
  }
}

typedef struct listing {
  const wave_deadlock *d;
  size_t next;              /* loops come in text order */
} listing;

static const char *no_verdict(void *ctx, const wave_instr *instr, char *buf, size_t size) {
  (void)ctx, (void)instr, (void)buf, (void)size;
  return NULL;
}

static const char *loop_verdict(void *ctx, const wave_node *node, char *buf, size_t size) {
  listing *l = ctx;
  if (wave_node_kind_of(node) != WAVE_NODE_LOOP || l->next >= l->d->num_loops)
    return NULL;
  const wave_loop_verdict *v = &l->d->loops[l->next++];
  char parker[128];
  switch (v->wait) {
  case WAVE_WAIT_NOT_JUDGED:
    return "not judged: a call, halt or return inside";
  case WAVE_WAIT_NO_BREAK:
    return "no break: ends only when its lanes end";
  case WAVE_WAIT_NONE:
    return "does not wait on memory";
  case WAVE_WAIT_SELF:
    snprintf(buf, size, "waits on memory (line %u), which it also writes",
             (unsigned)wave_instr_loc(v->read).line);
    return buf;
  case WAVE_WAIT_UNPARKED:
    snprintf(buf, size, "waits on memory (line %u); no parked lane writes it",
             (unsigned)wave_instr_loc(v->read).line);
    return buf;
  case WAVE_WAIT_DEADLOCK:
    describe_parker(v, parker, sizeof(parker));
    snprintf(buf, size,
             "possible SIMT deadlock: waits on memory (line %u) written at line %u only in "
             "lanes %s",
             (unsigned)wave_instr_loc(v->read).line, (unsigned)wave_instr_loc(v->writer).line,
             parker);
    return buf;
  }
  return NULL;
}

int wave_deadlock_print(const wave_deadlock *d, const wave_kernel *kernel, wave_write_fn write,
                        void *ctx) {
  listing l = {d, 0};
  wave_annotator a = {.ctx = &l, .instr = no_verdict, .node = loop_verdict};
  return wave_print_annotated(kernel, &a, write, ctx);
}

/* ---- registration --------------------------------------------------------------------------- */

typedef struct managed {
  wave_analysis_manager *am;
  wave_kernel *kernel;
} managed;

static const wave_uniformity *managed_get(void *ctx) {
  managed *m = ctx;
  return wave_analysis_get(m->am, m->kernel, WAVE_ANALYSIS_UNIFORMITY);
}

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  managed m = {am, kernel};
  bool uniformity_failed = false;
  const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
  wave_deadlock *d = layout ? analyse(layout, managed_get, &m, &uniformity_failed) : NULL;
  if (!d && !uniformity_failed)   /* otherwise the uniformity analysis said why */
    wave_module_report(wave_kernel_module(kernel), diags, WAVE_SEV_ERROR, NULL,
                       wave_kernel_loc(kernel), "deadlock: out of memory");
  return d;
}

static void destroy(void *result) { wave_deadlock_destroy(result); }

static bool equal(const void *a, const void *b) { return wave_deadlock_equal(a, b); }

static int print(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx) {
  return wave_deadlock_print(result, kernel, write, ctx);
}

static void diagnose(const void *result, const wave_kernel *kernel, bool asked, wave_diags *diags) {
  (void)asked;   /* a possible deadlock is a warning either way */
  wave_deadlock_diagnose(result, kernel, diags);
}

const wave_analysis_info wave_analysis_deadlock = {
    .name = "deadlock",
    .help = "loops that wait for memory only lanes parked by divergence would write",
    .compute = compute,
    .destroy = destroy,
    .equal = equal,
    .print = print,
    .diagnose = diagnose,
};
