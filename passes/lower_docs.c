/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lower-docs: lowers the documentation dialect (docs/language.md "Documentation dialect")
 * before the optimizing passes, so that the constants it materialises are theirs to share and
 * hoist. legalize, the last pass of every -O pipeline, lowers what is left the same way; run
 * first, as -O1..-O3 do, this pass leaves it nothing.
 *
 * legalize's lowering loads each immediate into one shared scratch register right before its
 * use, which neither early-cse nor licm can touch (the register holds another constant at the
 * next use). Here a constant that repays it, loaded more than once or inside a loop, gets a
 * register of its own that only ever loads it (xform/lower_docs.c, wave_lower_docs_kernel_owning):
 *
 *   loop                             loop
 *     icmp.ge p2, r9, 8                mov_imm r12, 8 ; icmp_le p2, r12, r9
 *     break p2               ->        break p2
 *     and r10, r4, 1                   mov_imm r13, 1 ; and r10, r4, r13
 *     iadd r9, r9, 1                   mov_imm r13, 1 ; iadd r9, r9, r13
 *   endloop                          endloop
 *
 * early-cse then drops the second `mov_imm r13, 1` and licm takes both loads out of the loop.
 * The most valuable constants (each use weighs 8 per loop around it) get registers first,
 * above every register the kernel mentions and below the optimizer's register budget
 * (wave_pass_max_registers: the kernel's own .registers unless -max-registers or -O3 allows
 * more), with room left for the shared scratch registers the other rewrites need. A constant
 * left without one goes through the shared scratch registers, as in legalize, with a missed
 * remark; each one given a register gets a passed remark. None are given in a module with
 * calls (a subroutine may run on its caller's registers), where the pass lowers as legalize does.
 *
 * Why it is safe: what each rewrite computes is legalize's lowering; an own register is above
 * every register the kernel mentions and every write of it loads the same constant, so the
 * unguarded loads, even in lanes the original guard skips, change nothing anyone reads. No
 * guard, predicate logic, control flow or nesting is added. .registers grows only where
 * legalize's lowering would grow it too (no shared scratch free below it).
 *
 * The option lower-docs-keep leaves the dialect as written (waveopt sets it for -dialect=docs
 * output, as legalize-keep-docs).
 */
#include <stdint.h>

#include "xform/lower_docs.h"
#include "pm/builtin.h"
#include "waveopt/pass.h"

static void report_constant(void *arg, uint32_t value, uint32_t reg, wave_loc first,
                            const char *why_not) {
  wave_pass_context *ctx = arg;
  if (why_not) {
    wave_remark_missed(ctx, "constant-shared", first,
                       "constant %u (first at %u:%u) shares the scratch registers: %s", value,
                       first.line, first.col, why_not);
    return;
  }
  wave_pass_stat_add(ctx, "constants-owned",
                     "Number of constants given a register of their own", 1);
  wave_remark_passed(ctx, "constant-owned", first,
                     "constant %u (first at %u:%u) loaded into r%u, a register of its own",
                     value, first.line, first.col, reg);
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  (void)am;
  if (wave_pass_option(ctx, 0))
    return wave_pass_done(false, WAVE_PRESERVE_ALL);
  bool changed = false;
  if (!wave_lower_docs_kernel_owning(kernel, wave_pass_diags(ctx),
                                     wave_pass_max_registers(ctx, kernel), report_constant, ctx,
                                     &changed)) {
    wave_pass_result failed = {changed, true, WAVE_PRESERVE_NONE, false};
    return failed;
  }
  return wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

static const wave_pass_option_info options[] = {
    {"lower-docs-keep",
     "1: leave documentation-dialect forms as written (for -dialect=docs output)", 0},
};

const wave_pass_info wave_pass_lower_docs = {
    .name = "lower-docs",
    .help = "lower the documentation dialect before optimizing, giving constants loaded more "
            "than once or in loops registers of their own for early-cse and licm",
    .options = options,
    .num_options = sizeof(options) / sizeof(options[0]),
    .run = run,
};
