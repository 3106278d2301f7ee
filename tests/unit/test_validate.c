/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IR validator and the normal form. Each test breaks one link of a valid tree by hand and
 * expects the error naming it, in the "internal error: ... (after <context>)" form, at the
 * instruction or kernel it concerns; broken trees with cycles must end the walk, not hang.
 * Then: the normal form is reported and restored by wave_normalize_kernel, and every module
 * the parser reads from the corpus, and every module the generator builds, is valid as it
 * comes. Last, a tree nested 100 000 deep is built, validated, cloned, moved and normalized.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
/* The library's private layout: this test breaks links and fields by hand, as no editing function
 * can, to see the validator report each. */
#include "ir/code.h"
#include "waveopt/gen.h"
#include "waveopt/waveopt.h"

/* ---- a valid kernel to break -------------------------------------------------------------- */

/* entry:  [1 2] if p1 { [3] loop { [4] } } else { [5] } [6]
 * sub:    [7]
 * Instructions are `mov_imm r1, N`, their source line N; the kernel's line is 100. */
typedef struct fixture {
  wave_module *m;
  wave_kernel *k;
  wave_region *sub;
  wave_node *b12, *iff, *b3, *loop, *b4, *b5, *b6, *b7;
  wave_instr *i[8];  /* i[1]..i[7] */
  wave_diags d;
} fixture;

static wave_instr *tagged(fixture *f, wave_node_list *list, uint32_t n) {
  wave_instr *i = tu_tag(f->m, list, n);
  tu_set_origin(i, (wave_loc){"t.wave", n, 5}, NULL, NULL);
  f->i[n] = i;
  return i;
}

static fixture setup(void) {
  fixture f = {0};
  f.m = wave_module_create("t.wave");
  cr_assert_not_null(f.m);
  f.k = wave_kernel_create(f.m, "k");
  f.sub = f.k ? wave_region_create(f.k, "sub") : NULL;
  cr_assert(f.k && f.sub);
  f.k->kernel_src.loc = (wave_loc){"t.wave", 100, 1};
  wave_node_list *body = &f.k->first_region->body;
  f.b12 = wave_instr_node(tagged(&f, body, 1));
  tagged(&f, body, 2);
  f.iff = wave_if_create(f.m, wave_pred(1));
  f.loop = wave_loop_create(f.m);
  cr_assert(f.iff && f.loop);
  f.iff->u.if_.if_src.loc = (wave_loc){"t.wave", 20, 5};
  wave_node_list_append(body, f.iff);
  f.b3 = wave_instr_node(tagged(&f, &f.iff->u.if_.then_body, 3));
  wave_node_list_append(&f.iff->u.if_.then_body, f.loop);
  f.b4 = wave_instr_node(tagged(&f, &f.loop->u.loop.body, 4));
  f.b5 = wave_instr_node(tagged(&f, &f.iff->u.if_.else_body, 5));
  f.b6 = wave_instr_node(tagged(&f, body, 6));
  f.b7 = wave_instr_node(tagged(&f, &f.sub->body, 7));
  tu_assert_shape(body, "[1 2] if{[3] loop{[4]}}{[5]} [6]");
  wave_diags_init(&f.d);
  return f;
}

static void teardown(fixture *f) {
  wave_diags_free(&f->d);
  wave_module_destroy(f->m);
}

/* Validates the kernel as "pass-x" and asserts that it fails with an error containing
 * `what`, at `line` (the kernel's 100 or an instruction's), and that every error has the
 * internal-error form. */
static void expect_broken(fixture *f, const char *what, uint32_t line) {
  bool ok = wave_validate_kernel(f->k, "pass-x", &f->d);
  cr_assert_not(ok, "'%s' went unnoticed", what);
  bool found = false;
  for (size_t i = 0; i < f->d.count; i++) {
    const wave_diag *g = &f->d.items[i];
    cr_assert_eq(g->severity, WAVE_SEV_ERROR);
    cr_assert_eq(strncmp(g->message, "internal error: ", 16), 0, "%s", g->message);
    static const char suffix[] = " (after pass-x)";
    size_t len = strlen(g->message), n = strlen(suffix);
    cr_assert(len >= n && strcmp(g->message + len - n, suffix) == 0, "%s", g->message);
    if (strstr(g->message, what) && g->line == line)
      found = true;
  }
  if (!found)
    tu_log_diags(&f->d);
  cr_assert(found, "no error '%s' at line %u", what, line);
}

