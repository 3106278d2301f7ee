/* waveopt: the opt-style driver. Reads WAVE, verifies it, runs a pass pipeline over it and
 * prints it back canonically. The flags are opt's; the library hands back everything a run
 * produced as data or through callbacks, and this file alone decides what reaches the
 * terminal: IR dumps, remarks, statistics and timings on standard error, the module on
 * standard output or in the -o file. */
#include <limits.h>
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOPT)
#include <malloc.h>
#endif
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "tool_util.h"
#include "waveopt_dot.h"
#include "waveopt/pass.h"
#include "waveopt/profile.h"

static const char usage[] =
    "usage: waveopt [options] [input.wave|-]\n"
    "\n"
    "Reads WAVE assembly (the real assembler's dialect or the documentation dialect),\n"
    "verifies it, runs a pass pipeline over every kernel and prints the result canonically.\n"
    "Reads standard input when no file or '-' is given.\n"
    "\n"
    "options:\n"
    "  -o FILE                       write the output to FILE ('-' = standard output, the\n"
    "                                default); a file is replaced only when writing succeeded\n"
    "  -O0 -O1 -O2 -O3               run a named pipeline (-list-passes shows them); -O0, the\n"
    "                                default, only legalizes for the target\n"
    "  -passes=PIPELINE              run PIPELINE instead: pass names separated by ',',\n"
    "                                fixpoint(...) and fixpoint<max=N>(...) to repeat passes\n"
    "                                until nothing changes (at most N times, 8 by default),\n"
    "                                print<ANALYSIS> to show an analysis on standard error\n"
    "  -print-pipeline               print the pipeline that would run and exit (also\n"
    "                                -print-pipeline-passes)\n"
    "  -analyze=NAME[,NAME...]       print what the named analyses find (-list-passes lists\n"
    "                                them) instead of optimizing; the output is the annotated\n"
    "                                kernel text\n"
    "  -assume-divergent=R[,R...]    registers (r0..r254, p0..p3) the host presets differently\n"
    "                                per lane: analyses take them as divergent from the entry\n"
    "  -list-passes                  list the passes with their options, the analyses and\n"
    "                                the named pipelines, and exit\n"
    "  -load-pass-plugin=FILE        load a shared object that adds passes and analyses,\n"
    "                                named then like the built-in ones (repeatable)\n"
    "  -target=NAME                  the tool the output is for (-list-targets shows them;\n"
    "                                default portable: what every tool runs correctly)\n"
    "  -list-targets                 list the targets and what each runs correctly, and exit\n"
    "  -NAME=VALUE                   set the option NAME of a pass (-list-passes shows them)\n"
    "  -max-registers=N              passes that need scratch registers may grow .registers up\n"
    "                                to N (1..255; default: no growth, except 255 at -O3)\n"
    "  -max-divergence-depth=N       keep if/loop nesting within N frames (default: the\n"
    "                                target's divergence stack, 32 for portable)\n"
    "  -shrink-registers             lower .registers to the highest register used + 1\n"
    "  -profile-use=FILE             cost ifs by the split rates a divergence profile measured\n"
    "                                (wavesim --profile; docs/profile.md): if-to-select weighs\n"
    "                                both sides by the rate, flatten-ifs keeps ifs never entered;\n"
    "                                a profile of other code is an error\n"
    "  -dialect=asm|docs             asm (default): what wave-asm accepts; documentation\n"
    "                                forms are lowered to real instructions. docs: print\n"
    "                                documentation forms as they are, for reading\n"
    "  -strip-comments               drop comments from the output\n"
    "  -dot                          also draw each kernel's control-flow graph after the\n"
    "                                pipeline, coloured by divergence, as KERNEL.dot beside\n"
    "                                the output (-o's directory, else the current one)\n"
    "  -dot-before                   the same for the input as parsed: KERNEL.before.dot\n"
    "  -dot-dir=DIR                  write the graphs into DIR instead\n"
    "  -dot-format=dot|svg|png|pdf   DOT text (default) or rendered by graphviz's dot layout\n"
    "  -profile=FILE                 fill the graphs' blocks by the SIMD efficiency that a\n"
    "                                divergence profile of the input measured (wavesim\n"
    "                                --profile); without it the graphs use -profile-use's\n"
    "  -Werror                       treat warnings as errors\n"
    "  -w                            suppress warnings\n"
    "  -fdiagnostics-format=text|json  diagnostics as text (default) or one JSON object a line\n"
    "  --help                        show this help\n"
    "  --version                     show the version\n"
    "\n"
    "debugging a pipeline (output on standard error):\n"
    "  -print-before=P[,P...]        print a kernel before each run of pass P\n"
    "  -print-after=P[,P...]         print a kernel after each run of pass P\n"
    "  -print-before-all             print a kernel before every pass\n"
    "  -print-after-all              print a kernel after every pass\n"
    "  -print-changed                print the module once, then a kernel after every pass\n"
    "                                that changed it\n"
    "  -verify-each                  after every pass, check the IR, a pass's \"no change\"\n"
    "                                answer and the analyses it claims to preserve\n"
    "  -opt-bisect-limit=N           run only the first N pass runs (-1: all), saying which\n"
    "  -stats                        print the counters the passes kept\n"
    "  -time-passes                  print the wall time spent in each pass\n"
    "  -pass-remarks=REGEX           report what passes matching REGEX did\n"
    "  -pass-remarks-missed=REGEX    report what passes matching REGEX did not do, and why\n"
    "  -pass-remarks-analysis=REGEX  report the facts behind the decisions of those passes\n"
    "  -pass-remarks-output=FILE     write every remark to FILE, one JSON object a line\n"
    "\n"
    "exit status: 0 success, 1 errors in the input or the run, 2 usage errors\n";

