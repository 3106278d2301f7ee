/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wavegen: random kernels that are valid, terminate and have no undefined behaviour, built with
 * the IR builder. Each hazard is ruled out by construction rather than filtered afterwards:
 *
 * - Memory: every address is base + (x & mask) (or base + ((x & mask) << s)), the mask keeping
 *   the access inside one window: the read-only input area, the lane's own device slot, the
 *   lane's own local slot, or the shared counters. Lanes store only into their own slots, and
 *   every shared counter receives one commutative atomic operation whose old value is not used
 *   (unless races are allowed), so the final memory does not depend on lane order.
 * - Loops: on entry a counter register gets a small lane-dependent or uniform bound
 *   (x & 7 or x & 3); the body starts by leaving when the counter is below 1 and decrementing
 *   it, before any other break or continue. Nothing else writes counters, so each loop ends.
 *   A counted loop (a shape, below) instead sets its counter to a constant S <= N + 1 right
 *   before the loop, N being the bound r27; its body starts by leaving once the counter
 *   reaches (or passes) N and ends by adding r7 = 1 to it, and holds no continue, no loop and
 *   no other write of the counter, so it ends after at most N - S + 1 iterations.
 * - Division: the divisor is `or`ed with 1. Clamps: the bounds come from imin/imax. fclamp
 *   (NaN bounds) is never used.
 * - Barriers and local-memory exchanges: only at the kernel's top level and before the first
 *   halt, so every thread of the workgroup reaches each one. With divergent_barriers also in
 *   ifs and loops (still before the first halt in the text, and halts then stay out of loops,
 *   so that no barrier runs after a halt): barrier divergence is then possible on purpose,
 *   while a barrier reached by every thread that has not ended never waits for a wave whose
 *   threads all ended.
 * - Halts: only inside an if or guarded, each after the lane has stored all its registers.
 *   One shape (gen_exit_before_convergent) halts a few lanes of a uniform if or loop at the
 *   top level right before a shuffle, a wave operation or a barrier: never lane 0 of a wave,
 *   so every wave still reaches the barrier, and a shuffle there reads the halted lanes'
 *   registers as they were left, which nothing after the halt writes.
 * - Wave width: without wave operations no W-dependent special register is read. Shuffles and
 *   broadcasts (which read other lanes' registers even when inactive) appear only where every
 *   lane is active: at the top level before any halt. Reductions, scans, votes and ballots
 *   see active lanes only and appear anywhere.
 *
 * Shapes for the optimization passes (see "shapes the optimization passes rewrite" below) are
 * mixed in among the random statements and keep the same rules: their ifs only wrap what the
 * rules already allow, their breaks and continues come after a loop's counter exit, and an
 * if whose condition is "divisor != 0" is the only thing that keeps its division defined.
 *
 * Register roles (fixed, so passes see realistic argument and pointer registers):
 *   r0 input area, r1 output area, r2 shared counters, r3 r4 uniform arguments (preset),
 *   r5 own output slot, r6 own local slot, r7 the constant 1, r8 r9 address temporaries,
 *   r10..r12 loop counters (one per loop nesting level), r13..r26 values, r27 the bound of
 *   counted loops (a constant from 20 to 83, written once, in the prologue).
 *
 * Recursion: gen_list recurses once per if/loop level it opens; the level is capped at
 * options->max_depth <= WAVE_GEN_MAX_DEPTH, so the C stack stays small and bounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/code.h"
#include "support/strbuf.h"
#include "waveopt/gen.h"
#include "waveopt/waveopt.h"

enum {
  R_IN = 0, R_OUT = 1, R_ATOM = 2, R_ARG_A = 3, R_ARG_B = 4,
  R_SLOT = 5, R_LSLOT = 6, R_ONE = 7, R_T0 = 8, R_T1 = 9,
  R_COUNTER = 10, MAX_LOOP_NEST = 3,
  R_POOL = 13, POOL_SIZE = 14,
  R_BOUND = R_POOL + POOL_SIZE,
  NUM_REGS = R_BOUND + 1,
};
_Static_assert(NUM_REGS % 4 == 0, "registers are dumped four at a time");

enum {
  IN_BASE = 0, IN_BYTES = 2048,
  ATOM_BASE = 2048, ATOM_BYTES = 64,
  OUT_BASE = 4096, SLOT_BYTES = 256, SCRATCH_BYTES = 64, DUMP_OFFSET = 64,
  LSLOT_BYTES = 64,
  MAX_HALTS = 2,
};
_Static_assert(DUMP_OFFSET + 4 * (NUM_REGS + WAVE_NUM_PREDS) <= SLOT_BYTES, "slot too small");

/* Workgroup shapes: partial waves at every width, and multi-dimensional thread ids. */
static const uint32_t shapes[][3] = {
    {32, 1, 1}, {48, 1, 1}, {64, 1, 1}, {24, 1, 1}, {40, 1, 1},
    {8, 4, 1},  {12, 3, 1}, {4, 4, 3},  {20, 1, 1}, {16, 2, 2},
};

typedef struct gen {
  wave_module *module;
  wave_builder b;         /* where the next statement goes */
  const wave_gen_options *opt;
  uint64_t rng;
  unsigned emitted;       /* instructions so far */
  unsigned num_preds;     /* predicates the kernel may use: p0..p(num_preds-1) */
  unsigned threads;       /* per workgroup */
  unsigned halts;
  bool halted;            /* a halt has been emitted: no barrier or shuffle may follow */
  unsigned loop_nest;     /* loops around the current position */
  uint32_t bound;         /* R_BOUND's value */
  bool failed;            /* out of memory */
  /* While set, every instruction emitted is also appended here (up to record_cap), so that a
   * shape can repeat it elsewhere. */
  wave_instr **record;
  unsigned num_recorded, record_cap;
} gen;

/* ---- randomness (splitmix64: tiny state, good enough, identical on every host) ---------- */

static uint64_t next(gen *g) {
  uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static unsigned below(gen *g, unsigned n) { return (unsigned)(next(g) % n); }
static bool chance(gen *g, unsigned percent) { return below(g, 100) < percent; }
#define PICK(g, table) (table)[below((g), sizeof(table) / sizeof((table)[0]))]

/* Picks an index by weight; the weights must not all be zero. */
static unsigned pick_weighted(gen *g, const unsigned *weight, unsigned n) {
  unsigned total = 0;
  for (unsigned i = 0; i < n; i++)
    total += weight[i];
  unsigned r = below(g, total);
  unsigned s = 0;
  while (r >= weight[s])
    r -= weight[s++];
  return s;
}

/* ---- emission ------------------------------------------------------------------------------ */

/* Counts what the builder returned; after the first failure nothing more is built, so the
 * kernel is dropped as a whole rather than missing a statement somewhere. */
static wave_instr *emitted(gen *g, wave_instr *instr) {
  if (!instr) {
    g->failed = true;
    return NULL;
  }
  g->emitted++;
  if (g->record && g->num_recorded < g->record_cap)
    g->record[g->num_recorded++] = instr;
  return instr;
}

/* C leaves the order of evaluation of call arguments and initializer elements unspecified:
 * at most one random choice may appear in the arguments of one EMIT, or the kernel for a seed
 * would depend on the compiler. */
#define EMIT(g, op, ...) emitted((g), (g)->failed ? NULL : wave_build(&(g)->b, (op), __VA_ARGS__))
#define EMIT0(g, op) emitted((g), (g)->failed ? NULL : wave_build_instr(&(g)->b, (op), 0, NULL))

static void emit_guarded(gen *g, wave_opcode op, int guard, bool negated, unsigned n,
                         const wave_operand *ops) {
  wave_instr *instr = emitted(g, g->failed ? NULL : wave_build_instr(&g->b, op, n, ops));
  if (instr)
    wave_instr_set_guard(instr, guard, negated);
}

/* Appends copies of `instrs` at the cursor. */
static void emit_copies(gen *g, wave_instr *const *instrs, unsigned n) {
  for (unsigned i = 0; i < n && !g->failed; i++) {
    wave_instr *copy = wave_instr_clone(g->module, instrs[i]);
    if (!copy || !wave_instr_insert(g->module, g->b.cursor, copy)) {
      g->failed = true;
      return;
    }
    g->emitted++;
    g->b.cursor = wave_cursor_after_instr(copy);
  }
}

static wave_operand R(unsigned r) { return wave_gpr(r); }

/* The omitted destination of an atomic that returns nothing. */
static wave_operand NO_DEST(void) {
  wave_operand o = {0};
  o.kind = WAVE_OPERAND_NONE;
  return o;
}
static wave_operand P(unsigned p) { return wave_pred(p); }

static void mov_imm(gen *g, unsigned rd, uint32_t value) {
  EMIT(g, WAVE_OP_MOV_IMM, R(rd), wave_imm(value));
}

/* ---- operand choice ------------------------------------------------------------------------ */

static unsigned pool_reg(gen *g) { return R_POOL + below(g, POOL_SIZE); }

/* A pool register that may start a register pair (its partner stays in the pool). */
static unsigned pool_pair(gen *g) { return R_POOL + below(g, POOL_SIZE - 1); }

/* A register pair to read: values, or the two uniform arguments r3:r4. */
static unsigned pair_src(gen *g) { return chance(g, 15) ? R_ARG_A : pool_pair(g); }

/* A register to read as a value: mostly computed values, sometimes arguments, pointers,
 * constants or a live loop counter. */
static unsigned src_reg(gen *g) {
  unsigned r = below(g, 20);
  if (r < 15)
    return pool_reg(g);
  if (r < 17)
    return r == 15 ? R_ARG_A : R_ARG_B;
  if (r == 17)
    return R_ONE;
  if (r == 18 && g->loop_nest > 0)
    return R_COUNTER + below(g, g->loop_nest);
  return R_SLOT;
}

/* A value register to read other than `avoid`, a pool register. */
static unsigned src_reg_except(gen *g, unsigned avoid) {
  unsigned r = src_reg(g);
  return r == avoid ? R_ONE : r;
}

static unsigned any_pred(gen *g) { return below(g, g->num_preds); }

/* A guard for pure work: p1..p3 only, never p0 (docs/toolchain.md "Rules our output keeps"). */
static int pick_guard(gen *g, bool *negated) {
  *negated = chance(g, 40);
  return chance(g, 18) ? (int)(1 + below(g, g->num_preds - 1)) : WAVE_NO_GUARD;
}

static uint32_t small_or_wild(gen *g) {
  static const uint32_t specials[] = {0, 1, 2, 3, 4, 7, 8, 31, 32, 0x7FFFFFFF, 0x80000000,
                                      0xFFFFFFFF, 0xFFFFFFFE, 0x3F800000, 0xBF800000, 100};
  return chance(g, 60) ? PICK(g, specials) : (uint32_t)next(g);
}

/* Emits op with a random guard, turning register reads into immediates here and there in the
 * documentation dialect (but never a clamp's bounds: their order is what makes it safe). */
static void emit_pure(gen *g, wave_opcode op, unsigned n, wave_operand *ops) {
  if (g->opt->docs_dialect) {
    for (unsigned s = 0; s < (op == WAVE_OP_ICLAMP ? 2 : n); s++)
      if (ops[s].kind == WAVE_OPERAND_GPR && wave_opcode_accepts_docs_immediate(op, s) &&
          chance(g, 20))
        ops[s] = wave_imm(chance(g, 70) ? below(g, 40) : small_or_wild(g));
  }
  bool negated;
  int guard = pick_guard(g, &negated);
  emit_guarded(g, op, guard, negated, n, ops);
}

/* ---- address computation ------------------------------------------------------------------- */

typedef enum window { WIN_INPUT, WIN_SLOT, WIN_LOCAL } window;

/* R_T0 = base + offset with offset derived from src and always inside the window for an
 * access of `bytes` bytes aligned to `bytes` (unaligned u8 accesses come for free). */
static void gen_address(gen *g, window win, unsigned bytes, unsigned src) {
  static const unsigned bases[] = {R_IN, R_SLOT, R_LSLOT};
  static const uint32_t sizes[] = {IN_BYTES, SCRATCH_BYTES, LSLOT_BYTES};
  uint32_t span = sizes[win];
  unsigned shift = bytes == 8 ? 3 : bytes == 4 ? 2 : bytes == 2 ? 1 : 0;
  if (shift && chance(g, 40)) {
    /* base + ((x & (span/bytes - 1)) << log2(bytes)) */
    mov_imm(g, R_T0, span / bytes - 1);
    EMIT(g, WAVE_OP_AND, R(R_T0), R(src), R(R_T0));
    mov_imm(g, R_T1, shift);
    EMIT(g, WAVE_OP_SHL, R(R_T0), R(R_T0), R(R_T1));
  } else {
    mov_imm(g, R_T0, span - bytes);
    EMIT(g, WAVE_OP_AND, R(R_T0), R(src), R(R_T0));
  }
  EMIT(g, WAVE_OP_IADD, R(R_T0), R(bases[win]), R(R_T0));
}

/* ---- straight-line statements -------------------------------------------------------------- */

static const wave_opcode int_binary[] = {
    WAVE_OP_IADD, WAVE_OP_ISUB, WAVE_OP_IMUL, WAVE_OP_IMUL_HI, WAVE_OP_IMIN, WAVE_OP_IMAX,
    WAVE_OP_AND,  WAVE_OP_OR,   WAVE_OP_XOR,  WAVE_OP_SHL,     WAVE_OP_SHR,  WAVE_OP_SAR,
};
static const wave_opcode int_unary[] = {
    WAVE_OP_INEG, WAVE_OP_IABS, WAVE_OP_NOT, WAVE_OP_BITCOUNT, WAVE_OP_BITFIND, WAVE_OP_BITREV,
    WAVE_OP_MOV,
};
static const wave_opcode int_ternary[] = {WAVE_OP_IMAD, WAVE_OP_BFE};
static const wave_opcode float_binary[] = {
    WAVE_OP_FADD, WAVE_OP_FSUB, WAVE_OP_FMUL, WAVE_OP_FMIN,  WAVE_OP_FMAX,
    WAVE_OP_FDIV, WAVE_OP_HADD, WAVE_OP_HMUL, WAVE_OP_HADD2, WAVE_OP_BADD,
};
static const wave_opcode f64_binary[] = {WAVE_OP_DADD, WAVE_OP_DSUB, WAVE_OP_DMUL, WAVE_OP_DDIV};
static const wave_opcode float_unary[] = {
    WAVE_OP_FNEG,        WAVE_OP_FABS,        WAVE_OP_FFLOOR,      WAVE_OP_FTRUNC,
    WAVE_OP_FROUND,      WAVE_OP_FFRACT,      WAVE_OP_FSAT,        WAVE_OP_FSQRT,
    WAVE_OP_FRCP,        WAVE_OP_CVT_F32_I32, WAVE_OP_CVT_F32_U32, WAVE_OP_CVT_I32_F32,
    WAVE_OP_CVT_U32_F32, WAVE_OP_CVT_F16_F32, WAVE_OP_CVT_F32_F16,
};
static const wave_opcode real_compares[] = {
    WAVE_OP_ICMP_EQ, WAVE_OP_ICMP_NE, WAVE_OP_ICMP_LT, WAVE_OP_ICMP_LE,
    WAVE_OP_ICMP_GT, WAVE_OP_ICMP_GE, WAVE_OP_UCMP_LT, WAVE_OP_UCMP_LE,
    WAVE_OP_ICMP_LT, WAVE_OP_ICMP_EQ, WAVE_OP_FCMP_LT, WAVE_OP_FCMP_NE,
};
static const wave_opcode docs_compares[] = {
    WAVE_OP_UCMP_EQ, WAVE_OP_UCMP_NE, WAVE_OP_UCMP_GT, WAVE_OP_UCMP_GE, WAVE_OP_FCMP_GE,
};
static const wave_opcode pred_logic[] = {WAVE_OP_PAND, WAVE_OP_POR, WAVE_OP_PXOR};

/* Special registers whose value does not depend on the wave width... */
static const uint8_t sregs_w_free[] = {0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13};
/* ...and those that do (lane, wave, width, wave count). */
static const uint8_t sregs_w_dep[] = {3, 4, 14, 15};

/* d = a / divisor or a % divisor, for a divisor that is not zero wherever this runs. */
static void emit_division(gen *g, unsigned d, unsigned a, unsigned divisor) {
  wave_operand ops[3] = {R(d), R(a), R(divisor)};
  bool negated;
  int guard = pick_guard(g, &negated);
  emit_guarded(g, chance(g, 50) ? WAVE_OP_IDIV : WAVE_OP_IMOD, guard, negated, 3, ops);
}

static void gen_alu(gen *g) {
  unsigned d = pool_reg(g);
  unsigned kind = below(g, g->opt->floats ? 13 : 9);
  wave_operand ops[5];
  switch (kind) {
  case 0: case 1: case 2: case 3:
    ops[0] = R(d), ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g));
    emit_pure(g, PICK(g, int_binary), 3, ops);
    return;
  case 4:
    ops[0] = R(d), ops[1] = R(src_reg(g));
    emit_pure(g, PICK(g, int_unary), 2, ops);
    return;
  case 5:
    if (chance(g, 50)) {
      ops[0] = R(d), ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g)), ops[3] = R(src_reg(g));
      emit_pure(g, PICK(g, int_ternary), 4, ops);
    } else {
      ops[0] = R(d), ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g)), ops[3] = R(src_reg(g));
      ops[4] = R(src_reg(g));
      emit_pure(g, WAVE_OP_BFI, 5, ops);
    }
    return;
  case 6: {
    /* Division by a divisor that cannot be zero; INT_MIN / -1 is defined (wraps). */
    unsigned a = src_reg(g), b = src_reg(g);
    EMIT(g, WAVE_OP_OR, R(R_T1), R(b), R(R_ONE));
    emit_division(g, d, a, R_T1);
    return;
  }
  case 7: {
    /* A clamp whose bounds are ordered by construction. */
    unsigned a = src_reg(g), b = src_reg(g);
    EMIT(g, WAVE_OP_IMIN, R(R_T0), R(a), R(b));
    EMIT(g, WAVE_OP_IMAX, R(R_T1), R(a), R(b));
    ops[0] = R(d), ops[1] = R(src_reg(g)), ops[2] = R(R_T0), ops[3] = R(R_T1);
    emit_pure(g, WAVE_OP_ICLAMP, 4, ops);
    return;
  }
  case 8: {
    unsigned which = below(g, 3);
    if (which == 0) {
      ops[0] = R(d), ops[1] = wave_imm(small_or_wild(g));
      emit_pure(g, WAVE_OP_MOV_IMM, 2, ops);
    } else if (which == 1) {
      bool w_dep = g->opt->wave_ops && chance(g, 40);
      ops[0] = R(d);
      ops[1] = wave_sreg(w_dep ? PICK(g, sregs_w_dep) : PICK(g, sregs_w_free));
      emit_pure(g, WAVE_OP_MOV_SR, 2, ops);
    } else {
      ops[0] = R(d), ops[1] = P(any_pred(g)), ops[2] = R(src_reg(g)), ops[3] = R(src_reg(g));
      emit_pure(g, WAVE_OP_SELECT, 4, ops);
    }
    return;
  }
  case 9: case 10:
    ops[0] = R(d), ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g));
    emit_pure(g, PICK(g, float_binary), 3, ops);
    return;
  case 11: {
    /* f64 on register pairs, so that implicit second registers are exercised. */
    unsigned which = below(g, 4);
    if (which == 0) {
      ops[0] = R(pool_pair(g)), ops[1] = R(pair_src(g)), ops[2] = R(pair_src(g));
      emit_pure(g, PICK(g, f64_binary), 3, ops);
    } else if (which == 1) {
      ops[0] = R(pool_pair(g)), ops[1] = R(pair_src(g)), ops[2] = R(pair_src(g));
      ops[3] = R(pair_src(g));
      emit_pure(g, WAVE_OP_DMA, 4, ops);
    } else if (which == 2) {
      ops[0] = R(pool_pair(g)), ops[1] = R(pair_src(g));
      emit_pure(g, chance(g, 50) ? WAVE_OP_DSQRT : WAVE_OP_CVT_F64_F32, 2, ops);
    } else {
      ops[0] = R(d), ops[1] = R(pair_src(g));
      emit_pure(g, WAVE_OP_CVT_F32_F64, 2, ops);
    }
    return;
  }
  default:
    if (chance(g, 25)) {
      ops[0] = R(d), ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g)), ops[3] = R(src_reg(g));
      emit_pure(g, WAVE_OP_FMA, 4, ops);
    } else {
      ops[0] = R(d), ops[1] = R(src_reg(g));
      emit_pure(g, PICK(g, float_unary), 2, ops);
    }
    return;
  }
}

