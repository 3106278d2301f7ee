/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wave-difftest: generates kernels with wavegen and checks transformations on them with the
 * differential harness; reduces each failure to a small kernel. The last line of output is
 * always "N passed, M failed" (CI reads it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"

static const char usage[] =
    "usage: wave-difftest [--seeds N] [--first-seed S] [--transform NAME] [--size N]\n"
    "                     [--no-reduce] [--quiet]\n"
    "\n"
    "Generates N kernels (seeds S .. S+N-1) and, for each transformation, runs every kernel and\n"
    "its transformation in the reference interpreter at W = 8, 32 and 64 on the same random\n"
    "inputs, comparing device memory, finished lanes and errors.\n"
    "\n"
    "transformations (NAME):\n"
    "  identity         print in the assembler's dialect and parse again\n"
    "  lower-docs       kernels with documentation-dialect forms, lowered, printed, parsed\n"
    "  thread-vs-simt   kernels without wave operations, SIMT against per-thread execution\n"
    "  default          identity and lower-docs (when --transform is not given)\n"
    "  all              all three\n"
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

enum { MAX_REDUCED = 5 };

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

typedef struct options {
  uint64_t seeds, first_seed;
  unsigned size;
  bool selected[NUM_TRANSFORMS];
  unsigned num_selected;
  bool reduce, quiet;
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

static bool select_transforms(options *opt, const char *name) {
  bool all = strcmp(name, "all") == 0, deflt = strcmp(name, "default") == 0;
  bool found = false;
  for (unsigned i = 0; i < NUM_TRANSFORMS; i++) {
    if (all || (deflt && !transforms[i].per_thread) || strcmp(name, transforms[i].name) == 0) {
      opt->selected[i] = true;
      found = true;
    }
  }
  return found;
}

/* Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, options *opt) {
  opt->seeds = 100;
  opt->reduce = true;
  const char *names = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--quiet") == 0) {
      opt->quiet = true;
    } else if (strcmp(a, "--no-reduce") == 0) {
      opt->reduce = false;
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
    } else if (strcmp(a, "--transform") == 0) {
      if (!v)
        return usage_error("expected a name after", a);
      names = v;
      i++;
      if (!select_transforms(opt, v))
        return usage_error("unknown transformation", v);
    } else {
      return usage_error("unknown argument", a);
    }
  }
  if (!names)
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

/* Runs one (seed, transformation) pair; true when it passes. */
static bool run_one(const options *opt, uint64_t seed, unsigned t, unsigned *reduced,
                    bool *seed_file_used) {
  const transform *tr = &transforms[t];
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
    printf("seed %" PRIu64 " %s: FAIL: cannot generate or print the kernel\n", seed, tr->name);
    return false;
  }

  wave_difftest test;
  wave_difftest_init(&test, &launch);
  test.transform = tr->fn;
  test.input_seed = seed * NUM_TRANSFORMS + t;
  if (tr->per_thread)
    test.transformed_mode = WAVE_MODE_THREAD;
  wave_diff_report report;
  bool pass = wave_difftest_run(&test, text, len, &report) == WAVE_DIFF_PASS;
  if (!pass) {
    printf("seed %" PRIu64 " %s: FAIL: %s\n", seed, tr->name, report.message);
    if (opt->reduce && *reduced < MAX_REDUCED) {
      char path[96], *header = reduced_header(seed, tr->name, report.message, &gopt, &launch);
      if (*seed_file_used)
        snprintf(path, sizeof(path), "difftest-seed-%" PRIu64 "-%s-reduced.wave", seed,
                 tr->name);
      else
        snprintf(path, sizeof(path), "difftest-seed-%" PRIu64 "-reduced.wave", seed);
      *seed_file_used = true;
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
  options opt = {0};
  int status = parse_args(argc, argv, &opt);
  if (status >= 0)
    return status;
  uint64_t failed_by[NUM_TRANSFORMS] = {0}, passed = 0, failed = 0;
  unsigned reduced = 0;
  for (uint64_t s = 0; s < opt.seeds; s++) {
    bool seed_file_used = false;
    for (unsigned t = 0; t < NUM_TRANSFORMS; t++) {
      if (!opt.selected[t])
        continue;
      if (run_one(&opt, opt.first_seed + s, t, &reduced, &seed_file_used)) {
        passed++;
      } else {
        failed++;
        failed_by[t]++;
      }
    }
  }
  for (unsigned t = 0; t < NUM_TRANSFORMS && !opt.quiet; t++)
    if (opt.selected[t])
      printf("%s: %" PRIu64 " of %" PRIu64 " seeds passed\n", transforms[t].name,
             opt.seeds - failed_by[t], opt.seeds);
  printf("%" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
  return failed ? 1 : 0;
}
