/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wave-difftest: generates kernels with wavegen and checks transformations on them with the
 * differential harness; reduces each failure to a small kernel. The last line of output is
 * always "N passed, M failed" (CI reads it).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"

static const char usage[] =
    "usage: wave-difftest [--seeds N] [--first-seed S] [--size N] [--transform NAME]\n"
    "                     [--passes PIPELINE]... [--all-passes] [--levels] [--docs-dialect]\n"
    "                     [--test-pass NAME]... [--target NAME] [--max-registers N]\n"
    "                     [--no-reduce] [--quiet]\n"
    "\n"
    "Generates N kernels (seeds S .. S+N-1) and, for each transformation, runs every kernel and\n"
    "its transformation in the reference interpreter at W = 8, 32 and 64 on the same random\n"
    "inputs, comparing device memory, finished lanes and errors. A pipeline must also add no\n"
    "construct the target runs wrongly (the legalize report's, wave operations and barriers\n"
    "where the wave is not converged, wave operations issued with lanes parked).\n"
    "\n"
    "transformations (NAME):\n"
    "  identity         print in the assembler's dialect and parse again\n"
    "  lower-docs       kernels with documentation-dialect forms, lowered, printed, parsed\n"
    "  thread-vs-simt   kernels without wave operations, SIMT against per-thread execution\n"
    "  default          identity and lower-docs (when neither --transform nor a pipeline is\n"
    "                   given)\n"
    "  all              all three\n"
    "\n"
    "pipelines (run with verify-each: a pass that breaks the IR fails at that pass):\n"
    "  --passes PIPELINE  one pipeline, in waveopt's -passes= syntax (\"simplify-cfg\",\n"
    "                   \"fixpoint(simplify-cfg),legalize\"), or -O0 .. -O3; give it again for\n"
    "                   another pipeline (commas belong to the pipeline)\n"
    "  --all-passes     every registered pass alone, followed by legalize when it is registered\n"
    "  --levels         -O0 .. -O3; a level naming an unregistered pass is skipped with a note\n"
    "  --target NAME    the target profile the pipelines write for (default portable)\n"
    "  --max-registers N  .registers a pass may grow a kernel to for its scratch (waveopt\n"
    "                   -max-registers; default 0: no growth). Legalize needs some for\n"
    "                   continue and halt inside regions on wave-emu and portable\n"
    "  --docs-dialect   pipelines get kernels with documentation-dialect forms (what legalize\n"
    "                   lowers) instead of assembler-dialect ones\n"
    "  --test-pass NAME register one of the harness's own test passes first:\n"
    "%s"
    "  Each pipeline's summary line says on how many kernels it fired (changed something)\n"
    "  and, for a pipeline of several passes, on how many each pass did: \"-O1: 600 of 600\n"
    "  seeds passed, fired on 167 (lint 0, simplify-cfg 167, legalize 0)\"; where legalize\n"
    "  met halts or returns inside regions, how many it rewrote into flags and kept.\n"
    "\n"
    "options:\n"
    "  --seeds N        how many kernels (default 100)\n"
    "  --first-seed S   the first seed (default 0)\n"
    "  --size N         approximate instructions per kernel (default: the generator's)\n"
    "  --no-reduce      do not reduce failures (by default the first 5 are reduced and written\n"
    "                   to difftest-seed-S-reduced.wave in the current directory)\n"
    "  --quiet          print failures and the final line only\n"
    "\n"
    "The last line is \"N passed, M failed\"; exit status 0 when M = 0, 1 otherwise, 2 on a\n"
    "usage error.\n";

enum { MAX_REDUCED = 5, MAX_JOBS = 256 };

typedef struct transform {
  const char *name;
  wave_transform_fn fn;
  bool docs_dialect;   /* kernels carry documentation-dialect forms */
  bool per_thread;     /* the transformed side runs in THREAD mode: no wave ops, no observed
                        * atomic results (their order differs between the modes) */
} transform;

static const transform transforms[] = {
    {"identity", wave_transform_identity, false, false},
    {"lower-docs", wave_transform_lower_docs, true, false},
    {"thread-vs-simt", wave_transform_identity, false, true},
};
enum { NUM_TRANSFORMS = sizeof(transforms) / sizeof(transforms[0]) };

