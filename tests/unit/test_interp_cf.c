/* SPDX-License-Identifier: Apache-2.0 */
/* SIMT control flow of the interpreter: the intended semantics of docs/language.md "Active mask
 * and divergence stack" (not the emulator's bugs, docs/toolchain.md), wave scheduling, barriers,
 * undefined behaviour and counters. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_util.h"

/* Runs `text` with `threads` threads in one workgroup of waves `width` wide, r0 = 0. */
static iu_result *run_wg(const char *text, uint32_t threads, uint32_t width) {
  wave_launch_config cfg = iu_wave_config(threads, width);
  cfg.device_memory_size = 1 << 16;
  return iu_run(text, &cfg);
}

/* The index of the first program entry at `line` with opcode op. */
static size_t entry_at(const iu_result *r, uint32_t line, wave_opcode op) {
  for (size_t i = 0; i < wave_machine_program_size(r->machine); i++) {
    const wave_program_entry *e = wave_machine_program_entry(r->machine, i);
    if (e->loc.line == line && e->op == op)
      return i;
  }
  cr_assert_fail("no %s at line %u", wave_opcode_table[op].mnemonic, line);
  return 0;
}

static uint64_t issues_at(const iu_result *r, uint32_t line, wave_opcode op) {
  return wave_machine_program_entry(r->machine, entry_at(r, line, op))->issues;
}

/* Stores r3 of every thread to mem[4 * t] and halts. */
#define STORE_R3                                                                              \
  "    mov_sr r14, sr_thread_id_x\n    shl r14, r14, 2\n    device_store_u32 r14, r3\n    halt\n"

/* Runs `text` on one wave of 8 threads, checks that it finished and that lane t stored want[t]
 * (STORE_R3). Returns the result for further checks; the caller frees it. */
static iu_result *run_8_lanes(const char *text, const uint32_t want[8]) {
  iu_result *r = iu_ok_or_fail(run_wg(text, 8, 8));
  for (uint32_t t = 0; t < 8; t++)
    cr_assert_eq(iu_u32(r, 4 * t), want[t], "lane %u", t);
  return r;
}

/* ---- break, continue, halt ------------------------------------------------------------ */

/* A loop over i = 1, 2, ... up to the lane id (i in r2, r3 = 0 before it) that sets p1 on even
 * i; each test appends the rest of the loop body. */
#define COUNT_TO_LANE_HEAD                                                                    \
  ".kernel k\n.registers 16\n"                                                                \
  "    mov_sr r1, sr_lane_id\n"                                                               \
  "    mov_imm r2, 0\n    mov_imm r3, 0\n"                                                    \
  "    loop\n"                                                                                \
  "        iadd r2, r2, 1\n"                                                                  \
  "        icmp_gt p3, r2, r1\n"                                                              \
  "        break p3\n"                                                                        \
  "        and r4, r2, 1\n"                                                                   \
  "        icmp_eq p1, r4, 0\n"

Test(cf, break_inside_if_leaves_at_once) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 0\n    mov_imm r3, 0\n"
                     "    loop\n"
                     "        iadd r2, r2, 1\n"
                     "        icmp_gt p1, r2, r1\n"    /* lane l leaves in iteration l + 1 */
                     "        if p1\n"
                     "            break p1\n"
                     "        endif\n"
                     "        iadd r3, r3, 1\n"        /* must not run for the leaving lanes */
                     "        icmp_ge p2, r2, 10\n"
                     "        break p2\n"
                     "    endloop\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 32, 32));
  for (uint32_t t = 0; t < 32; t++)
    cr_assert_eq(iu_u32(r, 4 * t), t < 10 ? t : 10, "lane %u", t);
  cr_assert_eq(iu_counters(r)->divergent_loops, 1);
  iu_free(r);
}

Test(cf, continue_skips_the_rest_of_the_iteration) {
  /* sum of the odd i in 1..lane */
  const char *text = COUNT_TO_LANE_HEAD
                     "        continue p1\n"
                     "        iadd r3, r3, r2\n"
                     "    endloop\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 32, 32));
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t sum = 0;
    for (uint32_t i = 1; i <= t; i += 2)
      sum += i;
    cr_assert_eq(iu_u32(r, 4 * t), sum, "lane %u", t);
  }
  iu_free(r);
}

