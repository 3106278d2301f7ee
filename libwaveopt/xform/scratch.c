/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scratch registers for rewrites (xform/xform.h). A register is free for a rewrite of a node
 * when no lane can read its old value afterwards and the node does not use it: dead right
 * before and right after the node, and not mentioned inside. The lanes that run the rewritten
 * code are exactly those active at the node, which is the question liveness answers
 * (waveopt/liveness.h); lanes parked elsewhere run none of it and keep their values.
 * Registers at or above .registers hold nothing, so growing .registers yields free ones, up to
 * the budget the pass was given.
 */
#include "xform/xform.h"

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "waveopt/instr.h"

void wave_scratch_init(wave_scratch *s, wave_kernel *kernel, wave_regset taken, uint32_t limit) {
  s->kernel = kernel;
  s->taken = taken;
  s->limit = limit < wave_kernel_registers(kernel) ? wave_kernel_registers(kernel) : limit;
  if (s->limit > WAVE_MAX_GPR + 1)
    s->limit = WAVE_MAX_GPR + 1;
}

bool wave_scratch_gpr(wave_scratch *s, uint32_t *r) {
  for (uint32_t i = 0; i < s->limit; i++) {
    if (wave_regset_test(s->taken, WAVE_REG_GPR(i)))
      continue;
    wave_regset_set(&s->taken, WAVE_REG_GPR(i));
    if (i >= wave_kernel_registers(s->kernel)) {
      wave_kernel_set_registers(s->kernel, i + 1);
    }
    *r = i;
    return true;
  }
  return false;
}

unsigned wave_scratch_gprs_left(const wave_scratch *s) {
  unsigned n = 0;
  for (uint32_t i = 0; i < s->limit; i++)
    n += !wave_regset_test(s->taken, WAVE_REG_GPR(i));
  return n;
}

bool wave_scratch_pred(wave_scratch *s, uint32_t *p) {
  static const uint32_t order[WAVE_NUM_PREDS] = {1, 2, 3, 0};
  for (unsigned i = 0; i < WAVE_NUM_PREDS; i++) {
    if (wave_regset_test(s->taken, WAVE_REG_PRED(order[i])))
      continue;
    wave_regset_set(&s->taken, WAVE_REG_PRED(order[i]));
    *p = order[i];
    return true;
  }
  return false;
}

/* Every register the subtree of node reads or writes, the predicates of its ifs included. */
static wave_regset mentioned_in(const wave_node *node, wave_regset set) {
  for (const wave_node *n = node; n; n = wave_tree_next(node, n)) {
    if (wave_node_kind_of(n) == WAVE_NODE_IF)
      wave_regset_set(&set, WAVE_REG_PRED(wave_if_cond(n).value));
    if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
      continue;
    wave_foreach_instr(i, n) {
      wave_regset uses, defs;
      wave_instr_uses(i, &uses);
      wave_instr_defs(i, &defs);
      set = wave_regset_union(set, wave_regset_union(uses, defs));
    }
  }
  return set;
}

/* Whether the kernel holds a call, and whether a negated predicate operand (documentation
 * dialect: `break !p1`, or an if on !p built through the API) still waits for lowering. */
static void scan_kernel(const wave_kernel *kernel, bool *call, bool *negated) {
  *call = *negated = false;
  wave_foreach_region(r, (wave_kernel *)kernel) {
    wave_foreach_node(top, wave_region_body(r)) {
      for (const wave_node *n = top; n; n = wave_tree_next(top, n)) {
        if (wave_node_kind_of(n) == WAVE_NODE_IF)
          *negated |= wave_if_cond(n).negated != 0;
        if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
          continue;
        wave_foreach_instr(i, n) {
          *call |= wave_instr_op(i) == WAVE_OP_CALL;
          for (unsigned k = 0; k < wave_instr_num_operands(i); k++)
            *negated |= wave_instr_operand(i, k).kind == WAVE_OPERAND_PRED &&
                        wave_instr_operand(i, k).negated;
        }
      }
    }
  }
}

wave_regset wave_xform_kernel_taken(const wave_kernel *kernel) {
  bool call;
  return wave_xform_kernel_census(kernel, &call);
}

wave_regset wave_xform_kernel_census(const wave_kernel *kernel, bool *has_call) {
  bool call, negated;
  scan_kernel(kernel, &call, &negated);
  *has_call = call;
  wave_regset mentioned = wave_regset_empty();
  if (call || negated)
    wave_foreach_region(r, (wave_kernel *)kernel) {
      wave_foreach_node(top, wave_region_body(r)) mentioned = mentioned_in(top, mentioned);
    }
  wave_regset taken = call ? mentioned : wave_regset_empty();
  /* Lowering a negated operand takes the lowest predicate the kernel never mentions
   * (docs/language.md "Documentation dialect"): keep it unmentioned. */
  for (uint32_t p = 0; negated && p < WAVE_NUM_PREDS; p++) {
    if (!wave_regset_test(mentioned, WAVE_REG_PRED(p))) {
      wave_regset_set(&taken, WAVE_REG_PRED(p));
      break;
    }
  }
  return taken;
}

wave_regset wave_xform_taken_with(const wave_liveness *liveness, const wave_node *node,
                                  wave_regset kernel_taken) {
  wave_node *n = (wave_node *)node;
  wave_regset taken = wave_regset_union(wave_liveness_at(liveness, wave_cursor_before_node(n)),
                                        wave_liveness_at(liveness, wave_cursor_after_node(n)));
  return mentioned_in(node, wave_regset_union(taken, kernel_taken));
}

wave_regset wave_xform_taken(const wave_liveness *liveness, const wave_node *node) {
  const wave_region *region = wave_node_region(node);
  wave_regset kernel_taken =
      region ? wave_xform_kernel_taken(wave_region_kernel(region)) : wave_regset_empty();
  return wave_xform_taken_with(liveness, node, kernel_taken);
}
