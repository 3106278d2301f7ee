/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make bench: what the optimizer saves at run time, on the kernel corpus of tests/bench/kernels
 * (bench_kernels.h). Every kernel is compiled at -O0, at -O2 and at -O2 with a divergence
 * profile (waveopt -profile-use) through the library's pipelines (verify-each on), and
 * optionally through a pipeline given with --passes, so that passes can be measured one at a
 * time; each result runs in the reference interpreter and its device memory is checked against
 * the C reference (a mismatch is an error: exit status 1). The profile is taken by running the
 * kernel as written on other inputs than the measured run (bench_kernels.h: salt PROFILE_SALT),
 * as a profile from a training run would be.
 *
 * Per kernel it prints wave-instructions issued, SIMD efficiency (active lanes / (issued * W)),
 * the deepest divergence stack and the static instruction count (the flattened program, if,
 * else, endif, loop and endloop included, as the interpreter issues them), then the geometric
 * means of the ratios to -O0, over all kernels and over the kernels with small divergent ifs,
 * and whether the targets hold: at least 25% fewer issued wave-instructions (geometric
 * mean) in that group, no kernel more than 1% worse, depth never higher. The counts are exact
 * and do not depend on the machine.
 *
 * The upstream emulator counts differently: it walks both sides of every if and the rest of a
 * loop body after the last lane left, with an empty mask. wave-emu itself is not available
 * here, so its count is modelled by the interpreter (wave_counters.emu_walked: the code it
 * jumps over, each instruction once) and printed as a ratio to -O0 per kernel; the target is
 * that it falls on every kernel with small divergent ifs.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_kernels.h"

#ifndef WAVE_SRCDIR
#define WAVE_SRCDIR "."
#endif

enum { MAX_CONFIGS = 4, MAX_COLS = 30, CELL = 40, LEFT_COLS = 2, PROFILE_SALT = 100 };

typedef struct config {
  const char *label;     /* column heading: -O0, -O2, -O2+prof, or "P" for --passes */
  const char *pipeline;
  bool profiled;         /* with a profile of the kernel on the inputs of PROFILE_SALT */
} config;

typedef struct options {
  const char *dir;
  uint32_t width;
  uint32_t max_registers;
  bool markdown;
  bool check_targets;
  const char **only;     /* --kernel names, or none: all */
  size_t num_only;
  config configs[MAX_CONFIGS];
  size_t num_configs;
} options;

/* ---- a table of text cells, printed aligned or as Markdown ----------------------------------- */

typedef struct table {
  char (*cells)[MAX_COLS][CELL];
  size_t rows, cols, capacity;
} table;

static void set(table *t, size_t row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set(table *t, size_t row, size_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->cells[row][col], CELL, fmt, ap);
  va_end(ap);
  if (col + 1 > t->cols)
    t->cols = col + 1;
}

static bool add_row(table *t) {
  if (t->rows == t->capacity) {
    size_t cap = t->capacity ? 2 * t->capacity : 32;
    void *grown = realloc(t->cells, cap * sizeof *t->cells);
    if (!grown)
      return false;
    t->cells = grown;
    t->capacity = cap;
  }
  memset(t->cells[t->rows], 0, sizeof t->cells[t->rows]);
  t->rows++;
  return true;
}

/* Row 0 is the heading; the first LEFT_COLS columns are words, left-aligned, the others
 * numbers, right-aligned. Text: columns padded to their widest cell. Markdown: a pipe table. */
static void print_table(const table *t, bool markdown) {
  size_t width[MAX_COLS] = {0};
  for (size_t r = 0; r < t->rows; r++)
    for (size_t c = 0; c < t->cols; c++)
      if (strlen(t->cells[r][c]) > width[c])
        width[c] = strlen(t->cells[r][c]);
  for (size_t r = 0; r < t->rows; r++) {
    for (size_t c = 0; c < t->cols; c++) {
      int w = (int)width[c];
      if (markdown)
        printf("| %s ", t->cells[r][c]);
      else
        printf(c < LEFT_COLS ? "%s%-*s" : "%s%*s", c ? "  " : "", w, t->cells[r][c]);
    }
    printf(markdown ? "|\n" : "\n");
    if (markdown && r == 0) {
      for (size_t c = 0; c < t->cols; c++)
        printf("|%s", c < LEFT_COLS ? "---" : "---:");
      printf("|\n");
    }
  }
}

/* ---- measuring ------------------------------------------------------------------------------- */

static void print_diags(const wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    char *s = wave_diag_format_text(&diags->items[i], false);
    fprintf(stderr, "%s\n", s ? s : "(out of memory)");
    free(s);
  }
}