Test(cf, continue_inside_if_rejoins_next_iteration) {
  /* even i: the if continues (after adding 100 on its way); odd i: the else adds 1 */
  const char *text = COUNT_TO_LANE_HEAD
                     "        if p1\n"
                     "            iadd r3, r3, 100\n"
                     "            continue p1\n"
                     "            iadd r3, r3, 10000\n"  /* never */
                     "        else\n"
                     "            iadd r3, r3, 1\n"
                     "        endif\n"
                     "        iadd r3, r3, 1000\n"      /* only odd iterations get here */
                     "    endloop\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 16, 8));
  for (uint32_t t = 0; t < 16; t++) {
    uint32_t lane = t % 8, even = lane / 2, odd = (lane + 1) / 2;
    cr_assert_eq(iu_u32(r, 4 * t), 100 * even + 1001 * odd, "thread %u", t);
  }
  cr_assert_eq(issues_at(r, 15, WAVE_OP_IADD), 0, "code after continue is skipped");
  iu_free(r);
}

Test(cf, halt_inside_if_ends_only_those_lanes) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r3, 7\n"
                     "    icmp_lt p1, r1, 4\n"
                     "    if p1\n"
                     "        mov_imm r3, 5\n"
                     "        mov_sr r14, sr_thread_id_x\n    shl r14, r14, 2\n"
                     "        device_store_u32 r14, r3\n"
                     "        halt\n"
                     "    else\n"
                     "        mov_imm r3, 9\n"
                     "    endif\n"
                     "    iadd r3, r3, 1\n" STORE_R3 ".end\n";
  iu_result *r = run_8_lanes(text, (const uint32_t[8]){5, 5, 5, 5, 10, 10, 10, 10});
  for (uint32_t t = 0; t < 8; t++)
    cr_assert_eq(wave_machine_lane_state(r->machine, 0, t), WAVE_LANE_FINISHED, "lane %u", t);
  iu_free(r);
}

Test(cf, guarded_halt_and_top_level_return_end_lanes) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r3, 1\n"
                     "    icmp_lt p1, r1, 2\n"
                     "    @p1 halt\n"
                     "    icmp_eq p2, r1, 5\n"
                     "    if p2\n"
                     "        return\n"             /* empty call stack: lane 5 ends */
                     "    endif\n"
                     "    mov_imm r3, 2\n" STORE_R3 ".end\n";
  iu_result *r = run_8_lanes(text, (const uint32_t[8]){0, 0, 2, 2, 2, 0, 2, 2});
  iu_free(r);
}

Test(cf, inner_break_leaves_only_the_inner_loop) {
  /* outer 3 iterations; inner loop runs lane + 1 times each: r3 = 3 * (lane + 1) */
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r3, 0\n    mov_imm r5, 0\n"
                     "    loop\n"
                     "        mov_imm r2, 0\n"
                     "        loop\n"
                     "            iadd r3, r3, 1\n"
                     "            iadd r2, r2, 1\n"
                     "            icmp_gt p1, r2, r1\n"
                     "            if p1\n"
                     "                break p1\n"
                     "            endif\n"
                     "        endloop\n"
                     "        iadd r5, r5, 1\n"
                     "        icmp_ge p2, r5, 3\n"
                     "        break p2\n"
                     "    endloop\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 16, 16));
  for (uint32_t t = 0; t < 16; t++)
    cr_assert_eq(iu_u32(r, 4 * t), 3 * (t + 1), "lane %u", t);
  cr_assert_eq(iu_counters(r)->max_depth, 3);
  iu_free(r);
}

Test(cf, every_lane_breaking_deep_inside_reconverges_after_the_loop) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r3, 0\n"
                     "    loop\n"
                     "        icmp_lt p1, r1, 4\n"
                     "        if p1\n"
                     "            icmp_eq p2, r1, r1\n"
                     "            if p2\n"
                     "                break p2\n"
                     "            endif\n"
                     "            iadd r3, r3, 100\n"
                     "        else\n"
                     "            break p2\n"         /* p2 is false here: stays */
                     "            icmp_eq p3, r1, r1\n"
                     "            break p3\n"
                     "            iadd r3, r3, 100\n"
                     "        endif\n"
                     "        iadd r3, r3, 100\n"
                     "    endloop\n"
                     "    iadd r3, r3, 1\n" STORE_R3 ".end\n";
  iu_result *r = run_8_lanes(text, (const uint32_t[8]){1, 1, 1, 1, 1, 1, 1, 1});
  /* nothing after the breaks was issued */
  cr_assert_eq(issues_at(r, 12, WAVE_OP_IADD), 0);
  cr_assert_eq(issues_at(r, 17, WAVE_OP_IADD), 0);
  cr_assert_eq(issues_at(r, 19, WAVE_OP_IADD), 0);
  cr_assert_eq(iu_counters(r)->empty_issues, 0);
  iu_free(r);
}