/* Writes predicate `p` from a compare of values (or, in the documentation dialect, from
 * predicate logic). `uniform` restricts the inputs to values equal in every lane of the launch:
 * arguments, constants and the workgroup id (equal within a workgroup). */
static void gen_compare_into(gen *g, unsigned p, bool uniform, bool guarded) {
  wave_operand ops[3];
  ops[0] = P(p);
  if (uniform) {
    unsigned a = chance(g, 50) ? R_ARG_A : R_ARG_B;
    if (chance(g, 30)) {
      EMIT(g, WAVE_OP_MOV_SR, R(R_T1), wave_sreg(5));
      mov_imm(g, R_T0, below(g, 3));
      a = R_T1;
    } else {
      mov_imm(g, R_T0, small_or_wild(g));
    }
    ops[1] = R(a), ops[2] = R(R_T0);
    EMIT(g, PICK(g, real_compares), ops[0], ops[1], ops[2]);
    return;
  }
  if (g->opt->docs_dialect && chance(g, 25)) {
    unsigned a = any_pred(g), b = any_pred(g);
    if (chance(g, 30)) {
      EMIT(g, WAVE_OP_PNOT, P(p), P(a));
    } else {
      wave_opcode op = PICK(g, pred_logic);
      EMIT(g, op, P(p), P(a), P(b));
    }
    return;
  }
  wave_opcode op = g->opt->docs_dialect && chance(g, 25) ? PICK(g, docs_compares)
                                                         : PICK(g, real_compares);
  ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g));
  if (guarded)
    emit_pure(g, op, 3, ops);
  else
    EMIT(g, op, ops[0], ops[1], ops[2]);
}

