/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What both execution modes share about a launch: workgroup geometry, the registers a lane
 * starts with (special registers and the host's presets), the snapshot of every lane's
 * registers at the end, and turning a fault into the run's one error with its source line,
 * workgroup, wave and lanes. SIMT mode (interp.c) and per-thread mode (interp_thread.c) sit
 * above this file; nothing here knows how either schedules its waves or threads.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "interp/interp_machine.h"

void interp_wg_id(const wave_machine *m, uint32_t index, uint32_t id[3]) {
  id[0] = index % m->grid[0];
  id[1] = index / m->grid[0] % m->grid[1];
  id[2] = index / m->grid[0] / m->grid[1];
}

void interp_begin_workgroup(wave_machine *m, uint32_t wg, uint32_t id[3]) {
  interp_wg_id(m, wg, id);
  m->wgs_started = wg + 1;
  memset(m->mem.local, 0, m->mem.local_size);
}

/* ---- errors --------------------------------------------------------------------------- */

void interp_set_error(wave_machine *m, wave_error_kind kind, wave_loc loc, const char *text) {
  snprintf(m->message, sizeof m->message, "%s", text);
  memset(&m->error, 0, sizeof m->error);
  m->error.kind = kind;
  m->error.message = m->message;
  m->error.loc = loc;
  m->status = WAVE_RUN_ERROR;
}

wave_loc interp_pc_loc(const wave_machine *m, size_t pc) {
  return pc < m->prog.len ? m->prog.entries[pc].loc : wave_kernel_loc(m->kernel);
}

void interp_fail(wave_machine *m, wave_error_kind kind, size_t pc, uint32_t wg, uint32_t wave,
                 uint64_t lanes, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  wave_loc loc = interp_pc_loc(m, pc);
  uint32_t id[3];
  interp_wg_id(m, wg, id);
  char text[sizeof m->message];
  snprintf(text, sizeof text, "%s at line %" PRIu32 " in workgroup (%" PRIu32 ",%" PRIu32
           ",%" PRIu32 ") wave %" PRIu32 ", lanes 0x%" PRIx64,
           what, loc.line, id[0], id[1], id[2], wave, lanes);
  interp_set_error(m, kind, loc, text);
  memcpy(m->error.workgroup, id, sizeof id);
  m->error.wave = wave;
  m->error.lanes = lanes;
}

void interp_fail_fault(wave_machine *m, const interp_fault *f, size_t pc, uint32_t wg,
                       uint32_t wave, unsigned lane_base) {
  const char *name = wave_opcode_table[m->prog.code[pc].op].mnemonic;
  uint64_t lanes = f->lanes << lane_base;
  switch (f->kind) {
  case WAVE_ERR_DIV_ZERO:
    interp_fail(m, f->kind, pc, wg, wave, lanes, "integer division by zero (%s)", name);
    break;
  case WAVE_ERR_OUT_OF_BOUNDS:
    interp_fail(m, f->kind, pc, wg, wave, lanes,
                "%s: %s memory access out of bounds at address 0x%" PRIx64
                " (%" PRIu32 " bytes; the memory has %zu)",
                name, f->local ? "local" : "device", f->address, f->bytes,
                f->local ? m->mem.local_size : m->mem.device_size);
    break;
  case WAVE_ERR_BAD_CLAMP:
    interp_fail(m, f->kind, pc, wg, wave, lanes, "%s with lo > hi or a NaN bound", name);
    break;
  default:
    interp_fail(m, f->kind, pc, wg, wave, lanes,
                "%s: wave operations have no per-thread meaning", name);
    break;
  }
}

void interp_trace(const wave_machine *m, size_t pc, uint32_t wg, uint32_t wave, uint64_t mask) {
  wave_trace_event e;
  interp_wg_id(m, wg, e.workgroup);
  e.wave = wave;
  e.mask = mask;
  e.index = pc;
  e.op = m->prog.entries[pc].op;
  e.loc = m->prog.entries[pc].loc;
  m->config.trace(m->config.trace_ctx, &e);
}

/* ---- registers ------------------------------------------------------------------------ */

void interp_init_regs(wave_machine *m, interp_wave *w, const uint32_t id[3], uint32_t wave_id,
                      uint32_t first_lane) {
  interp_wave_reset(w, &m->prog);
  uint32_t X = m->wg_size[0], Y = m->wg_size[1];
  for (uint32_t l = 0; l < w->width; l++) {
    uint32_t lane = first_lane + l;
    uint32_t t = wave_id * m->width + lane;
    uint32_t v[WAVE_NUM_SREGS] = {
        t % X, t / X % Y, t / X / Y, wave_id, lane, id[0], id[1], id[2],
        m->wg_size[0], m->wg_size[1], m->wg_size[2], m->grid[0], m->grid[1], m->grid[2],
        m->width, m->num_waves, 1, INTERP_MMA_DIM, INTERP_MMA_DIM, INTERP_MMA_DIM,
    };
    for (uint32_t s = 0; s < WAVE_NUM_SREGS; s++)
      w->row[m->prog.sreg_row + s][l] = v[s];
  }
  for (size_t p = 0; p < m->config.num_presets; p++) {
    uint32_t *row = w->row[m->presets[p].reg];
    for (uint32_t l = 0; l < w->width; l++)
      row[l] = m->presets[p].value;
  }
}

size_t interp_slot_threads(const wave_machine *m) {
  return (size_t)m->num_waves * m->width;
}

void interp_save_lanes(wave_machine *m, uint32_t wg, uint32_t first_thread,
                       const interp_wave *w) {
  size_t slot = m->config.keep_all_registers ? wg : 0;
  m->last_wg = wg;
  uint32_t n = m->prog.num_gprs;
  size_t first = slot * interp_slot_threads(m) + first_thread;
  for (uint32_t l = 0; l < w->width; l++) {
    uint32_t *dst = m->snap_regs + (first + l) * n;
    for (uint32_t r = 0; r < n; r++)
      dst[r] = w->row[r][l];
    uint8_t bits = 0;
    for (int p = 0; p < WAVE_NUM_PREDS; p++)
      bits |= (uint8_t)(((w->pred[p] >> l) & 1) << p);
    m->snap_preds[first + l] = bits;
  }
}
