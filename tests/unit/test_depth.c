/* SPDX-License-Identifier: Apache-2.0 */
/* Divergence-stack depth (analysis/divergence_depth.c): hand-counted kernels for each rule
 * (nesting, uniform against divergent constructs, calls, falling into the next region,
 * recursion), 100 000-deep nests and call chains, and a soundness gate that runs generated and
 * corpus kernels in the interpreter: its deepest stack must never exceed the static depth, and
 * a stack limit of exactly the static depth must never trip. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/depth.h"
#include "waveopt/gen.h"
#include "waveopt/interp.h"
#include "waveopt/pass.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

typedef struct analysed {
  wave_module *module;
  wave_uniformity *u;
  wave_depth *d;
} analysed;

static analysed analyse_kernel(wave_module *m, const wave_kernel *k) {
  analysed a = {m, wave_uniformity_compute(k, NULL), NULL};
  cr_assert_not_null(a.u);
  a.d = wave_depth_compute(k, a.u);
  cr_assert_not_null(a.d);
  return a;
}

static analysed analyse(const char *text) {
  wave_module *m = tu_parse_ok(text, "test.wave", false);
  return analyse_kernel(m, wave_module_first_kernel(m));
}

static void release(analysed *a) {
  wave_depth_destroy(a->d);
  wave_uniformity_destroy(a->u);
  wave_module_destroy(a->module);
}

static void expect_depths(const wave_depth *d, uint32_t s, uint32_t v) {
  cr_assert_eq(wave_depth_max(d, WAVE_DEPTH_STATIC), s, "static depth %u, expected %u",
               wave_depth_max(d, WAVE_DEPTH_STATIC), s);
  cr_assert_eq(wave_depth_max(d, WAVE_DEPTH_DIVERGENT), v, "divergent depth %u, expected %u",
               wave_depth_max(d, WAVE_DEPTH_DIVERGENT), v);
}

/* The deepest way as "if4 loop6 call5 ...": the kind of each step and its source line. */
static void way_text(const wave_depth *d, wave_depth_kind kind, char *buf, size_t size) {
  wave_depth_path p = wave_depth_deepest(d, kind);
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < p.length; i++) {
    const wave_depth_step *s = &p.steps[i];
    cr_assert((s->node == NULL) != (s->call == NULL), "step %zu sets both or neither", i);
    unsigned line = s->call ? wave_instr_loc(s->call).line
                    : wave_node_kind_of(s->node) == WAVE_NODE_IF
                        ? wave_node_origin(s->node, WAVE_LINE_IF).loc.line
                        : wave_node_origin(s->node, WAVE_LINE_LOOP).loc.line;
    const char *word = s->call                                      ? "call"
                       : wave_node_kind_of(s->node) == WAVE_NODE_IF ? "if"
                                                                    : "loop";
    used += (size_t)snprintf(buf + used, size - used, "%s%s%s%u", i ? " " : "",
                             i == p.cycle ? "[" : "", word, line);
    cr_assert_lt(used, size);
  }
  if (p.cycle < p.length)
    used += (size_t)snprintf(buf + used, size - used, "]");
  cr_assert_lt(used, size);
}

static void expect_way(const wave_depth *d, wave_depth_kind kind, const char *expected) {
  char buf[512];
  way_text(d, kind, buf, sizeof(buf));
  cr_assert_str_eq(buf, expected, "%s way", kind == WAVE_DEPTH_STATIC ? "static" : "divergent");
}

/* The n-th if or loop of the kernel's regions in text order. */
static const wave_node *nth_node(const wave_kernel *k, unsigned n) {
  for (const wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (wave_const_walk_next(&w))
      if ((w.event == WAVE_WALK_IF || w.event == WAVE_WALK_LOOP) && n-- == 0)
        return w.node;
  }
  cr_assert_fail("no node %u", n);
  return NULL;
}

/* ---- hand-counted kernels ----------------------------------------------------------------- */

