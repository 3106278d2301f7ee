/* SPDX-License-Identifier: Apache-2.0 */
/*
 * legalize: the last pass of every -O pipeline. It makes the kernel something wave-asm accepts
 * and says what the target will still run wrongly.
 *
 * First it lowers the documentation dialect (docs/language.md "Documentation dialect"), as
 * wave_lower_docs_dialect does for a whole module:
 *
 *   iadd r1, r1, 5        ->  mov_imm r9, 5 ; iadd r1, r1, r9
 *   break !p1             ->  mov_imm r9, 0 ; mov_imm r10, 1 ; select r11, p1, r9, r10 ;
 *                             icmp_ne p3, r11, r9 ; break p3
 *
 * with scratch registers above every register in use (module-wide when the module has a
 * call, since a subroutine runs on its caller's registers) and no new guard. The option
 * legalize-keep-docs skips this step, for output printed in the documentation dialect.
 *
 * Then it checks what is left against the target profile (wave_pass_target):
 *   - what the target runs wrongly, `continue` (docs/toolchain.md "Continue"), a `break`
 *     nested in an `if` ("Break inside an if"), halt or return inside an if or loop ("Halt
 *     and return inside regions"), a guard the target drops ("Guards dropped by wave-ptx"),
 *     nesting deeper than its divergence stack ("Nesting depth") and calls where the target
 *     rejects them ("Calls and labels"), gets a missed remark naming the construct and the
 *     target. Rewriting these is not this pass's job: they came from the input, since no pass
 *     introduces them (docs/toolchain.md "Rules our output keeps"), and are left as they are.
 *   - what no pass may ever produce, a @p0 guard, a guard on a structured instruction or a
 *     call, a register at or beyond .registers, is an internal error: the verifier rejects
 *     these in the input, so one here is a bug in an earlier pass.
 */
#include <stdio.h>

#include "asm/lower_docs.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"

typedef struct legalize {
  wave_kernel *kernel;
  wave_pass_context *ctx;
  const wave_target *target;
  wave_pass_result failed;
  bool broken;
  bool deep_reported;
} legalize;

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get((wave_opcode)in->op)->mnemonic;
}

static void runs_wrongly(legalize *l, wave_loc loc, const char *what) {
  wave_pass_stat_add(l->ctx, "constructs-left",
                     "Number of constructs left that the target runs wrongly", 1);
  wave_remark_missed(l->ctx, "runs-wrongly", loc, "%s at %u:%u runs wrongly on %s; left as it is",
                     what, loc.line, loc.col, l->target->name);
}

static void never_produced(legalize *l, wave_loc loc, const char *what, const wave_instr *in) {
  l->broken = true;
  l->failed = wave_pass_fail(l->ctx, loc, "internal error: %s on '%s' (found by legalize)", what,
                             mnemonic(in));
}

static void check_guard(legalize *l, const wave_instr *in) {
  if (in->guard == WAVE_NO_GUARD)
    return;
  wave_opcode op = (wave_opcode)in->op;
  if (in->guard == 0 && !in->guard_negated)
    never_produced(l, in->src.loc, "'@p0' guard", in);
  else if (wave_opcode_has(op, WAVE_F_STRUCTURED | WAVE_F_CALL))
    never_produced(l, in->src.loc, "guard on a structured instruction or call", in);
  else if (!wave_target_honours_guard(l->target, op, in->guard, in->guard_negated)) {
    char what[64];
    snprintf(what, sizeof(what), "guard '@%sp%d' on '%s'", in->guard_negated ? "!" : "",
             in->guard, mnemonic(in));
    runs_wrongly(l, in->src.loc, what);
  }
}

static void check_registers(legalize *l, const wave_instr *in) {
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(in, refs);
  for (unsigned i = 0; i < n; i++) {
    if (!refs[i].is_pred && refs[i].first + refs[i].count > l->kernel->registers) {
      never_produced(l, in->src.loc, "register at or beyond .registers", in);
      return;
    }
  }
}

static void check_instr(legalize *l, const wave_instr *in, const wave_node *parent) {
  const wave_target *t = l->target;
  check_guard(l, in);
  check_registers(l, in);
  wave_opcode op = (wave_opcode)in->op;
  if (op == WAVE_OP_CONTINUE && !t->continue_ok)
    runs_wrongly(l, in->src.loc, "'continue'");
  else if (op == WAVE_OP_BREAK && parent && parent->kind == WAVE_NODE_IF && !t->break_in_if_ok)
    runs_wrongly(l, in->src.loc, "'break' nested in an 'if'");
  else if (wave_opcode_has(op, WAVE_F_EXIT) && parent && !t->halt_per_lane)
    runs_wrongly(l, in->src.loc,
                 op == WAVE_OP_HALT ? "'halt' inside an 'if' or 'loop'"
                                    : "'return' inside an 'if' or 'loop'");
  else if (op == WAVE_OP_CALL && !t->calls_ok)
    runs_wrongly(l, in->src.loc, "'call'");
}

/* An if or loop opened at `depth` (0 at a region's top level) takes frame depth + 1. */
static void check_depth(legalize *l, const wave_node *node, unsigned depth) {
  unsigned limit = l->target->divergence_stack;
  if (!limit || depth + 1 <= limit || l->deep_reported)
    return;
  l->deep_reported = true;
  char what[64];
  snprintf(what, sizeof(what), "'%s' nested deeper than %u",
           node->kind == WAVE_NODE_IF ? "if" : "loop", limit);
  runs_wrongly(l, node->kind == WAVE_NODE_IF ? node->u.if_.if_src.loc : node->u.loop.loop_src.loc,
               what);
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  (void)am;
  bool changed = false;
  if (!wave_pass_option(ctx, 0) &&
      !wave_lower_docs_kernel(kernel, wave_pass_diags(ctx), &changed)) {
    wave_pass_result failed = {changed, true, WAVE_PRESERVE_NONE};
    return failed;
  }
  legalize l = {kernel, ctx, wave_pass_target(ctx), {0}, false, false};
  wave_foreach_region(r, kernel) {
    wave_walker w;
    wave_walk_init(&w, &r->body);
    while (wave_walk_next(&w)) {
      if (w.event == WAVE_WALK_BLOCK) {
        wave_foreach_instr(in, w.node)
          check_instr(&l, in, wave_node_parent(w.node));
      } else if (w.event == WAVE_WALK_IF || w.event == WAVE_WALK_LOOP) {
        check_depth(&l, w.node, w.depth);
      }
    }
  }
  if (l.broken)
    return l.failed;
  return wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

static const wave_pass_option_info options[] = {
    {"legalize-keep-docs",
     "1: leave documentation-dialect forms as written (for -dialect=docs output)", 0},
};

const wave_pass_info wave_pass_legalize = {
    .name = "legalize",
    .help = "lower the documentation dialect; report what the target runs wrongly",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
