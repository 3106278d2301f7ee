/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass manager, driven only through the public API, the way an embedder would: every test
 * registers its own passes and analyses (none ship yet), which also proves that one can. The
 * passes work on `nop`s so that what they did is easy to count: remove-nops deletes some, the
 * liars delete one and misreport it, read-count only asks for the nop-count analysis. The
 * target profiles the passes read are checked at the end: the observed facts of each row, and
 * `portable` staying the weakest of them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
/* The library's private layout: this test breaks a link by hand in one pass, as no editing function
 * can, to see the manager report it. */
#include "ir/code.h"
#include "waveopt/gen.h"
#include "waveopt/pass.h"

/* ---- the test's passes and analyses --------------------------------------------------------- */

/* Criterion runs every test in its own process, so these counters start at 0 in each. */
static unsigned nop_count_computed, nop_parity_computed;
static wave_analysis_id nop_count_id, nop_parity_id;

/* How many nops the kernel has, and the first of them in *first (NULL when none). */
static unsigned find_nops(wave_kernel *kernel, wave_instr **first) {
  unsigned n = 0;
  *first = NULL;
  for (wave_region *r = wave_kernel_first_region(kernel); r; r = wave_region_next(r)) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (wave_walk_next(&w))
      if (w.event == WAVE_WALK_BLOCK)
        for (wave_instr *i = w.node->u.block.first; i; i = wave_instr_next(i))
          if (wave_instr_op(i) == WAVE_OP_NOP && n++ == 0)
            *first = i;
  }
  return n;
}

static wave_instr *first_nop(wave_kernel *kernel) {
  wave_instr *first;
  find_nops(kernel, &first);
  return first;
}

static unsigned count_nops(wave_kernel *kernel) {
  wave_instr *first;
  return find_nops(kernel, &first);
}

typedef struct count_result {
  unsigned nops;
} count_result;

static void *compute_nop_count(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *d) {
  nop_count_computed++;
  count_result *r = malloc(sizeof(*r));
  r->nops = count_nops(kernel);
  return r;
}

static bool equal_counts(const void *a, const void *b) {
  return ((const count_result *)a)->nops == ((const count_result *)b)->nops;
}

static int print_nop_count(const void *result, const wave_kernel *kernel, wave_write_fn write,
                           void *ctx) {
  char text[64];
  int n = snprintf(text, sizeof(text), "nops: %u\n", ((const count_result *)result)->nops);
  return write(ctx, text, (size_t)n);
}

/* Computed from nop-count, so it must go whenever nop-count goes. */
static void *compute_nop_parity(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *d) {
  nop_parity_computed++;
  const count_result *count = wave_analysis_get(am, kernel, nop_count_id);
  if (!count)
    return NULL;
  count_result *r = malloc(sizeof(*r));
  r->nops = count->nops % 2;
  return r;
}

static wave_analysis_id self_id;

static void *compute_self(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *d) {
  return (void *)wave_analysis_get(am, kernel, self_id);
}

/* Finds fault with every nop: an error when asked for by name, a warning under lint. */
static void diagnose_nops(const void *result, const wave_kernel *kernel, bool asked,
                          wave_diags *d) {
  if (((const count_result *)result)->nops)
    wave_diag_report(d, asked ? WAVE_SEV_ERROR : WAVE_SEV_WARNING, "nops", wave_kernel_loc(kernel),
                     NULL, 0, "kernel '%s': nops: %u", wave_kernel_name(kernel),
                     ((const count_result *)result)->nops);
}

static const wave_analysis_info nop_count = {
    "nop-count", "counts the nops", compute_nop_count, free, equal_counts, print_nop_count,
    diagnose_nops};
static const wave_analysis_info nop_parity = {
    "nop-parity", "whether the nops are odd", compute_nop_parity, free, equal_counts, NULL, NULL};
static const wave_analysis_info self_analysis = {
    "self", "needs itself", compute_self, free, NULL, NULL, NULL};

enum { OPT_MAX, OPT_SETTLED };
static const wave_pass_option_info remove_nops_options[] = {
    {"remove-nops-max", "how many nops one run removes", 1},
    {"remove-nops-settled", "1: claim that a second run would change nothing", 0},
};

/* Removes up to remove-nops-max nops; preserves nothing, as an honest pass that edits code.
 * With remove-nops-settled it claims its output as its own fixpoint, truly only when it may
 * remove every nop. */
static wave_pass_result run_remove_nops(wave_kernel *kernel, wave_analysis_manager *am,
                                        wave_pass_context *ctx) {
  int64_t max = wave_pass_option(ctx, OPT_MAX);
  unsigned removed = 0;
  wave_instr *nop;
  while (removed < max && (nop = first_nop(kernel))) {
    wave_remark_passed(ctx, "nop-removed", wave_instr_loc(nop), "removed a nop");
    wave_instr_remove(nop);
    removed++;
  }
  if (!removed)
    wave_remark_missed(ctx, "no-nop", wave_kernel_loc(kernel), "kernel %s has no nop",
                       wave_kernel_name(kernel));
  wave_pass_stat_add(ctx, "nops-removed", "Number of nops removed", removed);
  if (wave_pass_option(ctx, OPT_SETTLED))
    return wave_pass_done_settled(removed > 0, WAVE_PRESERVE_NONE);
  return wave_pass_done(removed > 0, WAVE_PRESERVE_NONE);
}

static wave_pass_result run_read_count(wave_kernel *kernel, wave_analysis_manager *am,
                                       wave_pass_context *ctx) {
  const count_result *count = wave_analysis_get(am, kernel, nop_count_id);
  if (!count)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "no nop count");
  if (wave_remark_enabled(ctx, WAVE_REMARK_ANALYSIS))
    wave_remark_analysis(ctx, "nops", wave_kernel_loc(kernel), "%u nops", count->nops);
  return wave_pass_done(false, WAVE_PRESERVE_NONE);
}

static wave_pass_result run_read_parity(wave_kernel *kernel, wave_analysis_manager *am,
                                        wave_pass_context *ctx) {
  if (!wave_analysis_get(am, kernel, nop_parity_id))
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "no nop parity");
  return wave_pass_done(false, WAVE_PRESERVE_NONE);
}

/* Changes the kernel without touching a nop, and says so truthfully. */
static wave_pass_result run_grow_registers(wave_kernel *kernel, wave_analysis_manager *am,
                                           wave_pass_context *ctx) {
  wave_kernel_set_registers(kernel, wave_kernel_registers(kernel) + 1);
  return wave_pass_done(true, WAVE_PRESERVE(nop_count_id) | WAVE_PRESERVE(nop_parity_id));
}

static wave_pass_result run_lying_preserver(wave_kernel *kernel, wave_analysis_manager *am,
                                            wave_pass_context *ctx) {
  wave_instr *nop = first_nop(kernel);
  if (nop)
    wave_instr_remove(nop);
  return wave_pass_done(nop != NULL, WAVE_PRESERVE_ALL);
}