/* ---- uniform and divergent branches --------------------------------------------------- */

Test(cf, uniform_if_skips_the_untaken_side) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_imm r1, 0\n"
                     "    icmp_eq p1, r1, r1\n"
                     "    if p1\n"
                     "        iadd r2, r2, 1\n"
                     "        iadd r2, r2, 1\n"
                     "    else\n"
                     "        iadd r3, r3, 1\n"
                     "        iadd r3, r3, 1\n"
                     "        iadd r3, r3, 1\n"
                     "    endif\n"
                     "    icmp_ne p2, r1, r1\n"
                     "    if p2\n"
                     "        iadd r4, r4, 1\n"
                     "    else\n"
                     "        iadd r5, r5, 1\n"
                     "    endif\n"
                     "    if p2\n"
                     "        iadd r6, r6, 1\n"
                     "    endif\n"
                     "    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 32, 32));
  const wave_counters *c = iu_counters(r);
  /* mov icmp if iadd iadd else | icmp if iadd(else-side) endif | if | halt */
  cr_assert_eq(c->issued, 12, "issued %lu", (unsigned long)c->issued);
  cr_assert_eq(c->lane_instructions, 12 * 32);
  cr_assert_eq(c->divergent_ifs, 0);
  cr_assert_eq(c->empty_issues, 0);
  cr_assert_eq(issues_at(r, 9, WAVE_OP_IADD), 0);
  cr_assert_eq(issues_at(r, 15, WAVE_OP_IADD), 0);
  cr_assert_eq(issues_at(r, 20, WAVE_OP_IADD), 0);
  cr_assert_eq(issues_at(r, 17, WAVE_OP_IADD), 1);
  IU_EXPECT_REGS(r, 0, {2, 2}, {3, 0}, {5, 1});
  cr_assert_eq(wave_counters_simd_efficiency(c, 32), 1.0);
  /* the upstream emulator walks all 20 instructions, the untaken sides with an empty mask */
  cr_assert_eq(c->steps + c->emu_walked, 20);
  iu_free(r);
}

/* What the upstream emulator walks with an empty mask (docs/toolchain.md "Empty-mask execution
 * in the emulator"): the rest of a loop body after its last lane broke, the endloop, and an
 * if-side no lane takes, each instruction once (the inner if too). */
Test(cf, emu_walked_counts_the_code_the_emulator_walks_with_an_empty_mask) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_imm r1, 0\n"
                     "    icmp_eq p1, r1, r1\n"
                     "    loop\n"
                     "        break p1\n"                /* every lane leaves */
                     "        iadd r1, r1, 1\n"          /* walked: 5 up to the endloop */
                     "        if p1\n"
                     "            iadd r1, r1, 1\n"
                     "        endif\n"
                     "    endloop\n"
                     "    icmp_ne p2, r1, r1\n"
                     "    if p2\n"
                     "        iadd r2, r2, 1\n"          /* walked: 2 with the endif */
                     "    endif\n"
                     "    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 32, 32));
  const wave_counters *c = iu_counters(r);
  /* mov icmp loop break | icmp if | halt */
  cr_assert_eq(c->steps, 7, "steps %lu", (unsigned long)c->steps);
  cr_assert_eq(c->emu_walked, 5 + 2, "walked %lu", (unsigned long)c->emu_walked);
  iu_free(r);
}

Test(cf, divergent_if_runs_then_side_first_then_else_side) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r5, 0x100\n"
                     "    icmp_lt p1, r1, 8\n"
                     "    if p1\n"
                     "        atomic_add r3, r5, r1, .device\n"   /* lanes 0..7: 0+..+7 = 28 */
                     "    else\n"
                     "        atomic_add r3, r5, r1, .device\n"   /* then lanes 8..31 */
                     "    endif\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 32, 32));
  /* the else-side ran after the then-side: lane 8 saw the then-side's total */
  cr_assert_eq(iu_u32(r, 4 * 8), 28);
  cr_assert_eq(iu_u32(r, 4 * 7), 21);
  const wave_counters *c = iu_counters(r);
  cr_assert_eq(c->divergent_ifs, 1);
  const wave_program_entry *then_add =
      wave_machine_program_entry(r->machine, entry_at(r, 7, WAVE_OP_ATOMIC_ADD));
  const wave_program_entry *else_add =
      wave_machine_program_entry(r->machine, entry_at(r, 9, WAVE_OP_ATOMIC_ADD));
  cr_assert_eq(then_add->issues, 1);
  cr_assert_eq(then_add->lanes, 8);
  cr_assert_eq(else_add->lanes, 24);
  cr_assert_eq(c->max_depth, 1);
  iu_free(r);
}

