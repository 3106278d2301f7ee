/* SPDX-License-Identifier: Apache-2.0 */
/* lower-docs where the lit test cannot reach: the invariant that makes its own registers safe
 * (every write of one loads its constant) on generated kernels, the same lowering as legalize's
 * when no register is given, a 100 000-deep loop nest, and generated documentation-dialect
 * kernels through the differential harness, alone and with early-cse, licm and dce. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xform/lower_docs.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/gen.h"
#include "waveopt/instr.h"
#include "waveopt/pass.h"

TU_PASS_SUITE(lower_docs);

typedef struct owned {
  uint32_t value[WAVE_MAX_GPR + 1];
  bool has[WAVE_MAX_GPR + 1];
  unsigned count;
} owned;

static void note_owned(void *arg, uint32_t value, uint32_t reg, wave_loc first,
                       const char *why_not) {
  (void)first;
  owned *o = arg;
  if (why_not) {
    cr_assert_eq(reg, UINT32_MAX);
    return;
  }
  cr_assert_leq(reg, WAVE_MAX_GPR);
  cr_assert_not(o->has[reg], "r%u given twice", reg);
  o->has[reg] = true;
  o->value[reg] = value;
  o->count++;
}

/* Every instruction that writes an own register is an unguarded mov_imm of its constant. */
static void check_own_registers(wave_kernel *k, const owned *o) {
  wave_foreach_block(b, k) {
    wave_foreach_instr(in, b) {
      wave_reg_ref refs[WAVE_MAX_REG_REFS];
      unsigned n = wave_instr_reg_refs(in, refs);
      for (unsigned i = 0; i < n; i++) {
        if (!refs[i].is_def || refs[i].is_pred)
          continue;
        for (uint32_t r = refs[i].first; r < refs[i].first + refs[i].count; r++) {
          if (r > WAVE_MAX_GPR || !o->has[r])
            continue;
          cr_assert_eq(wave_instr_op(in), WAVE_OP_MOV_IMM, "r%u written by something else", r);
          cr_assert_eq(wave_instr_guard(in), WAVE_NO_GUARD);
          cr_assert_eq(wave_instr_operand(in, 1).value, o->value[r]);
        }
      }
    }
  }
}

Test(lower_docs, own_registers_only_ever_load_their_constant, .timeout = 120) {
  unsigned with_owned = 0;
  for (unsigned seed = 0; seed < 200; seed++) {
    wave_gen_options g;
    wave_gen_options_init(&g);
    g.seed = seed;
    g.size = 400;
    g.docs_dialect = true;
    wave_gen_launch launch;
    wave_module *m = tu_generate(&g, &launch);
    wave_foreach_kernel(k, m) {
      owned *o = calloc(1, sizeof(*o));
      cr_assert_not_null(o);
      bool changed = false;
      cr_assert(wave_lower_docs_kernel_owning(k, &diags, WAVE_MAX_GPR + 1, note_owned, o,
                                              &changed));
      check_own_registers(k, o);
      tu_assert_valid(k);
      with_owned += o->count > 0;
      free(o);
    }
    wave_module_destroy(m);
  }
  cr_assert_geq(with_owned, 100);
}

/* With no register to give, the lowering is legalize's, text for text. */
Test(lower_docs, no_room_lowers_as_legalize_does) {
  for (unsigned seed = 0; seed < 50; seed++) {
    wave_gen_options g;
    wave_gen_options_init(&g);
    g.seed = seed;
    g.size = 200;
    g.docs_dialect = true;
    wave_gen_launch launch;
    wave_module *a = tu_generate(&g, &launch);
    wave_module *b = tu_generate(&g, &launch);
    bool changed_a = false, changed_b = false;
    cr_assert(wave_lower_docs_kernel(wave_module_first_kernel(a), &diags, &changed_a));
    cr_assert(wave_lower_docs_kernel_owning(wave_module_first_kernel(b), &diags, 0, NULL, NULL,
                                            &changed_b));
    cr_assert_eq(changed_a, changed_b);
    wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
    char *ta = wave_print_to_string(a, &opts, NULL);
    char *tb = wave_print_to_string(b, &opts, NULL);
    cr_assert_not_null(ta);
    cr_assert_not_null(tb);
    cr_assert_str_eq(ta, tb, "seed %u", seed);
    free(ta);
    free(tb);
    wave_module_destroy(a);
    wave_module_destroy(b);
  }
}

/* `depth` nested loops, each `break p1` first and the innermost `iadd r0, r0, 1`: the constant
 * weighs the most a use can (8 loops and more weigh the same) and gets r1. */
Test(lower_docs, loop_nest_100000_deep, .timeout = 120) {
  enum { DEPTH = 100000 };
  wave_module *m;
  wave_kernel *k;
  wave_builder b = tu_deep_builder(&m, &k);
  for (unsigned i = 0; i < DEPTH; i++) {
    cr_assert_not_null(wave_build_loop(&b));
    cr_assert_not_null(wave_build(&b, WAVE_OP_BREAK, wave_pred(1)));
  }
  wave_instr *add = wave_build(&b, WAVE_OP_IADD, wave_gpr(0), wave_gpr(0), wave_imm(1));
  cr_assert_not_null(add);
  wave_pipeline *p = wave_pipeline_parse(registry, "lower-docs", &diags);
  cr_assert_not_null(p);
  wave_pipeline_options o = {.verify_each = true};
  wave_pipeline_result r = {0};
  cr_assert(wave_pipeline_run(p, m, &o, &r, &diags));
  cr_assert_eq(tu_stat(&r, "constants-owned"), 1);
  cr_assert_eq(wave_instr_op(wave_instr_prev(add)), WAVE_OP_MOV_IMM);
  cr_assert_eq(wave_instr_operand(wave_instr_prev(add), 0).value, 1);
  cr_assert_eq(wave_instr_operand(add, 2).kind, WAVE_OPERAND_GPR);
  cr_assert_eq(wave_instr_operand(add, 2).value, 1);
  cr_assert_eq(wave_kernel_registers(k), 8);
  wave_pipeline_result_free(&r);
  wave_pipeline_destroy(p);
  wave_module_destroy(m);
}

/* Generated documentation-dialect kernels, before and after, in the interpreter at W = 8, 32
 * and 64. */
static void check_generated(const char *target, const char *pipeline_text, unsigned seeds) {
  unsigned fired =
      tu_check_generated_docs_pipeline(registry, target, pipeline_text, seeds, "lower-docs");
  cr_assert_geq(fired, seeds / 2);
}

Test(lower_docs, generated_on_portable, .timeout = 300) {
  check_generated("portable", "lower-docs,legalize", 150);
}

Test(lower_docs, generated_with_early_cse_licm_and_dce_on_wave_emu, .timeout = 300) {
  check_generated("wave-emu", "lower-docs,fixpoint(early-cse,licm,dce),legalize", 150);
}
