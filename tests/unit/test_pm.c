/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Target profiles: the observed facts of each row, and `portable` staying the weakest of them.
 */
#include <criterion/criterion.h>

#include "waveopt/target.h"

/* ---- targets -------------------------------------------------------------------------------- */

Test(targets, lookup_and_iteration) {
  cr_assert_str_eq(wave_target_default()->name, "portable");
  cr_assert_eq(wave_target_lookup("portable"), wave_target_default());
  cr_assert_null(wave_target_lookup("wave-gcn"));
  const char *names[] = {"portable", "wave-emu", "wave-ptx", "spec"};
  size_t n = 0;
  for (const wave_target *t; (t = wave_target_at(n)); n++) {
    cr_assert_str_eq(t->name, names[n]);
    cr_assert_eq(wave_target_lookup(t->name), t);
    cr_assert_not_null(t->description);
  }
  cr_assert_eq(n, 4);
}

Test(targets, the_observed_facts) {
  const wave_target *emu = wave_target_lookup("wave-emu"), *ptx = wave_target_lookup("wave-ptx");
  const wave_target *spec = wave_target_lookup("spec");
  cr_assert_not(emu->continue_ok);
  cr_assert_not(emu->break_in_if_ok);
  cr_assert_not(emu->halt_per_lane);
  cr_assert_eq(emu->divergence_stack, 32);
  cr_assert(wave_target_honours_guard(emu, WAVE_OP_IADD, 0, true), "@!p0 is honoured");
  cr_assert(ptx->continue_ok && ptx->break_in_if_ok && ptx->halt_per_lane);
  cr_assert(wave_target_runs_width(ptx, 32));
  cr_assert_not(wave_target_runs_width(ptx, 64));
  cr_assert_not(wave_target_honours_guard(ptx, WAVE_OP_IADD, 0, true), "@!p0 is dropped");
  cr_assert_not(wave_target_honours_guard(ptx, WAVE_OP_DEVICE_STORE_U32, 1, false));
  cr_assert(wave_target_honours_guard(emu, WAVE_OP_DEVICE_STORE_U32, 1, false));
  cr_assert(wave_target_honours_guard(ptx, WAVE_OP_HALT, 2, true));
  cr_assert(wave_target_runs_width(spec, 8) && wave_target_runs_width(spec, 64));
  cr_assert_geq(spec->divergence_stack, 32);
  for (size_t i = 0; wave_target_at(i); i++) {
    const wave_target *t = wave_target_at(i);
    cr_assert_not(wave_target_honours_guard(t, WAVE_OP_IADD, 0, false), "@p0 is no guard");
    cr_assert_not(wave_target_honours_guard(t, WAVE_OP_IF, 1, false), "%s", t->name);
    cr_assert_not(wave_target_honours_guard(t, WAVE_OP_RETURN, 1, false), "%s", t->name);
  }
}

/* The opcode table's GUARD_OK flag says which guards survive every tool: portable agrees. */
Test(targets, portable_guards_match_the_opcode_table) {
  const wave_target *portable = wave_target_default();
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++)
    cr_assert_eq(wave_target_honours_guard(portable, (wave_opcode)op, 1, false),
                 wave_opcode_has((wave_opcode)op, WAVE_F_GUARD_OK), "%s",
                 wave_opcode_table[op].mnemonic);
}

/* A new row that is weaker somewhere must weaken portable too: this test says where. */
Test(targets, portable_is_the_weakest_of_all_rows) {
  const wave_target *p = wave_target_default();
  for (size_t i = 1; wave_target_at(i); i++) {
    const wave_target *t = wave_target_at(i);
    cr_assert(!p->continue_ok || t->continue_ok, "%s", t->name);
    cr_assert(!p->break_in_if_ok || t->break_in_if_ok, "%s", t->name);
    cr_assert(!p->halt_per_lane || t->halt_per_lane, "%s", t->name);
    cr_assert(t->divergence_stack == 0 || p->divergence_stack <= t->divergence_stack, "%s",
              t->name);
    cr_assert(p->uniform_uses_entry || !t->uniform_uses_entry, "%s", t->name);
    cr_assert_eq(p->guard_classes & ~t->guard_classes, 0, "%s", t->name);
    cr_assert(!p->negated_p0_guard_ok || t->negated_p0_guard_ok, "%s", t->name);
    for (size_t w = 0; w < WAVE_TARGET_MAX_WIDTHS && t->wave_widths[w]; w++)
      cr_assert(wave_target_runs_width(p, t->wave_widths[w]), "%s runs %u lanes", t->name,
                t->wave_widths[w]);
  }
}