/* ---- wave widths and partial waves ---------------------------------------------------- */

static const char loop_demo[] = IU_LOOP_DEMO_HEAD STORE_R3 ".end\n";

static void check_loop_demo(uint32_t threads, uint32_t width) {
  static const uint32_t expected[14] = {0, 0, 1, 3, 3, 7, 12, 12, 19, 27, 27, 37, 48, 48};
  iu_result *r = run_wg(loop_demo, threads, width);
  cr_assert(iu_ok(r), "W=%u: %s", width, iu_error_message(r));
  for (uint32_t t = 0; t < threads; t++)
    cr_assert_eq(iu_u32(r, 4 * t), t < 14 ? expected[t] : 48, "W=%u thread %u", width, t);
  cr_assert_eq(wave_machine_num_waves(r->machine), (threads + width - 1) / width);
  iu_free(r);
}

Test(cf, example_2_at_every_wave_width) {
  check_loop_demo(32, 32);
  check_loop_demo(32, 8);
  check_loop_demo(64, 64);
  check_loop_demo(40, 16);
}

Test(cf, partial_last_wave_has_inactive_lanes) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r3, sr_lane_id\n"
                     "    wave_reduce_add r4, r4\n"           /* harmless: every lane */
                     "    mov_imm r5, 1\n    wave_reduce_add r6, r5\n"
                     "    mov_sr r7, sr_wave_id\n    mov_imm r8, 0x400\n    shl r9, r7, 2\n"
                     "    iadd r8, r8, r9\n    device_store_u32 r8, r6\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 40, 32));
  cr_assert_eq(iu_u32(r, 0x400), 32, "wave 0 has 32 lanes");
  cr_assert_eq(iu_u32(r, 0x404), 8, "wave 1 has 8 lanes");
  for (uint32_t t = 0; t < 64; t++) {
    cr_assert_eq(iu_u32(r, 4 * t), t < 40 ? t % 32 : 0, "thread %u", t);
    cr_assert_eq(wave_machine_lane_state(r->machine, 0, t),
                 t < 40 ? WAVE_LANE_FINISHED : WAVE_LANE_UNUSED);
  }
  iu_free(r);
}

/* ---- barriers and scheduling ---------------------------------------------------------- */

Test(cf, barrier_orders_local_memory_between_waves) {
  /* each thread writes its id to local[t], then reads its partner in the other wave */
  const char *text = ".kernel k\n.registers 16\n.local_memory 256\n"
                     "    mov_sr r1, sr_thread_id_x\n"
                     "    shl r2, r1, 2\n"
                     "    iadd r4, r1, 1000\n"
                     "    local_store_u32 r2, r4\n"
                     "    barrier\n"
                     "    iadd r5, r1, 32\n    and r5, r5, 63\n    shl r5, r5, 2\n"
                     "    local_load_u32 r3, r5\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 64, 32));
  for (uint32_t t = 0; t < 64; t++)
    cr_assert_eq(iu_u32(r, 4 * t), 1000 + (t + 32) % 64, "thread %u", t);
  cr_assert_eq(iu_counters(r)->barriers, 1);
  iu_free(r);
}

Test(cf, barrier_in_a_loop_with_uniform_trip_count) {
  const char *text = ".kernel k\n.registers 16\n.local_memory 64\n"
                     "    mov_sr r1, sr_wave_id\n    mov_imm r3, 0\n    mov_imm r2, 0\n"
                     "    loop\n"
                     "        icmp_ge p1, r2, 5\n"
                     "        break p1\n"
                     "        mov_imm r6, 0\n"
                     "        local_atomic_add r6, r2\n"
                     "        barrier\n"
                     "        local_load_u32 r3, r6\n"
                     "        barrier\n"
                     "        iadd r2, r2, 1\n"
                     "    endloop\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 16, 8));
  /* after iteration i the counter holds 16 * (0 + 1 + ... + i) */
  cr_assert_eq(iu_u32(r, 0), 16 * 10);
  cr_assert_eq(iu_u32(r, 4 * 15), 16 * 10);
  cr_assert_eq(iu_counters(r)->barriers, 10);
  iu_free(r);
}

