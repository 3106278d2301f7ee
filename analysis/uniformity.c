/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Uniformity (divergence) analysis, after LLVM's UniformityAnalysis and Mesa's
 * nir_divergence_analysis: a forward dataflow over the physical registers whose fact at each
 * point is the set of registers that may differ between the active lanes. The region tree is
 * walked with an explicit frame stack, never C recursion, so any nesting depth is safe.
 *
 * Cost: a loop's body is walked again only when its header state gained something: a
 * register turned divergent, or lanes found missing (the loop found divergent, or entered
 * where lanes are parked). Facts only move from uniform to divergent, so that happens at most
 * a few times per register. What a loop's header gathered persists across visits of an outer
 * loop, and so does a memo of the body's last walk: the header it started from (its divergent
 * registers, and whether lanes were missing, and missing relative to this loop, which is all
 * the body can tell apart) and the state it left at the breaks. An outer loop walked again
 * reaches an inner one with a header alike to the memo's unless something new reached it, and
 * then takes the exit from the memo instead of walking the inner body. So each loop is walked
 * O(registers) times in all, whatever its depth: time linear in the kernel's size (a
 * 100 000-deep nest of divergent loops takes well under a second).
 *
 * Sources of divergence: sr_thread_id_* and sr_lane_id (docs/language.md "Special
 * registers"); the old values atomics return (docs/language.md "Atomics"); wave_prefix_sum and
 * the shuffles; any instruction with a divergent operand (a load from a divergent address
 * included), its guard among them; registers the caller names in assume_divergent. Uniform:
 * immediates, the other special registers, kernel arguments (docs/language.md "Registers":
 * a preset is the same in every lane), and the results of wave_reduce_*, wave_broadcast,
 * wave_ballot, wave_any and wave_all, which are one value over the active lanes whatever
 * their operands (docs/language.md "Wave operations"). Classified across the workgroup
 * (config across_workgroup, for barriers), sr_wave_id and those per-wave results are sources
 * too: each wave of the workgroup has its own. A load from a uniform address is
 * uniform, as the issue asks: stores by other lanes are not modelled.
 *
 * Divergence through control flow, with the partial definitions of docs/language.md "Partial
 * definitions":
 * - sync dependence: a register written on either side of a divergent if is divergent after
 *   its endif, because the lanes of the other side kept their old value;
 * - temporal divergence: a loop that lanes may leave at different iterations (a divergent
 *   break, or any break where lanes are parked) makes every register written in it divergent
 *   after it (docs/language.md "Loops": a lane keeps the value it had when it left);
 * - after a divergent continue (split by its predicate, or under a divergent if inside the
 *   loop), the registers written later in the iteration are divergent where the iteration
 *   merges at the loop's header;
 * - a call may write any register and subroutine entries are reached from unknown callers:
 *   an unknown case is divergent.
 *
 * Convergence is tracked beside it as `narrow`: the frames (region 0, each open if or loop
 * one deeper) relative to whose entry some lanes may be missing form a prefix 0..narrow, -1
 * when none. A divergent if narrows its own frame; a divergent break or continue narrows its
 * loop's frame for the rest of the iteration, and a divergent break for later iterations too.
 * A point is converged when narrow < 0; a break is a divergent exit when its predicate is
 * divergent or narrow reaches its loop. A continue is one only when narrow goes deeper than
 * its loop: lanes missing at the loop's own level left by a break, for good, or by a
 * continue already accounted for, so a continue the remaining lanes take alike adds nothing.
 *
 * Each register turned divergent remembers a cause (the instruction and the operand that made
 * it so, or the if or loop), which the printer follows back to a source.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm/builtin.h"
#include "waveopt/uniformity.h"

/* ---- causes ---------------------------------------------------------------------------------- */

typedef enum cause_kind {
  CAUSE_OPERAND,    /* instr has a divergent operand from_reg (its guard included) */
  CAUSE_SOURCE,     /* instr yields a per-lane value by itself */
  CAUSE_SYNC,       /* written on a side of the divergent if node */
  CAUSE_TEMPORAL,   /* written in the loop node, which lanes leave at different iterations */
  CAUSE_CONTINUE,   /* written after instr, a divergent continue: split by from_reg, or under
                     * the divergent if node */
  CAUSE_BREAK,      /* instr, a break taken alike by the lanes it sees where lanes are
                     * missing: under the divergent if node, or after a divergent continue
                     * (from) */
  CAUSE_ARGUMENT,   /* named in assume_divergent */
  CAUSE_UNKNOWN,    /* a call, or a subroutine's entry */
} cause_kind;

typedef struct cause {
  uint8_t kind;
  uint16_t from_reg;
  uint32_t from;            /* the cause of from_reg then; 0: none */
  const wave_instr *instr;
  const wave_node *node;
} cause;

/* ---- per-statement facts ------------------------------------------------------------------- */

typedef struct entry {
  const void *key;          /* a wave_instr, or a wave_node (if or loop) */
  bool visited;
  bool converged;           /* at every visit */
  bool divergent;           /* result, branch predicate, if predicate or loop exit */
  uint32_t cause;           /* of `divergent`, 0 when uniform */
  uint32_t merge_cause;     /* if: of its sync dependence; loop: of its temporal divergence */
  uint32_t cont_cause;      /* loop: of the merges after its first divergent continue */
  wave_regset before;       /* instr: divergent registers before it; loop: at its header */
  uint32_t memo;            /* loop: its index in memos */
} entry;

/* What the last complete walk of a loop's body started from and left: a later visit whose
 * header state is alike (see header_key) has the same fixpoint inside, so it takes the exit
 * from here instead of walking the body again. */
typedef struct loop_memo {
  bool walked;
  int header_key;
  wave_regset header_div;
  wave_regset break_div;    /* joined over the breaks, before temporal divergence */
  wave_regset written;
  bool exit_dead;
} loop_memo;

struct wave_uniformity {
  const wave_kernel *kernel;
  entry *entries;           /* in walk order, so that two results compare entry by entry */
  size_t num_entries;
  uint32_t *slots;          /* open addressing: entry index + 1, 0 = empty */
  size_t capacity;
  cause *causes;            /* causes[0] is unused: index 0 means no cause */
  size_t num_causes, cap_causes;
  loop_memo *memos;
};

static size_t slot_of(const void *key, size_t capacity) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ h >> 29) & (capacity - 1);
}

