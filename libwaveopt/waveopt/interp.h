/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference interpreter: runs one kernel of a module the way docs/language.md "Active mask and
 * divergence stack" says a conforming machine should (the intended semantics, not the upstream
 * emulator's bugs).
 *
 * SIMT mode keeps a per-wave active mask and divergence stack; THREAD mode runs every thread
 * alone with its own program counter (Habermaier & Knapp), which is the yardstick for "does
 * this program deadlock only because of SIMT scheduling". Both are deterministic: the waves
 * (threads) of a workgroup take turns one instruction at a time, workgroups run one after
 * another.
 *
 * Undefined behaviour stops the run with an error that names the instruction's source line,
 * the wave and the lanes. The library never prints: errors come back as values (and, when a
 * wave_diags list is given, as diagnostics at the instruction's location).
 *
 * Typical use (one call):
 *
 *   wave_launch_config cfg;
 *   wave_launch_config_init(&cfg);
 *   cfg.grid[0] = 2;
 *   cfg.presets = args; cfg.num_presets = 2;      // kernel arguments in registers
 *   cfg.memory_init = bytes; cfg.memory_init_size = n;
 *   wave_machine *m = wave_simulate(kernel, &cfg, NULL);
 *   if (m && wave_machine_status(m) == WAVE_RUN_OK) { ... wave_machine_device_memory(m, &n) ... }
 *   wave_machine_destroy(m);
 */
#ifndef WAVEOPT_INTERP_H
#define WAVEOPT_INTERP_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WAVE_DEFAULT_WAVE_WIDTH 32
#define WAVE_MIN_WAVE_WIDTH 8
#define WAVE_MAX_WAVE_WIDTH 64
#define WAVE_DEFAULT_MAX_STEPS 10000000u
#define WAVE_DEFAULT_DEVICE_MEMORY (1u << 20)
#define WAVE_DEFAULT_LOCAL_MEMORY 16384u
#define WAVE_DEFAULT_WORKGROUP_SIZE 32u  /* x, when neither the kernel nor the launch says */
#define WAVE_MAX_CALL_DEPTH 8

typedef enum wave_exec_mode {
  WAVE_MODE_SIMT,    /* waves with active masks and a divergence stack */
  WAVE_MODE_THREAD,  /* every thread alone with its own pc; wave operations are errors */
} wave_exec_mode;

/* A register the host sets before the launch (a kernel argument): the same value in every lane
 * of every wave. */
typedef struct wave_reg_value {
  uint32_t reg;
  uint32_t value;
} wave_reg_value;

/* One issued instruction, for tracing. In THREAD mode `mask` holds the thread's lane bit. */
typedef struct wave_trace_event {
  uint32_t workgroup[3];
  uint32_t wave;
  uint64_t mask;              /* lanes the instruction runs for (after its guard) */
  size_t index;               /* in the flattened program (wave_machine_program_entry) */
  wave_opcode op;
  wave_loc loc;
} wave_trace_event;

typedef void (*wave_trace_fn)(void *ctx, const wave_trace_event *event);

/* A SIMT wave right after it issued a statement for at least one lane, for tools that watch
 * or disturb execution (a liveness check clobbers dead registers here). Valid during the
 * callback only. */
typedef struct wave_observe {
  uint32_t workgroup[3];
  uint32_t wave;
  uint64_t mask;              /* lanes the statement ran for (after its guard) */
  uint64_t active;            /* lanes that go on to the next statement, guard or not */
  size_t index;               /* in the flattened program (wave_machine_program_entry) */
  const wave_instr *instr;    /* NULL for if, else, endif, loop and endloop */
  struct interp_wave *regs_;  /* private: the wave's register file */
  uint32_t num_regs_;         /* private: GPRs in the register file */
} wave_observe;

typedef void (*wave_observe_fn)(void *ctx, const wave_observe *observe);

/* A lane's register as it is now; 0 (false) for a lane or register that does not exist.
 * Writes change what the wave computes from here on and ignore what does not exist. */
WAVE_API uint32_t wave_observe_read_gpr(const wave_observe *o, unsigned lane, uint32_t reg);
WAVE_API void wave_observe_write_gpr(const wave_observe *o, unsigned lane, uint32_t reg,
                                     uint32_t value);
WAVE_API bool wave_observe_read_pred(const wave_observe *o, unsigned lane, uint32_t pred);
WAVE_API void wave_observe_write_pred(const wave_observe *o, unsigned lane, uint32_t pred,
                                      bool value);

typedef struct wave_launch_config {
  uint32_t grid[3];           /* workgroups in x, y, z; 0 counts as 1 */
  uint32_t workgroup[3];      /* threads per workgroup; workgroup[0] == 0 = the kernel's
                               * .workgroup_size (its x == 0 also means "not given"), else
                               * WAVE_DEFAULT_WORKGROUP_SIZE,1,1. A 0 in y or z counts as 1. */
  uint32_t wave_width;        /* 8..64; 0 = 32 */
  uint64_t max_steps;         /* SIMT: wave-instructions per launch; THREAD: thread-instructions
                               * per launch are limited to max_steps * wave_width. 0 = 10^7 */
  uint32_t max_depth;         /* divergence-stack frames a wave may hold; 0 = unlimited */
  wave_exec_mode mode;
  bool emulator_fallbacks;    /* idiv/imod by zero give 0 instead of an error (upstream) */
  bool no_deadlock_check;     /* SIMT: on budget exhaustion, skip the per-thread rerun that
                               * tells a SIMT deadlock from a run that does not terminate */
  bool keep_all_registers;    /* keep every workgroup's final registers, not only the last's */
  wave_trace_fn trace;        /* called for every issue when not NULL (slow) */
  void *trace_ctx;
  /* Called after every statement a SIMT wave issues with some lane active (not in THREAD
   * mode, where lanes run one at a time); NULL costs one test per issue. */
  wave_observe_fn observe;
  void *observe_ctx;
  size_t device_memory_size;  /* bytes; 0 = 1 MiB */
  uint32_t local_memory_size; /* bytes per workgroup; 0 = .local_memory, or 16 KiB if that is 0 */
  const wave_reg_value *presets;  /* registers preset in every lane (kernel arguments) */
  size_t num_presets;
  const void *memory_init;    /* copied to device memory at offset 0 (rest zero-filled) */
  size_t memory_init_size;    /* must not exceed the device memory size */
} wave_launch_config;

/* Fills in the defaults above (all zeros except what the zeros mean). */
WAVE_API void wave_launch_config_init(wave_launch_config *config);

typedef enum wave_run_status {
  WAVE_RUN_OK,                /* every workgroup finished */
  WAVE_RUN_NOT_RUN,           /* wave_machine_run not called yet */
  WAVE_RUN_ERROR,             /* see wave_machine_error */
} wave_run_status;

typedef enum wave_error_kind {
  WAVE_ERR_NONE,
  WAVE_ERR_INVALID_PROGRAM,   /* cannot be run at all: bad structure, unknown label, register
                               * beyond .registers, a guarded call, ... (found at creation) */
  WAVE_ERR_INVALID_CONFIG,    /* wave width, sizes or presets out of range */
  WAVE_ERR_OUT_OF_MEMORY,
  WAVE_ERR_DIV_ZERO,          /* idiv / imod by 0 */
  WAVE_ERR_OUT_OF_BOUNDS,     /* device or local memory access outside the image */
  WAVE_ERR_BAD_CLAMP,         /* iclamp / fclamp with lo > hi or a NaN bound */
  WAVE_ERR_DEPTH,             /* divergence stack deeper than max_depth */
  WAVE_ERR_CALL_DEPTH,        /* more than WAVE_MAX_CALL_DEPTH nested calls */
  WAVE_ERR_DIVERGENT_RETURN,  /* return with another active set than the call had */
  WAVE_ERR_BARRIER,           /* barrier divergence or barrier deadlock */
  WAVE_ERR_END_OF_CODE,       /* execution ran past the kernel's last instruction */
  WAVE_ERR_WAVE_OP_IN_THREAD, /* a wave_* operation in THREAD mode */
  WAVE_ERR_SIMT_DEADLOCK,     /* SIMT ran out of budget, the per-thread run finishes */
  WAVE_ERR_NO_TERMINATION,    /* ran out of budget ("does not terminate") */
} wave_error_kind;

typedef struct wave_run_error {
  wave_error_kind kind;
  const char *message;        /* complete text: what, source line, workgroup, wave, lanes */
  wave_loc loc;               /* the instruction (for a SIMT deadlock: the spinning loop) */
  uint32_t workgroup[3];
  uint32_t wave;              /* wave index in the workgroup (THREAD mode: thread / W) */
  uint64_t lanes;             /* the lanes concerned (THREAD mode: the one thread's lane bit) */
} wave_run_error;

/* Per launch. THREAD mode fills in steps, lane_instructions (thread-instructions whose guard
 * held), barriers and the per-instruction counts; the wave-level counters stay 0 there. */
typedef struct wave_counters {
  uint64_t issued;            /* wave-instructions issued with at least one active lane */
  uint64_t empty_issues;      /* issues with no active lane (a guard that selects nobody) */
  uint64_t lane_instructions; /* sum of active lanes over all issues (THREAD: instructions) */
  uint32_t max_depth;         /* deepest divergence stack reached (frames) */
  uint64_t divergent_ifs;     /* ifs whose both sides had lanes */
  uint64_t divergent_loops;   /* loops whose lanes left at different iterations */
  uint64_t mask_ops;          /* structured operations performed (if, else, endif, loop,
                               * break, continue, endloop, including implied reconvergence) */
  uint64_t barriers;          /* barrier releases */
  uint64_t steps;             /* SIMT: all issues; THREAD: thread-instructions */
  /* SIMT: instructions this interpreter jumps over that the upstream emulator walks with an
   * empty mask (the untaken side of an if, the rest of a loop body once its last lane left:
   * docs/toolchain.md "Empty-mask execution in the emulator"). steps + emu_walked models the
   * emulator's "Instructions executed" for a program it runs right. */
  uint64_t emu_walked;
  /* SIMT: wave operations and MMA issued while a lane of the wave that has not ended waits
   * elsewhere (in a divergent if, a loop it left, behind a per-lane flag). wave-ptx makes them
   * full-warp .sync operations, undefined then (docs/toolchain.md "Wave operations under
   * divergence"). */
  uint64_t parked_wave_ops;
} wave_counters;

typedef enum wave_lane_state {
  WAVE_LANE_UNUSED,           /* beyond the workgroup's threads, or its workgroup never ran */
  WAVE_LANE_RUNNING,          /* started and not finished (the run stopped with an error) */
  WAVE_LANE_FINISHED,         /* ended by halt or return */
} wave_lane_state;

typedef struct wave_machine wave_machine;

/* Builds a machine for `kernel` (flattens its code, allocates memory, applies presets and
 * memory_init). Returns NULL only when memory runs out. A machine that cannot run (invalid
 * program or configuration) is still returned, with status WAVE_RUN_ERROR and the reason in
 * wave_machine_error; the reason is also reported to diags when diags is not NULL. */
WAVE_API wave_machine *wave_machine_create(const wave_kernel *kernel,
                                           const wave_launch_config *config, wave_diags *diags);
WAVE_API void wave_machine_destroy(wave_machine *machine);

/* Device memory: writable before the run (to load inputs), readable after it. */
WAVE_API uint8_t *wave_machine_device_memory(wave_machine *machine, size_t *size);
/* The last workgroup's local memory after the run. */
WAVE_API const uint8_t *wave_machine_local_memory(const wave_machine *machine, size_t *size);

/* Runs the launch once. Errors go to the machine (and to diags when not NULL). */
WAVE_API wave_run_status wave_machine_run(wave_machine *machine, wave_diags *diags);

/* create + run; NULL only when memory runs out. */
WAVE_API wave_machine *wave_simulate(const wave_kernel *kernel, const wave_launch_config *config,
                                     wave_diags *diags);

WAVE_API wave_run_status wave_machine_status(const wave_machine *machine);
/* NULL when there was no error. */
WAVE_API const wave_run_error *wave_machine_error(const wave_machine *machine);
WAVE_API const wave_counters *wave_machine_counters(const wave_machine *machine);

/* Launch geometry as resolved from the kernel and the configuration. */
WAVE_API uint32_t wave_machine_wave_width(const wave_machine *machine);
WAVE_API uint32_t wave_machine_num_workgroups(const wave_machine *machine);   /* gx * gy * gz */
WAVE_API uint32_t wave_machine_workgroup_threads(const wave_machine *machine); /* X * Y * Z */
WAVE_API uint32_t wave_machine_num_waves(const wave_machine *machine);        /* per workgroup */

/* Per-lane results. `workgroup` is the linear index x + gx * (y + gy * z); `thread` is the
 * linear index t = wave * W + lane inside it, 0 <= t < num_waves * W. Registers and
 * predicates are readable for the last workgroup that ran, or for every workgroup with
 * keep_all_registers; otherwise (and for out-of-range arguments) these return false. */
WAVE_API wave_lane_state wave_machine_lane_state(const wave_machine *machine, uint32_t workgroup,
                                                 uint32_t thread);
WAVE_API bool wave_machine_read_gpr(const wave_machine *machine, uint32_t workgroup,
                                    uint32_t thread, uint32_t reg, uint32_t *value);
WAVE_API bool wave_machine_read_pred(const wave_machine *machine, uint32_t workgroup,
                                     uint32_t thread, uint32_t pred, bool *value);
/* GPRs each lane has (the kernel's .registers). */
WAVE_API uint32_t wave_machine_num_registers(const wave_machine *machine);

/* The flattened program: instruction index -> what it is and how often it ran. Indices are
 * stable for one machine; the structured if/else/endif/loop/endloop statements have entries
 * of their own (opcode WAVE_OP_IF ... WAVE_OP_ENDLOOP, instr NULL: the IR keeps them in
 * if/loop nodes), an else only when the else-list has code. The last entry marks the end of
 * the kernel (opcode WAVE_OP_NOP, instr NULL, loc of .end); reaching it is an error. */
typedef struct wave_program_entry {
  wave_opcode op;
  wave_loc loc;
  const wave_instr *instr;
  uint64_t issues;            /* issues with at least one active lane */
  uint64_t lanes;             /* active lanes summed over those issues */
  uint64_t splits;            /* if: issues where both sides got lanes (SIMT mode) */
  uint64_t divergent_exits;   /* loop: entries whose lanes left at different iterations */
} wave_program_entry;

WAVE_API size_t wave_machine_program_size(const wave_machine *machine);
WAVE_API const wave_program_entry *wave_machine_program_entry(const wave_machine *machine,
                                                              size_t index);

/* SIMD efficiency = lane_instructions / (issued * W); 0 when nothing was issued. */
WAVE_API double wave_counters_simd_efficiency(const wave_counters *counters, uint32_t wave_width);

/* The counters (and the per-instruction counts with their source lines) as one JSON object,
 * NUL-terminated; NULL when memory runs out. The caller gives it back to
 * wave_module_allocator of the machine's kernel's module (free() when that is NULL). */
WAVE_API char *wave_machine_counters_json(const wave_machine *machine);

/* The value of a binary16 (bf16 false) or bfloat16 bit pattern, exactly as the interpreter
 * reads it. */
WAVE_API float wave_half_to_float(uint16_t bits, bool bf16);

#ifdef __cplusplus
}
#endif

#endif