static wave_pass_result run_silent_changer(wave_kernel *kernel, wave_analysis_manager *am,
                                           wave_pass_context *ctx) {
  wave_instr *nop = first_nop(kernel);
  if (nop)
    wave_instr_remove(nop);
  return wave_pass_done(false, WAVE_PRESERVE_NONE);
}

/* Leaves an iadd with one operand behind: invalid IR that claims to be a change. */
static wave_pass_result run_breaker(wave_kernel *kernel, wave_analysis_manager *am,
                                    wave_pass_context *ctx) {
  wave_operand r1 = wave_gpr(1);
  wave_instr *bad =
      wave_instr_create(wave_kernel_module(kernel), WAVE_OP_IADD, WAVE_NO_GUARD, false, 1, &r1);
  wave_instr_insert_before(first_nop(kernel), bad);
  return wave_pass_done(true, WAVE_PRESERVE_NONE);
}

/* Unlinks an instruction's back-link to its block: valid text, broken tree. */
static wave_pass_result run_unlinker(wave_kernel *kernel, wave_analysis_manager *am,
                                     wave_pass_context *ctx) {
  first_nop(kernel)->owner = (uintptr_t)wave_kernel_module(kernel) | 1;
  return wave_pass_done(true, WAVE_PRESERVE_NONE);
}

static wave_pass_result run_failing(wave_kernel *kernel, wave_analysis_manager *am,
                                    wave_pass_context *ctx) {
  return wave_pass_fail(ctx, wave_kernel_loc(kernel), "kernel %s cannot be handled",
                        wave_kernel_name(kernel));
}

static wave_pass_result run_mute_failure(wave_kernel *kernel, wave_analysis_manager *am,
                                         wave_pass_context *ctx) {
  wave_pass_result failed = {false, true, WAVE_PRESERVE_NONE, false};
  return failed;
}

static const char *seen_target;

static wave_pass_result run_note_target(wave_kernel *kernel, wave_analysis_manager *am,
                                        wave_pass_context *ctx) {
  seen_target = wave_pass_target(ctx)->name;
  cr_assert_eq(wave_analysis_manager_target(am), wave_pass_target(ctx));
  return wave_pass_done(false, WAVE_PRESERVE_NONE);
}

#define PASS(name, fn) {name, "test pass " name, NULL, 0, fn}
static const wave_pass_info test_passes[] = {
    {"remove-nops", "removes nops", remove_nops_options, 2, run_remove_nops},
    PASS("read-count", run_read_count),
    PASS("read-parity", run_read_parity),
    PASS("grow-registers", run_grow_registers),
    PASS("lying-preserver", run_lying_preserver),
    PASS("silent-changer", run_silent_changer),
    PASS("breaker", run_breaker),
    PASS("unlinker", run_unlinker),
    PASS("failing", run_failing),
    PASS("mute-failure", run_mute_failure),
    PASS("note-target", run_note_target),
};

#define TWO_KERNELS                                                                      \
  ".kernel a\n    nop\n    nop\n    nop\n    halt\n.end\n.kernel b\n    nop\n    halt\n.end\n"

static wave_pass_registry *registry;
static wave_diags diags;
static wave_pipeline_result result;
static wave_module *mod;   /* TWO_KERNELS unless a test reparses */

static void setup(void) {
  wave_diags_init(&diags);
  registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  for (size_t i = 0; i < sizeof(test_passes) / sizeof(test_passes[0]); i++)
    cr_assert(wave_pass_registry_add_pass(registry, &test_passes[i], &diags));
  nop_count_id = wave_pass_registry_add_analysis(registry, &nop_count, &diags);
  nop_parity_id = wave_pass_registry_add_analysis(registry, &nop_parity, &diags);
  self_id = wave_pass_registry_add_analysis(registry, &self_analysis, &diags);
  cr_assert(nop_count_id >= 0 && nop_parity_id >= 0 && self_id >= 0);
  mod = tu_parse_ok(TWO_KERNELS, "t.wave", true);
}

static void teardown(void) {
  wave_module_destroy(mod);
  wave_pipeline_result_free(&result);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
}

TestSuite(pm, .init = setup, .fini = teardown);

static wave_pipeline *parse_ok(const char *text) {
  wave_pipeline *p = wave_pipeline_parse(registry, text, &diags);
  if (!p)
    tu_log_diags(&diags);
  cr_assert_not_null(p, "'%s' does not parse", text);
  return p;
}

/* The one error a pipeline text draws, its message and its column. */
static void parse_fails(const char *text, const char *message, uint32_t col) {
  wave_diags d;
  wave_diags_init(&d);
  cr_assert_null(wave_pipeline_parse(registry, text, &d), "'%s' parses", text);
  cr_assert_eq(d.count, 1, "'%s': %zu diagnostics", text, d.count);
  cr_assert_str_eq(d.items[0].message, message, "'%s'", text);
  cr_assert_eq(d.items[0].col, col, "'%s': column %u", text, d.items[0].col);
  /* The pipeline quoted, a long one by WAVE_DIAG_SOURCE_MAX bytes around the column. */
  const wave_diag *q = &d.items[0];
  if (strlen(text) <= WAVE_DIAG_SOURCE_MAX) {
    cr_assert_str_eq(q->source_line, text);
  } else {
    cr_assert_leq(strlen(q->source_line), 3 + WAVE_DIAG_SOURCE_MAX + 3, "'%s'", text);
    if (col <= strlen(text))
      cr_assert_eq(q->source_line[q->caret_col - 1], text[col - 1], "'%s'", text);
  }
  wave_diags_free(&d);
}

static void reparse(const char *text, bool quiet) {
  wave_module_destroy(mod);
  mod = tu_parse_ok(text, "t.wave", quiet);
}

static bool run(const char *pipeline_text, const wave_pipeline_options *o) {
  wave_pipeline *p = parse_ok(pipeline_text);
  bool ok = wave_pipeline_run(p, mod, o, &result, &diags);
  wave_pipeline_destroy(p);
  return ok;
}

static bool has_message(const char *text) {
  for (size_t i = 0; i < diags.count; i++)
    if (strstr(diags.items[i].message, text))
      return true;
  return false;
}

/* ---- registry ------------------------------------------------------------------------------- */

static size_t count_passes(const wave_pass_registry *r) {
  size_t n = 0;
  while (wave_pass_registry_pass_at(r, n))
    n++;
  return n;
}

Test(pm, registry_finds_what_was_added) {
  cr_assert_eq(wave_pass_registry_find_pass(registry, "read-count"), &test_passes[1]);
  cr_assert_null(wave_pass_registry_find_pass(registry, "read_count"));
  cr_assert_eq(wave_pass_registry_find_analysis(registry, "nop-parity"), nop_parity_id);
  cr_assert_eq(wave_pass_registry_find_analysis(registry, "nope"), -1);
  cr_assert_eq(wave_pass_registry_analysis_at(registry, nop_count_id), &nop_count);
  cr_assert_null(wave_pass_registry_analysis_at(registry, -1));
  size_t index = 9;
  cr_assert_eq(wave_pass_registry_find_option(registry, "remove-nops-max", &index),
               &test_passes[0]);
  cr_assert_eq(index, 0);
  cr_assert_geq(count_passes(registry), sizeof(test_passes) / sizeof(test_passes[0]));
}