Test(depth, straight_line_is_depth_zero) {
  analysed a = analyse(".kernel k\n    mov_imm r1, 1\n    device_store_u32 r0, r1\n"
                       "    halt\n.end\n");
  expect_depths(a.d, 0, 0);
  cr_assert_not(wave_depth_unbounded(a.d, WAVE_DEPTH_STATIC));
  expect_way(a.d, WAVE_DEPTH_STATIC, "");
  expect_way(a.d, WAVE_DEPTH_DIVERGENT, "");
  release(&a);
}

/* p2 compares kernel arguments (uniform), p1 a lane id (divergent). The if at line 5 and the
 * loop at line 6, which lanes leave together through the uniform break, hold frames but never
 * split the wave; the if at line 7 does. Static 3, divergent 1. */
Test(depth, uniform_constructs_count_only_statically) {
  analysed a = analyse(".kernel k\n"              /* 1 */
                       "    mov_sr r1, sr_lane_id\n"
                       "    icmp_lt p1, r1, r0\n"
                       "    icmp_lt p2, r0, r2\n"
                       "    if p2\n"              /* 5 */
                       "        loop\n"           /* 6 */
                       "            if p1\n"      /* 7 */
                       "                nop\n"
                       "            endif\n"
                       "            break p2\n"
                       "        endloop\n"
                       "    else\n"
                       "        if p2\n"          /* 13: beside, not inside */
                       "        endif\n"
                       "    endif\n"
                       "    halt\n.end\n");
  expect_depths(a.d, 3, 1);
  expect_way(a.d, WAVE_DEPTH_STATIC, "if5 loop6 if7");
  expect_way(a.d, WAVE_DEPTH_DIVERGENT, "if7");
  const wave_kernel *k = wave_module_first_kernel(a.module);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_STATIC, nth_node(k, 1)), 2);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_DIVERGENT, nth_node(k, 1)), 0);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_STATIC, nth_node(k, 2)), 3);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_DIVERGENT, nth_node(k, 2)), 1);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_STATIC, nth_node(k, 3)), 2);
  release(&a);
}

/* A loop left through a divergent break counts as divergent; the uniform if inside it does
 * not. Without uniformity every construct counts. */
Test(depth, divergent_loop_exit) {
  const char *text = ".kernel k\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 0\n"
                     "    mov_imm r3, 1\n"
                     "    loop\n"                    /* 5 */
                     "        icmp_ge p1, r2, r1\n"
                     "        break p1\n"
                     "        icmp_lt p2, r0, r3\n"
                     "        if p2\n"               /* 9 */
                     "            nop\n"
                     "        endif\n"
                     "        iadd r2, r2, r3\n"
                     "    endloop\n"
                     "    halt\n.end\n";
  analysed a = analyse(text);
  expect_depths(a.d, 2, 1);
  expect_way(a.d, WAVE_DEPTH_STATIC, "loop5 if9");
  expect_way(a.d, WAVE_DEPTH_DIVERGENT, "loop5");
  wave_depth *all = wave_depth_compute(wave_module_first_kernel(a.module), NULL);
  expect_depths(all, 2, 2);
  cr_assert_not(wave_depth_equal(a.d, all));
  wave_depth_destroy(all);
  release(&a);
}

/* The call at line 5 sits in one divergent if and enters f, whose loop is divergent (p1 is
 * divergent at a subroutine's entry): divergent 1 + 1 = 2, static 1 + 1 = 2. The call at line 7
 * sits at the top level and enters g with three ifs on a predicate g computes from an
 * immediate (uniform): static 0 + 3 = 3, divergent 0. */
