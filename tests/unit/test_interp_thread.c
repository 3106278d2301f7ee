/* SPDX-License-Identifier: Apache-2.0 */
/* Per-thread mode (Habermaier & Knapp) and the SIMT deadlock diagnosis built on it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_util.h"

static wave_launch_config launch(uint32_t threads, uint32_t width, wave_exec_mode mode) {
  wave_launch_config cfg = iu_wave_config(threads, width);
  cfg.mode = mode;
  cfg.device_memory_size = 1 << 14;
  return cfg;
}

/* Runs `text` in both modes and checks that memory, lane states and registers agree. */
static void agree(const char *text, uint32_t grid, uint32_t threads, uint32_t width) {
  wave_launch_config simt = launch(threads, width, WAVE_MODE_SIMT);
  simt.grid[0] = grid;
  simt.keep_all_registers = true;
  wave_launch_config thread = simt;
  thread.mode = WAVE_MODE_THREAD;
  iu_result *a = iu_run(text, &simt);
  iu_result *b = iu_run(text, &thread);
  cr_assert(iu_ok(a), "SIMT: %s", iu_error_message(a));
  cr_assert(iu_ok(b), "per-thread: %s", iu_error_message(b));
  size_t size_a, size_b;
  const uint8_t *mem_a = wave_machine_device_memory(a->machine, &size_a);
  const uint8_t *mem_b = wave_machine_device_memory(b->machine, &size_b);
  cr_assert_eq(size_a, size_b);
  bool any_store = false;
  for (size_t i = 0; i < size_a; i++) {
    cr_assert_eq(mem_a[i], mem_b[i], "memory differs at %zu", i);
    any_store |= mem_a[i] != 0;
  }
  cr_assert(any_store, "the kernel must store something to compare");
  uint32_t waves = wave_machine_num_waves(a->machine);
  for (uint32_t wg = 0; wg < grid; wg++) {
    for (uint32_t t = 0; t < waves * width; t++) {
      cr_assert_eq(wave_machine_lane_state(a->machine, wg, t),
                   wave_machine_lane_state(b->machine, wg, t), "thread %u", t);
      for (uint32_t reg = 0; reg < wave_machine_num_registers(a->machine); reg++) {
        uint32_t va = 0, vb = 0;
        bool ra = wave_machine_read_gpr(a->machine, wg, t, reg, &va);
        bool rb = wave_machine_read_gpr(b->machine, wg, t, reg, &vb);
        cr_assert_eq(ra, rb);
        if (t < threads)
          cr_assert_eq(va, vb, "workgroup %u thread %u r%u", wg, t, reg);
      }
    }
  }
  cr_assert_eq(iu_counters(a)->lane_instructions, iu_counters(b)->lane_instructions,
               "every thread executes the same instructions in both modes");
  iu_free(a);
  iu_free(b);
}

#define STORE_R3                                                                              \
  "    mov_sr r14, sr_workgroup_id_x\n    mov_sr r13, sr_workgroup_size_x\n"                 \
  "    mov_sr r12, sr_thread_id_x\n    imad r14, r14, r13, r12\n    shl r14, r14, 2\n"       \
  "    device_store_u32 r14, r3\n    halt\n"

Test(thread_mode, agrees_with_simt_on_break_continue_and_halt) {
  const char *text = ".kernel k\n.registers 16\n"
                     "    mov_sr r1, sr_thread_id_x\n"
                     "    mov_imm r2, 0\n    mov_imm r3, 0\n"
                     "    loop\n"
                     "        iadd r2, r2, 1\n"
                     "        icmp_gt p1, r2, r1\n"
                     "        if p1\n"
                     "            break p1\n"
                     "        endif\n"
                     "        and r4, r2, 3\n"
                     "        icmp_eq p2, r4, 0\n"
                     "        if p2\n"
                     "            iadd r3, r3, 100\n"
                     "            continue p2\n"
                     "        else\n"
                     "            iadd r3, r3, r2\n"
                     "        endif\n"
                     "        icmp_eq p3, r2, 13\n"
                     "        @p3 halt\n"
                     "    endloop\n" STORE_R3 ".end\n";
  agree(text, 2, 40, 16);
  agree(text, 1, 64, 32);
}

Test(thread_mode, agrees_with_simt_on_example_2) {
  const char *text = IU_LOOP_DEMO_HEAD STORE_R3 ".end\n";
  agree(text, 3, 32, 8);
}