Test(pm, registry_refuses_bad_names) {
  static const wave_pass_info bad[] = {
      PASS("Read-Count", run_read_count), PASS("read--count", run_read_count),
      PASS("read-count-", run_read_count), PASS("fixpoint", run_read_count),
      PASS("print", run_read_count), PASS("read-count", run_read_count),
      {"no-run", "lacks its run function", NULL, 0, NULL},
      {"taken-option", "declares an option someone has", remove_nops_options, 1, run_read_count},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    size_t errors = diags.num_errors;
    cr_assert_not(wave_pass_registry_add_pass(registry, &bad[i], &diags), "%s", bad[i].name);
    cr_assert_eq(diags.num_errors, errors + 1, "%s", bad[i].name);
  }
  cr_assert_eq(wave_pass_registry_add_analysis(registry, &nop_count, &diags), -1);
  cr_assert(has_message("an analysis named 'nop-count' is already registered"));
  cr_assert(has_message("'fixpoint' is a word of the pipeline syntax"));
  cr_assert(has_message("an option named 'remove-nops-max' is already registered"));
}

Test(pm, registries_are_separate_values) {
  wave_pass_registry *other = wave_pass_registry_create();
  cr_assert_not_null(other);
  cr_assert_null(wave_pass_registry_find_pass(other, "read-count"));
  cr_assert_null(wave_pipeline_parse(other, "read-count", &diags));
  wave_pass_registry_destroy(other);
}

/* A plugin that `make check` built (tests/plugin, examples/plugin), in the build tree. */
static void plugin_path(char *buf, size_t size, const char *file) {
  const char *build = getenv("WAVE_BUILDDIR");
  snprintf(buf, size, "%s/%s", build ? build : ".", file);
}

/* broken_registration.so adds an analysis, then fails on a taken pass name: the analysis must
 * come off again (its record lives in the object, which the failed load closes), and the
 * registry must go on taking plugins, the good one getting the analysis's place. */
Test(pm, a_failed_plugin_leaves_the_registry_as_it_was) {
  wave_pass_registry *r = wave_pass_registry_create();
  cr_assert_not_null(r);
  size_t passes = count_passes(r);
  wave_analysis_id next = wave_pass_registry_add_analysis(r, &nop_count, &diags) + 1;
  char path[4096];
  plugin_path(path, sizeof(path), "tests/plugin/.libs/broken_registration.so");
  cr_assert_not(wave_pass_registry_load_plugin(r, path, &diags));
  cr_assert(has_message("a pass named 'dce' is already registered"));
  cr_assert(has_message("cannot load pass plugin: its registration failed: broken"));
  cr_assert_eq(wave_pass_registry_find_analysis(r, "leftover"), -1);
  cr_assert_null(wave_pass_registry_analysis_at(r, next));
  cr_assert_eq(count_passes(r), passes);

  plugin_path(path, sizeof(path), "examples/plugin/.libs/canon_plugin.so");
  cr_assert(wave_pass_registry_load_plugin(r, path, &diags));
  cr_assert_eq(wave_pass_registry_find_analysis(r, "commutative-ops"), next);
  cr_assert_not_null(wave_pass_registry_find_pass(r, "canon-commutative"));
  cr_assert_eq(count_passes(r), passes + 2);
  wave_pipeline *p = wave_pipeline_parse(r, "canon-commutative,refuse-idiv", &diags);
  cr_assert_not_null(p);
  wave_pipeline_destroy(p);
  wave_pass_registry_destroy(r);
}

/* r40 in a kernel of .registers 8 fails the verifier. Passes index register sets by what they
 * read, so the run must refuse the module before any of them sees it, and leave it as it was;
 * told that the caller verified it, it trusts that. */
Test(pm, a_module_that_does_not_verify_is_refused) {
  wave_module *m = wave_module_create("bad.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_kernel_set_registers(k, 8);
  wave_builder b = wave_builder_at(
      m, wave_cursor_list_end(wave_region_body(wave_kernel_first_region(k))), (wave_loc){0});
  cr_assert(wave_build(&b, WAVE_OP_IADD, wave_gpr(40), wave_gpr(1), wave_gpr(2)));
  cr_assert(wave_build_instr(&b, WAVE_OP_HALT, 0, NULL));
  char *before = wave_print_to_string(m, NULL, NULL);
  wave_pipeline *p = wave_pipeline_parse(registry, "remove-nops,read-count", &diags);
  cr_assert_not_null(p);
  wave_pipeline_result refused = {0};
  cr_assert_not(wave_pipeline_run(p, m, NULL, &refused, &diags));
  cr_assert(has_message("the module does not verify: no pass was run"));
  cr_assert(has_message("r40"), "the verifier's own error is reported");
  cr_assert_eq(nop_count_computed, 0, "no analysis was computed");
  char *after = wave_print_to_string(m, NULL, NULL);
  cr_assert_str_eq(before, after);
  free(before);
  free(after);
  wave_pipeline_result_free(&refused);
  wave_pipeline_destroy(p);
  wave_module_destroy(m);
}

/* ---- pipeline text -------------------------------------------------------------------------- */

Test(pm, printing_round_trips) {
  static const char *const texts[] = {
      "",
      "read-count",
      "remove-nops,read-count",
      "fixpoint(remove-nops)",
      "fixpoint<max=3>(remove-nops,fixpoint(read-count,grow-registers)),print<nop-count>",
      "print<nop-count>,fixpoint<max=1>(fixpoint<max=2>(fixpoint(read-count)))",
  };
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
    wave_pipeline *p = parse_ok(texts[i]);
    char *printed = wave_pipeline_print(p);
    cr_assert_str_eq(printed, texts[i]);
    wave_pipeline *again = parse_ok(printed);
    char *reprinted = wave_pipeline_print(again);
    cr_assert_str_eq(reprinted, printed);
    free(printed);
    free(reprinted);
    wave_pipeline_destroy(p);
    wave_pipeline_destroy(again);
  }
}

Test(pm, default_fixpoint_limit_is_not_printed) {
  wave_pipeline *p = parse_ok("fixpoint<max=8>(read-count)");
  char *printed = wave_pipeline_print(p);
  cr_assert_str_eq(printed, "fixpoint(read-count)");
  free(printed);
  wave_pipeline_destroy(p);
}

