/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Uniformity (divergence) analysis, after LLVM's UniformityAnalysis and Mesa's
 * nir_divergence_analysis: a forward dataflow over the physical registers whose fact at each
 * point is the set of registers that may differ between the active lanes. The kernel is first
 * laid out flat, one entry per statement in text order and a marker where a then-list, an if,
 * a loop or a region ends, each instruction decoded there once (its guard, the registers that
 * make its result divergent, those it writes), read from the kernel's shared layout
 * (ir/layout.h). The walk then moves a cursor along the entries (back to a loop's first entry
 * to walk its body again, past its end to skip it) with an explicit frame stack, never C recursion,
 * so any nesting depth is safe, and never reads the IR again. The register sets the statements
 * record are hash-consed and the state knows its own, so a visit that finds nothing new since the
 * last one does no set operation.
 *
 * Cost: a loop's body is walked again only when its header state gained something: a
 * register turned divergent, or lanes found missing (the loop found divergent, or entered
 * where lanes are parked). Facts only move from uniform to divergent, so that happens at most
 * a few times per register. What a loop's header gathered persists across visits of an outer
 * loop, and so does a memo of the body's last walk: the header it started from (its divergent
 * registers, and whether lanes were missing, and missing relative to this loop, which is all
 * the body can tell apart) and the state it left at the breaks. An outer loop walked again
 * reaches an inner one with a header alike to the memo's unless something new reached it, and
 * then takes the exit from the memo, one step, instead of walking the inner body. So each
 * loop's body is walked O(registers) times in all, whatever its depth, each walk costing its
 * own statements: time linear in the kernel's size. A 100 000-deep nest of divergent loops,
 * or of loops and ifs around a call (which makes every register divergent at the bottom, for
 * every loop's header to learn in turn), takes well under a second; make bench's
 * 1M-instruction kernel, about half the time it takes to parse.
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
#include <string.h>

#include "asm/annotate.h"
#include "ir/code.h"
#include "pm/builtin.h"
#include "support/grow.h"
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

/* A cause as the explanations read it. Most causes are those of plain instructions turned
 * divergent by an operand, one per instruction: those are kept in the instruction's own entry
 * (an id of SELF_CAUSE + its index, see entry), the rest in the result's table. On a kernel of
 * a million divergent instructions a table record each took 38 MB at -O2's peak. */
#define SELF_CAUSE 0x80000000u

typedef struct cause {
  uint8_t kind;
  uint16_t from_reg;
  uint32_t from;            /* the cause of from_reg then; 0: none */
  const wave_instr *instr;
  const wave_node *node;
} cause;

/* ---- per-statement facts ------------------------------------------------------------------- */

/* What a statement is to the dataflow: the walk, which meets a statement once for every walk
 * of the loops around it, reads this and never the IR. */
typedef enum stmt_kind {
  STMT_PLAIN,       /* an instruction that writes registers */
  STMT_NO_DEFS,     /* one that writes none: a store, a barrier, a guarded halt */
  STMT_END,         /* an unguarded halt or return: no lane goes on */
  STMT_CALL,
  STMT_BREAK,
  STMT_CONTINUE,
  STMT_IF,
  STMT_ELSE,        /* marker: the then-list is done, the else-list comes next */
  STMT_ENDIF,       /* marker */
  STMT_LOOP,
  STMT_ENDLOOP,     /* marker */
  STMT_END_REGION,  /* marker: the region's body is done */
} stmt_kind;

typedef struct entry {
  uint32_t before;          /* the divergent registers before it (a loop: at its header), an
                             * index in sets */
  uint32_t cause;           /* of `divergent`, 0 when uniform */
  /* if: the cause of its sync dependence; loop: of its temporal divergence; plain
   * instruction whose cause is its own (SELF_CAUSE): the cause of from_reg then */
  uint32_t merge_cause;
  union {
    uint32_t regs;          /* plain instruction: where its registers start in the walk's
                             * regs: num_inputs it reads, ascending, then num_defs it writes */
    uint32_t pred;          /* if, break, continue: its predicate register */
    uint32_t loop;          /* loop: its index in the walk's loops */
  };
  uint8_t kind;             /* stmt_kind */
  int8_t guard;             /* instruction: its guard's predicate or WAVE_NO_GUARD */
  uint8_t num_inputs;       /* the inputs that make its result divergent (one instruction names
                             * a few dozen registers at most) */
  uint8_t num_defs;
  bool lane_source : 1; /* plain instruction: its result is divergent whatever its inputs */
  bool visited : 1;
  bool converged : 1; /* at every visit */
  bool divergent : 1; /* result, branch predicate, if predicate or loop exit */
  uint16_t from_reg;  /* plain instruction with its own cause: the input that made it so */
} entry;

struct wave_uniformity {
  const wave_kernel *kernel;
  /* In the order of wave_const_walk, which is the order in which the dataflow meets the
   * statements: it finds each by a cursor (a loop walked again starts again after its own
   * entry, a loop skipped jumps past its end), and two results compare entry by entry.
   * keys[i] is the statement of entries[i], NULL for a marker. */
  const void **keys;
  entry *entries;
  size_t num_entries, cap_keys, cap_entries;
  /* The distinct register sets that entries' `before` name, sets[0] empty. The walk's state
   * changes far less often than it moves from one statement to the next, so most statements
   * share their set with others. */
  wave_regset *sets;
  size_t num_sets, cap_sets;
  uint32_t *slots;          /* for the queries, by statement: entry index + 1, 0 = empty */
  size_t capacity;
  cause *causes;            /* causes[0] is unused: index 0 means no cause */
  size_t num_causes, cap_causes;
  const wave_allocator *allocator; /* the kernel's module's, for every array here and the walk's */
};

static size_t slot_of(const void *key, size_t capacity) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ h >> 29) & (capacity - 1);
}