static entry *find(const wave_uniformity *u, const void *key) {
  for (size_t s = slot_of(key, u->capacity);; s = (s + 1) & (u->capacity - 1)) {
    if (!u->slots[s])
      return NULL;
    if (u->entries[u->slots[s] - 1].key == key)
      return &u->entries[u->slots[s] - 1];
  }
}

static bool append_entry(wave_uniformity *u, const void *key, size_t *cap) {
  if (u->num_entries == *cap) {
    size_t grown_cap = *cap ? *cap * 2 : 64;
    entry *grown = realloc(u->entries, grown_cap * sizeof(*grown));
    if (!grown)
      return false;
    u->entries = grown;
    *cap = grown_cap;
  }
  entry *e = &u->entries[u->num_entries++];
  memset(e, 0, sizeof(*e));
  e->key = key;
  e->converged = true;
  return true;
}

/* One entry per instruction, if and loop of the kernel in one walk, hashed afterwards, so that
 * the dataflow never allocates per visit. */
static bool index_kernel(wave_uniformity *u, const wave_kernel *kernel) {
  size_t cap = 0, num_loops = 0;
  bool ok = true;
  for (const wave_region *r = kernel->first_region; ok && r; r = r->next) {
    wave_const_walker w;
    wave_const_walk_init(&w, &r->body);
    while (ok && wave_const_walk_next(&w))
      if (w.event == WAVE_WALK_BLOCK)
        for (const wave_instr *i = w.node->u.block.first; ok && i; i = i->next)
          ok = append_entry(u, i, &cap);
      else if (w.event == WAVE_WALK_IF)
        ok = append_entry(u, w.node, &cap);
      else if (w.event == WAVE_WALK_LOOP && (ok = append_entry(u, w.node, &cap)))
        u->entries[u->num_entries - 1].memo = (uint32_t)num_loops++;
  }
  u->memos = ok ? calloc(num_loops ? num_loops : 1, sizeof(*u->memos)) : NULL;
  ok = ok && u->memos;
  u->capacity = 16;
  while (u->capacity < 2 * u->num_entries)
    u->capacity *= 2;
  u->slots = ok ? calloc(u->capacity, sizeof(*u->slots)) : NULL;
  if (!u->slots)
    return false;
  for (size_t i = 0; i < u->num_entries; i++) {
    size_t slot = slot_of(u->entries[i].key, u->capacity);
    while (u->slots[slot])
      slot = (slot + 1) & (u->capacity - 1);
    u->slots[slot] = (uint32_t)(i + 1);
  }
  return true;
}

/* ---- the dataflow state ---------------------------------------------------------------------- */

typedef struct state {
  wave_regset div;
  wave_regset after_cont;   /* written since a divergent continue of the innermost loop */
  int narrow;
  bool loop_narrow;         /* the innermost loop lost lanes this iteration */
  bool cont_div;            /* ... to a divergent continue */
  bool dead;                /* no lane gets here */
} state;

static state join(state a, state b) {
  if (a.dead)
    return b;
  if (b.dead)
    return a;
  a.div = wave_regset_union(a.div, b.div);
  a.after_cont = wave_regset_union(a.after_cont, b.after_cont);
  a.narrow = a.narrow > b.narrow ? a.narrow : b.narrow;
  a.loop_narrow = a.loop_narrow || b.loop_narrow;
  a.cont_div = a.cont_div || b.cont_div;
  return a;
}

static state dead_state(void) {
  state s = {0};
  s.dead = true;
  s.narrow = -1;
  return s;
}

enum { PHASE_THEN, PHASE_ELSE, PHASE_BODY };

typedef struct frame {
  const wave_node *node;
  entry *e;
  int phase;
  state entry_state;        /* if: at the if; loop: at the loop, before its header */
  state header;             /* loop: the header state this walk of the body started from */
  state other;              /* if: at the end of the then-list; loop: joined break states */
  state cont;               /* loop: joined continue states */
  wave_regset written;
  /* if inside a loop: lanes left the loop in it (left_cont: at a continue), which its state
   * at the endif forgets when the path they left from ended at a halt */
  bool left, left_cont;
  int outer_loop;           /* the level of the loop around this one */
} frame;

typedef struct walk {
  wave_uniformity *u;
  uint32_t why[WAVE_NUM_REGS];  /* the cause of each register's latest divergence */
  frame *frames;
  size_t depth, cap;
  int loop_level;           /* frame level of the innermost loop, -1 outside loops */
  bool across_workgroup;    /* config: per-wave values are sources */
  bool oom;
} walk;

