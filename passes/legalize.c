/* SPDX-License-Identifier: Apache-2.0 */
/*
 * legalize: the last pass of every -O pipeline. It makes the kernel something wave-asm accepts
 * and says what the target will still run wrongly.
 *
 * First, where the target cannot run `call` (docs/toolchain.md "Calls and labels": every tool
 * but the spec's), it replaces each call by a copy of the subroutine, less its closing return,
 * where the subroutine ends in its only return and calls itself through no chain of calls
 * (libwaveopt/xform/inline_calls.c says why that is safe); other calls stay, with a missed
 * remark, and are reported below.
 *
 * Then it lowers the documentation dialect (docs/language.md "Documentation dialect"), as
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
 * Then, where the target runs a `break` nested in an `if` wrongly (docs/toolchain.md "Break
 * inside an if": wave-emu, hence portable too, which is what every tool runs correctly), it
 * takes each such break out of its ifs, innermost if first, with the predicated-break rewrite
 * (wave_exit_if_hoist; passes/predicated_break.c says why it is safe):
 *
 *   loop                         loop
 *     if p1                        @p1 S                  (S, T under the if's guard)
 *       S ; break p2       ->      p3 = p1 and p2         (compares, no predicate logic)
 *       T                          break p3
 *     endif                        @p1 T
 *
 * An if left holding only that break is then taken out of the if around it, up to the loop
 * body. The rewrite removes frames and adds none, so depth never grows. It is refused, with a
 * missed remark naming the if and why, where code beside the break cannot take a guard on the
 * target (a wave operation anywhere, memory on portable), where control flow or a second exit
 * sits beside it, or where no scratch is free; the break then becomes a flag below.
 * Being needed for correct results, legalize's rewrites may grow .registers up to every
 * encodable GPR unless -max-registers sets a lower limit
 * (wave_pass_max_registers_to_legalize); the documentation-dialect lowering above grows it
 * the same way.
 * A continue is not moved here: out of its if it still runs wrongly on the emulator.
 *
 * Then, where the target runs `continue`, a break still nested in an if, or `halt` and
 * `return` inside an if or loop, wrongly (docs/toolchain.md "Continue", "Break inside an if",
 * "Halt and return inside regions": wave-emu, portable), it
 * rewrites them into per-lane flags, one top-level if or loop at a time (wave_exit_flags_lower;
 * libwaveopt/xform/exit_flags.c says why it is safe):
 *
 *   loop                           loop
 *     if p1                          mov_imm rK, 0
 *       continue p2          ->      if p1  select rK, p2, rOne, rK  endif
 *       S                            icmp_eq p3, rK, rZero ; if p3  S  endif    (and T alike)
 *     endif                        endloop
 *     T
 *   endloop
 *
 * a break into a break flag the loop body breaks on right after the part that holds it, and
 * a halt inside a region into a done flag, each loop around breaking on it and a guarded
 * halt at the top level ending those lanes. This runs after the breaks are taken out of their
 * ifs (with liveness recomputed), and keeps every break directly in its loop body. The flags
 * need scratch GPRs: with none free within that limit, or where the rewrite would nest
 * deeper than -max-divergence-depth, the pass fails with an error naming the exit, since the
 * target would otherwise run the kernel wrongly. A halt in a subroutine's region, an exit in
 * a node that also holds a barrier or call, and, where the target's wave operations need every
 * live lane (wave-ptx, hence portable), an exit whose flag would park lanes at a wave
 * operation, are refused with a missed remark and reported below: a flag parks lanes that the
 * input ended, and what waits for them, or counts them, would see them missing.
 *
 * Both rewrites ask for liveness, and for the registers the kernel takes, only once they meet
 * something to rewrite: most kernels hold nothing of the kind, and at -O0 legalize is the whole
 * pipeline.
 *
 * Then it checks what is left against the target profile (wave_pass_target, through
 * wave_target_scan, which the differential harness uses too):
 *   - what the target runs wrongly, `continue` (docs/toolchain.md "Continue"), a `break`
 *     nested in an `if` ("Break inside an if"), halt or return inside an if or loop ("Halt
 *     and return inside regions"), a guard the target drops ("Guards dropped by wave-ptx"),
 *     nesting deeper than its divergence stack ("Nesting depth") and calls where the target
 *     rejects them ("Calls and labels"), gets a missed remark naming the construct and the
 *     target. Apart from the rewrites above they are left as they are: they came from the
 *     input, since no pass introduces them (docs/toolchain.md "Rules our output keeps"). A
 *     halt or return left in a region also gets a warning [-Wtoolchain]: unlike the others,
 *     nothing in the input said so, and -Werror must fail on it.
 *   - what no pass may ever produce, a @p0 guard, a guard on a structured instruction or a
 *     call, a register at or beyond .registers, is an internal error: the verifier rejects
 *     these in the input, so one here is a bug in an earlier pass.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "waveopt/edit.h"
#include "waveopt/pass.h"
#include "xform/exit_flags.h"
#include "xform/inline_calls.h"
#include "xform/lower_docs.h"
#include "xform/predicated_break.h"
#include "xform/xform.h"

typedef struct legalize {
  wave_kernel *kernel;
  wave_pass_context *ctx;
  const wave_target *target;
  wave_pass_result failed;
  bool broken;
} legalize;

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->mnemonic;
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

/* What no pass may produce, and the verifier rejects in the input: a @p0 guard, a guard on a
 * structured instruction or call, a register at or beyond .registers. */