/* p = one bit of the thread's index, read from its slot address (t * 256 + base): lanes split
 * in runs of 1, 2, 4, ... whatever the data. */
static void gen_lane_bit(gen *g, unsigned p) {
  mov_imm(g, R_T1, 8 + below(g, 6));
  EMIT(g, WAVE_OP_SHR, R(R_T0), R(R_SLOT), R(R_T1));
  EMIT(g, WAVE_OP_AND, R(R_T0), R(R_T0), R(R_ONE));
  EMIT(g, chance(g, 50) ? WAVE_OP_ICMP_EQ : WAVE_OP_ICMP_NE, P(p), R(R_T0), R(R_ONE));
}

/* A predicate for a branch: uniform, split by lane, data-dependent, or whatever a predicate
 * happens to hold. */
static unsigned gen_condition(gen *g) {
  unsigned p = any_pred(g);
  unsigned kind = below(g, 20);
  if (kind < 5)
    gen_compare_into(g, p, true, false);
  else if (kind < 10)
    gen_lane_bit(g, p);
  else if (kind < 17)
    gen_compare_into(g, p, false, false);
  return p;
}

static const wave_opcode load_ops[] = {WAVE_OP_DEVICE_LOAD_U8, WAVE_OP_DEVICE_LOAD_U16,
                                       WAVE_OP_DEVICE_LOAD_U32, WAVE_OP_DEVICE_LOAD_U32,
                                       WAVE_OP_DEVICE_LOAD_U64};
static const wave_opcode local_load_ops[] = {WAVE_OP_LOCAL_LOAD_U8, WAVE_OP_LOCAL_LOAD_U16,
                                             WAVE_OP_LOCAL_LOAD_U32, WAVE_OP_LOCAL_LOAD_U64};
static const wave_opcode store_ops[] = {WAVE_OP_DEVICE_STORE_U8, WAVE_OP_DEVICE_STORE_U16,
                                        WAVE_OP_DEVICE_STORE_U32, WAVE_OP_DEVICE_STORE_U32,
                                        WAVE_OP_DEVICE_STORE_U64};
static const wave_opcode local_store_ops[] = {WAVE_OP_LOCAL_STORE_U8, WAVE_OP_LOCAL_STORE_U16,
                                              WAVE_OP_LOCAL_STORE_U32,
                                              WAVE_OP_LOCAL_STORE_U64};

static unsigned access_bytes(wave_opcode op) {
  const char *m = wave_opcode_get(op)->mnemonic;
  const char *u = strrchr(m, 'u');
  return (unsigned)strtoul(u + 1, NULL, 10) / 8;
}

static void gen_load(gen *g) {
  unsigned which = below(g, 4);
  window win = which < 2 ? WIN_INPUT : which == 2 ? WIN_SLOT : WIN_LOCAL;
  wave_opcode op = win == WIN_LOCAL ? PICK(g, local_load_ops) : PICK(g, load_ops);
  unsigned bytes = access_bytes(op);
  gen_address(g, win, bytes, src_reg(g));
  EMIT(g, op, R(bytes == 8 ? pool_pair(g) : pool_reg(g)), R(R_T0));
}

static void gen_store(gen *g) {
  bool local = chance(g, 30);
  wave_opcode op = local ? PICK(g, local_store_ops) : PICK(g, store_ops);
  unsigned bytes = access_bytes(op);
  gen_address(g, local ? WIN_LOCAL : WIN_SLOT, bytes, src_reg(g));
  EMIT(g, op, R(R_T0), R(bytes == 8 ? pool_pair(g) : pool_reg(g)));
}

/* Shared counters: each operation has its own two counters, so every counter only ever sees
 * one commutative operation and its final value does not depend on lane order. */
static const wave_opcode counter_ops[] = {WAVE_OP_ATOMIC_ADD, WAVE_OP_ATOMIC_SUB,
                                          WAVE_OP_ATOMIC_MIN, WAVE_OP_ATOMIC_MAX,
                                          WAVE_OP_ATOMIC_AND, WAVE_OP_ATOMIC_OR,
                                          WAVE_OP_ATOMIC_XOR};