static uint32_t new_cause(walk *w, cause_kind kind, const wave_instr *instr,
                          const wave_node *node, unsigned from_reg) {
  wave_uniformity *u = w->u;
  if (u->num_causes == u->cap_causes) {
    size_t cap = u->cap_causes ? 2 * u->cap_causes : 64;
    cause *c = realloc(u->causes, cap * sizeof(*c));
    if (!c) {
      w->oom = true;
      return 0;
    }
    u->causes = c;
    u->cap_causes = cap;
    if (!u->num_causes)
      u->num_causes = 1;
  }
  cause *c = &u->causes[u->num_causes];
  c->kind = (uint8_t)kind;
  c->from_reg = (uint16_t)from_reg;
  c->from = from_reg < WAVE_NUM_REGS ? w->why[from_reg] : 0;
  c->instr = instr;
  c->node = node;
  return (uint32_t)u->num_causes++;
}

/* Marks regs divergent in s, with the cause `why` for those that were not. */
static void make_divergent(walk *w, state *s, wave_regset regs, uint32_t why) {
  for (unsigned r = 0; r < WAVE_NUM_REGS; r++)
    if (wave_regset_test(regs, r) && !wave_regset_test(s->div, r)) {
      wave_regset_set(&s->div, r);
      w->why[r] = why;
    }
}

static void note_defs(walk *w, state *s, wave_regset defs) {
  if (w->depth)
    w->frames[w->depth - 1].written = wave_regset_union(w->frames[w->depth - 1].written, defs);
  if (s->cont_div)
    s->after_cont = wave_regset_union(s->after_cont, defs);
}

/* sr_thread_id_x/_y/_z, sr_lane_id; across the workgroup sr_wave_id too. */
static bool is_lane_sreg(uint32_t sreg, bool across_workgroup) {
  return sreg <= 2 || sreg == 4 || (across_workgroup && sreg == 3);
}

/* Whether the instruction's result is one value over the lanes it runs in, whatever its
 * operands: its guard and (guarded) its old destination still count. */
static bool is_wave_uniform_op(wave_opcode op) {
  switch (op) {
  case WAVE_OP_WAVE_REDUCE_ADD: case WAVE_OP_WAVE_REDUCE_MIN: case WAVE_OP_WAVE_REDUCE_MAX:
  case WAVE_OP_WAVE_BROADCAST: case WAVE_OP_WAVE_BALLOT: case WAVE_OP_WAVE_ANY:
  case WAVE_OP_WAVE_ALL:
    return true;
  default:
    return false;
  }
}

static bool is_lane_source(const wave_instr *instr, bool across_workgroup) {
  if (wave_opcode_has(instr->op, WAVE_F_RMW) ||
      (across_workgroup && is_wave_uniform_op(instr->op)))
    return true;
  switch (instr->op) {
  case WAVE_OP_WAVE_PREFIX_SUM: case WAVE_OP_WAVE_SHUFFLE: case WAVE_OP_WAVE_SHUFFLE_UP:
  case WAVE_OP_WAVE_SHUFFLE_DOWN: case WAVE_OP_WAVE_SHUFFLE_XOR:
    return true;
  default:
    break;
  }
  for (unsigned i = 0; i < instr->num_operands; i++)
    if (instr->operands[i].kind == WAVE_OPERAND_SREG && wave_opcode_reads_sreg(instr->op, i) &&
        is_lane_sreg(instr->operands[i].value, across_workgroup))
      return true;
  return false;
}

static void visit(entry *e, const state *s, bool converged, bool divergent,
                  uint32_t why) {
  e->visited = true;
  e->converged = e->converged && converged;
  e->before = wave_regset_union(e->before, s->div);
  if (divergent && !e->divergent) {
    e->divergent = true;
    e->cause = why;
  }
}

/* Why a break or continue that the lanes it sees take alike leaves lanes behind: lanes are
 * parked in the divergent if at frame level narrow inside the loop, whose predicate's cause
 * then continues the chain; otherwise (a break) lanes left at an earlier divergent continue. */
static uint32_t parked_cause(walk *w, const state *s, cause_kind kind, const wave_instr *instr,
                             const entry *loop) {
  if (s->narrow > w->loop_level) {
    const frame *f = &w->frames[s->narrow - 1];
    uint32_t c = new_cause(w, kind, instr, f->node, WAVE_NUM_REGS);
    if (c) {
      w->u->causes[c].from_reg = (uint16_t)WAVE_REG_PRED(f->node->u.if_.cond.value);
      w->u->causes[c].from = w->u->causes[f->e->cause].from;
    }
    return c;
  }
  uint32_t c = new_cause(w, kind, instr, NULL, WAVE_NUM_REGS);
  if (c)
    w->u->causes[c].from = loop->cont_cause;
  return c;
}

