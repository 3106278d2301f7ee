/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: arbitrary bytes through the parser (either dialect; it tells them apart by
 * itself). Every diagnostic is formatted, text and JSON, so that a position past the end of
 * its line or a source line cut wrongly shows up under AddressSanitizer. When the text parses
 * and verifies, the printer and parser must round-trip: print it canonically (documentation
 * dialect), parse the print, print again, and the two prints must be byte for byte equal. Then
 * the same in the assembler's dialect after lowering (wave_lower_docs_dialect), whose result
 * must verify. Anything else (a crash, a leak, a hang, a round trip that fails) is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waveopt/waveopt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void format_all(const wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    free(wave_diag_format_text(&diags->items[i], false));
    free(wave_diag_format_text(&diags->items[i], true));
    free(wave_diag_format_json(&diags->items[i]));
  }
}

static char *print(const wave_module *module, wave_dialect dialect, size_t *len) {
  wave_print_options options = {0};
  options.dialect = dialect;
  return wave_print_to_string(module, &options, len);
}

/* The print of a valid module parses and verifies, and prints back the same bytes. */
static void check_round_trip(const wave_module *module, wave_dialect dialect) {
  size_t first_len = 0, second_len = 0;
  char *first = print(module, dialect, &first_len);
  if (!first)
    __builtin_trap();
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *again = wave_parse_string(first, first_len, "printed.wave", &diags);
  if (!again || !wave_verify_module(again, &diags))
    __builtin_trap();
  wave_diags_free(&diags);
  char *second = print(again, dialect, &second_len);
  wave_module_destroy(again);
  if (!second || second_len != first_len || memcmp(first, second, first_len) != 0)
    __builtin_trap();
  free(first);
  free(second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *module = wave_parse_string((const char *)data, size, "fuzz.wave", &diags);
  bool verified = module && wave_verify_module(module, &diags);
  format_all(&diags);
  wave_diags_free(&diags);
  if (verified) {
    check_round_trip(module, WAVE_DIALECT_DOCS);
    /* Lowering may refuse (no free scratch register); what it does lower must be valid. */
    wave_diags_init(&diags);
    if (wave_lower_docs_dialect(module, &diags)) {
      if (!wave_verify_module(module, &diags))
        __builtin_trap();
      check_round_trip(module, WAVE_DIALECT_ASM);
    }
    format_all(&diags);
    wave_diags_free(&diags);
  }
  wave_module_destroy(module);
  return 0;
}