/* The passes -print-before or -print-after names, over all its lists: pointers into argv. */
enum { MAX_LISTED_PASSES = 64, NUM_REMARK_KINDS = 3 };

typedef struct pass_set {
  const char *names[MAX_LISTED_PASSES];
  size_t lengths[MAX_LISTED_PASSES];
  size_t count;
} pass_set;

typedef struct options {
  const char *input;
  const char *output;
  const char *profile_use; /* -profile-use=FILE */
  wave_print_options print;
  tool_diag_format diag_format;
  bool werror;
  bool no_warnings;
  const wave_pass_registry *registry;
  const char *passes;
  const char *analyze;     /* -analyze=NAME,...: print those analyses instead of optimizing */
  int level;               /* -1: none given (then 0 unless -passes is) */
  bool shrink_registers;   /* -shrink-registers: .registers = highest register used + 1 */
  bool print_pipeline, list_passes, list_targets;
  pass_set print_before, print_after;
  bool print_before_all, print_after_all, print_changed;
  bool stats;
  wave_pipeline_options run;
  regex_t remarks[NUM_REMARK_KINDS];  /* indexed by wave_remark_kind */
  bool has_remarks[NUM_REMARK_KINDS];
  const char *remarks_output;
  wave_pass_option_value *option_values;
  dot_request dot;         /* -dot, -dot-before, -dot-dir, -dot-format */
} options;

static const char *const remark_flags[NUM_REMARK_KINDS] = {
    "pass-remarks", "pass-remarks-missed", "pass-remarks-analysis"};

static bool listed(const pass_set *set, const char *pass) {
  for (size_t i = 0; i < set->count; i++)
    if (strlen(pass) == set->lengths[i] && strncmp(pass, set->names[i], set->lengths[i]) == 0)
      return true;
  return false;
}

/* Adds the comma-separated pass names of `list`, each of which must be registered. */
static int add_passes(const options *opt, pass_set *set, const char *flag, const char *list) {
  for (const char *s = list;; s++) {
    size_t len = strcspn(s, ",");
    char name[128];
    snprintf(name, sizeof(name), "%.*s", (int)len, s);
    if (len == 0 || len >= sizeof(name) || !wave_pass_registry_find_pass(opt->registry, name))
      return tool_usage_error("waveopt", "-%s: unknown pass '%.*s'", flag, (int)len, s);
    if (set->count == MAX_LISTED_PASSES)
      return tool_usage_error("waveopt", "-%s names more than %d passes", flag,
                              MAX_LISTED_PASSES);
    set->names[set->count] = s;
    set->lengths[set->count++] = len;
    s += len;
    if (*s == '\0')
      return -1;
  }
}

static int set_target(options *opt, const char *name) {
  opt->run.target = wave_target_lookup(name);
  if (opt->run.target)
    return -1;
  char names[256] = "";
  for (size_t i = 0; wave_target_at(i); i++) {
    if (i)
      strncat(names, ", ", sizeof(names) - strlen(names) - 1);
    strncat(names, wave_target_at(i)->name, sizeof(names) - strlen(names) - 1);
  }
  return tool_usage_error("waveopt", "unknown target '%s' (expected one of: %s)", name, names);
}

static int set_remarks(options *opt, wave_remark_kind kind, const char *pattern) {
  if (opt->has_remarks[kind])
    regfree(&opt->remarks[kind]);
  opt->has_remarks[kind] = regcomp(&opt->remarks[kind], pattern, REG_EXTENDED | REG_NOSUB) == 0;
  if (opt->has_remarks[kind])
    return -1;
  return tool_usage_error("waveopt", "-%s: invalid regular expression '%s'", remark_flags[kind],
                          pattern);
}