static void branch(walk *w, state *s, const wave_instr *instr, entry *e, bool guard_div) {
  unsigned p = WAVE_REG_PRED(instr->operands[0].value);
  /* Whether it may take some active lanes and not others: by its predicate, or by its guard,
   * which explains it first as it does a partial write. */
  bool split = guard_div || wave_regset_test(s->div, p);
  unsigned from = guard_div ? WAVE_REG_PRED(instr->guard) : p;
  visit(e, s, s->narrow < 0 && !guard_div, split,
        split && !e->cause ? new_cause(w, CAUSE_OPERAND, instr, NULL, from) : e->cause);
  if (w->loop_level < 0)
    return;   /* the verifier's error; nothing to leave */
  frame *loop = &w->frames[w->loop_level - 1];
  /* Lanes missing at the loop's own level are lanes a break took, in this iteration or an
   * earlier one, or lanes a continue took, which the continue state already tracks. A break
   * where they are missing leaves at another iteration than theirs may; a continue taken
   * alike by the lanes still running merges nothing new at the header, since those that left
   * never come back. Only lanes parked in an if inside the loop make it a divergent one. */
  bool exit_div = split || s->narrow > w->loop_level ||
                  (instr->op == WAVE_OP_BREAK && s->narrow == w->loop_level);
  if (instr->op == WAVE_OP_BREAK) {
    loop->other = join(loop->other, *s);
    if (exit_div && !loop->e->divergent) {
      loop->e->divergent = true;
      loop->e->cause = split ? e->cause : parked_cause(w, s, CAUSE_BREAK, instr, loop->e);
    }
  } else {
    loop->cont = join(loop->cont, *s);
    if (exit_div && !loop->e->cont_cause)
      loop->e->cont_cause = split ? new_cause(w, CAUSE_CONTINUE, instr, NULL, from)
                                  : parked_cause(w, s, CAUSE_CONTINUE, instr, loop->e);
    if (exit_div)
      s->cont_div = true;
  }
  if (exit_div) {
    s->loop_narrow = true;
    if (s->narrow < w->loop_level)
      s->narrow = w->loop_level;
    if ((int)w->depth > w->loop_level) {
      frame *in_if = &w->frames[w->depth - 1];
      in_if->left = true;
      in_if->left_cont = in_if->left_cont || instr->op == WAVE_OP_CONTINUE;
    }
  }
}

static void transfer(walk *w, state *s, const wave_instr *instr) {
  entry *e = find(w->u, instr);
  if (s->dead)
    return;
  bool guard_div = instr->guard != WAVE_NO_GUARD &&
                   wave_regset_test(s->div, WAVE_REG_PRED(instr->guard));
  bool converged = s->narrow < 0 && !guard_div;
  if (instr->op == WAVE_OP_BREAK || instr->op == WAVE_OP_CONTINUE) {
    branch(w, s, instr, e, guard_div);
    return;
  }
  if (instr->op == WAVE_OP_CALL) {
    wave_regset all = {{0}};
    wave_regset_set_range(&all, 0, WAVE_NUM_REGS);
    uint32_t why = e->cause ? e->cause : new_cause(w, CAUSE_UNKNOWN, instr, NULL, WAVE_NUM_REGS);
    visit(e, s, converged, true, why);
    make_divergent(w, s, all, why);
    note_defs(w, s, all);
    return;
  }
  wave_regset defs;
  wave_instr_defs(instr, &defs);
  if (wave_regset_is_empty(defs)) {
    visit(e, s, converged, false, 0);
    if ((instr->op == WAVE_OP_HALT || instr->op == WAVE_OP_RETURN) &&
        instr->guard == WAVE_NO_GUARD)
      *s = dead_state();
    return;
  }
  /* The first divergent input, and the cause it brings. */
  unsigned from = WAVE_NUM_REGS;
  cause_kind kind = CAUSE_OPERAND;
  if (is_lane_source(instr, w->across_workgroup)) {
    kind = CAUSE_SOURCE;
  } else {
    wave_regset uses;
    if (is_wave_uniform_op(instr->op)) {
      uses = wave_regset_empty();
      if (instr->guard != WAVE_NO_GUARD) {
        wave_regset_set(&uses, WAVE_REG_PRED(instr->guard));
        uses = wave_regset_union(uses, defs);
      }
    } else {
      wave_instr_uses(instr, &uses);
    }
    uses = wave_regset_intersect(uses, s->div);
    /* The guard explains a partial write best; otherwise the lowest divergent input. */
    if (instr->guard != WAVE_NO_GUARD && wave_regset_test(uses, WAVE_REG_PRED(instr->guard)))
      from = WAVE_REG_PRED(instr->guard);
    else
      for (unsigned r = 0; r < WAVE_NUM_REGS && from == WAVE_NUM_REGS; r++)
        if (wave_regset_test(uses, r))
          from = r;
  }
  bool divergent = kind == CAUSE_SOURCE || from < WAVE_NUM_REGS;
  uint32_t why = e->cause;
  if (divergent && !why)
    why = new_cause(w, kind, instr, NULL, from);
  visit(e, s, converged, divergent, why);
  s->div = wave_regset_subtract(s->div, defs);
  if (divergent)
    make_divergent(w, s, defs, why);
  note_defs(w, s, defs);
}

/* ---- the walk --------------------------------------------------------------------------------- */

static frame *push(walk *w, const wave_node *node, int phase, const state *s) {
  if (w->depth == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    frame *f = realloc(w->frames, cap * sizeof(*f));
    if (!f) {
      w->oom = true;
      return NULL;
    }
    w->frames = f;
    w->cap = cap;
  }
  frame *f = &w->frames[w->depth++];
  f->node = node;
  f->e = find(w->u, node);
  f->phase = phase;
  f->entry_state = *s;
  f->other = dead_state();
  f->cont = dead_state();
  f->written = wave_regset_empty();
  f->left = f->left_cont = false;
  f->outer_loop = w->loop_level;
  return f;
}

/* Pops the top frame, handing what it wrote to the frame around it. */
static void pop(walk *w) {
  frame *f = &w->frames[--w->depth];
  if (w->depth)
    w->frames[w->depth - 1].written =
        wave_regset_union(w->frames[w->depth - 1].written, f->written);
}

/* The state at a loop's header: its entry, merged with every back edge seen so far (kept in
 * the loop's entry, so that a loop visited again inside an outer one starts from there). */
static state header_state(const state *at_loop, const entry *e, int level) {
  state h = *at_loop;
  h.div = wave_regset_union(h.div, e->before);
  h.after_cont = wave_regset_empty();
  h.loop_narrow = false;
  h.cont_div = false;
  if (e->divergent && h.narrow < level)
    h.narrow = level;   /* lanes that broke stay out in later iterations */
  return h;
}

