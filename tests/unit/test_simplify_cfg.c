/* SPDX-License-Identifier: Apache-2.0 */
/* simplify-cfg where the lit test cannot reach: nests 100 000 deep, in linear time (which
 * statements still hang in the tree was once asked by climbing to the root for each one). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/pass.h"

enum { DEEP = 100000 };

/* `head`, DEEP times `open`, `bottom`, DEEP times `close`, `tail`. */
static char *nest(const char *head, const char *open, const char *bottom, const char *close,
                  const char *tail) {
  size_t cap = (size_t)DEEP * (strlen(open) + strlen(close)) + strlen(head) + strlen(bottom) +
               strlen(tail) + 1;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  size_t len = (size_t)sprintf(text, "%s", head);
  for (unsigned i = 0; i < DEEP; i++)
    len += (size_t)sprintf(text + len, "%s", open);
  len += (size_t)sprintf(text + len, "%s", bottom);
  for (unsigned i = 0; i < DEEP; i++)
    len += (size_t)sprintf(text + len, "%s", close);
  sprintf(text + len, "%s", tail);
  return text;
}

/* simplify-cfg over the text; the statistics land in *result. */
static wave_module *run(const char *text, wave_pipeline_result *result) {
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_pass_registry *registry = wave_pass_registry_create();
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *pipeline = wave_pipeline_parse(registry, "simplify-cfg", &diags);
  cr_assert_not_null(pipeline);
  bool ok = wave_pipeline_run(pipeline, m, NULL, result, &diags);
  tu_log_diags(&diags);
  cr_assert(ok);
  wave_diags_free(&diags);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  tu_assert_valid(wave_module_first_kernel(m));
  return m;
}

/* Every level has code after an unguarded halt, the innermost first in text order: only the
 * outermost tail is reachable from the walk, and it takes every nest below it along. */
Test(simplify_cfg, halts_100000_deep, .timeout = 60) {
  char *text = nest(".kernel deep\n.registers 2\nicmp_eq p1, r0, r1\n", "if p1\nhalt\nif p1\n",
                    "nop\n", "endif\nnop\nendif\n", "halt\n.end\n");
  wave_pipeline_result result = {0};
  wave_module *m = run(text, &result);
  /* The outermost halt takes its if (and all in it) and the nop after it. */
  cr_assert_eq(tu_stat(&result, "unreachable-removed"), 2);
  tu_assert_shape(wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))),
                  "[icmp_eq] if{[halt]}{} [halt]");
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}

/* The halt is innermost, with code after it at every level: each level's tail goes. */
Test(simplify_cfg, halt_at_the_bottom_100000_deep, .timeout = 60) {
  char *text = nest(".kernel deep\n.registers 2\nicmp_eq p1, r0, r1\n", "if p1\n",
                    "halt\nnop\n", "endif\nnop\n", "halt\n.end\n");
  wave_pipeline_result result = {0};
  wave_module *m = run(text, &result);
  /* The innermost nop after the halt goes; every other level keeps its if and nop. */
  cr_assert_eq(tu_stat(&result, "unreachable-removed"), 1);
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}

/* Ifs with nothing but the next if in them: inner ones go first, so every one goes. */
Test(simplify_cfg, empty_ifs_100000_deep, .timeout = 60) {
  char *text = nest(".kernel deep\n.registers 2\nicmp_eq p1, r0, r1\n", "if p1\n", "",
                    "else\nendif\n", "halt\n.end\n");
  wave_pipeline_result result = {0};
  wave_module *m = run(text, &result);
  cr_assert_eq(tu_stat(&result, "ifs-removed"), DEEP);
  tu_assert_shape(wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))),
                  "[icmp_eq halt]");
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}
