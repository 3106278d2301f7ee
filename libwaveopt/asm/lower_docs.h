/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Documentation-dialect lowering of one kernel, for the `legalize` pass, which runs per kernel.
 * wave_lower_docs_dialect (waveopt.h) is the whole-module entry built on the same code.
 */
#ifndef WAVE_ASM_LOWER_DOCS_H
#define WAVE_ASM_LOWER_DOCS_H

#include <stdbool.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"

/* Lowers the kernel's documentation-dialect forms as wave_lower_docs_dialect does, scratch
 * registers chosen module-wide when the module has a call; .registers of this kernel grows to
 * cover them. *changed says whether a form was rewritten. False after reporting, in diags,
 * a form that cannot be lowered. */
bool wave_lower_docs_kernel(wave_kernel *kernel, wave_diags *diags, bool *changed);

#endif