Test(pm, parse_errors_name_the_column) {
  parse_fails("remove-nop", "unknown pass 'remove-nop'; did you mean 'remove-nops'?", 1);
  parse_fails("read-count,reed-count", "unknown pass 'reed-count'; did you mean 'read-count'?",
              12);
  parse_fails("frobnicate", "unknown pass 'frobnicate'", 1);
  parse_fails("print<nop-cont>", "unknown analysis 'nop-cont'; did you mean 'nop-count'?", 7);
  parse_fails("print<nop-parity>", "analysis 'nop-parity' has no printer", 7);
  parse_fails("read-count,", "expected a pass name at the end of the pipeline", 12);
  parse_fails(",read-count", "expected a pass name before ','", 1);
  parse_fails("read-count)", "')' closes no fixpoint", 11);
  parse_fails("fixpoint(read-count", "expected ')' to close 'fixpoint('", 20);
  parse_fails("fixpoint()", "a fixpoint needs at least one pass", 10);
  parse_fails("fixpoint read-count", "expected '(' after 'fixpoint'", 9);
  parse_fails("fixpoint<max=0>(read-count)", "expected an iteration count from 1 to 4294967295",
              14);
  parse_fails("fixpoint<limit=2>(read-count)", "expected 'max=N' after 'fixpoint<'", 10);
  parse_fails("read-count<x>", "unexpected '<' after pass 'read-count'", 11);
  parse_fails("read-count(grow-registers)", "unexpected '(' after pass 'read-count'", 11);
  parse_fails("fixpoint(read-count)grow-registers", "expected ',' or ')' before 'g'", 21);
}

Test(pm, fixpoint_nesting_is_capped) {
  char text[512] = "";
  tu_repeat(text, sizeof(text), "fixpoint(", WAVE_MAX_PIPELINE_DEPTH);
  strcat(text, "read-count");
  tu_repeat(text, sizeof(text), ")", WAVE_MAX_PIPELINE_DEPTH);
  wave_pipeline_destroy(parse_ok(text));

  char deeper[512] = "";
  tu_repeat(deeper, sizeof(deeper), "fixpoint(", WAVE_MAX_PIPELINE_DEPTH + 1);
  strcat(deeper, "read-count");
  tu_repeat(deeper, sizeof(deeper), ")", WAVE_MAX_PIPELINE_DEPTH + 1);
  parse_fails(deeper, "fixpoints nest more than 16 deep", 9 * WAVE_MAX_PIPELINE_DEPTH + 1);
}

Test(pm, levels_are_named_pipelines) {
  cr_assert_str_eq(wave_pipeline_for_level(0), "legalize");
  cr_assert_str_eq(wave_pipeline_for_level(1),
                   "lint,lower-docs,simplify-cfg,early-cse,dce,predicated-break,legalize");
  static const char o2[] =
      "lint,lower-docs,fixpoint(simplify-cfg,early-cse,licm,loop-unroll,dce,hoist-common,"
      "flatten-ifs,predicated-break,if-to-select),bound-depth,legalize";
  cr_assert_str_eq(wave_pipeline_for_level(2), o2);
  cr_assert_str_eq(wave_pipeline_for_level(3), o2);
  cr_assert_null(wave_pipeline_for_level(4));
  for (unsigned level = 0; level < 4; level++) {
    wave_pipeline *p = parse_ok(wave_pipeline_for_level(level));
    wave_pipeline_destroy(p);
  }
}

/* What no pass may produce cannot come from text (the parser and verifier refuse it), so the
 * tree is edited here as a broken pass would leave it. */
Test(pm, legalize_reports_what_no_pass_may_produce) {
  wave_instr *nop = wave_node_list_first(
                        wave_region_body(wave_kernel_first_region(wave_module_first_kernel(mod))))
                        ->u.block.first;
  /* What the verifier rejects stands for what a pass left behind: the run is told to trust
   * the module, so that legalize meets it. */
  wave_pipeline_options trusted = {0};
  trusted.assume_verified = true;
  wave_instr_set_guard(nop, 0, false);
  cr_assert_not(run("legalize", &trusted));
  cr_assert(has_message("internal error: '@p0' guard on 'nop' (found by legalize)"));
  wave_instr_set_guard(nop, WAVE_NO_GUARD, false);
  wave_instr_set_op(nop, WAVE_OP_MOV);
  cr_assert(wave_instr_set_num_operands(nop, 2));
  wave_instr_set_operand(nop, 0, wave_gpr(40));
  wave_instr_set_operand(nop, 1, wave_gpr(1));
  cr_assert_not(run("legalize", &trusted));
  cr_assert(has_message("internal error: register at or beyond .registers on 'mov' "
                        "(found by legalize)"));
}

Test(pm, pipelines_built_by_hand) {
  wave_pipeline *p = wave_pipeline_create(registry);
  cr_assert(wave_pipeline_add_pass(p, "read-count", &diags));
  cr_assert(wave_pipeline_begin_fixpoint(p, 5, &diags));
  cr_assert(wave_pipeline_add_pass(p, "remove-nops", &diags));
  cr_assert(wave_pipeline_begin_fixpoint(p, 8, &diags));
  cr_assert(wave_pipeline_add_print(p, "nop-count", &diags));
  char *open = wave_pipeline_print(p);
  cr_assert_str_eq(open, "read-count,fixpoint<max=5>(remove-nops,fixpoint(print<nop-count>");
  free(open);
  cr_assert_not(wave_pipeline_run(p, mod, NULL, &result, &diags));
  cr_assert(has_message("the pipeline has a fixpoint that is not closed"));
  cr_assert(wave_pipeline_end_fixpoint(p, &diags));
  cr_assert(wave_pipeline_end_fixpoint(p, &diags));
  char *text = wave_pipeline_print(p);
  cr_assert_str_eq(text, "read-count,fixpoint<max=5>(remove-nops,fixpoint(print<nop-count>))");
  free(text);

  size_t errors = diags.num_errors;
  cr_assert_not(wave_pipeline_end_fixpoint(p, &diags));
  cr_assert_not(wave_pipeline_add_pass(p, "read-cont", &diags));
  cr_assert_not(wave_pipeline_begin_fixpoint(p, 0, &diags));
  cr_assert(wave_pipeline_begin_fixpoint(p, 2, &diags));
  cr_assert_not(wave_pipeline_end_fixpoint(p, &diags));
  cr_assert_eq(diags.num_errors, errors + 4);
  cr_assert(has_message("unknown pass 'read-cont'; did you mean 'read-count'?"));
  cr_assert_eq(diags.items[diags.count - 1].line, 0, "no text, so no position");
  wave_pipeline_destroy(p);
}

/* ---- analyses ------------------------------------------------------------------------------- */

Test(pm, analyses_are_computed_once_while_nothing_changes) {
  cr_assert(run("read-count,read-count,read-count", NULL));
  cr_assert_eq(nop_count_computed, 2, "once per kernel");
  cr_assert_not(result.changed);
}

Test(pm, a_change_drops_what_it_does_not_preserve) {
  cr_assert(run("read-count,remove-nops,read-count", NULL));
  cr_assert_eq(nop_count_computed, 4);
  cr_assert(result.changed);
}

Test(pm, a_change_keeps_what_it_preserves) {
  cr_assert(run("read-parity,grow-registers,read-parity,read-count", NULL));
  cr_assert_eq(nop_count_computed, 2);
  cr_assert_eq(nop_parity_computed, 2);
  cr_assert(result.changed);
}

Test(pm, a_true_preservation_claim_passes_verify_each) {
  wave_pipeline_options o = {.verify_each = true};
  cr_assert(run("read-parity,grow-registers,read-parity,remove-nops,read-count", &o));
  cr_assert_eq(diags.count, 0);
}

