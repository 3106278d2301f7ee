/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the optimization passes share when they rewrite control flow into straight-line code:
 *
 *   - scratch registers: a GPR or predicate that a rewrite may clobber, taken from what
 *     liveness reports dead, else from registers above .registers up to the pass's budget
 *     (wave_pass_max_registers: by default none, so .registers never grows unasked);
 *   - conditions: pA, !pA, and their and/or combinations materialised in a predicate with
 *     real instructions only (docs/toolchain.md "Rules our output keeps" 1-3: no predicate
 *     logic, no `!` operand, no @p0, guards only on compares), and compares inverted exactly.
 *
 * Everything here emits through a wave_builder and either emits all its instructions or none:
 * the scratch a rewrite needs is reserved before the first instruction is built.
 *
 * One liveness result serves a whole pass run (recomputing it per rewrite would make a pass
 * quadratic), which stays sound under one rule every rewrite keeps: the new code reads only
 * registers the old code could already read in the same lanes, scratch registers it writes
 * before reading, and r0 in compares of r0 with itself (equal whatever r0 holds). Then no
 * register becomes live anywhere it was dead, so the stale result only over-approximates: a
 * register it calls dead still is. Scratch taken from wave_xform_taken is dead before and
 * after its node and unused inside, so two rewrites may reuse the same scratch register.
 */
#ifndef WAVE_XFORM_H
#define WAVE_XFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/code.h"
#include "waveopt/edit.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "waveopt/regset.h"
#include "waveopt/target.h"

/* ---- scratch registers -------------------------------------------------------------------- */

typedef struct wave_scratch {
  wave_kernel *kernel;
  wave_regset taken;    /* live where the rewrite runs, mentioned by it, or handed out */
  uint32_t limit;       /* .registers may grow up to this many GPRs */
} wave_scratch;

/* limit below the kernel's .registers counts as .registers (no growth). */
void wave_scratch_init(wave_scratch *s, wave_kernel *kernel, wave_regset taken, uint32_t limit);
/* A GPR nobody needs, below .registers if one is, else the next one above, growing .registers
 * to include it; false when none is left within the limit. The register is taken. */
bool wave_scratch_gpr(wave_scratch *s, uint32_t *r);
/* A predicate nobody needs, p1..p3 before p0 (a positive guard cannot name p0); false when
 * none. The predicate is taken. */
bool wave_scratch_pred(wave_scratch *s, uint32_t *p);
/* How many GPRs wave_scratch_gpr could still hand out. */
unsigned wave_scratch_gprs_left(const wave_scratch *s);

/* What a rewrite of `node` in place may not clobber: everything live right before it or right
 * after it, every register it mentions, and a kernel-wide part: in a kernel with a call, every
 * register some region mentions (subroutines share their caller's registers); where a negated
 * predicate operand of the documentation dialect still waits for lowering, the lowest
 * predicate the kernel never mentions (lowering needs one; a scratch predicate taken there
 * would leave legalize none). */
wave_regset wave_xform_taken(const wave_liveness *liveness, const wave_node *node);
/* wave_xform_taken scans the whole kernel for its kernel-wide part each time, which makes a
 * pass that asks for every node quadratic. Such a pass computes that part once per run
 * (wave_xform_kernel_taken) and asks wave_xform_taken_with. That stays sound while the pass
 * rewrites as long as no scratch value of its rewrites lives across a call (the registers
 * rewrites add are then dead wherever a call can reach): the reserved predicate stays
 * unmentioned, since scratch never comes from it. */
wave_regset wave_xform_kernel_taken(const wave_kernel *kernel);
/* wave_xform_kernel_taken, and in *has_call whether the kernel holds a call: one scan. */
wave_regset wave_xform_kernel_census(const wave_kernel *kernel, bool *has_call);
wave_regset wave_xform_taken_with(const wave_liveness *liveness, const wave_node *node,
                                  wave_regset kernel_taken);

/* ---- worklists --------------------------------------------------------------------------- */

typedef enum wave_if_order {
  WAVE_OUTER_IFS_FIRST,   /* text order of the if lines */
  WAVE_INNER_IFS_FIRST,   /* text order of the endif lines: an if after every if inside it */
} wave_if_order;