Test(validate, the_fixture_is_valid) {
  fixture f = setup();
  cr_assert(wave_validate_kernel(f.k, "pass-x", &f.d));
  cr_assert_eq(f.d.count, 0);
  cr_assert(wave_validate_module(f.m, NULL, &f.d));
  cr_assert_eq(f.d.count, 0);
  teardown(&f);
}

/* ---- instruction links -------------------------------------------------------------------- */

Test(validate, instruction_naming_another_block) {
  fixture f = setup();
  f.i[2]->owner = (uintptr_t)f.b6;
  expect_broken(&f, "'mov_imm' names another block", 2);
  teardown(&f);
}

Test(validate, instruction_with_a_wrong_prev_link) {
  fixture f = setup();
  f.i[2]->prev = NULL;
  expect_broken(&f, "previous-instruction link", 2);
  teardown(&f);
}

Test(validate, block_with_a_wrong_last_link) {
  fixture f = setup();
  f.b12->u.block.last = f.i[1];
  expect_broken(&f, "last-instruction link", 1);
  teardown(&f);
}

Test(validate, instruction_cycle_ends_the_walk) {
  fixture f = setup();
  f.i[2]->next = f.i[1];
  expect_broken(&f, "an instruction is reached twice", 1);
  teardown(&f);
}

Test(validate, instruction_shared_by_two_blocks) {
  fixture f = setup();
  f.b6->u.block.first = f.b6->u.block.last = f.i[5];
  expect_broken(&f, "an instruction is reached twice", 5);
  teardown(&f);
}

Test(validate, opcode_and_operand_count_out_of_range) {
  fixture f = setup();
  wave_instr_set_op(f.i[3], WAVE_OP_COUNT + 7);
  f.i[4]->num_operands = WAVE_MAX_OPERANDS + 1;
  expect_broken(&f, "opcode number", 3);
  expect_broken(&f, "'mov_imm' has 7 operands (at most 6)", 4);
  teardown(&f);
}

/* ---- registers and conditions ------------------------------------------------------------- */

Test(validate, registers_beyond_the_directive) {
  fixture f = setup();
  f.k->registers = 4;
  wave_instr_set_operand(f.i[3], 0, wave_gpr(4));
  /* dadd r2, ... writes r2 and r3: fine with 4 registers; r6's pair reaches r7. */
  wave_instr *dadd = wave_instr_create(f.m, WAVE_OP_DADD, WAVE_NO_GUARD, false, 3,
                                       (const wave_operand[]){wave_gpr(2), wave_gpr(0),
                                                              wave_gpr(2)});
  cr_assert_not_null(dadd);
  tu_set_origin(dadd, (wave_loc){"t.wave", 41, 5}, NULL, NULL);
  wave_block_append(f.b5, dadd);
  wave_instr *wide = wave_instr_clone(f.m, dadd);
  wave_instr_set_operand(wide, 0, wave_gpr(6));
  tu_set_origin(wide, (wave_loc){"t.wave", 42, 5}, NULL, NULL);
  wave_block_append(f.b5, wide);
  expect_broken(&f, "'mov_imm' uses r4, beyond .registers 4", 3);
  expect_broken(&f, "'dadd' uses r7, beyond .registers 4", 42);
  for (size_t i = 0; i < f.d.count; i++)
    cr_assert_neq(f.d.items[i].line, 41, "r2-r3 fit in 4 registers");
  teardown(&f);
}

Test(validate, predicate_that_does_not_exist) {
  fixture f = setup();
  f.i[6]->guard = 4;
  expect_broken(&f, "'mov_imm' uses p4, which does not exist", 6);
  teardown(&f);
}

Test(validate, if_condition_must_be_a_predicate) {
  fixture f = setup();
  f.iff->u.if_.cond = wave_gpr(1);
  expect_broken(&f, "if condition is not a predicate register", 20);
  teardown(&f);
}

/* ---- node and list links ------------------------------------------------------------------ */

Test(validate, node_naming_another_list) {
  fixture f = setup();
  f.loop->list = &f.iff->u.if_.else_body;
  expect_broken(&f, "loop names another list", 100);
  teardown(&f);
}

Test(validate, node_with_a_wrong_prev_link) {
  fixture f = setup();
  f.b6->prev = f.b12;
  expect_broken(&f, "block has a previous-node link", 6);
  teardown(&f);
}

Test(validate, list_with_a_wrong_last_link) {
  fixture f = setup();
  f.iff->u.if_.then_body.last = f.b3;
  expect_broken(&f, "last-node link", 100);
  teardown(&f);
}

Test(validate, list_with_a_last_but_no_first) {
  fixture f = setup();
  f.loop->u.loop.body.first = NULL;
  expect_broken(&f, "last-node link", 100);
  teardown(&f);
}

Test(validate, nested_list_naming_another_parent) {
  fixture f = setup();
  f.iff->u.if_.else_body.parent = f.loop;
  expect_broken(&f, "the if's else-list names another parent", 20);
  teardown(&f);
}

Test(validate, nested_list_naming_another_region) {
  fixture f = setup();
  f.loop->u.loop.body.region = f.sub;
  expect_broken(&f, "the loop's body names another region than '(entry)'", 100);
  teardown(&f);
}

Test(validate, node_cycle_ends_the_walk) {
  fixture f = setup();
  f.b6->next = f.iff;
  expect_broken(&f, "if reached twice", 20);
  teardown(&f);
}

Test(validate, node_shared_by_two_lists) {
  fixture f = setup();
  f.sub->body.first = f.sub->body.last = f.b5;
  expect_broken(&f, "block reached twice", 5);
  teardown(&f);
}

Test(validate, node_of_an_unknown_kind) {
  fixture f = setup();
  f.loop->kind = (wave_node_kind)7;
  expect_broken(&f, "node of kind 7", 100);
  teardown(&f);
}

/* ---- regions and kernels ------------------------------------------------------------------ */

Test(validate, region_links) {
  fixture f = setup();
  f.sub->kernel = NULL;
  f.sub->prev = NULL;
  f.sub->body.parent = f.loop;
  f.k->first_region->body.region = f.sub;
  expect_broken(&f, "region 'sub' names another kernel than 'k'", 100);
  expect_broken(&f, "region 'sub' has a previous-region link", 100);
  expect_broken(&f, "body of region 'sub' has a parent node", 100);
  expect_broken(&f, "body of region '(entry)' names another region", 100);
  teardown(&f);
}

Test(validate, region_cycle_ends_the_walk) {
  fixture f = setup();
  f.sub->next = f.k->first_region;
  expect_broken(&f, "region list of kernel 'k' meets region '(entry)' twice", 100);
  teardown(&f);
}

Test(validate, kernel_last_region_link) {
  fixture f = setup();
  f.k->last_region = f.k->first_region;
  expect_broken(&f, "kernel 'k' has a last-region link", 100);
  teardown(&f);
}

Test(validate, module_kernel_links) {
  fixture f = setup();
  wave_kernel *second = wave_kernel_create(f.m, "second");
  cr_assert_not_null(second);
  second->kernel_src.loc = (wave_loc){"t.wave", 200, 1};
  cr_assert(wave_validate_module(f.m, "pass-x", &f.d));
  second->prev = NULL;
  second->module = NULL;
  f.m->num_kernels = 3;
  cr_assert_not(wave_validate_module(f.m, "pass-x", &f.d));
  const char *expected[] = {"kernel 'second' has a previous-kernel link",
                            "kernel 'second' names another module",
                            "the module counts 3 kernels but holds 2"};
  for (size_t e = 0; e < 3; e++) {
    bool found = false;
    for (size_t i = 0; i < f.d.count; i++)
      found |= strstr(f.d.items[i].message, expected[e]) != NULL;
    cr_assert(found, "no error '%s'", expected[e]);
  }
  cr_assert_eq(f.d.items[0].line, 200);
  second->next = f.k;
  cr_assert_not(wave_validate_module(f.m, "pass-x", &f.d), "a kernel cycle ends the walk");
  teardown(&f);
}

/* ---- how problems are reported ------------------------------------------------------------ */

Test(validate, reports_quote_the_source_and_omit_a_null_context) {
  wave_module *m = tu_parse_ok(".kernel k\n    nop\n    halt\n.end\n", "q.wave", true);
  wave_kernel *k = m->first_kernel;
  wave_instr *halt = wave_node_list_first(&k->first_region->body)->u.block.last;
  halt->prev = NULL;
  wave_diags d;
  wave_diags_init(&d);
  cr_assert_not(wave_validate_kernel(k, NULL, &d));
  cr_assert_eq(d.count, 1);
  cr_assert_str_eq(d.items[0].message,
                   "internal error: 'halt' has a previous-instruction link to another "
                   "instruction");
  cr_assert_str_eq(d.items[0].file, "q.wave");
  cr_assert_eq(d.items[0].line, 3);
  cr_assert_str_eq(d.items[0].source_line, "    halt");
  wave_diags_free(&d);
  wave_diags_init(&d);
  cr_assert_not(wave_validate_kernel(k, "dce", &d));
  cr_assert_str_eq(d.items[0].message,
                   "internal error: 'halt' has a previous-instruction link to another "
                   "instruction (after dce)");
  wave_diags_free(&d);
  wave_module_destroy(m);
}

/* ---- the normal form ---------------------------------------------------------------------- */

static wave_node *empty_block(wave_module *m) {
  wave_node *b = wave_block_create(m);
  cr_assert_not_null(b);
  return b;
}

/* Blocks as the raw ir.h functions leave them: [] [1] [2] if{[] []}{[3] [] [4]} [] loop{[]} [5] */
static wave_kernel *build_unnormal(wave_module *m) {
  wave_kernel *k = wave_kernel_create(m, "k");
  cr_assert_not_null(k);
  wave_node_list *body = &k->first_region->body;
  wave_node_list_append(body, empty_block(m));
  wave_node *b1 = empty_block(m), *b2 = empty_block(m);
  wave_node_list_append(body, b1);
  wave_node_list_append(body, b2);
  tu_add(m, b1, WAVE_OP_MOV_IMM, 2, (const wave_operand[]){wave_gpr(1), wave_imm(1)});
  tu_add(m, b2, WAVE_OP_MOV_IMM, 2, (const wave_operand[]){wave_gpr(1), wave_imm(2)});
  wave_node *iff = wave_if_create(m, wave_pred(1));
  cr_assert_not_null(iff);
  wave_node_list_append(body, iff);
  wave_node_list_append(&iff->u.if_.then_body, empty_block(m));
  wave_node_list_append(&iff->u.if_.then_body, empty_block(m));
  wave_node *b3 = empty_block(m), *b4 = empty_block(m);
  wave_node_list_append(&iff->u.if_.else_body, b3);
  wave_node_list_append(&iff->u.if_.else_body, empty_block(m));
  wave_node_list_append(&iff->u.if_.else_body, b4);
  tu_add(m, b3, WAVE_OP_MOV_IMM, 2, (const wave_operand[]){wave_gpr(1), wave_imm(3)});
  tu_add(m, b4, WAVE_OP_MOV_IMM, 2, (const wave_operand[]){wave_gpr(1), wave_imm(4)});
  wave_node_list_append(body, empty_block(m));
  wave_node *loop = wave_loop_create(m);
  cr_assert_not_null(loop);
  wave_node_list_append(body, loop);
  wave_node_list_append(&loop->u.loop.body, empty_block(m));
  tu_tag(m, body, 5);
  return k;
}

static size_t count_messages(const wave_diags *d, const char *text) {
  size_t n = 0;
  for (size_t i = 0; i < d->count; i++)
    n += strstr(d->items[i].message, text) != NULL;
  return n;
}

Test(normal_form, is_checked_and_restored) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = build_unnormal(m);
  wave_node_list *body = &k->first_region->body;
  tu_assert_shape(body, "[] [1] [2] if{[] []}{[3] [] [4]} [] loop{[]} [5]");
  wave_diags d;
  wave_diags_init(&d);
  cr_assert_not(wave_validate_kernel(k, "raw", &d));
  /* empty: the first, two in then, one in else, the one before the loop, the loop's */
  cr_assert_eq(count_messages(&d, "empty block"), 6);
  /* adjacent: []-[1], [1]-[2], []-[] in then, [3]-[], []-[4] */
  cr_assert_eq(count_messages(&d, "two adjacent blocks"), 5);
  cr_assert_eq(d.count, 11, "nothing but the normal form is wrong");
  wave_diags_free(&d);

  cr_assert(wave_normalize_kernel(k));
  tu_assert_shape(body, "[1 2] if{}{[3 4]} loop{} [5]");
  tu_assert_valid(k);
  cr_assert_not(wave_normalize_kernel(k), "a second run finds nothing to do");
  wave_module_destroy(m);
}

Test(normal_form, normalizing_keeps_every_comment) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  cr_assert_not_null(k);
  wave_node_list *body = &k->first_region->body;
  wave_node *a = empty_block(m), *b = empty_block(m);
  wave_node_list_append(body, a);
  wave_node_list_append(body, empty_block(m));
  wave_node_list_append(body, b);
  wave_instr *x = tu_add(m, a, WAVE_OP_NOP, 0, NULL);
  wave_instr *y = tu_add(m, b, WAVE_OP_HALT, 0, NULL);
  tu_set_origin(x, wave_instr_loc(x), "; before x", "; on x");
  tu_set_origin(y, wave_instr_loc(y), "; before y", "; on y");
  cr_assert(wave_normalize_kernel(k));
  tu_assert_shape(body, "[nop halt]");
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  char *text = wave_print_to_string(m, &opts, NULL);
  cr_assert_not_null(text);
  cr_assert(strstr(text, "; before x") && strstr(text, "; on x") && strstr(text, "; before y") &&
                strstr(text, "; on y"),
            "%s", text);
  free(text);
  wave_module_destroy(m);
}

/* ---- what the parser and the generator produce -------------------------------------------- */

static void assert_module_valid(const wave_module *m, const char *context, const char *what) {
  wave_diags d;
  wave_diags_init(&d);
  bool ok = wave_validate_module(m, context, &d);
  if (!ok)
    tu_log_diags(&d);
  cr_assert(ok, "%s does not validate after %s", what, context);
  cr_assert_eq(d.count, 0, "%s", what);
  wave_diags_free(&d);
}

Test(sources, every_corpus_file_parses_into_a_valid_tree) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  cr_assert_geq(n, 20, "the corpus is missing");
  for (size_t f = 0; f < n; f++) {
    wave_module *m = tu_parse_corpus(files[f].name);
    assert_module_valid(m, "parsing", files[f].name);
    wave_module_destroy(m);
  }
}

/* Shapes the corpus may not have: empty ifs, else-only ifs, empty loops, labels right after
 * structured code, comment-only lines between statements. */
Test(sources, parsed_edge_shapes_are_valid) {
  static const char text[] =
      ".kernel edges\n"
      "    if p1\n"
      "    endif\n"
      "    if p1\n"
      "    else\n"
      "        ; only a comment\n"
      "    endif\n"
      "    loop\n"
      "    endloop\n"
      "    if p2\n"
      "        loop\n"
      "            break p2\n"
      "        endloop\n"
      "    else\n"
      "        nop\n"
      "    endif\n"
      "    ; between\n"
      "    nop\n"
      "    ; and again\n"
      "    halt\n"
      "sub:\n"
      "    loop\n"
      "        break p1\n"
      "    endloop\n"
      "empty:\n"
      ".end\n";
  wave_module *m = tu_parse_ok(text, "edges.wave", false);
  tu_assert_shape(&m->first_kernel->first_region->body,
                  "if{}{} if{}{} loop{} if{loop{[break]}}{[nop]} [nop halt]");
  assert_module_valid(m, "parsing", "edges.wave");
  wave_module_destroy(m);
}