static const transform pipeline_transform = {NULL, wave_transform_pipeline, false, false};
/* Pipelines on kernels with documentation-dialect forms: what legalize lowers. */
static const transform pipeline_docs_transform = {NULL, wave_transform_pipeline, true, false};

/* One transformation under test with its tallies: a fixed transform, or a pipeline. */
typedef struct job {
  const transform *tr;
  char *name;                      /* the transform's or the pipeline's text */
  wave_pipeline *pipeline;         /* NULL for a fixed transform */
  wave_difftest_pipeline ctx;
  uint64_t failed, fired;
  /* Per pass of the pipeline: on how many kernels it changed something. */
  unsigned num_passes;
  const char *passes[WAVE_DIFF_MAX_PASSES];
  uint64_t pass_fired[WAVE_DIFF_MAX_PASSES];
  uint64_t exits_rewritten, exits_kept;   /* legalize's, summed over the kernels */
} job;

typedef struct options {
  bool docs_dialect;   /* pipelines get kernels with documentation-dialect forms */
  const wave_target *target;   /* --target: NULL for portable */
  uint32_t max_registers;      /* --max-registers: 0, no growth */
  uint64_t seeds, first_seed;
  unsigned size;
  bool reduce, quiet;
  wave_pass_registry *registry;
  job jobs[MAX_JOBS];
  unsigned num_jobs;
} options;

static int usage_error(const char *what, const char *arg) {
  fprintf(stderr, "wave-difftest: error: %s '%s'\nTry 'wave-difftest --help'.\n", what, arg);
  return 2;
}

static bool parse_number(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s || *s == '-')
    return false;
  *out = strtoull(s, &end, 10);
  return *end == '\0';
}

static int print_usage(void) {
  size_t cap = 1;
  for (size_t i = 0; wave_test_pass_at(i); i++)
    cap += strlen(wave_test_pass_at(i)->name) + strlen(wave_test_pass_at(i)->help) + 48;
  char *list = malloc(cap);
  if (!list)
    return 1;
  size_t len = 0;
  list[0] = '\0';
  for (size_t i = 0; wave_test_pass_at(i); i++)
    len += (size_t)snprintf(list + len, cap - len, "                     %-18s %s\n",
                            wave_test_pass_at(i)->name, wave_test_pass_at(i)->help);
  printf(usage, list);
  free(list);
  return 0;
}

static bool add_job(options *opt, const transform *tr, const char *name, wave_pipeline *p) {
  char *copy = strdup(name);
  if (opt->num_jobs == MAX_JOBS || !copy) {
    free(copy);
    wave_pipeline_destroy(p);
    return false;
  }
  job *j = &opt->jobs[opt->num_jobs++];
  memset(j, 0, sizeof(*j));
  j->tr = tr;
  j->name = copy;
  j->pipeline = p;
  j->ctx.pipeline = p;
  j->ctx.target = opt->target;
  j->ctx.max_registers = opt->max_registers;
  return true;
}

static bool select_transforms(options *opt, const char *name) {
  bool all = strcmp(name, "all") == 0, deflt = strcmp(name, "default") == 0;
  bool found = false;
  for (unsigned i = 0; i < NUM_TRANSFORMS; i++) {
    if (all || (deflt && !transforms[i].per_thread) || strcmp(name, transforms[i].name) == 0) {
      found = true;
      bool dup = false;
      for (unsigned j = 0; j < opt->num_jobs; j++)
        dup |= opt->jobs[j].tr == &transforms[i];
      if (!dup && !add_job(opt, &transforms[i], transforms[i].name, NULL))
        return false;
    }
  }
  return found;
}

/* Returns 0 when the pipeline joined the jobs, else the exit status after saying why. `name`
 * is what the summary line calls it (an -O level keeps its name). */
static int add_pipeline(options *opt, const char *name, const char *text) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *p = wave_pipeline_parse(opt->registry, text, &diags);
  for (size_t i = 0; !p && i < diags.count; i++) {
    char *line = wave_diag_format_text(&diags.items[i], false);
    fprintf(stderr, "wave-difftest: %s\n", line ? line : diags.items[i].message);
    free(line);
  }
  wave_diags_free(&diags);
  if (!p)
    return usage_error("cannot parse the pipeline", text);
  if (!add_job(opt, opt->docs_dialect ? &pipeline_docs_transform : &pipeline_transform, name, p))
    return usage_error("too many pipelines (or out of memory) at", name);
  return 0;
}