Test(cf, barrier_on_a_divergent_path_is_an_error) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    icmp_lt p1, r1, 16\n"
                     "    if p1\n"
                     "        barrier\n"
                     "    endif\n"
                     "    halt\n.end\n";
  iu_result *r = run_wg(text, 32, 32);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_BARRIER);
  const wave_run_error *e = wave_machine_error(r->machine);
  cr_assert_eq(e->loc.line, 6);
  cr_assert_eq(e->lanes, 0xFFFF0000u);
  cr_assert_not_null(strstr(e->message, "barrier divergence"), "%s", e->message);
  iu_free(r);
}

Test(cf, barrier_inside_a_uniform_if_is_fine) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    icmp_lt p1, r1, 100\n"
                     "    if p1\n"
                     "        barrier\n"
                     "    endif\n"
                     "    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 64, 32));
  iu_free(r);
}

/* Two waves of 32 threads where p1 holds only in wave 1; `rest` must make them disagree at a
 * barrier, which fails the launch with a message containing `why`. */
static void expect_barrier_error(const char *rest, const char *why) {
  char text[256];
  snprintf(text, sizeof text,
           ".kernel k\n.registers 8\n    mov_sr r1, sr_wave_id\n    icmp_eq p1, r1, 1\n%s", rest);
  iu_result *r = run_wg(text, 64, 32);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_BARRIER, "%s", why);
  cr_assert_not_null(strstr(iu_error_message(r), why), "%s", iu_error_message(r));
  iu_free(r);
}

Test(cf, barrier_while_another_wave_finished_deadlocks) {
  expect_barrier_error("    @p1 halt\n"
                       "    barrier\n"
                       "    halt\n.end\n",
                       "deadlock");
}

Test(cf, waves_at_different_barriers_are_an_error) {
  expect_barrier_error("    if p1\n"
                       "        barrier\n"
                       "    else\n"
                       "        barrier\n"
                       "    endif\n"
                       "    halt\n.end\n",
                       "another barrier");
}

Test(cf, spin_wait_on_another_wave_terminates) {
  /* wave 0 spins until wave 1 sets a flag after a long loop of its own */
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_wave_id\n    mov_imm r5, 0x200\n"
                     "    icmp_eq p1, r1, 0\n"
                     "    if p1\n"
                     "        loop\n"
                     "            iadd r3, r3, 1\n"
                     "            device_load_u32 r6, r5\n"
                     "            icmp_ne p2, r6, 0\n"
                     "            break p2\n"
                     "        endloop\n"
                     "    else\n"
                     "        mov_imm r2, 0\n"
                     "        loop\n"
                     "            iadd r2, r2, 1\n"
                     "            icmp_ge p3, r2, 100\n"
                     "            break p3\n"
                     "        endloop\n"
                     "        device_store_u32 r5, r2\n"
                     "    endif\n" STORE_R3 ".end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 16, 8));
  cr_assert_eq(iu_u32(r, 0x200), 100);
  /* round-robin: one spin (5 instructions) per 5 of the about 405 instructions wave 1 runs
   * before its store */
  uint32_t spins = iu_u32(r, 0);
  cr_assert(spins >= 78 && spins <= 84, "spins %u", spins);
  iu_free(r);
}

/* ---- undefined behaviour and limits --------------------------------------------------- */

Test(cf, division_by_zero_names_line_wave_and_lanes) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 3\n"
                     "    isub r2, r1, r2\n"        /* zero in lane 3 of every wave */
                     "    idiv r3, r1, r2\n"
                     "    halt\n.end\n";
  iu_result *r = run_wg(text, 16, 8);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_DIV_ZERO);
  const wave_run_error *e = wave_machine_error(r->machine);
  cr_assert_eq(e->loc.line, 6);
  cr_assert_eq(e->wave, 0);
  cr_assert_eq(e->lanes, 0x8);
  cr_assert_not_null(strstr(e->message, "line 6"), "%s", e->message);
  cr_assert_not_null(strstr(e->message, "lanes 0x8"), "%s", e->message);
  cr_assert_gt(r->diags.num_errors, 0, "the error is also a diagnostic");
  cr_assert_eq(r->diags.items[r->diags.count - 1].line, 6);
  iu_free(r);
}