/* What of a header's narrow the body can tell apart: inside the loop at `level` narrow is only
 * compared with 0 (converged) and with levels from `level` on (exits), so any value in between
 * walks the body alike. */
static int header_key(const state *h, int level) {
  return h->narrow < 0 ? 0 : h->narrow < level ? 1 : 2;
}

static void enter_if(walk *w, state *s, const wave_node *node) {
  entry *e = find(w->u, node);
  bool cond_div = !s->dead && wave_regset_test(s->div, WAVE_REG_PRED(node->u.if_.cond.value));
  if (!s->dead)
    visit(e, s, s->narrow < 0, cond_div,
          cond_div && !e->cause ? new_cause(w, CAUSE_OPERAND, NULL, node,
                                            WAVE_REG_PRED(node->u.if_.cond.value))
                                : e->cause);
  if (!push(w, node, PHASE_THEN, s))
    return;
  if (cond_div)
    s->narrow = (int)w->depth;
}

static void leave_if(walk *w, state *s) {
  frame *f = &w->frames[w->depth - 1];
  state end = join(f->other, *s);
  /* Breaks and continues pass to the frame around the if while that is still inside the loop;
   * outside every loop (loop_level -1) an if at the top has no frame around it. */
  if (w->loop_level >= 0 && (int)w->depth - 1 > w->loop_level) {
    frame *outer = &w->frames[w->depth - 2];
    outer->left = outer->left || f->left;
    outer->left_cont = outer->left_cont || f->left_cont;
  }
  if (!end.dead) {
    end.loop_narrow = end.loop_narrow || f->left;
    end.cont_div = end.cont_div || f->left_cont;
    if (f->e->divergent && f->e->visited) {
      if (!f->e->merge_cause)
        f->e->merge_cause = new_cause(w, CAUSE_SYNC, NULL, f->node,
                                      WAVE_REG_PRED(f->node->u.if_.cond.value));
      make_divergent(w, &end, f->written, f->e->merge_cause);
    }
    end.narrow = f->entry_state.narrow;
    if (end.loop_narrow && end.narrow < w->loop_level)
      end.narrow = w->loop_level;
  }
  *s = end;
  pop(w);
}

/* The state after a loop, from its state at the loop and what its body's walk left. */
static state loop_exit(walk *w, const state *at_loop, entry *e, state breaks,
                       wave_regset written) {
  if (breaks.dead)
    return breaks;
  if (e->divergent) {
    if (!e->merge_cause)
      e->merge_cause = new_cause(w, CAUSE_TEMPORAL, NULL, (const wave_node *)e->key, WAVE_NUM_REGS);
    make_divergent(w, &breaks, written, e->merge_cause);
  }
  breaks.narrow = at_loop->narrow;
  breaks.loop_narrow = at_loop->loop_narrow;
  breaks.cont_div = at_loop->cont_div;
  breaks.after_cont = at_loop->after_cont;
  if (breaks.cont_div)
    breaks.after_cont = wave_regset_union(breaks.after_cont, written);
  return breaks;
}

/* At a loop: true when its body is to be walked from *s, false when *s is already the state
 * after it (no lane enters, or a walk from an alike header is memoised). */
static bool enter_loop(walk *w, state *s, const wave_node *node) {
  if (s->dead)
    return false;
  entry *e = find(w->u, node);
  /* Converged here means at the loop's entry: lanes may go missing only inside. */
  visit(e, s, s->narrow < 0, e->divergent, e->cause);
  loop_memo *m = &w->u->memos[e->memo];
  int level = (int)w->depth + 1;
  state h = header_state(s, e, level);
  if (m->walked && m->header_key == header_key(&h, level) &&
      wave_regset_equal(m->header_div, h.div)) {
    state breaks = *s;
    breaks.dead = m->exit_dead;
    breaks.div = m->break_div;
    note_defs(w, s, m->written);
    *s = loop_exit(w, s, e, breaks, m->written);
    return false;
  }
  frame *f = push(w, node, PHASE_BODY, s);
  if (!f)
    return false;
  w->loop_level = level;
  f->header = h;
  *s = h;
  return true;
}

/* At the end of a loop's body: true when the header gained something and the body must be
 * walked again from *s, false when the loop is done and *s is the state after it. */
static bool leave_loop(walk *w, state *s) {
  frame *f = &w->frames[w->depth - 1];
  entry *e = f->e;
  int level = w->loop_level;
  state back = join(*s, f->cont);
  if (!back.dead) {
    if (!wave_regset_is_empty(wave_regset_subtract(back.after_cont, back.div))) {
      for (unsigned r = 0; r < WAVE_NUM_REGS; r++)
        if (wave_regset_test(back.after_cont, r) && !wave_regset_test(back.div, r))
          w->why[r] = e->cont_cause;
    }
    e->before = wave_regset_union(e->before, wave_regset_union(back.div, back.after_cont));
  }
  state now = header_state(&f->entry_state, e, level);
  if (!wave_regset_equal(now.div, f->header.div) || now.narrow != f->header.narrow) {
    f->header = now;
    f->other = dead_state();
    f->cont = dead_state();
    *s = now;
    return true;
  }
  loop_memo *m = &w->u->memos[e->memo];
  m->walked = true;
  m->header_key = header_key(&f->header, level);
  m->header_div = f->header.div;
  m->break_div = f->other.div;
  m->exit_dead = f->other.dead;
  m->written = f->written;
  *s = loop_exit(w, &f->entry_state, e, f->other, f->written);
  w->loop_level = f->outer_loop;
  pop(w);
  return false;
}