Test(pm, dropping_an_analysis_drops_those_computed_from_it) {
  wave_kernel *a = wave_module_first_kernel(mod), *b = a->next;
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &diags);
  cr_assert_eq(wave_analysis_manager_target(am), wave_target_default());
  const count_result *parity = wave_analysis_get(am, a, nop_parity_id);
  cr_assert_eq(parity->nops, 1);
  cr_assert_not_null(wave_analysis_get(am, b, nop_parity_id));
  cr_assert_eq(nop_count_computed, 2);

  /* Keeping the parity but not the count it came from drops both. */
  wave_analysis_invalidate(am, a, WAVE_PRESERVE(nop_parity_id));
  wave_analysis_get(am, a, nop_parity_id);
  cr_assert_eq(nop_count_computed, 3);
  cr_assert_eq(nop_parity_computed, 3);
  /* Keeping the count drops only the parity; kernel b was never touched. */
  wave_analysis_invalidate(am, a, WAVE_PRESERVE(nop_count_id));
  wave_analysis_get(am, a, nop_parity_id);
  wave_analysis_get(am, b, nop_parity_id);
  cr_assert_eq(nop_count_computed, 3);
  cr_assert_eq(nop_parity_computed, 4);
  wave_analysis_manager_destroy(am);
}

Test(pm, an_analysis_needing_itself_is_an_error) {
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &diags);
  cr_assert_null(wave_analysis_get(am, wave_module_first_kernel(mod), self_id));
  cr_assert(has_message("analysis 'self' of kernel 'a' needs its own result"));
  cr_assert_null(wave_analysis_get(am, wave_module_first_kernel(mod), 63));
  wave_analysis_manager_destroy(am);
}

static int append(void *ctx, const char *data, size_t len) {
  strncat(ctx, data, len);
  return 0;
}

Test(pm, print_writes_through_the_callback) {
  char out[256] = "";
  wave_pipeline_options o = {.print_write = append, .print_ctx = out};
  cr_assert(run("remove-nops,print<nop-count>", &o));
  cr_assert_str_eq(out, "Printing analysis 'nop-count' for kernel 'a':\nnops: 2\n"
                        "Printing analysis 'nop-count' for kernel 'b':\nnops: 0\n");
}

Test(pm, print_reports_what_the_analysis_diagnoses_as_asked) {
  cr_assert(run("remove-nops,print<nop-count>", NULL));
  cr_assert_eq(diags.count, 1, "remove-nops left none in kernel b");
  cr_assert_eq(diags.items[0].severity, WAVE_SEV_ERROR);
  cr_assert_str_eq(diags.items[0].message, "kernel 'a': nops: 2");
}

Test(pm, lint_reports_every_diagnosing_analysis_as_warnings_and_changes_nothing) {
  cr_assert(run("lint", NULL));
  cr_assert_not(result.changed);
  cr_assert_eq(diags.count, 2);
  cr_assert_eq(diags.items[0].severity, WAVE_SEV_WARNING);
  cr_assert_str_eq(diags.items[1].message, "kernel 'b': nops: 1");
  cr_assert_str_eq(diags.items[0].flag, "nops");
  cr_assert_eq(nop_parity_computed, 0, "an analysis without a diagnose hook is not computed");
}

Test(pm, lint_computes_nothing_when_warnings_are_dropped) {
  diags.ignore_warnings = true;
  cr_assert(run("lint", NULL));
  cr_assert_eq(diags.count, 0);
  cr_assert_eq(nop_count_computed, 0, "nobody would hear what it diagnoses");
}

Test(pm, analyses_diagnose_nothing_unless_printed_or_linted) {
  cr_assert(run("read-count,remove-nops", NULL));
  cr_assert_eq(diags.count, 0);
}

/* ---- verify-each ---------------------------------------------------------------------------- */

Test(pm, a_false_preservation_claim_is_caught_under_verify_each) {
  wave_pipeline_options o = {.verify_each = true};
  cr_assert_not(run("read-count,lying-preserver,read-count", &o));
  cr_assert(has_message("internal error: analysis 'nop-count' of kernel 'a' is out of date "
                        "after pass lying-preserver, which claims to preserve it"));
  cr_assert_eq(diags.items[diags.count - 1].line, 1, "at the kernel");
}

Test(pm, a_false_claim_goes_unnoticed_without_verify_each) {
  cr_assert(run("read-count,lying-preserver,read-count", NULL));
  cr_assert_eq(diags.num_errors, 0);
}

Test(pm, a_false_no_change_answer_is_caught_under_verify_each) {
  wave_pipeline_options o = {.verify_each = true};
  cr_assert_not(run("silent-changer", &o));
  cr_assert(has_message("internal error: kernel 'a' changed after pass silent-changer, which "
                        "reported no change"));
}

Test(pm, invalid_ir_is_caught_under_verify_each) {
  wave_pipeline_options o = {.verify_each = true};
  cr_assert_not(run("breaker,read-count", &o));
  cr_assert(has_message("internal error: kernel 'a' is invalid after pass breaker"));
  cr_assert_eq(nop_count_computed, 0, "nothing runs after the broken pass");
}

Test(pm, a_broken_link_is_caught_under_verify_each_naming_the_pass) {
  wave_pipeline_options o = {.verify_each = true};
  cr_assert_not(run("unlinker,read-count", &o));
  cr_assert(has_message("internal error:"));
  cr_assert(has_message("(after pass unlinker)"));
  cr_assert_eq(nop_count_computed, 0, "nothing runs after the broken pass");
}

Test(pm, a_failing_pass_stops_the_run) {
  cr_assert_not(run("failing,read-count", NULL));
  cr_assert_eq(diags.num_errors, 1);
  cr_assert_str_eq(diags.items[0].message, "kernel a cannot be handled");
  cr_assert_str_eq(diags.items[0].source_line, ".kernel a");
  cr_assert_eq(nop_count_computed, 0);
}

Test(pm, a_failure_without_a_diagnostic_gets_one) {
  cr_assert_not(run("mute-failure", NULL));
  cr_assert(has_message("internal error: pass mute-failure failed on kernel 'a' without "
                        "saying why"));
}

/* ---- fixpoints ------------------------------------------------------------------------------ */

Test(pm, fixpoint_repeats_until_nothing_changes) {
  wave_pipeline_options o = {.time_passes = true};
  cr_assert(run("fixpoint(remove-nops)", &o));
  /* Kernel a: three rounds remove a nop each, a fourth finds none; kernel b: one, then none. */
  cr_assert_eq(tu_runs(&result, "remove-nops"), 4 + 2);
  cr_assert_eq(diags.count, 0);
}

Test(pm, fixpoint_skips_passes_that_saw_the_kernel_as_it_is) {
  wave_pipeline_options o = {.time_passes = true};
  cr_assert(run("fixpoint(remove-nops,read-count)", &o));
  /* Kernel a: remove-nops changes it in three rounds, read-count reads each result; in the
   * fourth remove-nops finds nothing and read-count has already read this kernel. Kernel b:
   * one change, then remove-nops alone. */
  cr_assert_eq(tu_runs(&result, "remove-nops"), 4 + 2);
  cr_assert_eq(tu_runs(&result, "read-count"), 3 + 1);
  cr_assert_eq(nop_count_computed, 4, "read-count skipped, so nothing asked for its analysis");
}