/* What is wrong with the guard of `in` that no pass produces, or NULL. */
static const char *bad_guard(const wave_instr *in) {
  if (wave_instr_guard(in) == 0 && !wave_instr_guard_negated(in))
    return "'@p0' guard";
  if (wave_instr_guard(in) != WAVE_NO_GUARD &&
      wave_opcode_has(wave_instr_op(in), WAVE_F_STRUCTURED | WAVE_F_CALL))
    return "guard on a structured instruction or call";
  return NULL;
}

static void check_never_produced(legalize *l, const wave_instr *in) {
  const char *guard = bad_guard(in);
  if (guard)
    never_produced(l, wave_instr_loc(in), guard, in);
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(in, refs);
  for (unsigned i = 0; i < n; i++) {
    if (!refs[i].is_pred && refs[i].first + refs[i].count > wave_kernel_registers(l->kernel)) {
      never_produced(l, wave_instr_loc(in), "register at or beyond .registers", in);
      return;
    }
  }
}

/* A halt or return left inside a region, by a refused rewrite: unlike a continue or a break in
 * an if, nothing in the input says it runs wrongly on the target, so it is a warning here, and
 * -Werror fails on it. */
static void exit_kept(legalize *l, const wave_target_finding *f) {
  wave_pass_stat_add(l->ctx, "exits-kept",
                     "Number of halts and returns left inside regions that the target runs "
                     "wrongly", 1);
  wave_module_report(wave_kernel_module(l->kernel), wave_pass_diags(l->ctx), WAVE_SEV_WARNING,
                     "toolchain", f->loc,
                     "'%s' inside an 'if' or 'loop' is left as it is for %s, where the upstream "
                     "emulator ends the whole wave here or revives its lanes at the next 'endif' "
                     "or 'endloop' (-pass-remarks-missed=legalize says why it was not rewritten)",
                     mnemonic(f->instr), l->target->name);
}

static void report_finding(void *arg, const wave_target_finding *f) {
  legalize *l = arg;
  /* Those guards are never produced: check_never_produced fails the pass on them. */
  if (f->hazard == WAVE_HAZARD_GUARD && bad_guard(f->instr))
    return;
  if (f->hazard == WAVE_HAZARD_EXIT_IN_REGION)
    exit_kept(l, f);
  runs_wrongly(l, f->loc, f->what);
}

/* ---- breaks nested in ifs ------------------------------------------------------------------ */

static bool holds_break(const wave_node *if_node) {
  const wave_node_list *sides[2] = {wave_if_then(if_node), wave_if_else(if_node)};
  for (unsigned s = 0; s < 2; s++) {
    for (const wave_node *n = wave_node_list_first(sides[s]); n; n = wave_node_next(n)) {
      if (wave_node_kind_of(n) != WAVE_NODE_BLOCK)
        continue;
      wave_foreach_instr(in, n) {
        if (wave_instr_op(in) == WAVE_OP_BREAK)
          return true;
      }
    }
  }
  return false;
}

/* Takes each break out of the ifs around it, innermost if first, so that an if left holding
 * only a break by the rewrite of one inside it is seen afterwards (wave_exit_if_hoist). A
 * continue beside no break stays where it is: moving it is no repair. Returns false on out of
 * memory. */
