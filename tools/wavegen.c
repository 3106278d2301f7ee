/* SPDX-License-Identifier: Apache-2.0 */
/* wavegen: prints a random, valid, terminating, UB-free kernel for differential testing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_util.h"
#include "waveopt/gen.h"

/* A whole argument as a number; the generator's limits are checked by the callers. */
static bool parse_number(const char *s, uint64_t *out) {
  const char *end;
  return tool_parse_u64(s, &end, UINT64_MAX, out) && *end == '\0';
}

static const char usage[] =
    "usage: wavegen --seed S [--size N] [--depth D] [--no-wave-ops] [--races]\n"
    "               [--docs-dialect [--all-preds]] [--divergent-barriers] [-o FILE]\n"
    "\n"
    "Prints a random WAVE kernel that verifies, terminates and has no undefined behaviour.\n"
    "A comment at the top gives the seed and the launch it expects (grid, workgroup, preset\n"
    "registers) with a wavesim command line that runs it.\n"
    "\n"
    "options:\n"
    "  --seed S          the seed (required); the same seed always gives the same kernel\n"
    "  --size N          approximate number of instructions (default 250)\n"
    "  --depth D         maximum if/loop nesting (default 5, at most 8)\n"
    "  --no-wave-ops     no wave operations: results do not depend on the wave width\n"
    "  --races           let lanes observe shared atomic counters (results then depend on\n"
    "                    the order in which lanes run)\n"
    "  --docs-dialect    also use documentation-dialect forms (predicate logic, 'break !p',\n"
    "                    immediates) and print in that dialect; p3 stays unused, free\n"
    "                    for the lowering of 'break !p'\n"
    "  --all-preds       with --docs-dialect: use p3 too, so that the lowering must find a\n"
    "                    predicate dead at each 'break !p' (some kernels it then refuses)\n"
    "  --divergent-barriers  also put barriers inside ifs and loops, where only some\n"
    "                    threads may reach them (undefined: for testing barrier checks)\n"
    "  -o FILE           write to FILE instead of standard output\n"
    "  --help            show this help\n"
    "  --version         show the version\n"
    "\n"
    "exit status: 0 success, 1 failure (out of memory, cannot write), 2 usage errors\n";

typedef struct options {
  wave_gen_options gen;
  bool has_seed;
  const char *output;
} options;

/* Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, options *opt) {
  wave_gen_options_init(&opt->gen);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    uint64_t n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("wavegen (libwaveopt) %s\n", wave_version());
      return 0;
    } else if ((v = tool_option_arg(argc, argv, &i, "seed", ""))) {
      if (!parse_number(v, &n))
        return tool_usage_error("wavegen", "invalid seed '%s'", v);
      opt->gen.seed = n;
      opt->has_seed = true;
    } else if ((v = tool_option_arg(argc, argv, &i, "size", ""))) {
      if (!parse_number(v, &n) || n == 0 || n > 1000000)
        return tool_usage_error("wavegen", "invalid size (1..1000000): '%s'", v);
      opt->gen.size = (unsigned)n;
    } else if ((v = tool_option_arg(argc, argv, &i, "depth", ""))) {
      if (!parse_number(v, &n) || n > WAVE_GEN_MAX_DEPTH)
        return tool_usage_error("wavegen", "invalid depth (0..8): '%s'", v);
      opt->gen.max_depth = (unsigned)n;
    } else if (strcmp(a, "--no-wave-ops") == 0) {
      opt->gen.wave_ops = false;
    } else if (strcmp(a, "--races") == 0) {
      opt->gen.races = true;
    } else if (strcmp(a, "--docs-dialect") == 0) {
      opt->gen.docs_dialect = true;
    } else if (strcmp(a, "--all-preds") == 0) {
      opt->gen.docs_all_preds = true;
    } else if (strcmp(a, "--divergent-barriers") == 0) {
      opt->gen.divergent_barriers = true;
    } else if (strcmp(a, "-o") == 0) {
      if (++i == argc)
        return tool_usage_error("wavegen", "missing file name after '%s'", a);
      opt->output = argv[i];
    } else {
      return tool_usage_error("wavegen", "unknown argument '%s'", a);
    }
  }
  if (!opt->has_seed)
    return tool_usage_error("wavegen", "missing option '--seed'");
  if (opt->gen.docs_all_preds && !opt->gen.docs_dialect)
    return tool_usage_error("wavegen", "'--all-preds' needs '--docs-dialect'");
  return -1;
}

typedef struct emit_ctx {
  const char *header;
  const wave_module *module;
  wave_print_options print;
} emit_ctx;

static int emit(FILE *out, void *ctx) {
  const emit_ctx *e = ctx;
  if (fputs(e->header, out) < 0)
    return -1;
  return wave_print_file(e->module, &e->print, out);
}

int main(int argc, char **argv) {
  options opt = {0};
  int status = parse_args(argc, argv, &opt);
  if (status >= 0)
    return status;
  wave_diags diags;
  wave_diags_init(&diags);
  wave_gen_launch launch;
  wave_module *module = wave_generate(&opt.gen, &launch, &diags);
  char *header = module ? wave_gen_describe(&opt.gen, &launch) : NULL;
  tool_print_diags(&diags, TOOL_DIAGS_TEXT);
  int rc = 1;
  if (header) {
    emit_ctx ctx = {header, module, {0}};
    ctx.print.dialect = opt.gen.docs_dialect ? WAVE_DIALECT_DOCS : WAVE_DIALECT_ASM;
    rc = tool_write_output("wavegen", opt.output, emit, &ctx) == 0 ? 0 : 1;
  } else if (module) {
    fprintf(stderr, "wavegen: error: out of memory\n");
  }
  free(header);
  wave_module_destroy(module);
  wave_diags_free(&diags);
  return rc;
}