/* The profile of k as written, run on the inputs of PROFILE_SALT; NULL when that failed. */
static wave_profile *take_profile(const wave_pass_registry *registry, const options *o,
                                  const bk_kernel *k, const char *path, wave_diags *diags) {
  wave_module *m = bk_compile(registry, path, NULL, 0, NULL, diags);
  char *json = m ? bk_profile(k, wave_module_first_kernel(m), o->width, PROFILE_SALT, path) : NULL;
  wave_profile *p = json ? wave_profile_parse(json, strlen(json), "bench.prof", diags) : NULL;
  free(json);
  wave_module_destroy(m);
  return p;
}

/* Compiles k through one configuration and runs it; false after saying why on stderr. */
static bool measure(const wave_pass_registry *registry, const options *o, const bk_kernel *k,
                    const config *c, bk_measure *out) {
  char *path = bk_path(o->dir, k);
  if (!path)
    return false;
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_profile *profile = NULL;
  if (c->profiled && !(profile = take_profile(registry, o, k, path, &diags))) {
    fprintf(stderr, "bench_opt: %s: no profile:\n", k->name);
    print_diags(&diags);
    wave_diags_free(&diags);
    free(path);
    return false;
  }
  wave_module *m = bk_compile(registry, path, c->pipeline, o->max_registers, profile, &diags);
  bool ok = false;
  if (!m) {
    fprintf(stderr, "bench_opt: %s at %s (%s) does not compile:\n", k->name, c->label, c->pipeline);
    print_diags(&diags);
  } else {
    char why[512];
    ok = bk_run(k, wave_module_first_kernel(m), o->width, out, why, sizeof why);
    if (!ok)
      fprintf(stderr, "bench_opt: %s at %s (%s), wave width %u: %s\n", k->name, c->label,
              c->pipeline, o->width, why);
  }
  wave_module_destroy(m);
  wave_profile_destroy(profile);
  wave_diags_free(&diags);
  free(path);
  return ok;
}

static bool selected(const options *o, const bk_kernel *k) {
  if (!o->num_only)
    return true;
  for (size_t i = 0; i < o->num_only; i++)
    if (strcmp(o->only[i], k->name) == 0)
      return true;
  return false;
}

/* Sums of log ratios to -O0, for geometric means. */
typedef struct geo {
  double issued, eff, stat, emu;
  size_t n;
} geo;

static void geo_add(geo *g, const bk_measure *base, const bk_measure *m) {
  g->issued += log((double)m->issued / (double)base->issued);
  g->eff += log(m->simd_efficiency / base->simd_efficiency);
  g->stat += log((double)m->static_instrs / (double)base->static_instrs);
  g->emu += log((double)m->emu_walks / (double)base->emu_walks);
  g->n++;
}

static double geo_mean(double sum, size_t n) { return n ? exp(sum / (double)n) : 1.0; }

/* What the issue asks of a pipeline, against -O0. */
typedef struct targets {
  double worst_issued;          /* the largest issued ratio */
  const char *worst_kernel;
  const char *deeper_kernel;    /* a kernel whose depth grew, or NULL */
  const char *emu_kept;         /* a small-if kernel whose modelled wave-emu count did not
                                 * fall, or NULL */
} targets;