static bool hoist_breaks(legalize *l, wave_analysis_manager *am, bool *changed) {
  size_t count;
  wave_node *const *ifs = wave_xform_collect_ifs(am, l->kernel, WAVE_INNER_IFS_FIRST, &count);
  if (!ifs)
    return false;
  /* Liveness, and the census of the registers the kernel takes, wait for the first if that
   * holds a break: most kernels have none. */
  wave_exit_if_env env;
  bool env_ready = false;
  bool ok = true;
  for (size_t i = 0; ok && i < count; i++) {
    wave_node *node = ifs[i];
    if (!holds_break(node))
      continue;
    if (!env_ready) {
      const wave_liveness *liveness = wave_analysis_get(am, l->kernel, WAVE_ANALYSIS_LIVENESS);
      if (!liveness) {
        ok = false;
        break;
      }
      wave_exit_if_env_init(&env, l->target, liveness, wave_xform_kernel_taken(l->kernel),
                            wave_pass_max_registers_to_legalize(l->ctx, l->kernel));
      env_ready = true;
    }
    wave_loc loc = wave_node_origin(node, WAVE_LINE_IF).loc;
    wave_exit_if_result r;
    switch (wave_exit_if_hoist(&env, node, &r)) {
    case WAVE_EXIT_IF_DONE:
      *changed = true;
      wave_pass_stat_add(l->ctx, "breaks-hoisted",
                         "Number of breaks taken out of an if for the target", 1);
      wave_remark_passed(l->ctx, "break-hoisted", loc,
                         "if at %u:%u removed for %s: its break at %u:%u now breaks on %s",
                         loc.line, loc.col, l->target->name, wave_instr_loc(r.exit).line,
                         wave_instr_loc(r.exit).col, r.what);
      break;
    case WAVE_EXIT_IF_REFUSED:
      wave_remark_missed(l->ctx, "break-kept", loc, "if at %u:%u keeps its break on %s: %s",
                         loc.line, loc.col, l->target->name, r.what);
      break;
    case WAVE_EXIT_IF_NOT_SHAPE:
      break;
    case WAVE_EXIT_IF_NO_MEMORY:
      ok = false;
      break;
    }
  }
  return ok;
}

/* ---- continue, a break left in an if, and halt or return inside regions --------------------- */

/* What each kind of exit rewritten into flags counts and says. */
typedef struct flag_rewrite {
  const char *stat, *stat_help, *remark, *effect;
} flag_rewrite;

static const flag_rewrite break_rewrite = {
    "breaks-rewritten", "Number of breaks nested in an if rewritten into a per-lane flag",
    "break-rewritten",
    "its lanes skip the rest of the loop body under a per-lane flag and break there"};
static const flag_rewrite continue_rewrite = {
    "continues-rewritten", "Number of continues rewritten into a per-lane flag",
    "continue-rewritten", "the rest of its iteration runs under a per-lane flag"};
static const flag_rewrite halt_rewrite = {
    "exits-rewritten", "Number of halts and returns inside regions rewritten into a done flag",
    "exit-rewritten", "its lanes skip the rest under a per-lane done flag"};

static void exit_rewritten(void *arg, const wave_instr *exit) {
  legalize *l = arg;
  wave_loc loc = wave_instr_loc(exit);
  const flag_rewrite *r = wave_instr_op(exit) == WAVE_OP_BREAK      ? &break_rewrite
                          : wave_instr_op(exit) == WAVE_OP_CONTINUE ? &continue_rewrite
                                                                    : &halt_rewrite;
  wave_pass_stat_add(l->ctx, r->stat, r->stat_help, 1);
  wave_remark_passed(l->ctx, r->remark, loc, "%s at %u:%u rewritten for %s: %s", mnemonic(exit),
                     loc.line, loc.col, l->target->name, r->effect);
}

/* Rewrites every continue, and every halt or return inside an if or loop, where the target
 * runs them wrongly (xform/exit_flags.h), one top-level if or loop at a time. The nodes of a
 * region go last first: in a subroutine a rewrite puts the code after its node under an if,
 * later nodes included, which must be rewritten by then. Returns false on out of memory; a
 * rewrite that cannot be made (scratch, depth) fails the pass through l->failed. */