Test(depth, a_call_keeps_the_callers_frames_below) {
  analysed a = analyse(".kernel k\n"                /* 1 */
                       "    mov_sr r1, sr_lane_id\n"
                       "    icmp_lt p1, r1, r0\n"
                       "    if p1\n"                /* 4 */
                       "        call f\n"           /* 5 */
                       "    endif\n"
                       "    call g\n"               /* 7 */
                       "    halt\n"
                       "f:\n"
                       "    loop\n"                 /* 10 */
                       "        break p1\n"
                       "    endloop\n"
                       "    return\n"
                       "g:\n"
                       "    mov_imm r5, 1\n"
                       "    icmp_eq p3, r5, r5\n"
                       "    if p3\n"                /* 17 */
                       "        if p3\n"            /* 18 */
                       "            if p3\n"        /* 19 */
                       "                nop\n"
                       "            endif\n"
                       "        endif\n"
                       "    endif\n"
                       "    return\n.end\n");
  expect_depths(a.d, 3, 2);
  expect_way(a.d, WAVE_DEPTH_STATIC, "call7 if17 if18 if19");
  expect_way(a.d, WAVE_DEPTH_DIVERGENT, "if4 call5 loop10");
  const wave_kernel *k = wave_module_first_kernel(a.module);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_STATIC, nth_node(k, 1)), 2, "f entered at 1");
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_DIVERGENT, nth_node(k, 1)), 2);
  cr_assert_eq(wave_depth_at(a.d, WAVE_DEPTH_DIVERGENT, nth_node(k, 4)), 0);
  release(&a);
}

/* Execution falls from a region into the next at the same depth: the call at depth 2 into f,
 * which falls into g (one if), reaches 3; the entry's end falls into f at depth 0 too. */
Test(depth, falling_into_the_next_region_keeps_the_depth) {
  analysed a = analyse(".kernel k\n"        /* 1 */
                       "    if p1\n"        /* 2 */
                       "        if p1\n"    /* 3 */
                       "            call f\n" /* 4 */
                       "        endif\n"
                       "    endif\n"
                       "f:\n"
                       "    nop\n"
                       "g:\n"
                       "    if p1\n"        /* 10 */
                       "    endif\n"
                       "    return\n.end\n");
  expect_depths(a.d, 3, 1);
  expect_way(a.d, WAVE_DEPTH_STATIC, "if2 if3 call4 if10");
  /* The entry's ifs test a kernel argument; uniformity takes every register as divergent where
   * a subroutine starts, g's included. */
  expect_way(a.d, WAVE_DEPTH_DIVERGENT, "call4 if10");
  release(&a);
}

/* A region that ends in an unguarded halt or return does not fall through, and a subroutine
 * nothing calls never runs: its nest does not count. A guarded halt falls through. */
Test(depth, unreached_subroutines_do_not_count) {
  analysed a = analyse(".kernel k\n    if p1\n    endif\n    halt\n"
                       "f:\n    if p1\n        if p1\n        endif\n    endif\n    return\n"
                       ".end\n");
  expect_depths(a.d, 1, 0);
  /* Its own nesting still answers, counted from 0. */
  cr_assert_eq(
      wave_depth_at(a.d, WAVE_DEPTH_STATIC, nth_node(wave_module_first_kernel(a.module), 2)), 2);
  release(&a);
  a = analyse(".kernel k\n    if p1\n    endif\n    @p1 halt\n"
              "f:\n    if p1\n        if p1\n        endif\n    endif\n    return\n.end\n");
  expect_depths(a.d, 2, 2);
  release(&a);
}

/* f calls g at its top level, g calls f inside a loop: every lap adds a frame. The way goes
 * into f, then once around: call g, the loop, call f. */
Test(depth, recursion_that_deepens_is_unbounded) {
  analysed a = analyse(".kernel k\n"         /* 1 */
                       "    call f\n"        /* 2 */
                       "    halt\n"
                       "f:\n"
                       "    call g\n"        /* 5 */
                       "    return\n"
                       "g:\n"
                       "    loop\n"          /* 8 */
                       "        call f\n"    /* 9 */
                       "        break p1\n"
                       "    endloop\n"
                       "    return\n.end\n");
  cr_assert(wave_depth_unbounded(a.d, WAVE_DEPTH_STATIC));
  cr_assert(wave_depth_unbounded(a.d, WAVE_DEPTH_DIVERGENT));
  cr_assert_eq(wave_depth_max(a.d, WAVE_DEPTH_STATIC), WAVE_DEPTH_UNBOUNDED);
  expect_way(a.d, WAVE_DEPTH_STATIC, "call2 [call5 loop8 call9]");
  cr_assert_eq(
      wave_depth_at(a.d, WAVE_DEPTH_STATIC, nth_node(wave_module_first_kernel(a.module), 0)),
      WAVE_DEPTH_UNBOUNDED);
  release(&a);
}