Test(sources, generated_kernels_are_valid) {
  for (uint64_t seed = 1; seed <= 60; seed++) {
    wave_gen_options opts;
    wave_gen_options_init(&opts);
    opts.seed = seed;
    opts.docs_dialect = seed % 2 == 0;
    opts.races = seed % 3 == 0;
    wave_gen_launch launch;
    wave_diags d;
    wave_diags_init(&d);
    wave_module *m = wave_generate(&opts, &launch, &d);
    cr_assert_not_null(m, "seed %llu", (unsigned long long)seed);
    wave_diags_free(&d);
    char what[32];
    snprintf(what, sizeof(what), "seed %llu", (unsigned long long)seed);
    assert_module_valid(m, "generation", what);
    wave_module_destroy(m);
  }
}

Test(sources, lowered_documentation_dialect_stays_valid) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES), lowered = 0;
  for (size_t f = 0; f < n; f++) {
    if (strncmp(files[f].name, "docs_", 5) != 0)
      continue;
    wave_module *m = tu_parse_corpus(files[f].name);
    wave_diags d;
    wave_diags_init(&d);
    cr_assert(wave_lower_docs_dialect(m, &d), "%s", files[f].name);
    wave_diags_free(&d);
    assert_module_valid(m, "lowering", files[f].name);
    lowered++;
    wave_module_destroy(m);
  }
  cr_assert_geq(lowered, 3, "the corpus has documentation-dialect files");
  for (uint64_t seed = 1; seed <= 30; seed++) {
    wave_gen_options opts;
    wave_gen_options_init(&opts);
    opts.seed = seed;
    opts.docs_dialect = true;
    wave_gen_launch launch;
    wave_diags d;
    wave_diags_init(&d);
    wave_module *m = wave_generate(&opts, &launch, &d);
    cr_assert(m && wave_lower_docs_dialect(m, &d), "seed %llu", (unsigned long long)seed);
    wave_diags_free(&d);
    assert_module_valid(m, "lowering", "a generated kernel");
    wave_module_destroy(m);
  }
}

/* ---- 100 000 levels of nesting ------------------------------------------------------------ */

#define DEEP 100000u

/* Depth of the deepest statement under list, by the const walker. */
static unsigned max_depth(const wave_node_list *list, unsigned *blocks) {
  wave_const_walker w;
  wave_const_walk_init(&w, list);
  unsigned deepest = 0;
  *blocks = 0;
  while (wave_const_walk_next(&w)) {
    deepest = w.depth > deepest ? w.depth : deepest;
    *blocks += w.event == WAVE_WALK_BLOCK;
  }
  return deepest;
}

