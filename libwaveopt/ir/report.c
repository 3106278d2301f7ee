/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Diagnostics at a place in a module: the module keeps its source text and where each line
 * starts, so a problem found long after parsing (by the verifier, a pass, the interpreter) still
 * quotes its line. The diagnostics list itself (support/diag.c) knows nothing of modules.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "ir/module.h"
#include "support/text.h"
#include "waveopt/waveopt.h"

void wave_module_report(const wave_module *module, wave_diags *diags, wave_severity severity,
                        const char *flag, wave_loc loc, const char *fmt, ...) {
  const char *line = NULL;
  size_t len = 0;
  if (module && module->source && loc.line >= 1 && loc.line <= module->num_lines) {
    /* Lines end at '\n' (asm/parser.c index_lines): the next line's start finds the end
     * without reading the line, which may be long and reported on many times. */
    size_t start = module->line_starts[loc.line - 1];
    size_t end = loc.line < module->num_lines ? module->line_starts[loc.line] - 1
                                              : module->source_len;
    if (end > start && module->source[end - 1] == '\r')
      end--;
    line = module->source + start;
    len = end - start;
  }
  if (!loc.file && module)
    loc.file = module->file;
  va_list ap;
  va_start(ap, fmt);
  char *message = wave_vformat(fmt, ap);
  va_end(ap);
  wave_diag_report(diags, severity, flag, loc, line, len, "%s",
                   message ? message : "(out of memory formatting this diagnostic)");
  free(message);
}