/* Recursion at the top level of a subroutine never deepens the stack: bounded. A uniform
 * recursion deepens only the static depth. */
Test(depth, recursion_without_frames_stays_bounded) {
  analysed a = analyse(".kernel k\n    call f\n    halt\n"
                       "f:\n    call f\n    if p1\n    endif\n    return\n.end\n");
  expect_depths(a.d, 1, 1);
  expect_way(a.d, WAVE_DEPTH_STATIC, "call2 if6");
  release(&a);
  a = analyse(".kernel k\n    call f\n    halt\n"
              "f:\n    mov_imm r1, 0\n    icmp_eq p2, r1, r1\n    if p2\n        call f\n"
              "    endif\n    return\n.end\n");
  cr_assert(wave_depth_unbounded(a.d, WAVE_DEPTH_STATIC));
  cr_assert_eq(wave_depth_max(a.d, WAVE_DEPTH_DIVERGENT), 0);
  expect_way(a.d, WAVE_DEPTH_STATIC, "call2 [if7 call8]");
  expect_way(a.d, WAVE_DEPTH_DIVERGENT, "");
  release(&a);
}

/* Each kernel of a module on its own, through the pass manager: the result it caches is the
 * one computed directly, and print<depth> writes the summary line first. */
static int append(void *ctx, const char *data, size_t len) {
  strncat(ctx, data, len);
  return 0;
}

Test(depth, analysis_manager_and_printer) {
  wave_module *m = tu_parse_ok(".kernel a\n    if p1\n        loop\n            break p1\n"
                               "        endloop\n    endif\n    halt\n.end\n"
                               ".kernel b\n    halt\n.end\n", "test.wave", true);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_analysis_id id = wave_pass_registry_find_analysis(registry, "depth");
  cr_assert_geq(id, 0);
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &diags);
  wave_foreach_kernel(k, m) {
    const wave_depth *cached = wave_analysis_get(am, k, id);
    cr_assert_not_null(cached);
    analysed a = analyse_kernel(NULL, k);
    cr_assert(wave_depth_equal(cached, a.d));
    wave_depth_destroy(a.d);
    wave_uniformity_destroy(a.u);
  }
  char out[512] = "";
  cr_assert_eq(wave_depth_print(wave_analysis_get(am, wave_module_first_kernel(m), id),
                                wave_module_first_kernel(m), append, out),
               0);
  /* p1 is a kernel argument: the if and the loop are uniform. */
  cr_assert_str_eq(out, "a: static depth 2, divergent depth 0\n"
                        "; static: if (line 2) > loop (line 3)\n"
                        "; divergent: (none)\n");
  wave_analysis_manager_destroy(am);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
  wave_module_destroy(m);
}

/* ---- depth without recursion ---------------------------------------------------------------- */

/* wave_depth_path_print: every step without a bound or within it; past it the first and last
 * half of the bound and the count of those left out; the step where a recursion starts is
 * kept with its bracket, also when it lies among those left out. */
static void expect_path(wave_depth_path p, size_t max_steps, const char *expected) {
  char out[1024] = "";
  cr_assert_eq(wave_depth_path_print(p, max_steps, append, out), 0);
  cr_assert_str_eq(out, expected, "max_steps %zu", max_steps);
}

