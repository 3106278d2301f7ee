/* SPDX-License-Identifier: Apache-2.0 */
#include "interp_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

wave_module *iu_parse(const char *text, wave_diags *diags) {
  wave_module *m = wave_parse_string(text, strlen(text), "test.wave", diags);
  if (!m) {
    for (size_t i = 0; i < diags->count; i++)
      cr_log_error("%u:%u: %s", diags->items[i].line, diags->items[i].col,
                   diags->items[i].message);
  }
  cr_assert_not_null(m, "the test kernel does not parse");
  return m;
}

wave_launch_config iu_config(uint32_t grid_x, uint32_t workgroup_x) {
  wave_launch_config c;
  wave_launch_config_init(&c);
  if (grid_x)
    c.grid[0] = grid_x;
  c.workgroup[0] = workgroup_x;
  return c;
}

wave_launch_config iu_wave_config(uint32_t threads, uint32_t width) {
  wave_launch_config c = iu_config(1, threads);
  c.wave_width = width;
  return c;
}

iu_result *iu_run_kernel(const char *text, const char *kernel, const wave_launch_config *config) {
  iu_result *r = calloc(1, sizeof *r);
  cr_assert_not_null(r);
  wave_diags_init(&r->diags);
  r->module = iu_parse(text, &r->diags);
  const wave_kernel *k = wave_module_find_kernel(r->module, kernel);
  cr_assert_not_null(k, "no kernel '%s'", kernel ? kernel : "(first)");
  r->machine = wave_simulate(k, config, &r->diags);
  cr_assert_not_null(r->machine);
  return r;
}

iu_result *iu_run(const char *text, const wave_launch_config *config) {
  return iu_run_kernel(text, NULL, config);
}

void iu_free(iu_result *r) {
  if (!r)
    return;
  wave_machine_destroy(r->machine);
  wave_module_destroy(r->module);
  wave_diags_free(&r->diags);
  free(r);
}

bool iu_ok(const iu_result *r) {
  return wave_machine_status(r->machine) == WAVE_RUN_OK;
}

iu_result *iu_ok_or_fail(iu_result *r) {
  cr_assert(iu_ok(r), "%s", iu_error_message(r));
  return r;
}

void iu_free_expecting(iu_result *r, wave_error_kind kind) {
  cr_assert_eq(iu_error_kind(r), kind, "error kind %d, want %d: %s", (int)iu_error_kind(r),
               (int)kind, iu_error_message(r));
  iu_free(r);
}

wave_error_kind iu_error_kind(const iu_result *r) {
  const wave_run_error *e = wave_machine_error(r->machine);
  return e ? e->kind : WAVE_ERR_NONE;
}

const char *iu_error_message(const iu_result *r) {
  const wave_run_error *e = wave_machine_error(r->machine);
  return e ? e->message : "";
}

uint32_t iu_u32(const iu_result *r, size_t address) {
  size_t size;
  const uint8_t *mem = wave_machine_device_memory(r->machine, &size);
  cr_assert_leq(address + 4, size, "address %zu out of range", address);
  return (uint32_t)mem[address] | (uint32_t)mem[address + 1] << 8 |
         (uint32_t)mem[address + 2] << 16 | (uint32_t)mem[address + 3] << 24;
}

float iu_f32(const iu_result *r, size_t address) {
  return iu_float(iu_u32(r, address));
}

uint32_t iu_reg(const iu_result *r, uint32_t thread, uint32_t reg) {
  uint32_t value = 0;
  uint32_t wg = wave_machine_num_workgroups(r->machine) - 1;
  cr_assert(wave_machine_read_gpr(r->machine, wg, thread, reg, &value),
            "r%u of thread %u is not readable", reg, thread);
  return value;
}

bool iu_pred(const iu_result *r, uint32_t thread, uint32_t pred) {
  bool value = false;
  uint32_t wg = wave_machine_num_workgroups(r->machine) - 1;
  cr_assert(wave_machine_read_pred(r->machine, wg, thread, pred, &value),
            "p%u of thread %u is not readable", pred, thread);
  return value;
}

const wave_counters *iu_counters(const iu_result *r) {
  return wave_machine_counters(r->machine);
}

void iu_expect_regs(const iu_result *r, uint32_t thread, const iu_want *w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t got = iu_reg(r, thread, w[i].at);
    cr_assert_eq(got, w[i].want, "r%u of thread %u is 0x%x, want 0x%x", w[i].at, thread, got,
                 w[i].want);
  }
}

void iu_expect_words(const iu_result *r, const iu_want *w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t got = iu_u32(r, w[i].at);
    cr_assert_eq(got, w[i].want, "word at 0x%x is 0x%x, want 0x%x", w[i].at, got, w[i].want);
  }
}

uint32_t iu_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

float iu_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