static const entry *find(const wave_uniformity *u, const void *key) {
  for (size_t s = slot_of(key, u->capacity);; s = (s + 1) & (u->capacity - 1)) {
    if (!u->slots[s])
      return NULL;
    if (u->keys[u->slots[s] - 1] == key)
      return &u->entries[u->slots[s] - 1];
  }
}

/* Cause c, from the table or from the entry that keeps its own. */
static cause cause_at(const wave_uniformity *u, uint32_t c) {
  if (c < SELF_CAUSE)
    return u->causes[c];
  const entry *e = &u->entries[c - SELF_CAUSE];
  cause k = {e->lane_source ? CAUSE_SOURCE : CAUSE_OPERAND, e->from_reg, e->merge_cause,
             u->keys[c - SELF_CAUSE], NULL};
  return k;
}

/* array, with room for *cap elements of size bytes, or a larger copy of it, so that index n
 * fits; NULL when memory runs out (array is then untouched). */
static void *reserve(const wave_allocator *a, void *array, size_t *cap, size_t n, size_t size) {
  return wave_grow(a, &array, cap, n + 1, size) ? array : NULL;
}

/* ---- the dataflow state ---------------------------------------------------------------------- */

/* A state's div that is not known to be in sets. */
#define NO_SET UINT32_MAX

typedef struct state {
  wave_regset div;
  uint32_t set;             /* an index in sets of div, or NO_SET: what a visit records */
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
  a.set = a.set == b.set ? a.set : NO_SET;
  a.after_cont = wave_regset_union(a.after_cont, b.after_cont);
  a.narrow = a.narrow > b.narrow ? a.narrow : b.narrow;
  a.loop_narrow = a.loop_narrow || b.loop_narrow;
  a.cont_div = a.cont_div || b.cont_div;
  return a;
}

static state dead_state(void) {
  state s = {0};
  s.dead = true;
  s.set = NO_SET;
  s.narrow = -1;
  return s;
}

typedef struct frame {
  const wave_node *node;
  entry *e;
  state entry_state;        /* if: at the if; loop: at the loop, before its header */
  state header;             /* loop: the header state this walk of the body started from */
  state other;              /* if: at the end of the then-list; loop: joined break states */
  state cont;               /* loop: joined continue states */
  size_t body;              /* loop: the index of its body's first entry */
  wave_regset written;
  /* if inside a loop: lanes left the loop in it (left_cont: at a continue), which its state
   * at the endif forgets when the path they left from ended at a halt */
  bool left, left_cont;
  int outer_loop;           /* the level of the loop around this one */
} frame;

/* A loop's own facts, beside the memo of the last complete walk of its body: a later visit
 * whose header state is alike (see header_key) has the same fixpoint inside, so it takes the
 * exit from the memo instead of walking the body again. */
typedef struct loop_info {
  uint32_t end;             /* the index of the first entry after its endloop */
  uint32_t cont_cause;      /* of the merges after its first divergent continue */
  bool walked;
  bool exit_dead;
  int header_key;
  wave_regset header_div;
  wave_regset break_div;    /* joined over the breaks, before temporal divergence */
  wave_regset written;
} loop_info;

typedef struct walk {
  wave_uniformity *u;
  uint32_t *set_slots;      /* sets by content: index + 1, 0 = empty */
  size_t set_capacity;
  uint16_t *regs;           /* plain instructions' registers, see entry */
  size_t num_regs, cap_regs;
  loop_info *loops;
  size_t num_loops, cap_loops;
  uint32_t why[WAVE_NUM_REGS];  /* the cause of each register's latest divergence */
  frame *frames;
  size_t depth, cap;
  size_t at;                /* the index of the entry of the next statement met */
  int loop_level;           /* frame level of the innermost loop, -1 outside loops */
  bool across_workgroup;    /* config: per-wave values are sources */
  bool oom;
} walk;

/* ---- register sets --------------------------------------------------------------------------- */

static size_t set_slot(wave_regset regs, size_t capacity) {
  uint64_t h = 0;
  for (unsigned k = 0; k < WAVE_REGSET_WORDS; k++)
    h = (h ^ regs.words[k]) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ h >> 32) & (capacity - 1);
}

/* The index of regs in sets, added when it is new; each set is there once. */
static uint32_t intern(walk *w, wave_regset regs) {
  wave_uniformity *u = w->u;
  if (2 * u->num_sets >= w->set_capacity) {
    size_t capacity = w->set_capacity ? 2 * w->set_capacity : 64;
    uint32_t *slots = wave_mem_calloc(u->allocator, capacity, sizeof(*slots));
    if (!slots) {
      w->oom = true;
      return 0;
    }
    for (size_t i = 0; i < u->num_sets; i++) {
      size_t slot = set_slot(u->sets[i], capacity);
      while (slots[slot])
        slot = (slot + 1) & (capacity - 1);
      slots[slot] = (uint32_t)(i + 1);
    }
    wave_mem_free(u->allocator, w->set_slots);
    w->set_slots = slots;
    w->set_capacity = capacity;
  }
  size_t slot = set_slot(regs, w->set_capacity);
  for (; w->set_slots[slot]; slot = (slot + 1) & (w->set_capacity - 1))
    if (wave_regset_equal(u->sets[w->set_slots[slot] - 1], regs))
      return w->set_slots[slot] - 1;
  wave_regset *sets = u->num_sets < UINT32_MAX - 1
                          ? reserve(u->allocator, u->sets, &u->cap_sets, u->num_sets, sizeof(*sets))
                          : NULL;
  if (!sets) {
    w->oom = true;
    return 0;
  }
  u->sets = sets;
  sets[u->num_sets] = regs;
  w->set_slots[slot] = (uint32_t)(u->num_sets + 1);
  return (uint32_t)u->num_sets++;
}

/* The index in sets of sets[id] with regs added. */
static uint32_t add_to_set(walk *w, uint32_t id, wave_regset regs) {
  wave_regset grown = wave_regset_union(w->u->sets[id], regs);
  return wave_regset_equal(grown, w->u->sets[id]) ? id : intern(w, grown);
}