/* The first pass a pipeline text names that the registry lacks, copied into `out`; empty when
 * there is none. Reads the grammar of wave_pipeline_parse only as far as names go: the word
 * before '(' or '<' is a combinator, and an analysis in <...> is not a pass. */
static void find_missing_pass(const wave_pass_registry *registry, const char *text, char *out,
                              size_t cap) {
  out[0] = '\0';
  for (const char *c = text; *c;) {
    if (*c == '<') {
      c += strcspn(c, ">");
      c += *c != '\0';
      continue;
    }
    size_t n = strcspn(c, ",()<>");
    if (n == 0) {
      c++;
      continue;
    }
    if (c[n] != '(' && c[n] != '<' && n < cap) {
      memcpy(out, c, n);
      out[n] = '\0';
      if (!wave_pass_registry_find_pass(registry, out))
        return;
      out[0] = '\0';
    }
    c += n;
  }
}

/* -O<level>, or a note that it is skipped while it names an unregistered pass: the levels
 * name passes that other work registers, and they must run from the day it does. */
static int add_level(options *opt, unsigned level) {
  const char *text = wave_pipeline_for_level(level);
  char name[8], missing[128];
  snprintf(name, sizeof(name), "-O%u", level);
  find_missing_pass(opt->registry, text, missing, sizeof(missing));
  if (missing[0]) {
    fprintf(stderr, "wave-difftest: note: %s (%s) skipped: pass '%s' is not registered\n", name,
            text, missing);
    return 0;
  }
  return add_pipeline(opt, name, text);
}

static int add_all_passes(options *opt) {
  bool legalize = wave_pass_registry_find_pass(opt->registry, "legalize") != NULL;
  for (size_t i = 0; wave_pass_registry_pass_at(opt->registry, i); i++) {
    const char *pass = wave_pass_registry_pass_at(opt->registry, i)->name;
    char text[256];
    snprintf(text, sizeof(text), "%s%s", pass,
             legalize && strcmp(pass, "legalize") != 0 ? ",legalize" : "");
    int status = add_pipeline(opt, text, text);
    if (status)
      return status;
  }
  return 0;
}

/* A pipeline argument: -O0 .. -O3 or pipeline text. */
static int add_passes_arg(options *opt, const char *arg) {
  unsigned level = 0;
  char end = '\0';
  if (arg[0] == '-' && sscanf(arg, "-O%u%c", &level, &end) == 1 && wave_pipeline_for_level(level))
    return add_level(opt, level);
  return add_pipeline(opt, arg, arg);
}

/* Returns -1 to go on, or the exit status. Pipelines are parsed once every test pass is
 * registered, whatever the order of the arguments. */