_Static_assert(sizeof(counter_ops) / sizeof(counter_ops[0]) * 8 <= ATOM_BYTES,
               "two counters per operation");
static const wave_opcode slot_atomics[] = {WAVE_OP_ATOMIC_ADD, WAVE_OP_ATOMIC_MAX,
                                           WAVE_OP_ATOMIC_XOR, WAVE_OP_ATOMIC_EXCHANGE};
static const wave_opcode local_atomics[] = {WAVE_OP_LOCAL_ATOMIC_ADD, WAVE_OP_LOCAL_ATOMIC_MIN,
                                            WAVE_OP_LOCAL_ATOMIC_OR,
                                            WAVE_OP_LOCAL_ATOMIC_EXCHANGE};

static void gen_atomic(gen *g) {
  unsigned value = src_reg(g);
  wave_operand scope = wave_scope_operand(chance(g, 50) ? WAVE_SCOPE_DEVICE : WAVE_SCOPE_SYSTEM);
  unsigned which = below(g, 3);
  if (which == 0) {
    unsigned k = below(g, sizeof(counter_ops) / sizeof(counter_ops[0]));
    mov_imm(g, R_T0, 4);
    EMIT(g, WAVE_OP_AND, R(R_T0), R(src_reg(g)), R(R_T0));
    mov_imm(g, R_T1, 8 * k);
    EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_T0), R(R_T1));
    EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_ATOM), R(R_T0));
    if (g->opt->races && g->opt->atomic_returns && chance(g, 50))
      EMIT(g, counter_ops[k], R(pool_reg(g)), R(R_T0), R(value), scope);
    else
      EMIT(g, counter_ops[k], NO_DEST(), R(R_T0), R(value), scope);
    return;
  }
  bool local = which == 2;
  gen_address(g, local ? WIN_LOCAL : WIN_SLOT, 4, src_reg(g));
  wave_opcode op = local ? PICK(g, local_atomics) : PICK(g, slot_atomics);
  bool ret = g->opt->atomic_returns && chance(g, 60);
  if (local && ret)
    EMIT(g, op, R(pool_reg(g)), R(R_T0), R(value));
  else if (local)
    EMIT(g, op, NO_DEST(), R(R_T0), R(value));
  else if (ret)
    EMIT(g, op, R(pool_reg(g)), R(R_T0), R(value), scope);
  else
    EMIT(g, op, NO_DEST(), R(R_T0), R(value), scope);
}

static const wave_opcode lane_reductions[] = {WAVE_OP_WAVE_REDUCE_ADD, WAVE_OP_WAVE_REDUCE_MIN,
                                              WAVE_OP_WAVE_REDUCE_MAX, WAVE_OP_WAVE_PREFIX_SUM};
static const wave_opcode shuffles[] = {WAVE_OP_WAVE_SHUFFLE, WAVE_OP_WAVE_SHUFFLE_UP,
                                       WAVE_OP_WAVE_SHUFFLE_DOWN, WAVE_OP_WAVE_SHUFFLE_XOR,
                                       WAVE_OP_WAVE_BROADCAST};

static void gen_wave_op(gen *g, bool converged) {
  unsigned which = converged && chance(g, 40) ? 3 : below(g, 3);
  unsigned d = pool_reg(g), s = src_reg(g), p = any_pred(g), q = any_pred(g);
  if (which == 0) {
    wave_opcode op = PICK(g, lane_reductions);
    EMIT(g, op, R(d), R(s));
  } else if (which == 1) {
    EMIT(g, WAVE_OP_WAVE_BALLOT, R(d), P(p));
  } else if (which == 2) {
    EMIT(g, chance(g, 50) ? WAVE_OP_WAVE_ANY : WAVE_OP_WAVE_ALL, P(p), P(q));
  } else {
    /* Lane numbers up to 63 so that widths 8 and 32 also see out-of-range sources. */
    mov_imm(g, R_T1, 63);
    EMIT(g, WAVE_OP_AND, R(R_T1), R(src_reg(g)), R(R_T1));
    wave_opcode op = PICK(g, shuffles);
    EMIT(g, op, R(d), R(s), R(R_T1));
  }
}

static void gen_misc(gen *g) {
  unsigned which = below(g, 3);
  if (which == 0)
    EMIT(g, WAVE_OP_FENCE_ACQ_REL, wave_scope_operand(WAVE_SCOPE_DEVICE));
  else if (which == 1)
    EMIT0(g, WAVE_OP_WAIT);
  else
    EMIT0(g, WAVE_OP_NOP);
}

/* Stores every register and predicate into the lane's output slot (so nothing is live at a
 * halt): r0..r27 four at a time, then one word per predicate. */
static void gen_dump(gen *g) {
  mov_imm(g, R_T1, DUMP_OFFSET);
  EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_SLOT), R(R_T1));
  mov_imm(g, R_T1, 16);
  for (unsigned r = 0; r < NUM_REGS; r += 4) {
    if (r)
      EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_T0), R(R_T1));
    EMIT(g, WAVE_OP_DEVICE_STORE_U128, R(R_T0), R(r));
  }
  EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_T0), R(R_T1));
  for (unsigned p = 0; p < g->num_preds; p++) {
    if (p) {
      mov_imm(g, R_T1, 4);
      EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_T0), R(R_T1));
    }
    /* Two values that differ in every lane's slot: the slot address (never 1) or 1. */
    EMIT(g, WAVE_OP_SELECT, R(R_T1), P(p), R(R_SLOT), R(R_ONE));
    EMIT(g, WAVE_OP_DEVICE_STORE_U32, R(R_T0), R(R_T1));
  }
}

/* Every thread of the workgroup stores a value into its local slot, waits, reads a
 * neighbour's, and waits again so nobody overwrites a slot still being read. */
static void gen_exchange(gen *g) {
  EMIT(g, WAVE_OP_LOCAL_STORE_U32, R(R_LSLOT), R(src_reg(g)));
  EMIT0(g, WAVE_OP_BARRIER);
  mov_imm(g, R_T0, (1 + below(g, g->threads)) * LSLOT_BYTES);
  EMIT(g, WAVE_OP_IADD, R(R_T0), R(R_LSLOT), R(R_T0));
  mov_imm(g, R_T1, g->threads * LSLOT_BYTES);
  EMIT(g, WAVE_OP_IMOD, R(R_T0), R(R_T0), R(R_T1));
  EMIT(g, WAVE_OP_LOCAL_LOAD_U32, R(pool_reg(g)), R(R_T0));
  EMIT0(g, WAVE_OP_BARRIER);
}

/* ---- regions ------------------------------------------------------------------------------- */

static void gen_list(gen *g, unsigned depth, unsigned quota, bool in_if);

/* Room for a nested body: a share of what is left to this list and to the kernel. */
static unsigned body_quota(gen *g, unsigned left) {
  unsigned total = g->opt->size > g->emitted ? g->opt->size - g->emitted : 1;
  unsigned cap = left < total ? left : total;
  cap = cap > 3 ? cap : 3;
  return 2 + below(g, cap / 2 + 1);
}

/* An if on p at the cursor, which moves into its then-list; NULL when memory ran out. */
static wave_node *open_if(gen *g, unsigned p) {
  wave_node *node = g->failed ? NULL : wave_build_if(&g->b, P(p));
  if (!node) {
    g->failed = true;
    return NULL;
  }
  g->emitted++;
  return node;
}

static void open_else(gen *g, wave_node *node) {
  wave_if_set_has_else(node, true);
  g->b.cursor = wave_cursor_list_end(wave_if_else(node));
}

static void gen_if(gen *g, unsigned depth, unsigned left) {
  wave_node *node = open_if(g, gen_condition(g));
  if (!node)
    return;
  gen_list(g, depth + 1, body_quota(g, left), true);
  if (chance(g, 50)) {
    open_else(g, node);
    gen_list(g, depth + 1, body_quota(g, left), true);
  }
  g->b.cursor = wave_cursor_after_node(node);
}

static void gen_trailing_if(gen *g, unsigned depth, unsigned left);

