/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Target profiles: what one downstream tool runs correctly, as one row of a const table. Passes
 * read the profile they were given instead of asking "is this the emulator?", so supporting a
 * new vendor or tool (NVIDIA 32 lanes, AMD wave32/wave64, Intel 8/16, Apple 32) is a new row,
 * not new code. `portable`, the default, is what every tool runs correctly: the constructs all
 * rows accept, at every wave width any row runs.
 */
#ifndef WAVEOPT_TARGET_H
#define WAVEOPT_TARGET_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a guard can sit on, for the question "does this tool honour it". Structured control
 * flow, calls, returns, barriers, fences and the like belong to no class: a guard on them is
 * mishandled by every tool. */
typedef enum wave_guard_class {
  WAVE_GUARD_ALU,       /* integer, bitwise, float, conversion, predicate logic */
  WAVE_GUARD_COMPARE,
  WAVE_GUARD_SELECT,
  WAVE_GUARD_MOVE,
  WAVE_GUARD_HALT,
  WAVE_GUARD_MEMORY,    /* loads and stores */
  WAVE_GUARD_ATOMIC,
  WAVE_GUARD_WAVE,      /* cross-lane operations */
  WAVE_GUARD_MMA,
  WAVE_GUARD_NONE,      /* no tool honours a guard here */
} wave_guard_class;

#define WAVE_GUARDS(c) (1u << (c))

/* Up to this many wave widths per row; unused entries are 0. */
#define WAVE_TARGET_MAX_WIDTHS 4

typedef struct wave_target {
  const char *name;
  const char *description;
  /* The widths a kernel may run at, ascending: a transformation must be correct at each. */
  uint8_t wave_widths[WAVE_TARGET_MAX_WIDTHS];
  bool continue_ok;            /* `continue p` runs with its intended meaning */
  bool break_in_if_ok;         /* a `break` nested in an `if` leaves at once */
  bool halt_per_lane;          /* halt/return inside an if or loop ends only the lanes at it */
  bool calls_ok;               /* `call` reaches its label and returns */
  unsigned divergence_stack;   /* if/loop nesting that runs correctly; 0 = no limit */
  bool uniform_uses_entry;     /* a uniform if or loop still occupies a stack entry */
  unsigned mask_op_cost;       /* one if/else/endif/break/endloop, in ALU instructions */
  uint32_t guard_classes;      /* WAVE_GUARDS(class) for each class a @p1..@p3 guard survives */
  bool negated_p0_guard_ok;    /* @!p0 survives (a @p0 guard never does: it is no guard) */
  /* A wave operation or MMA reached while other live lanes wait elsewhere (in a divergent if,
   * or parked by a per-lane flag) runs over the active lanes alone. wave-ptx instead makes it
   * a full-warp .sync, undefined unless every thread that has not exited takes part. Last, so
   * that the columns before it keep their places for programs built against older headers. */
  bool divergent_wave_ops_ok;
} wave_target;

/* The row called `name`, or NULL. */
WAVE_API const wave_target *wave_target_lookup(const char *name);
/* `portable`. */
WAVE_API const wave_target *wave_target_default(void);
/* The index-th row (for listing them all), or NULL past the last. */
WAVE_API const wave_target *wave_target_at(size_t index);

WAVE_API bool wave_target_runs_width(const wave_target *target, unsigned width);
WAVE_API wave_guard_class wave_guard_class_of(wave_opcode op);
/* Whether the target runs `op` under the guard `@p<guard>` / `@!p<guard>` as a guard. */
WAVE_API bool wave_target_honours_guard(const wave_target *target, wave_opcode op, int guard,
                                        bool negated);

/* What a target runs wrongly, by kind (docs/toolchain.md "What legalize does on each target"
 * and the sections it names). */
typedef enum wave_target_hazard {
  WAVE_HAZARD_GUARD,            /* a guard the target drops or mishandles, @p0 included */
  WAVE_HAZARD_CONTINUE,         /* `continue` (continue_ok false) */
  WAVE_HAZARD_BREAK_IN_IF,      /* a `break` nested in an `if` (break_in_if_ok false) */
  WAVE_HAZARD_EXIT_IN_REGION,   /* `halt` or `return` inside an if or loop (halt_per_lane) */
  WAVE_HAZARD_CALL,             /* `call` (calls_ok false) */
  WAVE_HAZARD_DEPTH,            /* the first if or loop deeper than divergence_stack */
} wave_target_hazard;

typedef struct wave_target_finding {
  wave_target_hazard hazard;
  const wave_instr *instr;      /* NULL for WAVE_HAZARD_DEPTH */
  const wave_node *node;        /* WAVE_HAZARD_DEPTH: the if or loop */
  wave_loc loc;
  const char *what;             /* "'continue'", "guard '@p1' on 'iadd'": valid in the call */
} wave_target_finding;

typedef void (*wave_target_finding_fn)(void *arg, const wave_target_finding *finding);

/* Calls fn for each construct of `kernel` that `target` runs wrongly, in text order. Wave
 * operations where the wave is not converged need the uniformity analysis and are the
 * barriers analysis's (waveopt/barriers.h). */
WAVE_API void wave_target_scan(const wave_kernel *kernel, const wave_target *target,
                               wave_target_finding_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif
