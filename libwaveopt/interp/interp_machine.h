/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The machine of one launch and what both execution modes share about it
 * (interp_machine.c): geometry, initial registers, the end-of-run snapshot, errors.
 *
 * The interpreter's files call only downward:
 *   interp.c          the public API, launch set-up, SIMT control flow and scheduling
 *   interp_thread.c   per-thread mode
 *   interp_machine.c  what both modes share about a launch
 *   interp_exec.c     the data path: ALU, memory, atomics, wave ops, MMA over a wave
 *   interp_float.c    f16 / bf16 / f32 / f64 helpers
 *   interp_program.c  region tree -> linear program of decoded instructions
 */
#ifndef WAVE_INTERP_MACHINE_H
#define WAVE_INTERP_MACHINE_H

#include "interp/interp_exec.h"


struct wave_machine {
  /* Where the machine and everything it holds come from: NULL for malloc, else
   * own_allocator, a copy of the kernel's module's. A copy because the module keeps its
   * allocator inside itself, and wave_machine_destroy must not read a module that a caller
   * may have destroyed first (the machine holds none of the module's memory). */
  const wave_allocator *allocator;
  wave_allocator own_allocator;
  const wave_kernel *kernel;
  wave_launch_config config;  /* presets and memory_init point into this machine */
  wave_reg_value *presets;
  interp_program prog;
  bool runnable;              /* program and configuration are valid */
  uint32_t grid[3], wg_size[3];
  uint32_t width, threads, num_waves, num_wgs;
  uint64_t full;              /* mask of the W lanes */
  uint64_t thread_budget;     /* per-thread mode: thread-instructions per launch */
  interp_mem mem;
  uint8_t *initial_device;    /* SIMT: device memory at launch, for the per-thread rerun */
  uint32_t **const_rows;
  wave_run_status status;
  wave_run_error error;
  char message[1024];
  wave_counters counters;
  uint64_t *finished;         /* per workgroup and wave: lanes that ended by halt/return */
  uint32_t wgs_started;
  uint32_t *snap_regs;        /* per kept workgroup: every lane's GPRs */
  uint8_t *snap_preds;        /* per kept workgroup: every lane's predicate bits */
  uint32_t last_wg;           /* linear index of the workgroup in the single snapshot slot */
};

/* Workgroup `index` as x, y, z. */
void interp_wg_id(const struct wave_machine *m, uint32_t index, uint32_t id[3]);
/* Marks workgroup `wg` started, clears local memory for it and gives its x, y, z in `id`. */
void interp_begin_workgroup(struct wave_machine *m, uint32_t wg, uint32_t id[3]);
/* Clears the registers of `w`, writes the special registers of lanes first_lane.. of wave
 * `wave_id` in workgroup `id`, and applies the host's presets. */
void interp_init_regs(struct wave_machine *m, interp_wave *w, const uint32_t id[3],
                      uint32_t wave_id, uint32_t first_lane);
/* Records the registers of the lanes of `w` as threads first_thread.. of workgroup wg. */
void interp_save_lanes(struct wave_machine *m, uint32_t wg, uint32_t first_thread,
                       const interp_wave *w);
/* Stops the run with an error at program index pc (loc of that instruction). */
void interp_fail(struct wave_machine *m, wave_error_kind kind, size_t pc, uint32_t wg,
                 uint32_t wave, uint64_t lanes, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* Turns a data-path fault into the run's error; lane_base shifts a thread's lane bit. */
void interp_fail_fault(struct wave_machine *m, const interp_fault *f, size_t pc, uint32_t wg,
                       uint32_t wave, unsigned lane_base);
void interp_trace(const struct wave_machine *m, size_t pc, uint32_t wg, uint32_t wave,
                  uint64_t mask);

/* Records the run's one error (status WAVE_RUN_ERROR). */
void interp_set_error(struct wave_machine *m, wave_error_kind kind, wave_loc loc, const char *text);
/* Source location of program index pc (the kernel's when pc is past the end). */
wave_loc interp_pc_loc(const struct wave_machine *m, size_t pc);
/* Threads in one workgroup's register snapshot (waves * W). */
size_t interp_slot_threads(const struct wave_machine *m);

#endif
