/* SPDX-License-Identifier: Apache-2.0 */
/* flatten-ifs where the lit test cannot reach: the rewrite function on every pair of predicates
 * p0..p3, negated or not (negated if conditions exist only through the IR API), in both forms,
 * with and without code to hoist and predicates read afterwards, on three targets, each
 * rewrite run in the interpreter against the original over all sixteen combinations of the
 * predicates; chains and else-if ladders 100 000 deep, collapsed in one run; a deep chain whose
 * every endif carries a comment; the scratch rule of kernels with a call; the predicate that
 * legalize needs for the documentation dialect. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/interp.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"
#include "xform/flatten_ifs.h"

/* Lane t (16 lanes) sets pi to bit i of t; r5 = t & 5 for code that recomputes a predicate. */
#define PROLOGUE                                                                              \
  "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 1\n    mov_imm  r4, 0\n"                     \
  "    and      r3, r1, r2\n    icmp_ne  p0, r3, r4\n    shr      r3, r1, r2\n"               \
  "    and      r3, r3, r2\n    icmp_ne  p1, r3, r4\n    mov_imm  r3, 2\n"                    \
  "    shr      r3, r1, r3\n    and      r3, r3, r2\n    icmp_ne  p2, r3, r4\n"               \
  "    mov_imm  r3, 3\n    shr      r3, r1, r3\n    and      r3, r3, r2\n"                    \
  "    icmp_ne  p3, r3, r4\n    mov_imm  r5, 5\n    and      r5, r1, r5\n"                    \
  "    mov_imm  r10, 0\n    mov_imm  r6, 2\n    shl      r6, r1, r6\n"

#define WORDS 80 /* 16 lanes: r10, then p0..p3 as 0/1 */

static wave_node *first_if_in(wave_node_list *list) {
  wave_foreach_node(n, list) {
    if (n->kind == WAVE_NODE_IF)
      return n;
  }
  return NULL;
}

/* No @p0, @!p0 only where the target honours it, guards only on compares. */
static void assert_output_rules(const wave_kernel *k, const wave_target *t) {
  wave_foreach_block(b, (wave_kernel *)k) {
    wave_foreach_instr(in, b) {
      if (in->guard == WAVE_NO_GUARD)
        continue;
      cr_assert(in->guard != 0 || (in->guard_negated && t->negated_p0_guard_ok),
                "%s: guard on p0", t->name);
      cr_assert_eq(wave_opcode_get((wave_opcode)in->op)->category, WAVE_CAT_CMP,
                   "%s: a guard on something else than a compare", t->name);
    }
  }
}

typedef struct counts {
  unsigned done, refused;
} counts;

/* if (!)pA { H } (!)pB ... in the and-form or the or-form; `hoist` 0: no H, 1: H recomputes pB,
 * 2: H recomputes pA; `live`: the predicates stored after the if (bit i: pi). */
