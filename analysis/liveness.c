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
 * The solver computes the least fixpoint by sweeps in reverse text order. Every edge leads to
 * a later point but those of `endloop` and `continue`, back to their loop's head, so a loop is
 * swept again while its head's set grows (see solve). Sets only grow, so this ends.
 *
 * Transfer: live-in = uses + (live-out - kills). Uses come from wave_instr_uses (pairs and
 * quads expanded, a guarded instruction's destinations included: lanes the guard turns off
 * keep the old value, so a guarded write kills nothing). Killing nothing, a guarded write
 * passes on all that is live after it, its destinations' old values included where they are
 * read again; so they count as uses only where an operand reads them (GUARD_READS_ONLY): else
 * a guarded write whose result nobody reads, an idiv kept because it may trap, made the old
 * value live back to where no path had written it. `call` and a subroutine's `return`
 * read every register: the callee and the caller share them and are not analysed together. A
 * register read before any write at kernel entry comes out live-in there (a kernel argument).
 *
 * One pair of guarded writes does kill: `@p2 mov_imm r0, 10` right before `@!p2 mov_imm r0, 20` (or
 * `@!p2` first), in the same block. Every lane that runs the first runs the second next, and one of
 * the two guards selects it, so each lane has r0 replaced after the pair: what the first one's
 * guard keeps in the lanes it turns off, the second overwrites. So the first kills its registers
 * and its guard's reads of them are no uses; the second keeps its own (its lanes outside !p2 keep
 * the first one's value). if-to-select's guarded form leaves such a pair for an if/else writing a
 * register on both sides, and without the rule the register stayed live before it: dce kept a copy
 * into it that every lane overwrites, and the copy read a register that no path had written, whose
 * write dce had rightly removed. It holds only when (pair_defines): both write the same registers,
 * under the same predicate with opposite polarity, the first does not write that predicate (the
 * second's guard would select other lanes), and neither reads one of the registers through an
 * operand (a lane would read the value from before the pair). Two guarded writes farther apart, or
 * in different blocks, kill nothing: code between them could write the predicate or read the
 * register, and checking would cost a walk per write. Inside an if or a loop the pair spares
 * other-lane registers, like any killing write there (below).
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
 *
 * Strong liveness (the `strong-liveness` analysis, which dce asks for) counts a read only when
 * the reading instruction is needed: one that may not be removed (wave_opcode_can_speculate
 * says no: memory, traps, convergent or control instructions) or that has a result live after
 * it. An instruction that may be removed and whose results are all dead is absent to the
 * dataflow: its live-in is its live-out. This is still a least fixpoint of monotone equations
 * (a larger live-out can only make an instruction needed), solved the same way, and it answers
 * at once what removing dead code round after round on plain liveness would reach, and more:
 * a value that only feeds itself around a loop (`iadd r5, r5, r6` with r5 read nowhere else)
 * is dead in it, where plain liveness keeps it live through its own read. An if reads its
 * predicate only when something inside it is needed (open_ifs, below), so the compare of an
 * if that holds only dead code is dead too. Every answer is still sound for the kernel with
 * the dead instructions and those ifs removed, and for the kernel as it is: what it calls
 * dead is read only by instructions whose results nobody reads, and by ifs that change
 * nothing whichever way their lanes go.
 *
 * Cost, for a kernel of a million instructions: one pass over the kernel's flat layout
 * (ir/layout.h, which decodes each instruction's registers once for all the analyses) builds
 * the points; a visit reads an instruction's uses and kills from its layout item, a few
 * registers, rather than from sets stored per point, which would cost the memory of two or
 * three more sets per point at the analysis's peak; a point's edges are a
 * flag byte and at most one jump target; sets are stored packed to the kernel's .registers (see
 * pack), one word each up to 60 registers; instructions and nodes are found by hashing their
 * address, and a caller that meets instructions in text order or in reverse (the printer,
 * dce's sweep) finds each next to the last one without hashing (wave_liveness_in_near).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "asm/annotate.h"
#include "ir/code.h"
#include "pm/builtin.h"
#include "support/grow.h"
#include "support/key_index.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "waveopt/waveopt.h"

#define NO_POINT UINT32_MAX

/* A point's edges and what its transfer needs besides its gen and kill sets. */
enum point_flag {
  FALLS = 1,            /* to the next point */
  JUMPS = 2,            /* to the point in its aux */
  OTHER_LANE_FALL = 4,  /* the fall carries only the other-lane registers (an else marker) */
  CROSSES_REGIONS = 8,  /* call, or return in a subroutine: every register is live after it */
  KILLS_LANE_REGS = 16, /* a killing write inside an if or loop: kills no other-lane register */
  ENDS_LANES = 32,      /* halt, or return in the entry region: other-lane registers live into it */
  LOOP_HEAD = 64,       /* a loop marker; its aux is its loop */
  LOOP_END = 128,       /* an endloop marker, going back to its loop's head; its aux is its loop */
  REMOVABLE = 256,      /* strong liveness: an instruction dce removes when its results are dead */
  /* Strong liveness: an if's marker, which reads its predicate only when something inside the
   * if is needed; its endif marker; and an instruction's point, which is needed when it may
   * not be removed or has a result live after it. */
  IF_HEAD = 512,
  IF_END = 1024,
  INSTR = 2048,
  /* A guarded write that the next instruction completes (pair_defines): kills its registers,
   * and its guard's reads of them are no uses. */
  PAIR_KILL = 4096,
  /* A guarded write that reads none of its registers through an operand: its guard's reads of
   * them are no uses either, as it kills nothing and so passes on what is live after it. */
  GUARD_READS_ONLY = 8192,
};
typedef uint16_t point_flags;

/* A loop's marker points. */
typedef struct loop_span {
  uint32_t head, end;
} loop_span;

/* Where a node's points lie: [first, after), and an if's else marker. */
typedef struct node_span {
  uint32_t first, after, mid;
} node_span;

struct wave_liveness {
  const wave_kernel *kernel;
  unsigned gprs;              /* GPRs in the packed layout (see pack) */
  size_t words;               /* of one packed set */
  size_t num_points;
  uint64_t *in, *out;         /* one packed set per point each */
  const void **instr_keys;    /* the instructions in text order */
  uint32_t *instr_points;
  size_t num_instrs;
  wave_key_index instr_index;
  const void **node_keys;     /* blocks, ifs and loops in the order they end */
  node_span *spans;
  size_t num_nodes;
  wave_key_index node_index;
  uint32_t *region_ends;      /* by region order */
  size_t num_regions;
  wave_regset everything;     /* r0..registers-1 and p0..p3 */
  wave_regset packable;       /* r0..gprs-1 and p0..p3 */
  wave_regset other_lanes;    /* read by some instruction in lanes other than their own */
  const wave_allocator *allocator; /* the kernel's module's, for destroy */
};

/* ---- packed sets ----------------------------------------------------------------------------- */

/* A kernel's sets are stored packed in `words` words: r0..r(gprs-1) first and p0..p3 in the
 * top four bits of the last word, where words is the fewest that hold .registers GPRs and the
 * predicates. A kernel of up to 60 registers thus keeps a set in one word instead of the five
 * of a wave_regset, and those are most of the memory the dataflow touches. Five words is
 * wave_regset's own layout. A register beyond .registers that does not fit (the verifier
 * rejects it, but a result may be asked for) makes the kernel computed again in five. */
#define PRED_SHIFT 60
#define GPR_BITS ((uint64_t)-1 >> (64 - PRED_SHIFT))

static void set_layout(wave_liveness *lv, uint64_t registers) {
  lv->words = (size_t)((registers + WAVE_NUM_PREDS + 63) / 64);
  if (lv->words >= WAVE_REGSET_WORDS) {
    lv->words = WAVE_REGSET_WORDS;
    lv->gprs = WAVE_MAX_GPR + 1;
  } else {
    lv->gprs = 64 * (unsigned)lv->words - WAVE_NUM_PREDS;
  }
  lv->packable = wave_regset_empty();
  wave_regset_set_range(&lv->packable, WAVE_REG_GPR(0), lv->gprs);
  wave_regset_set_range(&lv->packable, WAVE_REG_PRED(0), WAVE_NUM_PREDS);
}

static bool full_layout(const wave_liveness *lv) { return lv->words == WAVE_REGSET_WORDS; }

/* False when s does not fit. */
static bool pack(const wave_liveness *lv, const wave_regset *s, uint64_t *dst) {
  if (full_layout(lv)) {
    memcpy(dst, s->words, sizeof(s->words));
    return true;
  }
  uint64_t spill = 0, preds = 0;
  for (unsigned k = 0; k < WAVE_REGSET_WORDS; k++)
    spill |= s->words[k] & ~lv->packable.words[k];
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    preds |= (uint64_t)wave_regset_test(*s, WAVE_REG_PRED(p)) << p;
  size_t last = lv->words - 1;
  for (size_t k = 0; k < last; k++)
    dst[k] = s->words[k];
  dst[last] = (s->words[last] & GPR_BITS) | preds << PRED_SHIFT;
  return spill == 0;
}

/* Whether pack_list can take the list: its GPRs are below lv->gprs. */
static bool list_fits(const wave_liveness *lv, const uint16_t *regs, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (regs[i] < WAVE_REG_PRED(0) && regs[i] >= lv->gprs)
      return false;
  return true;
}

/* pack for a set given as a list of registers that fits (list_fits), added to dst. */
static void pack_list(const wave_liveness *lv, const uint16_t *regs, unsigned n, uint64_t *dst) {
  unsigned preds = full_layout(lv) ? WAVE_REG_PRED(0) : 64 * ((unsigned)lv->words - 1) + PRED_SHIFT;
  for (unsigned i = 0; i < n; i++) {
    unsigned r = regs[i];
    unsigned bit = r >= WAVE_REG_PRED(0) ? preds + (r - WAVE_REG_PRED(0)) : r;
    dst[bit / 64] |= (uint64_t)1 << (bit % 64);
  }
}

static wave_regset unpack(const wave_liveness *lv, const uint64_t *src) {
  wave_regset s = wave_regset_empty();
  if (full_layout(lv)) {
    memcpy(s.words, src, sizeof(s.words));
    return s;
  }
  size_t last = lv->words - 1;
  for (size_t k = 0; k < last; k++)
    s.words[k] = src[k];
  s.words[last] = src[last] & GPR_BITS;
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    if (src[last] >> (PRED_SHIFT + p) & 1)
      wave_regset_set(&s, WAVE_REG_PRED(p));
  return s;
}

/* ---- the graph of points -------------------------------------------------------------------- */

/* An if or loop whose end the walk has not reached. */
typedef struct open_construct {
  uint32_t head;      /* its if or loop point */
  uint32_t els;       /* an if's else marker */
  size_t breaks;      /* a loop: where its own breaks start in builder.breaks */
  bool loop;
} open_construct;

typedef struct builder {
  wave_liveness *lv;
  const wave_layout *layout;
  /* One entry per point each. */
  point_flags *flags;
  uint32_t *aux;
  /* The layout item of an instruction's or an if's point, NO_POINT for the others: the
   * transfer reads its registers there (point_sets) instead of gen and kill sets stored per
   * point, which on a 1M kernel were 16 of -O2's peak megabytes, and 24 with strong
   * liveness's writes. */
  uint32_t *item;
  bool strong;
  size_t cap_points, cap_instrs, cap_nodes, cap_loops, cap_stack, cap_breaks;
  loop_span *loops;
  size_t num_loops;
  open_construct *stack;
  size_t depth;
  uint32_t *breaks;           /* those of the open loops, waiting for their endloop */
  size_t num_breaks;
  wave_regset other_lanes;    /* read by some instruction in lanes other than their own */
  bool failed;                /* out of memory */
  bool too_narrow;            /* a register does not fit the packed layout */
} builder;

static bool resize(const wave_allocator *a, void **array, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return false;
  void *p = wave_mem_realloc(a, *array, count * size);
  if (!p)
    return false;
  /* Only malloc's pages are the library's to advise about. */
  if (wave_mem_is_malloc(a))
    wave_advise_huge(p, count * size);
  *array = p;
  return true;
}

/* The capacity of an array that holds cap and must hold need. */
static size_t grown(size_t cap, size_t need) {
  if (need <= cap)
    return cap;
  size_t cap2 = cap ? cap * 2 : 64;
  while (cap2 < need)
    cap2 *= 2;
  return cap2;
}

/* Grows two arrays that share one capacity. */
static bool grow_pair(const wave_allocator *allocator, void **a, void **b, size_t *cap, size_t need,
                      size_t size_a, size_t size_b) {
  size_t cap2 = grown(*cap, need);
  if (cap2 != *cap && (!resize(allocator, a, cap2, size_a) || !resize(allocator, b, cap2, size_b)))
    return false;
  *cap = cap2;
  return true;
}

static uint32_t add_point(builder *b, point_flags flags) {
  wave_liveness *lv = b->lv;
  size_t n = lv->num_points, cap = grown(b->cap_points, n + 1);
  if (n >= NO_POINT || (cap != b->cap_points &&
                        (!resize(lv->allocator, (void **)&b->flags, cap, sizeof(point_flags)) ||
                         !resize(lv->allocator, (void **)&b->aux, cap, sizeof(uint32_t)) ||
                         !resize(lv->allocator, (void **)&b->item, cap, sizeof(uint32_t))))) {
    b->failed = true;
    return NO_POINT;
  }
  b->cap_points = cap;
  b->flags[n] = flags;
  b->aux[n] = NO_POINT;
  b->item[n] = NO_POINT;
  lv->num_points = n + 1;
  return (uint32_t)n;
}

static void jump(builder *b, uint32_t from, uint32_t to) {
  b->flags[from] |= JUMPS;
  b->aux[from] = to;
}

static void add_node(builder *b, const wave_node *node, uint32_t first, uint32_t after,
                     uint32_t mid) {
  wave_liveness *lv = b->lv;
  if (!grow_pair(lv->allocator, (void **)&lv->node_keys, (void **)&lv->spans, &b->cap_nodes,
                 lv->num_nodes + 1, sizeof(void *), sizeof(node_span))) {
    b->failed = true;
    return;
  }
  lv->node_keys[lv->num_nodes] = node;
  lv->spans[lv->num_nodes++] = (node_span){first, after, mid};
}

static open_construct *open_construct_push(builder *b, uint32_t head, bool loop) {
  if (!wave_grow(b->lv->allocator, (void **)&b->stack, &b->cap_stack, b->depth + 1,
                 sizeof(open_construct))) {
    b->failed = true;
    return NULL;
  }
  open_construct *c = &b->stack[b->depth++];
  *c = (open_construct){head, NO_POINT, b->num_breaks, loop};
  return c;
}

/* The innermost open loop, or NULL (a break outside loops: the verifier's business; the edge
 * is then just left out). */
static const open_construct *innermost_loop(const builder *b) {
  for (size_t d = b->depth; d-- > 0;)
    if (b->stack[d].loop)
      return &b->stack[d];
  return NULL;
}

/* halt, and return where no call can be pending: the lanes that run it end, guarded or not. */
static bool ends_lanes(wave_opcode op, bool entry_region) {
  return op == WAVE_OP_HALT || (op == WAVE_OP_RETURN && entry_region);
}

/* An if's predicate as a packed set; false when it does not fit (a malformed one). */
static bool pack_cond(const wave_liveness *lv, const wave_layout_item *item, uint64_t *dst) {
  wave_regset cond = wave_regset_empty();
  wave_regset_set(&cond, WAVE_REG_PRED((uint8_t)item->pred));
  return pack(lv, &cond, dst);
}

/* Point i's gen and kill sets, and for a REMOVABLE point what it writes, each lv->words words,
 * from its layout item (whose registers fit: compute_packed checks). An unguarded write kills,
 * and so does the first of a complementary pair (PAIR_KILL). A lane-local kill spares the
 * other-lane registers, and lanes that end leave them live. */
static void point_sets(const wave_liveness *lv, const builder *b, size_t i, const uint64_t *other,
                       const uint64_t *everything, uint64_t *gen, uint64_t *kill, uint64_t *defs) {
  size_t w = lv->words;
  /* All five words, a constant count the compiler unrolls, where w words would call memset. */
  for (size_t k = 0; k < WAVE_REGSET_WORDS; k++)
    gen[k] = kill[k] = defs[k] = 0;
  uint32_t at = b->item[i];
  if (at == NO_POINT)
    return;
  const wave_layout_item *item = &b->layout->items[at];
  if (item->kind == WAVE_LAYOUT_IF) {
    pack_cond(lv, item, gen);
    return;
  }
  point_flags f = b->flags[i];
  const uint16_t *uses = wave_layout_uses(b->layout, item);
  const uint16_t *writes = wave_layout_defs(b->layout, item);
  if (f & CROSSES_REGIONS) {
    for (size_t k = 0; k < w; k++)
      gen[k] = everything[k];
  } else {
    pack_list(lv, uses, item->num_uses, gen);
  }
  if (item->guard == WAVE_NO_GUARD || f & PAIR_KILL)
    pack_list(lv, writes, item->num_defs, kill);
  /* The first of a pair reads its registers only through its guard (pair_defines), for lanes
   * that the second one writes: not a use. Any other guarded write that reads them only through
   * its guard kills nothing, so they are live before it exactly when they are live after it:
   * as uses they would only add the old values of registers nobody reads again. */
  if (f & PAIR_KILL)
    for (size_t k = 0; k < w; k++)
      gen[k] &= ~kill[k];
  if (f & GUARD_READS_ONLY) {
    uint64_t written[WAVE_REGSET_WORDS] = {0};
    pack_list(lv, writes, item->num_defs, written);
    for (size_t k = 0; k < w; k++)
      gen[k] &= ~written[k];
  }
  if (f & REMOVABLE)
    pack_list(lv, writes, item->num_defs, defs);
  if (f & (KILLS_LANE_REGS | ENDS_LANES)) {
    for (size_t k = 0; k < w; k++) {
      if (f & KILLS_LANE_REGS)
        kill[k] &= ~other[k];
      if (f & ENDS_LANES)
        gen[k] |= other[k];
    }
  }
}

/* Whether the guarded instruction a and the next one of its block, b, write the same registers
 * in every lane between them: b is guarded by the same predicate with the opposite polarity, a
 * does not write that predicate (b's guard then selects exactly the lanes a's left out), and
 * neither reads those registers through an operand (a lane of either side would read the value
 * from before the pair). Only the guards' own reads of the registers remain, and every lane
 * overwrites what they keep. Asked of two adjacent items, and of the instructions only when the
 * layout already shows the same guard and destinations, it keeps the walk linear. */
static bool pair_defines(const wave_layout *layout, const wave_layout_item *a,
                         const wave_layout_item *b) {
  if (a->guard == WAVE_NO_GUARD || a->guard != b->guard || a->guard >= WAVE_NUM_PREDS ||
      a->num_defs == 0 || a->num_defs != b->num_defs)
    return false;
  /* Calls and returns leave for code the analysis does not see together with this one. */
  if (a->op == WAVE_OP_CALL || a->op == WAVE_OP_RETURN || b->op == WAVE_OP_CALL ||
      b->op == WAVE_OP_RETURN)
    return false;
  const uint16_t *defs = wave_layout_defs(layout, a);
  if (memcmp(defs, wave_layout_defs(layout, b), a->num_defs * sizeof(*defs)) != 0)
    return false;
  wave_regset written = wave_regset_empty();
  wave_regset_add_list(&written, defs, a->num_defs);
  if (wave_regset_test(written, WAVE_REG_PRED((unsigned)a->guard)))
    return false;
  const wave_instr *first = wave_layout_instr(a), *second = wave_layout_instr(b);
  if (wave_instr_guard_negated(first) == wave_instr_guard_negated(second))
    return false;
  wave_regset reads;
  wave_instr_operand_reads(first, &reads);
  if (wave_regset_meets_list(&reads, defs, a->num_defs))
    return false;
  wave_instr_operand_reads(second, &reads);
  return !wave_regset_meets_list(&reads, defs, a->num_defs);
}

/* Whether the guarded instruction reads none of its destinations through an operand. */
static bool reads_defs_only_by_guard(const wave_layout *layout, const wave_layout_item *item) {
  if (item->guard == WAVE_NO_GUARD || item->num_defs == 0 || item->op == WAVE_OP_CALL ||
      item->op == WAVE_OP_RETURN)
    return false;
  wave_regset reads;
  wave_instr_operand_reads(wave_layout_instr(item), &reads);
  return !wave_regset_meets_list(&reads, wave_layout_defs(layout, item), item->num_defs);
}

/* The instruction's point; pair says pair_defines holds for it and the next instruction.
 * Other-lane registers are known once the whole kernel is seen. */
static void add_instr(builder *b, const wave_layout *layout, const wave_layout_item *item,
                      bool entry_region, bool pair) {
  wave_liveness *lv = b->lv;
  const wave_instr *instr = wave_layout_instr(item);
  bool guarded = item->guard != WAVE_NO_GUARD;
  bool ends = ends_lanes(item->op, entry_region);
  /* Lanes leave a call for the callee and a return for some caller: from neither does text
   * order say where they go. */
  bool crosses = item->op == WAVE_OP_CALL || (item->op == WAVE_OP_RETURN && !entry_region);
  bool removable = b->strong && wave_opcode_can_speculate((wave_opcode)item->op);
  point_flags flags =
      (point_flags)((guarded || !ends ? FALLS : 0) | (crosses ? CROSSES_REGIONS : 0) |
                    (ends ? ENDS_LANES : 0) | (pair ? PAIR_KILL : 0) |
                    (!pair && reads_defs_only_by_guard(layout, item) ? GUARD_READS_ONLY : 0) |
                    ((!guarded || pair) && item->depth > 0 ? KILLS_LANE_REGS : 0) |
                    (removable ? REMOVABLE : 0) | (b->strong ? INSTR : 0));
  uint32_t i = add_point(b, flags);
  if (i == NO_POINT)
    return;
  if (!grow_pair(lv->allocator, (void **)&lv->instr_keys, (void **)&lv->instr_points,
                 &b->cap_instrs, lv->num_instrs + 1, sizeof(void *), sizeof(uint32_t))) {
    b->failed = true;
    return;
  }
  lv->instr_keys[lv->num_instrs] = instr;
  lv->instr_points[lv->num_instrs++] = i;
  const open_construct *loop =
      item->op == WAVE_OP_BREAK || item->op == WAVE_OP_CONTINUE ? innermost_loop(b) : NULL;
  if (loop && item->op == WAVE_OP_CONTINUE)
    jump(b, i, loop->head);
  else if (loop) {
    /* Its exit is the point after the endloop, not known yet. */
    if (!wave_grow(lv->allocator, (void **)&b->breaks, &b->cap_breaks, b->num_breaks + 1,
                   sizeof(uint32_t))) {
      b->failed = true;
      return;
    }
    b->breaks[b->num_breaks++] = i;
  }
  b->item[i] = (uint32_t)(item - layout->items);
  /* The flag says which opcodes have such reads; asking only those keeps the walk fast. */
  if (wave_opcode_has((wave_opcode)item->op, WAVE_F_OTHER_LANES)) {
    wave_regset other;
    wave_instr_other_lane_uses(instr, &other);
    b->other_lanes = wave_regset_union(b->other_lanes, other);
  }
}

/* The region's points from its statements in the layout, *at to the region's end; *at is left
 * after it. */
static void flatten_region(builder *b, const wave_layout *layout, const wave_layout_item **at,
                           bool entry_region) {
  const wave_layout_item *item = *at;
  for (; !b->failed && item->kind != WAVE_LAYOUT_END_REGION; item++) {
    const wave_node *n = wave_layout_node(item);
    wave_liveness *lv = b->lv;
    uint32_t i;
    switch ((wave_layout_kind)item->kind) {
    case WAVE_LAYOUT_BLOCK: {
      uint32_t first = (uint32_t)lv->num_points;
      for (uint32_t k = item->count; k > 0 && !b->failed; k--) {
        item++;
        add_instr(b, layout, item, entry_region, k > 1 && pair_defines(layout, item, item + 1));
      }
      add_node(b, n, first, (uint32_t)lv->num_points, first);
      break;
    }
    case WAVE_LAYOUT_INSTR:   /* met inside its block */
    case WAVE_LAYOUT_END_REGION:
    case WAVE_LAYOUT_KINDS:
      break;
    case WAVE_LAYOUT_IF:
      i = add_point(b, (point_flags)(FALLS | (b->strong ? IF_HEAD : 0)));
      if (i != NO_POINT && open_construct_push(b, i, false)) {
        b->item[i] = (uint32_t)(item - layout->items);
        uint64_t cond[WAVE_REGSET_WORDS] = {0};
        if (!pack_cond(lv, item, cond))
          b->too_narrow = true;
      }
      break;
    case WAVE_LAYOUT_LOOP:
      i = add_point(b, FALLS | LOOP_HEAD);
      if (i == NO_POINT || !open_construct_push(b, i, true))
        break;
      if (!wave_grow(lv->allocator, (void **)&b->loops, &b->cap_loops, b->num_loops + 1,
                     sizeof(loop_span))) {
        b->failed = true;
        break;
      }
      b->aux[i] = (uint32_t)b->num_loops;
      b->loops[b->num_loops++] = (loop_span){i, NO_POINT};
      break;
    case WAVE_LAYOUT_ELSE:
      i = add_point(b, 0);
      if (i != NO_POINT)
        b->stack[b->depth - 1].els = i;
      break;
    case WAVE_LAYOUT_ENDIF: {
      open_construct c = b->stack[--b->depth];
      i = add_point(b, (point_flags)(FALLS | (b->strong ? IF_END : 0)));
      if (i == NO_POINT)
        break;
      jump(b, c.head, c.els + 1);
      jump(b, c.els, i);
      if (c.els + 1 != i)
        b->flags[c.els] |= FALLS | OTHER_LANE_FALL;
      add_node(b, n, c.head, i + 1, c.els);
      break;
    }
    case WAVE_LAYOUT_ENDLOOP: {
      open_construct c = b->stack[--b->depth];
      i = add_point(b, LOOP_END);
      if (i == NO_POINT)
        break;
      b->aux[i] = b->aux[c.head];
      b->loops[b->aux[i]].end = i;
      for (size_t k = c.breaks; k < b->num_breaks; k++)
        jump(b, b->breaks[k], i + 1);
      b->num_breaks = c.breaks;
      add_node(b, n, c.head, i + 1, i);
      break;
    }
    }
  }
  *at = item + 1;
}

/* Room for every point, instruction, node and loop the layout says there will be: one
 * allocation each instead of doublings. */
static void presize(builder *b, const wave_layout *layout) {
  wave_liveness *lv = b->lv;
  const size_t *count = layout->count;
  size_t points = layout->num_items - count[WAVE_LAYOUT_BLOCK] + 1;
  size_t nodes = count[WAVE_LAYOUT_BLOCK] + count[WAVE_LAYOUT_IF] + count[WAVE_LAYOUT_LOOP] + 1;
  size_t instrs = count[WAVE_LAYOUT_INSTR] + 1, loops = count[WAVE_LAYOUT_LOOP] + 1;
  const wave_allocator *a = lv->allocator;
  if (!resize(a, (void **)&b->flags, points, sizeof(point_flags)) ||
      !resize(a, (void **)&b->aux, points, sizeof(uint32_t)) ||
      !resize(a, (void **)&b->item, points, sizeof(uint32_t)) ||
      !resize(a, (void **)&lv->instr_keys, instrs, sizeof(void *)) ||
      !resize(a, (void **)&lv->instr_points, instrs, sizeof(uint32_t)) ||
      !resize(a, (void **)&lv->node_keys, nodes, sizeof(void *)) ||
      !resize(a, (void **)&lv->spans, nodes, sizeof(node_span)) ||
      !resize(a, (void **)&b->loops, loops, sizeof(loop_span))) {
    b->failed = true;
    return;
  }
  b->cap_points = points;
  b->cap_instrs = instrs;
  b->cap_nodes = nodes;
  b->cap_loops = loops;
}

/* ---- the fixpoint --------------------------------------------------------------------------- */

/* Point i's live-out and live-in from its successors' live-ins; whether its live-in grew. A
 * REMOVABLE point none of whose results is live after it counts as absent: live-in is
 * live-out; so does an IF_HEAD point when `idle` (nothing in its if is needed). *needed says
 * whether the point counted. */
static bool transfer(wave_liveness *lv, const builder *b, size_t i, const uint64_t *other,
                     const uint64_t *everything, bool idle, bool *needed_out) {
  size_t w = lv->words;
  point_flags f = b->flags[i];
  const uint64_t *fall = &lv->in[(i + 1) * w];
  const uint64_t *jump = f & LOOP_END   ? &lv->in[(size_t)b->loops[b->aux[i]].head * w]
                         : f & JUMPS    ? &lv->in[(size_t)b->aux[i] * w]
                                        : NULL;
  uint64_t gen[WAVE_REGSET_WORDS], kill[WAVE_REGSET_WORDS], defs[WAVE_REGSET_WORDS];
  point_sets(lv, b, i, other, everything, gen, kill, defs);
  uint64_t *out = &lv->out[i * w], *in = &lv->in[i * w];
  uint64_t needed = f & REMOVABLE || idle ? 0 : 1;
  for (size_t k = 0; k < w; k++) {
    uint64_t live_out = f & CROSSES_REGIONS ? everything[k] : 0;
    if (f & FALLS)
      live_out |= f & OTHER_LANE_FALL ? fall[k] & other[k] : fall[k];
    if (jump)
      live_out |= jump[k];
    out[k] = live_out;
    if (f & REMOVABLE)
      needed |= live_out & defs[k];
  }
  bool grew = false;
  for (size_t k = 0; k < w; k++) {
    uint64_t live_in = needed ? gen[k] | (out[k] & ~kill[k]) : out[k];
    grew |= live_in != in[k];
    in[k] = live_in;
  }
  *needed_out = needed != 0;
  return grew;
}

/* Strong liveness's ifs, open in the reverse sweep (an endif opens one, its if closes it):
 * whether something inside each is needed so far. An if none of whose contents is needed reads
 * its predicate for nothing: dce removes it with its contents, and the compare that computes
 * the predicate goes in the same sweep (LLVM's ADCE does the same with control dependence). A
 * loop inside counts as needed: it may not end, and dce keeps loops. Being needed only grows
 * as the sets grow, so the equations stay monotone. A loop swept again restarts at its
 * endloop, where the ifs open around it are the same as at its head. */
typedef struct open_ifs {
  bool *needed;
  size_t depth, cap;
} open_ifs;

static bool open_if(const wave_allocator *a, open_ifs *o) {
  if (!wave_grow(a, (void **)&o->needed, &o->cap, o->depth + 1, sizeof(bool)))
    return false;
  o->needed[o->depth++] = false;
  return true;
}

static void mark_needed(open_ifs *o) {
  if (o->depth)
    o->needed[o->depth - 1] = true;
}

/* The least fixpoint, by sweeps in reverse text order. Every edge leads to a later point but
 * endloop's and continue's, which go back to their loop's head; so one sweep settles all the
 * rest, and a loop is swept again while its head's set grows. A loop's sets depend on the code
 * outside it only through its exit, the point after its endloop (its breaks lead there; calls
 * and ends add fixed sets), so a loop whose exit holds what it held when the loop last settled
 * is skipped whole. Nested loops are thus swept again only when something new reaches them,
 * and a nest 100 000 deep costs about what a flat kernel of its size costs. */
static bool solve(wave_liveness *lv, const builder *b, const uint64_t *other,
                  const uint64_t *everything) {
  size_t w = lv->words, depth = 0;
  const wave_allocator *a = lv->allocator;
  uint32_t *open = wave_mem_alloc(a, b->num_loops * sizeof(uint32_t) + 1);
  uint64_t *settled_exit = wave_mem_alloc(a, b->num_loops * w * sizeof(uint64_t) + 1);
  bool *settled = wave_mem_calloc(a, b->num_loops + 1, sizeof(bool));
  open_ifs ifs = {0};
  bool ok = open && settled_exit && settled;
  for (size_t i = lv->num_points; ok && i-- > 0;) {
    point_flags f = b->flags[i];
    uint32_t l = b->aux[i];
    if (f & IF_END && !(ok = open_if(a, &ifs)))
      break;
    if (f & (LOOP_END | LOOP_HEAD))
      mark_needed(&ifs);
    bool idle = false;
    if (f & IF_HEAD)
      idle = !ifs.needed[--ifs.depth];
    if (f & LOOP_END) {
      const uint64_t *exit = &lv->in[(i + 1) * w];
      if (settled[l] && memcmp(exit, &settled_exit[l * w], w * sizeof(uint64_t)) == 0) {
        i = b->loops[l].head;
        continue;
      }
      if (depth == 0 || open[depth - 1] != l) {
        open[depth++] = l;
        settled[l] = false;
      }
    }
    bool needed;
    bool grew = transfer(lv, b, i, other, everything, idle, &needed);
    if (needed && f & (INSTR | IF_HEAD))
      mark_needed(&ifs);
    if (f & LOOP_HEAD) {
      if (grew) {
        i = (size_t)b->loops[l].end + 1;
        continue;
      }
      depth--;
      settled[l] = true;
      memcpy(&settled_exit[l * w], &lv->in[((size_t)b->loops[l].end + 1) * w],
             w * sizeof(uint64_t));
    }
  }
  wave_mem_free(a, open);
  wave_mem_free(a, settled_exit);
  wave_mem_free(a, settled);
  wave_mem_free(a, ifs.needed);
  return ok;
}

/* Flattens the kernel, solves, and indexes the result with sets packed for `registers` GPRs;
 * NULL with *too_narrow set when a register does not fit. */
static wave_liveness *compute_packed(const wave_kernel *kernel, const wave_layout *layout,
                                     bool strong, uint64_t registers, bool *too_narrow) {
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  *too_narrow = false;
  wave_liveness *lv = wave_mem_calloc(a, 1, sizeof(*lv));
  if (!lv)
    return NULL;
  lv->kernel = kernel;
  lv->allocator = a;
  set_layout(lv, registers);
  for (unsigned r = 0; r < wave_kernel_registers(kernel) && r <= WAVE_MAX_GPR; r++)
    wave_regset_set(&lv->everything, WAVE_REG_GPR(r));
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    wave_regset_set(&lv->everything, WAVE_REG_PRED(p));
  builder b = {.lv = lv, .layout = layout, .strong = strong};
  /* Every instruction's registers are in the layout's one array: a scan of it says whether
   * they all fit, for point_sets to pack them unchecked. */
  b.too_narrow = !list_fits(lv, layout->regs, layout->num_regs);
  size_t cap_regions = 0;
  presize(&b, layout);
  const wave_layout_item *at = layout->items;
  wave_foreach_region(region, kernel) {
    flatten_region(&b, layout, &at, region == wave_kernel_first_region(kernel));
    uint32_t end = b.failed ? NO_POINT : add_point(&b, 0);
    if (end != NO_POINT && wave_region_next(region))
      b.flags[end] |= FALLS;
    if (!b.failed && !wave_grow(a, (void **)&lv->region_ends, &cap_regions, lv->num_regions + 1,
                                sizeof(uint32_t)))
      b.failed = true;
    if (b.failed)
      break;
    lv->region_ends[lv->num_regions++] = end;
  }
  uint64_t other[WAVE_REGSET_WORDS], everything[WAVE_REGSET_WORDS];
  if (!b.failed && (!pack(lv, &b.other_lanes, other) || !pack(lv, &lv->everything, everything)))
    b.too_narrow = true;
  bool ok = !b.failed && !b.too_narrow;
  ok = ok &&
       (lv->in = wave_calloc_huge(a, lv->num_points * lv->words + 1, sizeof(uint64_t))) != NULL &&
       (lv->out = wave_calloc_huge(a, lv->num_points * lv->words + 1, sizeof(uint64_t))) != NULL &&
       wave_key_index_build(&lv->instr_index, lv->allocator, lv->instr_keys, lv->num_instrs) &&
       wave_key_index_build(&lv->node_index, lv->allocator, lv->node_keys, lv->num_nodes) &&
       solve(lv, &b, other, everything);
  wave_mem_free(a, b.flags);
  wave_mem_free(a, b.aux);
  wave_mem_free(a, b.loops);
  wave_mem_free(a, b.item);
  wave_mem_free(a, b.stack);
  wave_mem_free(a, b.breaks);
  *too_narrow = b.too_narrow;
  lv->other_lanes = b.other_lanes;
  if (!ok) {
    wave_liveness_destroy(lv);
    return NULL;
  }
  return lv;
}

/* The result from the kernel's layout. */
static wave_liveness *liveness_compute(const wave_kernel *kernel, const wave_layout *layout,
                                       bool strong) {
  bool too_narrow;
  wave_liveness *lv =
      compute_packed(kernel, layout, strong, wave_kernel_registers(kernel), &too_narrow);
  return lv || !too_narrow ? lv
                           : compute_packed(kernel, layout, strong, WAVE_MAX_GPR + 1, &too_narrow);
}

static wave_liveness *compute_from_scratch(const wave_kernel *kernel, bool strong) {
  wave_layout *layout = wave_layout_build(kernel, NULL);
  wave_liveness *lv = layout ? liveness_compute(kernel, layout, strong) : NULL;
  wave_layout_destroy(layout);
  return lv;
}

wave_liveness *wave_liveness_compute(const wave_kernel *kernel) {
  return compute_from_scratch(kernel, false);
}

wave_liveness *wave_strong_liveness_compute(const wave_kernel *kernel) {
  return compute_from_scratch(kernel, true);
}

void wave_liveness_destroy(wave_liveness *lv) {
  if (!lv)
    return;
  const wave_allocator *a = lv->allocator;
  wave_mem_free(a, lv->in);
  wave_mem_free(a, lv->out);
  wave_mem_free(a, lv->instr_keys);
  wave_mem_free(a, lv->instr_points);
  wave_key_index_free(&lv->instr_index);
  wave_mem_free(a, lv->node_keys);
  wave_mem_free(a, lv->spans);
  wave_key_index_free(&lv->node_index);
  wave_mem_free(a, lv->region_ends);
  wave_mem_free(a, lv);
}

/* ---- queries -------------------------------------------------------------------------------- */

static wave_regset set_at(const wave_liveness *lv, const uint64_t *sets, uint32_t i) {
  return unpack(lv, &sets[(size_t)i * lv->words]);
}

/* The instruction's place in text order, tried first at *guess, which it updates. */
static uint32_t instr_point_near(const wave_liveness *lv, const wave_instr *instr, size_t *guess) {
  size_t k = *guess;
  if (k >= lv->num_instrs || lv->instr_keys[k] != instr)
    k = wave_key_index_find(&lv->instr_index, instr);
  *guess = k;
  return k == WAVE_KEY_NOT_FOUND ? NO_POINT : lv->instr_points[k];
}

static uint32_t instr_point(const wave_liveness *lv, const wave_instr *instr) {
  size_t k = wave_key_index_find(&lv->instr_index, instr);
  return k == WAVE_KEY_NOT_FOUND ? NO_POINT : lv->instr_points[k];
}

static const node_span *find_node(const wave_liveness *lv, const wave_node *node) {
  size_t k = wave_key_index_find(&lv->node_index, node);
  return k == WAVE_KEY_NOT_FOUND ? NULL : &lv->spans[k];
}

wave_regset wave_liveness_in(const wave_liveness *lv, const wave_instr *instr) {
  uint32_t p = instr_point(lv, instr);
  return p == NO_POINT ? lv->everything : set_at(lv, lv->in, p);
}

wave_regset wave_liveness_out(const wave_liveness *lv, const wave_instr *instr) {
  uint32_t p = instr_point(lv, instr);
  return p == NO_POINT ? lv->everything : set_at(lv, lv->out, p);
}

wave_regset wave_liveness_in_near(const wave_liveness *lv, const wave_instr *instr, size_t *place) {
  uint32_t p = instr_point_near(lv, instr, place);
  return p == NO_POINT ? lv->everything : set_at(lv, lv->in, p);
}

wave_regset wave_liveness_out_near(const wave_liveness *lv, const wave_instr *instr,
                                   size_t *place) {
  uint32_t p = instr_point_near(lv, instr, place);
  return p == NO_POINT ? lv->everything : set_at(lv, lv->out, p);
}

/* The point whose live-in is live at the end of an empty or finished list. */
static uint32_t list_end_point(const wave_liveness *lv, const wave_node_list *list) {
  if (!wave_node_list_parent(list)) {
    size_t r = 0;
    wave_foreach_region(region, lv->kernel) {
      if (wave_region_body(region) == list)
        return r < lv->num_regions ? lv->region_ends[r] : NO_POINT;
      r++;
    }
    return NO_POINT;
  }
  const node_span *s = find_node(lv, wave_node_list_parent(list));
  if (!s)
    return NO_POINT;
  if (wave_node_kind_of(wave_node_list_parent(list)) == WAVE_NODE_IF &&
      list == wave_if_then(wave_node_list_parent(list)))
    return s->mid;
  return s->after - 1;  /* the endif or endloop marker */
}

static uint32_t node_point(const wave_liveness *lv, const wave_node *node, bool after) {
  const node_span *s = find_node(lv, node);
  if (!s)
    return NO_POINT;
  if (!after)
    return s->first;
  /* The last node of a then-list or loop body is followed by its list's end marker. */
  return wave_node_next(node) || !wave_node_list_of(node)
             ? s->after
             : list_end_point(lv, wave_node_list_of(node));
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
    p = wave_node_list_first(at.at.list) ? node_point(lv, wave_node_list_first(at.at.list), false)
                                         : list_end_point(lv, at.at.list);
    break;
  case WAVE_CURSOR_LIST_END:
    p = list_end_point(lv, at.at.list);
    break;
  }
  return p < lv->num_points ? set_at(lv, lv->in, p) : lv->everything;
}

wave_regset wave_liveness_across(const wave_liveness *lv, const wave_node *node) {
  uint32_t before = node_point(lv, node, false), after = node_point(lv, node, true);
  if (before >= lv->num_points || after >= lv->num_points)
    return lv->everything;
  return wave_regset_intersect(set_at(lv, lv->in, before), set_at(lv, lv->in, after));
}

wave_regset wave_liveness_free(const wave_liveness *lv, wave_cursor at) {
  return wave_regset_subtract(lv->everything, wave_liveness_at(lv, at));
}

wave_regset wave_liveness_other_lanes(const wave_liveness *lv) { return lv->other_lanes; }

bool wave_liveness_equal(const wave_liveness *a, const wave_liveness *b) {
  size_t n = a->num_points;
  if (n != b->num_points)
    return false;
  if (a->gprs == b->gprs)
    return memcmp(a->in, b->in, n * a->words * sizeof(uint64_t)) == 0 &&
           memcmp(a->out, b->out, n * a->words * sizeof(uint64_t)) == 0;
  for (uint32_t i = 0; i < n; i++)
    if (!wave_regset_equal(set_at(a, a->in, i), set_at(b, b->in, i)) ||
        !wave_regset_equal(set_at(a, a->out, i), set_at(b, b->out, i)))
      return false;
  return true;
}

/* ---- the analysis ------------------------------------------------------------------------- */

static void *compute_with(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags,
                          bool strong) {
  const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
  wave_liveness *lv = layout ? liveness_compute(kernel, layout, strong) : NULL;
  if (!lv)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0,
                     "out of memory computing %sliveness of kernel '%s'", strong ? "strong " : "",
                     wave_kernel_name(kernel));
  return lv;
}