static void walk_region(walk *w, const wave_region *region, state s) {
  const wave_node *cur = region->body.first;
  while (!w->oom) {
    if (cur) {
      if (cur->kind == WAVE_NODE_BLOCK) {
        for (const wave_instr *i = cur->u.block.first; i && !w->oom; i = i->next)
          transfer(w, &s, i);
        cur = cur->next;
      } else if (cur->kind == WAVE_NODE_IF) {
        enter_if(w, &s, cur);
        cur = cur->u.if_.then_body.first;
      } else {
        cur = enter_loop(w, &s, cur) ? cur->u.loop.body.first : cur->next;
      }
      continue;
    }
    if (!w->depth)
      return;
    frame *f = &w->frames[w->depth - 1];
    if (f->phase == PHASE_THEN) {
      f->other = s;
      f->phase = PHASE_ELSE;
      s = f->entry_state;
      if (f->e->divergent && !s.dead)
        s.narrow = (int)w->depth;
      cur = f->node->u.if_.else_body.first;
    } else if (f->phase == PHASE_ELSE) {
      const wave_node *node = f->node;
      leave_if(w, &s);
      cur = node->next;
    } else {
      const wave_node *node = f->node;
      cur = leave_loop(w, &s) ? node->u.loop.body.first : node->next;
    }
  }
}

wave_uniformity *wave_uniformity_compute(const wave_kernel *kernel,
                                         const wave_uniformity_config *config) {
  wave_uniformity *u = calloc(1, sizeof(*u));
  walk *w = calloc(1, sizeof(*w));
  if (!u || !w || !index_kernel(u, kernel)) {
    free(w);
    wave_uniformity_destroy(u);
    return NULL;
  }
  u->kernel = kernel;
  w->u = u;
  w->loop_level = -1;
  w->across_workgroup = config && config->across_workgroup;
  for (const wave_region *r = kernel->first_region; r && !w->oom; r = r->next) {
    state s = {0};
    s.narrow = -1;
    if (r == kernel->first_region) {
      if (config) {
        uint32_t why = new_cause(w, CAUSE_ARGUMENT, NULL, NULL, WAVE_NUM_REGS);
        make_divergent(w, &s, config->assume_divergent, why);
      }
    } else {
      /* Called from anywhere, with lanes parked anywhere. */
      wave_regset all = {{0}};
      wave_regset_set_range(&all, 0, WAVE_NUM_REGS);
      make_divergent(w, &s, all, new_cause(w, CAUSE_UNKNOWN, NULL, NULL, WAVE_NUM_REGS));
      s.narrow = 0;
    }
    walk_region(w, r, s);
  }
  bool oom = w->oom;
  free(w->frames);
  free(w);
  if (oom) {
    wave_uniformity_destroy(u);
    return NULL;
  }
  return u;
}

void wave_uniformity_destroy(wave_uniformity *u) {
  if (!u)
    return;
  free(u->entries);
  free(u->slots);
  free(u->causes);
  free(u->memos);
  free(u);
}

/* ---- queries ----------------------------------------------------------------------------------- */

static const entry *visited_entry(const wave_uniformity *u, const void *key) {
  const entry *e = find(u, key);
  return e && e->visited ? e : NULL;
}

wave_regset wave_uniformity_divergent_before(const wave_uniformity *u, const wave_instr *instr) {
  const entry *e = visited_entry(u, instr);
  if (e)
    return e->before;
  wave_regset all = {{0}};
  wave_regset_set_range(&all, 0, WAVE_NUM_REGS);
  return all;
}

bool wave_uniformity_reg_divergent(const wave_uniformity *u, const wave_instr *instr,
                                   unsigned reg) {
  return wave_regset_test(wave_uniformity_divergent_before(u, instr), reg);
}

bool wave_uniformity_result_divergent(const wave_uniformity *u, const wave_instr *instr) {
  const entry *e = visited_entry(u, instr);
  return !e || e->divergent;
}

bool wave_uniformity_branch_divergent(const wave_uniformity *u, const wave_instr *instr) {
  return wave_uniformity_result_divergent(u, instr);
}

bool wave_uniformity_instr_converged(const wave_uniformity *u, const wave_instr *instr) {
  const entry *e = visited_entry(u, instr);
  return e && e->converged;
}

bool wave_uniformity_node_divergent(const wave_uniformity *u, const wave_node *node) {
  const entry *e = visited_entry(u, node);
  return !e || e->divergent;
}

bool wave_uniformity_node_converged(const wave_uniformity *u, const wave_node *node) {
  const entry *e = visited_entry(u, node);
  return e && e->converged;
}

/* ---- explanations ------------------------------------------------------------------------------ */

/* Links of a chain printed before it is cut with "<- ...": enough to reach the source in
 * straight-line code, short enough to stay on one line. */
#define MAX_CHAIN 6

typedef struct out {
  char *buf;
  size_t size, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *at = o->len < o->size ? o->buf + o->len : NULL;
  int n = vsnprintf(at, at ? o->size - o->len : 0, fmt, ap);
  va_end(ap);
  if (n > 0)
    o->len += (size_t)n;
}

static void put_reg(out *o, unsigned reg) {
  if (reg <= WAVE_MAX_GPR)
    put(o, "r%u", reg);
  else
    put(o, "p%u", reg - WAVE_REG_PRED(0));
}

