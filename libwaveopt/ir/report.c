/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Diagnostics at a place in a module, quoting its line from the text the module keeps
 * (ir/source.c). The diagnostics list itself (support/diag.c) knows nothing of modules.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "ir/module.h"
#include "support/alloc.h"
#include "support/text.h"
#include "waveopt/waveopt.h"

void wave_module_report(const wave_module *module, wave_diags *diags, wave_severity severity,
                        const char *flag, wave_loc loc, const char *fmt, ...) {
  size_t len = 0;
  char *copy = NULL;
  const char *line = module ? wave_source_line(&module->source, loc.line, &len, &copy) : NULL;
  if (!loc.file && module)
    loc.file = module->file;
  va_list ap;
  va_start(ap, fmt);
  char *message = wave_vformat(fmt, ap);
  va_end(ap);
  wave_diag_report(diags, severity, flag, loc, line, len, "%s",
                   message ? message : "(out of memory formatting this diagnostic)");
  wave_mem_free(NULL, message);
  wave_mem_free(NULL, copy);
}