/* ---- decoding the kernel --------------------------------------------------------------------- */

/* sr_thread_id_x/_y/_z, sr_lane_id; across the workgroup sr_wave_id too. */
static bool is_lane_sreg(uint32_t sreg, bool across_workgroup) {
  return sreg <= 2 || sreg == 4 || (across_workgroup && sreg == 3);
}

/* Whether the instruction's result is one value over the lanes it runs in, whatever its
 * operands: its guard and (guarded) its old destination still count. */
static bool is_wave_uniform_op(wave_opcode op) {
  switch (op) {
  case WAVE_OP_WAVE_REDUCE_ADD:
  case WAVE_OP_WAVE_REDUCE_MIN:
  case WAVE_OP_WAVE_REDUCE_MAX:
  case WAVE_OP_WAVE_BROADCAST:
  case WAVE_OP_WAVE_BALLOT:
  case WAVE_OP_WAVE_ANY:
  case WAVE_OP_WAVE_ALL:
    return true;
  default:
    return false;
  }
}

static bool is_lane_source(const wave_layout_item *item, bool across_workgroup) {
  if (wave_opcode_has(item->op, WAVE_F_RMW) || (across_workgroup && is_wave_uniform_op(item->op)))
    return true;
  switch (item->op) {
  case WAVE_OP_WAVE_PREFIX_SUM:
  case WAVE_OP_WAVE_SHUFFLE:
  case WAVE_OP_WAVE_SHUFFLE_UP:
  case WAVE_OP_WAVE_SHUFFLE_DOWN:
  case WAVE_OP_WAVE_SHUFFLE_XOR:
    return true;
  default:
    break;
  }
  for (unsigned sreg = 0; sreg < 8; sreg++)
    if ((item->low_sregs >> sreg & 1) && is_lane_sreg(sreg, across_workgroup))
      return true;
  return false;
}

static entry *append_entry(wave_uniformity *u, const void *key, stmt_kind kind) {
  const void **keys = reserve(u->allocator, u->keys, &u->cap_keys, u->num_entries, sizeof(*keys));
  if (keys)
    u->keys = keys;
  entry *entries =
      keys ? reserve(u->allocator, u->entries, &u->cap_entries, u->num_entries, sizeof(*entries))
           : NULL;
  if (!entries)
    return NULL;
  u->entries = entries;
  keys[u->num_entries] = key;
  entry *e = &entries[u->num_entries++];
  memset(e, 0, sizeof(*e));
  e->kind = (uint8_t)kind;
  e->converged = true;
  return e;
}

/* Appends the members of regs to the walk's regs, ascending; their number in *count. */
static bool add_regs(walk *w, wave_regset regs, uint8_t *count) {
  uint16_t *grown =
      reserve(w->u->allocator, w->regs, &w->cap_regs, w->num_regs + WAVE_NUM_REGS, sizeof(*grown));
  if (!grown)
    return false;
  w->regs = grown;
  size_t first = w->num_regs;
  for (unsigned k = 0; k < WAVE_REGSET_WORDS; k++)
    for (uint64_t m = regs.words[k]; m; m &= m - 1)
      grown[w->num_regs++] = (uint16_t)(k * 64 + (unsigned)__builtin_ctzll(m));
  *count = (uint8_t)(w->num_regs - first);
  return true;
}

/* Appends count registers to the walk's regs. */
static bool copy_regs(walk *w, const uint16_t *regs, uint8_t count) {
  uint16_t *grown =
      reserve(w->u->allocator, w->regs, &w->cap_regs, w->num_regs + count, sizeof(*grown));
  if (!grown)
    return false;
  w->regs = grown;
  memcpy(&grown[w->num_regs], regs, count * sizeof(*regs));
  w->num_regs += count;
  return true;
}

static bool index_instr(walk *w, const wave_layout *layout, const wave_layout_item *item) {
  const wave_instr *instr = wave_layout_instr(item);
  entry *e = append_entry(w->u, instr, STMT_PLAIN);
  if (!e)
    return false;
  e->guard = item->guard;
  if (item->op == WAVE_OP_BREAK || item->op == WAVE_OP_CONTINUE) {
    e->kind = item->op == WAVE_OP_BREAK ? STMT_BREAK : STMT_CONTINUE;
    e->pred = WAVE_REG_PRED(wave_layout_branch_pred(item));
    return true;
  }
  if (item->op == WAVE_OP_CALL) {
    e->kind = STMT_CALL;
    return true;
  }
  if (!item->num_defs) {
    e->kind =
        (item->op == WAVE_OP_HALT || item->op == WAVE_OP_RETURN) && item->guard == WAVE_NO_GUARD
            ? STMT_END
            : STMT_NO_DEFS;
    return true;
  }
  const uint16_t *uses = wave_layout_uses(layout, item), *defs = wave_layout_defs(layout, item);
  e->regs = (uint32_t)w->num_regs;
  e->num_defs = item->num_defs;
  e->lane_source = is_lane_source(item, w->across_workgroup);
  if (e->lane_source)
    return copy_regs(w, defs, item->num_defs);
  if (!is_wave_uniform_op(item->op)) {
    e->num_inputs = item->num_uses;
    return copy_regs(w, uses, item->num_uses) && copy_regs(w, defs, item->num_defs);
  }
  /* One value over the lanes it runs in: only a guard and the old destination it keeps in
   * the lanes the guard turns off are inputs. */
  wave_regset inputs = wave_regset_empty();
  if (item->guard != WAVE_NO_GUARD) {
    wave_regset_set(&inputs, WAVE_REG_PRED(item->guard));
    wave_regset_add_list(&inputs, wave_layout_defs(layout, item), item->num_defs);
  }
  return add_regs(w, inputs, &e->num_inputs) && copy_regs(w, defs, item->num_defs);
}

