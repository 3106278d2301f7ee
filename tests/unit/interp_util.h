/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of the interpreter tests: parse a kernel from text, run it, read results. */
#ifndef INTERP_UTIL_H
#define INTERP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/interp.h"
#include "waveopt/waveopt.h"

/* A parsed module and a machine that ran its first kernel (or the kernel named in iu_run_kernel).
 * The module outlives the machine, which points into it. */
typedef struct iu_result {
  wave_module *module;
  wave_machine *machine;
  wave_diags diags;
} iu_result;

/* Parses `text` (failing the test on a parse error) and returns the module. */
wave_module *iu_parse(const char *text, wave_diags *diags);

/* A launch configuration with the defaults and the given grid/workgroup x (0 = default). */
wave_launch_config iu_config(uint32_t grid_x, uint32_t workgroup_x);
/* One workgroup of `threads` threads in waves `width` wide (0 = default). */
wave_launch_config iu_wave_config(uint32_t threads, uint32_t width);

/* Parses and runs; `config` may be NULL for the defaults. Never NULL. */
iu_result *iu_run(const char *text, const wave_launch_config *config);
iu_result *iu_run_kernel(const char *text, const char *kernel, const wave_launch_config *config);
void iu_free(iu_result *r);
/* Fails the test, with the run error, unless r ran to completion; returns r. */
iu_result *iu_ok_or_fail(iu_result *r);
/* Fails the test unless r stopped with a run error of this kind; frees r. */
void iu_free_expecting(iu_result *r, wave_error_kind kind);

bool iu_ok(const iu_result *r);
wave_error_kind iu_error_kind(const iu_result *r);
const char *iu_error_message(const iu_result *r);   /* "" when there is no error */

/* Device memory as little-endian words; fails the test when out of range. */
uint32_t iu_u32(const iu_result *r, size_t address);
float iu_f32(const iu_result *r, size_t address);
/* Register / predicate of thread t of the last workgroup. */
uint32_t iu_reg(const iu_result *r, uint32_t thread, uint32_t reg);
bool iu_pred(const iu_result *r, uint32_t thread, uint32_t pred);
const wave_counters *iu_counters(const iu_result *r);

/* One expected value: register number or device byte address `at` holds `want`. */
typedef struct iu_want {
  uint32_t at;
  uint32_t want;
} iu_want;
/* Checks registers of one thread of the last workgroup / device words, naming each miss. */
void iu_expect_regs(const iu_result *r, uint32_t thread, const iu_want *w, size_t n);
void iu_expect_words(const iu_result *r, const iu_want *w, size_t n);
#define IU_WANTS(...) (const iu_want[]){__VA_ARGS__}, \
  sizeof((const iu_want[]){__VA_ARGS__}) / sizeof(iu_want)
#define IU_EXPECT_REGS(r, thread, ...) iu_expect_regs(r, thread, IU_WANTS(__VA_ARGS__))
#define IU_EXPECT_WORDS(r, ...) iu_expect_words(r, IU_WANTS(__VA_ARGS__))

/* docs/language.md "Example kernels", example 2 up to its end: thread t sums the numbers below t
 * that are not multiples of 3, stopping past 40, into r3. Each test appends how it stores r3. */
#define IU_LOOP_DEMO_HEAD                                                                     \
  ".kernel loop_demo\n.registers 16\n"                                                        \
  "    mov_sr   r1, sr_thread_id_x\n"                                                         \
  "    mov_imm  r2, 0\n    mov_imm  r3, 0\n    mov_imm  r4, 1\n    mov_imm  r5, 3\n"          \
  "    mov_imm  r6, 0\n    mov_imm  r7, 40\n"                                                 \
  "    loop\n"                                                                                \
  "        icmp_ge  p1, r2, r1\n        break    p1\n"                                        \
  "        mov      r8, r2\n        iadd     r2, r2, r4\n"                                    \
  "        imod     r9, r8, r5\n        icmp_eq  p2, r9, r6\n        continue p2\n"           \
  "        iadd     r3, r3, r8\n        icmp_gt  p3, r3, r7\n        break    p3\n"           \
  "    endloop\n"

/* Bits of a float, and a float from bits. */
uint32_t iu_bits(float f);
float iu_float(uint32_t bits);

#endif
