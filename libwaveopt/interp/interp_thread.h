/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-thread mode (interp_thread.c): every thread alone with its own program counter.
 */
#ifndef WAVE_INTERP_THREAD_H
#define WAVE_INTERP_THREAD_H

#include "interp/interp_machine.h"


/* Runs the whole launch in per-thread mode within m->thread_budget thread-instructions. */
wave_run_status interp_thread_run(struct wave_machine *m);

#endif