/* The entries of the kernel from its layout, hashed afterwards, so that the dataflow never
 * allocates per visit but for new register sets. While a loop is open its `end` links to the
 * loop around it (its index + 1, 0 for none), so that its endloop finds the loop to close. */
static bool index_kernel(walk *w, const wave_layout *layout) {
  wave_uniformity *u = w->u;
  uint32_t open = 0;
  /* Sized once from the layout: doubling would copy and fault in the arrays again. An
   * instruction whose inputs are its guard and destinations may list one register more. */
  size_t entries = layout->num_items - layout->count[WAVE_LAYOUT_BLOCK];
  bool ok =
      wave_alloc_array(u->allocator, (void **)&u->keys, &u->cap_keys, entries + 1,
                       sizeof(*u->keys)) &&
      wave_alloc_array(u->allocator, (void **)&u->entries, &u->cap_entries, entries + 1,
                       sizeof(*u->entries)) &&
      wave_alloc_array(u->allocator, (void **)&w->loops, &w->cap_loops,
                       layout->count[WAVE_LAYOUT_LOOP] + 1, sizeof(*w->loops)) &&
      wave_alloc_array(u->allocator, (void **)&w->regs, &w->cap_regs,
                       layout->num_regs + layout->count[WAVE_LAYOUT_INSTR] + WAVE_NUM_REGS + 1,
                       sizeof(*w->regs));
  for (size_t i = 0; ok && i < layout->num_items; i++) {
    const wave_layout_item *item = &layout->items[i];
    const wave_node *n = wave_layout_node(item);
    entry *e;
    loop_info *loops;
    switch ((wave_layout_kind)item->kind) {
    case WAVE_LAYOUT_INSTR:
      ok = index_instr(w, layout, item);
      break;
    case WAVE_LAYOUT_BLOCK:
    case WAVE_LAYOUT_KINDS:
      break;
    case WAVE_LAYOUT_IF:
      if ((ok = (e = append_entry(u, n, STMT_IF)) != NULL))
        e->pred = WAVE_REG_PRED(item->pred);
      break;
    case WAVE_LAYOUT_ELSE:
      ok = append_entry(u, NULL, STMT_ELSE) != NULL;
      break;
    case WAVE_LAYOUT_ENDIF:
      ok = append_entry(u, NULL, STMT_ENDIF) != NULL;
      break;
    case WAVE_LAYOUT_LOOP:
      e = append_entry(u, n, STMT_LOOP);
      loops =
          e ? reserve(u->allocator, w->loops, &w->cap_loops, w->num_loops, sizeof(*loops)) : NULL;
      if ((ok = loops != NULL)) {
        w->loops = loops;
        memset(&loops[w->num_loops], 0, sizeof(*loops));
        loops[w->num_loops].end = open;
        e->loop = (uint32_t)w->num_loops++;
        open = (uint32_t)w->num_loops;
      }
      break;
    case WAVE_LAYOUT_ENDLOOP:
      if ((ok = append_entry(u, NULL, STMT_ENDLOOP) != NULL)) {
        loop_info *l = &w->loops[open - 1];
        open = l->end;
        l->end = (uint32_t)u->num_entries;
      }
      break;
    case WAVE_LAYOUT_END_REGION:
      ok = append_entry(u, NULL, STMT_END_REGION) != NULL;
      break;
    }
  }
  if (!ok || intern(w, wave_regset_empty()) != 0)
    return false;
  u->capacity = 16;
  while (u->capacity < u->num_entries + u->num_entries / 2)
    u->capacity *= 2;
  u->slots = wave_calloc_huge(u->allocator, u->capacity, sizeof(*u->slots));
  if (!u->slots)
    return false;
  /* The slots are met at random: asking for a slot some keys ahead overlaps the misses. */
  enum { AHEAD = 16 };
  for (size_t i = 0; i < u->num_entries; i++) {
    if (i + AHEAD < u->num_entries)
      __builtin_prefetch(&u->slots[slot_of(u->keys[i + AHEAD], u->capacity)], 1);
    if (!u->keys[i])
      continue;
    size_t slot = slot_of(u->keys[i], u->capacity);
    while (u->slots[slot])
      slot = (slot + 1) & (u->capacity - 1);
    u->slots[slot] = (uint32_t)(i + 1);
  }
  return true;
}

/* ---- transfer -------------------------------------------------------------------------------- */

static const void *key_of(const walk *w, const entry *e) { return w->u->keys[e - w->u->entries]; }

static uint32_t new_cause(walk *w, cause_kind kind, const wave_instr *instr, const wave_node *node,
                          unsigned from_reg) {
  wave_uniformity *u = w->u;
  size_t n = u->num_causes ? u->num_causes : 1;
  cause *causes = reserve(u->allocator, u->causes, &u->cap_causes, n, sizeof(*causes));
  if (!causes) {
    w->oom = true;
    return 0;
  }
  u->causes = causes;
  u->num_causes = n + 1;
  cause *c = &causes[n];
  c->kind = (uint8_t)kind;
  c->from_reg = (uint16_t)from_reg;
  c->from = from_reg < WAVE_NUM_REGS ? w->why[from_reg] : 0;
  c->instr = instr;
  c->node = node;
  return (uint32_t)n;
}

/* Every register and predicate. */
static wave_regset all_regs(void) {
  wave_regset all;
  for (unsigned k = 0; k < WAVE_REGSET_WORDS; k++)
    all.words[k] = k + 1 < WAVE_REGSET_WORDS || WAVE_NUM_REGS % 64 == 0
                       ? ~(uint64_t)0
                       : ((uint64_t)1 << WAVE_NUM_REGS % 64) - 1;
  return all;
}

