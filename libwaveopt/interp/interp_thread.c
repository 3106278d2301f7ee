/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-thread mode, after Habermaier & Knapp ("On the correctness of the SIMT execution
 * model of GPUs"): every thread runs alone with its own program counter and no masks.
 * `if` branches to its else-side or past its endif, `break` jumps past its loop's endloop,
 * `continue` back to the loop's head; the threads of a workgroup take turns one instruction
 * at a time, and a barrier waits for every thread that has not ended.
 *
 * For a race-free kernel without wave operations this gives the same memory as SIMT
 * execution; where SIMT runs out of budget and this mode finishes, SIMT scheduling itself
 * deadlocks (interp.c uses it for exactly that diagnosis). A thread is a wave of width 1
 * here, so the data path is the one SIMT uses; wave operations are errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "interp/interp_thread.h"

enum { THREAD_RUNNING, THREAD_AT_BARRIER, THREAD_DONE };

typedef struct thread_state {
  interp_wave regs;
  uint32_t pc;
  uint32_t num_calls;
  int state;
  uint32_t calls[WAVE_MAX_CALL_DEPTH];
} thread_state;

typedef struct thread_run {
  wave_machine *m;
  thread_state *threads;
  uint32_t wg;
} thread_run;

static uint32_t wave_of(const wave_machine *m, uint32_t t) { return t / m->width; }
static uint64_t lane_bit(const wave_machine *m, uint32_t t) { return 1ull << (t % m->width); }

static void fail_thread(thread_run *r, uint32_t t, wave_error_kind kind, const char *what) {
  wave_machine *m = r->m;
  interp_fail(m, kind, r->threads[t].pc, r->wg, wave_of(m, t), lane_bit(m, t), "%s", what);
}

/* Executes one instruction of thread t; false on error. */
static bool step(thread_run *r, uint32_t t) {
  wave_machine *m = r->m;
  thread_state *th = &r->threads[t];
  const interp_instr *code = m->prog.code;
  uint32_t pc = th->pc;
  const interp_instr *in = &code[pc];
  if (m->counters.steps >= m->thread_budget) {
    char what[128];
    snprintf(what, sizeof what, "does not terminate within %" PRIu64 " thread-instructions",
             m->thread_budget);
    fail_thread(r, t, WAVE_ERR_NO_TERMINATION, what);
    return false;
  }
  bool on = true;
  if (in->guard != WAVE_NO_GUARD)
    on = ((th->regs.pred[in->guard] & 1) != 0) != (in->guard_neg != 0);
  bool p = ((th->regs.pred[in->ps[0]] & 1) != 0) != (in->ps_neg[0] != 0);
  m->counters.steps++;
  if (on) {
    m->counters.lane_instructions++;
    m->prog.entries[pc].issues++;
    m->prog.entries[pc].lanes++;
  }
  if (m->config.trace)
    interp_trace(m, pc, r->wg, wave_of(m, t), on ? lane_bit(m, t) : 0);
  switch (in->op) {
  case WAVE_OP_IF:
    th->pc = p ? pc + 1 : (in->target != INTERP_NO_TARGET ? in->target : in->target2) + 1;
    return true;
  case WAVE_OP_ELSE: /* the then-side is done */
    th->pc = in->target + 1;
    return true;
  case WAVE_OP_ENDLOOP:
    th->pc = in->target + 1;
    return true;
  case WAVE_OP_BREAK:
    th->pc = on && p ? code[in->target].target + 1 : pc + 1;
    return true;
  case WAVE_OP_CONTINUE:
    th->pc = on && p ? in->target + 1 : pc + 1;
    return true;
  case WAVE_OP_HALT:
    th->pc = pc + 1;
    if (on)
      th->state = THREAD_DONE;
    return true;
  case WAVE_OP_RETURN:
    th->pc = pc + 1;
    if (on && th->num_calls)
      th->pc = th->calls[--th->num_calls];
    else if (on)
      th->state = THREAD_DONE;
    return true;
  case WAVE_OP_CALL:
    if (th->num_calls == WAVE_MAX_CALL_DEPTH) {
      fail_thread(r, t, WAVE_ERR_CALL_DEPTH, "more than 8 nested calls");
      return false;
    }
    th->calls[th->num_calls++] = pc + 1;
    th->pc = in->target;
    return true;
  case WAVE_OP_BARRIER:
    if (!on) {
      fail_thread(r, t, WAVE_ERR_BARRIER, "barrier divergence: the thread skips the barrier");
      return false;
    }
    th->state = THREAD_AT_BARRIER;
    return true;
  case INTERP_OP_END:
    fail_thread(r, t, WAVE_ERR_END_OF_CODE, "execution ran past the end of the kernel");
    return false;
  default: {
    interp_fault fault;
    th->pc = pc + 1;
    if (!interp_exec(in, &th->regs, on ? 1 : 0, &m->mem, &fault)) {
      th->pc = pc;
      interp_fail_fault(m, &fault, pc, r->wg, wave_of(m, t), t % m->width);
      return false;
    }
    return true;
  }
  }
}

/* No thread can run: release the barrier or report the deadlock. */
static bool resolve_barrier(thread_run *r) {
  wave_machine *m = r->m;
  uint32_t first = UINT32_MAX;
  for (uint32_t t = 0; t < m->threads; t++) {
    const thread_state *th = &r->threads[t];
    if (th->state != THREAD_AT_BARRIER)
      continue;
    if (first == UINT32_MAX) {
      first = t;
    } else if (th->pc != r->threads[first].pc) {
      char what[160];
      snprintf(what, sizeof what,
               "barrier divergence: thread %" PRIu32 " waits at the barrier at line %" PRIu32
               ", thread %" PRIu32 " at another barrier",
               first, m->prog.entries[r->threads[first].pc].loc.line, t);
      fail_thread(r, t, WAVE_ERR_BARRIER, what);
      return false;
    }
  }
  /* As in SIMT mode, a wave whose threads have all ended can never arrive. */
  for (uint32_t wave = 0; wave < m->num_waves; wave++) {
    uint32_t end = (wave + 1) * m->width < m->threads ? (wave + 1) * m->width : m->threads;
    bool all_done = true;
    for (uint32_t t = wave * m->width; t < end && all_done; t++)
      all_done = r->threads[t].state == THREAD_DONE;
    if (all_done) {
      char what[160];
      snprintf(what, sizeof what,
               "barrier deadlock: thread %" PRIu32 " waits at the barrier while wave %" PRIu32
               " has finished",
               first, wave);
      fail_thread(r, first, WAVE_ERR_BARRIER, what);
      return false;
    }
  }
  for (uint32_t t = 0; t < m->threads; t++) {
    if (r->threads[t].state == THREAD_AT_BARRIER) {
      r->threads[t].state = THREAD_RUNNING;
      r->threads[t].pc++;
    }
  }
  m->counters.barriers++;
  return true;
}

static bool run_workgroup(thread_run *r) {
  wave_machine *m = r->m;
  for (;;) {
    bool ran = false, waiting = false;
    for (uint32_t t = 0; t < m->threads; t++) {
      thread_state *th = &r->threads[t];
      waiting |= th->state == THREAD_AT_BARRIER;
      if (th->state != THREAD_RUNNING)
        continue;
      ran = true;
      if (!step(r, t))
        return false;
    }
    if (ran)
      continue;
    if (!waiting)
      return true;
    if (!resolve_barrier(r))
      return false;
  }
}

wave_run_status interp_thread_run(wave_machine *m) {
  thread_run r = {0};
  r.m = m;
  r.threads = wave_mem_calloc(m->allocator, m->threads, sizeof *r.threads);
  bool ok = r.threads != NULL;
  for (uint32_t t = 0; ok && t < m->threads; t++)
    ok = interp_wave_alloc(&r.threads[t].regs, &m->prog, 1, m->const_rows);
  if (!ok)
    interp_fail(m, WAVE_ERR_OUT_OF_MEMORY, 0, 0, 0, 0, "out of memory");
  for (uint32_t wg = 0; ok && wg < m->num_wgs; wg++) {
    uint32_t id[3];
    interp_begin_workgroup(m, wg, id);
    r.wg = wg;
    for (uint32_t t = 0; t < m->threads; t++) {
      thread_state *th = &r.threads[t];
      interp_init_regs(m, &th->regs, id, wave_of(m, t), t % m->width);
      th->pc = 0;
      th->num_calls = 0;
      th->state = THREAD_RUNNING;
    }
    ok = run_workgroup(&r);
    for (uint32_t t = 0; t < m->threads; t++) {
      if (r.threads[t].state == THREAD_DONE)
        m->finished[(size_t)wg * m->num_waves + wave_of(m, t)] |= lane_bit(m, t);
      interp_save_lanes(m, wg, t, &r.threads[t].regs);
    }
  }
  if (r.threads) {
    for (uint32_t t = 0; t < m->threads; t++)
      interp_wave_free(&r.threads[t].regs);
    wave_mem_free(m->allocator, r.threads);
  }
  if (ok)
    m->status = WAVE_RUN_OK;
  return m->status;
}