/* One register name, "r0".."r254" or "p0".."p3", of len characters. */
static bool parse_reg(const char *s, size_t len, unsigned *reg) {
  unsigned max = *s == 'r' ? WAVE_MAX_GPR : *s == 'p' ? WAVE_NUM_PREDS - 1 : 0;
  if (len < 2 || len > 4 || (*s != 'r' && *s != 'p') || (s[1] == '0' && len > 2))
    return false;
  unsigned n = 0;
  for (size_t i = 1; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    n = n * 10 + (unsigned)(s[i] - '0');
  }
  if (n > max)
    return false;
  *reg = *s == 'r' ? WAVE_REG_GPR(n) : WAVE_REG_PRED(n);
  return true;
}

static int set_assume_divergent(options *opt, const char *list) {
  for (const char *s = list;; s++) {
    size_t len = strcspn(s, ",");
    unsigned reg;
    if (!parse_reg(s, len, &reg))
      return tool_usage_error("waveopt",
                              "-assume-divergent=%s: '%.*s' is not a register (expected r0..r%d "
                              "or p0..p%d)",
                              list, (int)len, s, WAVE_MAX_GPR, WAVE_NUM_PREDS - 1);
    wave_regset_set(&opt->run.assume_divergent, reg);
    s += len;
    if (!*s)
      return -1;
  }
}

/* A decimal integer with an optional '-', within [min, max]. */
static bool parse_int(const char *s, long long min, long long max, long long *out) {
  bool negative = *s == '-';
  uint64_t magnitude;
  const char *end;
  if (!tool_parse_u64(s + negative, &end, (uint64_t)LLONG_MAX, &magnitude) || *end)
    return false;
  long long v = negative ? -(long long)magnitude : (long long)magnitude;
  if (v < min || v > max)
    return false;
  *out = v;
  return true;
}

static int set_limit(const char *flag, const char *value, long long max, uint32_t *out) {
  long long n;
  if (!parse_int(value, 1, max, &n))
    return tool_usage_error("waveopt", "-%s needs a number from 1 to %lld, not '%s'", flag, max,
                            value);
  *out = (uint32_t)n;
  return -1;
}

static int set_bisect_limit(options *opt, const char *value) {
  long long limit;
  if (!parse_int(value, -1, INT_MAX, &limit))
    return tool_usage_error("waveopt", "-opt-bisect-limit needs a number from -1 up, not '%s'",
                            value);
  opt->run.opt_bisect = true;
  opt->run.opt_bisect_limit = (int)limit;
  return -1;
}

/* Appends a pass option's value (a later one for the same name wins); -1, or 1 when memory ran
 * out. */
static int add_option_value(options *opt, const char *name, int64_t value) {
  wave_pipeline_options *run = &opt->run;
  wave_pass_option_value *values = realloc(opt->option_values, (run->num_option_values + 1) *
                                                                    sizeof(*values));
  if (!values) {
    fprintf(stderr, "waveopt: error: out of memory\n");
    return 1;
  }
  values[run->num_option_values++] = (wave_pass_option_value){name, value};
  opt->option_values = values;
  run->option_values = values;
  return -1;
}

/* Takes `-NAME=VALUE` for an option a registered pass declares, setting *status as the other
 * options do; false when `arg` is no such option. */
static bool set_pass_option(options *opt, const char *arg, int *status) {
  if (arg[0] != '-')
    return false;
  const char *name = arg + (arg[1] == '-' ? 2 : 1);
  const char *eq = strchr(name, '=');
  char buf[128];
  size_t index;
  if (!eq || (size_t)(eq - name) >= sizeof(buf))
    return false;
  snprintf(buf, sizeof(buf), "%.*s", (int)(eq - name), name);
  const wave_pass_info *pass = wave_pass_registry_find_option(opt->registry, buf, &index);
  if (!pass)
    return false;
  long long value;
  if (!parse_int(eq + 1, LLONG_MIN, LLONG_MAX, &value)) {
    *status = tool_usage_error("waveopt", "-%s needs an integer, not '%s'", buf, eq + 1);
    return true;
  }
  /* The declaring pass's spelling of the name, which lives as long as the registry. */
  *status = add_option_value(opt, pass->options[index].name, value);
  return true;
}

static bool has_option_value(const options *opt, const char *name) {
  for (size_t i = 0; i < opt->run.num_option_values; i++)
    if (strcmp(opt->run.option_values[i].name, name) == 0)
      return true;
  return false;
}

/* Returns -1 to go on, or the exit status to stop with. */
static int parse_args(int argc, char **argv, options *opt) {
  const char *v;
  int status = -1;
  for (int i = 1; i < argc && status < 0; i++) {
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
    } else if (strncmp(a, "-O", 2) == 0 && a[2] >= '0' && a[2] <= '3' && a[3] == '\0') {
      opt->level = a[2] - '0';
    } else if ((v = tool_option_value(a, "passes"))) {
      opt->passes = v;
    } else if ((v = tool_option_value(a, "analyze"))) {
      opt->analyze = v;
    } else if ((v = tool_option_value(a, "assume-divergent"))) {
      status = set_assume_divergent(opt, v);
    } else if (strcmp(a, "-print-pipeline") == 0 || strcmp(a, "-print-pipeline-passes") == 0) {
      opt->print_pipeline = true;
    } else if ((v = tool_option_arg(argc, argv, &i, "load-pass-plugin", ""))) {
      /* Loaded already (load_plugins), since other flags may name its passes. */
      if (!*v)
        status = tool_usage_error("waveopt", "-load-pass-plugin needs a file name");
    } else if (strcmp(a, "-list-passes") == 0) {
      opt->list_passes = true;
    } else if (strcmp(a, "-list-targets") == 0) {
      opt->list_targets = true;
    } else if ((v = tool_option_value(a, "target"))) {
      status = set_target(opt, v);
    } else if ((v = tool_option_value(a, "print-before"))) {
      status = add_passes(opt, &opt->print_before, "print-before", v);
    } else if ((v = tool_option_value(a, "print-after"))) {
      status = add_passes(opt, &opt->print_after, "print-after", v);
    } else if (strcmp(a, "-print-before-all") == 0) {
      opt->print_before_all = true;
    } else if (strcmp(a, "-print-after-all") == 0) {
      opt->print_after_all = true;
    } else if (strcmp(a, "-print-changed") == 0) {
      opt->print_changed = true;
    } else if (strcmp(a, "-verify-each") == 0) {
      opt->run.verify_each = true;
    } else if (strcmp(a, "-stats") == 0) {
      opt->stats = true;
    } else if (strcmp(a, "-time-passes") == 0) {
      opt->run.time_passes = true;
    } else if ((v = tool_option_value(a, "max-registers"))) {
      status = set_limit("max-registers", v, WAVE_MAX_GPR + 1, &opt->run.max_registers);
    } else if ((v = tool_option_value(a, "max-divergence-depth"))) {
      status = set_limit("max-divergence-depth", v, UINT32_MAX, &opt->run.max_divergence_depth);
    } else if ((v = tool_option_value(a, "profile-use"))) {
      if (!*v)
        status = tool_usage_error("waveopt", "-profile-use needs a file name");
      opt->profile_use = v;
    } else if (strcmp(a, "-shrink-registers") == 0) {
      opt->shrink_registers = true;
    } else if ((v = tool_option_value(a, "opt-bisect-limit"))) {
      status = set_bisect_limit(opt, v);
    } else if ((v = tool_option_value(a, "pass-remarks"))) {
      status = set_remarks(opt, WAVE_REMARK_PASSED, v);
    } else if ((v = tool_option_value(a, "pass-remarks-missed"))) {
      status = set_remarks(opt, WAVE_REMARK_MISSED, v);
    } else if ((v = tool_option_value(a, "pass-remarks-analysis"))) {
      status = set_remarks(opt, WAVE_REMARK_ANALYSIS, v);
    } else if ((v = tool_option_value(a, "pass-remarks-output"))) {
      opt->remarks_output = v;
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
    } else if (dot_take_flag(&opt->dot, a, &status)) {
      /* a -dot flag, or why it is wrong */
    } else if (set_pass_option(opt, a, &status)) {
      /* a pass option, or why its value is wrong */
    } else if (strncmp(a, "-o", 2) == 0 && a[2] != '\0') {
      /* last: -opt-bisect-limit and the like also begin with "-o" */
      opt->output = a + 2;
    } else {
      status = tool_take_input("waveopt", a, &opt->input, "unknown option '%s'");
    }
  }
  if (status >= 0)
    return status;
  /* Output in the documentation dialect shows its forms as written, so neither lower-docs nor
   * legalize may lower them; an explicit -lower-docs-keep or -legalize-keep-docs still wins. */
  static const char *const keep_docs[] = {"lower-docs-keep", "legalize-keep-docs"};
  for (size_t i = 0; i < sizeof(keep_docs) / sizeof(keep_docs[0]); i++) {
    if (opt->print.dialect == WAVE_DIALECT_DOCS && !has_option_value(opt, keep_docs[i]) &&
        (status = add_option_value(opt, keep_docs[i], 1)) >= 0)
      return status;
  }
  if (opt->passes && opt->level >= 0)
    return tool_usage_error("waveopt", "-passes and -O%d cannot be used together", opt->level);
  if (opt->analyze && (opt->passes || opt->level >= 0))
    return tool_usage_error("waveopt", "-analyze cannot be used with -passes or -O");
  if (opt->analyze && (!*opt->analyze || strstr(opt->analyze, ",,") ||
                       opt->analyze[strlen(opt->analyze) - 1] == ','))
    return tool_usage_error("waveopt", "-analyze needs analysis names separated by ','");
  if ((status = dot_check_flags(&opt->dot)) >= 0)
    return status;
  if (!opt->passes && opt->level < 0)
    opt->level = 0;
  /* -O3 may spend registers on scratch unless told a budget. */
  if (opt->level == 3 && !opt->run.max_registers)
    opt->run.max_registers = WAVE_MAX_GPR + 1;
  if (!opt->input)
    opt->input = "-";
  return -1;
}

/* ---- listings ------------------------------------------------------------------------------ */

static void list_passes(const wave_pass_registry *registry) {
  const wave_pass_info *pass;
  const wave_analysis_info *analysis;
  puts("Passes (-passes=NAME,...):");
  size_t i = 0;
  for (; (pass = wave_pass_registry_pass_at(registry, i)); i++) {
    printf("  %-24s %s\n", pass->name, pass->help);
    for (size_t j = 0; j < pass->num_options; j++)
      printf("    -%s=N  %s (default %lld)\n", pass->options[j].name, pass->options[j].help,
             (long long)pass->options[j].default_value);
  }
  if (i == 0)
    puts("  (none)");
  puts("Analyses (-passes=print<NAME>):");
  for (i = 0; (analysis = wave_pass_registry_analysis_at(registry, (wave_analysis_id)i)); i++)
    printf("  %-24s %s\n", analysis->name, analysis->help);
  if (i == 0)
    puts("  (none)");
  puts("Pipelines:");
  for (unsigned level = 0; wave_pipeline_for_level(level); level++)
    printf("  -O%u                      %s\n", level, wave_pipeline_for_level(level));
  printf("  fixpoint<max=N>(...)     repeat until nothing changes, at most N times (default %d)\n",
         WAVE_FIXPOINT_DEFAULT_MAX);
}

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

/* Indexed by wave_guard_class, up to WAVE_GUARD_NONE. */
static const char *const guard_class_names[] = {
    "alu", "compare", "select", "move", "halt", "memory", "atomic", "wave", "mma"};

static void list_targets(void) {
  puts("Targets (-target=NAME):");
  const wave_target *t;
  for (size_t i = 0; (t = wave_target_at(i)); i++) {
    printf("  %-10s %s\n", t->name, t->description);
    printf("             wave widths");
    for (size_t w = 0; w < WAVE_TARGET_MAX_WIDTHS && t->wave_widths[w]; w++)
      printf(" %u", t->wave_widths[w]);
    printf("; continue %s; break in an if %s; per-lane halt %s; call %s; @!p0 %s\n",
           yes_no(t->continue_ok), yes_no(t->break_in_if_ok), yes_no(t->halt_per_lane),
           yes_no(t->calls_ok), yes_no(t->negated_p0_guard_ok));
    if (t->divergence_stack)
      printf("             divergence stack %u", t->divergence_stack);
    else
      printf("             divergence stack unlimited");
    printf("%s; mask operation cost %u\n",
           t->uniform_uses_entry ? " (uniform constructs count)" : "", t->mask_op_cost);
    printf("             guards kept on");
    for (int c = 0; c < WAVE_GUARD_NONE; c++)
      if (t->guard_classes & WAVE_GUARDS(c))
        printf(" %s", guard_class_names[c]);
    putchar('\n');
  }
}

/* ---- what the run reports ------------------------------------------------------------------ */

static int write_stderr(void *ctx, const char *data, size_t len) {
  return fwrite(data, 1, len, stderr) == len ? 0 : -1;
}

static void dump_kernel(const options *opt, const char *when, const char *pass,
                        const wave_kernel *kernel) {
  wave_print_options docs = {WAVE_DIALECT_DOCS, opt->print.strip_comments, 0};
  fprintf(stderr, "; *** IR Dump %s %s on kernel %s ***\n", when, pass, wave_kernel_name(kernel));
  wave_print_kernel(kernel, &docs, write_stderr, NULL);
}

static void before_pass(void *ctx, const char *pass, const wave_kernel *kernel) {
  const options *opt = ctx;
  if (opt->print_before_all || listed(&opt->print_before, pass))
    dump_kernel(opt, "Before", pass, kernel);
}

static void after_pass(void *ctx, const char *pass, const wave_kernel *kernel, bool changed) {
  const options *opt = ctx;
  if (opt->print_after_all || listed(&opt->print_after, pass) || (opt->print_changed && changed))
    dump_kernel(opt, "After", pass, kernel);
  else if (opt->print_changed)
    fprintf(stderr, "; *** IR Pass %s on kernel %s omitted because no change ***\n", pass,
            wave_kernel_name(kernel));
}

static void on_bisect(void *ctx, const wave_bisect_step *step) {
  fprintf(stderr, "%s\n", step->line);
}

static bool remark_shown(const options *opt, wave_remark_kind kind, const char *pass) {
  return opt->has_remarks[kind] && regexec(&opt->remarks[kind], pass, 0, NULL, 0) == 0;
}

static bool remark_filter(void *ctx, wave_remark_kind kind, const char *pass) {
  const options *opt = ctx;
  return opt->remarks_output || remark_shown(opt, kind, pass);
}

/* As clang words them: "file:line:col: remark: message [-Rpass=NAME]". */
static void print_remarks(const options *opt, const wave_pipeline_result *r) {
  static const char *const flags[NUM_REMARK_KINDS] = {"pass", "pass-missed", "pass-analysis"};
  for (size_t i = 0; i < r->num_remarks; i++) {
    const wave_remark *m = &r->remarks[i];
    if (!remark_shown(opt, m->kind, m->pass))
      continue;
    if (m->file)
      fprintf(stderr, "%s:", m->file);
    if (m->file && m->line)
      fprintf(stderr, "%u:", m->line);
    if (m->file && m->line && m->col)
      fprintf(stderr, "%u:", m->col);
    fprintf(stderr, "%sremark: %s [-R%s=%s]\n", m->file ? " " : "", m->message, flags[m->kind],
            m->pass);
  }
}

static int emit_remarks(FILE *out, void *ctx) {
  const wave_pipeline_result *r = ctx;
  for (size_t i = 0; i < r->num_remarks; i++) {
    char *json = wave_remark_format_json(&r->remarks[i]);
    if (!json || fprintf(out, "%s\n", json) < 0) {
      free(json);
      return -1;
    }
    free(json);
  }
  return 0;
}

static const char rule[] =
    "===-------------------------------------------------------------------------===\n";

static void print_stats(const wave_pipeline_result *r) {
  if (r->num_stats == 0)
    return;
  int value_width = 1, pass_width = 1;
  for (size_t i = 0; i < r->num_stats; i++) {
    int w = snprintf(NULL, 0, "%llu", (unsigned long long)r->stats[i].value);
    int p = (int)strlen(r->stats[i].pass);
    value_width = w > value_width ? w : value_width;
    pass_width = p > pass_width ? p : pass_width;
  }
  fprintf(stderr, "%s%28s... Statistics Collected ...\n%s\n", rule, "", rule);
  for (size_t i = 0; i < r->num_stats; i++)
    fprintf(stderr, "%*llu %-*s - %s\n", value_width, (unsigned long long)r->stats[i].value,
            pass_width, r->stats[i].pass,
            r->stats[i].description ? r->stats[i].description : r->stats[i].name);
}

static int by_time_descending(const void *a, const void *b) {
  double x = (*(const wave_pass_timing *const *)a)->seconds;
  double y = (*(const wave_pass_timing *const *)b)->seconds;
  return (x < y) - (x > y);
}

static void print_timings(const wave_pipeline_result *r) {
  const wave_pass_timing **sorted = malloc((r->num_timings + 1) * sizeof(*sorted));
  if (!sorted)
    return;
  double total = 0;
  for (size_t i = 0; i < r->num_timings; i++) {
    sorted[i] = &r->timings[i];
    total += r->timings[i].seconds;
  }
  qsort(sorted, r->num_timings, sizeof(*sorted), by_time_descending);
  fprintf(stderr, "%s%22s... Pass execution timing report ...\n%s", rule, "", rule);
  fprintf(stderr, "  Total Execution Time: %.4f seconds (wall clock)\n\n", total);
  fprintf(stderr, "   ---Wall Time---  --Runs--  --- Name ---\n");
  for (size_t i = 0; i < r->num_timings; i++)
    fprintf(stderr, "   %.4f (%5.1f%%)  %8u  %s\n", sorted[i]->seconds,
            total > 0 ? 100 * sorted[i]->seconds / total : 0.0, sorted[i]->runs,
            sorted[i]->pass);
  fprintf(stderr, "   %.4f (100.0%%)            Total\n", total);
  free(sorted);
}

/* ---- the run ------------------------------------------------------------------------------ */

typedef struct emit_ctx {
  const wave_module *module;
  const wave_print_options *print;
} emit_ctx;

static int emit_module(FILE *out, void *ctx) {
  const emit_ctx *e = ctx;
  return wave_print_file(e->module, e->print, out);
}

/* Runs the pipeline and reports what it produced; false when the run failed. */
static bool optimize(options *opt, const wave_pipeline *pipeline, wave_module *module,
                     wave_diags *diags) {
  if (opt->print_changed) {
    wave_print_options docs = {WAVE_DIALECT_DOCS, opt->print.strip_comments, 0};
    fputs("; *** IR Dump At Start ***\n", stderr);
    wave_print_module(module, &docs, write_stderr, NULL);
  }
  wave_pipeline_options *run = &opt->run;
  run->callback_ctx = opt;
  run->before_pass = before_pass;
  run->after_pass = after_pass;
  run->on_bisect = on_bisect;
  run->remark_filter = remark_filter;
  /* run_tool verified the module, and nothing has changed it since. */
  run->assume_verified = true;
  if (!run->print_write)
    run->print_write = write_stderr;
  wave_pipeline_result result = {0};
  bool ok = wave_pipeline_run(pipeline, module, run, &result, diags);
  print_remarks(opt, &result);
  if (opt->remarks_output &&
      tool_write_output("waveopt", opt->remarks_output, emit_remarks, &result) != 0)
    ok = false;
  if (opt->stats)
    print_stats(&result);
  if (run->time_passes)
    print_timings(&result);
  wave_pipeline_result_free(&result);
  return ok;
}