Test(pm, a_settled_pass_is_not_run_again_on_its_own_output) {
  wave_pass_option_value values[] = {{"remove-nops-max", 100}, {"remove-nops-settled", 1}};
  wave_pipeline_options o = {.time_passes = true, .option_values = values,
                             .num_option_values = 2};
  cr_assert(run("fixpoint(remove-nops,read-count)", &o));
  /* Each kernel: remove-nops takes every nop and says so, read-count reads the result, and
   * with every pass clean on the kernel as it is the fixpoint ends after one round. */
  cr_assert_eq(tu_runs(&result, "remove-nops"), 1 + 1);
  cr_assert_eq(tu_runs(&result, "read-count"), 1 + 1);
  cr_assert_eq(count_nops(wave_module_first_kernel(mod)), 0);

  /* Without the claim, the same pass runs once more on each kernel to find nothing. */
  reparse(TWO_KERNELS, true);
  wave_pipeline_result_free(&result);
  values[1].value = 0;
  cr_assert(run("fixpoint(remove-nops,read-count)", &o));
  cr_assert_eq(tu_runs(&result, "remove-nops"), 2 + 2);
}

Test(pm, a_settled_pass_runs_again_once_another_pass_changes_the_kernel) {
  wave_pass_option_value settled = {"remove-nops-settled", 1};
  wave_pipeline_options o = {.time_passes = true, .option_values = &settled,
                             .num_option_values = 1};
  cr_assert(run("fixpoint<max=2>(remove-nops,grow-registers)", &o));
  /* grow-registers changes the kernel in every round, so remove-nops sees a new kernel in the
   * second round too and runs: 2 of kernel a's nops go, in two rounds. */
  cr_assert_eq(tu_runs(&result, "remove-nops"), 2 + 2);
  cr_assert_eq(count_nops(wave_module_first_kernel(mod)), 1);
}

Test(pm, a_false_settled_claim_stops_the_fixpoint_short) {
  wave_pass_option_value settled = {"remove-nops-settled", 1};
  wave_pipeline_options o = {.time_passes = true, .option_values = &settled,
                             .num_option_values = 1};
  cr_assert(run("fixpoint(remove-nops)", &o));
  /* One nop a run, claimed to be all: kernel a keeps two, and no warning says so, since the
   * fixpoint believes it reached its end (wave_pass_result.settled: it costs optimization). */
  cr_assert_eq(tu_runs(&result, "remove-nops"), 1 + 1);
  cr_assert_eq(count_nops(wave_module_first_kernel(mod)), 2);
  cr_assert_eq(diags.count, 0);
}

Test(pm, nested_fixpoints_stop_at_their_caps) {
  char text[256] = ".kernel a\n";
  tu_repeat(text, sizeof(text), "    nop\n", 10);
  strcat(text, "    halt\n.end\n");
  reparse(text, true);
  wave_pipeline_options o = {.time_passes = true};
  cr_assert(run("fixpoint<max=2>(fixpoint<max=3>(remove-nops))", &o));
  /* Both rounds of the outer fixpoint run the inner one to its cap of 3: 6 nops go, and the
   * kernel still changed at each cap. */
  cr_assert_eq(tu_runs(&result, "remove-nops"), 6);
  cr_assert_eq(diags.num_warnings, 3);
  cr_assert_str_eq(diags.items[0].message, "fixpoint<max=3> reached its limit on kernel 'a' "
                                           "while the kernel still changed");
  cr_assert_str_eq(diags.items[0].flag, "fixpoint");
  cr_assert_str_eq(diags.items[2].message, "fixpoint<max=2> reached its limit on kernel 'a' "
                                           "while the kernel still changed");
  /* -stats: the inner fixpoint's 3 rounds twice and the outer one's 2, three of them capped. */
  uint64_t rounds = 0, at_limit = 0;
  for (size_t i = 0; i < result.num_stats; i++) {
    if (strcmp(result.stats[i].pass, "fixpoint") != 0)
      continue;
    if (strcmp(result.stats[i].name, "rounds") == 0)
      rounds = result.stats[i].value;
    else if (strcmp(result.stats[i].name, "at-limit") == 0)
      at_limit = result.stats[i].value;
  }
  cr_assert_eq(rounds, 3 + 3 + 2);
  cr_assert_eq(at_limit, 3);
}

/* ---- compaction ----------------------------------------------------------------------------- */

/* Eight dead instructions out of eleven: dce thins the kernel well past a quarter, and the
 * manager lays the code out afresh after it, which starts the counters again from the three
 * that are left; kept in place, the counters still show what was removed. */
static const char thinned[] = ".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n"
                              "    mov_imm r2, 1\n    mov_imm r3, 2\n    mov_imm r4, 3\n"
                              "    mov_imm r5, 4\n    mov_imm r6, 5\n    mov_imm r7, 6\n"
                              "    iadd r2, r3, r4\n    iadd r5, r6, r7\n"
                              "    device_store_u32 r1, r1\n    halt\n.end\n";

Test(pm, code_is_laid_out_afresh_after_a_pass_that_thins_it) {
  reparse(thinned, false);
  wave_pipeline_options o = {.verify_each = true};
  cr_assert(run("dce", &o));
  cr_assert(mod->instrs_made == 3 && mod->instrs_removed == 0);
  reparse(thinned, false);
  o.keep_code_in_place = true;
  cr_assert(run("dce", &o));
  cr_assert(mod->instrs_made == 11 && mod->instrs_removed == 8);
}

/* -O2 prints the same with and without compaction, on generated kernels in both dialects. Each
 * run is checked under verify_each, and under the sanitizers a pointer kept into the freed code
 * would be caught. */
Test(pm, laying_code_out_afresh_changes_no_output, .timeout = 120) {
  wave_pipeline *p = parse_ok(wave_pipeline_for_level(2));
  unsigned compacted = 0, kernels = 0;
  for (unsigned docs = 0; docs < 2; docs++) {
    for (uint64_t seed = 0; seed < 150; seed++) {
      char *text[2];
      size_t removed[2];
      for (unsigned keep = 0; keep < 2; keep++) {
        wave_gen_options g;
        wave_gen_options_init(&g);
        g.seed = seed;
        g.docs_dialect = docs;
        wave_gen_launch launch;
        wave_module *m = tu_generate(&g, &launch);
        wave_pipeline_options o = {.verify_each = true, .keep_code_in_place = keep};
        wave_pipeline_result r = {0};
        cr_assert(wave_pipeline_run(p, m, &o, &r, &diags), "seed %llu", (unsigned long long)seed);
        wave_print_options print = {.dialect = WAVE_DIALECT_DOCS};
        text[keep] = wave_print_to_string(m, &print, NULL);
        cr_assert_not_null(text[keep]);
        removed[keep] = m->instrs_removed;
        wave_pipeline_result_free(&r);
        wave_module_destroy(m);
      }
      cr_assert_str_eq(text[0], text[1], "seed %llu, docs %u", (unsigned long long)seed, docs);
      compacted += removed[0] < removed[1];
      kernels++;
      free(text[0]);
      free(text[1]);
    }
  }
  wave_pipeline_destroy(p);
  /* dce takes a quarter of about one generated kernel in fifteen. */
  cr_assert_geq(compacted, 10, "compacted %u of %u", compacted, kernels);
}