Test(depth, path_printed_whole_or_by_its_ends) {
  /* Ten constructs from line 4 on: if, loop, if, loop, ... (nest_text below). */
  analysed a = analyse(".kernel k\n    mov_sr r1, sr_lane_id\n    icmp_lt p1, r1, r2\n"
                       "if p1\nloop\nif p1\nloop\nif p1\nloop\nif p1\nloop\nif p1\nloop\n"
                       "nop\nendloop\nendif\nendloop\nendif\nendloop\nendif\nendloop\nendif\n"
                       "endloop\nendif\nhalt\n.end\n");
  wave_depth_path p = wave_depth_deepest(a.d, WAVE_DEPTH_STATIC);
  cr_assert_eq(p.length, 10);
  const char *all = "if (line 4) > loop (line 5) > if (line 6) > loop (line 7) > if (line 8) > "
                    "loop (line 9) > if (line 10) > loop (line 11) > if (line 12) > "
                    "loop (line 13)";
  expect_path(p, 0, all);
  expect_path(p, 10, all);
  expect_path(p, 4, "if (line 4) > loop (line 5) > ... 6 more ... > if (line 12) > loop (line 13)");
  expect_path(p, 9, "if (line 4) > loop (line 5) > if (line 6) > loop (line 7) > ... 2 more ... "
                    "> if (line 10) > loop (line 11) > if (line 12) > loop (line 13)");
  expect_path(wave_depth_deepest(a.d, WAVE_DEPTH_DIVERGENT), 2,
              "if (line 4) > ... 3 more ... > if (line 12)");
  release(&a);
  a = analyse(".kernel k\n    call f\n    halt\nf:\n    call g\n    return\ng:\n    loop\n"
              "        call f\n        break p1\n    endloop\n    return\n.end\n");
  p = wave_depth_deepest(a.d, WAVE_DEPTH_STATIC);
  expect_path(p, 0, "call f (line 2) > [call g (line 5) > loop (line 8) > call f (line 9)] "
                    "repeats without end");
  expect_path(p, 2, "call f (line 2) > [call g (line 5) > ... 1 more ... > call f (line 9)] "
                    "repeats without end");
  release(&a);
  char empty[8] = "";
  cr_assert_eq(wave_depth_path_print((wave_depth_path){NULL, 0, 0}, 4, append, empty), 0);
  cr_assert_str_eq(empty, "(none)");
}

/* 100 000 nested constructs, ifs on a lane predicate (divergent) and loops without break
 * (uniform), alternating, with `bottom` inside them all and subroutine f after them. */
static char *nest_text(unsigned depth, const char *bottom) {
  size_t cap = (size_t)depth * 16 + 256, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  len += (size_t)sprintf(text, ".kernel deep\n    mov_sr r1, sr_lane_id\n"
                               "    icmp_lt p1, r1, r2\n");
  for (unsigned i = 0; i < depth; i++)
    len += (size_t)sprintf(text + len, i % 2 ? "loop\n" : "if p1\n");
  len += (size_t)sprintf(text + len, "%s\n", bottom);
  for (unsigned i = depth; i-- > 0;)
    len += (size_t)sprintf(text + len, i % 2 ? "endloop\n" : "endif\n");
  sprintf(text + len, "halt\nf:\nif p1\nendif\nreturn\n.end\n");
  return text;
}

enum { DEEP = 100000 };

Test(depth, nest_100000_deep) {
  char *text = nest_text(DEEP, "nop");
  analysed a = analyse(text);
  expect_depths(a.d, DEEP, DEEP / 2);
  wave_depth_path p = wave_depth_deepest(a.d, WAVE_DEPTH_STATIC);
  cr_assert_eq(p.length, DEEP);
  cr_assert_eq(p.cycle, p.length);
  cr_assert_eq(wave_node_kind_of(p.steps[DEEP - 1].node), WAVE_NODE_LOOP);
  cr_assert_eq(wave_depth_deepest(a.d, WAVE_DEPTH_DIVERGENT).length, DEEP / 2);
  release(&a);
  free(text);
}

