/* SPDX-License-Identifier: Apache-2.0 */
/* if-to-select (passes/if_to_select.c): a soundness gate of its own over random kernels made of
 * small ifs (the shape wavegen rarely makes), run before and after in the interpreter at
 * several wave widths on every target and register budget; nests 100 000 deep; and the
 * rewrite function that bound-depth reuses, called directly: its cost estimate against the
 * code it writes, a negated if, and refusals that leave the kernel as it was. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "xform/if_to_select.h"
#include "xform/xform.h"

/* ---- random kernels of small ifs ---------------------------------------------------------- */

typedef struct gen {
  uint64_t state;
  char text[32768];
  size_t len;
} gen;

static uint32_t rnd(gen *g, uint32_t n) {
  g->state ^= g->state << 13;
  g->state ^= g->state >> 7;
  g->state ^= g->state << 17;
  return (uint32_t)((g->state >> 11) % n);
}

static void emit(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(gen *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(g->text + g->len, sizeof(g->text) - g->len, fmt, ap);
  va_end(ap);
  cr_assert(n >= 0 && (size_t)n < sizeof(g->text) - g->len, "kernel text too long");
  g->len += (size_t)n;
}

/* r2..r9 are the values the code works on, r1 the lane, r10 = 7 (a divisor), r11 = 3 and
 * r12 = 100 (a clamp range); r13 and up are free for scratch when .registers allows. */
static unsigned work(gen *g) { return 2 + rnd(g, 8); }
static unsigned any_src(gen *g) { return 1 + rnd(g, 12); }

static void statement(gen *g, unsigned depth, unsigned *budget);

static void guard_prefix(gen *g) {
  if (rnd(g, 5) == 0)
    emit(g, "@%sp%u ", rnd(g, 2) ? "!" : "", 1 + rnd(g, 3));
}

static void instruction(gen *g) {
  static const char *const binary[] = {"iadd", "isub", "imul", "xor", "and", "or", "shl",
                                       "shr",  "imin", "imax", "sar", "imul_hi"};
  static const char *const unary[] = {"not", "ineg", "bitcount", "iabs", "mov"};
  static const char *const compares[] = {"icmp_lt", "icmp_eq", "icmp_ne", "ucmp_lt", "icmp_ge"};
  unsigned kind = rnd(g, 20);
  if (kind < 1) {   /* refused everywhere: memory, and a convergent operation */
    emit(g, rnd(g, 2) ? "    device_store_u32 r13, r%u\n" : "    wave_reduce_add r%u, r1\n",
         work(g));
    return;
  }
  emit(g, "    ");
  guard_prefix(g);
  if (kind < 8)
    emit(g, "%s r%u, r%u, r%u\n", binary[rnd(g, 12)], work(g), any_src(g), any_src(g));
  else if (kind < 10)
    emit(g, "%s r%u, r%u\n", unary[rnd(g, 5)], work(g), any_src(g));
  else if (kind < 11)
    emit(g, "mov_imm r%u, %u\n", work(g), rnd(g, 50));
  else if (kind < 13)
    emit(g, "select r%u, p%u, r%u, r%u\n", work(g), rnd(g, 4), any_src(g), any_src(g));
  else if (kind < 17)
    emit(g, "%s p%u, r%u, r%u\n", compares[rnd(g, 5)], rnd(g, 4), any_src(g), any_src(g));
  else if (kind < 18)
    emit(g, "%s r%u, r%u, r10\n", rnd(g, 2) ? "idiv" : "imod", work(g), any_src(g));
  else if (kind < 19)
    emit(g, "iclamp r%u, r%u, r11, r12\n", work(g), any_src(g));
  else   /* a register pair: r2..r8 and the one after it */
    emit(g, "dadd r%u, r%u, r%u\n", 2 + rnd(g, 7), 2 + rnd(g, 7), 2 + rnd(g, 7));
}

static void block(gen *g, unsigned depth, unsigned max, unsigned *budget) {
  unsigned n = rnd(g, max + 1);
  for (unsigned i = 0; i < n && *budget; i++)
    statement(g, depth, budget);
}

static void statement(gen *g, unsigned depth, unsigned *budget) {
  (*budget)--;
  if (depth >= 3 || rnd(g, 3)) {
    instruction(g);
    return;
  }
  /* p1..p3 follow the lanes; a compare of two constants first makes a uniform test. */
  unsigned p = rnd(g, 4);
  if (rnd(g, 4) == 0)
    emit(g, "    icmp_lt p%u, r11, r12\n", p);
  emit(g, "    if p%u\n", p);
  block(g, depth + 1, 4, budget);
  if (rnd(g, 2)) {
    emit(g, "    else\n");
    block(g, depth + 1, 4, budget);
  }
  emit(g, "    endif\n");
}

#define LANES 64
#define SLOT 64

static const wave_gen_launch launch = {
    .grid = {1, 1, 1},
    .workgroup = {LANES, 1, 1},
    .device_memory_size = LANES * SLOT,
};

/* A kernel that stores r2..r9 and p0..p3 of every lane in its slot. registers: 14 leaves no
 * scratch register but r13 (where it is dead) unless the budget grows it. */
static void generate(gen *g, uint64_t seed, unsigned registers) {
  g->state = seed * 0x9E3779B97F4A7C15ull + 1;
  g->len = 0;
  emit(g, ".kernel small_ifs\n.registers %u\n.workgroup_size %u, 1, 1\n", registers, LANES);
  emit(g, "    mov_sr r1, sr_lane_id\n    mov_imm r10, 7\n    mov_imm r11, 3\n"
          "    mov_imm r12, 100\n");
  for (unsigned r = 2; r <= 9; r++)
    emit(g, "    mov_imm r%u, %u\n    %s r%u, r%u, r1\n", r, rnd(g, 1000),
         rnd(g, 2) ? "imul" : "xor", r, r);
  emit(g, "    icmp_lt p0, r2, r3\n    ucmp_lt p1, r4, r5\n    icmp_lt p2, r1, r10\n"
          "    icmp_ne p3, r6, r7\n");
  emit(g, "    mov_imm r12, 6\n    shl r13, r1, r12\n    mov_imm r12, 100\n");
  unsigned budget = 14 + rnd(g, 10);
  while (budget)
    statement(g, 0, &budget);
  emit(g, "    mov_imm r11, 6\n    shl r10, r1, r11\n    mov_imm r11, 4\n");
  for (unsigned r = 2; r <= 9; r++)
    emit(g, "    device_store_u32 r10, r%u\n    iadd r10, r10, r11\n", r);
  emit(g, "    mov_imm r12, 1\n    mov_imm r2, 0\n");
  for (unsigned p = 0; p < 4; p++)
    emit(g, "    select r3, p%u, r12, r2\n    device_store_u32 r10, r3\n"
            "    iadd r10, r10, r11\n", p);
  emit(g, "    halt\n.end\n");
}

typedef struct run_ctx {
  const wave_pipeline *pipeline;
  wave_pipeline_options options;
  uint64_t guarded, selected;
  bool changed;
} run_ctx;

static bool transform(wave_module *module, void *ctx, wave_diags *diags) {
  run_ctx *c = ctx;
  wave_pipeline_result result = {0};
  bool ok = wave_pipeline_run(c->pipeline, module, &c->options, &result, diags);
  c->changed = result.changed;
  for (size_t i = 0; i < result.num_stats; i++) {
    if (strcmp(result.stats[i].name, "ifs-guarded") == 0)
      c->guarded += result.stats[i].value;
    if (strcmp(result.stats[i].name, "ifs-selected") == 0)
      c->selected += result.stats[i].value;
  }
  wave_pipeline_result_free(&result);
  return ok;
}

static const char *const target_names[] = {"portable", "wave-emu", "wave-ptx", "spec"};

Test(if_to_select, random_small_ifs_keep_their_results, .timeout = 600) {
  enum { KERNELS = 3000 };
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *once = wave_pipeline_parse(registry, "if-to-select", &diags);
  wave_pipeline *fix = wave_pipeline_parse(registry, "fixpoint(if-to-select),legalize", &diags);
  cr_assert(once && fix);
  static gen g;
  run_ctx ctx = {0};
  unsigned fired = 0;
  for (uint64_t seed = 1; seed <= KERNELS; seed++) {
    generate(&g, seed, seed % 3 ? 16 : 14);
    wave_pass_option_value values[2] = {{"if-to-select-limit", seed % 5 ? 8 : 2},
                                        {"if-to-select-uniform-limit", seed % 7 ? 1 : 3}};
    ctx.pipeline = seed % 2 ? once : fix;
    ctx.options = (wave_pipeline_options){
        .target = wave_target_lookup(target_names[seed % 4]),
        .verify_each = true,
        .max_registers = seed % 4 == 1 ? 24 : 0,
        .option_values = values,
        .num_option_values = 2,
    };
    wave_difftest test;
    wave_difftest_init(&test, &launch);
    test.transform = transform;
    test.transform_ctx = &ctx;
    test.input_seed = seed;
    wave_diff_report report;
    wave_diff_status status = wave_difftest_run(&test, g.text, g.len, &report);
    cr_assert_eq(status, WAVE_DIFF_PASS, "seed %llu (%s): %s\n%s", (unsigned long long)seed,
                 target_names[seed % 4], report.message, g.text);
    fired += ctx.changed;
  }
  cr_log_info("fired on %u of %d kernels: %llu ifs guarded, %llu selected", fired, KERNELS,
              (unsigned long long)ctx.guarded, (unsigned long long)ctx.selected);
  cr_assert_gt(fired, KERNELS / 2);
  cr_assert_gt(ctx.guarded, KERNELS / 2);
  cr_assert_gt(ctx.selected, KERNELS / 20);
  wave_pipeline_destroy(once);
  wave_pipeline_destroy(fix);
  wave_diags_free(&diags);
  wave_pass_registry_destroy(registry);
}

/* ---- deep nests --------------------------------------------------------------------------- */

/* Runs `pipeline` on text, returning the printed result (malloc'd). */
static char *run_text(const char *text, const char *pipeline_text, const char *target) {
  wave_module *m = tu_parse_ok(text, "t.wave", false);
  wave_pass_registry *registry = wave_pass_registry_create();
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *pipeline = wave_pipeline_parse(registry, pipeline_text, &diags);
  cr_assert_not_null(pipeline);
  wave_pipeline_options options = {.target = target ? wave_target_lookup(target) : NULL,
                                    .verify_each = true};
  wave_pipeline_result result = {0};
  bool ok = wave_pipeline_run(pipeline, m, &options, &result, &diags);
  if (!ok)
    tu_log_diags(&diags);
  cr_assert(ok);
  char *out = wave_print_to_string(m, NULL, NULL);
  cr_assert_not_null(out);
  wave_pipeline_result_free(&result);
  wave_pipeline_destroy(pipeline);
  wave_diags_free(&diags);
  wave_pass_registry_destroy(registry);
  wave_module_destroy(m);
  return out;
}

static char *nest(unsigned depth, const char *open, const char *middle, const char *close) {
  static const char head[] = ".kernel deep\n.registers 8\n    mov_sr r1, sr_lane_id\n"
                             "    mov_imm r2, 3\n    icmp_lt p1, r1, r2\n    icmp_lt p2, r2, r1\n";
  static const char tail[] = "    shl r4, r1, r2\n    device_store_u32 r4, r3\n    halt\n.end\n";
  size_t cap = sizeof(head) + (size_t)depth * (strlen(open) + strlen(close)) + strlen(middle) +
               sizeof(tail);
  char *text = malloc(cap), *at = text;
  cr_assert_not_null(text);
  at += sprintf(at, "%s", head);
  for (unsigned i = 0; i < depth; i++)
    at += sprintf(at, "%s", open);
  at += sprintf(at, "%s", middle);
  for (unsigned i = 0; i < depth; i++)
    at += sprintf(at, "%s", close);
  sprintf(at, "%s", tail);
  return text;
}

/* Every if of a nest 100 000 deep on one predicate collapses, innermost first, in one run:
 * each inner one leaves an instruction already guarded by the same test. */
Test(if_to_select, nest_100000_deep_collapses, .timeout = 120) {
  char *text = nest(100000, "    if p1\n", "    iadd r3, r1, r2\n", "    endif\n");
  char *out = run_text(text, "if-to-select", NULL);
  cr_assert(strstr(out, "@p1 iadd r3, r1, r2\n"), "%.400s", out);
  cr_assert_null(strstr(out, "if p1"));
  free(out);
  free(text);
}

/* Nests that cannot collapse all the way are walked without recursion: a store at the bottom
 * keeps every if; with alternating tests each level adds a select or a guard, until the sides
 * outgrow -if-to-select-limit. */
Test(if_to_select, nest_100000_deep_refused, .timeout = 120) {
  char *text = nest(100000, "    if p1\n", "    device_store_u32 r1, r2\n", "    endif\n");
  char *out = run_text(text, "if-to-select", NULL);
  cr_assert(strstr(out, "device_store_u32 r1, r2"));
  cr_assert(strstr(out, "if p1"));
  free(out);
  free(text);
  text = nest(50000, "    if p1\n    if p2\n", "    iadd r3, r1, r2\n", "    endif\n    endif\n");
  out = run_text(text, "if-to-select", NULL);
  cr_assert_null(strstr(out, "iadd r3, r1, r2\n    endif"), "the innermost ifs go");
  cr_assert(strstr(out, "if p2\n"), "the sides outgrow the limit some levels up");
  free(out);
  free(text);
}

/* ---- the rewrite function ----------------------------------------------------------------- */

typedef struct direct {
  wave_module *module;
  wave_kernel *kernel;
  wave_liveness *liveness;
  wave_if_to_select_params params;
} direct;

static direct direct_open(const char *text, const char *target) {
  direct d = {0};
  d.module = tu_parse_ok(text, "d.wave", false);
  d.kernel = wave_module_first_kernel(d.module);
  d.liveness = wave_liveness_compute(d.kernel);
  cr_assert_not_null(d.liveness);
  wave_comment_moves *comments = wave_comment_moves_create(d.module);
  cr_assert_not_null(comments);
  d.params = (wave_if_to_select_params){.target = wave_target_lookup(target),
                                        .liveness = d.liveness,
                                        .comments = comments,
                                        .kernel_taken = wave_xform_kernel_taken(d.kernel),
                                        .max_registers = wave_kernel_registers(d.kernel),
                                        .side_limit = 8,
                                        .split_rate = 1.0,
                                        .require_profit = true};
  return d;
}

static void direct_close(direct *d) {
  cr_assert(wave_comment_moves_apply(d->params.comments));
  wave_comment_moves_destroy(d->params.comments);
  wave_liveness_destroy(d->liveness);
  wave_module_destroy(d->module);
}

static wave_node *first_if(wave_kernel *k) {
  for (wave_node *n = wave_node_list_first(wave_region_body(wave_kernel_first_region(k))); n;
       n = n->next)
    if (n->kind == WAVE_NODE_IF)
      return n;
  cr_assert_fail("no if");
  return NULL;
}

static unsigned count_instrs(wave_kernel *k) {
  unsigned n = 0;
  wave_foreach_block(b, k) {
    wave_foreach_instr(i, b) n++;
  }
  return n;
}

static char *print(const wave_module *m) {
  char *text = wave_print_to_string(m, NULL, NULL);
  cr_assert_not_null(text);
  return text;
}

#define HEAD ".kernel k\n.registers 12\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 5\n" \
             "    icmp_lt p1, r1, r2\n    icmp_eq p0, r1, r2\n"
#define TAIL "    iadd r4, r3, r5\n    device_store_u32 r1, r4\n    halt\n.end\n"

/* The cost the rewrite reports is the number of instructions it writes, in every form and on
 * every target: copies and combined guards included. */
Test(if_to_select, cost_estimate_is_what_is_written) {
  static const char *const ifs[] = {
      "    if p1\n        iadd r3, r1, r2\n    else\n        isub r3, r1, r2\n    endif\n",
      "    if p0\n        iadd r3, r1, r2\n    else\n        idiv r3, r1, r2\n    endif\n",
      "    if p1\n        icmp_lt p1, r2, r1\n        iadd r3, r1, r2\n    endif\n",
      "    if p1\n        @p0 iadd r3, r1, r2\n        @!p1 mov r5, r1\n    endif\n",
      "    if p0\n        @!p0 iadd r3, r1, r2\n    else\n        @p1 iadd r3, r2, r2\n    endif\n",
      "    if p0\n        iadd r5, r1, r2\n        @p1 iadd r3, r5, r2\n    endif\n",
  };
  unsigned forms[2] = {0, 0};
  for (size_t t = 0; t < 4; t++)
    for (size_t i = 0; i < sizeof(ifs) / sizeof(ifs[0]); i++) {
      char text[1024];
      snprintf(text, sizeof text, "%s%s%s", HEAD, ifs[i], TAIL);
      direct d = direct_open(text, target_names[t]);
      d.params.require_profit = false;
      d.params.max_registers = 16;
      unsigned before = count_instrs(d.kernel);
      wave_if_to_select_outcome out;
      wave_if_to_select_status s = wave_if_to_select_rewrite(first_if(d.kernel), &d.params, &out);
      if (s == WAVE_IF_TO_SELECT_REFUSED) {
        cr_log_info("%s, if %zu refused: %s", target_names[t], i, out.reason);
        direct_close(&d);
        continue;
      }
      cr_assert_eq(s, WAVE_IF_TO_SELECT_DONE);
      forms[out.form]++;
      unsigned sides = 0;
      for (const char *c = ifs[i]; (c = strstr(c, "\n        ")); c++)
        sides++;
      char *printed = print(d.module);
      cr_assert_eq(count_instrs(d.kernel), before - sides + out.cost_after,
                   "%s, if %zu: cost %u\n%s", target_names[t], i, out.cost_after, printed);
      free(printed);
      direct_close(&d);
    }
  cr_assert(forms[WAVE_IF_TO_SELECT_GUARDED] > 4 && forms[WAVE_IF_TO_SELECT_SELECT] > 4,
            "%u guarded, %u select", forms[0], forms[1]);
}

/* A negated test, which only the IR API can build: the guards and the select's operands swap,
 * and no `!` operand is written. */
Test(if_to_select, negated_test) {
  const char *text = HEAD
      "    if p1\n        iadd r3, r1, r2\n    else\n        mov_imm r3, 9\n    endif\n" TAIL;
  for (int form = 0; form < 2; form++) {
    direct d = direct_open(text, "portable");
    wave_node *node = first_if(d.kernel);
    node->u.if_.cond.negated = 1;
    if (form == 1)
      node->u.if_.cond.value = 0;   /* p0 cannot guard: the select form */
    wave_if_to_select_outcome out;
    cr_assert_eq(wave_if_to_select_rewrite(node, &d.params, &out), WAVE_IF_TO_SELECT_DONE,
                 "%s", out.reason);
    char *printed = print(d.module);
    if (form == 0) {
      cr_assert(strstr(printed, "@!p1 iadd r3, r1, r2\n    @p1 mov_imm r3, 9\n"), "%s", printed);
    } else {
      cr_assert_eq(out.form, WAVE_IF_TO_SELECT_SELECT);
      cr_assert(strstr(printed, "select r3, p0, r3, r"), "%s", printed);
    }
    cr_assert_null(strstr(printed, "!p0"));
    free(printed);
    direct_close(&d);
  }
}

/* A refusal leaves the kernel exactly as it was, .registers included. */
Test(if_to_select, refusal_changes_nothing) {
  const char *text = HEAD
      "    if p0\n        idiv r3, r1, r2\n        iadd r6, r1, r1\n    endif\n" TAIL;
  direct d = direct_open(text, "portable");
  char *before = print(d.module);
  wave_if_to_select_outcome out;
  cr_assert_eq(wave_if_to_select_rewrite(first_if(d.kernel), &d.params, &out),
               WAVE_IF_TO_SELECT_REFUSED);
  cr_assert(strstr(out.reason, "select form: then-side holds idiv"), "%s", out.reason);
  char *after = print(d.module);
  cr_assert_str_eq(before, after);
  free(before);
  free(after);
  direct_close(&d);
}

/* A target that drops guards on ALU instructions (none of the shipped rows does; a vendor row
 * may): the guarded form is refused for a side that needs a guard on idiv, and for an idiv
 * already guarded, whose guard would be combined with the test. idiv may trap, so there is no
 * select form either, and the kernel stays as it was. */
Test(if_to_select, target_dropping_alu_guards) {
  wave_target no_alu_guards = *wave_target_default();
  no_alu_guards.name = "no-alu-guards";
  no_alu_guards.guard_classes &= ~WAVE_GUARDS(WAVE_GUARD_ALU);
  static const struct {
    const char *side, *why;
  } cases[] = {
      {"        idiv r3, r1, r2\n", "the target drops a guard on idiv at 8:9"},
      {"        @p2 idiv r3, r1, r2\n", "the target drops a guard on idiv at 8:9"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char text[1024];
    snprintf(text, sizeof text, "%s    if p1\n%s    endif\n%s", HEAD, cases[i].side, TAIL);
    direct d = direct_open(text, "portable");
    d.params.target = &no_alu_guards;
    char *before = print(d.module);
    wave_if_to_select_outcome out;
    cr_assert_eq(wave_if_to_select_rewrite(first_if(d.kernel), &d.params, &out),
                 WAVE_IF_TO_SELECT_REFUSED, "case %zu", i);
    cr_assert(strstr(out.reason, cases[i].why), "case %zu: %s", i, out.reason);
    char *after = print(d.module);
    cr_assert_str_eq(before, after);
    free(before);
    free(after);
    direct_close(&d);
  }
}

/* The targets differ: @!p0 guards survive in the emulator, so copying p0 there takes two
 * compares, where portable needs the select idiom and refuses on cost. */
Test(if_to_select, p0_on_portable_and_on_the_emulator) {
  const char *text = HEAD
      "    if p0\n        idiv r3, r1, r2\n    else\n        mov_imm r3, 0\n    endif\n" TAIL;
  direct d = direct_open(text, "portable");
  wave_if_to_select_outcome out;
  cr_assert_eq(wave_if_to_select_rewrite(first_if(d.kernel), &d.params, &out),
               WAVE_IF_TO_SELECT_REFUSED);
  cr_assert(strstr(out.reason, "costs 6 instructions, the if 5"), "%s", out.reason);
  direct_close(&d);
  d = direct_open(text, "wave-emu");
  cr_assert_eq(wave_if_to_select_rewrite(first_if(d.kernel), &d.params, &out),
               WAVE_IF_TO_SELECT_DONE, "%s", out.reason);
  cr_assert_eq(out.cost_after, 4);
  char *printed = print(d.module);
  cr_assert(strstr(printed, "icmp_ne p1, r0, r0\n    @!p0 icmp_eq p1, r0, r0\n"
                            "    @!p1 idiv r3, r1, r2\n    @p1 mov_imm r3, 0\n"), "%s", printed);
  free(printed);
  direct_close(&d);
}

/* A negated operand of the documentation dialect waits for legalize, which lowers it through a
 * predicate the kernel never mentions (p3 here): the pass keeps that one free, so the if that
 * would need it to save its test stays, and legalize still finds it. */
Test(if_to_select, leaves_legalize_its_predicate) {
  const char *text = ".kernel docs\n.registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 4\n"
                     "    icmp_lt p1, r1, r2\n    icmp_lt p0, r2, r1\n    icmp_ne p2, r1, r2\n"
                     "    if p1\n        icmp_eq p1, r1, r2\n        iadd r3, r1, r2\n    endif\n"
                     "    select r4, p1, r1, r2\n    select r5, p2, r1, r2\n"
                     "    loop\n        icmp_eq p0, r3, r4\n        break !p0\n"
                     "        iadd r3, r3, r2\n    endloop\n"
                     "    device_store_u32 r1, r3\n    device_store_u32 r2, r5\n    halt\n.end\n";
  char *out = run_text(text, "if-to-select,legalize", NULL);
  cr_assert(strstr(out, "    if p1\n"), "%s", out);
  cr_assert(strstr(out, "break p3"), "%s", out);
  free(out);
}
