/* SPDX-License-Identifier: Apache-2.0 */
/* legalize's rewrite of continue, of a break it cannot take out of its ifs, and of halt inside
 * regions (xform/exit_flags.h) where the lit test cannot reach: nests 100 000 deep (no
 * recursion on the C stack, and each level's rest under its flag check), compared with the
 * original in the interpreter; and the rewrite function called directly, which changes nothing
 * where it has nothing to do or refuses. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/interp.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"
#include "xform/exit_flags.h"
#include "xform/xform.h"

#define DEEP 100000
#define WORDS 16

/* What legalize counted: continues, halts and returns, and breaks rewritten into flags. */
typedef struct rewrites {
  uint64_t continues, exits, breaks;
} rewrites;

/* Runs legalize for wave-emu with room to grow and no depth limit. */
static rewrites legalize(wave_module *m) {
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_pipeline_options options = {0};
  options.target = wave_target_lookup("wave-emu");
  options.max_registers = 32;
  options.max_divergence_depth = UINT32_MAX;
  wave_pipeline_result result = {0};
  tu_run_pipeline(registry, m, "legalize", &options, &result);
  rewrites r = {tu_stat(&result, "continues-rewritten"), tu_stat(&result, "exits-rewritten"),
                tu_stat(&result, "breaks-rewritten")};
  wave_pipeline_result_free(&result);
  wave_pass_registry_destroy(registry);
  return r;
}

/* `if p1 / if p2 / if p1 ...` DEEP times around `exit`, each level followed by `iadd r8, r8,
 * r7` (one more for every lane that gets there), in a loop of three iterations or not. */
static char *deep_kernel(const char *exit, bool loop) {
  const char *head = ".kernel deep\n.registers 16\n.workgroup_size 16, 1, 1\n"
                     "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 2\n    shl      r3, r1, r2\n"
                     "    mov_imm  r4, 10\n    mov_imm  r5, 3\n"
                     "    icmp_lt  p1, r1, r4\n    icmp_gt  p2, r1, r5\n"
                     "    mov_imm  r6, 0\n    mov_imm  r7, 1\n    mov_imm  r8, 0\n"
                     "    mov_imm  r9, 3\n";
  char *text = malloc(strlen(head) + (size_t)DEEP * 48 + 512), *at = text;
  cr_assert_not_null(text);
  at += sprintf(at, "%s", head);
  if (loop)
    at += sprintf(at, "    loop\n    iadd r6, r6, r7\n    icmp_lt p3, r6, r9\n");
  for (unsigned i = 0; i < DEEP; i++)
    at += sprintf(at, "    if p%u\n", i % 2 + 1);
  at += sprintf(at, "    %s\n", exit);
  for (unsigned i = 0; i < DEEP; i++)
    at += sprintf(at, "    endif\n    iadd r8, r8, r7\n");
  if (loop)
    at += sprintf(at, "    icmp_le p0, r9, r6\n    break p0\n    endloop\n");
  sprintf(at, "    device_store_u32 r3, r8\n    halt\n.end\n");
  return text;
}

static void check_deep(const char *exit, bool loop, rewrites want_rewrites,
                       const uint32_t want[WORDS]) {
  char *text = deep_kernel(exit, loop);
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  uint32_t before[WORDS], after[WORDS];
  tu_run_words(k, WORDS, before, WORDS);
  for (unsigned lane = 0; lane < WORDS; lane++)
    cr_assert_eq(before[lane], want[lane], "lane %u: %u", lane, before[lane]);
  rewrites r = legalize(m);
  cr_assert_eq(r.continues, want_rewrites.continues);
  cr_assert_eq(r.exits, want_rewrites.exits);
  cr_assert_eq(r.breaks, want_rewrites.breaks);
  tu_assert_valid(k);
  tu_run_words(k, WORDS, after, WORDS);
  cr_assert_arr_eq(after, before, sizeof(before));
  wave_module_destroy(m);
  free(text);
}

/* Lanes 4..9 pass every if: they continue at k = 1, 2 and add DEEP at k = 3. Lanes 0..3 stop at
 * the second if and add 2 a round, lanes 10..15 at the first and add 1. */
Test(legalize_exits, continue_100000_deep, .timeout = 300) {
  uint32_t want[WORDS];
  for (unsigned t = 0; t < WORDS; t++)
    want[t] = t < 4 ? 6 : t < 10 ? DEEP : 3;
  check_deep("continue p3", true, (rewrites){1, 0, 0}, want);
}

/* Lanes 4..9 halt at the bottom, having stored nothing; the others add as above, once. */
Test(legalize_exits, halt_100000_deep, .timeout = 300) {
  uint32_t want[WORDS];
  for (unsigned t = 0; t < WORDS; t++)
    want[t] = t < 4 ? 2 : t < 10 ? 0 : 1;
  check_deep("halt", false, (rewrites){0, 1, 0}, want);
}

/* The same halt in the loop: lanes 4..9 halt at k = 1 (the loop breaks on the done flag at
 * every level's end), the others go round three times. */