/* The same nest with a call at the bottom into f (one if, divergent: p1 is at a subroutine's
 * entry). The call makes every register divergent, which each loop's header learns from
 * inside; the uniformity analysis still takes time linear in the depth. */
Test(depth, nest_100000_deep_with_a_call_at_the_bottom) {
  char *text = nest_text(DEEP, "call f");
  analysed a = analyse(text);
  expect_depths(a.d, DEEP + 1, DEEP / 2 + 1);
  wave_depth_path p = wave_depth_deepest(a.d, WAVE_DEPTH_STATIC);
  cr_assert_eq(p.length, DEEP + 2);
  cr_assert_not_null(p.steps[DEEP].call);
  cr_assert_eq(wave_node_kind_of(p.steps[DEEP + 1].node), WAVE_NODE_IF);
  p = wave_depth_deepest(a.d, WAVE_DEPTH_DIVERGENT);
  cr_assert_eq(p.length, DEEP / 2 + 2);
  cr_assert_not_null(p.steps[DEEP / 2].call);
  cr_assert_eq(wave_node_kind_of(p.steps[DEEP / 2 + 1].node), WAVE_NODE_IF);
  release(&a);
  free(text);
}

/* 100 000 subroutines, each calling the next inside an if: the region graph is one long path,
 * entered at depth i by subroutine i. */
Test(depth, call_chain_100000_long) {
  enum { N = 100000 };
  size_t cap = (size_t)N * 80 + 256, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  len += (size_t)sprintf(text, ".kernel chain\n    if p1\n        call f1\n    endif\n    halt\n");
  for (int i = 1; i < N; i++)
    len += (size_t)sprintf(text + len, "f%d:\n    if p1\n        call f%d\n    endif\n    return\n",
                           i, i + 1);
  len += (size_t)sprintf(text + len, "f%d:\n    if p1\n    endif\n    return\n.end\n", N);
  analysed a = analyse(text);
  expect_depths(a.d, N + 1, N);   /* the entry's if tests a kernel argument */
  cr_assert_eq(wave_depth_deepest(a.d, WAVE_DEPTH_STATIC).length, 2 * N + 1);
  release(&a);
  free(text);
}

/* ---- the soundness gate ---------------------------------------------------------------------- */

static wave_machine *run_with_limit(const wave_kernel *k, wave_launch_config *config,
                                    uint32_t limit) {
  config->max_depth = limit;
  wave_machine *m = wave_simulate(k, config, NULL);
  cr_assert_not_null(m);
  return m;
}

static const char *run_error(const wave_machine *m) {
  const wave_run_error *e = wave_machine_error(m);
  return e && e->message ? e->message : "";
}

/* Runs k with the stack limited to its static depth: the run must succeed and never go
 * deeper. Returns the deepest stack seen. */
static uint32_t check_run(const wave_kernel *k, wave_launch_config *config, const wave_depth *d,
                          const char *who) {
  uint32_t bound = wave_depth_max(d, WAVE_DEPTH_STATIC);
  cr_assert_not(wave_depth_unbounded(d, WAVE_DEPTH_STATIC), "%s", who);
  cr_assert_leq(wave_depth_max(d, WAVE_DEPTH_DIVERGENT), bound, "%s", who);
  wave_machine *m = run_with_limit(k, config, bound);
  cr_assert_eq(wave_machine_status(m), WAVE_RUN_OK, "%s, stack limited to the static depth %u: %s",
               who, bound, run_error(m));
  const wave_counters *c = wave_machine_counters(m);
  uint32_t seen = c->max_depth;
  cr_assert_leq(seen, bound, "%s: the interpreter reached %u frames, static depth %u", who, seen,
                bound);
  if (wave_depth_max(d, WAVE_DEPTH_DIVERGENT) == 0)
    cr_assert(c->divergent_ifs == 0 && c->divergent_loops == 0,
              "%s: divergent depth 0, yet the wave split", who);
  wave_machine_destroy(m);
  return seen;
}