static int run(const options *o) {
  wave_pass_registry *registry = wave_pass_registry_create();
  table t = {0};
  if (!registry || !add_row(&t)) {
    fprintf(stderr, "bench_opt: out of memory\n");
    return 1;
  }
  for (size_t c = 0; c < o->num_configs; c++) {
    wave_diags diags;
    wave_diags_init(&diags);
    wave_pipeline *p = wave_pipeline_parse(registry, o->configs[c].pipeline, &diags);
    if (!p) {
      fprintf(stderr, "bench_opt: the pipeline of %s does not parse:\n", o->configs[c].label);
      print_diags(&diags);
    }
    wave_pipeline_destroy(p);
    wave_diags_free(&diags);
    if (!p) {
      free(t.cells);
      wave_pass_registry_destroy(registry);
      return 2;
    }
  }
  size_t col = 0;
  set(&t, 0, col++, "kernel");
  set(&t, 0, col++, "small ifs");
  for (size_t c = 0; c < o->num_configs; c++)
    set(&t, 0, col++, "issued %s", o->configs[c].label);
  for (size_t c = 1; c < o->num_configs; c++)
    set(&t, 0, col++, "%s/-O0", o->configs[c].label);
  for (size_t c = 0; c < o->num_configs; c++)
    set(&t, 0, col++, "SIMD %s", o->configs[c].label);
  for (size_t c = 0; c < o->num_configs; c++)
    set(&t, 0, col++, "depth %s", o->configs[c].label);
  for (size_t c = 0; c < o->num_configs; c++)
    set(&t, 0, col++, "static %s", o->configs[c].label);
  for (size_t c = 1; c < o->num_configs; c++)
    set(&t, 0, col++, "wave-emu %s/-O0", o->configs[c].label);

  geo all[MAX_CONFIGS] = {{0}}, group[MAX_CONFIGS] = {{0}};
  targets tg[MAX_CONFIGS];
  for (size_t c = 0; c < MAX_CONFIGS; c++)
    tg[c] = (targets){0.0, NULL, NULL, NULL};
  int failures = 0;
  size_t measured = 0;
  for (size_t i = 0; i < bk_num_kernels; i++) {
    const bk_kernel *k = &bk_kernels[i];
    if (!selected(o, k))
      continue;
    if (o->width < k->min_width) {
      fprintf(stderr, "bench_opt: %s skipped: it needs waves of at least %u lanes\n", k->name,
              k->min_width);
      continue;
    }
    bk_measure m[MAX_CONFIGS];
    bool ok = true;
    for (size_t c = 0; c < o->num_configs; c++)
      ok = measure(registry, o, k, &o->configs[c], &m[c]) && ok;
    if (!ok) {
      failures++;
      continue;
    }
    if (!add_row(&t)) {
      fprintf(stderr, "bench_opt: out of memory\n");
      return 1;
    }
    measured++;
    size_t r = t.rows - 1;
    col = 0;
    set(&t, r, col++, "%s", k->name);
    set(&t, r, col++, "%s", k->small_ifs ? "yes" : "");
    for (size_t c = 0; c < o->num_configs; c++)
      set(&t, r, col++, "%llu", (unsigned long long)m[c].issued);
    for (size_t c = 1; c < o->num_configs; c++)
      set(&t, r, col++, "%.3f", (double)m[c].issued / (double)m[0].issued);
    for (size_t c = 0; c < o->num_configs; c++)
      set(&t, r, col++, "%.1f%%", 100.0 * m[c].simd_efficiency);
    for (size_t c = 0; c < o->num_configs; c++)
      set(&t, r, col++, "%u", m[c].max_depth);
    for (size_t c = 0; c < o->num_configs; c++)
      set(&t, r, col++, "%zu", m[c].static_instrs);
    for (size_t c = 1; c < o->num_configs; c++)
      set(&t, r, col++, "%.3f", (double)m[c].emu_walks / (double)m[0].emu_walks);
    for (size_t c = 1; c < o->num_configs; c++) {
      double ratio = (double)m[c].issued / (double)m[0].issued;
      geo_add(&all[c], &m[0], &m[c]);
      if (k->small_ifs)
        geo_add(&group[c], &m[0], &m[c]);
      if (ratio > tg[c].worst_issued) {
        tg[c].worst_issued = ratio;
        tg[c].worst_kernel = k->name;
      }
      if (m[c].max_depth > m[0].max_depth && !tg[c].deeper_kernel)
        tg[c].deeper_kernel = k->name;
      if (k->small_ifs && m[c].emu_walks >= m[0].emu_walks && !tg[c].emu_kept)
        tg[c].emu_kept = k->name;
    }
  }

  print_table(&t, o->markdown);
  printf("\n");
  bool missed = false;
  for (size_t c = 1; c < o->num_configs && measured; c++) {
    const char *label = o->configs[c].label;
    printf("%s/-O0 geometric means: issued %.3f (small ifs %.3f), SIMD efficiency %.3f "
           "(small ifs %.3f), static %.3f (small ifs %.3f), wave-emu modelled %.3f (small ifs "
           "%.3f)\n",
           label, geo_mean(all[c].issued, all[c].n), geo_mean(group[c].issued, group[c].n),
           geo_mean(all[c].eff, all[c].n), geo_mean(group[c].eff, group[c].n),
           geo_mean(all[c].stat, all[c].n), geo_mean(group[c].stat, group[c].n),
           geo_mean(all[c].emu, all[c].n), geo_mean(group[c].emu, group[c].n));
    bool fewer = group[c].n && geo_mean(group[c].issued, group[c].n) <= 0.75;
    bool no_worse = tg[c].worst_issued <= 1.01;
    bool depth = !tg[c].deeper_kernel;
    bool emu = !tg[c].emu_kept;
    printf("%s targets: small ifs issue >= 25%% fewer: %s; no kernel > 1%% worse: %s "
           "(worst %s %.3f); depth never higher: %s%s%s; modelled wave-emu count falls on "
           "every small-if kernel: %s%s%s\n",
           label, fewer ? "met" : "NOT MET", no_worse ? "met" : "NOT MET",
           tg[c].worst_kernel ? tg[c].worst_kernel : "-", tg[c].worst_issued,
           depth ? "met" : "NOT MET", depth ? "" : ", first ",
           depth ? "" : tg[c].deeper_kernel, emu ? "met" : "NOT MET", emu ? "" : ", first ",
           emu ? "" : tg[c].emu_kept);
    missed = missed || !fewer || !no_worse || !depth || !emu;
  }
  free(t.cells);
  wave_pass_registry_destroy(registry);
  if (failures)
    fprintf(stderr, "bench_opt: %d kernels failed\n", failures);
  return failures || (o->check_targets && missed) ? 1 : 0;
}