Test(thread_mode, agrees_with_simt_on_barriers_and_calls) {
  const char *text = ".kernel k\n.registers 16\n.local_memory 512\n"
                     "    mov_sr r1, sr_thread_id_x\n"
                     "    shl r2, r1, 2\n"
                     "    imul r4, r1, r1\n"
                     "    local_store_u32 r2, r4\n"
                     "    barrier\n"
                     "    mov_sr r5, sr_workgroup_size_x\n"
                     "    isub r5, r5, 1\n    isub r5, r5, r1\n    shl r5, r5, 2\n"
                     "    local_load_u32 r3, r5\n"
                     "    icmp_lt p1, r1, 20\n"
                     "    if p1\n"
                     "        call bump\n"
                     "    endif\n" STORE_R3
                     "bump:\n"
                     "    iadd r3, r3, 7\n"
                     "    return\n"
                     ".end\n";
  agree(text, 2, 48, 16);
}

Test(thread_mode, wave_operations_are_errors) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_imm r1, 1\n"
                     "    wave_reduce_add r2, r1\n"
                     "    halt\n.end\n";
  wave_launch_config cfg = launch(8, 8, WAVE_MODE_THREAD);
  iu_result *r = iu_run(text, &cfg);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_WAVE_OP_IN_THREAD);
  cr_assert_not_null(strstr(iu_error_message(r), "no per-thread meaning"), "%s",
                     iu_error_message(r));
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, 4);
  iu_free(r);
}

Test(thread_mode, per_thread_budget_is_enforced) {
  const char *text = ".kernel k\n.registers 8\n    loop\n        iadd r1, r1, 1\n    endloop\n"
                     "    halt\n.end\n";
  wave_launch_config cfg = launch(8, 8, WAVE_MODE_THREAD);
  cfg.max_steps = 100;
  iu_result *r = iu_run(text, &cfg);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_NO_TERMINATION);
  cr_assert_eq(iu_counters(r)->steps, 800, "max_steps * W thread-instructions");
  iu_free(r);
}

/* ---- SIMT deadlocks (Habermaier & Knapp, Programs 2 and 3) ---------------------------- */

/* Program 2: lane 0 waits for a flag that the other lanes set on the else-side. SIMT runs
 * the then-side first and spins forever; thread by thread it finishes. */
static const char program2[] = ".kernel program2\n"
                               ".registers 8\n"
                               "    mov_sr r1, sr_lane_id\n"
                               "    mov_imm r2, 0x100\n"
                               "    icmp_eq p1, r1, 0\n"
                               "    if p1\n"
                               "        loop\n"                    /* line 7 */
                               "            device_load_u32 r3, r2\n"
                               "            icmp_ne p2, r3, 0\n"
                               "            break p2\n"
                               "        endloop\n"
                               "    else\n"                         /* line 12 */
                               "        mov_imm r4, 1\n"
                               "        device_store_u32 r2, r4\n"
                               "    endif\n"
                               "    halt\n"
                               ".end\n";

/* Program 3: the other lanes leave the loop and set the flag after it; lane 0 spins inside. */
static const char program3[] = ".kernel program3\n"
                               ".registers 8\n"
                               "    mov_sr r1, sr_lane_id\n"
                               "    mov_imm r2, 0x100\n"
                               "    icmp_ne p1, r1, 0\n"
                               "    loop\n"                        /* line 6 */
                               "        break p1\n"
                               "        loop\n"                    /* line 8 */
                               "            device_load_u32 r3, r2\n"
                               "            icmp_ne p2, r3, 0\n"
                               "            break p2\n"
                               "        endloop\n"
                               "        icmp_eq p3, r1, r1\n"
                               "        break p3\n"
                               "    endloop\n"                     /* line 15 */
                               "    mov_imm r4, 1\n"
                               "    device_store_u32 r2, r4\n"
                               "    halt\n"
                               ".end\n";

static void check_deadlock(const char *text, uint32_t loop_line, const char *parked) {
  wave_launch_config cfg = launch(32, 32, WAVE_MODE_SIMT);
  cfg.max_steps = 100000;
  iu_result *r = iu_run(text, &cfg);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_SIMT_DEADLOCK, "%s", iu_error_message(r));
  const char *msg = iu_error_message(r);
  cr_assert_not_null(strstr(msg, "deadlock"), "%s", msg);
  char expect[64];
  snprintf(expect, sizeof expect, "loop at line %u", loop_line);
  cr_assert_not_null(strstr(msg, expect), "%s", msg);
  cr_assert_not_null(strstr(msg, parked), "%s", msg);
  cr_assert_not_null(strstr(msg, "0xfffffffe"), "the parked lanes: %s", msg);
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, loop_line);
  iu_free(r);

  cfg.mode = WAVE_MODE_THREAD;
  r = iu_run(text, &cfg);
  cr_assert(iu_ok(r), "per-thread: %s", iu_error_message(r));
  cr_assert_eq(iu_u32(r, 0x100), 1);
  for (uint32_t t = 0; t < 32; t++)
    cr_assert_eq(wave_machine_lane_state(r->machine, 0, t), WAVE_LANE_FINISHED);
  iu_free(r);
}

