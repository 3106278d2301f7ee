/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference interpreter's machine: launch geometry, SIMT control flow (the intended
 * semantics of docs/language.md "Active mask and divergence stack"), wave scheduling, barriers,
 * errors and counters.
 *
 * Each wave keeps an active mask A, a `dead` mask (lanes that ended by halt/return, and the
 * lanes past the workgroup's last thread) and a divergence stack of frames:
 *   if frame:   entry mask, the lanes waiting for the else-side, which side runs
 *   loop frame: entry mask, `brk` (lanes that left) and `cont` (lanes done with this
 *               iteration)
 * At endif A = entry & ~dead & ~(brk|cont of the innermost enclosing loop); at endloop
 * cont = 0 and A = entry & ~brk & ~dead, repeating while that is not empty. Whenever A
 * becomes empty the wave goes straight to the next point where parked lanes can resume
 * (`settle`): the else-side, the endif, the endloop, or the end of the abandoned call. So no
 * instruction is ever issued with an empty mask except a guarded one whose guard selects
 * nobody, and the untaken side of a uniform branch is never issued.
 *
 * Waves of a workgroup take turns one instruction at a time; a wave alone runs without
 * turns. A SIMT run that exhausts its budget is run again in per-thread mode from the same
 * initial memory: if that run finishes, the program deadlocks only because of SIMT
 * scheduling, and the error names the spinning loop and where the parked lanes wait.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "interp/interp_machine.h"
#include "interp/interp_thread.h"
#include "support/strbuf.h"

#define NO_FRAME UINT32_MAX
enum { MAX_THREADS_PER_WORKGROUP = 1u << 16 };

typedef struct frame {
  uint64_t entry;
  uint64_t other;         /* if: lanes for the else-side; loop: lanes that broke out */
  uint64_t cont;          /* loop: lanes that continued in this iteration */
  uint64_t iteration;     /* loop: iterations completed */
  uint64_t exit_iteration;
  uint32_t pc;            /* the if or loop instruction */
  uint32_t parent_loop;   /* the innermost enclosing loop frame, or NO_FRAME */
  bool is_loop;
  bool in_else;
  bool has_exit;
  bool exits_differ;
} frame;

typedef struct call_record {
  uint64_t entry;
  uint32_t ret, base, loop_top;
} call_record;

enum { SIMT_RUNNING, SIMT_AT_BARRIER, SIMT_DONE };

typedef struct simt_wave {
  interp_wave regs;
  uint64_t active, dead;
  frame *frames;
  uint32_t num_frames, cap_frames;
  uint32_t loop_top;
  uint32_t pc, id;
  uint32_t num_calls;
  int state;
  call_record calls[WAVE_MAX_CALL_DEPTH];
} simt_wave;

typedef enum step_result { STEP_YIELD, STEP_BLOCKED, STEP_DONE, STEP_ERROR } step_result;

typedef struct simt_run {
  wave_machine *m;
  simt_wave *waves;
  uint32_t wg;
  uint64_t max_steps;
  bool out_of_budget;
  uint32_t last_wave;     /* the wave that issued last */
} simt_run;

/* ---- configuration and geometry ------------------------------------------------------- */

void wave_launch_config_init(wave_launch_config *config) {
  memset(config, 0, sizeof *config);
  config->grid[0] = config->grid[1] = config->grid[2] = 1;
  config->wave_width = WAVE_DEFAULT_WAVE_WIDTH;
  config->max_steps = WAVE_DEFAULT_MAX_STEPS;
  config->device_memory_size = WAVE_DEFAULT_DEVICE_MEMORY;
  config->mode = WAVE_MODE_SIMT;
}

static uint64_t valid_lanes(const wave_machine *m, uint32_t wave) {
  uint64_t first = (uint64_t)wave * m->width;
  uint64_t n = m->threads - first;
  return n >= m->width ? m->full : (1ull << n) - 1;
}

static void fail_setup(wave_machine *m, wave_error_kind kind, wave_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail_setup(wave_machine *m, wave_error_kind kind, wave_loc loc, const char *fmt, ...) {
  char text[sizeof m->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  interp_set_error(m, kind, loc, text);
  m->runnable = false;
}

/* ---- the divergence stack ------------------------------------------------------------- */

static bool push_frame(simt_run *r, simt_wave *w, bool is_loop) {
  wave_machine *m = r->m;
  if (m->config.max_depth && w->num_frames >= m->config.max_depth) {
    interp_fail(m, WAVE_ERR_DEPTH, w->pc, r->wg, w->id, w->active,
                "divergence stack deeper than %" PRIu32 " frames", m->config.max_depth);
    return false;
  }
  if (w->num_frames == w->cap_frames) {
    uint32_t cap = w->cap_frames ? w->cap_frames * 2 : 16;
    frame *frames = wave_mem_realloc(m->allocator, w->frames, cap * sizeof *frames);
    if (!frames) {
      interp_fail(m, WAVE_ERR_OUT_OF_MEMORY, w->pc, r->wg, w->id, w->active,
                  "out of memory for the divergence stack");
      return false;
    }
    w->frames = frames;
    w->cap_frames = cap;
  }
  frame *f = &w->frames[w->num_frames++];
  memset(f, 0, sizeof *f);
  f->entry = w->active;
  f->pc = w->pc;
  f->parent_loop = w->loop_top;
  f->is_loop = is_loop;
  if (is_loop)
    w->loop_top = w->num_frames - 1;
  if (w->num_frames > m->counters.max_depth)
    m->counters.max_depth = w->num_frames;
  m->counters.mask_ops++;
  return true;
}

static uint64_t loop_parked(const simt_wave *w, uint32_t loop) {
  return loop == NO_FRAME ? 0 : w->frames[loop].other | w->frames[loop].cont;
}

/* Pops the top (if) frame: everyone who was active at the if and has not left comes back. */
static void finish_if(wave_machine *m, simt_wave *w) {
  frame *f = &w->frames[--w->num_frames];
  w->active = f->entry & ~w->dead & ~loop_parked(w, f->parent_loop);
  w->pc = m->prog.code[f->pc].target2 + 1;
  m->counters.mask_ops++;
}

/* The top (if) frame's then-side is over: run the else-side, or close the if. */
static void enter_else(wave_machine *m, simt_wave *w) {
  frame *f = &w->frames[w->num_frames - 1];
  f->in_else = true;
  w->active = f->other & ~w->dead;
  w->pc = m->prog.code[f->pc].target + 1;
  m->counters.mask_ops++;
  if (!w->active)
    finish_if(m, w);
}

/* End of an iteration of the top (loop) frame: repeat with the remaining lanes or leave. */
static void end_iteration(wave_machine *m, simt_wave *w) {
  frame *f = &w->frames[w->num_frames - 1];
  const interp_instr *loop = &m->prog.code[f->pc];
  f->cont = 0;
  f->iteration++;
  m->counters.mask_ops++;
  w->active = f->entry & ~f->other & ~w->dead;
  if (w->active) {
    w->pc = f->pc + 1;
    return;
  }
  if (f->exits_differ) {
    m->counters.divergent_loops++;
    m->prog.entries[f->pc].divergent_exits++;
  }
  w->loop_top = f->parent_loop;
  w->active = f->entry & ~w->dead;
  w->pc = loop->target + 1;
  w->num_frames--;
}

/* A is empty: move to the first point where parked lanes resume. Returns false when the
 * wave has no live lane left anywhere. */
static bool settle(wave_machine *m, simt_wave *w) {
  while (!w->active) {
    uint32_t from = w->pc;
    if (w->num_calls && w->num_frames == w->calls[w->num_calls - 1].base) {
      /* every lane that entered the subroutine has ended: abandon the call */
      w->loop_top = w->calls[--w->num_calls].loop_top;
      continue;
    }
    if (!w->num_frames)
      return false;
    frame *f = &w->frames[w->num_frames - 1];
    if (f->is_loop) {
      /* the emulator walks the rest of the body and the endloop, whether lanes go round again
       * (back to the top) or not (past the endloop) */
      m->counters.emu_walked += m->prog.code[f->pc].target + 1 - from;
      end_iteration(m, w);
      continue;
    }
    if (!f->in_else && m->prog.code[f->pc].target != INTERP_NO_TARGET)
      enter_else(m, w);
    else
      finish_if(m, w);
    m->counters.emu_walked += w->pc - from;
  }
  return true;
}

/* ---- control instructions -------------------------------------------------------------- */

static inline uint64_t operand_pred(const simt_wave *w, const interp_instr *in) {
  uint64_t p = w->regs.pred[in->ps[0]];
  return in->ps_neg[0] ? ~p : p;
}

static bool do_if(simt_run *r, simt_wave *w, const interp_instr *in) {
  wave_machine *m = r->m;
  uint64_t taken = w->active & operand_pred(w, in);
  uint64_t other = w->active & ~taken;
  if (!taken && in->target == INTERP_NO_TARGET) {
    /* uniformly false without an else-side: nothing to run, nothing to restore */
    w->pc = in->target2 + 1;
    m->counters.mask_ops++;
    return true;
  }
  if (!push_frame(r, w, false))
    return false;
  frame *f = &w->frames[w->num_frames - 1];
  if (!taken) {
    f->in_else = true;
    w->pc = in->target + 1;
    return true;
  }
  if (other) {
    m->counters.divergent_ifs++;
    m->prog.entries[w->pc].splits++;
  }
  f->other = other;
  w->active = taken;
  w->pc++;
  return true;
}

static void leave_loop_lanes(wave_machine *m, simt_wave *w, const interp_instr *in,
                             uint64_t mask, bool is_break) {
  frame *f = &w->frames[w->loop_top];
  uint64_t leaving = mask & operand_pred(w, in);
  m->counters.mask_ops++;
  w->pc++;
  if (!leaving)
    return;
  if (is_break) {
    f->other |= leaving;
    if (!f->has_exit) {
      f->has_exit = true;
      f->exit_iteration = f->iteration;
    } else if (f->exit_iteration != f->iteration) {
      f->exits_differ = true;
    }
  } else {
    f->cont |= leaving;
  }
  w->active &= ~leaving;
}

static bool do_call(simt_run *r, simt_wave *w, const interp_instr *in) {
  if (w->num_calls == WAVE_MAX_CALL_DEPTH) {
    interp_fail(r->m, WAVE_ERR_CALL_DEPTH, w->pc, r->wg, w->id, w->active,
                "more than %d nested calls", WAVE_MAX_CALL_DEPTH);
    return false;
  }
  w->calls[w->num_calls++] = (call_record){w->active, w->pc + 1, w->num_frames, w->loop_top};
  w->loop_top = NO_FRAME;
  w->pc = in->target;
  return true;
}

/* halt, or return with an empty call stack: the lanes in `mask` end for good. */
static void end_lanes(simt_wave *w, uint64_t mask) {
  w->dead |= mask;
  w->active &= ~mask;
  w->pc++;
}

static bool do_return(simt_run *r, simt_wave *w, uint64_t mask) {
  if (!w->num_calls) {
    end_lanes(w, mask);
    return true;
  }
  if (!mask) {
    w->pc++;
    return true;
  }
  const call_record *c = &w->calls[w->num_calls - 1];
  uint64_t expected = c->entry & ~w->dead;
  if (mask != w->active || w->active != expected) {
    interp_fail(r->m, WAVE_ERR_DIVERGENT_RETURN, w->pc, r->wg, w->id, mask ^ expected,
                "divergent return: lanes 0x%" PRIx64 " return, the call had 0x%" PRIx64,
                mask, expected);
    return false;
  }
  w->num_frames = c->base;
  w->loop_top = c->loop_top;
  w->pc = c->ret;
  w->num_calls--;
  return true;
}

static bool do_barrier(simt_run *r, simt_wave *w, uint64_t mask) {
  uint64_t alive = r->m->full & ~w->dead;
  if (mask != alive) {
    interp_fail(r->m, WAVE_ERR_BARRIER, w->pc, r->wg, w->id, alive & ~mask,
                "barrier divergence: barrier reached with lanes 0x%" PRIx64
                " of the wave inactive",
                alive & ~mask);
    return false;
  }
  w->state = SIMT_AT_BARRIER;
  return true;
}

/* ---- the wave loop -------------------------------------------------------------------- */

static void observe(const simt_run *r, simt_wave *w, uint32_t pc, uint64_t mask) {
  const wave_machine *m = r->m;
  wave_observe o;
  interp_wg_id(m, r->wg, o.workgroup);
  o.wave = w->id;
  o.mask = mask;
  o.active = w->active;
  o.index = pc;
  o.instr = wave_opcode_has(m->prog.entries[pc].op, WAVE_F_STRUCTURED) &&
                    m->prog.entries[pc].op != WAVE_OP_BREAK &&
                    m->prog.entries[pc].op != WAVE_OP_CONTINUE
                ? NULL
                : m->prog.entries[pc].instr;
  o.regs_ = &w->regs;
  o.num_regs_ = m->prog.num_gprs;
  m->config.observe(m->config.observe_ctx, &o);
}

uint32_t wave_observe_read_gpr(const wave_observe *o, unsigned lane, uint32_t reg) {
  return lane < o->regs_->width && reg < o->num_regs_ ? o->regs_->row[reg][lane] : 0;
}

void wave_observe_write_gpr(const wave_observe *o, unsigned lane, uint32_t reg, uint32_t value) {
  if (lane < o->regs_->width && reg < o->num_regs_)
    o->regs_->row[reg][lane] = value;
}

bool wave_observe_read_pred(const wave_observe *o, unsigned lane, uint32_t pred) {
  return lane < o->regs_->width && pred < WAVE_NUM_PREDS &&
         (o->regs_->pred[pred] >> lane & 1) != 0;
}

void wave_observe_write_pred(const wave_observe *o, unsigned lane, uint32_t pred, bool value) {
  if (lane >= o->regs_->width || pred >= WAVE_NUM_PREDS)
    return;
  uint64_t bit = (uint64_t)1 << lane;
  o->regs_->pred[pred] = value ? o->regs_->pred[pred] | bit : o->regs_->pred[pred] & ~bit;
}

/* Convergent instructions whose result depends on which lanes take part; barriers wait for
 * the lanes instead, and a call only moves them. */
static bool wave_op_or_mma(uint16_t op) {
  return op < WAVE_NUM_REAL_OPCODES && wave_opcode_has((wave_opcode)op, WAVE_F_CONVERGENT) &&
         op != WAVE_OP_BARRIER &&
         op != WAVE_OP_CALL;
}

/* Issues up to `limit` instructions of wave w. */
static step_result run_wave(simt_run *r, simt_wave *w, uint64_t limit) {
  wave_machine *m = r->m;
  const interp_instr *code = m->prog.code;
  wave_program_entry *entries = m->prog.entries;
  wave_counters *cnt = &m->counters;
  interp_fault fault;
  r->last_wave = w->id;
  for (uint64_t n = 0; n < limit; n++) {
    if (cnt->steps >= r->max_steps) {
      r->out_of_budget = true;
      return STEP_ERROR;
    }
    uint32_t pc = w->pc;
    const interp_instr *in = &code[pc];
    uint64_t mask = w->active;
    bool settled = false;
    if (in->guard != WAVE_NO_GUARD)
      mask &= in->guard_neg ? ~w->regs.pred[in->guard] : w->regs.pred[in->guard];
    cnt->steps++;
    if (mask) {
      unsigned lanes = interp_popcount(mask);
      cnt->issued++;
      cnt->lane_instructions += lanes;
      entries[pc].issues++;
      entries[pc].lanes += lanes;
      if (wave_op_or_mma(in->op) && (valid_lanes(m, w->id) & ~w->dead & ~mask))
        cnt->parked_wave_ops++;
    } else {
      cnt->empty_issues++;
    }
    if (m->config.trace)
      interp_trace(m, pc, r->wg, w->id, mask);
    switch (in->op) {
    case WAVE_OP_IF:
      if (!do_if(r, w, in))
        return STEP_ERROR;
      cnt->emu_walked += w->pc - pc - 1; /* a side no lane runs */
      settled = true; /* A is never empty after an if */
      break;
    case WAVE_OP_ELSE:
      enter_else(m, w);
      cnt->emu_walked += w->pc - pc - 1;
      break;
    case WAVE_OP_ENDIF:
      finish_if(m, w);
      break;
    case WAVE_OP_LOOP:
      if (!push_frame(r, w, true))
        return STEP_ERROR;
      w->pc++;
      settled = true;
      break;
    case WAVE_OP_BREAK:
    case WAVE_OP_CONTINUE:
      leave_loop_lanes(m, w, in, mask, in->op == WAVE_OP_BREAK);
      break;
    case WAVE_OP_ENDLOOP:
      end_iteration(m, w);
      break;
    case WAVE_OP_HALT:
      end_lanes(w, mask);
      break;
    case WAVE_OP_RETURN:
      if (!do_return(r, w, mask))
        return STEP_ERROR;
      break;
    case WAVE_OP_CALL:
      if (!do_call(r, w, in))
        return STEP_ERROR;
      settled = true;
      break;
    case WAVE_OP_BARRIER:
      if (!do_barrier(r, w, mask))
        return STEP_ERROR;
      if (m->config.observe)
        observe(r, w, pc, mask);
      return STEP_BLOCKED;
    case INTERP_OP_END:
      interp_fail(m, WAVE_ERR_END_OF_CODE, pc, r->wg, w->id, w->active,
                  "execution ran past the end of kernel '%s'", wave_kernel_name(m->kernel));
      return STEP_ERROR;
    default:
      if (!interp_exec(in, &w->regs, mask, &m->mem, &fault)) {
        interp_fail_fault(m, &fault, pc, r->wg, w->id, 0);
        return STEP_ERROR;
      }
      w->pc++;
      settled = true;
      break;
    }
    if (m->config.observe && mask)
      observe(r, w, pc, mask);
    if (!settled && !w->active && !settle(m, w)) {
      w->state = SIMT_DONE;
      return STEP_DONE;
    }
  }
  return STEP_YIELD;
}

/* ---- barriers ------------------------------------------------------------------------- */

/* No wave can run: release the barrier, or report why the workgroup is stuck. */
static bool resolve_barrier(simt_run *r) {
  wave_machine *m = r->m;
  const simt_wave *first = NULL;
  const simt_wave *done = NULL;
  for (uint32_t i = 0; i < m->num_waves; i++) {
    const simt_wave *w = &r->waves[i];
    if (w->state == SIMT_DONE && !done)
      done = w;
    if (w->state != SIMT_AT_BARRIER)
      continue;
    if (!first) {
      first = w;
    } else if (w->pc != first->pc) {
      interp_fail(m, WAVE_ERR_BARRIER, w->pc, r->wg, w->id, m->full & ~w->dead,
                  "barrier divergence: wave %" PRIu32 " waits at the barrier at line %" PRIu32
                  ", wave %" PRIu32 " at another barrier",
                  first->id, interp_pc_loc(m, first->pc).line, w->id);
      return false;
    }
  }
  if (done) {
    interp_fail(m, WAVE_ERR_BARRIER, first->pc, r->wg, first->id, m->full & ~first->dead,
                "barrier deadlock: wave %" PRIu32 " waits at the barrier while wave %" PRIu32
                " has finished",
                first->id, done->id);
    return false;
  }
  for (uint32_t i = 0; i < m->num_waves; i++) {
    simt_wave *w = &r->waves[i];
    if (w->state == SIMT_AT_BARRIER) {
      w->state = SIMT_RUNNING;
      w->pc++;
    }
  }
  m->counters.barriers++;
  return true;
}

/* Runs the waves of the current workgroup round-robin until all are done. */
static bool run_workgroup(simt_run *r) {
  wave_machine *m = r->m;
  for (;;) {
    uint32_t running = 0, at_barrier = 0;
    for (uint32_t i = 0; i < m->num_waves; i++) {
      running += r->waves[i].state == SIMT_RUNNING;
      at_barrier += r->waves[i].state == SIMT_AT_BARRIER;
    }
    if (!running) {
      if (!at_barrier)
        return true;
      if (!resolve_barrier(r))
        return false;
      continue;
    }
    uint64_t limit = running == 1 ? UINT64_MAX : 1;
    for (uint32_t i = 0; i < m->num_waves; i++) {
      simt_wave *w = &r->waves[i];
      if (w->state == SIMT_RUNNING && run_wave(r, w, limit) == STEP_ERROR)
        return false;
    }
  }
}

static void start_wave(wave_machine *m, simt_wave *w, const uint32_t id[3]) {
  interp_init_regs(m, &w->regs, id, w->id, 0);
  uint64_t valid = valid_lanes(m, w->id);
  w->active = valid;
  w->dead = m->full & ~valid;
  w->pc = 0;
  w->num_frames = 0;
  w->num_calls = 0;
  w->loop_top = NO_FRAME;
  w->state = SIMT_RUNNING;
}

/* ---- SIMT deadlock diagnosis ----------------------------------------------------------- */

/* Describes where the lanes parked by w's divergence stack wait; false when none are. */
static bool describe_parked(const wave_machine *m, const simt_wave *w, char *buf, size_t size) {
  const interp_instr *code = m->prog.code;
  for (uint32_t i = w->num_frames; i-- > 0;) {
    const frame *f = &w->frames[i];
    uint64_t lanes;
    size_t where;
    const char *what;
    if (f->is_loop) {
      lanes = f->other & ~w->dead;
      where = code[f->pc].target;
      what = "after the loop";
      if (!lanes) {
        lanes = f->cont & ~w->dead;
        what = "for the next iteration of the loop";
      }
    } else if (!f->in_else) {
      lanes = f->other & ~w->dead;
      where = code[f->pc].target;
      what = "on the else-side";
    } else {
      lanes = f->entry & ~f->other & ~w->dead & ~loop_parked(w, f->parent_loop);
      where = code[f->pc].target2;
      what = "after the if";
    }
    if (!lanes)
      continue;
    snprintf(buf, size, "lanes 0x%" PRIx64 " wait %s at line %" PRIu32 " (if/loop at line %" PRIu32
             ")", lanes, what, interp_pc_loc(m, where).line, interp_pc_loc(m, f->pc).line);
    return true;
  }
  return false;
}

static bool thread_run_finishes(const wave_machine *m, uint64_t budget) {
  wave_launch_config c = m->config;
  c.mode = WAVE_MODE_THREAD;
  c.memory_init = m->initial_device;
  c.memory_init_size = m->mem.device_size;
  c.presets = m->presets;
  c.trace = NULL;
  c.observe = NULL;
  c.keep_all_registers = false;
  wave_machine *probe = wave_machine_create(m->kernel, &c, NULL);
  if (!probe)
    return false;
  probe->thread_budget = budget;
  bool finished = wave_machine_run(probe, NULL) == WAVE_RUN_OK;
  wave_machine_destroy(probe);
  return finished;
}

static void report_out_of_budget(simt_run *r) {
  wave_machine *m = r->m;
  const simt_wave *w = &r->waves[r->last_wave];
  for (uint32_t i = 0; i < m->num_waves; i++) {
    char probe[256];
    if (r->waves[i].state == SIMT_RUNNING && r->waves[i].loop_top != NO_FRAME &&
        describe_parked(m, &r->waves[i], probe, sizeof probe)) {
      w = &r->waves[i];
      break;
    }
  }
  size_t where = w->loop_top != NO_FRAME ? w->frames[w->loop_top].pc : w->pc;
  uint32_t loop_line = interp_pc_loc(m, where).line;
  char parked[256];
  bool has_parked = describe_parked(m, w, parked, sizeof parked);
  /* The per-thread run may use no more thread-instructions than the SIMT run executed lane
   * by lane: a program that merely needs more time than the budget needs at least that many
   * in either mode, so only a scheduling deadlock can finish within it. It is also capped at
   * the budget itself, which keeps a genuinely endless program from costing W times longer;
   * a deadlock resolves quickly thread by thread, so the cap only matters for huge ones. */
  uint64_t probe_budget = m->counters.lane_instructions;
  if (probe_budget > r->max_steps)
    probe_budget = r->max_steps;
  bool check = !m->config.no_deadlock_check && m->initial_device;
  if (check && thread_run_finishes(m, probe_budget)) {
    interp_fail(m, WAVE_ERR_SIMT_DEADLOCK, where, r->wg, w->id, w->active,
                "SIMT deadlock: the wave spins in the loop at line %" PRIu32 " while %s; "
                "run thread by thread the program finishes",
                loop_line, has_parked ? parked : "no lanes are parked");
    return;
  }
  interp_fail(m, WAVE_ERR_NO_TERMINATION, where, r->wg, w->id, w->active,
              "does not terminate within %" PRIu64 " wave-instructions (still running %s line %"
              PRIu32 ")",
              r->max_steps, w->loop_top != NO_FRAME ? "the loop at" : "at", loop_line);
}

/* ---- the SIMT launch ------------------------------------------------------------------ */

static wave_run_status run_simt(wave_machine *m) {
  simt_run r = {0};
  r.m = m;
  r.max_steps = m->config.max_steps;
  r.waves = wave_mem_calloc(m->allocator, m->num_waves, sizeof *r.waves);
  bool ok = r.waves != NULL;
  for (uint32_t i = 0; ok && i < m->num_waves; i++) {
    r.waves[i].id = i;
    ok = interp_wave_alloc(&r.waves[i].regs, &m->prog, m->width, m->const_rows);
  }
  if (!ok) {
    fail_setup(m, WAVE_ERR_OUT_OF_MEMORY, wave_kernel_loc(m->kernel), "out of memory");
  }
  for (uint32_t wg = 0; ok && wg < m->num_wgs; wg++) {
    uint32_t id[3];
    interp_begin_workgroup(m, wg, id);
    r.wg = wg;
    for (uint32_t i = 0; i < m->num_waves; i++)
      start_wave(m, &r.waves[i], id);
    ok = run_workgroup(&r);
    if (!ok && r.out_of_budget)
      report_out_of_budget(&r);
    for (uint32_t i = 0; i < m->num_waves; i++) {
      const simt_wave *w = &r.waves[i];
      m->finished[(size_t)wg * m->num_waves + i] = w->dead & valid_lanes(m, i);
      interp_save_lanes(m, wg, i * m->width, &w->regs);
    }
  }
  if (r.waves) {
    for (uint32_t i = 0; i < m->num_waves; i++) {
      interp_wave_free(&r.waves[i].regs);
      wave_mem_free(m->allocator, r.waves[i].frames);
    }
    wave_mem_free(m->allocator, r.waves);
  }
  if (ok)
    m->status = WAVE_RUN_OK;
  return m->status;
}

/* ---- public API ----------------------------------------------------------------------- */

static void report(const wave_machine *m, wave_diags *diags) {
  if (!diags || m->status != WAVE_RUN_ERROR)
    return;
  const wave_module *module = wave_kernel_module(m->kernel);
  if (module)
    wave_module_report(module, diags, WAVE_SEV_ERROR, NULL, m->error.loc, "%s", m->message);
  else
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, m->error.loc, NULL, 0, "%s", m->message);
}

static bool resolve_geometry(wave_machine *m, const wave_kernel *k) {
  const wave_launch_config *c = &m->config;
  m->width = c->wave_width ? c->wave_width : WAVE_DEFAULT_WAVE_WIDTH;
  if (m->width < WAVE_MIN_WAVE_WIDTH || m->width > WAVE_MAX_WAVE_WIDTH) {
    fail_setup(m, WAVE_ERR_INVALID_CONFIG, wave_kernel_loc(k),
               "wave width %" PRIu32 " is outside %d..%d", m->width, WAVE_MIN_WAVE_WIDTH,
               WAVE_MAX_WAVE_WIDTH);
    return false;
  }
  m->full = m->width == 64 ? ~0ull : (1ull << m->width) - 1;
  const uint32_t declared[3] = {wave_kernel_workgroup_size(k, 0), wave_kernel_workgroup_size(k, 1),
                                wave_kernel_workgroup_size(k, 2)};
  const uint32_t *wg = c->workgroup[0]                                    ? c->workgroup
                       : wave_kernel_has_workgroup_size(k) && declared[0] ? declared
                                                                          : NULL;
  uint64_t threads = 1, groups = 1;
  for (int i = 0; i < 3; i++) {
    m->wg_size[i] = wg ? (wg[i] ? wg[i] : 1) : (i == 0 ? WAVE_DEFAULT_WORKGROUP_SIZE : 1);
    m->grid[i] = c->grid[i] ? c->grid[i] : 1;
    threads *= m->wg_size[i];
    groups *= m->grid[i];
    if (threads > MAX_THREADS_PER_WORKGROUP || groups > UINT32_MAX) {
      fail_setup(m, WAVE_ERR_INVALID_CONFIG, wave_kernel_loc(k),
                 "launch too large: at most %u threads per workgroup and 2^32-1 workgroups",
                 MAX_THREADS_PER_WORKGROUP);
      return false;
    }
  }
  m->threads = (uint32_t)threads;
  m->num_wgs = (uint32_t)groups;
  m->num_waves = (m->threads + m->width - 1) / m->width;
  return true;
}

static bool check_config(wave_machine *m, const wave_kernel *k) {
  const wave_launch_config *c = &m->config;
  m->mem.device_size = c->device_memory_size ? c->device_memory_size : WAVE_DEFAULT_DEVICE_MEMORY;
  m->mem.local_size = c->local_memory_size          ? c->local_memory_size
                      : wave_kernel_local_memory(k) ? wave_kernel_local_memory(k)
                                                    : WAVE_DEFAULT_LOCAL_MEMORY;
  if (m->mem.local_size > INTERP_MAX_LOCAL_MEMORY) {
    fail_setup(m, WAVE_ERR_INVALID_CONFIG, wave_kernel_loc(k),
               "local memory of %zu bytes is more than the interpreter provides (%u)",
               m->mem.local_size, INTERP_MAX_LOCAL_MEMORY);
    return false;
  }
  if (c->memory_init_size > m->mem.device_size) {
    fail_setup(m, WAVE_ERR_INVALID_CONFIG, wave_kernel_loc(k),
               "initial memory (%zu bytes) exceeds the device memory (%zu bytes)",
               c->memory_init_size, m->mem.device_size);
    return false;
  }
  for (size_t i = 0; i < c->num_presets; i++) {
    if (c->presets[i].reg >= wave_kernel_registers(k)) {
      fail_setup(m, WAVE_ERR_INVALID_CONFIG, wave_kernel_loc(k),
                 "preset register r%" PRIu32 " is beyond .registers %" PRIu32, c->presets[i].reg,
                 wave_kernel_registers(k));
      return false;
    }
  }
  return true;
}

static bool allocate(wave_machine *m) {
  const wave_launch_config *c = &m->config;
  size_t slots = c->keep_all_registers ? m->num_wgs : 1;
  size_t lanes = slots * interp_slot_threads(m);
  if (c->num_presets) {
    m->presets = wave_mem_alloc(m->allocator, c->num_presets * sizeof *m->presets);
    if (!m->presets)
      return false;
    memcpy(m->presets, c->presets, c->num_presets * sizeof *m->presets);
  }
  const wave_allocator *a = m->allocator;
  m->mem.device = wave_mem_calloc(a, m->mem.device_size, 1);
  m->mem.local = wave_mem_calloc(a, m->mem.local_size, 1);
  m->const_rows = interp_const_rows_create(&m->prog, m->width);
  m->finished = wave_mem_calloc(a, (size_t)m->num_wgs * m->num_waves, sizeof *m->finished);
  m->snap_regs =
      wave_mem_calloc(a, lanes * (m->prog.num_gprs ? m->prog.num_gprs : 1), sizeof *m->snap_regs);
  m->snap_preds = wave_mem_calloc(a, lanes, 1);
  if (!m->mem.device || !m->mem.local || !m->const_rows || !m->finished || !m->snap_regs ||
      !m->snap_preds)
    return false;
  if (c->memory_init_size)
    memcpy(m->mem.device, c->memory_init, c->memory_init_size);
  return true;
}

wave_machine *wave_machine_create(const wave_kernel *kernel, const wave_launch_config *config,
                                  wave_diags *diags) {
  const wave_allocator *a = wave_module_allocator(wave_kernel_module(kernel));
  wave_machine *m = wave_mem_calloc(a, 1, sizeof *m);
  if (!m) {
    if (diags)
      wave_diag_report(diags, WAVE_SEV_ERROR, NULL, wave_kernel_loc(kernel), NULL, 0,
                       "out of memory");
    return NULL;
  }
  m->allocator = wave_mem_keep(&m->own_allocator, a);
  m->kernel = kernel;
  if (config)
    m->config = *config;
  else
    wave_launch_config_init(&m->config);
  if (!m->config.max_steps)
    m->config.max_steps = WAVE_DEFAULT_MAX_STEPS;
  m->status = WAVE_RUN_NOT_RUN;
  m->runnable = resolve_geometry(m, kernel) && check_config(m, kernel);
  uint64_t budget = m->config.max_steps * m->width;
  m->thread_budget = budget / m->width == m->config.max_steps ? budget : UINT64_MAX;
  m->mem.emulator_fallbacks = m->config.emulator_fallbacks;
  m->mem.thread_mode = m->config.mode == WAVE_MODE_THREAD;
  if (m->runnable) {
    char text[512];
    wave_loc loc = wave_kernel_loc(kernel);
    bool oom = false;
    if (!interp_program_build(&m->prog, kernel, m->allocator, text, sizeof text, &loc, &oom)) {
      if (oom)
        fail_setup(m, WAVE_ERR_OUT_OF_MEMORY, loc, "out of memory");
      else
        fail_setup(m, WAVE_ERR_INVALID_PROGRAM, loc, "cannot run kernel '%s': %s",
                   wave_kernel_name(kernel) ? wave_kernel_name(kernel) : "", text);
    }
  }
  if (m->runnable && !allocate(m))
    fail_setup(m, WAVE_ERR_OUT_OF_MEMORY, wave_kernel_loc(kernel), "out of memory");
  m->config.presets = m->presets;
  m->config.memory_init = NULL;
  m->config.memory_init_size = 0;
  report(m, diags);
  return m;
}

void wave_machine_destroy(wave_machine *m) {
  if (!m)
    return;
  const wave_allocator *a = m->allocator;
  wave_mem_free(a, m->const_rows);
  interp_program_free(&m->prog);
  wave_mem_free(a, m->presets);
  wave_mem_free(a, m->mem.device);
  wave_mem_free(a, m->mem.local);
  wave_mem_free(a, m->initial_device);
  wave_mem_free(a, m->finished);
  wave_mem_free(a, m->snap_regs);
  wave_mem_free(a, m->snap_preds);
  wave_mem_free_holder(a, m);
}

wave_run_status wave_machine_run(wave_machine *m, wave_diags *diags) {
  if (m->status != WAVE_RUN_NOT_RUN)
    return m->status;
  if (m->config.mode == WAVE_MODE_THREAD) {
    interp_thread_run(m);
  } else {
    if (!m->config.no_deadlock_check) {
      /* keep the launch's input for the per-thread rerun; without memory, skip that check */
      m->initial_device = wave_mem_alloc(m->allocator, m->mem.device_size);
      if (m->initial_device)
        memcpy(m->initial_device, m->mem.device, m->mem.device_size);
    }
    run_simt(m);
  }
  report(m, diags);
  return m->status;
}

wave_machine *wave_simulate(const wave_kernel *kernel, const wave_launch_config *config,
                            wave_diags *diags) {
  wave_machine *m = wave_machine_create(kernel, config, diags);
  if (m)
    wave_machine_run(m, diags);
  return m;
}

uint8_t *wave_machine_device_memory(wave_machine *m, size_t *size) {
  if (size)
    *size = m->mem.device ? m->mem.device_size : 0;
  return m->mem.device;
}

const uint8_t *wave_machine_local_memory(const wave_machine *m, size_t *size) {
  if (size)
    *size = m->mem.local ? m->mem.local_size : 0;
  return m->mem.local;
}

wave_run_status wave_machine_status(const wave_machine *m) { return m->status; }

const wave_run_error *wave_machine_error(const wave_machine *m) {
  return m->status == WAVE_RUN_ERROR ? &m->error : NULL;
}

const wave_counters *wave_machine_counters(const wave_machine *m) { return &m->counters; }
uint32_t wave_machine_wave_width(const wave_machine *m) { return m->width; }
uint32_t wave_machine_num_workgroups(const wave_machine *m) { return m->num_wgs; }
uint32_t wave_machine_workgroup_threads(const wave_machine *m) { return m->threads; }
uint32_t wave_machine_num_waves(const wave_machine *m) { return m->num_waves; }
uint32_t wave_machine_num_registers(const wave_machine *m) { return m->prog.num_gprs; }

wave_lane_state wave_machine_lane_state(const wave_machine *m, uint32_t wg, uint32_t thread) {
  if (!m->finished || wg >= m->wgs_started || thread >= m->threads)
    return WAVE_LANE_UNUSED;
  uint64_t bits = m->finished[(size_t)wg * m->num_waves + thread / m->width];
  return (bits >> (thread % m->width)) & 1 ? WAVE_LANE_FINISHED : WAVE_LANE_RUNNING;
}

/* The snapshot index of a lane, or false when its registers were not kept. */
static bool snapshot_index(const wave_machine *m, uint32_t wg, uint32_t thread, size_t *index) {
  if (!m->snap_regs || wg >= m->wgs_started || thread >= interp_slot_threads(m))
    return false;
  if (!m->config.keep_all_registers && wg != m->last_wg)
    return false;
  size_t slot = m->config.keep_all_registers ? wg : 0;
  *index = slot * interp_slot_threads(m) + thread;
  return true;
}

bool wave_machine_read_gpr(const wave_machine *m, uint32_t wg, uint32_t thread, uint32_t reg,
                           uint32_t *value) {
  size_t i;
  if (reg >= m->prog.num_gprs || !snapshot_index(m, wg, thread, &i))
    return false;
  *value = m->snap_regs[i * m->prog.num_gprs + reg];
  return true;
}

bool wave_machine_read_pred(const wave_machine *m, uint32_t wg, uint32_t thread, uint32_t pred,
                            bool *value) {
  size_t i;
  if (pred >= WAVE_NUM_PREDS || !snapshot_index(m, wg, thread, &i))
    return false;
  *value = (m->snap_preds[i] >> pred) & 1;
  return true;
}

size_t wave_machine_program_size(const wave_machine *m) { return m->prog.len; }

const wave_program_entry *wave_machine_program_entry(const wave_machine *m, size_t index) {
  return index < m->prog.len ? &m->prog.entries[index] : NULL;
}

double wave_counters_simd_efficiency(const wave_counters *c, uint32_t wave_width) {
  if (!c->issued || !wave_width)
    return 0.0;
  return (double)c->lane_instructions / ((double)c->issued * wave_width);
}

/* ---- JSON ----------------------------------------------------------------------------- */

static const char *const error_kind_names[] = {
    "none", "invalid-program", "invalid-config", "out-of-memory", "division-by-zero",
    "out-of-bounds", "bad-clamp", "depth", "call-depth", "divergent-return", "barrier",
    "end-of-code", "wave-op-in-thread-mode", "simt-deadlock", "no-termination",
};
_Static_assert(sizeof error_kind_names / sizeof *error_kind_names == WAVE_ERR_NO_TERMINATION + 1,
               "one name per error kind");

char *wave_machine_counters_json(const wave_machine *m) {
  wave_strbuf b = {.allocator = m->allocator};
  const wave_counters *c = &m->counters;
  wave_strbuf_puts(&b, "{\"kernel\":");
  wave_strbuf_json_string(&b, wave_kernel_name(m->kernel));
  wave_strbuf_printf(&b, ",\"mode\":\"%s\",\"wave_width\":%" PRIu32 ",\"status\":\"%s\"",
                     m->config.mode == WAVE_MODE_THREAD ? "thread" : "simt", m->width,
                     m->status == WAVE_RUN_OK      ? "ok"
                     : m->status == WAVE_RUN_ERROR ? "error"
                                                   : "not-run");
  if (m->status == WAVE_RUN_ERROR) {
    wave_strbuf_printf(&b, ",\"error\":{\"kind\":\"%s\",\"line\":%" PRIu32 ",\"message\":",
                       error_kind_names[m->error.kind], m->error.loc.line);
    wave_strbuf_json_string(&b, m->message);
    wave_strbuf_puts(&b, "}");
  }
  wave_strbuf_printf(&b,
                     ",\"issued\":%" PRIu64 ",\"empty_issues\":%" PRIu64
                     ",\"lane_instructions\":%" PRIu64 ",\"simd_efficiency\":%.6f"
                     ",\"max_depth\":%" PRIu32 ",\"divergent_ifs\":%" PRIu64
                     ",\"divergent_loops\":%" PRIu64 ",\"mask_ops\":%" PRIu64
                     ",\"barriers\":%" PRIu64 ",\"steps\":%" PRIu64 ",\"emu_walked\":%" PRIu64
                     ",\"parked_wave_ops\":%" PRIu64 ",\"instructions\":[",
                     c->issued, c->empty_issues, c->lane_instructions,
                     wave_counters_simd_efficiency(c, m->width), c->max_depth, c->divergent_ifs,
                     c->divergent_loops, c->mask_ops, c->barriers, c->steps, c->emu_walked,
                     c->parked_wave_ops);
  for (size_t i = 0; i < m->prog.len; i++) {
    const wave_program_entry *e = &m->prog.entries[i];
    const char *name =
        m->prog.code[i].op == INTERP_OP_END ? "<end>" : wave_opcode_table[e->op].mnemonic;
    wave_strbuf_printf(&b,
                       "%s{\"index\":%zu,\"line\":%" PRIu32 ",\"op\":\"%s\",\"issues\":%" PRIu64
                       ",\"lanes\":%" PRIu64 "}",
                       i ? "," : "", i, e->loc.line, name, e->issues, e->lanes);
  }
  wave_strbuf_puts(&b, "]}");
  return wave_strbuf_take(&b, NULL);
}
