/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The optimization benchmark's corpus (tests/bench/kernels, bench_kernels.h) as a correctness
 * gate: every kernel, as written and compiled at -O0 and at every other -O level (verify-each
 * on; -O3 may grow .registers, as waveopt -O3 does), runs in the interpreter and must leave
 * device memory exactly as the C reference computes it: at wave width 32, and also at 8 and 64
 * for the kernels whose results do not depend on the width (all but softmax, whose unrolled
 * 32-lane butterfly needs W >= 32: it runs at 32 and 64, and must be wrong at 16).
 *
 * The corpus must also be what the benchmark's table says: one file per entry and one entry per
 * file, each file opening with its description (launch, presets, input, expected output) and
 * holding one kernel of its name whose .workgroup_size is the launch's; the mark "small
 * divergent ifs" must agree with the kernel compiled at -O0 (an if whose predicate the
 * uniformity analysis finds divergent, with at most bk_small_if_limit instructions on either
 * side, all of them speculatable or a break or continue) and with a run (an if both of whose
 * sides had lanes).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench_kernels.h"
#include "test_util.h"
#include "waveopt/uniformity.h"

#define KERNEL_DIR WAVE_SRCDIR "/tests/bench/kernels"

static const uint32_t widths[] = {8, 32, 64};

/* A kernel compiled through `pipeline` (NULL: as written); fails the test when it does not
 * compile. */
static wave_module *compile(const wave_pass_registry *registry, const bk_kernel *k,
                            const char *pipeline, uint32_t max_registers) {
  char *path = bk_path(KERNEL_DIR, k);
  cr_assert_not_null(path);
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_module *m = bk_compile(registry, path, pipeline, max_registers, NULL, &diags);
  if (!m)
    tu_log_diags(&diags);
  cr_assert_not_null(m, "%s does not compile with %s", k->name,
                     pipeline ? pipeline : "no pipeline");
  wave_diags_free(&diags);
  free(path);
  return m;
}

/* ---- the corpus and its table ---------------------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const bk_kernel *entry(const char *name) {
  for (size_t i = 0; i < bk_num_kernels; i++)
    if (strcmp(bk_kernels[i].name, name) == 0)
      return &bk_kernels[i];
  return NULL;
}

Test(bench_kernels, one_entry_per_file) {
  cr_assert_geq(bk_num_kernels, 22, "the corpus needs at least 22 kernels");
  DIR *dir = opendir(KERNEL_DIR);
  cr_assert_not_null(dir, "cannot open %s", KERNEL_DIR);
  size_t files = 0;
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    if (!has_suffix(e->d_name, ".wave"))
      continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(e->d_name) - 5), e->d_name);
    cr_expect_not_null(entry(name), "%s has no entry in bench_kernels.c", e->d_name);
    files++;
  }
  closedir(dir);
  cr_assert_eq(files, bk_num_kernels, "%zu files for %zu entries", files, bk_num_kernels);
  for (size_t i = 0; i < bk_num_kernels; i++)
    cr_assert_eq(entry(bk_kernels[i].name), &bk_kernels[i], "%s is listed twice",
                 bk_kernels[i].name);
}

/* The first comment lines of the file, up to the first line that is not a comment. */
static char *header_of(const bk_kernel *k) {
  char *path = bk_path(KERNEL_DIR, k);
  cr_assert_not_null(path);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "cannot open %s", path);
  size_t cap = 8192, len = 0;
  char *header = calloc(1, cap), line[512];
  cr_assert_not_null(header);
  while (fgets(line, sizeof line, f) && line[0] == ';') {
    cr_assert_lt(len + strlen(line), cap, "%s: header too long", k->name);
    memcpy(header + len, line, strlen(line) + 1);
    len += strlen(line);
  }
  fclose(f);
  free(path);
  return header;
}

Test(bench_kernels, files_describe_their_launch) {
  for (size_t i = 0; i < bk_num_kernels; i++) {
    const bk_kernel *k = &bk_kernels[i];
    char *header = header_of(k);
    char opening[128];
    snprintf(opening, sizeof opening, "; %s: ", k->name);
    cr_expect(strncmp(header, opening, strlen(opening)) == 0,
              "%s: the file must open with \"%s\" and what the kernel computes", k->name, opening);
    static const char *const parts[] = {"launch:", "presets:", "input:", "expect:"};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
      cr_expect_not_null(strstr(header, parts[p]), "%s: the header says nothing after \"%s\"",
                         k->name, parts[p]);
    free(header);

    wave_module *m = compile(NULL, k, NULL, 0);
    const wave_kernel *kernel = wave_module_first_kernel(m);
    cr_assert_eq(wave_module_num_kernels(m), 1, "%s: one kernel per file", k->name);
    cr_expect_str_eq(wave_kernel_name(kernel), k->name);
    cr_expect(wave_kernel_has_workgroup_size(kernel), "%s: no .workgroup_size", k->name);
    for (int d = 0; d < 3; d++)
      cr_expect_eq(wave_kernel_workgroup_size(kernel, d), k->workgroup[d],
                   "%s: .workgroup_size and the launch differ in dimension %d", k->name, d);
    wave_module_destroy(m);
  }
}