/* Whether a limit one below the static depth trips the interpreter's depth error. */
static bool one_less_trips(const wave_kernel *k, wave_launch_config *config, const wave_depth *d) {
  uint32_t bound = wave_depth_max(d, WAVE_DEPTH_STATIC);
  if (bound < 2)
    return false;   /* 0 would mean no limit */
  wave_machine *m = run_with_limit(k, config, bound - 1);
  const wave_run_error *e = wave_machine_error(m);
  bool tripped = wave_machine_status(m) == WAVE_RUN_ERROR && e && e->kind == WAVE_ERR_DEPTH;
  wave_machine_destroy(m);
  return tripped;
}

#define GATE_SEEDS 400

Test(depth, generated_kernels_stay_within_the_static_depth, .timeout = 300) {
  static const uint32_t widths[] = {8, 32, 64};
  unsigned kernels = 0, tight = 0, tripped = 0;
  for (uint64_t seed = 1; seed <= GATE_SEEDS; seed++)
    for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
      wave_gen_options o;
      wave_gen_options_init(&o);
      o.seed = seed * 3 + w;
      o.size = 150;
      o.max_depth = 1 + (unsigned)(seed % WAVE_GEN_MAX_DEPTH);
      wave_gen_launch g;
      wave_module *mod = tu_generate(&o, &g);
      analysed a = analyse_kernel(mod, wave_module_first_kernel(mod));
      wave_launch_config config;
      wave_launch_config_init(&config);
      wave_reg_value presets[WAVE_GEN_MAX_ARGS];
      tu_gen_launch_config(&g, &config, presets);
      config.wave_width = widths[w];
      char who[96];
      snprintf(who, sizeof(who), "seed %llu, width %u", (unsigned long long)o.seed, widths[w]);
      uint32_t seen = check_run(wave_module_first_kernel(mod), &config, a.d, who);
      tight += seen == wave_depth_max(a.d, WAVE_DEPTH_STATIC);
      tripped += one_less_trips(wave_module_first_kernel(mod), &config, a.d);
      kernels++;
      release(&a);
    }
  cr_log_info("%u kernels, %u reach their static depth, %u trip a limit one below it", kernels,
              tight, tripped);
  cr_assert_geq(kernels, 1000);
  cr_assert_gt(tripped, 0, "no kernel reaches its static depth: the gate cannot fail");
}

/* The corpus kernels that run with plain presets (r0, r1, ... = 0x1000, 0x2000, ...) and
 * zeroed memory; those that stop with an error on such inputs are skipped. */
Test(depth, corpus_kernels_stay_within_the_static_depth, .timeout = 120) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  unsigned ran = 0, skipped = 0, deep = 0;
  for (size_t i = 0; i < n; i++) {
    wave_module *m = tu_parse_corpus(files[i].name);
    for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k)) {
      wave_reg_value presets[6];
      for (uint32_t r = 0; r < 6; r++)
        presets[r] = (wave_reg_value){r, 0x1000 * (r + 1)};
      wave_launch_config config;
      wave_launch_config_init(&config);
      config.presets = presets;
      config.num_presets = 6;
      wave_machine *plain = run_with_limit(k, &config, 0);
      bool runs = wave_machine_status(plain) == WAVE_RUN_OK;
      wave_machine_destroy(plain);
      if (!runs) {
        skipped++;
        continue;
      }
      analysed a = analyse_kernel(NULL, k);
      char who[160];
      snprintf(who, sizeof(who), "%s:%s", files[i].name, wave_kernel_name(k));
      deep += check_run(k, &config, a.d, who) > 0;
      release(&a);
      ran++;
    }
    wave_module_destroy(m);
  }
  cr_log_info("%u corpus kernels checked, %u skipped", ran, skipped);
  cr_assert_geq(ran, 20, "only %u corpus kernels ran", ran);
  cr_assert_geq(deep, 10, "only %u corpus kernels open a frame", deep);
}
