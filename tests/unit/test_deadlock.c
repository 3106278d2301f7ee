/* SPDX-License-Identifier: Apache-2.0 */
/* SIMT deadlock (analysis/simt_deadlock.c) through the library API: what a finding names (the
 * polled read, the writer, the construct that parks the writer's lanes), that a result computed
 * with or without a given uniformity is the same, a nest of waiting loops 100 000 deep, and no
 * finding on kernels that the interpreter runs to the end as SIMT waves (the corpus and
 * generated kernels). The shapes and their confirmation in the interpreter are in
 * tests/lit/deadlock.test. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/deadlock.h"
#include "waveopt/edit.h"
#include "waveopt/gen.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

static const wave_instr *instr_at_line(const wave_kernel *k, uint32_t line) {
  wave_foreach_block(b, (wave_kernel *)k) {
    wave_foreach_instr(i, b) {
      if (wave_instr_loc(i).line == line)
        return i;
    }
  }
  cr_assert_fail("no instruction at line %u", line);
  return NULL;
}

static const char program2[] =
    ".kernel wait_on_else\n"          /* 1 */
    "    mov_sr   r1, sr_lane_id\n"
    "    mov_imm  r2, 0\n"
    "    icmp_eq  p1, r1, r2\n"
    "    if p1\n"                     /* 5 */
    "        loop\n"
    "            device_load_u32 r3, r0\n"
    "            icmp_ne  p2, r3, r2\n"
    "            break    p2\n"
    "        endloop\n"               /* 10 */
    "    else\n"
    "        mov_imm  r4, 1\n"
    "        device_store_u32 r0, r4\n"
    "    endif\n"
    "    halt\n"
    ".end\n";

Test(deadlock, program_2_names_the_read_the_writer_and_the_if) {
  wave_module *m = tu_parse_ok(program2, "p2.wave", false);
  const wave_kernel *k = wave_module_first_kernel(m);
  wave_deadlock *d = wave_deadlock_compute(k, NULL);
  cr_assert_not_null(d);
  cr_assert_eq(wave_deadlock_num_loops(d), 1);
  cr_assert_eq(wave_deadlock_num_findings(d), 1);
  const wave_loop_verdict *v = wave_deadlock_loop(d, 0);
  const wave_node *the_if =
      wave_node_next(wave_node_list_first(wave_region_body(wave_kernel_first_region(k))));
  cr_assert_eq(wave_node_kind_of(the_if), WAVE_NODE_IF);
  cr_assert_eq(v->loop, wave_node_list_first(wave_if_then(the_if)));
  cr_assert_eq(v->wait, WAVE_WAIT_DEADLOCK);
  cr_assert_eq(v->read, instr_at_line(k, 7));
  cr_assert_eq(v->writer, instr_at_line(k, 13));
  cr_assert_eq(v->parker, the_if);
  cr_assert_null(wave_deadlock_loop(d, 1));

  wave_diags diags;
  wave_diags_init(&diags);
  wave_deadlock_diagnose(d, k, &diags);
  cr_assert_eq(diags.num_warnings, 1);
  cr_assert_eq(diags.num_errors, 0);
  cr_assert_eq(diags.items[0].line, 6);
  cr_assert_str_eq(diags.items[0].flag, "simt-deadlock");
  cr_assert(strstr(diags.items[0].message, "possible SIMT deadlock") != NULL);
  wave_diags_free(&diags);
  wave_deadlock_destroy(d);
  wave_module_destroy(m);
}

/* The uniformity analysis decides which loops and ifs park lanes: computed by the deadlock
 * analysis itself or handed to it, the verdicts are the same. */
Test(deadlock, given_or_own_uniformity) {
  wave_module *m = tu_parse_ok(program2, "p2.wave", false);
  const wave_kernel *k = wave_module_first_kernel(m);
  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  wave_deadlock *own = wave_deadlock_compute(k, NULL), *given = wave_deadlock_compute(k, u);
  cr_assert(own && given && wave_deadlock_equal(own, given));
  wave_deadlock_destroy(own);
  wave_deadlock_destroy(given);
  wave_uniformity_destroy(u);
  wave_module_destroy(m);
}

/* 100 000 nested loops, each polling a word at a per-lane address (so lanes leave each loop at
 * different iterations), and one store after the nest: every loop is a finding, parked by its
 * own breaks, with the same writer. Without the shared walk outward this is quadratic. */
Test(deadlock, nest_100000_deep) {
  enum { DEEP = 100000 };
  static const char head[] = ".kernel deep\n    mov_sr r5, sr_lane_id\n    mov_imm r2, 0\n";
  static const char open[] = "loop\ndevice_load_u32 r3, r5\nicmp_ne p2, r3, r2\nbreak p2\n";
  static const char tail[] = "device_store_u32 r5, r2\nhalt\n.end\n";
  size_t cap = sizeof(head) + (size_t)DEEP * (sizeof(open) + 8) + sizeof(tail);
  char *text = malloc(cap), *at = text;
  cr_assert_not_null(text);
  at += sprintf(at, "%s", head);
  for (int i = 0; i < DEEP; i++)
    at += sprintf(at, "%s", open);
  for (int i = 0; i < DEEP; i++)
    at += sprintf(at, "endloop\n");
  sprintf(at, "%s", tail);
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  const wave_kernel *k = wave_module_first_kernel(m);
  wave_deadlock *d = wave_deadlock_compute(k, NULL);
  cr_assert_not_null(d);
  cr_assert_eq(wave_deadlock_num_loops(d), DEEP);
  cr_assert_eq(wave_deadlock_num_findings(d), DEEP);
  const wave_instr *store =
      wave_block_first(wave_node_list_last(wave_region_body(wave_kernel_first_region(k))));
  for (size_t i = 0; i < DEEP; i++) {
    const wave_loop_verdict *v = wave_deadlock_loop(d, i);
    cr_assert(v->writer == store && v->parker == v->loop, "loop %zu", i);
  }
  wave_deadlock_destroy(d);
  wave_module_destroy(m);
  free(text);
}

static size_t findings_in(const wave_kernel *k) {
  wave_deadlock *d = wave_deadlock_compute(k, NULL);
  cr_assert_not_null(d);
  size_t n = wave_deadlock_num_findings(d);
  wave_deadlock_destroy(d);
  return n;
}

/* Every corpus kernel runs to its end as SIMT waves (tests/unit/test_corpus.c): a finding would
 * be a false alarm. cas_claim and histogram poll memory through atomics. */
Test(deadlock, no_finding_in_the_corpus) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES), kernels = 0;
  for (size_t i = 0; i < n; i++) {
    wave_module *m = tu_parse_corpus(files[i].name);
    for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k), kernels++)
      cr_assert_eq(findings_in(k), 0, "%s:%s", files[i].name, wave_kernel_name(k));
    wave_module_destroy(m);
  }
  cr_assert_geq(kernels, 20);
}

/* Generated kernels terminate as SIMT waves by construction (waveopt/gen.h). */
Test(deadlock, no_finding_in_generated_kernels, .timeout = 120) {
  for (uint64_t seed = 1; seed <= 1000; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    o.size = 150;
    o.max_depth = 1 + (unsigned)(seed % WAVE_GEN_MAX_DEPTH);
    wave_gen_launch g;
    wave_module *m = tu_generate(&o, &g);
    cr_assert_eq(findings_in(wave_module_first_kernel(m)), 0, "seed %llu",
                 (unsigned long long)seed);
    wave_module_destroy(m);
  }
}
