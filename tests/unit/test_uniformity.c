/* SPDX-License-Identifier: Apache-2.0 */
/* The uniformity API: queries on a small kernel, assume-divergent, and a 100 000-deep nest. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/uniformity.h"

static const char *const small =
    ".kernel k\n"
    "    mov_sr r1, sr_lane_id\n"
    "    icmp_lt p1, r1, r2\n"
    "    iadd r3, r2, r2\n"
    "    if p1\n"
    "        barrier\n"
    "    endif\n"
    "    halt\n"
    ".end\n";

Test(uniformity, queries) {
  wave_module *m = tu_parse_ok(small, "small.wave", false);
  wave_kernel *k = m->first_kernel;
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert(u);
  wave_node *block = k->first_region->body.first;
  wave_instr *mov = block->u.block.first, *cmp = mov->next, *add = cmp->next;
  wave_node *ifn = block->next;
  wave_instr *barrier = ifn->u.if_.then_body.first->u.block.first;
  cr_assert(wave_uniformity_result_divergent(u, mov));
  cr_assert(wave_uniformity_result_divergent(u, cmp));
  cr_assert(!wave_uniformity_result_divergent(u, add));
  cr_assert(wave_uniformity_reg_divergent(u, cmp, WAVE_REG_GPR(1)));
  cr_assert(!wave_uniformity_reg_divergent(u, cmp, WAVE_REG_GPR(2)));
  cr_assert(wave_uniformity_node_divergent(u, ifn));
  cr_assert(wave_uniformity_node_converged(u, ifn));
  cr_assert(wave_uniformity_instr_converged(u, add));
  cr_assert(!wave_uniformity_instr_converged(u, barrier));
  char why[256];
  wave_uniformity_explain_node(u, ifn, why, sizeof(why));
  cr_assert(strstr(why, "sr_lane_id"), "%s", why);
  cr_assert_eq(wave_uniformity_explain_instr(u, add, why, sizeof(why)), 0);

  wave_uniformity_config config = {.assume_divergent = wave_regset_empty()};
  wave_regset_set(&config.assume_divergent, WAVE_REG_GPR(2));
  wave_uniformity *v = wave_uniformity_compute(k, &config);
  cr_assert(v);
  cr_assert(wave_uniformity_result_divergent(v, add));
  cr_assert(!wave_uniformity_equal(u, v));
  wave_uniformity_destroy(v);
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* Nesting this deep on the C stack would overflow it: the walk keeps its own frames. Mostly
 * ifs, a loop every 1000 levels: a loop first found divergent is walked twice, so a nest made
 * only of such loops costs time quadratic in its depth (analysis/uniformity.c). */
Test(uniformity, deep_nest) {
  enum { DEPTH = 100000 };
  size_t cap = (size_t)DEPTH * 24 + 256, len = 0;
  char *text = malloc(cap);
  len += (size_t)sprintf(text + len, ".kernel deep\n    mov_sr r1, sr_lane_id\n"
                                     "    icmp_lt p1, r1, r2\n");
  for (int i = 0; i < DEPTH; i++)
    len += (size_t)sprintf(text + len, i % 1000 ? "if p1\n" : "loop\nbreak p1\n");
  len += (size_t)sprintf(text + len, "iadd r3, r3, r3\n");
  for (int i = DEPTH - 1; i >= 0; i--)
    len += (size_t)sprintf(text + len, i % 1000 ? "endif\n" : "endloop\n");
  len += (size_t)sprintf(text + len, "halt\n.end\n");
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_string(text, len, "deep.wave", &d);
  cr_assert(m);
  wave_uniformity *u = wave_uniformity_compute(m->first_kernel, NULL);
  cr_assert(u);
  cr_assert(wave_uniformity_node_divergent(u, m->first_kernel->first_region->body.first->next));
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
  wave_diags_free(&d);
  free(text);
}