static void gen_loop(gen *g, unsigned depth, unsigned left) {
  unsigned counter = R_COUNTER + g->loop_nest;
  unsigned bound_src = chance(g, 30) ? (chance(g, 50) ? R_ARG_A : R_ARG_B) : src_reg(g);
  mov_imm(g, R_T0, g->loop_nest == 0 ? 7 : 3);
  EMIT(g, WAVE_OP_AND, R(counter), R(bound_src), R(R_T0));
  wave_node *node = g->failed ? NULL : wave_build_loop(&g->b);
  if (!node) {
    g->failed = true;
    return;
  }
  g->emitted++;
  unsigned p = any_pred(g);
  if (g->opt->docs_dialect && chance(g, 40)) {
    EMIT(g, WAVE_OP_ICMP_GE, P(p), R(counter), R(R_ONE));
    EMIT(g, WAVE_OP_BREAK, wave_not_pred(p));
  } else {
    EMIT(g, WAVE_OP_ICMP_LT, P(p), R(counter), R(R_ONE));
    EMIT(g, WAVE_OP_BREAK, P(p));
  }
  EMIT(g, WAVE_OP_ISUB, R(counter), R(counter), R(R_ONE));
  g->loop_nest++;
  gen_list(g, depth + 1, body_quota(g, left), false);
  if (depth + 1 < g->opt->max_depth && chance(g, 30))
    gen_trailing_if(g, depth + 1, left);
  g->loop_nest--;
  g->b.cursor = wave_cursor_after_node(node);
}

/* A break or continue on p (on !p here and there in the documentation dialect). */
static void emit_exit(gen *g, unsigned p) {
  wave_operand cond = g->opt->docs_dialect && chance(g, 30) ? wave_not_pred(p) : P(p);
  EMIT(g, chance(g, 55) ? WAVE_OP_BREAK : WAVE_OP_CONTINUE, cond);
}

static void gen_break_continue(gen *g) { emit_exit(g, gen_condition(g)); }

/* Returns false when the list must end here (its lanes have halted). in_if: the list is an
 * if's then- or else-list, where an unguarded halt still leaves other lanes running. */
static bool gen_halt(gen *g, bool in_if) {
  g->halts++;
  g->halted = true;
  if (in_if && chance(g, 50)) {
    gen_dump(g);
    EMIT0(g, WAVE_OP_HALT);
    return false;
  }
  /* Few lanes: those whose value has three chosen low bits. */
  unsigned p = 1 + below(g, g->num_preds - 1);
  mov_imm(g, R_T0, 7);
  EMIT(g, WAVE_OP_AND, R(R_T0), R(src_reg(g)), R(R_T0));
  mov_imm(g, R_T1, below(g, 8));
  EMIT(g, WAVE_OP_ICMP_EQ, P(p), R(R_T0), R(R_T1));
  gen_dump(g);
  emit_guarded(g, WAVE_OP_HALT, (int)p, false, 0, NULL);
  return true;
}


/* ---- shapes the optimization passes rewrite -------------------------------------------------
 *
 * Random statements seldom line up into what a pass looks for, and a pass that never fires on
 * generated kernels is not tested by them. These shapes are built on purpose, each with near
 * misses (an else too many, a body that writes the predicate, a division the condition
 * protects) so that a pass is also tested where it must refuse. */

/* One instruction of the kinds if-conversion may run in every lane: integer or float
 * arithmetic, a move, a constant, a select, or (when dest < 0) a compare. It writes GPR
 * `dest` when dest >= 0, and never predicate `keep` (none when keep < 0). */
static void gen_simple(gen *g, int dest, int keep) {
  unsigned d = dest >= 0 ? (unsigned)dest : pool_reg(g);
  wave_operand ops[4];
  ops[0] = R(d);
  switch (below(g, dest >= 0 ? 8 : 10)) {
  case 0: case 1: case 2:
    ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g));
    emit_pure(g, PICK(g, int_binary), 3, ops);
    return;
  case 3:
    ops[1] = R(src_reg(g));
    emit_pure(g, PICK(g, int_unary), 2, ops);
    return;
  case 4:
    ops[1] = wave_imm(small_or_wild(g));
    emit_pure(g, WAVE_OP_MOV_IMM, 2, ops);
    return;
  case 5:
    ops[1] = P(any_pred(g)), ops[2] = R(src_reg(g)), ops[3] = R(src_reg(g));
    emit_pure(g, WAVE_OP_SELECT, 4, ops);
    return;
  case 6:
    ops[1] = R(src_reg(g));
    emit_pure(g, WAVE_OP_MOV, 2, ops);
    return;
  case 7:
    ops[1] = R(src_reg(g)), ops[2] = R(src_reg(g));
    emit_pure(g, g->opt->floats ? PICK(g, float_binary) : PICK(g, int_binary), 3, ops);
    return;
  default: {
    unsigned p = any_pred(g);
    if ((int)p == keep)
      p = (p + 1) % g->num_preds;
    gen_compare_into(g, p, chance(g, 20), true);
    return;
  }
  }
}

/* At least n pure instructions (a few more when gen_alu's last needs a helper): mostly
 * gen_simple's, some of gen_alu's, whose divisions and clamps may trap for all a pass knows. */
static void gen_pure_side(gen *g, unsigned n, int keep) {
  unsigned start = g->emitted;
  while (!g->failed && g->emitted - start < n) {
    if (chance(g, 20))
      gen_alu(g);
    else
      gen_simple(g, -1, keep);
  }
}

/* The body of a shape's if at list depth `depth`: mostly 1-4 pure instructions that leave
 * predicate `keep` alone, sometimes statements of every kind. */
static void gen_shape_body(gen *g, unsigned depth, unsigned left, int keep) {
  if (chance(g, 65))
    gen_pure_side(g, 1 + below(g, 4), keep);
  else
    gen_list(g, depth, body_quota(g, left), true);
}

/* if p { 1-4 pure instructions } [else { 1-4 more }], for if-to-select. With an else, both
 * sides sometimes end by writing the same register (a select's two arms). Sometimes p is
 * "divisor != 0" and a side divides by it: that division must not run in lanes that skip the
 * side. */
static void gen_small_if(gen *g) {
  bool division = chance(g, 20), division_in_else = false;
  unsigned p, divisor = 0;
  if (division) {
    divisor = pool_reg(g);
    p = any_pred(g);
    division_in_else = chance(g, 30);
    mov_imm(g, R_T0, 0);
    EMIT(g, division_in_else ? WAVE_OP_ICMP_EQ : WAVE_OP_ICMP_NE, P(p), R(divisor), R(R_T0));
  } else {
    p = gen_condition(g);
  }
  wave_node *node = open_if(g, p);
  if (!node)
    return;
  bool has_else = division_in_else || chance(g, 50);
  int same = has_else && chance(g, 40) ? (int)pool_reg(g) : -1;
  for (unsigned side = 0; side < 1u + has_else; side++) {
    if (side)
      open_else(g, node);
    bool divides = division && side == division_in_else;
    unsigned n = 1 + below(g, 4), fixed = divides + (same >= 0);
    if (divides) {
      unsigned d = pool_reg(g);
      emit_division(g, d, src_reg(g), divisor);
    }
    gen_pure_side(g, n > fixed ? n - fixed : 0, -1);
    if (same >= 0)
      gen_simple(g, same, -1);
  }
  g->b.cursor = wave_cursor_after_node(node);
}

/* if pA { [pB = compare] if pB { S } }: the outer if holds only the inner one (and sometimes
 * the compare computing its predicate), which flatten-ifs makes one if on pA and pB. Now and
 * then an else on either if makes it a near miss. Needs two levels below `depth`. */
static void gen_nested_if(gen *g, unsigned depth, unsigned left) {
  bool compare_inside = chance(g, 40);
  unsigned pb = compare_inside ? any_pred(g) : gen_condition(g);
  wave_node *outer = open_if(g, gen_condition(g));
  if (!outer)
    return;
  if (compare_inside)
    gen_compare_into(g, pb, chance(g, 20), false);
  wave_node *inner = open_if(g, pb);
  if (!inner)
    return;
  gen_shape_body(g, depth + 2, left, -1);
  if (chance(g, 12)) {
    open_else(g, inner);
    gen_pure_side(g, 1 + below(g, 3), -1);
  }
  g->b.cursor = wave_cursor_after_node(inner);
  if (chance(g, 8)) {
    open_else(g, outer);
    gen_pure_side(g, 1 + below(g, 3), -1);
  }
  g->b.cursor = wave_cursor_after_node(outer);
}

/* if pA { S } else { [pB = compare] if pB { S } } with the same S twice, which flatten-ifs
 * makes one if on pA or pB. S is built once at the depth of its copy. */
static void gen_else_if_same(gen *g, unsigned depth, unsigned left) {
  bool compare_inside = chance(g, 25);
  unsigned pb = compare_inside ? any_pred(g) : gen_condition(g);
  wave_node *outer = open_if(g, gen_condition(g));
  if (!outer)
    return;
  unsigned start = g->emitted;
  gen_shape_body(g, depth + 2, left, -1);
  unsigned size = g->emitted - start;
  open_else(g, outer);
  if (compare_inside)
    gen_compare_into(g, pb, chance(g, 20), false);
  wave_node *inner = open_if(g, pb);
  wave_node_list copy = {0};
  if (inner && wave_node_list_clone(g->module, wave_if_then(outer), &copy) &&
      wave_node_list_reinsert(g->module, g->b.cursor, &copy))
    g->emitted += size;
  else
    g->failed = true;
  g->b.cursor = wave_cursor_after_node(outer);
}