/* ---- options, target, remarks, statistics, timings ------------------------------------------ */

Test(pm, option_values_reach_the_pass) {
  wave_pass_option_value all = {"remove-nops-max", 100};
  wave_pipeline_options o = {.option_values = &all, .num_option_values = 1};
  cr_assert(run("remove-nops", &o));
  cr_assert_eq(result.num_stats, 1);
  cr_assert_eq(result.stats[0].value, 4, "every nop of both kernels in one run each");
}

Test(pm, unknown_option_values_are_errors) {
  wave_pass_option_value typo = {"remove-nop-max", 2};
  wave_pipeline_options o = {.option_values = &typo, .num_option_values = 1};
  cr_assert_not(run("remove-nops", &o));
  cr_assert(has_message("unknown pass option 'remove-nop-max'; did you mean 'remove-nops-max'?"));
}

Test(pm, passes_see_the_target) {
  cr_assert(run("note-target", NULL));
  cr_assert_str_eq(seen_target, "portable");
  wave_pipeline_options o = {.target = wave_target_lookup("wave-ptx")};
  cr_assert(run("note-target", &o));
  cr_assert_str_eq(seen_target, "wave-ptx");
}

static bool keep_missed_and_analysis(void *ctx, wave_remark_kind kind, const char *pass) {
  ++*(unsigned *)ctx;
  return kind != WAVE_REMARK_PASSED;
}

Test(pm, remarks_are_collected_as_the_filter_says) {
  cr_assert(run("remove-nops,read-count", NULL));
  cr_assert_eq(result.num_remarks, 0, "no filter keeps none");

  reparse(TWO_KERNELS, true);
  unsigned asked = 0;
  wave_pipeline_options o = {.remark_filter = keep_missed_and_analysis, .callback_ctx = &asked};
  cr_assert(run("remove-nops,remove-nops,read-count", &o));
  cr_assert_gt(asked, 0);
  /* Kernel a loses a nop in each run (passed, not kept) and keeps one (analysis); kernel b
   * loses its only nop, then has none (missed), then counts none (analysis). */
  cr_assert_eq(result.num_remarks, 3);
  const wave_remark *missed = &result.remarks[1];
  cr_assert_eq(missed->kind, WAVE_REMARK_MISSED);
  cr_assert_str_eq(missed->pass, "remove-nops");
  cr_assert_str_eq(missed->name, "no-nop");
  cr_assert_str_eq(missed->kernel, "b");
  cr_assert_str_eq(missed->file, "t.wave");
  cr_assert_eq(missed->line, 7);
  cr_assert_str_eq(missed->message, "kernel b has no nop");
  cr_assert_eq(result.remarks[0].kind, WAVE_REMARK_ANALYSIS);
  cr_assert_str_eq(result.remarks[0].message, "1 nops");
  cr_assert_str_eq(result.remarks[2].message, "0 nops");

  char *json = wave_remark_format_json(missed);
  cr_assert_str_eq(json, "{\"pass\":\"remove-nops\",\"name\":\"no-nop\",\"kernel\":\"b\","
                         "\"file\":\"t.wave\",\"line\":7,\"column\":1,"
                         "\"message\":\"kernel b has no nop\",\"kind\":\"missed\"}");
  free(json);
}

static bool keep_all(void *ctx, wave_remark_kind kind, const char *pass) { return true; }

Test(pm, passed_remarks_point_at_the_instruction) {
  wave_pipeline_options o = {.remark_filter = keep_all};
  cr_assert(run("remove-nops", &o));
  cr_assert_eq(result.num_remarks, 2);
  cr_assert_eq(result.remarks[0].kind, WAVE_REMARK_PASSED);
  cr_assert_str_eq(result.remarks[0].name, "nop-removed");
  cr_assert_eq(result.remarks[0].line, 2);
  cr_assert_eq(result.remarks[0].col, 5);
  cr_assert_eq(result.remarks[1].line, 8);
  cr_assert_str_eq(wave_remark_kind_name(WAVE_REMARK_ANALYSIS), "analysis");
}

Test(pm, statistics_are_summed_per_pass_and_counter) {
  cr_assert(run("remove-nops,remove-nops,read-count", NULL));
  cr_assert_eq(result.num_stats, 1);
  cr_assert_str_eq(result.stats[0].pass, "remove-nops");
  cr_assert_str_eq(result.stats[0].name, "nops-removed");
  cr_assert_str_eq(result.stats[0].description, "Number of nops removed");
  cr_assert_eq(result.stats[0].value, 3);
  cr_assert_eq(result.num_timings, 0, "timings only when asked for");
}

Test(pm, timings_are_summed_per_pass) {
  wave_pipeline_options o = {.time_passes = true};
  cr_assert(run("read-count,remove-nops,read-count", &o));
  cr_assert_eq(result.num_timings, 2);
  cr_assert_str_eq(result.timings[0].pass, "read-count");
  cr_assert_eq(result.timings[0].runs, 4);
  cr_assert_str_eq(result.timings[1].pass, "remove-nops");
  cr_assert_eq(result.timings[1].runs, 2);
  cr_assert_geq(result.timings[0].seconds, 0);
}

/* ---- opt-bisect and instrumentation --------------------------------------------------------- */

typedef struct trace {
  char text[2048];
} trace;

static void add_line(trace *t, const char *line) {
  strcat(t->text, line);
  strcat(t->text, "\n");
}

static void on_bisect(void *ctx, const wave_bisect_step *step) { add_line(ctx, step->line); }

static void before(void *ctx, const char *pass, const wave_kernel *kernel) {
  char line[128];
  snprintf(line, sizeof(line), "before %s on %s", pass, wave_kernel_name(kernel));
  add_line(ctx, line);
}

static void after(void *ctx, const char *pass, const wave_kernel *kernel, bool changed) {
  char line[128];
  snprintf(line, sizeof(line), "after %s on %s%s", pass, wave_kernel_name(kernel),
           changed ? " (changed)" : "");
  add_line(ctx, line);
}

