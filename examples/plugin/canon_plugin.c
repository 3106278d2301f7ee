/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pass plugin: a shared object that waveopt loads with -load-pass-plugin=FILE and whose
 * passes and analysis pipelines then name like the built-in ones (waveopt/pass.h, "pass
 * plugins"). Build it against the installed library:
 *
 *   cc -shared -fPIC $(pkg-config --cflags waveopt) canon_plugin.c \
 *      $(pkg-config --libs waveopt) -o canon_plugin.so
 *   waveopt -load-pass-plugin=./canon_plugin.so -passes=canon-commutative,dce in.wave
 *
 * It adds three things:
 *   - canon-commutative, a pass: `iadd rd, ra, rb` and the other commutative integer
 *     operations get their sources in ascending register order (`iadd r1, r7, r3` becomes
 *     `iadd r1, r3, r7`), which lets a later CSE or a hash of the code see equal operations as
 *     equal. Swapping the sources of a commutative operation computes the same value in every
 *     lane, so nothing can go wrong; an instruction whose sources are not both registers is
 *     left alone.
 *   - commutative-ops, an analysis: how many commutative instructions the kernel has, and how
 *     many of them are out of order; print<commutative-ops> prints it.
 *   - refuse-idiv, a pass that fails on the first idiv: what a back end without integer
 *     division would do, and how a failing plugin pass looks to the user (an error at the
 *     instruction, exit 1).
 */
#include <stdio.h>
#include <stdlib.h>

#include <waveopt/edit.h>
#include <waveopt/instr.h>
#include <waveopt/pass.h>

static bool is_commutative(wave_opcode op) {
  switch (op) {
  case WAVE_OP_IADD:
  case WAVE_OP_IMUL:
  case WAVE_OP_IMIN:
  case WAVE_OP_IMAX:
  case WAVE_OP_AND:
  case WAVE_OP_OR:
  case WAVE_OP_XOR:
    return true;
  default:
    return false;
  }
}

/* Sources that are two registers, the higher first. */
static bool out_of_order(const wave_instr *instr) {
  if (!is_commutative(wave_instr_op(instr)) || wave_instr_num_srcs(instr) != 2)
    return false;
  wave_operand a = wave_instr_src(instr, 0), b = wave_instr_src(instr, 1);
  return a.kind == WAVE_OPERAND_GPR && b.kind == WAVE_OPERAND_GPR && a.value > b.value;
}

/* ---- the analysis -------------------------------------------------------------------------- */

typedef struct op_counts {
  size_t commutative, out_of_order;
} op_counts;

static void *count_compute(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags) {
  (void)am;
  op_counts *counts = calloc(1, sizeof(*counts));
  if (!counts) {
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, wave_kernel_loc(kernel), NULL, 0,
                     "out of memory counting commutative operations");
    return NULL;
  }
  wave_foreach_block(block, kernel) {
    wave_foreach_instr(instr, block) {
      counts->commutative += is_commutative(wave_instr_op(instr));
      counts->out_of_order += out_of_order(instr);
    }
  }
  return counts;
}

static void count_destroy(void *result) { free(result); }

static int count_print(const void *result, const wave_kernel *kernel, wave_write_fn write,
                       void *ctx) {
  const op_counts *counts = result;
  char line[160];
  int len = snprintf(line, sizeof(line), "kernel %s: %zu commutative, %zu out of order\n",
                     wave_kernel_name(kernel), counts->commutative, counts->out_of_order);
  return write(ctx, line, (size_t)len);
}

static const wave_analysis_info commutative_ops = {
    .name = "commutative-ops",
    .help = "commutative integer operations, and those with sources out of register order",
    .compute = count_compute,
    .destroy = count_destroy,
    .print = count_print,
};

/* ---- the passes ---------------------------------------------------------------------------- */

static wave_pass_result canon_run(wave_kernel *kernel, wave_analysis_manager *am,
                                  wave_pass_context *ctx) {
  (void)am;
  size_t swapped = 0;
  wave_foreach_block(block, kernel) {
    wave_foreach_instr(instr, block) {
      if (!out_of_order(instr))
        continue;
      wave_operand a = wave_instr_src(instr, 0), b = wave_instr_src(instr, 1);
      if (!wave_instr_set_src(instr, 0, b) || !wave_instr_set_src(instr, 1, a))
        return wave_pass_fail(ctx, wave_instr_loc(instr), "cannot swap the sources");
      swapped++;
      wave_remark_passed(ctx, "sources-swapped", wave_instr_loc(instr), "sources put in order");
    }
  }
  wave_pass_stat_add(ctx, "sources-swapped", "commutative instructions put in order", swapped);
  /* Registers read and written stay the same, but the kernel's text changed: claim nothing. */
  return wave_pass_done(swapped > 0, WAVE_PRESERVE_NONE);
}

static wave_pass_result refuse_run(wave_kernel *kernel, wave_analysis_manager *am,
                                   wave_pass_context *ctx) {
  (void)am;
  wave_foreach_block(block, kernel) {
    wave_foreach_instr(instr, block) {
      if (wave_instr_op(instr) == WAVE_OP_IDIV)
        return wave_pass_fail(ctx, wave_instr_loc(instr), "this back end has no integer division");
    }
  }
  return wave_pass_done(false, WAVE_PRESERVE_ALL);
}

static const wave_pass_info canon_pass = {
    .name = "canon-commutative",
    .help = "puts the register sources of commutative integer operations in ascending order",
    .run = canon_run,
};

static const wave_pass_info refuse_pass = {
    .name = "refuse-idiv",
    .help = "fails on the first idiv",
    .run = refuse_run,
};

/* ---- the entry point ----------------------------------------------------------------------- */

static bool register_passes(wave_pass_registry *registry, wave_diags *diags) {
  return wave_pass_registry_add_analysis(registry, &commutative_ops, diags) >= 0 &&
         wave_pass_registry_add_pass(registry, &canon_pass, diags) &&
         wave_pass_registry_add_pass(registry, &refuse_pass, diags);
}

static const wave_pass_plugin_info plugin = {
    WAVE_PASS_PLUGIN_API_VERSION,
    "canon",
    "1.0",
    register_passes,
};

const wave_pass_plugin_info *wave_get_pass_plugin_info(void) { return &plugin; }