/* if pA { [S] break pB } or continue, in a loop: what predicated-break makes one break or
 * continue on pA and pB (S pure, mostly leaving pB alone). pB is sometimes pA itself. */
static void gen_if_exit(gen *g) {
  bool same = chance(g, 25);
  unsigned pb = same ? 0 : gen_condition(g);
  unsigned pa = gen_condition(g);
  if (same)
    pb = pa;
  wave_node *node = open_if(g, pa);
  if (!node)
    return;
  if (chance(g, 40)) {
    int keep = chance(g, 70) ? (int)pb : -1;
    gen_pure_side(g, 1 + below(g, 3), keep);
  }
  emit_exit(g, pb);
  g->b.cursor = wave_cursor_after_node(node);
}

/* The last statement of a loop body at list depth `depth`: an if. */
static void gen_trailing_if(gen *g, unsigned depth, unsigned left) {
  unsigned which = below(g, 3);
  if (which == 0)
    gen_small_if(g);
  else if (which == 1)
    gen_if_exit(g);
  else
    gen_if(g, depth, left);
}

/* Instructions one side of an if begins or ends with, collected in `out` to be repeated on
 * the other side: 1-2 pure instructions, stores or loads (at most 6 instructions each). */
enum { MAX_COMMON = 16 };
static unsigned gen_common(gen *g, wave_instr **out) {
  g->record = out;
  g->num_recorded = 0;
  g->record_cap = MAX_COMMON;
  unsigned items = 1 + below(g, 2);
  for (unsigned i = 0; i < items; i++) {
    unsigned which = below(g, 10);
    if (which < 7)
      gen_simple(g, -1, -1);
    else if (which < 9)
      gen_store(g);
    else
      gen_load(g);
  }
  g->record = NULL;
  return g->num_recorded;
}

/* Whether a list ends in an unguarded halt, after which nothing may follow. */
static bool ends_in_halt(const wave_node_list *list) {
  const wave_node *last = wave_node_list_last(list);
  return last && wave_node_kind_of(last) == WAVE_NODE_BLOCK && wave_block_last(last) &&
         wave_instr_op(wave_block_last(last)) == WAVE_OP_HALT &&
         wave_instr_guard(wave_block_last(last)) == WAVE_NO_GUARD;
}

/* if p { C1 M C2 } else { C1 N C2 }: both sides begin with the same instructions C1 and end
 * with the same C2 (one of them may be missing), which hoist-common moves before and after
 * the if. A compare in C1 may write p itself, which then must stay where it is. */
static void gen_common_sides(gen *g, unsigned depth, unsigned left) {
  wave_node *node = open_if(g, gen_condition(g));
  if (!node)
    return;
  wave_instr *common[MAX_COMMON];
  bool begin = chance(g, 65);
  unsigned n = begin ? gen_common(g, common) : 0;
  gen_shape_body(g, depth + 1, left, -1);
  open_else(g, node);
  emit_copies(g, common, n);
  gen_shape_body(g, depth + 1, left, -1);
  if ((!begin || chance(g, 50)) && !ends_in_halt(wave_if_then(node)) &&
      !ends_in_halt(wave_if_else(node))) {
    g->b.cursor = wave_cursor_list_end(wave_if_then(node));
    n = gen_common(g, common);
    g->b.cursor = wave_cursor_list_end(wave_if_else(node));
    emit_copies(g, common, n);
  }
  g->b.cursor = wave_cursor_after_node(node);
}

/* Two ifs in a row on the same predicate, which their bodies mostly leave alone: dce merges
 * them. */
static void gen_adjacent_ifs(gen *g, unsigned depth, unsigned left) {
  unsigned p = gen_condition(g);
  for (unsigned i = 0; i < 2; i++) {
    wave_node *node = open_if(g, p);
    if (!node)
      return;
    gen_shape_body(g, depth + 1, left, (int)p);
    if (chance(g, 35)) {
      open_else(g, node);
      gen_shape_body(g, depth + 1, left, (int)p);
    }
    g->b.cursor = wave_cursor_after_node(node);
  }
}

/* A pure instruction (a compare, or a value) that the next one overwrites unread: dead. */
static void gen_dead(gen *g) {
  if (chance(g, 25)) {
    unsigned p = any_pred(g);
    gen_compare_into(g, p, false, true);
    unsigned a = src_reg(g), b = src_reg(g);
    EMIT(g, PICK(g, real_compares), P(p), R(a), R(b));
    return;
  }
  unsigned d = pool_reg(g);
  gen_simple(g, (int)d, -1);
  if (chance(g, 40)) {
    mov_imm(g, d, small_or_wild(g));
    return;
  }
  unsigned a = src_reg_except(g, d), b = src_reg_except(g, d);
  EMIT(g, PICK(g, int_binary), R(d), R(a), R(b));
}

/* The same constant twice, into one register or two, a few instructions apart. */
static void gen_repeated_constant(gen *g) {
  uint32_t c = small_or_wild(g);
  unsigned a = pool_reg(g);
  mov_imm(g, a, c);
  for (unsigned i = below(g, 3); i > 0; i--)
    gen_simple(g, -1, -1);
  unsigned b = chance(g, 40) ? a : pool_reg(g);
  mov_imm(g, b, c);
}

static void gen_select_equal_arms(gen *g) {
  wave_operand ops[4];
  ops[0] = R(pool_reg(g)), ops[1] = P(any_pred(g)), ops[2] = R(src_reg(g));
  ops[3] = ops[2];
  emit_pure(g, WAVE_OP_SELECT, 4, ops);
}

/* Counted-loop compares (counter C, bound N) in the order the loop ends them: once C >= N,
 * once C > N, or once C == N. */
static const struct { wave_opcode op; bool counter_first, strict; } counted_exits[] = {
    {WAVE_OP_ICMP_GE, true, false}, {WAVE_OP_ICMP_LE, false, false},
    {WAVE_OP_UCMP_LE, false, false}, {WAVE_OP_ICMP_GT, true, true},
    {WAVE_OP_ICMP_LT, false, true}, {WAVE_OP_UCMP_LT, false, true},
    {WAVE_OP_ICMP_EQ, true, false}, {WAVE_OP_ICMP_EQ, false, false},
};

/* loop-unroll's default -loop-unroll-max-trips and -loop-unroll-max-size. */
enum { UNROLL_TRIPS = 16, UNROLL_ROOM = 64 };

/* mov_imm rC, S; loop { pX = exit compare of rC and r27; break pX; body; iadd rC, rC, r7 }
 * then an unguarded write of pX: a loop that runs a constant number of times T, which
 * loop-unroll replaces by T copies of its body. The body is pure instructions, loads, stores
 * and atomics, sized so that the copies fit loop-unroll's limit, which leave pX alone (mostly:
 * pX is p0, which no guard reads). Near misses it must refuse: a break in the body, more than
 * 16 or no iterations, a body too big, pX read after the loop (no write of pX after it). */
static void gen_counted_loop(gen *g) {
  unsigned counter = R_COUNTER + g->loop_nest;
  unsigned p = chance(g, 75) ? 0 : any_pred(g);
  unsigned exit = below(g, sizeof(counted_exits) / sizeof(counted_exits[0]));
  unsigned trips = chance(g, 85) ? 1 + below(g, 8)
                   : chance(g, 50) ? 9 + below(g, UNROLL_TRIPS - 8)
                   : chance(g, 70) ? UNROLL_TRIPS + 1 + below(g, 4)
                                   : 0;
  /* The bound is at least 20 > trips: the start is not negative. */
  mov_imm(g, counter, g->bound - trips + counted_exits[exit].strict);
  wave_node *node = g->failed ? NULL : wave_build_loop(&g->b);
  if (!node) {
    g->failed = true;
    return;
  }
  g->emitted++;
  bool counter_first = counted_exits[exit].counter_first;
  EMIT(g, counted_exits[exit].op, P(p), R(counter_first ? counter : R_BOUND),
       R(counter_first ? R_BOUND : counter));
  EMIT(g, WAVE_OP_BREAK, P(p));
  g->loop_nest++;
  unsigned room = trips ? UNROLL_ROOM / trips - 1 : 8;
  unsigned n = 1 + below(g, room < 8 ? room : 8), start = g->emitted;
  bool extra_exit = chance(g, 8);
  while (!g->failed && g->emitted - start < n) {
    bool wide = n - (g->emitted - start) >= 6;
    unsigned which = below(g, 10);
    if (extra_exit && chance(g, 30)) {
      extra_exit = false;
      EMIT(g, WAVE_OP_BREAK, P(gen_condition(g)));
    } else if (which < 6 || !wide) {
      gen_simple(g, -1, (int)p);
    } else if (which == 6) {
      gen_alu(g);
    } else if (which == 7) {
      gen_load(g);
    } else if (which == 8 || !g->opt->atomics) {
      gen_store(g);
    } else {
      gen_atomic(g);
    }
  }
  g->loop_nest--;
  if (chance(g, 50))
    EMIT(g, WAVE_OP_IADD, R(counter), R(counter), R(R_ONE));
  else
    EMIT(g, WAVE_OP_IADD, R(counter), R(R_ONE), R(counter));
  g->b.cursor = wave_cursor_after_node(node);
  if (chance(g, 90))
    gen_compare_into(g, p, chance(g, 20), false);
}