/* Every if of the kernel in that order, *count of them, as the kernel was when the pass began
 * or last changed it and told the manager: the array belongs to the analysis manager, which
 * keeps it for the passes after this one until one of them changes the kernel. A pass reads it
 * as its worklist and must not write it; the nodes it names may meanwhile have been detached
 * by the pass's own rewrites. NULL when memory ran out. */
wave_node *const *wave_xform_collect_ifs(wave_analysis_manager *am, wave_kernel *kernel,
                                         wave_if_order order, size_t *count);
/* Every loop of the kernel, each after the loops inside it (text order of the endloop lines),
 * as wave_xform_collect_ifs gives ifs. */
wave_node *const *wave_xform_collect_loops(wave_analysis_manager *am, wave_kernel *kernel,
                                           size_t *count);

/* The registers the instruction may write: its definitions, or every register for a call,
 * whose subroutine may write any of them. */
wave_regset wave_xform_may_write(const wave_instr *in);

/* ---- conditions --------------------------------------------------------------------------- */

/* A predicate test as an if, break or guard makes it: pN, or !pN. */
typedef struct wave_cond {
  uint32_t pred;
  bool negated;
} wave_cond;

static inline wave_cond wave_cond_of(uint32_t pred, bool negated) {
  wave_cond c = {pred, negated};
  return c;
}
static inline wave_cond wave_cond_not(wave_cond c) {
  c.negated = !c.negated;
  return c;
}

typedef enum wave_cond_op { WAVE_COND_AND, WAVE_COND_OR } wave_cond_op;

/* How many scratch GPRs wave_cond_emit(dst = a OP c) needs on this target: 0 when compares
 * guarded by the operands do the job, else 3 (the select idiom of docs/language.md "Predicate
 * logic": 0, 1 and the 0/1 value). A pass that must not fail halfway asks first. */
unsigned wave_cond_gprs_needed(const wave_target *target, uint32_t dst, wave_cond a,
                               wave_cond_op op, wave_cond c);

/* Emits dst = a OP b in every lane that runs the code. dst may be a's or b's predicate; the
 * other operand's predicate must not be dst unless it is the same test. Returns false, having
 * emitted nothing, when scratch GPRs ran out or memory did. */
bool wave_cond_emit(wave_builder *b, const wave_target *target, wave_scratch *s, uint32_t dst,
                    wave_cond a, wave_cond_op op, wave_cond c);
/* Emits dst = a (a copy, or a negation when a is negated); nothing when a is dst itself. */
bool wave_cond_emit_copy(wave_builder *b, const wave_target *target, wave_scratch *s,
                         uint32_t dst, wave_cond a);

/* Rewrites a compare into its exact negation (icmp_lt <-> icmp_ge, ucmp_lt a,b <-> ucmp_le b,a,
 * fcmp_eq <-> fcmp_ne, fcmp_ord <-> fcmp_unord); false, unchanged, for a compare that has none
 * (fcmp_lt/le/gt: both it and its swap are false on NaN) or for anything else. */
bool wave_compare_invert(wave_instr *compare);
/* Whether a compare of that opcode has an exact negation (wave_compare_invert would rewrite it). */
bool wave_compare_invertible(wave_opcode op);

/* The share of its runs in which a pass should expect `if_node` to split the wave (both sides
 * issue), from 0 (uniform) to 1 (divergent). Without a profile, or for an if the uniformity
 * analysis proves uniform, that is the analysis's verdict, 0 or 1. With one (wave_pass_profile)
 * and an if the analysis cannot prove uniform, it is the split rate measured on the if's line
 * (docs/profile.md "Use in the optimizer"); an if the profile never reached keeps the
 * analysis's 1. The measured rate is reported as an analysis remark "profile-split-rate" of the
 * calling pass. */
struct wave_pass_context;
struct wave_uniformity;
double wave_xform_if_split_rate(struct wave_pass_context *ctx, const struct wave_uniformity *u,
                                const wave_node *if_node);

#endif
