/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One kernel printed alone, for IR dumps between passes and for checking that a pass which
 * reported no change indeed changed nothing. The module printer is reused rather than
 * duplicated: it is handed a view of the module holding this kernel only, without the labels
 * and comments that belong to the file around the kernels. The view shares the kernel's
 * regions, so the text is exactly what the module printer writes for the kernel.
 */
#include "ir/module.h"
#include "waveopt/pass.h"

int wave_print_kernel(const wave_kernel *kernel, const wave_print_options *options,
                      wave_write_fn write, void *ctx) {
  wave_kernel alone = *kernel;
  alone.prev = alone.next = NULL;
  wave_module view = *kernel->module;
  view.first_kernel = view.last_kernel = &alone;
  view.num_kernels = 1;
  view.first_stray = view.last_stray = NULL;
  view.trailing = NULL;
  return wave_print_module(&view, options, write, ctx);
}