static const char *source_name(const wave_instr *instr) {
  for (unsigned i = 0; i < instr->num_operands; i++)
    if (instr->operands[i].kind == WAVE_OPERAND_SREG && wave_opcode_reads_sreg(instr->op, i))
      return wave_sreg_names[instr->operands[i].value];
  if (wave_opcode_has(instr->op, WAVE_F_RMW))
    return "each lane's own old value";
  if (is_wave_uniform_op(instr->op))
    return "each wave's own result";
  return "a per-lane result";
}

static unsigned if_line(const wave_node *node) {
  return node->u.if_.if_src.loc.line;
}

/* Follows cause c (which explains reg, or a branch when reg is WAVE_NUM_REGS) to its source:
 * "r3 = iadd (line 9) <- r1 = mov_sr (line 4) <- sr_lane_id", each link naming the register
 * it explains and the statement that made it divergent. */
static void explain(const wave_uniformity *u, out *o, unsigned reg, uint32_t c) {
  for (unsigned link = 0; c; link++) {
    if (link == MAX_CHAIN) {
      put(o, " <- ...");
      return;
    }
    const cause *k = &u->causes[c];
    if (link)
      put(o, " <- ");
    if (reg < WAVE_NUM_REGS) {
      put_reg(o, reg);
      put(o, k->kind == CAUSE_OPERAND || k->kind == CAUSE_SOURCE ? " = " : " <- ");
    }
    switch ((cause_kind)k->kind) {
    case CAUSE_OPERAND:
    case CAUSE_SOURCE:
      put(o, "%s (line %u)", wave_opcode_get(k->instr->op)->mnemonic, k->instr->src.loc.line);
      if (k->kind == CAUSE_SOURCE) {
        put(o, " <- %s", source_name(k->instr));
        return;
      }
      break;
    case CAUSE_SYNC:
      put(o, "written under divergent if (line %u)", if_line(k->node));
      break;
    case CAUSE_TEMPORAL:
      put(o, "live out of loop (line %u) left at different iterations",
          k->node->u.loop.loop_src.loc.line);
      reg = WAVE_NUM_REGS;
      c = find(u, k->node)->cause;
      continue;
    case CAUSE_CONTINUE:
      put(o, "%sdivergent continue (line %u)", reg < WAVE_NUM_REGS ? "merged after " : "",
          k->instr->src.loc.line);
      if (k->node)
        put(o, " under divergent if (line %u)", if_line(k->node));
      break;
    case CAUSE_BREAK:
      put(o, "break (line %u)", k->instr->src.loc.line);
      if (k->node)
        put(o, " under divergent if (line %u)", if_line(k->node));
      else
        put(o, " after lanes left");
      break;
    case CAUSE_ARGUMENT:
      put(o, "assume-divergent");
      return;
    case CAUSE_UNKNOWN:
      if (k->instr)
        put(o, "call (line %u) may write anything", k->instr->src.loc.line);
      else
        put(o, "subroutine entry");
      return;
    }
    reg = k->from_reg;
    c = k->from;
    if (!c && reg < WAVE_NUM_REGS) {
      put(o, " <- ");
      put_reg(o, reg);
    }
  }
}

static size_t explain_entry(const wave_uniformity *u, const entry *e, unsigned reg, char *buf,
                            size_t size) {
  out o = {buf, size, 0};
  if (size)
    buf[0] = '\0';
  if (!e)
    put(&o, "not reached");
  else if (e->divergent)
    explain(u, &o, reg, e->cause);
  return o.len;
}

size_t wave_uniformity_explain_instr(const wave_uniformity *u, const wave_instr *instr,
                                     char *buf, size_t size) {
  const entry *e = visited_entry(u, instr);
  unsigned reg = WAVE_NUM_REGS;
  if (e && e->divergent && u->causes[e->cause].kind != CAUSE_UNKNOWN &&
      instr->op != WAVE_OP_BREAK && instr->op != WAVE_OP_CONTINUE) {
    wave_regset defs;
    wave_instr_defs(instr, &defs);
    for (reg = 0; reg < WAVE_NUM_REGS && !wave_regset_test(defs, reg); reg++)
      continue;
  }
  if (e && e->divergent && (instr->op == WAVE_OP_BREAK || instr->op == WAVE_OP_CONTINUE)) {
    /* The predicate's own cause reads better than "break <- p1 = ...". */
    const cause *k = &u->causes[e->cause];
    out o = {buf, size, 0};
    if (size)
      buf[0] = '\0';
    put_reg(&o, k->from_reg);
    if (k->from) {
      o.len = 0;
      explain(u, &o, k->from_reg, k->from);
    }
    return o.len;
  }
  return explain_entry(u, e, reg, buf, size);
}

size_t wave_uniformity_explain_node(const wave_uniformity *u, const wave_node *node, char *buf,
                                    size_t size) {
  const entry *e = visited_entry(u, node);
  if (e && e->divergent && node->kind == WAVE_NODE_IF) {
    const cause *k = &u->causes[e->cause];
    out o = {buf, size, 0};
    if (size)
      buf[0] = '\0';
    if (k->from)
      explain(u, &o, k->from_reg, k->from);
    else
      put_reg(&o, k->from_reg);
    return o.len;
  }
  return explain_entry(u, e, WAVE_NUM_REGS, buf, size);
}

/* ---- printing ------------------------------------------------------------------------------------ */

bool wave_uniformity_equal(const wave_uniformity *a, const wave_uniformity *b) {
  if (a->num_entries != b->num_entries)
    return false;
  for (size_t i = 0; i < a->num_entries; i++) {
    const entry *x = &a->entries[i], *y = &b->entries[i];
    if (x->key != y->key || x->visited != y->visited || x->converged != y->converged ||
        x->divergent != y->divergent || !wave_regset_equal(x->before, y->before))
      return false;
  }
  return true;
}