/* -analyze=a,b is the pipeline print<a>,print<b>: the pass manager computes and prints. */
static char *analyze_pipeline(const char *names) {
  size_t n = 1;
  for (const char *c = names; *c; c++)
    n += *c == ',';
  char *text = malloc(strlen(names) + n * strlen("print<>,") + 1);
  if (!text)
    return NULL;
  char *out = text;
  for (const char *name = names; *name;) {
    size_t len = strcspn(name, ",");
    out += sprintf(out, "%sprint<%.*s>", out == text ? "" : ",", (int)len, name);
    name += len + (name[len] == ',');
  }
  return text;
}

static wave_pipeline *make_pipeline(const options *opt, wave_diags *diags) {
  if (opt->analyze) {
    char *text = analyze_pipeline(opt->analyze);
    wave_pipeline *p = text ? wave_pipeline_parse(opt->registry, text, diags) : NULL;
    free(text);
    return p;
  }
  const char *text = opt->passes ? opt->passes : wave_pipeline_for_level((unsigned)opt->level);
  return wave_pipeline_parse(opt->registry, text, diags);
}

/* What -analyze prints, held until the run is over so that the output file is written whole
 * or not at all. */
typedef struct text_buf {
  char *data;
  size_t len, cap;
  bool failed;
} text_buf;

static int append_text(void *ctx, const char *data, size_t len) {
  text_buf *b = ctx;
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + len)
      cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
      b->failed = true;
      return -1;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return 0;
}

static int emit_text(FILE *out, void *ctx) {
  const text_buf *b = ctx;
  return fwrite(b->data, 1, b->len, out) == b->len ? 0 : -1;
}

static void init_diags(wave_diags *diags, const options *opt) {
  wave_diags_init(diags);
  diags->warnings_as_errors = opt->werror;
  diags->ignore_warnings = opt->no_warnings;
}

/* Reads -profile-use's file; NULL after reporting why in diags (or out of memory). A profile
 * of none of the input's kernels is an error: it was taken on other code. */
static wave_profile *read_profile(const char *path, const wave_module *module, wave_diags *diags) {
  size_t len = 0;
  char *text = tool_read_input("waveopt", path, &len);
  if (!text)
    return NULL;
  wave_profile *p = wave_profile_parse(text, len, path, diags);
  free(text);
  bool any = false;
  for (const wave_kernel *k = wave_module_first_kernel(module); p && k && !any;
       k = wave_kernel_next(k))
    any = wave_profile_find_kernel(p, wave_kernel_name(k)) != NULL;
  if (p && !any) {
    const wave_profile_kernel *k = wave_profile_kernel_at(p, 0);
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){path, 0, 0}, NULL, 0,
                     "profile of %s%s%s, which the input does not have",
                     k ? "kernel '" : "no kernel", k ? wave_profile_kernel_name(k) : "",
                     k ? "'" : "");
    wave_profile_destroy(p);
    p = NULL;
  }
  if (!p && !wave_diags_has_errors(diags))
    fprintf(stderr, "waveopt: error: out of memory\n");
  return p;
}