static char *nested_ifs(unsigned depth) {
  size_t cap = 256 + depth * 24;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  size_t n = (size_t)snprintf(text, cap, ".kernel k\n.registers 8\n    icmp_eq p1, r0, r0\n");
  for (unsigned i = 0; i < depth; i++)
    n += (size_t)snprintf(text + n, cap - n, "if p1\n");
  n += (size_t)snprintf(text + n, cap - n, "    iadd r1, r1, 1\n");
  for (unsigned i = 0; i < depth; i++)
    n += (size_t)snprintf(text + n, cap - n, "endif\n");
  snprintf(text + n, cap - n, "    halt\n.end\n");
  return text;
}

Test(cf, divergence_depth_limit) {
  wave_launch_config cfg = iu_config(1, 8);
  cfg.max_depth = 32;
  char *text = nested_ifs(32);
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  cr_assert_eq(iu_counters(r)->max_depth, 32);
  cr_assert_eq(iu_reg(r, 0, 1), 1);
  iu_free(r);
  free(text);
  text = nested_ifs(33);
  r = iu_run(text, &cfg);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_DEPTH);
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, 4 + 32, "the 33rd if");
  iu_free(r);
  free(text);
}

Test(cf, deep_nesting_runs_without_recursion) {
  char *text = nested_ifs(100000);
  iu_result *r = iu_ok_or_fail(iu_run(text, NULL));
  cr_assert_eq(iu_counters(r)->max_depth, 100000);
  cr_assert_eq(iu_reg(r, 0, 1), 1);
  iu_free(r);
  free(text);
}

Test(cf, budget_exhaustion_does_not_terminate) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    loop\n"
                     "        iadd r1, r1, 1\n"
                     "    endloop\n"
                     "    halt\n.end\n";
  wave_launch_config cfg = iu_config(1, 8);
  cfg.max_steps = 1000;
  iu_result *r = iu_run(text, &cfg);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_NO_TERMINATION);
  cr_assert_not_null(strstr(iu_error_message(r), "does not terminate"), "%s", iu_error_message(r));
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, 3, "names the loop");
  cr_assert_eq(iu_counters(r)->steps, 1000);
  iu_free(r);
}

Test(cf, running_past_the_end_is_an_error) {
  iu_result *r = run_wg(".kernel k\n.registers 8\n    iadd r1, r1, r1\n.end\n", 8, 8);
  iu_free_expecting(r, WAVE_ERR_END_OF_CODE);
}

Test(cf, guard_that_selects_nobody_is_an_empty_issue) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    icmp_ne p1, r0, r0\n"
                     "    @p1 iadd r1, r1, 1\n"
                     "    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(run_wg(text, 8, 8));
  cr_assert_eq(iu_counters(r)->empty_issues, 1);
  cr_assert_eq(iu_counters(r)->issued, 2);
  iu_free(r);
}

/* ---- calls ---------------------------------------------------------------------------- */

Test(cf, call_and_return_run_with_the_current_mask) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r3, 1\n"
                     "    icmp_lt p1, r1, 4\n"
                     "    if p1\n"
                     "        call twice\n"
                     "        call twice\n"
                     "    endif\n"
                     "    call twice\n" STORE_R3
                     "twice:\n"
                     "    icmp_eq p2, r1, r1\n"
                     "    if p2\n"
                     "        iadd r3, r3, r3\n"
                     "        return\n"            /* from inside a uniform if */
                     "    endif\n"
                     "    halt\n"
                     ".end\n";
  iu_result *r = run_8_lanes(text, (const uint32_t[8]){8, 8, 8, 8, 2, 2, 2, 2});
  iu_free(r);
}

Test(cf, divergent_return_is_an_error) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    call sub\n"
                     "    halt\n"
                     "sub:\n"
                     "    icmp_lt p1, r1, 2\n"
                     "    if p1\n"
                     "        return\n"
                     "    endif\n"
                     "    return\n"
                     ".end\n";
  iu_result *r = run_wg(text, 8, 8);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_DIVERGENT_RETURN);
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, 9);
  iu_free(r);
}

Test(cf, more_than_eight_nested_calls_is_an_error) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    call rec\n"
                     "    halt\n"
                     "rec:\n"
                     "    iadd r1, r1, 1\n"
                     "    icmp_lt p1, r1, 20\n"
                     "    if p1\n"
                     "        call rec\n"
                     "    endif\n"
                     "    return\n"
                     ".end\n";
  iu_result *r = run_wg(text, 8, 8);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_CALL_DEPTH);
  cr_assert_eq(iu_reg(r, 0, 1), 8, "eight calls were allowed");
  iu_free(r);
}

