/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The target table. Each row records what was observed by running the tool (wave-emu,
 * wave-ptx) or what the specification intends (spec); `portable` is derived from the others
 * by hand and a unit test keeps it derived: every correctness column is the weakest of the
 * rows, and its widths are all the widths any row runs. So adding a vendor row that is weaker
 * somewhere fails that test until `portable` is weakened too.
 *
 * mask_op_cost is a weight for cost models, not a measurement yet: one issued instruction per
 * structured op in the emulator and the specification, two on the PTX path where a divergent
 * branch is a predicated `bra` plus the reconvergence the hardware needs.
 */
#include <string.h>

#include "waveopt/target.h"

#define SAFE_GUARDS                                                                         \
  (WAVE_GUARDS(WAVE_GUARD_ALU) | WAVE_GUARDS(WAVE_GUARD_COMPARE) |                         \
   WAVE_GUARDS(WAVE_GUARD_SELECT) | WAVE_GUARDS(WAVE_GUARD_MOVE) | WAVE_GUARDS(WAVE_GUARD_HALT))
#define ALL_GUARDS                                                                          \
  (SAFE_GUARDS | WAVE_GUARDS(WAVE_GUARD_MEMORY) | WAVE_GUARDS(WAVE_GUARD_ATOMIC) |          \
   WAVE_GUARDS(WAVE_GUARD_WAVE) | WAVE_GUARDS(WAVE_GUARD_MMA))

static const wave_target targets[] = {
    {
        .name = "portable",
        .description = "what every tool runs correctly (the default)",
        .wave_widths = {8, 16, 32, 64},
        .continue_ok = false,
        .break_in_if_ok = false,
        .halt_per_lane = false,
        .calls_ok = false,
        .divergent_wave_ops_ok = false,
        .divergence_stack = 32,
        .uniform_uses_entry = true,
        .mask_op_cost = 1,
        .guard_classes = SAFE_GUARDS,
        .negated_p0_guard_ok = false,
    },
    {
        .name = "wave-emu",
        .description = "the upstream emulator",
        .wave_widths = {8, 16, 32, 64},
        .continue_ok = false,     /* hangs, or overflows its stack inside an if */
        .break_in_if_ok = false,  /* the lanes run the rest of the body once more */
        .halt_per_lane = false,   /* the whole wave ends */
        .calls_ok = false,        /* wave-asm miscomputes targets: works by luck */
        .divergent_wave_ops_ok = true,  /* over the active lanes */
        .divergence_stack = 32,
        .uniform_uses_entry = true,
        .mask_op_cost = 1,
        .guard_classes = ALL_GUARDS,
        .negated_p0_guard_ok = true,
    },
    {
        .name = "wave-ptx",
        .description = "the NVIDIA backend (wave-ptx, then ptxas)",
        .wave_widths = {32},
        .continue_ok = true,
        .break_in_if_ok = true,
        .halt_per_lane = true,
        .calls_ok = false,        /* rejected */
        .divergent_wave_ops_ok = false, /* full-mask shfl.sync, vote.sync */
        .divergence_stack = 0,
        .uniform_uses_entry = false,
        .mask_op_cost = 2,
        .guard_classes = SAFE_GUARDS,
        .negated_p0_guard_ok = false,
    },
    {
        .name = "spec",
        .description = "the specification's intended semantics",
        .wave_widths = {8, 16, 32, 64},
        .continue_ok = true,
        .break_in_if_ok = true,
        .halt_per_lane = true,
        .calls_ok = true,
        .divergent_wave_ops_ok = true,
        .divergence_stack = 32,   /* the minimum every implementation must offer */
        .uniform_uses_entry = true,
        .mask_op_cost = 1,
        .guard_classes = ALL_GUARDS,
        .negated_p0_guard_ok = true,
    },
};

enum { NUM_TARGETS = sizeof(targets) / sizeof(targets[0]) };

const wave_target *wave_target_lookup(const char *name) {
  for (size_t i = 0; i < NUM_TARGETS; i++)
    if (strcmp(targets[i].name, name) == 0)
      return &targets[i];
  return NULL;
}

const wave_target *wave_target_default(void) { return &targets[0]; }

const wave_target *wave_target_at(size_t index) {
  return index < NUM_TARGETS ? &targets[index] : NULL;
}

bool wave_target_runs_width(const wave_target *target, unsigned width) {
  for (size_t i = 0; i < WAVE_TARGET_MAX_WIDTHS; i++)
    if (target->wave_widths[i] && target->wave_widths[i] == width)
      return true;
  return false;
}

wave_guard_class wave_guard_class_of(wave_opcode op) {
  switch (wave_opcode_get(op)->category) {
  case WAVE_CAT_INT: case WAVE_CAT_BIT: case WAVE_CAT_F32: case WAVE_CAT_F16:
  case WAVE_CAT_BF16: case WAVE_CAT_F64: case WAVE_CAT_CVT: case WAVE_CAT_PRED:
    return WAVE_GUARD_ALU;
  case WAVE_CAT_CMP:
    return WAVE_GUARD_COMPARE;
  case WAVE_CAT_SELECT:
    return WAVE_GUARD_SELECT;
  case WAVE_CAT_MOVE:
    return WAVE_GUARD_MOVE;
  case WAVE_CAT_LOAD: case WAVE_CAT_STORE:
    return WAVE_GUARD_MEMORY;
  case WAVE_CAT_ATOMIC:
    return WAVE_GUARD_ATOMIC;
  case WAVE_CAT_WAVE:
    return WAVE_GUARD_WAVE;
  case WAVE_CAT_MMA:
    return WAVE_GUARD_MMA;
  case WAVE_CAT_CONTROL:
    break;
  }
  return op == WAVE_OP_HALT ? WAVE_GUARD_HALT : WAVE_GUARD_NONE;
}

bool wave_target_honours_guard(const wave_target *target, wave_opcode op, int guard,
                               bool negated) {
  if (guard == 0 && (!negated || !target->negated_p0_guard_ok))
    return false;
  wave_guard_class c = wave_guard_class_of(op);
  return c != WAVE_GUARD_NONE && (target->guard_classes & WAVE_GUARDS(c)) != 0;
}
