/*
 * Internals of the reference interpreter, shared by its files:
 *   interp_program.c  region tree -> linear program of decoded instructions
 *   interp_exec.c     data-path semantics (ALU, memory, atomics, wave ops, MMA) over a wave
 *   interp_float.c    f16 / bf16 / f32 helpers
 *   interp.c          launch, SIMT control flow, scheduling, barriers, errors, counters
 *   interp_thread.c   per-thread mode
 *
 * A wave's register file is row-major by register: row r holds register r of every lane, so
 * one instruction touches a few contiguous rows. Rows past the GPRs hold the special registers
 * (per lane) and the immediates of documentation-dialect operands (shared, read-only), which
 * lets every source operand be a plain row. In per-thread mode a thread is a wave of width 1.
 */
#ifndef WAVE_INTERP_INTERNAL_H
#define WAVE_INTERP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "waveopt/interp.h"
#include "waveopt/waveopt.h"

/* Internal functions stay out of the shared library's interface, which also spares the hot
 * calls between the interpreter's files an indirection through the PLT. */

/* Internal opcode past the table: reached when execution falls off the kernel's end. */
#define INTERP_OP_END ((uint16_t)WAVE_OP_COUNT)
#define INTERP_NO_REG UINT32_MAX
#define INTERP_NO_TARGET UINT32_MAX
/* Far above what r0..r254 can name; keeps register-file arithmetic and sizes sane. */
#define INTERP_MAX_REGISTERS 4096u
/* Local memory is zeroed for every workgroup: refuse sizes that would make that absurd. */
#define INTERP_MAX_LOCAL_MEMORY (64u << 20)

enum { INTERP_MMA_DIM = 4, INTERP_MMA_TILE = INTERP_MMA_DIM * INTERP_MMA_DIM };

typedef struct interp_instr {
  uint16_t op;            /* wave_opcode, or INTERP_OP_END */
  int8_t guard;           /* WAVE_NO_GUARD or a predicate */
  uint8_t guard_neg;
  uint8_t pd;             /* predicate written (compares, wave_any/all, PAND...) */
  uint8_t ps[2];          /* predicates read (if/break/continue/select/ballot/any/all, PAND) */
  uint8_t ps_neg[2];      /* docs-dialect `!p` on those */
  uint32_t d;             /* destination row, INTERP_NO_REG for "no return" atomics */
  uint32_t s[4];          /* source rows in operand order */
  uint32_t frag[3];       /* MMA fragment slots in operand order */
  /* IF: the else op's index (INTERP_NO_TARGET without else); ELSE: the endif's index;
   * LOOP: the endloop's index; ENDLOOP, BREAK, CONTINUE: the loop op's index;
   * CALL: the first index of the called region. */
  uint32_t target;
  uint32_t target2;       /* IF: the endif's index */
} interp_instr;

typedef struct interp_program {
  interp_instr *code;
  wave_program_entry *entries; /* parallel to code: what the public API shows */
  size_t len;
  uint32_t num_gprs;      /* the kernel's .registers */
  uint32_t sreg_row;      /* first special-register row (num_gprs) */
  uint32_t const_row;     /* first immediate row (sreg_row + WAVE_NUM_SREGS) */
  uint32_t num_consts;
  uint32_t *consts;       /* value of each immediate row */
  uint32_t num_frags;     /* distinct MMA fragment ids */
} interp_program;

/* Builds the program of `kernel`. Returns false with a message in `err` (at `*loc`) when the
 * kernel cannot be run, or with *oom set when memory ran out. */
bool interp_program_build(interp_program *prog, const wave_kernel *kernel, char *err,
                          size_t err_size, wave_loc *loc, bool *oom);
void interp_program_free(interp_program *prog);

/* Memory images and the data-path context shared by all waves of a launch. */
typedef struct interp_mem {
  uint8_t *device;
  size_t device_size;
  uint8_t *local;
  size_t local_size;
  bool emulator_fallbacks;
  bool thread_mode;       /* wave operations are errors */
} interp_mem;

/* What went wrong in the data path; the caller adds line, wave and lanes. */
typedef struct interp_fault {
  wave_error_kind kind;
  uint64_t lanes;
  uint64_t address;       /* first offending address for memory faults */
  uint32_t bytes;
  bool local;             /* the memory was local */
} interp_fault;

typedef struct interp_wave {
  uint32_t **row;         /* register rows: GPRs, special registers, immediates */
  uint32_t *storage;      /* this wave's GPR and special-register lanes */
  float *frags;           /* num_frags * 3 banks (A, B, C) * width * 16 */
  uint64_t pred[WAVE_NUM_PREDS];
  uint32_t width;         /* lanes in the register file (W, or 1 for a thread) */
} interp_wave;

/* Allocates a wave's register file (rows point into `consts` for immediates). */
bool interp_wave_alloc(interp_wave *w, const interp_program *prog, uint32_t width,
                       uint32_t **const_rows);
void interp_wave_free(interp_wave *w);
/* Zeroes GPRs, predicates and fragments. */
void interp_wave_reset(interp_wave *w, const interp_program *prog);

/* Shared immediate rows: one row of `width` lanes per immediate; one block for free(). */
uint32_t **interp_const_rows_create(const interp_program *prog, uint32_t width);

/* Executes one non-control instruction for the lanes in `mask` (already narrowed by the
 * guard). Returns false and fills *fault on undefined behaviour. */
bool interp_exec(const interp_instr *in, interp_wave *w, uint64_t mask, interp_mem *mem,
                 interp_fault *fault);

/* ---- floating point helpers (interp_float.c) ---- */
static inline float interp_f32(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static inline uint32_t interp_bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}
double interp_f64(uint32_t lo, uint32_t hi);
uint64_t interp_f64_bits(double d);
float interp_f16_to_f32(uint16_t h);
uint16_t interp_f32_to_f16(float f);       /* round to nearest even */
float interp_bf16_to_f32(uint16_t h);
uint16_t interp_f32_to_bf16(float f);      /* truncation */
uint32_t interp_cvt_i32_f32(float f);      /* saturating, NaN -> 0 */
uint32_t interp_cvt_u32_f32(float f);
/* The f16 / bf16 families: op is the wave_opcode; a, b, c are the 32-bit sources. */
uint32_t interp_half_op(uint16_t op, uint32_t a, uint32_t b, uint32_t c);
/* f32 unary and binary ops that are not a single C operator. */
uint32_t interp_f32_unary(uint16_t op, uint32_t a);
uint32_t interp_f64_op(uint16_t op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                       uint32_t *hi);

/* ---- the machine (interp.c), shared with per-thread mode ---- */

struct wave_machine {
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

/* ---- per-thread mode (interp_thread.c) ---- */

/* Runs the whole launch in per-thread mode within m->thread_budget thread-instructions. */
wave_run_status interp_thread_run(struct wave_machine *m);

/* Branch-free: without -mpopcnt the builtin becomes a library call. */
static inline unsigned interp_popcount(uint64_t m) {
  m = m - ((m >> 1) & 0x5555555555555555ull);
  m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
  m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (unsigned)((m * 0x0101010101010101ull) >> 56);
}


#endif