Test(cf, halt_inside_a_subroutine_abandons_the_call) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r3, 3\n"
                     "    icmp_lt p1, r1, 2\n"
                     "    if p1\n"
                     "        call stop\n"
                     "        mov_imm r3, 99\n"
                     "    endif\n" STORE_R3
                     "stop:\n"
                     "    halt\n"
                     ".end\n";
  iu_result *r = run_8_lanes(text, (const uint32_t[8]){0, 0, 3, 3, 3, 3, 3, 3});
  iu_free(r);
}

/* ---- launches with several workgroups ------------------------------------------------- */

Test(cf, workgroups_run_one_after_another_with_fresh_local_memory) {
  const char *text = ".kernel k\n.registers 16\n.local_memory 16\n"
                     "    mov_imm r1, 0\n    mov_imm r4, 1\n"
                     "    local_atomic_add r2, r1, r4\n"  /* local: 0 in every workgroup */
                     "    mov_imm r5, 0x100\n"
                     "    atomic_add r3, r5, r4, .device\n"
                     "    mov_sr r6, sr_workgroup_id_x\n    mov_sr r7, sr_workgroup_id_y\n"
                     "    mov_sr r8, sr_grid_size_x\n    imad r6, r7, r8, r6\n"
                     "    mov_sr r9, sr_thread_id_x\n    mov_sr r10, sr_workgroup_size_x\n"
                     "    imad r6, r6, r10, r9\n    shl r6, r6, 2\n"
                     "    iadd r2, r2, r3\n    device_store_u32 r6, r3\n    halt\n.end\n";
  wave_launch_config cfg = iu_config(3, 4);
  cfg.grid[1] = 2;
  cfg.keep_all_registers = true;
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  cr_assert_eq(iu_u32(r, 0x100), 24);
  for (uint32_t i = 0; i < 24; i++)
    cr_assert_eq(iu_u32(r, 4 * i), i, "thread %u saw the workgroups in order", i);
  for (uint32_t wg = 0; wg < 6; wg++) {
    for (uint32_t t = 0; t < 4; t++) {
      uint32_t v;
      cr_assert(wave_machine_read_gpr(r->machine, wg, t, 2, &v));
      cr_assert_eq(v, t + 4 * wg + t, "local counter restarts per workgroup");
    }
  }
  iu_free(r);
}

Test(cf, counters_as_json) {
  iu_result *r = run_wg(loop_demo, 32, 32);
  cr_assert(iu_ok(r));
  char *json = wave_machine_counters_json(r->machine);
  cr_assert_not_null(json);
  cr_assert_not_null(strstr(json, "\"status\":\"ok\""), "%s", json);
  cr_assert_not_null(strstr(json, "\"divergent_loops\":1"), "%s", json);
  cr_assert_not_null(strstr(json, "\"op\":\"imod\""), "%s", json);
  char expect[64];
  snprintf(expect, sizeof expect, "\"issued\":%lu,", (unsigned long)iu_counters(r)->issued);
  cr_assert_not_null(strstr(json, expect), "%s", json);
  free(json);
  iu_free(r);
}

/* ---- programs and launches that cannot run -------------------------------------------- */

Test(cf, invalid_programs_are_reported_not_run) {
  iu_result *r = run_wg(".kernel k\n.registers 8\n    iadd r9, r1, r2\n    halt\n.end\n", 8, 8);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_INVALID_PROGRAM);
  cr_assert_not_null(strstr(iu_error_message(r), "r9 is beyond .registers 8"), "%s",
                     iu_error_message(r));
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, 3);
  cr_assert_eq(iu_counters(r)->steps, 0);
  iu_free(r);
  /* a pair reaching past the last register */
  r = run_wg(".kernel k\n.registers 8\n    dadd r7, r0, r2\n    halt\n.end\n", 8, 8);
  iu_free_expecting(r, WAVE_ERR_INVALID_PROGRAM);

  /* built by hand: a break outside any loop */
  wave_module *m = wave_module_create("built");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_node *b = wave_block_create(m);
  wave_node_list_append(wave_region_body(wave_kernel_first_region(k)), b);
  wave_operand p = wave_pred(1);
  wave_block_append(b, wave_instr_create(m, WAVE_OP_BREAK, WAVE_NO_GUARD, false, 1, &p));
  wave_diags diags;
  wave_diags_init(&diags);
  wave_machine *mach = wave_simulate(k, NULL, &diags);
  cr_assert_eq(wave_machine_status(mach), WAVE_RUN_ERROR);
  cr_assert_eq(wave_machine_error(mach)->kind, WAVE_ERR_INVALID_PROGRAM);
  cr_assert_not_null(strstr(wave_machine_error(mach)->message, "break outside a loop"));
  cr_assert_eq(diags.num_errors, 1);
  wave_machine_destroy(mach);
  wave_diags_free(&diags);
  wave_module_destroy(m);
}

