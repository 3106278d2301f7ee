/* SPDX-License-Identifier: Apache-2.0 */
/* What the command-line tools share: reading input, printing diagnostics, writing output
 * files without ever leaving a truncated one behind. */
#ifndef WAVE_TOOL_UTIL_H
#define WAVE_TOOL_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "waveopt/waveopt.h"

typedef enum tool_diag_format { TOOL_DIAGS_TEXT, TOOL_DIAGS_JSON } tool_diag_format;

/* Prints every diagnostic to stderr; text is coloured only when stderr is a terminal. */
void tool_print_diags(const wave_diags *diags, tool_diag_format format);

/* Reads a whole file, or standard input for "-". Returns malloc'd bytes (NUL-terminated) or
 * NULL after printing "tool: cannot read 'path': reason". */
char *tool_read_input(const char *tool, const char *path, size_t *len);

/* Parses `path` ("-" = standard input) into a module; diagnostics go to diags. */
wave_module *tool_parse_input(const char *tool, const char *path, wave_diags *diags);

/* Writes through `emit` to `path`: to stdout for "-" or NULL, otherwise to a temporary file
 * beside the target that is renamed over it only when everything was written. Returns 0, or
 * -1 after printing why. */
int tool_write_output(const char *tool, const char *path, int (*emit)(FILE *out, void *ctx),
                      void *ctx);

/* For name "dialect": the value of "-dialect=V" or "--dialect=V", else NULL. */
const char *tool_option_value(const char *arg, const char *name);

/* The value of option `name` at argv[*i]: "--name=V", "-name=V", or "--name V" / "-name V"
 * (advancing *i past the separate value). NULL when argv[*i] is not that option; `missing`
 * when it is but no value follows, so each tool picks how a missing value is reported. */
const char *tool_option_arg(int argc, char **argv, int *i, const char *name, const char *missing);

/* Prints "TOOL: error: <fmt...>" and the pointer to --help on stderr; returns 2, the usage
 * error exit status every tool shares. */
int tool_usage_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Takes a non-option argument as the single input file. Returns -1 to go on, or the usage
 * error status after reporting an unknown option (with `unknown_fmt`, given the argument) or
 * a second input. */
int tool_take_input(const char *tool, const char *arg, const char **input, const char *unknown_fmt);

/* A decimal or 0x-hexadecimal number (no sign, no spaces) up to `max`; *end is set to the
 * first character after it. False when malformed or too big. */
bool tool_parse_u64(const char *s, const char **end, uint64_t max, uint64_t *out);

#endif