typedef struct printer {
  const wave_uniformity *u;
  wave_write_fn write;
  void *ctx;
  int failed;
  char line[1024];
} printer;

static void emit(printer *p, const char *s) {
  if (!p->failed)
    p->failed = p->write(p->ctx, s, strlen(s));
}

/* Ends a statement's line: its own comment first, so that a test's `; uni` or `; div` marker
 * sits right before the verdict. */
static void finish(printer *p, const wave_src *src, const char *verdict, const char *why) {
  if (src->comment) {
    emit(p, " ");
    emit(p, src->comment);
  }
  if (verdict) {
    emit(p, " ; ");
    emit(p, verdict);
    if (why && *why) {
      emit(p, ": ");
      emit(p, why);
    }
  }
  emit(p, "\n");
}

static void indent(printer *p, unsigned depth) {
  for (unsigned i = 0; i <= depth && i < 16; i++)
    emit(p, "    ");
}

static void print_instr(printer *p, const wave_instr *instr, unsigned depth) {
  char text[256];
  wave_format_instr(instr, text, sizeof(text));
  indent(p, depth);
  emit(p, text);
  wave_regset defs;
  wave_instr_defs(instr, &defs);
  bool is_branch = instr->op == WAVE_OP_BREAK || instr->op == WAVE_OP_CONTINUE;
  const char *verdict = NULL;
  p->line[0] = '\0';
  if (is_branch || !wave_regset_is_empty(defs) || instr->op == WAVE_OP_CALL) {
    bool div = wave_uniformity_result_divergent(p->u, instr);
    verdict = div ? "divergent" : "uniform";
    if (div)
      wave_uniformity_explain_instr(p->u, instr, p->line, sizeof(p->line));
  } else if (wave_instr_is_convergent(instr)) {
    verdict = wave_uniformity_instr_converged(p->u, instr) ? "converged" : "not converged";
  }
  finish(p, &instr->src, verdict, p->line);
}

static void print_node(printer *p, const wave_node *node, const wave_src *src, const char *word,
                       unsigned depth) {
  indent(p, depth);
  emit(p, word);
  if (node->kind == WAVE_NODE_IF) {
    emit(p, node->u.if_.cond.negated ? " !" : " ");
    unsigned reg = WAVE_REG_PRED(node->u.if_.cond.value);
    snprintf(p->line, sizeof(p->line), "p%u", reg - WAVE_REG_PRED(0));
    emit(p, p->line);
  }
  bool div = wave_uniformity_node_divergent(p->u, node);
  p->line[0] = '\0';
  if (div)
    wave_uniformity_explain_node(p->u, node, p->line, sizeof(p->line));
  finish(p, src, div ? "divergent" : "uniform", p->line);
}

int wave_uniformity_print(const wave_uniformity *u, const wave_kernel *kernel,
                          wave_write_fn write, void *ctx) {
  printer *p = malloc(sizeof(*p));
  if (!p)
    return -1;
  p->u = u;
  p->write = write;
  p->ctx = ctx;
  p->failed = 0;
  emit(p, ".kernel ");
  emit(p, kernel->name);
  emit(p, "\n");
  for (const wave_region *r = kernel->first_region; r; r = r->next) {
    if (r->label) {
      emit(p, r->label);
      emit(p, ":\n");
    }
    wave_const_walker w;
    wave_const_walk_init(&w, &r->body);
    while (wave_const_walk_next(&w) && !p->failed) {
      const wave_node *n = w.node;
      switch (w.event) {
      case WAVE_WALK_BLOCK:
        for (const wave_instr *i = n->u.block.first; i; i = i->next)
          print_instr(p, i, w.depth);
        break;
      case WAVE_WALK_IF:
        print_node(p, n, &n->u.if_.if_src, "if", w.depth);
        break;
      case WAVE_WALK_ELSE:
        if (n->u.if_.has_else || n->u.if_.else_body.first) {
          indent(p, w.depth);
          emit(p, "else");
          finish(p, &n->u.if_.else_src, NULL, NULL);
        }
        break;
      case WAVE_WALK_ENDIF:
        indent(p, w.depth);
        emit(p, "endif");
        finish(p, &n->u.if_.endif_src, NULL, NULL);
        break;
      case WAVE_WALK_LOOP:
        print_node(p, n, &n->u.loop.loop_src, "loop", w.depth);
        break;
      case WAVE_WALK_ENDLOOP:
        indent(p, w.depth);
        emit(p, "endloop");
        finish(p, &n->u.loop.endloop_src, NULL, NULL);
        break;
      }
    }
  }
  emit(p, ".end\n");
  int failed = p->failed;
  free(p);
  return failed;
}

/* ---- registration --------------------------------------------------------------------------------- */

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  wave_uniformity_config config = {.assume_divergent = wave_analysis_manager_assume_divergent(am)};
  wave_uniformity *u = wave_uniformity_compute(kernel, &config);
  if (!u)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, kernel->kernel_src.loc, NULL, 0,
                     "uniformity: out of memory");
  return u;
}

static void destroy(void *result) {
  wave_uniformity_destroy(result);
}

static bool equal(const void *a, const void *b) {
  return wave_uniformity_equal(a, b);
}

static int print(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx) {
  return wave_uniformity_print(result, kernel, write, ctx);
}

const wave_analysis_info wave_analysis_uniformity = {
    .name = "uniformity",
    .help = "which registers, branches and loops are uniform or divergent across a wave",
    .compute = compute,
    .destroy = destroy,
    .equal = equal,
    .print = print,
};