/* A uniform if or loop at the top level in which a few lanes halt right before a wave
 * operation, a shuffle or a barrier, with the rest of the wave still there: what legalize must
 * not turn into lanes parked at that operation where the target's wave operations wait for
 * every live lane (docs/toolchain.md "Halt and return inside regions"). The halting lanes are
 * those whose lane number has three chosen low bits, never 0, so every wave keeps its lane 0
 * and a barrier never waits for a wave that has ended. A barrier comes only while no earlier
 * halt can have ended a whole wave. */
static void gen_exit_before_convergent(gen *g) {
  bool barrier = g->opt->barriers && !g->halted && chance(g, 40);
  /* Divergent barriers need every halt out of loops (see the file's opening). */
  bool loop = !g->opt->divergent_barriers && chance(g, 35);
  unsigned p = any_pred(g);
  wave_node *node;
  if (loop) {
    mov_imm(g, R_T0, 3);
    EMIT(g, WAVE_OP_AND, R(R_COUNTER), R(chance(g, 50) ? R_ARG_A : R_ARG_B), R(R_T0));
    node = g->failed ? NULL : wave_build_loop(&g->b);
    if (node)
      g->emitted++;
    else
      g->failed = true;
    EMIT(g, WAVE_OP_ICMP_LT, P(p), R(R_COUNTER), R(R_ONE));
    EMIT(g, WAVE_OP_BREAK, P(p));
    EMIT(g, WAVE_OP_ISUB, R(R_COUNTER), R(R_COUNTER), R(R_ONE));
  } else {
    gen_compare_into(g, p, true, false);
    node = open_if(g, p);
  }
  if (!node)
    return;
  g->halts++;
  g->halted = true;
  unsigned q = 1 + below(g, g->num_preds - 1);
  EMIT(g, WAVE_OP_MOV_SR, R(R_T0), wave_sreg(4));
  mov_imm(g, R_T1, 7);
  EMIT(g, WAVE_OP_AND, R(R_T0), R(R_T0), R(R_T1));
  mov_imm(g, R_T1, 1 + below(g, 7));
  EMIT(g, WAVE_OP_ICMP_EQ, P(q), R(R_T0), R(R_T1));
  gen_dump(g);
  emit_guarded(g, WAVE_OP_HALT, (int)q, false, 0, NULL);
  if (barrier)
    gen_exchange(g);
  else
    gen_wave_op(g, true);
  if (chance(g, 50))
    gen_store(g);
  g->b.cursor = wave_cursor_after_node(node);
}

typedef enum pass_shape {
  SH_SMALL_IF, SH_NESTED_IF, SH_ELSE_IF_SAME, SH_IF_EXIT, SH_COMMON_SIDES, SH_ADJACENT_IFS,
  SH_DEAD, SH_CONSTANT, SH_SELECT, SH_COUNTED_LOOP, SH_EXIT_BEFORE_CONVERGENT, SH_COUNT
} pass_shape;

/* One shape at list depth `depth`. */
static void gen_shape(gen *g, unsigned depth, unsigned left) {
  bool one_level = depth < g->opt->max_depth, two_levels = depth + 2 <= g->opt->max_depth;
  unsigned weight[SH_COUNT] = {0};
  weight[SH_SMALL_IF] = one_level ? 6 : 0;
  weight[SH_NESTED_IF] = two_levels ? 2 : 0;
  weight[SH_ELSE_IF_SAME] = two_levels ? 2 : 0;
  weight[SH_IF_EXIT] = one_level && g->loop_nest > 0 ? 4 : 0;
  weight[SH_COMMON_SIDES] = one_level ? 2 : 0;
  weight[SH_ADJACENT_IFS] = one_level ? 2 : 0;
  weight[SH_DEAD] = 2;
  weight[SH_CONSTANT] = 1;
  weight[SH_SELECT] = 1;
  weight[SH_COUNTED_LOOP] = one_level && g->loop_nest < MAX_LOOP_NEST ? 3 : 0;
  weight[SH_EXIT_BEFORE_CONVERGENT] = depth == 0 && one_level && g->opt->halts &&
                                              g->halts < MAX_HALTS && g->opt->wave_ops
                                          ? 3
                                          : 0;
  switch ((pass_shape)pick_weighted(g, weight, SH_COUNT)) {
  case SH_SMALL_IF: gen_small_if(g); break;
  case SH_NESTED_IF: gen_nested_if(g, depth, left); break;
  case SH_ELSE_IF_SAME: gen_else_if_same(g, depth, left); break;
  case SH_IF_EXIT: gen_if_exit(g); break;
  case SH_COMMON_SIDES: gen_common_sides(g, depth, left); break;
  case SH_ADJACENT_IFS: gen_adjacent_ifs(g, depth, left); break;
  case SH_DEAD: gen_dead(g); break;
  case SH_CONSTANT: gen_repeated_constant(g); break;
  case SH_SELECT: gen_select_equal_arms(g); break;
  case SH_COUNTED_LOOP: gen_counted_loop(g); break;
  case SH_EXIT_BEFORE_CONVERGENT: gen_exit_before_convergent(g); break;
  case SH_COUNT: break;
  }
}

typedef enum stmt {
  S_ALU, S_COMPARE, S_LOAD, S_STORE, S_ATOMIC, S_WAVE, S_IF, S_LOOP, S_BREAK, S_HALT,
  S_BARRIER, S_MISC, S_SHAPE, S_COUNT
} stmt;

static stmt pick_statement(gen *g, unsigned depth, bool converged) {
  unsigned weight[S_COUNT] = {0};
  weight[S_ALU] = 34;
  weight[S_COMPARE] = 8;
  weight[S_LOAD] = 8;
  weight[S_STORE] = 7;
  weight[S_ATOMIC] = g->opt->atomics ? 4 : 0;
  weight[S_WAVE] = g->opt->wave_ops ? 5 : 0;
  weight[S_IF] = depth < g->opt->max_depth ? 11 : 0;
  weight[S_LOOP] = depth < g->opt->max_depth && g->loop_nest < MAX_LOOP_NEST ? 7 : 0;
  weight[S_BREAK] = g->loop_nest > 0 ? 12 : 0;
  weight[S_HALT] = g->opt->halts && g->halts < MAX_HALTS && depth > 0 &&
                           !(g->opt->divergent_barriers && g->loop_nest > 0)
                       ? 3
                       : 0;
  bool barrier_here = converged || (g->opt->divergent_barriers && !g->halted);
  weight[S_BARRIER] = g->opt->barriers && barrier_here ? 3 : 0;
  weight[S_MISC] = 1;
  weight[S_SHAPE] = 14;
  return (stmt)pick_weighted(g, weight, S_COUNT);
}

/* Statements at the builder's cursor; in_if: the cursor lies in an if's then- or else-list. */
static void gen_list(gen *g, unsigned depth, unsigned quota, bool in_if) {
  unsigned start = g->emitted;
  while (!g->failed && g->emitted - start < quota && g->emitted < g->opt->size) {
    unsigned left = quota - (g->emitted - start);
    bool converged = depth == 0 && !g->halted;
    switch (pick_statement(g, depth, converged)) {
    case S_ALU: gen_alu(g); break;
    case S_COMPARE: gen_compare_into(g, any_pred(g), chance(g, 20), true); break;
    case S_LOAD: gen_load(g); break;
    case S_STORE: gen_store(g); break;
    case S_ATOMIC: gen_atomic(g); break;
    case S_WAVE: gen_wave_op(g, converged); break;
    case S_IF: gen_if(g, depth, left); break;
    case S_LOOP: gen_loop(g, depth, left); break;
    case S_BREAK: gen_break_continue(g); break;
    case S_HALT:
      if (!gen_halt(g, in_if))
        return;
      break;
    case S_BARRIER:
      if (chance(g, 70))
        gen_exchange(g);
      else
        EMIT0(g, WAVE_OP_BARRIER);
      break;
    case S_MISC: gen_misc(g); break;
    case S_SHAPE: gen_shape(g, depth, left); break;
    case S_COUNT: break;
    }
  }
}

/* ---- kernel -------------------------------------------------------------------------------- */