static void *compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  return compute_with(kernel, am, diags, false);
}

static void *compute_strong(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  return compute_with(kernel, am, diags, true);
}

static void destroy(void *result) { wave_liveness_destroy(result); }

static bool equal(const void *a, const void *b) { return wave_liveness_equal(a, b); }

typedef struct listing {
  const wave_liveness *lv;
  size_t next;              /* instructions come in text order */
} listing;

/* "live: r0 r4 p1", the registers live after the instruction. */
static const char *live_after(void *ctx, const wave_instr *instr, char *buf, size_t size) {
  listing *l = ctx;
  wave_regset out = wave_liveness_out_near(l->lv, instr, &l->next);
  l->next++;
  size_t len = (size_t)snprintf(buf, size, "live:");
  for (unsigned r = 0; r < WAVE_NUM_REGS && len < size; r++) {
    if (!wave_regset_test(out, r))
      continue;
    bool pred = r > WAVE_MAX_GPR;
    len += (size_t)snprintf(buf + len, size - len, pred ? " p%u" : " r%u",
                            pred ? r - (WAVE_MAX_GPR + 1) : r);
  }
  return buf;
}

/* The kernel, each instruction followed by the registers live after it. */
static int print(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx) {
  listing l = {result, 0};
  wave_annotator a = {.ctx = &l, .instr = live_after};
  return wave_print_annotated(kernel, &a, write, ctx);
}

const wave_analysis_info wave_analysis_liveness = {
    .name = "liveness",
    .help = "GPRs and predicates live at every point, per lane",
    .compute = compute,
    .destroy = destroy,
    .equal = equal,
    .print = print,
};

const wave_analysis_info wave_analysis_strong_liveness = {
    .name = "strong-liveness",
    .help = "liveness counting only the reads of instructions whose results are needed",
    .compute = compute_strong,
    .destroy = destroy,
    .equal = equal,
    .print = print,
};