Test(cf, invalid_launches_are_reported) {
  const char *text = ".kernel k\n.registers 8\n    halt\n.end\n";
  wave_launch_config cfg = iu_wave_config(8, 7);
  iu_result *r = iu_run(text, &cfg);
  iu_free_expecting(r, WAVE_ERR_INVALID_CONFIG);
  cfg = iu_config(1, 8);
  wave_reg_value preset = {8, 1};
  cfg.presets = &preset;
  cfg.num_presets = 1;
  r = iu_run(text, &cfg);
  iu_free_expecting(r, WAVE_ERR_INVALID_CONFIG);
  cfg = iu_config(1, 8);
  static const uint8_t bytes[16];
  cfg.device_memory_size = 8;
  cfg.memory_init = bytes;
  cfg.memory_init_size = sizeof bytes;
  r = iu_run(text, &cfg);
  iu_free_expecting(r, WAVE_ERR_INVALID_CONFIG);
}

Test(cf, workgroup_size_comes_from_the_kernel_unless_overridden) {
  const char *text = ".kernel k\n.registers 8\n.workgroup_size 4, 3, 1\n"
                     "    mov_sr r1, sr_workgroup_size_y\n    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(iu_run(text, NULL));
  cr_assert_eq(wave_machine_workgroup_threads(r->machine), 12);
  cr_assert_eq(iu_reg(r, 11, 1), 3);
  iu_free(r);
  wave_launch_config cfg = iu_config(1, 5);
  r = iu_run(text, &cfg);
  cr_assert_eq(wave_machine_workgroup_threads(r->machine), 5);
  cr_assert_eq(iu_reg(r, 4, 1), 1);
  iu_free(r);
  r = iu_run(".kernel k\n.registers 8\n    halt\n.end\n", NULL);
  cr_assert_eq(wave_machine_workgroup_threads(r->machine), WAVE_DEFAULT_WORKGROUP_SIZE);
  iu_free(r);
}

/* ---- the observer ----------------------------------------------------------------------- */

typedef struct observed {
  unsigned events, structured, empty_masks;
} observed;

/* After `mov_imm r2, 7`: r2 reads 7, r1 becomes 100 in every active lane, and p1 is set in
 * lane 0 only, so the rest of the kernel computes from the written values. */
static void observe_and_write(void *ctx, const wave_observe *o) {
  observed *seen = ctx;
  seen->events++;
  seen->empty_masks += o->mask == 0;
  if (!o->instr) {
    seen->structured++;
    return;
  }
  wave_operand d = wave_instr_dest(o->instr);
  if (wave_instr_op(o->instr) != WAVE_OP_MOV_IMM || d.kind == WAVE_OPERAND_NONE || d.value != 2)
    return;
  for (unsigned lane = 0; lane < 64; lane++) {
    if (!(o->active >> lane & 1))
      continue;
    cr_expect_eq(wave_observe_read_gpr(o, lane, 2), 7);
    wave_observe_write_gpr(o, lane, 1, 100);
    wave_observe_write_pred(o, lane, 1, lane == 0);
    cr_expect_eq(wave_observe_read_pred(o, lane, 1), lane == 0);
  }
}

Test(interp_observe, reads_and_writes_registers_after_each_issue) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_imm r1, 5\n    mov_imm r2, 7\n"
                     "    mov_imm r3, 0\n    @p1 iadd r3, r1, r2\n"
                     "    mov_imm r4, 0\n    icmp_eq p2, r4, r4\n"
                     "    if p2\n        mov_imm r4, 1\n    endif\n"
                     "    @p2 halt\n    halt\n.end\n";
  wave_launch_config c = iu_wave_config(8, 8);
  observed seen = {0};
  c.observe = observe_and_write;
  c.observe_ctx = &seen;
  iu_result *r = iu_ok_or_fail(iu_run(text, &c));
  cr_expect_eq(iu_reg(r, 0, 3), 107);
  cr_expect_eq(iu_reg(r, 1, 3), 0);
  /* 6 instructions, if, mov, endif, and the halt that ends every lane: the last `halt` is
   * never reached. */
  cr_expect_eq(seen.events, 10);
  cr_expect_eq(seen.structured, 2);
  cr_expect_eq(seen.empty_masks, 0);
  iu_free(r);
}
