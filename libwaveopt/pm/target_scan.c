/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a target runs wrongly in a kernel, construct by construct (waveopt/target.h,
 * wave_target_scan). One walk in text order, no recursion: each instruction is held to the
 * target's columns, and the first if or loop nested deeper than its divergence stack is named.
 * legalize reports every finding after its rewrites; the differential harness compares the
 * findings of a kernel before and after a pass, so that no pass adds one (docs/toolchain.md
 * "Rules our output keeps").
 */
#include <stdio.h>

#include "ir/code.h"
#include "waveopt/edit.h"
#include "waveopt/target.h"
#include "waveopt/waveopt.h"

typedef struct scan {
  const wave_target *target;
  wave_target_finding_fn fn;
  void *arg;
} scan;

static void found(const scan *s, wave_target_hazard hazard, const wave_instr *instr,
                  const wave_node *node, wave_loc loc, const char *what) {
  wave_target_finding f = {hazard, instr, node, loc, what};
  s->fn(s->arg, &f);
}

static void scan_instr(const scan *s, const wave_instr *in, const wave_node *parent) {
  const wave_target *t = s->target;
  wave_opcode op = wave_instr_op(in);
  const char *mnemonic = wave_opcode_get(op)->mnemonic;
  if (wave_instr_guard(in) != WAVE_NO_GUARD &&
      !wave_target_honours_guard(t, op, wave_instr_guard(in), wave_instr_guard_negated(in))) {
    char what[64];
    snprintf(what, sizeof(what), "guard '@%sp%d' on '%s'", wave_instr_guard_negated(in) ? "!" : "",
             wave_instr_guard(in), mnemonic);
    found(s, WAVE_HAZARD_GUARD, in, NULL, wave_instr_loc(in), what);
  }
  if (op == WAVE_OP_CONTINUE && !t->continue_ok)
    found(s, WAVE_HAZARD_CONTINUE, in, NULL, wave_instr_loc(in), "'continue'");
  else if (op == WAVE_OP_BREAK && parent && wave_node_kind_of(parent) == WAVE_NODE_IF &&
           !t->break_in_if_ok)
    found(s, WAVE_HAZARD_BREAK_IN_IF, in, NULL, wave_instr_loc(in), "'break' nested in an 'if'");
  else if (wave_opcode_has(op, WAVE_F_EXIT) && parent && !t->halt_per_lane)
    found(s, WAVE_HAZARD_EXIT_IN_REGION, in, NULL, wave_instr_loc(in),
          op == WAVE_OP_HALT ? "'halt' inside an 'if' or 'loop'"
                             : "'return' inside an 'if' or 'loop'");
  else if (op == WAVE_OP_CALL && !t->calls_ok)
    found(s, WAVE_HAZARD_CALL, in, NULL, wave_instr_loc(in), "'call'");
}

void wave_target_scan(const wave_kernel *kernel, const wave_target *target,
                      wave_target_finding_fn fn, void *arg) {
  scan s = {target, fn, arg};
  unsigned limit = target->divergence_stack;
  bool deep_found = false;
  wave_foreach_region(r, kernel) {
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (wave_const_walk_next(&w)) {
      if (w.event == WAVE_WALK_BLOCK) {
        const wave_node *parent = wave_node_parent(w.node);
        for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in))
          scan_instr(&s, in, parent);
        continue;
      }
      /* An if or loop opened at depth d (0 at a region's top level) takes frame d + 1. */
      if ((w.event != WAVE_WALK_IF && w.event != WAVE_WALK_LOOP) || !limit ||
          w.depth + 1 <= limit || deep_found)
        continue;
      deep_found = true;
      bool is_if = w.event == WAVE_WALK_IF;
      char what[64];
      snprintf(what, sizeof(what), "'%s' nested deeper than %u", is_if ? "if" : "loop", limit);
      found(&s, WAVE_HAZARD_DEPTH, NULL, w.node,
            is_if ? wave_node_origin(w.node, WAVE_LINE_IF).loc
                  : wave_node_origin(w.node, WAVE_LINE_LOOP).loc,
            what);
    }
  }
}