Test(legalize_exits, halt_in_loop_100000_deep, .timeout = 300) {
  uint32_t want[WORDS];
  for (unsigned t = 0; t < WORDS; t++)
    want[t] = t < 4 ? 6 : t < 10 ? 0 : 3;
  check_deep("halt", true, (rewrites){0, 1, 0}, want);
}

/* A break beside a wave operation, which may not gain a guard, so the break cannot leave its
 * ifs and becomes a flag: lanes 4..9 break at k = 1 having added nothing (the wave operation
 * runs for them alone, as before), the others go round three times. */
Test(legalize_exits, break_beside_a_wave_op_100000_deep, .timeout = 300) {
  uint32_t want[WORDS];
  for (unsigned t = 0; t < WORDS; t++)
    want[t] = t < 4 ? 6 : t < 10 ? 0 : 3;
  check_deep("wave_reduce_add r10, r7\n    break p1", true, (rewrites){0, 0, 1}, want);
}

/* ---- the rewrite function directly --------------------------------------------------------- */

static char *print(const wave_module *m) {
  wave_print_options options = {0};
  char *text = wave_print_to_string(m, &options, NULL);
  cr_assert_not_null(text);
  return text;
}

/* Calls the rewrite on the kernel's first if or loop with wave-emu's settings, no growth. */
static wave_exit_flags_status lower_first(wave_module *m, wave_exit_flags_result *r) {
  wave_kernel *k = wave_module_first_kernel(m);
  wave_node *top = wave_node_list_first(wave_region_body(wave_kernel_first_region(k)));
  while (top->kind == WAVE_NODE_BLOCK)
    top = top->next;
  wave_liveness *lv = wave_liveness_compute(k);
  cr_assert_not_null(lv);
  wave_regset reserved = wave_xform_kernel_taken(k);
  wave_exit_flags_env env = {wave_target_lookup("wave-emu"),
                             lv,
                             &reserved,
                             false,
                             wave_kernel_registers(k),
                             32,
                             true,
                             true,
                             true,
                             NULL,
                             NULL};
  wave_exit_flags_status s = wave_exit_flags_lower(&env, top, r);
  wave_liveness_destroy(lv);
  return s;
}

static void check_unchanged(const char *text, wave_exit_flags_status want, const char *why) {
  wave_module *m = tu_parse_ok(text, "direct.wave", false);
  char *before = print(m);
  wave_exit_flags_result r;
  cr_assert_eq(lower_first(m, &r), want);
  if (why)
    cr_assert(strstr(r.what, why), "%s", r.what);
  char *after = print(m);
  cr_assert_str_eq(after, before);
  free(before);
  free(after);
  wave_module_destroy(m);
}

Test(legalize_exits, nothing_to_do) {
  check_unchanged(".kernel k\n.registers 8\n    mov_imm r1, 1\n    loop\n"
                  "        icmp_eq p1, r1, r1\n        break p1\n    endloop\n    halt\n.end\n",
                  WAVE_EXIT_FLAGS_NONE, NULL);
}

Test(legalize_exits, refused_beside_a_barrier) {
  check_unchanged(".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
                  "    icmp_lt p1, r1, r2\n    if p1\n        halt\n    else\n        barrier\n"
                  "    endif\n    halt\n.end\n",
                  WAVE_EXIT_FLAGS_REFUSED, "would wait, not end, at the barrier at 9:9");
}

Test(legalize_exits, refused_in_a_subroutine) {
  wave_module *m = tu_parse_ok(".kernel k\n.registers 8\n    call s\n    halt\ns:\n"
                               "    mov_sr r1, sr_lane_id\n    icmp_eq p1, r1, r1\n"
                               "    if p1\n        halt\n    endif\n    return\n.end\n",
                               "direct.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_node *top = wave_node_list_first(wave_region_body(wave_kernel_last_region(k)))->next;
  cr_assert_eq(top->kind, WAVE_NODE_IF);
  wave_liveness *lv = wave_liveness_compute(k);
  wave_regset reserved = wave_xform_kernel_taken(k);
  wave_exit_flags_env env = {wave_target_lookup("wave-emu"), lv, &reserved, true,
                             64, 32, true, true, true, NULL, NULL};
  wave_exit_flags_result r;
  cr_assert_eq(wave_exit_flags_lower(&env, top, &r), WAVE_EXIT_FLAGS_REFUSED);
  cr_assert(strstr(r.what, "halt at 9:9 not rewritten for wave-emu: it is in a subroutine"), "%s",
            r.what);
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
}

/* Every register is live across the loop and .registers may not grow: the pass must fail, and
 * the scratch is known to be missing before anything is edited. */
Test(legalize_exits, no_register_left) {
  check_unchanged(".kernel k\n.registers 4\n    mov_sr r0, sr_lane_id\n    mov_imm r1, 0\n"
                  "    mov_imm r2, 1\n    mov_imm r3, 0\n    loop\n        iadd r1, r1, r2\n"
                  "        icmp_lt p1, r1, r0\n        continue p1\n        iadd r3, r3, r1\n"
                  "        icmp_le p2, r0, r1\n        break p2\n    endloop\n"
                  "    device_store_u32 r0, r3\n    device_store_u32 r1, r2\n    halt\n.end\n",
                  WAVE_EXIT_FLAGS_FAILED, "no register free for its flags within 4 registers");
}