/* Gives each member of regs the cause `why`, a word at a time: sets are mostly empty or full. */
static void set_why(walk *w, wave_regset regs, uint32_t why) {
  for (unsigned k = 0; k < WAVE_REGSET_WORDS; k++)
    for (uint64_t m = regs.words[k]; m; m &= m - 1)
      w->why[k * 64 + (unsigned)__builtin_ctzll(m)] = why;
}

/* Marks regs divergent in s, with the cause `why` for those that were not. */
static void make_divergent(walk *w, state *s, wave_regset regs, uint32_t why) {
  wave_regset fresh = wave_regset_subtract(regs, s->div);
  if (wave_regset_is_empty(fresh))
    return;
  s->div = wave_regset_union(s->div, fresh);
  s->set = NO_SET;
  set_why(w, fresh, why);
}

static void note_defs(walk *w, state *s, wave_regset defs) {
  if (w->depth)
    w->frames[w->depth - 1].written = wave_regset_union(w->frames[w->depth - 1].written, defs);
  if (s->cont_div)
    s->after_cont = wave_regset_union(s->after_cont, defs);
}

/* Records a visit of e in state s. The sets being distinct, an entry that has its state's set
 * already (the common case: no new divergence since the last visit) costs no set operation. */
static void visit(walk *w, entry *e, state *s, bool converged, bool divergent, uint32_t why) {
  e->visited = true;
  e->converged = e->converged && converged;
  if (s->set == NO_SET)
    s->set = intern(w, s->div);
  if (e->before != s->set)
    e->before = e->before ? add_to_set(w, e->before, s->div) : s->set;
  if (divergent && !e->divergent) {
    e->divergent = true;
    e->cause = why;
  }
}

/* Why a break or continue that the lanes it sees take alike leaves lanes behind: lanes are
 * parked in the divergent if at frame level narrow inside the loop, whose predicate's cause
 * then continues the chain; otherwise (a break) lanes left at an earlier divergent continue. */
static uint32_t parked_cause(walk *w, const state *s, cause_kind kind, const wave_instr *instr,
                             const loop_info *loop) {
  if (s->narrow > w->loop_level) {
    const frame *f = &w->frames[s->narrow - 1];
    uint32_t c = new_cause(w, kind, instr, f->node, WAVE_NUM_REGS);
    if (c) {
      w->u->causes[c].from_reg = (uint16_t)f->e->pred;
      w->u->causes[c].from = cause_at(w->u, f->e->cause).from;
    }
    return c;
  }
  uint32_t c = new_cause(w, kind, instr, NULL, WAVE_NUM_REGS);
  if (c)
    w->u->causes[c].from = loop->cont_cause;
  return c;
}

static void branch(walk *w, state *s, entry *e, bool guard_div) {
  const wave_instr *instr = key_of(w, e);
  bool is_break = e->kind == STMT_BREAK;
  /* Whether it may take some active lanes and not others: by its predicate, or by its guard,
   * which explains it first as it does a partial write. */
  bool split = guard_div || wave_regset_test(s->div, e->pred);
  unsigned from = guard_div ? WAVE_REG_PRED(e->guard) : e->pred;
  visit(w, e, s, s->narrow < 0 && !guard_div, split,
        split && !e->cause ? new_cause(w, CAUSE_OPERAND, instr, NULL, from) : e->cause);
  if (w->loop_level < 0)
    return;   /* the verifier's error; nothing to leave */
  frame *loop = &w->frames[w->loop_level - 1];
  loop_info *l = &w->loops[loop->e->loop];
  /* Lanes missing at the loop's own level are lanes a break took, in this iteration or an
   * earlier one, or lanes a continue took, which the continue state already tracks. A break
   * where they are missing leaves at another iteration than theirs may; a continue taken
   * alike by the lanes still running merges nothing new at the header, since those that left
   * never come back. Only lanes parked in an if inside the loop make it a divergent one. */
  bool exit_div = split || s->narrow > w->loop_level || (is_break && s->narrow == w->loop_level);
  if (is_break) {
    loop->other = join(loop->other, *s);
    if (exit_div && !loop->e->divergent) {
      loop->e->divergent = true;
      loop->e->cause = split ? e->cause : parked_cause(w, s, CAUSE_BREAK, instr, l);
    }
  } else {
    loop->cont = join(loop->cont, *s);
    if (exit_div && !l->cont_cause)
      l->cont_cause = split ? new_cause(w, CAUSE_CONTINUE, instr, NULL, from)
                            : parked_cause(w, s, CAUSE_CONTINUE, instr, l);
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
      in_if->left_cont = in_if->left_cont || !is_break;
    }
  }
}

static void transfer(walk *w, state *s, entry *e) {
  if (s->dead)
    return;
  bool guard_div = e->guard != WAVE_NO_GUARD && wave_regset_test(s->div, WAVE_REG_PRED(e->guard));
  bool converged = s->narrow < 0 && !guard_div;
  switch ((stmt_kind)e->kind) {
  case STMT_BREAK:
  case STMT_CONTINUE:
    branch(w, s, e, guard_div);
    return;
  case STMT_CALL: {
    wave_regset all = all_regs();
    uint32_t why =
        e->cause ? e->cause : new_cause(w, CAUSE_UNKNOWN, key_of(w, e), NULL, WAVE_NUM_REGS);
    visit(w, e, s, converged, true, why);
    make_divergent(w, s, all, why);
    note_defs(w, s, all);
    return;
  }
  case STMT_NO_DEFS:
  case STMT_END:
    visit(w, e, s, converged, false, 0);
    if (e->kind == STMT_END)
      *s = dead_state();
    return;
  default:
    break;
  }
  /* The first divergent input, and the cause it brings: the guard explains a partial write
   * best; otherwise the lowest divergent input. */
  const uint16_t *regs = &w->regs[e->regs];
  unsigned from = WAVE_NUM_REGS;
  if (!e->lane_source) {
    if (guard_div)
      from = WAVE_REG_PRED(e->guard);
    for (unsigned i = 0; i < e->num_inputs && from == WAVE_NUM_REGS; i++)
      if (wave_regset_test(s->div, regs[i]))
        from = regs[i];
  }
  bool divergent = e->lane_source || from < WAVE_NUM_REGS;
  uint32_t why = e->cause;
  if (divergent && !why) {
    e->from_reg = (uint16_t)from;
    e->merge_cause = from < WAVE_NUM_REGS ? w->why[from] : 0;
    why = SELF_CAUSE + (uint32_t)(e - w->u->entries);
  }
  visit(w, e, s, converged, divergent, why);
  /* make_divergent or not, then note_defs, a register at a time: the walk's hottest path,
   * where a set built a bit at a time would be read back a word at a time. */
  frame *top = w->depth ? &w->frames[w->depth - 1] : NULL;
  for (const uint16_t *d = regs + e->num_inputs; d < regs + e->num_inputs + e->num_defs; d++) {
    uint64_t bit = (uint64_t)1 << (*d % 64), *word = &s->div.words[*d / 64], old = *word;
    *word = divergent ? old | bit : old & ~bit;
    if (*word != old)
      s->set = NO_SET;
    if (divergent)
      w->why[*d] = why;
    if (top)
      top->written.words[*d / 64] |= bit;
    if (s->cont_div)
      s->after_cont.words[*d / 64] |= bit;
  }
}

