#include "test_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

void tu_log_diags(const wave_diags *d) {
  for (size_t i = 0; i < d->count; i++) {
    char *s = wave_diag_format_text(&d->items[i], false);
    cr_log_error("%s", s ? s : "?");
    free(s);
  }
}

wave_module *tu_parse_ok(const char *text, const char *file, bool quiet) {
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_string(text, strlen(text), file, &d);
  if (!m || d.num_errors || (quiet && d.count))
    tu_log_diags(&d);
  cr_assert_not_null(m, "the text does not parse:\n%s", text);
  cr_assert_eq(d.num_errors, 0, "errors for:\n%s", text);
  if (quiet)
    cr_assert_eq(d.count, 0, "unexpected diagnostics for:\n%s", text);
  wave_diags_free(&d);
  return m;
}

wave_instr *tu_add(wave_module *m, wave_node *block, wave_opcode op, unsigned n,
                   const wave_operand *ops) {
  wave_instr *i = wave_instr_create(m, op, WAVE_NO_GUARD, false, n, ops);
  cr_assert_not_null(i);
  wave_block_append(block, i);
  return i;
}

void tu_repeat(char *buf, size_t size, const char *piece, unsigned count) {
  size_t used = strlen(buf), len = strlen(piece);
  cr_assert_leq(used + (size_t)count * len, size - 1, "text buffer too small");
  for (unsigned i = 0; i < count; i++, used += len)
    memcpy(buf + used, piece, len + 1);
}