/* ---- the small-divergent-if group ------------------------------------------------------------ */

static bool small_side(const wave_node_list *list) {
  size_t n = 0;
  for (const wave_node *node = wave_node_list_first(list); node; node = wave_node_next(node)) {
    if (wave_node_kind_of(node) != WAVE_NODE_BLOCK)
      return false;
    for (const wave_instr *i = wave_block_first(node); i; i = wave_instr_next(i), n++)
      if (!wave_instr_can_speculate(i) && wave_instr_op(i) != WAVE_OP_BREAK &&
          wave_instr_op(i) != WAVE_OP_CONTINUE)
        return false;
  }
  return n <= bk_small_if_limit;
}

static bool has_small_divergent_if(const wave_kernel *kernel) {
  wave_uniformity *u = wave_uniformity_compute(kernel, NULL);
  cr_assert_not_null(u);
  bool found = false;
  for (const wave_region *r = wave_kernel_first_region(kernel); r && !found;
       r = wave_region_next(r)) {
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (!found && wave_const_walk_next(&w))
      found = w.event == WAVE_WALK_IF && small_side(wave_if_then(w.node)) &&
              small_side(wave_if_else(w.node)) && wave_uniformity_node_divergent(u, w.node);
  }
  wave_uniformity_destroy(u);
  return found;
}

Test(bench_kernels, small_if_marks_agree_with_the_kernels) {
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  size_t group = 0;
  for (size_t i = 0; i < bk_num_kernels; i++) {
    const bk_kernel *k = &bk_kernels[i];
    /* As written: legalize, even at -O0, takes a break out of its if. */
    wave_module *m = compile(registry, k, NULL, 0);
    cr_expect_eq(has_small_divergent_if(wave_module_first_kernel(m)), k->small_ifs,
                 "%s is %smarked as having small divergent ifs, but it has %s", k->name,
                 k->small_ifs ? "" : "not ", k->small_ifs ? "none" : "some");
    bk_measure out;
    char why[512];
    cr_assert(bk_run(k, wave_module_first_kernel(m), 32, &out, why, sizeof why), "%s: %s", k->name,
              why);
    if (k->small_ifs)
      cr_expect_gt(out.divergent_ifs, 0, "%s: no if diverged in the run", k->name);
    group += k->small_ifs;
    wave_module_destroy(m);
  }
  cr_expect_geq(group, 8, "only %zu kernels with small divergent ifs", group);
  cr_expect_geq(bk_num_kernels - group, 8, "only %zu kernels without", bk_num_kernels - group);
  wave_pass_registry_destroy(registry);
}

/* ---- every kernel at every level and width --------------------------------------------------- */

typedef struct kernel_param {
  size_t index;
} kernel_param;

static void free_params(struct criterion_test_params *params) { cr_free(params->params); }

ParameterizedTestParameters(bench_kernels, matches_the_reference) {
  kernel_param *params = cr_malloc(bk_num_kernels * sizeof *params);
  cr_assert_not_null(params);
  for (size_t i = 0; i < bk_num_kernels; i++)
    params[i].index = i;
  return cr_make_param_array(kernel_param, params, bk_num_kernels, free_params);
}

ParameterizedTest(kernel_param *param, bench_kernels, matches_the_reference) {
  const bk_kernel *k = &bk_kernels[param->index];
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  /* As written (the interpreter runs documentation forms directly), then every -O level. */
  for (int level = -1; level < 0 || wave_pipeline_for_level((unsigned)level); level++) {
    const char *pipeline = level < 0 ? NULL : wave_pipeline_for_level((unsigned)level);
    wave_module *m = compile(registry, k, pipeline, level == 3 ? WAVE_MAX_GPR + 1 : 0);
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
      if (widths[w] < k->min_width)
        continue;
      bk_measure out;
      char why[512];
      cr_expect(bk_run(k, wave_module_first_kernel(m), widths[w], &out, why, sizeof why),
                "%s at %s%d, wave width %u: %s", k->name, level < 0 ? "no -O, as written" : "-O",
                level < 0 ? 0 : level, widths[w], why);
    }
    wave_module_destroy(m);
  }
  wave_pass_registry_destroy(registry);
}

/* A kernel marked as needing wide waves does need them: below its width it computes something
 * else (so the widths the gate skips are skipped for a reason). */
Test(bench_kernels, width_marks_are_needed) {
  for (size_t i = 0; i < bk_num_kernels; i++) {
    const bk_kernel *k = &bk_kernels[i];
    if (k->min_width <= WAVE_MIN_WAVE_WIDTH)
      continue;
    wave_module *m = compile(NULL, k, NULL, 0);
    bk_measure out;
    char why[512];
    cr_expect_not(bk_run(k, wave_module_first_kernel(m), k->min_width / 2, &out, why, sizeof why),
                  "%s is marked as needing %u lanes but is right with %u", k->name, k->min_width,
                  k->min_width / 2);
    wave_module_destroy(m);
  }
}