/* ---- the walk -------------------------------------------------------------------------------- */

static frame *push(walk *w, entry *e, const state *s) {
  frame *frames = reserve(w->u->allocator, w->frames, &w->cap, w->depth, sizeof(*frames));
  if (!frames) {
    w->oom = true;
    return NULL;
  }
  w->frames = frames;
  frame *f = &frames[w->depth++];
  f->node = key_of(w, e);
  f->e = e;
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
static state header_state(const walk *w, const state *at_loop, const entry *e, int level) {
  state h = *at_loop;
  h.div = wave_regset_union(h.div, w->u->sets[e->before]);
  h.set = NO_SET;
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

static void enter_if(walk *w, state *s, entry *e) {
  bool cond_div = !s->dead && wave_regset_test(s->div, e->pred);
  if (!s->dead)
    visit(w, e, s, s->narrow < 0, cond_div,
          cond_div && !e->cause ? new_cause(w, CAUSE_OPERAND, NULL, key_of(w, e), e->pred)
                                : e->cause);
  if (!push(w, e, s))
    return;
  if (cond_div)
    s->narrow = (int)w->depth;
}

/* At the else marker: the else-list starts from the state at the if. */
static void enter_else(walk *w, state *s) {
  frame *f = &w->frames[w->depth - 1];
  f->other = *s;
  *s = f->entry_state;
  if (f->e->divergent && !s->dead)
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
        f->e->merge_cause = new_cause(w, CAUSE_SYNC, NULL, f->node, f->e->pred);
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
static state loop_exit(walk *w, const state *at_loop, entry *e, state breaks, wave_regset written) {
  if (breaks.dead)
    return breaks;
  if (e->divergent) {
    if (!e->merge_cause)
      e->merge_cause = new_cause(w, CAUSE_TEMPORAL, NULL, key_of(w, e), WAVE_NUM_REGS);
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

/* At a loop: walks into its body from the header, or, when no lane enters or a walk from an
 * alike header is memoised, leaves *s the state after it and moves past its end. */
static void enter_loop(walk *w, state *s, entry *e) {
  loop_info *l = &w->loops[e->loop];
  if (s->dead) {
    w->at = l->end;
    return;
  }
  /* Converged here means at the loop's entry: lanes may go missing only inside. */
  visit(w, e, s, s->narrow < 0, e->divergent, e->cause);
  int level = (int)w->depth + 1;
  state h = header_state(w, s, e, level);
  if (l->walked && l->header_key == header_key(&h, level) &&
      wave_regset_equal(l->header_div, h.div)) {
    state breaks = *s;
    breaks.dead = l->exit_dead;
    breaks.div = l->break_div;
    breaks.set = NO_SET;
    note_defs(w, s, l->written);
    *s = loop_exit(w, s, e, breaks, l->written);
    w->at = l->end;
    return;
  }
  frame *f = push(w, e, s);
  if (!f)
    return;
  f->body = w->at;
  w->loop_level = level;
  f->header = h;
  *s = h;
}

/* At the endloop marker: walks the body again when the header gained something; otherwise
 * the loop is done and *s is the state after it. */
static void leave_loop(walk *w, state *s) {
  frame *f = &w->frames[w->depth - 1];
  entry *e = f->e;
  loop_info *l = &w->loops[e->loop];
  int level = w->loop_level;
  state back = join(*s, f->cont);
  if (!back.dead) {
    set_why(w, wave_regset_subtract(back.after_cont, back.div), l->cont_cause);
    e->before = add_to_set(w, e->before, wave_regset_union(back.div, back.after_cont));
  }
  state now = header_state(w, &f->entry_state, e, level);
  if (!wave_regset_equal(now.div, f->header.div) || now.narrow != f->header.narrow) {
    f->header = now;
    f->other = dead_state();
    f->cont = dead_state();
    *s = now;
    w->at = f->body;
    return;
  }
  l->walked = true;
  l->header_key = header_key(&f->header, level);
  l->header_div = f->header.div;
  l->break_div = f->other.div;
  l->exit_dead = f->other.dead;
  l->written = f->written;
  *s = loop_exit(w, &f->entry_state, e, f->other, f->written);
  w->loop_level = f->outer_loop;
  pop(w);
}

/* Walks a region's entries, from w->at to its end marker. */
static void walk_region(walk *w, state s) {
  while (!w->oom) {
    entry *e = &w->u->entries[w->at++];
    switch ((stmt_kind)e->kind) {
    case STMT_IF:
      enter_if(w, &s, e);
      break;
    case STMT_ELSE:
      enter_else(w, &s);
      break;
    case STMT_ENDIF:
      leave_if(w, &s);
      break;
    case STMT_LOOP:
      enter_loop(w, &s, e);
      break;
    case STMT_ENDLOOP:
      leave_loop(w, &s);
      break;
    case STMT_END_REGION:
      return;
    default:
      transfer(w, &s, e);
      break;
    }
  }
}

/* The result from the kernel's layout. */
static wave_uniformity *uniformity_compute(const wave_kernel *kernel, const wave_layout *layout,
                                           const wave_uniformity_config *config) {
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  wave_uniformity *u = wave_mem_calloc(a, 1, sizeof(*u));
  if (u)
    u->allocator = a;
  walk *w = wave_mem_calloc(a, 1, sizeof(*w));
  bool ok = u && w;
  if (ok) {
    u->kernel = kernel;
    w->u = u;
    w->loop_level = -1;
    w->across_workgroup = config && config->across_workgroup;
    ok = index_kernel(w, layout);
  }
  for (const wave_region *r = wave_kernel_first_region(kernel); ok && r && !w->oom;
       r = wave_region_next(r)) {
    state s = {0};    /* s.set 0: sets[0] is the empty set */
    s.narrow = -1;
    if (r == wave_kernel_first_region(kernel)) {
      if (config) {
        uint32_t why = new_cause(w, CAUSE_ARGUMENT, NULL, NULL, WAVE_NUM_REGS);
        make_divergent(w, &s, wave_regset_intersect(config->assume_divergent, all_regs()), why);
      }
    } else {
      /* Called from anywhere, with lanes parked anywhere. */
      make_divergent(w, &s, all_regs(), new_cause(w, CAUSE_UNKNOWN, NULL, NULL, WAVE_NUM_REGS));
      s.narrow = 0;
    }
    walk_region(w, s);
  }
  ok = ok && !w->oom;
  if (w) {
    wave_mem_free(a, w->set_slots);
    wave_mem_free(a, w->regs);
    wave_mem_free(a, w->loops);
    wave_mem_free(a, w->frames);
    wave_mem_free(a, w);
  }
  if (!ok) {
    wave_uniformity_destroy(u);
    return NULL;
  }
  return u;
}

wave_uniformity *wave_uniformity_compute(const wave_kernel *kernel,
                                         const wave_uniformity_config *config) {
  wave_layout *layout = wave_layout_build(kernel, NULL);
  wave_uniformity *u = layout ? uniformity_compute(kernel, layout, config) : NULL;
  wave_layout_destroy(layout);
  return u;
}

void wave_uniformity_destroy(wave_uniformity *u) {
  if (!u)
    return;
  wave_mem_free(u->allocator, u->keys);
  wave_mem_free(u->allocator, u->entries);
  wave_mem_free(u->allocator, u->sets);
  wave_mem_free(u->allocator, u->slots);
  wave_mem_free(u->allocator, u->causes);
  wave_mem_free(u->allocator, u);
}

/* ---- queries --------------------------------------------------------------------------------- */

static const entry *visited_entry(const wave_uniformity *u, const void *key) {
  const entry *e = find(u, key);
  return e && e->visited ? e : NULL;
}

wave_regset wave_uniformity_divergent_before(const wave_uniformity *u, const wave_instr *instr) {
  const entry *e = visited_entry(u, instr);
  return e ? u->sets[e->before] : all_regs();
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

bool wave_uniformity_node_divergent_at(const wave_uniformity *u, const wave_node *node, size_t at) {
  const entry *e = at < u->num_entries && u->keys[at] == node ? &u->entries[at] : find(u, node);
  return !e || !e->visited || e->divergent;
}

bool wave_uniformity_node_converged(const wave_uniformity *u, const wave_node *node) {
  const entry *e = visited_entry(u, node);
  return e && e->converged;
}

/* ---- explanations ---------------------------------------------------------------------------- */

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
  for (unsigned i = 0; i < wave_instr_num_operands(instr); i++)
    if (wave_instr_operand(instr, i).kind == WAVE_OPERAND_SREG &&
        wave_opcode_reads_sreg(wave_instr_op(instr), i))
      return wave_sreg_names[wave_instr_operand(instr, i).value];
  if (wave_opcode_has(wave_instr_op(instr), WAVE_F_RMW))
    return "each lane's own old value";
  if (is_wave_uniform_op(wave_instr_op(instr)))
    return "each wave's own result";
  return "a per-lane result";
}

static unsigned if_line(const wave_node *node) {
  return wave_node_origin(node, WAVE_LINE_IF).loc.line;
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
    const cause k = cause_at(u, c);
    if (link)
      put(o, " <- ");
    if (reg < WAVE_NUM_REGS) {
      put_reg(o, reg);
      put(o, k.kind == CAUSE_OPERAND || k.kind == CAUSE_SOURCE ? " = " : " <- ");
    }
    switch ((cause_kind)k.kind) {
    case CAUSE_OPERAND:
    case CAUSE_SOURCE:
      put(o, "%s (line %u)", wave_opcode_get(wave_instr_op(k.instr))->mnemonic,
          wave_instr_loc(k.instr).line);
      if (k.kind == CAUSE_SOURCE) {
        put(o, " <- %s", source_name(k.instr));
        return;
      }
      break;
    case CAUSE_SYNC:
      put(o, "written under divergent if (line %u)", if_line(k.node));
      break;
    case CAUSE_TEMPORAL:
      put(o, "live out of loop (line %u) left at different iterations",
          wave_node_origin(k.node, WAVE_LINE_LOOP).loc.line);
      reg = WAVE_NUM_REGS;
      c = find(u, k.node)->cause;
      continue;
    case CAUSE_CONTINUE:
      put(o, "%sdivergent continue (line %u)", reg < WAVE_NUM_REGS ? "merged after " : "",
          wave_instr_loc(k.instr).line);
      if (k.node)
        put(o, " under divergent if (line %u)", if_line(k.node));
      break;
    case CAUSE_BREAK:
      put(o, "break (line %u)", wave_instr_loc(k.instr).line);
      if (k.node)
        put(o, " under divergent if (line %u)", if_line(k.node));
      else
        put(o, " after lanes left");
      break;
    case CAUSE_ARGUMENT:
      put(o, "assume-divergent");
      return;
    case CAUSE_UNKNOWN:
      if (k.instr)
        put(o, "call (line %u) may write anything", wave_instr_loc(k.instr).line);
      else
        put(o, "subroutine entry");
      return;
    }
    reg = k.from_reg;
    c = k.from;
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

size_t wave_uniformity_explain_instr(const wave_uniformity *u, const wave_instr *instr, char *buf,
                                     size_t size) {
  const entry *e = visited_entry(u, instr);
  unsigned reg = WAVE_NUM_REGS;
  if (e && e->divergent && cause_at(u, e->cause).kind != CAUSE_UNKNOWN &&
      wave_instr_op(instr) != WAVE_OP_BREAK && wave_instr_op(instr) != WAVE_OP_CONTINUE) {
    wave_regset defs;
    wave_instr_defs(instr, &defs);
    for (reg = 0; reg < WAVE_NUM_REGS && !wave_regset_test(defs, reg); reg++)
      continue;
  }
  if (e && e->divergent &&
      (wave_instr_op(instr) == WAVE_OP_BREAK || wave_instr_op(instr) == WAVE_OP_CONTINUE)) {
    /* The predicate's own cause reads better than "break <- p1 = ...". */
    const cause k = cause_at(u, e->cause);
    out o = {buf, size, 0};
    if (size)
      buf[0] = '\0';
    put_reg(&o, k.from_reg);
    if (k.from) {
      o.len = 0;
      explain(u, &o, k.from_reg, k.from);
    }
    return o.len;
  }
  return explain_entry(u, e, reg, buf, size);
}

size_t wave_uniformity_explain_node(const wave_uniformity *u, const wave_node *node, char *buf,
                                    size_t size) {
  const entry *e = visited_entry(u, node);
  if (e && e->divergent && wave_node_kind_of(node) == WAVE_NODE_IF) {
    const cause k = cause_at(u, e->cause);
    out o = {buf, size, 0};
    if (size)
      buf[0] = '\0';
    if (k.from)
      explain(u, &o, k.from_reg, k.from);
    else
      put_reg(&o, k.from_reg);
    return o.len;
  }
  return explain_entry(u, e, WAVE_NUM_REGS, buf, size);
}

/* ---- printing -------------------------------------------------------------------------------- */

bool wave_uniformity_equal(const wave_uniformity *a, const wave_uniformity *b) {
  if (a->num_entries != b->num_entries)
    return false;
  for (size_t i = 0; i < a->num_entries; i++) {
    const entry *x = &a->entries[i], *y = &b->entries[i];
    if (a->keys[i] != b->keys[i] || x->visited != y->visited || x->converged != y->converged ||
        x->divergent != y->divergent || !wave_regset_equal(a->sets[x->before], b->sets[y->before]))
      return false;
  }
  return true;
}

/* "divergent: <why>", "uniform", "converged" or "not converged"; what a listing line ends
 * with (asm/annotate.h: after the line's own comment, so that a test's `; uni` or `; div`
 * marker sits right before it). */
static const char *divergence_verdict(bool divergent, size_t explained, char *buf, size_t size) {
  if (!divergent)
    return "uniform";
  if (!explained)
    return "divergent";
  size_t why = strlen("divergent: ");
  if (size <= why)
    return "divergent";
  memmove(buf + why, buf, size - why);
  buf[size - 1] = '\0';
  memcpy(buf, "divergent: ", why);
  return buf;
}

static const char *instr_verdict(void *ctx, const wave_instr *instr, char *buf, size_t size) {
  const wave_uniformity *u = ctx;
  wave_regset defs;
  wave_instr_defs(instr, &defs);
  bool is_branch =
      wave_instr_op(instr) == WAVE_OP_BREAK || wave_instr_op(instr) == WAVE_OP_CONTINUE;
  if (is_branch || !wave_regset_is_empty(defs) || wave_instr_op(instr) == WAVE_OP_CALL) {
    bool div = wave_uniformity_result_divergent(u, instr);
    size_t explained = div ? wave_uniformity_explain_instr(u, instr, buf, size) : 0;
    return divergence_verdict(div, explained, buf, size);
  }
  if (wave_instr_is_convergent(instr))
    return wave_uniformity_instr_converged(u, instr) ? "converged" : "not converged";
  return NULL;
}

static const char *node_verdict(void *ctx, const wave_node *node, char *buf, size_t size) {
  const wave_uniformity *u = ctx;
  bool div = wave_uniformity_node_divergent(u, node);
  size_t explained = div ? wave_uniformity_explain_node(u, node, buf, size) : 0;
  return divergence_verdict(div, explained, buf, size);
}

int wave_uniformity_print(const wave_uniformity *u, const wave_kernel *kernel, wave_write_fn write,
                          void *ctx) {
  wave_annotator a = {.ctx = (void *)u, .instr = instr_verdict, .node = node_verdict};
  return wave_print_annotated(kernel, &a, write, ctx);
}

/* ---- registration ---------------------------------------------------------------------------- */

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  wave_uniformity_config config = {.assume_divergent = wave_analysis_manager_assume_divergent(am)};
  const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
  wave_uniformity *u = layout ? uniformity_compute(kernel, layout, &config) : NULL;
  if (!u)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, wave_kernel_loc(kernel), NULL, 0,
                     "uniformity: out of memory");
  return u;
}

static void destroy(void *result) { wave_uniformity_destroy(result); }

static bool equal(const void *a, const void *b) { return wave_uniformity_equal(a, b); }

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
