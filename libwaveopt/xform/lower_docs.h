/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Documentation-dialect lowering of one kernel, for the `lower-docs` and `legalize` passes, which
 * run per kernel.
 * wave_lower_docs_dialect (waveopt.h) is the whole-module entry built on the same code.
 */
#ifndef WAVE_XFORM_LOWER_DOCS_H
#define WAVE_XFORM_LOWER_DOCS_H

#include <stdbool.h>
#include <stdint.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"

/* Lowers the kernel's documentation-dialect forms as wave_lower_docs_dialect does, scratch
 * registers chosen module-wide when the module has a call; .registers of this kernel grows to
 * cover them. *changed says whether a form was rewritten. False after reporting, in diags,
 * a form that cannot be lowered. */
bool wave_lower_docs_kernel(wave_kernel *kernel, wave_diags *diags, bool *changed);

/* Told, for each constant that repays a register of its own (loaded more than once, or inside
 * a loop), most valuable first, the register it got, or UINT32_MAX and why it got none;
 * `first` is its first use. */
typedef void (*wave_lower_docs_owned_fn)(void *arg, uint32_t value, uint32_t reg, wave_loc first,
                                         const char *why_not);

/* wave_lower_docs_kernel, where the constants that repay it get registers of their own below
 * `registers` (every load of one is the same constant, for early-cse and licm to share and
 * hoist; lower_docs.c says why it is safe), as many as fit there beside the shared scratch
 * registers; none in a module with calls. False after reporting, in diags, a form that cannot
 * be lowered or running out of memory. */
bool wave_lower_docs_kernel_owning(wave_kernel *kernel, wave_diags *diags, uint32_t registers,
                                   wave_lower_docs_owned_fn report_constant, void *arg,
                                   bool *changed);

#endif