static void check_case(const wave_target *t, bool or_form, unsigned pa, bool na, unsigned pb,
                       bool nb, unsigned hoist, unsigned live, counts *c) {
  char text[4096], h[64] = "";
  if (hoist)
    snprintf(h, sizeof(h), "        icmp_ne  p%u, r5, r4\n", hoist == 1 ? pb : pa);
  char stores[512] = "";
  for (unsigned p = 0; p < 4; p++) {
    if (!(live >> p & 1))
      continue;
    char one[128];
    snprintf(one, sizeof(one),
             "    mov_imm  r7, %u\n    iadd     r7, r6, r7\n    select   r8, p%u, r2, r4\n"
             "    device_store_u32 r7, r8\n",
             64 * (p + 1), p);
    strcat(stores, one);
  }
  if (or_form)
    snprintf(text, sizeof(text),
             ".kernel k\n.registers 16\n" PROLOGUE
             "    if p%u\n        mov_imm  r10, 1\n    else\n%s        if p%u\n"
             "            mov_imm  r10, 1\n        endif\n    endif\n"
             "    device_store_u32 r6, r10\n%s    halt\n.end\n",
             pa, h, pb, stores);
  else
    snprintf(text, sizeof(text),
             ".kernel k\n.registers 16\n" PROLOGUE
             "    if p%u\n%s        if p%u\n            mov_imm  r10, 1\n        endif\n"
             "    endif\n    device_store_u32 r6, r10\n%s    halt\n.end\n",
             pa, h, pb, stores);
  wave_module *m = tu_parse_ok(text, "case.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_node *outer = first_if_in(wave_region_body(wave_kernel_first_region(k)));
  wave_node *inner = first_if_in(or_form ? &outer->u.if_.else_body : &outer->u.if_.then_body);
  outer->u.if_.cond.negated = na;
  inner->u.if_.cond.negated = nb;
  uint32_t before[WORDS], after[WORDS];
  tu_run_words(k, 16, before, WORDS);

  wave_liveness *lv = wave_liveness_compute(k);
  wave_comment_moves *cm = wave_comment_moves_create(m);
  cr_assert(lv && cm);
  wave_flatten f;
  wave_flatten_init(&f, k, t, lv, wave_xform_kernel_taken(k), cm, 16, 8);
  wave_flatten_outcome out;
  wave_flatten_status st = wave_flatten_if(&f, outer, &out);
  cr_assert(st == WAVE_FLATTEN_DONE || st == WAVE_FLATTEN_REFUSED, "status %d", (int)st);
  cr_assert(wave_comment_moves_apply(cm));
  wave_comment_moves_destroy(cm);
  wave_liveness_destroy(lv);
  if (st == WAVE_FLATTEN_REFUSED) {
    c->refused++;
    cr_assert(out.why[0]);
    wave_module_destroy(m);
    return;
  }
  c->done++;
  tu_assert_valid(k);
  assert_output_rules(k, t);
  cr_assert_eq(out.inner, inner);
  cr_assert_eq(first_if_in(wave_region_body(wave_kernel_first_region(k))), inner,
               "the inner if takes the outer's place");
  tu_run_words(k, 16, after, WORDS);
  for (unsigned i = 0; i < WORDS; i++)
    cr_assert_eq(after[i], before[i],
                 "%s, %s-form, if %sp%u / if %sp%u, hoist %u, live %x: word %u is %u, was %u "
                 "(%s)\n%s",
                 t->name, or_form ? "or" : "and", na ? "!" : "", pa, nb ? "!" : "", pb, hoist, live,
                 i, after[i], before[i], out.what, text);
  wave_module_destroy(m);
}

Test(flatten_ifs, every_pair_of_predicates, .timeout = 240) {
  static const char *const targets[] = {"portable", "wave-emu", "spec"};
  static const unsigned lives[] = {0x0, 0x3, 0x6, 0xF, 0x9};
  for (size_t ti = 0; ti < 3; ti++) {
    const wave_target *t = wave_target_lookup(targets[ti]);
    counts c = {0, 0};
    for (unsigned bits = 0; bits < 2 * 4 * 2 * 4 * 2; bits++) {
      bool or_form = bits & 1, na = bits >> 3 & 1, nb = bits >> 6 & 1;
      unsigned pa = bits >> 1 & 3, pb = bits >> 4 & 3;
      for (unsigned hoist = 0; hoist < 3; hoist++)
        for (size_t l = 0; l < sizeof(lives) / sizeof(lives[0]); l++)
          check_case(t, or_form, pa, na, pb, nb, hoist, lives[l], &c);
    }
    cr_log_info("%s: %u flattened, %u refused", t->name, c.done, c.refused);
    /* Most combinations have a predicate to spare; only those reading all four after refuse. */
    cr_assert_gt(c.done, c.refused, "%s: %u done, %u refused", t->name, c.done, c.refused);
  }
}

/* ---- the rewrite function on shapes it must pass over ------------------------------------ */

static wave_flatten_status flatten_first(const char *text, wave_flatten_outcome *out) {
  wave_module *m = tu_parse_ok(text, "shape.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_liveness *lv = wave_liveness_compute(k);
  wave_comment_moves *cm = wave_comment_moves_create(m);
  wave_flatten f;
  wave_flatten_init(&f, k, wave_target_default(), lv, wave_xform_kernel_taken(k), cm, 0, 8);
  wave_node *outer = first_if_in(wave_region_body(wave_kernel_first_region(k)));
  wave_flatten_status st = wave_flatten_if(
      &f, outer ? outer : wave_node_list_first(wave_region_body(wave_kernel_first_region(k))), out);
  wave_comment_moves_destroy(cm);
  wave_liveness_destroy(lv);
  wave_module_destroy(m);
  return st;
}

Test(flatten_ifs, shapes_without_an_inner_if) {
  wave_flatten_outcome out;
  cr_assert_eq(flatten_first(".kernel k\n    mov_imm r1, 1\n    halt\n.end\n", &out),
               WAVE_FLATTEN_NO_SHAPE, "a block");
  cr_assert_eq(flatten_first(".kernel k\n    if p1\n        mov_imm r1, 1\n    else\n"
                             "        mov_imm r1, 2\n    endif\n    halt\n.end\n",
                             &out),
               WAVE_FLATTEN_NO_SHAPE, "an if with no if inside");
  cr_assert_eq(flatten_first(".kernel k\n    if p1\n        loop\n            if p2\n"
                             "            endif\n            break p2\n        endloop\n"
                             "    endif\n    halt\n.end\n",
                             &out),
               WAVE_FLATTEN_NO_SHAPE, "an if in a loop inside");
}

/* The or-form counts the ifs of the then-side that goes, which the pass skips. */
Test(flatten_ifs, or_form_reports_the_ifs_removed) {
  wave_flatten_outcome out;
  const char *text = ".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 3\n"
                     "    icmp_lt p1, r1, r2\n    icmp_gt p2, r1, r2\n    icmp_eq p3, r1, r2\n"
                     "    if p1\n        if p3\n            mov_imm r4, 1\n        endif\n"
                     "        if p3\n        endif\n    else\n        if p2\n"
                     "            if p3\n                mov_imm r4, 1\n            endif\n"
                     "            if p3\n            endif\n        endif\n    endif\n"
                     "    device_store_u32 r2, r4\n    halt\n.end\n";
  cr_assert_eq(flatten_first(text, &out), WAVE_FLATTEN_DONE, "%s", out.why);
  cr_assert(out.or_form);
  cr_assert_eq(out.ifs_removed, 2);
}

/* ---- the pass through the pipeline ------------------------------------------------------- */

/* Runs `pipeline` with verify-each on every kernel of m; the remarks come back in *result. */
static void run_pipeline(wave_module *m, const char *pipeline, const char *target,
                         wave_pipeline_result *result) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pass_registry *registry = wave_pass_registry_create();
  cr_assert_not_null(registry);
  wave_pipeline *p = wave_pipeline_parse(registry, pipeline, &diags);
  cr_assert_not_null(p);
  wave_pipeline_options options = {0};
  options.target = wave_target_lookup(target);
  options.verify_each = true;
  bool ok = wave_pipeline_run(p, m, &options, result, &diags);
  tu_log_diags(&diags);
  cr_assert(ok);
  wave_pipeline_destroy(p);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
}

static unsigned count_ifs(wave_kernel *k) {
  unsigned n = 0;
  wave_foreach_region(r, k) {
    wave_walker w;
    wave_walk_init(&w, wave_region_body(r));
    while (wave_walk_next(&w))
      n += w.event == WAVE_WALK_IF;
  }
  return n;
}

#define DEEP 100000

/* 16 lanes; r3 = 4 * lane, p1: lane < 10, p2: lane > 3; then `open` DEEP times, `body`,
 * `close` DEEP times and `tail`. */
static char *deep_text(const char *open, const char *body, const char *close, const char *tail) {
  const char *head = ".kernel deep\n.registers 8\n.workgroup_size 16, 1, 1\n"
                     "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 2\n    shl      r3, r1, r2\n"
                     "    mov_imm  r4, 10\n    mov_imm  r5, 3\n"
                     "    icmp_lt  p1, r1, r4\n    icmp_gt  p2, r1, r5\n";
  size_t cap = strlen(head) + strlen(body) + strlen(tail) + 64 +
               (size_t)DEEP * (strlen(open) + strlen(close) + 16);
  char *text = malloc(cap), *at = text;
  cr_assert_not_null(text);
  at += sprintf(at, "%s", head);
  for (unsigned i = 0; i < DEEP; i++)
    at += sprintf(at, open, i % 2 + 1, i);
  at += sprintf(at, "%s", body);
  for (unsigned i = 0; i < DEEP; i++)
    at += sprintf(at, close, i);
  sprintf(at, "%s    halt\n.end\n", tail);
  return text;
}

static void check_deep(const char *open, const char *body, const char *close, const char *tail,
                       const char *want) {
  char *text = deep_text(open, body, close, tail);
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  uint32_t before[WORDS], after[WORDS];
  tu_run_words(k, 16, before, WORDS);
  wave_pipeline_result result = {0};
  run_pipeline(m, "flatten-ifs", "portable", &result);
  cr_assert(result.changed);
  cr_assert_eq(count_ifs(k), 1, "the chain collapses into one if");
  tu_run_words(k, 16, after, WORDS);
  cr_assert_arr_eq(after, before, sizeof(before));
  for (unsigned lane = 0; lane < 16; lane++)
    cr_assert_eq(after[lane], (uint32_t)(want[lane] == 'x' ? lane : 0), "lane %u", lane);
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}

/* if p1 / if p2 / if p1 ... alternating: one if on p1 and p2, built in place step by step. */
Test(flatten_ifs, chain_100000_deep, .timeout = 120) {
  check_deep("    if p%u ; %u\n", "    device_store_u32 r3, r1\n", "    endif\n", "",
             "....xxxxxx......");
}

/* if p1 {S} else { if p2 {S} else { if p1 ... } }: one if on p1 or p2. */
Test(flatten_ifs, else_if_ladder_100000_deep, .timeout = 120) {
  check_deep("    if p%u ; %u\n        mov r6, r1\n    else\n", "    mov_imm r6, 0\n",
             "    endif\n", "    device_store_u32 r3, r6\n", "xxxxxxxxxxxxxxxx");
}

/* Each level recomputes the outer predicate before the inner if: saved every step. */
Test(flatten_ifs, chain_saving_the_predicate_100000_deep, .timeout = 120) {
  check_deep("    if p%u ; %u\n        icmp_gt p1, r1, r5\n", "    device_store_u32 r3, r1\n",
             "    endif\n", "", "....xxxxxx......");
}

/* Every endif's comment ends up after the one endif left, in text order, written once. */
Test(flatten_ifs, comments_of_a_deep_chain, .timeout = 120) {
  char *text = deep_text("    if p%u ; if %u\n", "    device_store_u32 r3, r1\n",
                         "    endif ; endif %u\n", "");
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  wave_pipeline_result result = {0};
  run_pipeline(m, "flatten-ifs", "portable", &result);
  const char *leading =
      wave_instr_origin(wave_block_last(wave_node_list_last(wave_region_body(
                            wave_kernel_first_region(wave_module_first_kernel(m))))))
          .leading;
  cr_assert_not_null(leading, "the halt carries the endifs' comments");
  /* The one endif left is the innermost (endif 0); endif 1 .. endif 99999 follow it. */
  char line[32];
  const char *at = leading;
  for (unsigned i = 1; i < DEEP; i++) {
    snprintf(line, sizeof(line), "; endif %u", i);
    cr_assert_eq(strncmp(at, line, strlen(line)), 0, "line %u: '%.20s'", i, at);
    at += strlen(line);
    cr_assert(*at == (i + 1 < DEEP ? '\n' : '\0'));
    at++;
  }
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  free(text);
}

/* ---- kernels with a call ----------------------------------------------------------------- */

/* Both predicates are read after the if; p0 and p3 are free in the entry region, but with a
 * call every register some region mentions counts as taken (as wave_xform_taken has it). */
Test(flatten_ifs, a_call_takes_what_subroutines_mention) {
  const char *body = ".registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 3\n"
                     "    icmp_lt p1, r1, r2\n    icmp_gt p2, r1, r2\n"
                     "    if p1\n        if p2\n            mov_imm r4, 1\n        endif\n"
                     "    endif\n    select r4, p1, r4, r2\n    select r4, p2, r4, r2\n"
                     "    device_store_u32 r2, r4\n    halt\nsub:\n    icmp_eq p3, r0, r0\n"
                     "    icmp_eq p0, r0, r0\n    return\n.end\n";
  char text[1024];
  wave_flatten_outcome out;
  snprintf(text, sizeof(text), ".kernel k\n%s", body);
  cr_assert_eq(flatten_first(text, &out), WAVE_FLATTEN_DONE, "without a call: %s", out.why);
  snprintf(text, sizeof(text), ".kernel k\n    call sub\n%s", body);
  cr_assert_eq(flatten_first(text, &out), WAVE_FLATTEN_REFUSED);
  cr_assert(strstr(out.why, "no predicate can hold p1 and p2"), "%s", out.why);
}

/* ---- the documentation dialect ----------------------------------------------------------- */

/* `break !p1` is lowered through the one predicate the kernel never mentions, p3: the
 * combination must take another (p0, dead here) or legalize would find none. */
Test(flatten_ifs, leaves_legalize_its_predicate) {
  wave_module *m = tu_parse_ok(
      ".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n    mov_imm r2, 3\n"
      "    icmp_eq p0, r1, r1\n    icmp_lt p1, r1, r2\n    icmp_gt p2, r1, r2\n"
      "    if p1\n        if p2\n            mov_imm r4, 1\n        endif\n    endif\n"
      "    select r4, p1, r4, r2\n    select r4, p2, r4, r2\n"
      "    loop\n        break !p1\n        break p1\n    endloop\n"
      "    device_store_u32 r2, r4\n    halt\n.end\n",
      "docs.wave", false);
  wave_pipeline_result result = {0};
  run_pipeline(m, "flatten-ifs,legalize", "portable", &result);
  wave_node *combined =
      first_if_in(wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))));
  cr_assert_not_null(combined);
  cr_assert_eq(combined->u.if_.cond.value, 0, "the combination went into p%u",
               combined->u.if_.cond.value);
  cr_assert_null(first_if_in(&combined->u.if_.then_body));
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
}