static bool lower_exits(legalize *l, wave_analysis_manager *am, bool *changed) {
  const wave_target *t = l->target;
  wave_regset reserved = wave_regset_empty();
  wave_exit_flags_env env = {t,
                             NULL,
                             &reserved,
                             false,
                             wave_pass_max_registers_to_legalize(l->ctx, l->kernel),
                             wave_pass_max_divergence_depth(l->ctx),
                             !t->continue_ok,
                             !t->halt_per_lane,
                             !t->break_in_if_ok,
                             exit_rewritten,
                             l};
  /* Liveness and the register census only for a kernel with something to rewrite. */
  bool wanted = false;
  wave_foreach_region(r, l->kernel) {
    for (wave_node *n = wave_node_list_first(wave_region_body(r)); n && !wanted;
         n = wave_node_next(n))
      wanted = wave_node_kind_of(n) != WAVE_NODE_BLOCK && wave_exit_flags_wanted(&env, n);
  }
  if (!wanted)
    return true;
  if (!(env.liveness = wave_analysis_get(am, l->kernel, WAVE_ANALYSIS_LIVENESS)))
    return false;
  reserved = wave_xform_kernel_census(l->kernel, &env.has_call);
  bool edited = false;
  wave_foreach_region(r, l->kernel) {
    wave_node *prev;
    for (wave_node *n = wave_node_list_last(wave_region_body(r)); n && !l->broken; n = prev) {
      prev = wave_node_prev(n);
      if (wave_node_kind_of(n) == WAVE_NODE_BLOCK)
        continue;
      wave_exit_flags_result res;
      switch (wave_exit_flags_lower(&env, n, &res)) {
      case WAVE_EXIT_FLAGS_DONE:
        edited = true;
        break;
      case WAVE_EXIT_FLAGS_NONE:
        break;
      case WAVE_EXIT_FLAGS_REFUSED:
        wave_remark_missed(l->ctx, "exit-kept", res.loc, "%s", res.what);
        break;
      case WAVE_EXIT_FLAGS_FAILED:
        edited = true;
        l->broken = true;
        l->failed = wave_pass_fail(l->ctx, res.loc, "%s", res.what);
        break;
      case WAVE_EXIT_FLAGS_NO_MEMORY:
        return false;
      }
    }
  }
  if (edited) {
    *changed = true;
    wave_normalize_kernel(l->kernel);
  }
  return true;
}

static wave_pass_result inline_failed(wave_pass_context *ctx, wave_kernel *kernel, bool changed) {
  wave_pass_result failed =
      wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory inlining calls in legalize");
  failed.changed = changed;
  return failed;
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  bool changed = false;
  bool inline_calls = !wave_pass_target(ctx)->calls_ok;
  if (inline_calls && !wave_inline_calls(kernel, ctx, WAVE_INLINE_FIRST, &changed))
    return inline_failed(ctx, kernel, changed);
  bool lowered = false;
  if (!wave_pass_option(ctx, 0) &&
      !wave_lower_docs_kernel(kernel, wave_pass_diags(ctx), &lowered)) {
    wave_pass_result failed = {changed || lowered, true, WAVE_PRESERVE_NONE, false};
    return failed;
  }
  changed |= lowered;
  legalize l = {kernel, ctx, wave_pass_target(ctx), {0}, false};
  if (!l.target->break_in_if_ok) {
    if (changed)
      wave_analysis_invalidate(am, kernel, WAVE_PRESERVE_NONE);
    if (!hoist_breaks(&l, am, &changed))
      return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in legalize");
  }
  if (!l.target->continue_ok || !l.target->halt_per_lane || !l.target->break_in_if_ok) {
    if (changed)
      wave_analysis_invalidate(am, kernel, WAVE_PRESERVE_NONE);
    if (!lower_exits(&l, am, &changed))
      return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in legalize");
    if (l.broken)
      return l.failed;
  }
  if (inline_calls && !wave_inline_calls(kernel, ctx, WAVE_INLINE_LAST, &changed))
    return inline_failed(ctx, kernel, changed);
  wave_foreach_region(r, kernel) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (wave_walk_next(&w)) {
      if (w.event == WAVE_WALK_BLOCK) {
        wave_foreach_instr(in, w.node)
          check_never_produced(&l, in);
      }
    }
  }
  wave_target_scan(kernel, l.target, report_finding, &l);
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
    .help = "inline calls and lower the documentation dialect; take breaks out of ifs, and "
            "rewrite the breaks left in ifs, continue and halt inside regions into per-lane flags, "
            "where the target runs them wrongly; report what the target still runs wrongly",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