Test(deep, built_validated_cloned_moved_and_normalized, .timeout = 120) {
  wave_module *m = wave_module_create("deep.wave");
  wave_kernel *k = m ? wave_kernel_create(m, "deep") : NULL;
  wave_region *sub = k ? wave_region_create(k, "sub") : NULL;
  cr_assert(sub);
  wave_node_list *body = &k->first_region->body;
  /* if p1 { loop { if p1 { loop { ... [7] } } } } [9], built top-down by the builder */
  wave_builder b = wave_builder_at(m, wave_cursor_list_end(body), (wave_loc){0});
  wave_node *outer = NULL;
  for (unsigned i = 0; i < DEEP; i++) {
    wave_node *n = i % 2 ? wave_build_loop(&b) : wave_build_if(&b, wave_pred(1));
    cr_assert_not_null(n);
    outer = outer ? outer : n;
  }
  wave_instr *seven = wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(1), wave_imm(7));
  cr_assert_not_null(seven);
  wave_node *innermost = wave_instr_node(seven);
  wave_instr *nine = tu_tag(m, body, 9);
  tu_assert_valid(k);
  unsigned blocks;
  cr_assert_eq(max_depth(body, &blocks), DEEP);
  cr_assert_eq(blocks, 2);
  cr_assert_eq(wave_block_next(innermost), wave_instr_node(nine));
  cr_assert_eq(wave_block_prev(wave_instr_node(nine)), innermost);
  /* The last of the DEEP levels (odd) is a loop, the one around it an if. */
  wave_node *last_loop = wave_node_parent(innermost);
  cr_assert_eq(last_loop->kind, WAVE_NODE_LOOP);
  cr_assert_eq(wave_node_enclosing_loop(innermost), last_loop);
  cr_assert_eq(wave_node_enclosing_loop(last_loop), wave_node_parent(wave_node_parent(last_loop)));

  wave_node *copy = wave_node_clone(m, outer);
  cr_assert_not_null(copy);
  cr_assert(wave_node_insert(m, wave_cursor_list_end(&sub->body), copy));
  cr_assert_eq(max_depth(&sub->body, &blocks), DEEP);
  cr_assert_eq(blocks, 1);
  tu_assert_valid(k);

  /* The original moves into the labelled region: one walk renames 100 000 lists' region. */
  wave_node_list moved;
  cr_assert(wave_node_list_extract(outer, outer, &moved));
  cr_assert(wave_node_list_reinsert(m, wave_cursor_list_start(&sub->body), &moved));
  cr_assert_eq(wave_node_list_region(innermost->list), sub);
  tu_assert_valid(k);

  wave_node_list_append(innermost->list, wave_block_create(m));
  cr_assert(wave_normalize_kernel(k));
  tu_assert_valid(k);
  wave_module_destroy(m);
}

Test(deep, built_detached_bottom_up_then_inserted, .timeout = 120) {
  wave_module *m = wave_module_create("deep.wave");
  wave_kernel *k = m ? wave_kernel_create(m, "deep") : NULL;
  cr_assert_not_null(k);
  wave_node *inner = wave_loop_create(m);
  cr_assert_not_null(inner);
  tu_tag(m, &inner->u.loop.body, 1);
  wave_node *top = inner;
  for (unsigned i = 1; i < DEEP; i++) {
    wave_node *n = wave_loop_create(m);
    cr_assert_not_null(n);
    wave_node_list_append(&n->u.loop.body, top);
    top = n;
  }
  cr_assert_null(wave_node_list_region(&inner->u.loop.body));
  wave_node_list_append(&k->first_region->body, top);
  cr_assert_eq(wave_node_list_region(&inner->u.loop.body), k->first_region);
  tu_assert_valid(k);
  unsigned blocks;
  cr_assert_eq(max_depth(&k->first_region->body, &blocks), DEEP);
  wave_module_destroy(m);
}

/* The record every instruction takes (ir/code.h): tests that fail when it grows, so that
 * growing it is a decision. */
Test(storage, an_instruction_header_takes_40_bytes) {
  cr_assert_leq(sizeof(struct wave_instr), 40, "%zu bytes", sizeof(struct wave_instr));
}

/* Units as ir/code.h counts them by hand: one per slot, then the decoded registers four to a
 * unit, at least one. */
Test(storage, an_instruction_takes_the_units_its_operands_need) {
  wave_module *m = wave_module_create("units.wave");
  cr_assert_not_null(m);
  wave_operand add[] = {wave_gpr(1), wave_gpr(2), wave_gpr(3)};
  wave_operand mov[] = {wave_gpr(1), wave_imm(10)};
  /* device_store_u128 r1, r4 (r4..r7): two slots, five registers read. */
  wave_operand v4[] = {wave_gpr(1), wave_gpr(4)};
  struct {
    wave_opcode op;
    unsigned n;
    const wave_operand *operands;
    unsigned units;
  } cases[] = {{WAVE_OP_IADD, 3, add, 3 + 1},
               {WAVE_OP_MOV_IMM, 2, mov, 2 + 1},
               {WAVE_OP_DEVICE_STORE_U128, 2, v4, 2 + 2},
               {WAVE_OP_HALT, 0, NULL, 1}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    wave_instr *in =
        wave_instr_create(m, cases[i].op, WAVE_NO_GUARD, false, cases[i].n, cases[i].operands);
    cr_assert_not_null(in);
    cr_expect_eq(in->units, cases[i].units, "%s: %u units", wave_opcode_table[cases[i].op].mnemonic,
                 (unsigned)in->units);
    cr_expect_neq(in->num_reads, WAVE_CODE_UNDECODED, "%s",
                  wave_opcode_table[cases[i].op].mnemonic);
  }
  wave_module_destroy(m);
}