Test(pm, bisect_numbers_every_pass_run_and_skips_past_the_limit) {
  trace t = {""};
  wave_pipeline_options o = {.opt_bisect = true, .opt_bisect_limit = 4, .callback_ctx = &t,
                             .on_bisect = on_bisect, .before_pass = before, .after_pass = after};
  cr_assert(run("remove-nops,fixpoint<max=2>(read-count),print<nop-count>", &o));
  cr_assert_str_eq(t.text, "BISECT: running pass (1) remove-nops on kernel a\n"
                           "before remove-nops on a\n"
                           "after remove-nops on a (changed)\n"
                           "BISECT: running pass (2) read-count on kernel a\n"
                           "before read-count on a\n"
                           "after read-count on a\n"
                           "BISECT: running pass (3) remove-nops on kernel b\n"
                           "before remove-nops on b\n"
                           "after remove-nops on b (changed)\n"
                           "BISECT: running pass (4) read-count on kernel b\n"
                           "before read-count on b\n"
                           "after read-count on b\n");

  reparse(TWO_KERNELS, true);
  trace skipped = {""};
  o.opt_bisect_limit = 1;
  o.callback_ctx = &skipped;
  o.before_pass = NULL;
  o.after_pass = NULL;
  cr_assert(run("remove-nops,remove-nops", &o));
  cr_assert_str_eq(skipped.text, "BISECT: running pass (1) remove-nops on kernel a\n"
                                 "BISECT: NOT running pass (2) remove-nops on kernel a\n"
                                 "BISECT: NOT running pass (3) remove-nops on kernel b\n"
                                 "BISECT: NOT running pass (4) remove-nops on kernel b\n");
  cr_assert_eq(count_nops(wave_module_first_kernel(mod)), 2);
  cr_assert_eq(count_nops(wave_kernel_next(wave_module_first_kernel(mod))), 1);
}

Test(pm, a_negative_bisect_limit_runs_everything) {
  trace t = {""};
  wave_pipeline_options o = {.opt_bisect = true, .opt_bisect_limit = -1, .callback_ctx = &t,
                             .on_bisect = on_bisect};
  cr_assert(run("remove-nops", &o));
  cr_assert_str_eq(t.text, "BISECT: running pass (1) remove-nops on kernel a\n"
                           "BISECT: running pass (2) remove-nops on kernel b\n");
}

/* ---- IR dumps ------------------------------------------------------------------------------- */

Test(pm, a_kernel_prints_alone) {
  reparse("; file comment\n" TWO_KERNELS "; trailing\n", false);
  wave_print_options docs = {WAVE_DIALECT_DOCS, false, 0};
  char got[256] = "";
  cr_assert_eq(
      wave_print_kernel(wave_kernel_next(wave_module_first_kernel(mod)), &docs, append, got), 0);
  cr_assert_str_eq(got, ".kernel b\n    nop\n    halt\n.end\n");
}

/* ---- targets -------------------------------------------------------------------------------- */

Test(targets, lookup_and_iteration) {
  cr_assert_str_eq(wave_target_default()->name, "portable");
  cr_assert_eq(wave_target_lookup("portable"), wave_target_default());
  cr_assert_null(wave_target_lookup("wave-gcn"));
  const char *names[] = {"portable", "wave-emu", "wave-ptx", "spec"};
  size_t n = 0;
  for (const wave_target *t; (t = wave_target_at(n)); n++) {
    cr_assert_str_eq(t->name, names[n]);
    cr_assert_eq(wave_target_lookup(t->name), t);
    cr_assert_not_null(t->description);
  }
  cr_assert_eq(n, 4);
}

Test(targets, the_observed_facts) {
  const wave_target *emu = wave_target_lookup("wave-emu"), *ptx = wave_target_lookup("wave-ptx");
  const wave_target *spec = wave_target_lookup("spec");
  cr_assert_not(emu->continue_ok);
  cr_assert_not(emu->break_in_if_ok);
  cr_assert_not(emu->halt_per_lane);
  cr_assert_eq(emu->divergence_stack, 32);
  cr_assert(wave_target_honours_guard(emu, WAVE_OP_IADD, 0, true), "@!p0 is honoured");
  cr_assert(ptx->continue_ok && ptx->break_in_if_ok && ptx->halt_per_lane);
  cr_assert(emu->divergent_wave_ops_ok, "the emulator reduces over the active lanes");
  cr_assert_not(ptx->divergent_wave_ops_ok, "wave-ptx emits full-mask .sync operations");
  cr_assert(wave_target_runs_width(ptx, 32));
  cr_assert_not(wave_target_runs_width(ptx, 64));
  cr_assert_not(wave_target_honours_guard(ptx, WAVE_OP_IADD, 0, true), "@!p0 is dropped");
  cr_assert_not(wave_target_honours_guard(ptx, WAVE_OP_DEVICE_STORE_U32, 1, false));
  cr_assert(wave_target_honours_guard(emu, WAVE_OP_DEVICE_STORE_U32, 1, false));
  cr_assert(wave_target_honours_guard(ptx, WAVE_OP_HALT, 2, true));
  cr_assert(wave_target_runs_width(spec, 8) && wave_target_runs_width(spec, 64));
  cr_assert_geq(spec->divergence_stack, 32);
  for (size_t i = 0; wave_target_at(i); i++) {
    const wave_target *t = wave_target_at(i);
    cr_assert_not(wave_target_honours_guard(t, WAVE_OP_IADD, 0, false), "@p0 is no guard");
    cr_assert_not(wave_target_honours_guard(t, WAVE_OP_IF, 1, false), "%s", t->name);
    cr_assert_not(wave_target_honours_guard(t, WAVE_OP_RETURN, 1, false), "%s", t->name);
  }
}

/* The opcode table's GUARD_OK flag says which guards survive every tool: portable agrees. */
Test(targets, portable_guards_match_the_opcode_table) {
  const wave_target *portable = wave_target_default();
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++)
    cr_assert_eq(wave_target_honours_guard(portable, (wave_opcode)op, 1, false),
                 wave_opcode_has((wave_opcode)op, WAVE_F_GUARD_OK), "%s",
                 wave_opcode_table[op].mnemonic);
}

/* A new row that is weaker somewhere must weaken portable too: this test says where. */
Test(targets, portable_is_the_weakest_of_all_rows) {
  const wave_target *p = wave_target_default();
  for (size_t i = 1; wave_target_at(i); i++) {
    const wave_target *t = wave_target_at(i);
    cr_assert(!p->continue_ok || t->continue_ok, "%s", t->name);
    cr_assert(!p->break_in_if_ok || t->break_in_if_ok, "%s", t->name);
    cr_assert(!p->halt_per_lane || t->halt_per_lane, "%s", t->name);
    cr_assert(!p->calls_ok || t->calls_ok, "%s", t->name);
    cr_assert(!p->divergent_wave_ops_ok || t->divergent_wave_ops_ok, "%s", t->name);
    cr_assert(t->divergence_stack == 0 || p->divergence_stack <= t->divergence_stack, "%s",
              t->name);
    cr_assert(p->uniform_uses_entry || !t->uniform_uses_entry, "%s", t->name);
    cr_assert_eq(p->guard_classes & ~t->guard_classes, 0, "%s", t->name);
    cr_assert(!p->negated_p0_guard_ok || t->negated_p0_guard_ok, "%s", t->name);
    for (size_t w = 0; w < WAVE_TARGET_MAX_WIDTHS && t->wave_widths[w]; w++)
      cr_assert(wave_target_runs_width(p, t->wave_widths[w]), "%s runs %u lanes", t->name,
                t->wave_widths[w]);
  }
}
