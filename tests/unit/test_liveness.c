/* SPDX-License-Identifier: Apache-2.0 */
/* Liveness (analysis/liveness.c): hand-written cases for each rule, and a soundness gate that
 * runs generated kernels while clobbering, after every instruction, every register liveness
 * calls dead there; the kernel's results must not change. Strong liveness passes the same
 * gate: what it calls dead only dead instructions read, and their results are clobbered in
 * turn. */
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
#include "waveopt/pass.h"
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
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(0)));
  cr_assert(!live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(1)), "killed at top level");
  cr_assert(live(wave_liveness_out(lv, nth(k, 0)), WAVE_REG_GPR(1)));
  wave_regset after_halt = wave_liveness_out(lv, nth(k, 2));
  cr_assert(wave_regset_equal(after_halt, wave_regset_empty()));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

/* The queries by cursor and node: at a cursor before or after an instruction, the answers of
 * in and out; across an if, what is live both before and after it (r3, which lanes that skip
 * the if keep for the store, and r1, not p1 or r2, which die inside); free, the registers below
 * .registers and the predicates that are dead at the cursor. */
Test(liveness, queries_at_cursors_across_nodes_and_free) {
  wave_module *m = parse(".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
                         "    icmp_lt p1, r1, r2\n    if p1\n        iadd r3, r1, r2\n    endif\n"
                         "    device_store_u32 r1, r3\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  const wave_instr *store = nth(k, 4);
  wave_regset before = wave_liveness_at(lv, wave_cursor_before_instr((wave_instr *)store));
  wave_regset after = wave_liveness_at(lv, wave_cursor_after_instr((wave_instr *)store));
  cr_assert(wave_regset_equal(before, wave_liveness_in(lv, store)));
  cr_assert(wave_regset_equal(after, wave_liveness_out(lv, store)));
  wave_regset r1_r3 = wave_regset_empty();
  wave_regset_set(&r1_r3, WAVE_REG_GPR(1));
  wave_regset_set(&r1_r3, WAVE_REG_GPR(3));
  cr_assert(wave_regset_equal(before, r1_r3));
  cr_assert(wave_regset_equal(after, wave_regset_empty()));
  wave_node *if_node = wave_node_prev(wave_instr_node(store));
  cr_assert_eq(wave_node_kind_of(if_node), WAVE_NODE_IF);
  cr_assert(wave_regset_equal(wave_liveness_across(lv, if_node), r1_r3));
  wave_regset expected_free = wave_regset_empty();
  for (unsigned r = 0; r < 8; r++)
    if (r != 1 && r != 3)
      wave_regset_set(&expected_free, WAVE_REG_GPR(r));
  for (unsigned p = 0; p < WAVE_NUM_PREDS; p++)
    wave_regset_set(&expected_free, WAVE_REG_PRED(p));
  cr_assert(wave_regset_equal(
      wave_liveness_free(lv, wave_cursor_before_instr((wave_instr *)store)), expected_free));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, guarded_halt_keeps_what_follows_live) {
  wave_module *m = parse(".kernel k\n    mov_imm r2, 2\n    icmp_eq p1, r2, r2\n"
                         "    @p1 halt\n    device_store_u32 r0, r2\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_out(lv, nth(k, 2)), WAVE_REG_GPR(2)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 2)), WAVE_REG_PRED(1)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, write_inside_if_kills_for_its_lanes_only) {
  wave_module *m = parse(".kernel k\n    mov_imm r3, 0\n    mov_sr r1, sr_lane_id\n"
                         "    icmp_eq p1, r1, r3\n    if p1\n        mov_imm r3, 1\n    endif\n"
                         "    device_store_u32 r0, r3\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  /* The lanes that reach the write replace r3 before anyone reads it. */
  cr_assert(!live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_GPR(3)));
  /* Lanes with p1 false skip the write and store r3 = 0 from the first instruction. */
  cr_assert(live(wave_liveness_out(lv, nth(k, 2)), WAVE_REG_GPR(3)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 0)), WAVE_REG_GPR(3)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, writes_on_both_sides_kill_before_the_if) {
  wave_module *m = parse(".kernel k\n    mov_sr r1, sr_lane_id\n    mov_imm r4, 9\n"
                         "    icmp_eq p1, r1, r4\n    if p1\n        mov_imm r4, 1\n    else\n"
                         "        mov_imm r4, 2\n    endif\n    device_store_u32 r0, r4\n"
                         "    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  /* Every lane takes one side, and both write r4: the 9 is dead once the compare read it. */
  cr_assert(!live(wave_liveness_out(lv, nth(k, 2)), WAVE_REG_GPR(4)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 2)), WAVE_REG_GPR(4)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 3)), WAVE_REG_GPR(4)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 4)), WAVE_REG_GPR(4)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, write_after_a_break_kills_only_from_there) {
  wave_module *m = parse(".kernel k\n    mov_sr r1, sr_lane_id\n    mov_imm r6, 0\n"
                         "    mov_imm r2, 1\n    loop\n        icmp_eq p1, r1, r2\n"
                         "        break p1\n        mov_imm r6, 5\n        isub r1, r1, r2\n"
                         "    endloop\n    device_store_u32 r0, r6\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  /* Lanes that pass the break overwrite r6 in this iteration. */
  cr_assert(!live(wave_liveness_in(lv, nth(k, 5)), WAVE_REG_GPR(6)));
  /* Lanes leave at different iterations, each with its own last r6 (0 when it leaves in the
   * first): live before the break, around the back edge, and from the first write on. */
  cr_assert(live(wave_liveness_in(lv, nth(k, 4)), WAVE_REG_GPR(6)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 3)), WAVE_REG_GPR(6)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 6)), WAVE_REG_GPR(6)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 1)), WAVE_REG_GPR(6)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, guarded_write_in_a_loop_kills_nothing) {
  wave_module *m = parse(".kernel k\n    mov_imm r3, 0\n    mov_sr r1, sr_lane_id\n"
                         "    icmp_eq p1, r1, r3\n    loop\n        @p1 mov_imm r3, 1\n"
                         "        break p1\n    endloop\n    device_store_u32 r0, r3\n"
                         "    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  /* Lanes the guard turns off keep r3 = 0. */
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
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  /* Only the back edge carries r5 from the last instruction of the body to its first. */
  cr_assert(live(wave_liveness_out(lv, nth(k, 5)), WAVE_REG_GPR(5)));
  cr_assert(!live(wave_liveness_out(lv, nth(k, 7)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, strong_liveness_counts_only_reads_that_are_needed) {
  /* r6 only feeds itself around the loop, r8 only the dead r9, r3 an idiv whose result is dead
   * but which stays (it may trap), r4 the store. */
  wave_module *m = parse(".kernel k\n    mov_imm r5, 3\n    mov_imm r6, 0\n"
                         "    mov_imm r3, 1\n    mov_imm r4, 2\n"
                         "    loop\n        iadd r6, r6, r5\n        iadd r8, r5, r5\n"
                         "        iadd r9, r8, r5\n        idiv r10, r5, r3\n"
                         "        icmp_gt p1, r5, r5\n        break p1\n    endloop\n"
                         "    device_store_u32 r0, r4\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *plain = wave_liveness_compute(k), *strong = wave_strong_liveness_compute(k);
  cr_assert(live(wave_liveness_out(plain, nth(k, 1)), WAVE_REG_GPR(6)));
  cr_assert(!live(wave_liveness_out(strong, nth(k, 1)), WAVE_REG_GPR(6)));
  cr_assert(!live(wave_liveness_out(strong, nth(k, 4)), WAVE_REG_GPR(6)));
  cr_assert(live(wave_liveness_out(plain, nth(k, 5)), WAVE_REG_GPR(8)));
  cr_assert(!live(wave_liveness_out(strong, nth(k, 5)), WAVE_REG_GPR(8)));
  cr_assert(live(wave_liveness_out(strong, nth(k, 2)), WAVE_REG_GPR(3)));
  cr_assert(live(wave_liveness_out(strong, nth(k, 3)), WAVE_REG_GPR(4)));
  cr_assert(live(wave_liveness_out(strong, nth(k, 7)), WAVE_REG_GPR(5)));
  cr_assert(live(wave_liveness_out(strong, nth(k, 8)), WAVE_REG_PRED(1)));
  wave_liveness_destroy(plain);
  wave_liveness_destroy(strong);
  wave_module_destroy(m);
}

Test(liveness, value_live_across_a_break_edge) {
  wave_module *m = parse(".kernel k\n    mov_imm r8, 9\n    mov_sr r1, sr_lane_id\n"
                         "    loop\n        icmp_gt p1, r1, r1\n        break p1\n"
                         "        halt\n    endloop\n"
                         "    device_store_u32 r0, r8\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
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
  wave_builder b = wave_builder_at(
      m, wave_cursor_list_end(wave_region_body(wave_kernel_first_region(k))), (wave_loc){0});
  for (unsigned d = 0; d < 100000; d++)
    cr_assert_not_null(d % 2 ? wave_build_if(&b, wave_pred(1)) : wave_build_loop(&b));
  wave_instr *use = wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(0), wave_gpr(2));
  cr_assert_not_null(use);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert_not_null(lv);
  cr_assert(live(wave_liveness_in(lv, use), WAVE_REG_GPR(2)));
  cr_assert(live(
      wave_liveness_at(lv, wave_cursor_list_start(wave_region_body(wave_kernel_first_region(k)))),
      WAVE_REG_GPR(2)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

/* A region falls into the next one: what is live at the end of the first region's body, and
 * after the if that ends it, is what the next region reads before writing; the last region's
 * end has no successor. */
Test(liveness, the_end_of_a_region_is_the_start_of_the_next) {
  wave_module *m = parse(".kernel k\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 1\n"
                         "    icmp_eq p1, r1, r2\n    if p1\n        mov_imm r3, 5\n    endif\n"
                         "next:\n    device_store_u32 r0, r3\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_region *first = wave_kernel_first_region(k), *last = wave_kernel_last_region(k);
  cr_assert_neq(first, last);
  wave_node *iff = wave_node_list_last(wave_region_body(first));
  cr_assert_eq(wave_node_kind_of(iff), WAVE_NODE_IF);
  wave_liveness *lv = wave_liveness_compute(k);
  wave_regset expected = wave_regset_empty();
  wave_regset_set(&expected, WAVE_REG_GPR(0));
  wave_regset_set(&expected, WAVE_REG_GPR(3));
  cr_assert(wave_regset_equal(wave_liveness_at(lv, wave_cursor_list_end(wave_region_body(first))),
                              expected));
  cr_assert(wave_regset_equal(wave_liveness_at(lv, wave_cursor_after_node(iff)), expected));
  cr_assert(wave_regset_equal(wave_liveness_at(lv, wave_cursor_list_start(wave_region_body(last))),
                              expected));
  cr_assert(
      wave_regset_is_empty(wave_liveness_at(lv, wave_cursor_list_end(wave_region_body(last)))));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

/* Sets are packed to the kernel's .registers; with 253 or more they take wave_regset's own five
 * words, and a register beyond .registers (which the verifier rejects, but a result may be
 * asked for) has the kernel computed again in five. Both answer as a small kernel does. */
Test(liveness, wide_kernels_and_registers_beyond_registers) {
  static const char *const texts[] = {
      ".kernel k\n.registers 256\n    mov_imm r250, 1\n    mov_imm r3, 2\n"
      "    device_store_u32 r0, r250\n    device_store_u32 r0, r3\n    halt\n.end\n",
      ".kernel k\n.registers 4\n    mov_imm r250, 1\n    mov_imm r3, 2\n"
      "    device_store_u32 r0, r250\n    device_store_u32 r0, r3\n    halt\n.end\n",
  };
  for (unsigned t = 0; t < 2; t++) {
    wave_module *m = parse(texts[t]);
    wave_kernel *k = wave_module_first_kernel(m);
    wave_liveness *lv = wave_liveness_compute(k);
    cr_assert_not_null(lv, "kernel %u", t);
    wave_regset out0 = wave_liveness_out(lv, nth(k, 0)), out2 = wave_liveness_out(lv, nth(k, 2));
    cr_assert(live(out0, WAVE_REG_GPR(250)) && live(out0, WAVE_REG_GPR(0)), "kernel %u", t);
    cr_assert(!live(out0, WAVE_REG_GPR(3)), "kernel %u", t);
    cr_assert(!live(out2, WAVE_REG_GPR(250)) && live(out2, WAVE_REG_GPR(3)), "kernel %u", t);
    cr_assert(!live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(250)), "kernel %u", t);
    wave_liveness_destroy(lv);
    wave_module_destroy(m);
  }
}

/* The _near lookups answer what the plain ones do whatever the guess: right, a neighbour's,
 * out of range, or after an edit that the result does not know about. */
Test(liveness, near_lookups_answer_as_plain_ones_whatever_the_guess) {
  wave_module *m = parse(".kernel k\n    mov_imm r1, 1\n    loop\n    iadd r2, r1, r1\n"
                         "    icmp_eq p1, r2, r1\n    break p1\n    mov r1, r2\n    endloop\n"
                         "    device_store_u32 r0, r1\n    halt\n"
                         "sub:\n    mov r3, r1\n    return\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert_not_null(lv);
  enum { N = 9 };
  const wave_instr *in[N];
  for (unsigned i = 0; i < N; i++)
    in[i] = nth(k, i);
  size_t guesses[] = {0, 3, 7, 8, 9, 1000, SIZE_MAX};
  for (unsigned i = 0; i < N; i++) {
    for (size_t g = 0; g < sizeof(guesses) / sizeof(guesses[0]); g++) {
      size_t place = guesses[g];
      cr_assert(wave_regset_equal(wave_liveness_in_near(lv, in[i], &place),
                                  wave_liveness_in(lv, in[i])));
      cr_assert_eq(place, i, "found where it stands");
      place = guesses[g];
      cr_assert(wave_regset_equal(wave_liveness_out_near(lv, in[i], &place),
                                  wave_liveness_out(lv, in[i])));
      cr_assert_eq(place, i);
    }
  }
  /* Backwards, each guess the neighbour of the last place found, as dce's sweep asks. */
  size_t place = SIZE_MAX;
  for (unsigned i = N; i-- > 0;) {
    if (place != SIZE_MAX)
      place--;
    cr_assert(wave_regset_equal(wave_liveness_in_near(lv, in[i], &place),
                                wave_liveness_in(lv, in[i])));
    cr_assert_eq(place, i);
  }
  /* An instruction added after the result was computed is unknown: every register. */
  wave_builder b = wave_builder_at(m, wave_cursor_after_instr((wave_instr *)in[0]),
                                   (wave_loc){0});
  wave_instr *added = wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(4), wave_imm(4));
  cr_assert_not_null(added);
  place = 1;
  cr_assert(wave_regset_equal(wave_liveness_in_near(lv, added, &place),
                              wave_liveness_in(lv, added)));
  cr_assert_eq(place, SIZE_MAX);
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

/* ---- clobbering dead registers ----------------------------------------------------------- */

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

static wave_machine *launch(const wave_kernel *k, const wave_gen_launch *g, uint32_t width,
                            clobber *c) {
  wave_launch_config config;
  wave_launch_config_init(&config);
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  tu_gen_launch_config(g, &config, presets);
  config.wave_width = width;
  config.keep_all_registers = true;
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

typedef wave_liveness *(*liveness_fn)(const wave_kernel *kernel);

/* Runs k plainly and while clobbering, after every instruction, every register the liveness
 * `compute` gives calls dead there; both runs must leave the same memory and lane states.
 * Returns how many lane registers were clobbered. */
static uint64_t check_clobbering_with(liveness_fn compute, const wave_kernel *k,
                                      const wave_gen_launch *g, uint32_t width,
                                      const char *what) {
  wave_liveness *lv = compute(k);
  cr_assert_not_null(lv);
  wave_regset other = wave_regset_empty();
  wave_foreach_block(b, (wave_kernel *)k) {
    wave_foreach_instr(in, b) {
      wave_regset mine;
      wave_instr_other_lane_uses(in, &mine);
      other = wave_regset_union(other, mine);
    }
  }
  cr_assert(wave_regset_equal(wave_liveness_other_lanes(lv), other),
            "%s: the registers read in other lanes", what);
  wave_machine *plain = launch(k, g, width, NULL);
  clobber c = {lv, wave_machine_num_registers(plain), 0};
  wave_machine *hit = launch(k, g, width, &c);
  cr_assert_eq(wave_machine_status(plain), WAVE_RUN_OK, "%s", what);
  cr_assert_eq(wave_machine_status(hit), WAVE_RUN_OK, "%s", what);
  size_t size_a, size_b;
  const uint8_t *a = wave_machine_device_memory(plain, &size_a);
  const uint8_t *b = wave_machine_device_memory(hit, &size_b);
  cr_assert(size_a == size_b && memcmp(a, b, size_a) == 0,
            "%s: clobbering dead registers changed device memory", what);
  for (uint32_t wg = 0; wg < wave_machine_num_workgroups(plain); wg++)
    for (uint32_t t = 0; t < wave_machine_num_waves(plain) * wave_machine_wave_width(plain); t++)
      cr_assert_eq(wave_machine_lane_state(plain, wg, t), wave_machine_lane_state(hit, wg, t),
                   "%s: lane state of thread %u", what, t);
  wave_machine_destroy(plain);
  wave_machine_destroy(hit);
  wave_liveness_destroy(lv);
  return c.clobbered;
}

static uint64_t check_clobbering(const wave_kernel *k, const wave_gen_launch *g, uint32_t width,
                                 const char *what) {
  return check_clobbering_with(wave_liveness_compute, k, g, width, what);
}

/* ---- registers read from other lanes ------------------------------------------------------ */

/* One wave of 32 lanes; each kernel stores its result at address 0 (r0). */
static const wave_gen_launch one_wave = {.grid = {1, 1, 1}, .workgroup = {32, 1, 1},
                                         .device_memory_size = 64};

Test(liveness, shuffle_source_written_inside_if_is_not_killed) {
  /* Lane 1 alone takes the then-side and shuffles r5 from lane 2, parked on the way around:
   * lane 2's r5 (its lane id) is read though lane 2 never reads it itself. */
  wave_module *m = parse(".kernel k\n    mov_sr r5, sr_lane_id\n    mov_imm r7, 1\n"
                         "    icmp_eq p1, r5, r7\n    if p1\n        mov_imm r5, 7\n"
                         "        mov_imm r8, 2\n        wave_shuffle r6, r5, r8\n"
                         "        device_store_u32 r0, r6\n    endif\n    mov_imm r5, 0\n"
                         "    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_out(lv, nth(k, 2)), WAVE_REG_GPR(5)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_GPR(5)));
  /* At the top level every lane that has not ended runs the write: it kills. */
  cr_assert(!live(wave_liveness_in(lv, nth(k, 7)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  cr_assert_gt(check_clobbering(k, &one_wave, 32, "shuffle in an if"), 0);
  wave_module_destroy(m);
}

Test(liveness, then_lanes_keep_shuffle_sources_while_the_else_side_runs) {
  /* Lane 1 takes the then-side and waits at the else while the others shuffle its r5. */
  wave_module *m = parse(".kernel k\n    mov_sr r5, sr_lane_id\n    mov_imm r7, 1\n"
                         "    icmp_eq p1, r5, r7\n    if p1\n        mov_imm r6, 1\n    else\n"
                         "        wave_shuffle r6, r5, r7\n    endif\n"
                         "    device_store_u32 r0, r6\n    mov_imm r5, 0\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_out(lv, nth(k, 3)), WAVE_REG_GPR(5)));
  /* After the if, no lane is parked and the top-level write kills. */
  cr_assert(!live(wave_liveness_out(lv, nth(k, 5)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  cr_assert_gt(check_clobbering(k, &one_wave, 32, "shuffle in an else"), 0);
  wave_module_destroy(m);
}

Test(liveness, ended_lanes_keep_shuffle_sources) {
  /* Lane 1 halts; the others then overwrite their own r5 and shuffle lane 1's. */
  wave_module *m = parse(".kernel k\n    mov_sr r5, sr_lane_id\n    mov_imm r7, 1\n"
                         "    icmp_eq p1, r5, r7\n    @p1 halt\n    mov_imm r5, 9\n"
                         "    wave_shuffle r6, r5, r7\n    device_store_u32 r0, r6\n"
                         "    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_GPR(5)));
  cr_assert(!live(wave_liveness_in(lv, nth(k, 4)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  cr_assert_gt(check_clobbering(k, &one_wave, 32, "shuffle from an ended lane"), 0);
  wave_module_destroy(m);
}

/* ---- complementary guarded writes ------------------------------------------------------- */

/* 32 lanes, each storing at 4 * lane. */
static const wave_gen_launch lane_stores = {
    .grid = {1, 1, 1}, .workgroup = {32, 1, 1}, .device_memory_size = 128};

/* Whether r0 is live right before `pair` (two instructions, or more for the negatives) in a
 * kernel that computes p1 (lanes 0..3) and p2 (odd lanes), sets r0 = 7, runs the pair and
 * stores r0 at 4 * lane. Either way, clobbering what plain and strong liveness call dead
 * changes nothing at wave widths 8 and 32. */
static bool r0_live_before(const char *pair) {
  char text[1024];
  snprintf(text, sizeof(text),
           ".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
           "    icmp_lt p1, r1, r2\n    mov_imm r3, 1\n    and r4, r1, r3\n"
           "    icmp_eq p2, r4, r3\n    mov_imm r0, 7\n%s    mov_imm r3, 2\n"
           "    shl r4, r1, r3\n    device_store_u32 r4, r0\n    halt\n.end\n",
           pair);
  wave_module *m = parse(text);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  bool live_before = live(wave_liveness_in(lv, nth(k, 7)), WAVE_REG_GPR(0));
  /* The second of the pair still reads r0 for the lanes its guard turns off. */
  cr_assert(live(wave_liveness_out(lv, nth(k, 7)), WAVE_REG_GPR(0)), "%s", pair);
  wave_liveness_destroy(lv);
  for (unsigned w = 8; w <= 32; w += 24) {
    check_clobbering(k, &lane_stores, w, pair);
    check_clobbering_with(wave_strong_liveness_compute, k, &lane_stores, w, pair);
  }
  wave_module_destroy(m);
  return live_before;
}

Test(liveness, complementary_guarded_writes_kill) {
  /* Lanes 0..3 get 1 from the first, the others 2 from the second: the 7 is never read. */
  cr_assert(!r0_live_before("    @p1 mov_imm r0, 1\n    @!p1 mov_imm r0, 2\n"));
  cr_assert(!r0_live_before("    @!p1 mov_imm r0, 1\n    @p1 mov_imm r0, 2\n"), "mirrored");
  cr_assert(!r0_live_before("    @p1 iadd r0, r1, r2\n    @!p1 isub r0, r1, r2\n"),
            "other operands are read, not r0");
}

Test(liveness, guarded_writes_that_miss_lanes_kill_nothing) {
  cr_assert(r0_live_before("    @p1 mov_imm r0, 1\n    @p1 mov_imm r0, 2\n"), "same polarity");
  cr_assert(r0_live_before("    @p1 mov_imm r0, 1\n    @!p2 mov_imm r0, 2\n"),
            "different predicates: odd lanes from 4 up keep 7");
  cr_assert(r0_live_before("    @p1 mov_imm r0, 1\n    @!p1 mov_imm r3, 2\n"),
            "different destinations");
  cr_assert(r0_live_before("    @p1 mov_imm r0, 1\n    mov_imm r3, 3\n    @!p1 mov_imm r0, 2\n"),
            "an instruction between them");
}

Test(liveness, guarded_pairs_reading_the_old_value_kill_nothing) {
  /* Lanes 0..3 add to the 7 in the first, lanes 4 and up in the second. */
  cr_assert(r0_live_before("    @p1 iadd r0, r0, r1\n    @!p1 mov_imm r0, 2\n"), "first reads");
  cr_assert(r0_live_before("    @p1 mov_imm r0, 1\n    @!p1 iadd r0, r0, r1\n"), "second reads");
}

Test(liveness, a_pair_whose_first_writes_the_predicate_kills_nothing) {
  /* The first turns p1 off in lanes 0..3 (4 < lane fails there), so the second runs in every
   * lane, not in the lanes the first left out: p1 stays a use of the first. */
  wave_module *m = parse(".kernel k\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
                         "    icmp_lt p1, r1, r2\n    @p1 icmp_lt p1, r2, r1\n"
                         "    @!p1 icmp_lt p1, r1, r1\n    @p1 device_store_u32 r0, r2\n"
                         "    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_PRED(1)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 2)), WAVE_REG_PRED(1)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, a_pair_makes_the_copy_before_it_strongly_dead) {
  /* The defect if-to-select's select form showed: a copy into r0 right before a pair that
   * replaces r0 in every lane read r6, which no path had written. */
  wave_module *m = parse(".kernel k\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
                         "    icmp_lt p1, r1, r2\n    mov r0, r6\n    @p1 mov_imm r0, 10\n"
                         "    @!p1 mov_imm r0, 20\n    device_store_u32 r2, r0\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(!live(wave_liveness_out(lv, nth(k, 3)), WAVE_REG_GPR(0)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(6)), "the copy still reads it");
  wave_liveness_destroy(lv);
  lv = wave_strong_liveness_compute(k);
  cr_assert(!live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(6)), "only a dead copy reads it");
  cr_assert(!live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(0)));
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

Test(liveness, a_guarded_write_keeps_only_what_is_live_after_it) {
  /* The idiv traps, so it stays though r5 is never read: lanes 4 and up keep r5 under the
   * guard, for nobody. Only a destination read through an operand is a use. */
  wave_module *m = parse(".kernel k\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
                         "    icmp_lt p1, r1, r2\n    @p1 idiv r5, r1, r2\n"
                         "    @p1 iadd r6, r6, r1\n    device_store_u32 r2, r6\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(!live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_GPR(5)));
  cr_assert(!live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(5)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 4)), WAVE_REG_GPR(6)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 0)), WAVE_REG_GPR(6)), "a kernel argument");
  wave_liveness_destroy(lv);
  cr_assert_gt(check_clobbering(k, &one_wave, 32, "dead guarded write"), 0);
  wave_module_destroy(m);
}

Test(liveness, a_pair_inside_an_if_spares_shuffle_sources) {
  /* As shuffle_source_written_inside_if_is_not_killed, with a pair for the write: lane 1 alone
   * runs it and shuffles r5 from lane 2, parked, whose r5 the pair never touches. */
  wave_module *m = parse(".kernel k\n    mov_sr r5, sr_lane_id\n    mov_imm r7, 1\n"
                         "    icmp_eq p1, r5, r7\n    icmp_lt p2, r5, r7\n    if p1\n"
                         "        @p2 mov_imm r5, 7\n        @!p2 mov_imm r5, 8\n"
                         "        mov_imm r8, 2\n        wave_shuffle r6, r5, r8\n"
                         "        device_store_u32 r0, r6\n    endif\n    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(live(wave_liveness_in(lv, nth(k, 4)), WAVE_REG_GPR(5)));
  cr_assert(live(wave_liveness_out(lv, nth(k, 3)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  cr_assert_gt(check_clobbering(k, &one_wave, 32, "pair in an if"), 0);
  wave_module_destroy(m);
}

Test(liveness, a_pair_at_the_top_level_kills_shuffle_sources) {
  /* Every lane that has not ended runs one of the two: lane 1 gets 7, the others 8. */
  wave_module *m = parse(".kernel k\n    mov_sr r5, sr_lane_id\n    mov_imm r7, 1\n"
                         "    icmp_eq p1, r5, r7\n    @p1 mov_imm r5, 7\n    @!p1 mov_imm r5, 8\n"
                         "    wave_shuffle r6, r5, r7\n    device_store_u32 r0, r6\n"
                         "    halt\n.end\n");
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert(!live(wave_liveness_in(lv, nth(k, 3)), WAVE_REG_GPR(5)));
  cr_assert(live(wave_liveness_in(lv, nth(k, 4)), WAVE_REG_GPR(5)));
  wave_liveness_destroy(lv);
  cr_assert_gt(check_clobbering(k, &one_wave, 32, "pair at the top level"), 0);
  wave_module_destroy(m);
}

/* ---- the soundness gate ------------------------------------------------------------------ */

#define GATE_SEEDS 1000

/* Widths take turns, so that shuffles reach out-of-range and other lanes in other ways. */
static const uint32_t gate_widths[] = {8, 32, 64};

/* The gate for one liveness over GATE_SEEDS generated kernels. */
static void gate(liveness_fn compute) {
  uint64_t clobbered = 0;
  for (uint64_t seed = 1; seed <= GATE_SEEDS; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    o.size = 150;
    wave_gen_launch g;
    wave_module *mod = tu_generate(&o, &g);
    char what[32];
    snprintf(what, sizeof(what), "seed %llu", (unsigned long long)seed);
    clobbered += check_clobbering_with(compute, wave_module_first_kernel(mod), &g,
                                       gate_widths[seed % 3], what);
    wave_module_destroy(mod);
  }
  cr_assert_gt(clobbered, 0, "the gate clobbered nothing");
}

Test(liveness, clobbering_dead_registers_changes_nothing, .timeout = 120) {
  gate(wave_liveness_compute);
}

Test(liveness, clobbering_strongly_dead_registers_changes_nothing, .timeout = 120) {
  gate(wave_strong_liveness_compute);
}

/* A kernel changed while its liveness is held (waveopt/pass.h, wave_analysis_get): the manager
 * hands back the old result until told, which answers for the code it saw and conservatively
 * for code it never saw, without reading anything freed; invalidated, the result is fresh. */
Test(liveness, a_result_held_across_a_change_is_stale_but_safe) {
  wave_module *m = tu_parse_ok(".kernel k\n.registers 4\n"
                               "    mov_imm r1, 1\n"
                               "    mov_imm r2, 2\n"
                               "    iadd r3, r1, r2\n"
                               "    device_store_u32 r3, r3\n"
                               "    halt\n"
                               ".end\n",
                               "held.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_pass_registry *registry = wave_pass_registry_create();
  wave_diags diags;
  wave_diags_init(&diags);
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &diags);
  wave_analysis_id id = wave_pass_registry_find_analysis(registry, "liveness");
  const wave_liveness *before = wave_analysis_get(am, k, id);
  cr_assert_not_null(before);
  wave_instr *second = wave_instr_next(wave_block_first(wave_node_list_first(
      wave_region_body(wave_kernel_first_region(k)))));
  wave_regset r1_r2 = wave_regset_empty();
  wave_regset_set(&r1_r2, WAVE_REG_GPR(1));
  wave_regset_set(&r1_r2, WAVE_REG_GPR(2));
  cr_assert(wave_regset_equal(wave_liveness_out(before, second), r1_r2));

  /* A dead mov_imm r0 before the halt, and the second instruction removed. */
  wave_instr *halt = wave_instr_next(wave_instr_next(wave_instr_next(second)));
  wave_instr *fresh = wave_instr_create(m, WAVE_OP_MOV_IMM, WAVE_NO_GUARD, false, 2,
                                        (const wave_operand[]){wave_gpr(0), wave_imm(0)});
  cr_assert(fresh && wave_instr_insert(m, wave_cursor_before_instr(halt), fresh));
  wave_instr_remove(second);
  cr_assert_eq(wave_analysis_get(am, k, id), before, "the manager cannot see the change");
  wave_regset everything = wave_liveness_out(before, fresh);
  for (unsigned r = 0; r < 4; r++)
    cr_assert(wave_regset_test(everything, WAVE_REG_GPR(r)), "unknown code: r%u live", r);
  cr_assert(wave_regset_equal(wave_liveness_out(before, second), r1_r2), "removed: as it was");

  wave_analysis_invalidate(am, k, WAVE_PRESERVE_NONE);
  const wave_liveness *after = wave_analysis_get(am, k, id);
  cr_assert_not_null(after);
  cr_assert(wave_regset_equal(wave_liveness_out(after, fresh), wave_regset_empty()),
            "nothing is live before the halt");
  wave_analysis_manager_destroy(am);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
  wave_module_destroy(m);
}