static int usage(const char *argv0) {
  fprintf(
      stderr,
      "usage: %s [--passes PIPELINE] [--width W] [--max-registers N] [--kernel NAME]...\n"
      "          [--dir DIR] [--markdown] [--check-targets]\n"
      "  --passes PIPELINE   a third column: this pipeline (end it with legalize, as -O2 does)\n"
      "  --width W           wave width, 8..64 (default 32)\n"
      "  --max-registers N   passes may grow .registers up to N (default 0: no growth)\n"
      "  --kernel NAME       only this kernel (repeatable)\n"
      "  --dir DIR           the kernel files (default %s/tests/bench/kernels)\n"
      "  --markdown          print the table as Markdown\n"
      "  --check-targets     exit 1 also when a target is not met\n",
      argv0, WAVE_SRCDIR);
  return 2;
}

/* A number in [lo, hi] from text, or false. */
static bool parse_u32(const char *text, uint32_t lo, uint32_t hi, uint32_t *out) {
  char *end = NULL;
  unsigned long v = text ? strtoul(text, &end, 10) : 0;
  if (!text || !*text || *end || v < lo || v > hi)
    return false;
  *out = (uint32_t)v;
  return true;
}

static bool known_kernel(const char *name) {
  for (size_t i = 0; i < bk_num_kernels; i++)
    if (strcmp(bk_kernels[i].name, name) == 0)
      return true;
  fprintf(stderr, "bench_opt: no kernel named '%s'\n", name);
  return false;
}

int main(int argc, char **argv) {
  /* Errors go to stderr as they happen: keep them between the lines they belong to. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  options o = {0};
  o.dir = WAVE_SRCDIR "/tests/bench/kernels";
  o.width = WAVE_DEFAULT_WAVE_WIDTH;
  o.configs[0] = (config){"-O0", wave_pipeline_for_level(0), false};
  o.configs[1] = (config){"-O2", wave_pipeline_for_level(2), false};
  o.configs[2] = (config){"-O2+prof", wave_pipeline_for_level(2), true};
  o.num_configs = 3;
  o.only = calloc((size_t)argc, sizeof *o.only);
  if (!o.only)
    return 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--markdown") == 0) {
      o.markdown = true;
    } else if (strcmp(a, "--check-targets") == 0) {
      o.check_targets = true;
    } else if (strcmp(a, "--passes") == 0 && next && o.num_configs == 3) {
      o.configs[o.num_configs++] = (config){"P", next, false};
      i++;
    } else if (strcmp(a, "--width") == 0 &&
               parse_u32(next, WAVE_MIN_WAVE_WIDTH, WAVE_MAX_WAVE_WIDTH, &o.width)) {
      i++;
    } else if (strcmp(a, "--max-registers") == 0 &&
               parse_u32(next, 0, WAVE_MAX_GPR + 1, &o.max_registers)) {
      i++;
    } else if (strcmp(a, "--kernel") == 0 && next && known_kernel(next)) {
      o.only[o.num_only++] = next;
      i++;
    } else if (strcmp(a, "--dir") == 0 && next) {
      o.dir = next;
      i++;
    } else {
      free(o.only);
      return usage(argv[0]);
    }
  }
  printf("libwaveopt %s: optimization benchmark, wave width %u, %zu kernels in %s\n",
         wave_version(), o.width, bk_num_kernels, o.dir);
  for (size_t c = 0; c < o.num_configs; c++)
    printf("  %-8s %s%s\n", o.configs[c].label, o.configs[c].pipeline,
           o.configs[c].profiled ? ", with a profile taken on other inputs" : "");
  printf("\n");
  int status = run(&o);
  free(o.only);
  return status;
}