static int parse_args(int argc, char **argv, options *opt) {
  opt->seeds = 100;
  opt->reduce = true;
  const char *pipelines[MAX_JOBS];
  unsigned num_pipelines = 0;
  bool all_passes = false, levels = false, transform_given = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      return print_usage();
    } else if (strcmp(a, "--quiet") == 0) {
      opt->quiet = true;
    } else if (strcmp(a, "--no-reduce") == 0) {
      opt->reduce = false;
    } else if (strcmp(a, "--all-passes") == 0) {
      all_passes = true;
    } else if (strcmp(a, "--levels") == 0) {
      levels = true;
    } else if (strcmp(a, "--docs-dialect") == 0) {
      opt->docs_dialect = true;
    } else if (strcmp(a, "--seeds") == 0 || strcmp(a, "--first-seed") == 0 ||
               strcmp(a, "--size") == 0) {
      if (!parse_number(v, &n))
        return usage_error("expected a number after", a);
      i++;
      if (strcmp(a, "--seeds") == 0)
        opt->seeds = n;
      else if (strcmp(a, "--first-seed") == 0)
        opt->first_seed = n;
      else if (n == 0 || n > 100000)
        return usage_error("size out of range (1..100000):", v);
      else
        opt->size = (unsigned)n;
    } else if (strcmp(a, "--max-registers") == 0) {
      if (!parse_number(v, &n) || n > WAVE_MAX_GPR + 1)
        return usage_error("expected a register count (0..255) after", a);
      opt->max_registers = (uint32_t)n;
      i++;
    } else if (strcmp(a, "--target") == 0) {
      opt->target = v ? wave_target_lookup(v) : NULL;
      if (!opt->target)
        return usage_error("unknown target", v ? v : "(none)");
      i++;
    } else if (strcmp(a, "--transform") == 0 || strcmp(a, "--passes") == 0 ||
               strcmp(a, "--test-pass") == 0) {
      if (!v)
        return usage_error("expected an argument after", a);
      i++;
      if (strcmp(a, "--transform") == 0) {
        transform_given = true;
        if (!select_transforms(opt, v))
          return usage_error("unknown transformation", v);
      } else if (strcmp(a, "--passes") == 0) {
        if (num_pipelines == MAX_JOBS)
          return usage_error("too many pipelines at", v);
        pipelines[num_pipelines++] = v;
      } else {
        wave_diags diags;
        wave_diags_init(&diags);
        const wave_pass_info *info = wave_test_pass_find(v);
        bool added = info && wave_pass_registry_add_pass(opt->registry, info, &diags);
        wave_diags_free(&diags);
        if (!added)
          return usage_error("unknown or already registered test pass", v);
      }
    } else {
      return usage_error("unknown argument", a);
    }
  }
  int status = 0;
  for (unsigned i = 0; !status && i < num_pipelines; i++)
    status = add_passes_arg(opt, pipelines[i]);
  if (!status && all_passes)
    status = add_all_passes(opt);
  for (unsigned level = 0; !status && levels && wave_pipeline_for_level(level); level++)
    status = add_level(opt, level);
  if (status)
    return status;
  if (!transform_given && !num_pipelines && !all_passes && !levels)
    select_transforms(opt, "default");
  return -1;
}

/* The header of a reduced kernel: what failed, as comment lines, then the launch. */
static char *reduced_header(uint64_t seed, const char *transform_name, const char *failure,
                            const wave_gen_options *gopt, const wave_gen_launch *launch) {
  char *launch_text = wave_gen_describe(gopt, launch);
  size_t cap = strlen(failure) * 3 + (launch_text ? strlen(launch_text) : 0) + 256;
  char *h = launch_text ? malloc(cap) : NULL;
  if (h) {
    int n = snprintf(h, cap, "; reduced by wave-difftest: seed %" PRIu64 ", transform %s\n; ",
                     seed, transform_name);
    size_t len = n > 0 ? (size_t)n : 0;
    for (const char *c = failure; *c; c++) {
      h[len++] = *c;
      if (*c == '\n') {
        h[len++] = ';';
        h[len++] = ' ';
      }
    }
    snprintf(h + len, cap - len, "\n%s", launch_text);
  }
  free(launch_text);
  return h;
}

/* difftest-seed-S-reduced.wave for a seed's first failure, then with the transformation's
 * name in it, spelled with file-name characters only. */
static void reduced_path(char *path, size_t cap, uint64_t seed, const char *name,
                         bool *seed_file_used) {
  if (!*seed_file_used) {
    snprintf(path, cap, "difftest-seed-%" PRIu64 "-reduced.wave", seed);
    *seed_file_used = true;
    return;
  }
  int n = snprintf(path, cap, "difftest-seed-%" PRIu64 "-", seed);
  size_t len = n > 0 ? (size_t)n : 0;
  for (const char *c = name; *c && len + 16 < cap; c++)
    path[len++] = isalnum((unsigned char)*c) || *c == '-' ? *c : '_';
  snprintf(path + len, cap - len, "-reduced.wave");
}

/* Adds the last run's firing per pass to the job's counts. */
static void tally_passes(job *jb) {
  for (unsigned i = 0; i < jb->ctx.num_passes; i++) {
    unsigned k = 0;
    while (k < jb->num_passes && strcmp(jb->passes[k], jb->ctx.passes[i]) != 0)
      k++;
    if (k == jb->num_passes)
      jb->passes[jb->num_passes++] = jb->ctx.passes[i];
    jb->pass_fired[k] += jb->ctx.pass_changed[i];
  }
  jb->exits_rewritten += jb->ctx.exits_rewritten;
  jb->exits_kept += jb->ctx.exits_kept;
}

