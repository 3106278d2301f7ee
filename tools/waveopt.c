/* waveopt: the opt-style driver. Reads WAVE, verifies it, and prints it back canonically. */
#include <stdlib.h>
#include <string.h>

#include "tool_util.h"

static const char usage[] =
    "usage: waveopt [options] [input.wave|-]\n"
    "\n"
    "Reads WAVE assembly (the real assembler's dialect or the documentation dialect),\n"
    "verifies it and prints it canonically. Reads standard input when no file or '-' is given.\n"
    "\n"
    "options:\n"
    "  -o FILE                       write the output to FILE ('-' = standard output, the\n"
    "                                default); a file is replaced only when writing succeeded\n"
    "  -O0                           no optimization: parse, verify, print (the default)\n"
    "  -dialect=asm|docs             asm (default): what wave-asm accepts; documentation\n"
    "                                forms are lowered to real instructions. docs: print\n"
    "                                documentation forms as they are, for reading\n"
    "  -strip-comments               drop comments from the output\n"
    "  -Werror                       treat warnings as errors\n"
    "  -w                            suppress warnings\n"
    "  -fdiagnostics-format=text|json  diagnostics as text (default) or one JSON object a line\n"
    "  --help                        show this help\n"
    "  --version                     show the version\n"
    "\n"
    "exit status: 0 success, 1 errors in the input, 2 usage errors\n";

typedef struct options {
  const char *input;
  const char *output;
  wave_print_options print;
  tool_diag_format diag_format;
  bool werror;
  bool no_warnings;
} options;

/* Returns -1 to go on, or the exit status to stop with. */
static int parse_args(int argc, char **argv, options *opt) {
  const char *v;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0 || strcmp(a, "-version") == 0) {
      printf("waveopt (libwaveopt) %s\n", wave_version());
      return 0;
    } else if (strcmp(a, "-o") == 0) {
      if (++i == argc)
        return tool_usage_error("waveopt", "%s needs a file name", a);
      opt->output = argv[i];
    } else if (strncmp(a, "-o", 2) == 0 && a[2] != '\0' && a[1] != '-') {
      opt->output = a + 2;
    } else if (strcmp(a, "-O0") == 0) {
      /* the only level so far: parse, verify and print */
    } else if ((v = tool_option_value(a, "dialect"))) {
      if (strcmp(v, "asm") == 0)
        opt->print.dialect = WAVE_DIALECT_ASM;
      else if (strcmp(v, "docs") == 0)
        opt->print.dialect = WAVE_DIALECT_DOCS;
      else
        return tool_usage_error("waveopt", "unknown dialect '%s' (expected asm or docs)", v);
    } else if (strcmp(a, "-strip-comments") == 0 || strcmp(a, "--strip-comments") == 0) {
      opt->print.strip_comments = true;
    } else if (strcmp(a, "-Werror") == 0) {
      opt->werror = true;
    } else if (strcmp(a, "-w") == 0) {
      opt->no_warnings = true;
    } else if ((v = tool_option_value(a, "fdiagnostics-format"))) {
      if (strcmp(v, "text") == 0)
        opt->diag_format = TOOL_DIAGS_TEXT;
      else if (strcmp(v, "json") == 0)
        opt->diag_format = TOOL_DIAGS_JSON;
      else
        return tool_usage_error("waveopt",
                                "unknown diagnostics format '%s' (expected text or json)", v);
    } else {
      int status = tool_take_input("waveopt", a, &opt->input, "unknown option '%s'");
      if (status >= 0)
        return status;
    }
  }
  if (!opt->input)
    opt->input = "-";
  return -1;
}

typedef struct emit_ctx {
  const wave_module *module;
  const wave_print_options *print;
} emit_ctx;

static int emit_module(FILE *out, void *ctx) {
  const emit_ctx *e = ctx;
  return wave_print_file(e->module, e->print, out);
}

int main(int argc, char **argv) {
  options opt = {0};
  int status = parse_args(argc, argv, &opt);
  if (status >= 0)
    return status;

  wave_diags diags;
  wave_diags_init(&diags);
  diags.warnings_as_errors = opt.werror;
  diags.ignore_warnings = opt.no_warnings;

  wave_module *module = tool_parse_input("waveopt", opt.input, &diags);
  bool ok = module && wave_verify_module(module, &diags);
  if (ok && opt.print.dialect == WAVE_DIALECT_ASM)
    ok = wave_lower_docs_dialect(module, &diags);
  /* -Werror: a warning recorded as an error fails the run even if the pass itself succeeded. */
  ok = ok && !wave_diags_has_errors(&diags);
  tool_print_diags(&diags, opt.diag_format);
  if (ok) {
    emit_ctx ctx = {module, &opt.print};
    ok = tool_write_output("waveopt", opt.output, emit_module, &ctx) == 0;
  }
  wave_module_destroy(module);
  wave_diags_free(&diags);
  return ok ? 0 : 1;
}
