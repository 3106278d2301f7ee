/* SPDX-License-Identifier: Apache-2.0 */
/* Liveness (analysis/liveness.c): hand-written cases for each rule, and a soundness gate that
 * runs generated kernels while clobbering, after every instruction, every register liveness
 * calls dead there; the kernel's results must not change. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/gen.h"
#include "waveopt/instr.h"
#include "waveopt/interp.h"
#include "waveopt/liveness.h"
#include "waveopt/waveopt.h"

static wave_module *parse(const char *text) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_string(text, strlen(text), "test.wave", &diags);
  cr_assert_not_null(m);
  wave_diags_free(&diags);
  return m;
}

/* The n-th instruction of the kernel in text order. */
static const wave_instr *nth(wave_kernel *k, unsigned n) {
  wave_foreach_block(b, k) {
    wave_foreach_instr(i, b) {
      if (n-- == 0)
        return i;
    }
  }
  cr_assert_fail("no instruction %u", n);
  return NULL;
}

static bool live(wave_regset s, unsigned reg) { return wave_regset_test(s, reg); }

Test(liveness, kernel_argument_is_live_in_and_unguarded_halt_ends_everything) {
  wave_module *m = parse(".kernel k\n    mov_imm r1, 1\n    device_store_u32 r0, r1\n"
                         "    halt\n    mov_imm r2, 2\n.end\n");
  wave_kernel *k = m->first_kernel;
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(0)));
  cr_assert(!live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(1)), "killed at top level");
  cr_assert(live(wave_liveness_out(lv, nth(k, 0)), WAVE_REG_GPR(1)));
  wave_regset after_halt = wave_liveness_out(lv, nth(k, 2));
  cr_assert(wave_regset_equal(after_halt, wave_regset_empty()));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, guarded_halt_keeps_what_follows_live) {
  wave_module *m = parse(".kernel k\n    mov_imm r2, 2\n    icmp_eq p1, r2, r2\n"
                         "    @p1 halt\n    device_store_u32 r0, r2\n    halt\n.end\n");
  wave_kernel *k = m->first_kernel;
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_out(lv, nth(k, 2)), WAVE_REG_GPR(2)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 2)), WAVE_REG_PRED(1)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, partial_definition_inside_if_does_not_kill) {
  wave_module *m = parse(".kernel k\n    mov_imm r3, 0\n    mov_sr r1, sr_lane_id\n"
                         "    icmp_eq p1, r1, r3\n    if p1\n        mov_imm r3, 1\n    endif\n"
                         "    device_store_u32 r0, r3\n    halt\n.end\n");
  wave_kernel *k = m->first_kernel;
  wave_liveness *lv = wave_liveness_compute(k);
  /* Lanes parked at the if keep r3 = 0 from the first instruction. */
  cr_assert(live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_GPR(3)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 0)), WAVE_REG_GPR(3)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, loop_carried_value_is_live_around_the_back_edge) {
  wave_module *m = parse(".kernel k\n    mov_imm r5, 3\n    mov_imm r6, 0\n"
                         "    loop\n        iadd r6, r6, r5\n        icmp_gt p1, r6, r5\n"
                         "        break p1\n        mov_imm r7, 1\n    endloop\n"
                         "    device_store_u32 r0, r6\n    halt\n.end\n");
  wave_kernel *k = m->first_kernel;
  wave_liveness *lv = wave_liveness_compute(k);
  /* Only the back edge carries r5 from the last instruction of the body to its first. */
  cr_assert(live(wave_liveness_out(lv, nth(k, 5)), WAVE_REG_GPR(5)));
  cr_assert(!live(wave_liveness_out(lv, nth(k, 7)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, value_live_across_a_break_edge) {
  wave_module *m = parse(".kernel k\n    mov_imm r8, 9\n    mov_sr r1, sr_lane_id\n"
                         "    loop\n        icmp_gt p1, r1, r1\n        break p1\n"
                         "        halt\n    endloop\n"
                         "    device_store_u32 r0, r8\n    halt\n.end\n");
  wave_kernel *k = m->first_kernel;
  wave_liveness *lv = wave_liveness_compute(k);
  /* The body ends in halt: r8 reaches the store only through the break. */
  cr_assert(live(wave_liveness_out(lv, nth(k, 3)), WAVE_REG_GPR(8)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 2)), WAVE_REG_GPR(8)));
  cr_assert(!live(wave_liveness_out(lv, nth(k, 4)), WAVE_REG_GPR(8)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, nesting_100000_deep_does_not_recurse) {
  wave_module *m = wave_module_create("deep.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_builder b = wave_builder_at(m, wave_cursor_list_end(&k->first_region->body),
                                   (wave_loc){0});
  for (unsigned d = 0; d < 100000; d++)
    cr_assert_not_null(d % 2 ? wave_build_if(&b, wave_pred(1)) : wave_build_loop(&b));
  wave_instr *use = wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(0), wave_gpr(2));
  cr_assert_not_null(use);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert_not_null(lv);
  cr_assert(live(wave_liveness_in(lv, use), WAVE_REG_GPR(2)));
  cr_assert(live(wave_liveness_at(lv, wave_cursor_list_start(&k->first_region->body)),
                 WAVE_REG_GPR(2)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

/* ---- the soundness gate ------------------------------------------------------------------ */

typedef struct clobber {
  const wave_liveness *lv;
  uint32_t num_regs;
  uint64_t clobbered;
} clobber;

static void clobber_dead(void *ctx, const wave_observe *o) {
  clobber *c = ctx;
  if (!o->instr)
    return;
  wave_regset out = wave_liveness_out(c->lv, o->instr);
  for (unsigned lane = 0; lane < 64; lane++) {
    if (!(o->active >> lane & 1))
      continue;
    for (uint32_t r = 0; r < c->num_regs; r++)
      if (!wave_regset_test(out, WAVE_REG_GPR(r))) {
        wave_observe_write_gpr(o, lane, r, wave_observe_read_gpr(o, lane, r) ^ 0x9e3779b9u);
        c->clobbered++;
      }
    for (uint32_t p = 0; p < WAVE_NUM_PREDS; p++)
      if (!wave_regset_test(out, WAVE_REG_PRED(p)))
        wave_observe_write_pred(o, lane, p, !wave_observe_read_pred(o, lane, p));
  }
}

static wave_machine *launch(const wave_kernel *k, const wave_gen_launch *g, clobber *c) {
  wave_launch_config config;
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  tu_gen_launch_config(&config, g, presets);
  if (c) {
    config.observe = clobber_dead;
    config.observe_ctx = c;
  }
  wave_diags diags;
  wave_diags_init(&diags);
  wave_machine *m = wave_machine_create(k, &config, &diags);
  cr_assert_not_null(m);
  wave_machine_run(m, &diags);
  wave_diags_free(&diags);
  return m;
}

#define GATE_SEEDS 1000

Test(liveness, clobbering_dead_registers_changes_nothing, .timeout = 120) {
  uint64_t clobbered = 0;
  for (uint64_t seed = 1; seed <= GATE_SEEDS; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    o.size = 150;
    wave_gen_launch g;
    wave_diags diags;
    wave_diags_init(&diags);
    wave_module *mod = wave_generate(&o, &g, &diags);
    wave_diags_free(&diags);
    cr_assert_not_null(mod);
    wave_kernel *k = mod->first_kernel;
    wave_liveness *lv = wave_liveness_compute(k);
    cr_assert_not_null(lv);
    wave_machine *plain = launch(k, &g, NULL);
    clobber c = {lv, wave_machine_num_registers(plain), 0};
    wave_machine *hit = launch(k, &g, &c);
    clobbered += c.clobbered;
    cr_assert_eq(wave_machine_status(plain), WAVE_RUN_OK, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(wave_machine_status(hit), WAVE_RUN_OK, "seed %llu", (unsigned long long)seed);
    size_t size_a, size_b;
    const uint8_t *a = wave_machine_device_memory(plain, &size_a);
    const uint8_t *b = wave_machine_device_memory(hit, &size_b);
    cr_assert(size_a == size_b && memcmp(a, b, size_a) == 0,
              "seed %llu: clobbering dead registers changed device memory",
              (unsigned long long)seed);
    for (uint32_t wg = 0; wg < wave_machine_num_workgroups(plain); wg++)
      for (uint32_t t = 0; t < wave_machine_num_waves(plain) * wave_machine_wave_width(plain); t++)
        cr_assert_eq(wave_machine_lane_state(plain, wg, t), wave_machine_lane_state(hit, wg, t),
                     "seed %llu: lane state of thread %u", (unsigned long long)seed, t);
    wave_machine_destroy(plain);
    wave_machine_destroy(hit);
    wave_liveness_destroy(lv);
    wave_module_destroy(mod);
  }
  cr_assert_gt(clobbered, 0, "the gate clobbered nothing");
}