/* Runs one (seed, job) pair; true when it passes. */
static bool run_one(const options *opt, uint64_t seed, job *jb, uint64_t input_seed,
                    unsigned *reduced, bool *seed_file_used) {
  const transform *tr = jb->tr;
  wave_gen_options gopt;
  wave_gen_options_init(&gopt);
  gopt.seed = seed;
  if (opt->size)
    gopt.size = opt->size;
  gopt.docs_dialect = tr->docs_dialect;
  if (tr->per_thread) {
    gopt.wave_ops = false;
    gopt.atomic_returns = false;
  }
  wave_gen_launch launch;
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_generate(&gopt, &launch, &diags);
  wave_diags_free(&diags);
  wave_print_options po = {0};
  po.dialect = tr->docs_dialect ? WAVE_DIALECT_DOCS : WAVE_DIALECT_ASM;
  size_t len = 0;
  char *text = m ? wave_print_to_string(m, &po, &len) : NULL;
  wave_module_destroy(m);
  if (!text) {
    printf("seed %" PRIu64 " %s: FAIL: cannot generate or print the kernel\n", seed, jb->name);
    return false;
  }

  wave_difftest test;
  wave_difftest_init(&test, &launch);
  test.transform = tr->fn;
  test.transform_ctx = &jb->ctx;
  test.input_seed = input_seed;
  if (tr->per_thread)
    test.transformed_mode = WAVE_MODE_THREAD;
  if (jb->pipeline)
    test.hazard_target = opt->target ? opt->target : wave_target_default();
  wave_diff_report report;
  jb->ctx.changed = false;
  bool pass = wave_difftest_run(&test, text, len, &report) == WAVE_DIFF_PASS;
  jb->fired += jb->ctx.changed;
  tally_passes(jb);
  if (!pass) {
    printf("seed %" PRIu64 " %s: FAIL: %s\n", seed, jb->name, report.message);
    if (opt->reduce && *reduced < MAX_REDUCED) {
      char path[160], *header = reduced_header(seed, jb->name, report.message, &gopt, &launch);
      reduced_path(path, sizeof(path), seed, jb->name, seed_file_used);
      (*reduced)++;
      fflush(stdout);
      wave_reduce_to_file(&test, text, len, header, path, stdout);
      free(header);
    }
  }
  free(text);
  return pass;
}

int main(int argc, char **argv) {
  static options opt;
  opt.registry = wave_pass_registry_create();
  if (!opt.registry) {
    fprintf(stderr, "wave-difftest: error: out of memory\n");
    return 2;
  }
  int status = parse_args(argc, argv, &opt);
  uint64_t passed = 0, failed = 0;
  unsigned reduced = 0;
  for (uint64_t s = 0; status < 0 && s < opt.seeds; s++) {
    bool seed_file_used = false;
    for (unsigned j = 0; j < opt.num_jobs; j++) {
      uint64_t seed = opt.first_seed + s;
      if (run_one(&opt, seed, &opt.jobs[j], seed * opt.num_jobs + j, &reduced, &seed_file_used)) {
        passed++;
      } else {
        failed++;
        opt.jobs[j].failed++;
      }
    }
  }
  for (unsigned j = 0; status < 0 && j < opt.num_jobs && !opt.quiet; j++) {
    const job *jb = &opt.jobs[j];
    printf("%s: %" PRIu64 " of %" PRIu64 " seeds passed", jb->name, opt.seeds - jb->failed,
           opt.seeds);
    if (jb->pipeline)
      printf(", fired on %" PRIu64, jb->fired);
    for (unsigned k = 0; jb->num_passes > 1 && k < jb->num_passes; k++)
      printf("%s%s %" PRIu64, k ? ", " : " (", jb->passes[k], jb->pass_fired[k]);
    printf("%s", jb->num_passes > 1 ? ")" : "");
    if (jb->exits_rewritten + jb->exits_kept)
      printf("; halts and returns in regions: %" PRIu64 " rewritten, %" PRIu64 " kept",
             jb->exits_rewritten, jb->exits_kept);
    printf("\n");
  }
  if (status < 0) {
    printf("%" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
    status = failed ? 1 : 0;
  }
  for (unsigned j = 0; j < opt.num_jobs; j++) {
    wave_pipeline_destroy(opt.jobs[j].pipeline);
    free(opt.jobs[j].name);
  }
  wave_pass_registry_destroy(opt.registry);
  return status;
}