static int run_tool(options *opt) {
  wave_diags diags;
  init_diags(&diags, opt);

  wave_pipeline *pipeline = make_pipeline(opt, &diags);
  if (!pipeline) {
    tool_print_diags(&diags, opt->diag_format);
    if (!opt->passes && !opt->analyze)
      fprintf(stderr, "waveopt: note: that is the -O%d pipeline\n", opt->level);
    wave_diags_free(&diags);
    return 2;
  }
  if (opt->print_pipeline) {
    char *text = wave_pipeline_print(pipeline);
    if (text)
      puts(text);
    free(text);
    wave_pipeline_destroy(pipeline);
    return text ? 0 : 1;
  }

  wave_module *module = tool_parse_input("waveopt", opt->input, &diags);
  bool ok = module && wave_verify_module(module, &diags);
  wave_profile *profile = NULL;
  if (ok && opt->profile_use) {
    ok = (profile = read_profile(opt->profile_use, module, &diags)) != NULL;
    opt->run.profile = profile;
  }
  wave_profile *dot_profile = NULL;
  if (ok && opt->dot.profile)
    ok = (dot_profile = read_profile(opt->dot.profile, module, &diags)) != NULL;
  /* The input's diagnostics come before anything the pipeline prints. */
  tool_print_diags(&diags, opt->diag_format);
  wave_diags run_diags;
  init_diags(&run_diags, opt);
  text_buf analyses = {0};
  if (opt->analyze) {
    opt->run.print_write = append_text;
    opt->run.print_ctx = &analyses;
  }
  wave_dot_options dot_options;
  wave_dot_options_init(&dot_options);
  dot_options.assume_divergent = opt->run.assume_divergent;
  /* The graphs take -profile's profile, else -profile-use's. */
  const char *dot_profile_path = opt->dot.profile ? opt->dot.profile : opt->profile_use;
  ok = ok && dot_snapshot(&opt->dot, module, &dot_options, dot_profile ? dot_profile : profile,
                          dot_profile_path, &run_diags);
  ok = ok && optimize(opt, pipeline, module, &run_diags);
  /* A -passes pipeline need not end in legalize; the assembler's dialect still needs the
   * documentation forms lowered, and after legalize none are left. */
  if (ok && !opt->analyze && opt->print.dialect == WAVE_DIALECT_ASM)
    ok = wave_lower_docs_dialect(module, &run_diags);
  if (ok && !opt->analyze && opt->shrink_registers)
    wave_foreach_kernel(k, module) wave_kernel_shrink_registers(k);
  /* What an analysis printed explains the errors it diagnosed (a divergent barrier): it is
   * written even though they fail the run. */
  bool print_analyses = ok && opt->analyze;
  /* -Werror: a warning recorded as an error fails the run even if the pass itself succeeded. */
  ok = ok && !wave_diags_has_errors(&run_diags);
  tool_print_diags(&run_diags, opt->diag_format);
  if (ok)
    ok = dot_finish(&opt->dot, module, &dot_options, opt->output);
  if (print_analyses) {
    ok = !analyses.failed &&
         tool_write_output("waveopt", opt->output, emit_text, &analyses) == 0 && ok;
  } else if (ok) {
    emit_ctx ctx = {module, &opt->print};
    ok = tool_write_output("waveopt", opt->output, emit_module, &ctx) == 0;
  }
  free(analyses.data);
  dot_request_free(&opt->dot);
  wave_pipeline_destroy(pipeline);
  wave_module_destroy(module);
  wave_profile_destroy(dot_profile);
  wave_profile_destroy(profile);
  wave_diags_free(&run_diags);
  wave_diags_free(&diags);
  return ok ? 0 : 1;
}

/* A pipeline frees and allocates its largest blocks over and over: every analysis computed
 * afresh after a change (liveness sets, layouts, indexes of several megabytes on a large
 * kernel) and the code itself, copied into a new arena when the pass manager compacts it.
 * glibc hands blocks above its mmap threshold back to the kernel on free and the top of its
 * heap once 128 KiB lie free there, so each new block costs a page fault and a zeroed page
 * per 4 KiB. The largest threshold mallopt takes (32 MiB) and no trimming keep freed memory
 * for the next block: on the 1M-instruction kernel of `make bench`, -O2's system time falls
 * from 0.4 to 0.25 s (BENCHMARKS.md). The peak stays the same; the process exits after one
 * module. */
static void keep_freed_memory(void) {
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOPT)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

/* Loads every -load-pass-plugin before the other flags are read: -passes, -print-before and
 * -NAME=VALUE may name what a plugin adds. Returns -1 to go on, or the exit status. */
static int load_plugins(wave_pass_registry *registry, int argc, char **argv) {
  wave_diags diags;
  wave_diags_init(&diags);
  int status = -1;
  for (int i = 1; i < argc && status < 0; i++) {
    const char *v = tool_option_arg(argc, argv, &i, "load-pass-plugin", "");
    if (v && *v && !wave_pass_registry_load_plugin(registry, v, &diags))
      status = 1;
  }
  tool_print_diags(&diags, TOOL_DIAGS_TEXT);
  wave_diags_free(&diags);
  return status;
}

int main(int argc, char **argv) {
  keep_freed_memory();
  wave_pass_registry *registry = wave_pass_registry_create();
  if (!registry) {
    fprintf(stderr, "waveopt: error: out of memory\n");
    return 1;
  }
  options opt = {.registry = registry, .level = -1};
  int status = load_plugins(registry, argc, argv);
  if (status < 0)
    status = parse_args(argc, argv, &opt);
  if (status < 0 && opt.list_passes)
    list_passes(registry);
  if (status < 0 && opt.list_targets)
    list_targets();
  if (status < 0 && (opt.list_passes || opt.list_targets))
    status = 0;
  if (status < 0)
    status = run_tool(&opt);
  for (int kind = 0; kind < NUM_REMARK_KINDS; kind++)
    if (opt.has_remarks[kind])
      regfree(&opt.remarks[kind]);
  free(opt.option_values);
  wave_pass_registry_destroy(registry);
  return status;
}