Test(deadlock, program_2_parks_lanes_on_the_else_side) {
  check_deadlock(program2, 7, "else-side at line 12");
}

Test(deadlock, program_3_parks_lanes_after_the_loop) {
  check_deadlock(program3, 8, "after the loop at line 15");
}

Test(deadlock, default_budget_finds_it_too) {
  iu_result *r = iu_run(program2, NULL);
  iu_free_expecting(r, WAVE_ERR_SIMT_DEADLOCK);
}

Test(deadlock, the_check_can_be_turned_off) {
  wave_launch_config cfg = launch(32, 32, WAVE_MODE_SIMT);
  cfg.max_steps = 10000;
  cfg.no_deadlock_check = true;
  iu_result *r = iu_run(program2, &cfg);
  iu_free_expecting(r, WAVE_ERR_NO_TERMINATION);
}

Test(deadlock, a_long_loop_that_finishes_is_no_deadlock) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 100000\n"
                     "    iadd r2, r2, r1\n"        /* lanes leave at different iterations */
                     "    loop\n"
                     "        iadd r3, r3, 1\n"
                     "        icmp_ge p1, r3, r2\n"
                     "        break p1\n"
                     "    endloop\n"
                     "    mov_sr r4, sr_thread_id_x\n    shl r4, r4, 2\n"
                     "    device_store_u32 r4, r3\n"
                     "    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(iu_run(text, NULL));
  cr_assert_eq(iu_u32(r, 4 * 31), 100031);
  iu_free(r);
}

Test(deadlock, a_loop_longer_than_the_budget_does_not_terminate) {
  /* it would finish with more budget: not a deadlock */
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 1000\n"
                     "    imul r2, r2, r1\n"
                     "    loop\n"
                     "        iadd r3, r3, 1\n"
                     "        icmp_ge p1, r3, r2\n"
                     "        break p1\n"
                     "    endloop\n"
                     "    halt\n.end\n";
  for (uint32_t width = 8; width <= 32; width *= 2) {
    wave_launch_config cfg = launch(64, width, WAVE_MODE_SIMT);
    cfg.max_steps = 20000;
    iu_result *r = iu_run(text, &cfg);
    cr_assert_eq(iu_error_kind(r), WAVE_ERR_NO_TERMINATION, "W=%u: %s", width,
                 iu_error_message(r));
    cr_assert_not_null(strstr(iu_error_message(r), "does not terminate"));
    cr_assert_null(strstr(iu_error_message(r), "deadlock"));
    iu_free(r);
  }
}

Test(deadlock, an_infinite_loop_does_not_terminate) {
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_imm r2, 0x100\n"
                     "    loop\n"
                     "        device_load_u32 r3, r2\n"
                     "        icmp_ne p2, r3, 0\n"
                     "        break p2\n"
                     "    endloop\n"
                     "    halt\n.end\n";
  iu_result *r = iu_run(text, NULL);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_NO_TERMINATION, "%s", iu_error_message(r));
  cr_assert_not_null(strstr(iu_error_message(r), "does not terminate"), "%s", iu_error_message(r));
  cr_assert_not_null(strstr(iu_error_message(r), "loop at line 4"), "%s", iu_error_message(r));
  iu_free(r);
}

Test(deadlock, the_simt_run_keeps_its_own_memory) {
  /* the per-thread rerun works on a copy: the machine shows the SIMT state */
  const char *text = ".kernel k\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 0x100\n"
                     "    mov_imm r5, 0x200\n    mov_imm r6, 7\n    device_store_u32 r5, r6\n"
                     "    icmp_eq p1, r1, 0\n"
                     "    if p1\n"
                     "        loop\n"
                     "            device_load_u32 r3, r2\n"
                     "            icmp_ne p2, r3, 0\n"
                     "            break p2\n"
                     "        endloop\n"
                     "    else\n"
                     "        device_store_u32 r2, r6\n"
                     "    endif\n"
                     "    halt\n.end\n";
  wave_launch_config cfg = launch(32, 32, WAVE_MODE_SIMT);
  cfg.max_steps = 5000;
  iu_result *r = iu_run(text, &cfg);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_SIMT_DEADLOCK, "%s", iu_error_message(r));
  cr_assert_eq(iu_u32(r, 0x100), 0, "SIMT never ran the else-side");
  cr_assert_eq(iu_u32(r, 0x200), 7);
  cr_assert_eq(wave_machine_lane_state(r->machine, 0, 0), WAVE_LANE_RUNNING);
  iu_free(r);
}
