/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interpreter's program: a kernel's region tree flattened into decoded instructions with
 * their jump targets (interp_program.c). Everything above it executes this form.
 */
#ifndef WAVE_INTERP_PROGRAM_H
#define WAVE_INTERP_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/alloc.h"
#include "waveopt/interp.h"
#include "waveopt/waveopt.h"

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
  /* Recorded by interp_program_build for interp_program_free; the register files made from
   * the program take theirs from here too. */
  const wave_allocator *allocator;
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

/* Builds the program of `kernel`, its arrays from `allocator` (the machine's). Returns false
 * with a message in `err` (at `*loc`) when the kernel cannot be run, or with *oom set when
 * memory ran out. */
bool interp_program_build(interp_program *prog, const wave_kernel *kernel,
                          const wave_allocator *allocator, char *err, size_t err_size,
                          wave_loc *loc, bool *oom);
void interp_program_free(interp_program *prog);

#endif