/* An instruction given more slots than it was made with moves them out of line: the operands,
 * the registers, a clone and the module it belongs to all stay as they were. */
Test(storage, outgrown_slots_move_and_keep_everything) {
  wave_module *m = wave_module_create("spill.wave");
  wave_kernel *k = m ? wave_kernel_create(m, "k") : NULL;
  cr_assert_not_null(k);
  wave_node *block = wave_block_create(m);
  cr_assert_not_null(block);
  wave_node_list_append(&k->first_region->body, block);
  wave_operand mov[] = {wave_gpr(5), wave_imm(7)};
  wave_instr *in = wave_instr_create(m, WAVE_OP_MOV_IMM, 2, true, 2, mov);
  cr_assert_not_null(in);
  wave_block_append(block, in);
  cr_assert_eq(in->units, 3);
  wave_instr_set_op(in, WAVE_OP_SELECT);
  cr_assert(wave_instr_set_num_operands(in, 4));
  cr_assert(in->spilled);
  cr_assert(wave_instr_set_operand(in, 1, wave_pred(1)));
  cr_assert(wave_instr_set_operand(in, 2, wave_gpr(8)));
  cr_assert(wave_instr_set_operand(in, 3, wave_gpr(9)));
  wave_regset uses, defs, want_uses = wave_regset_empty(), want_defs = wave_regset_empty();
  wave_instr_uses_defs(in, &uses, &defs);
  /* Reads p1, r8, r9, the guard p2 and, guarded, the old r5; writes r5. */
  unsigned read[] = {WAVE_REG_GPR(5), WAVE_REG_GPR(8), WAVE_REG_GPR(9), WAVE_REG_PRED(1),
                     WAVE_REG_PRED(2)};
  for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++)
    wave_regset_set(&want_uses, read[i]);
  wave_regset_set(&want_defs, WAVE_REG_GPR(5));
  cr_assert(wave_regset_equal(uses, want_uses));
  cr_assert(wave_regset_equal(defs, want_defs));
  cr_assert_eq(wave_instr_operand(in, 0).value, 5);
  cr_assert_eq(wave_instr_node(in), block);
  wave_instr *copy = wave_instr_clone(m, in);
  cr_assert_not_null(copy);
  cr_assert_not(copy->spilled);
  cr_assert_null(wave_instr_node(copy));
  cr_assert(wave_instr_equal(copy, in));
  wave_instr_remove(in);
  cr_assert_null(wave_instr_node(in));
  cr_assert(wave_instr_equal(copy, in));
  wave_module_destroy(m);
}

/* Without a note an instruction's file follows from its line; every other origin takes one. */
Test(storage, origins_without_a_note_and_with_one) {
  wave_module *m = wave_module_create("own.wave");
  cr_assert_not_null(m);
  wave_instr *in = wave_instr_create(m, WAVE_OP_HALT, WAVE_NO_GUARD, false, 0, NULL);
  cr_assert_not_null(in);
  cr_assert_null(wave_instr_loc(in).file);
  struct {
    const char *file;
    uint32_t line;
    bool note;
  } cases[] = {{m->file, 3, false},
               {NULL, 0, false},
               {NULL, 4, true},
               {m->file, 0, true},
               {"other.wave", 5, true}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    wave_src origin = {{cases[i].file, cases[i].line, 2}, NULL, NULL};
    cr_assert(wave_instr_set_origin(in, &origin));
    wave_loc loc = wave_instr_loc(in);
    cr_expect_eq(loc.file, cases[i].file, "case %zu", i);
    cr_expect_eq(loc.line, cases[i].line, "case %zu", i);
    if (cases[i].note)
      cr_expect_neq(in->note, 0, "case %zu takes a note", i);
  }
  wave_module_destroy(m);
}