/* Own slots from the linear thread index, then the values the body starts from. */
static void gen_prologue(gen *g, const wave_gen_launch *launch) {
  const unsigned tmp = R_COUNTER; /* free until the first loop initialises it */
  EMIT(g, WAVE_OP_MOV_SR, R(R_T0), wave_sreg(2));
  EMIT(g, WAVE_OP_MOV_SR, R(R_T1), wave_sreg(9));
  EMIT(g, WAVE_OP_MOV_SR, R(tmp), wave_sreg(1));
  EMIT(g, WAVE_OP_IMAD, R(R_T0), R(R_T0), R(R_T1), R(tmp));
  EMIT(g, WAVE_OP_MOV_SR, R(R_T1), wave_sreg(8));
  EMIT(g, WAVE_OP_MOV_SR, R(tmp), wave_sreg(0));
  EMIT(g, WAVE_OP_IMAD, R(R_T0), R(R_T0), R(R_T1), R(tmp)); /* local linear id */
  mov_imm(g, R_T1, LSLOT_BYTES);
  EMIT(g, WAVE_OP_IMUL, R(R_LSLOT), R(R_T0), R(R_T1));
  EMIT(g, WAVE_OP_MOV_SR, R(R_T1), wave_sreg(5));
  mov_imm(g, tmp, g->threads);
  EMIT(g, WAVE_OP_IMAD, R(R_T0), R(R_T1), R(tmp), R(R_T0)); /* global linear id */
  EMIT(g, WAVE_OP_MOV, R(R_POOL), R(R_T0));
  mov_imm(g, R_T1, launch->output_slot_bytes);
  EMIT(g, WAVE_OP_IMAD, R(R_SLOT), R(R_T0), R(R_T1), R(R_OUT));
  mov_imm(g, R_ONE, 1);
  g->bound = 20 + below(g, 64);
  mov_imm(g, R_BOUND, g->bound);
  mov_imm(g, tmp, 0);
  /* One value loaded at a lane-dependent address, so data-dependent branches exist early. */
  gen_address(g, WIN_INPUT, 4, R_POOL);
  EMIT(g, WAVE_OP_DEVICE_LOAD_U32, R(R_POOL + 1), R(R_T0));
  for (unsigned r = R_POOL + 2; r < R_POOL + POOL_SIZE; r++) {
    switch (below(g, 4)) {
    case 0:
      mov_imm(g, r, small_or_wild(g));
      break;
    case 1:
      EMIT(g, WAVE_OP_XOR, R(r), R(chance(g, 50) ? R_ARG_A : R_ARG_B), R(R_POOL));
      break;
    case 2:
      EMIT(g, WAVE_OP_MOV_SR, R(r), wave_sreg(PICK(g, sregs_w_free)));
      break;
    default:
      EMIT(g, WAVE_OP_IMUL, R(r), R(R_POOL + 1), R(r - 1));
      break;
    }
  }
}

static void plan_launch(gen *g, wave_gen_launch *launch) {
  memset(launch, 0, sizeof(*launch));
  const uint32_t *shape = shapes[below(g, sizeof(shapes) / sizeof(shapes[0]))];
  memcpy(launch->workgroup, shape, sizeof(launch->workgroup));
  launch->grid[0] = 1 + below(g, 3);
  launch->grid[1] = launch->grid[2] = 1;
  g->threads = shape[0] * shape[1] * shape[2];
  uint32_t out_end = OUT_BASE + launch->grid[0] * g->threads * SLOT_BYTES;
  launch->device_memory_size = (out_end + 4095u) & ~4095u;
  launch->output_base = OUT_BASE;
  launch->output_slot_bytes = SLOT_BYTES;
  launch->dump_offset = DUMP_OFFSET;
  launch->num_dumped_registers = NUM_REGS;
  launch->num_dumped_predicates = g->num_preds;
  static const struct { uint32_t reg, base, mask; const char *role; } args[] = {
      {R_IN, IN_BASE, 0, "input area (read-only)"},
      {R_OUT, OUT_BASE, 0, "output slots"},
      {R_ATOM, ATOM_BASE, 0, "shared counters"},
      {R_ARG_A, 0, 0xFFFFFFFFu, "uniform argument"},
      {R_ARG_B, 0, 0xFFFFFFFFu, "uniform argument"},
  };
  launch->num_args = sizeof(args) / sizeof(args[0]);
  for (unsigned i = 0; i < launch->num_args; i++) {
    launch->args[i].reg = args[i].reg;
    launch->args[i].base = args[i].base;
    launch->args[i].random_mask = args[i].mask;
    launch->args[i].role = args[i].role;
  }
}

void wave_gen_options_init(wave_gen_options *options) {
  memset(options, 0, sizeof(*options));
  options->size = 250;
  options->max_depth = 5;
  options->wave_ops = true;
  options->atomics = true;
  options->atomic_returns = true;
  options->barriers = true;
  options->halts = true;
  options->floats = true;
}

wave_module *wave_generate(const wave_gen_options *options, wave_gen_launch *launch,
                           wave_diags *diags) {
  wave_gen_options opt = *options;
  if (opt.max_depth > WAVE_GEN_MAX_DEPTH)
    opt.max_depth = WAVE_GEN_MAX_DEPTH;
  gen g = {0};
  g.opt = &opt;
  g.rng = opt.seed;
  g.num_preds = opt.docs_dialect && !opt.docs_all_preds ? WAVE_NUM_PREDS - 1 : WAVE_NUM_PREDS;
  plan_launch(&g, launch);

  char name[40];
  snprintf(name, sizeof(name), "wavegen_%llu", (unsigned long long)opt.seed);
  g.module = wave_module_create("<wavegen>");
  wave_kernel *kernel = g.module ? wave_kernel_create(g.module, name) : NULL;
  if (kernel) {
    wave_kernel_set_registers(kernel, NUM_REGS);
    wave_kernel_set_local_memory(kernel, g.threads * LSLOT_BYTES);
    wave_kernel_set_workgroup_size(kernel, launch->workgroup[0], launch->workgroup[1],
                                   launch->workgroup[2]);
    wave_loc loc = {0};
    wave_node_list *entry = wave_region_body(wave_kernel_first_region(kernel));
    g.b = wave_builder_at(g.module, wave_cursor_list_end(entry), loc);
    gen_prologue(&g, launch);
    gen_list(&g, 0, opt.size, false);
    gen_dump(&g);
    EMIT0(&g, WAVE_OP_HALT);
  }
  if (!kernel || g.failed) {
    wave_module_destroy(g.module);
    wave_loc loc = {0};
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, loc, NULL, 0,
                     "out of memory while generating a kernel");
    return NULL;
  }
  return g.module;
}

/* ---- launch description -------------------------------------------------------------------- */

char *wave_gen_describe(const wave_gen_options *o, const wave_gen_launch *l) {
  wave_strbuf t = {0};
  wave_strbuf_printf(&t, "; wavegen --seed %llu --size %u --depth %u%s%s%s%s%s\n",
                     (unsigned long long)o->seed, o->size, o->max_depth,
                     o->wave_ops ? "" : " --no-wave-ops", o->races ? " --races" : "",
                     o->docs_dialect ? " --docs-dialect" : "",
                     o->docs_dialect && o->docs_all_preds ? " --all-preds" : "",
                     o->barriers && o->divergent_barriers ? " --divergent-barriers" : "");
  wave_strbuf_printf(&t,
                     "; launch: grid %u,%u,%u  workgroup %u,%u,%u  device memory >= %u bytes "
                     "(any contents)\n",
                     l->grid[0], l->grid[1], l->grid[2], l->workgroup[0], l->workgroup[1],
                     l->workgroup[2], l->device_memory_size);
  wave_strbuf_puts(&t, "; preset registers:");
  for (unsigned i = 0; i < l->num_args; i++) {
    const wave_gen_arg *a = &l->args[i];
    if (a->random_mask == 0xFFFFFFFFu)
      wave_strbuf_printf(&t, " r%u = any value (%s);", a->reg, a->role);
    else if (a->random_mask)
      wave_strbuf_printf(&t, " r%u = %u + (any & 0x%x) (%s);", a->reg, a->base,
                         a->random_mask, a->role);
    else
      wave_strbuf_printf(&t, " r%u = %u (%s);", a->reg, a->base, a->role);
  }
  wave_strbuf_printf(&t, "\n; results: thread t stores r0..r%u then p0..p%u at %u + t * %u + %u\n",
                     l->num_dumped_registers - 1, l->num_dumped_predicates - 1, l->output_base,
                     l->output_slot_bytes, l->dump_offset);
  wave_strbuf_printf(&t, "; run: wavesim FILE --grid %u,%u,%u --device-memory %u", l->grid[0],
                     l->grid[1], l->grid[2], l->device_memory_size);
  for (unsigned i = 0; i < l->num_args; i++)
    wave_strbuf_printf(&t, " --set-reg %u:%u", l->args[i].reg, l->args[i].base);
  wave_strbuf_puts(&t, "\n");
  return wave_strbuf_take(&t, NULL);
}
