/* SPDX-License-Identifier: Apache-2.0 */
/* Divergence profiles: the JSON reader on its own (valid text, every malformed shape, deep
 * nesting, huge numbers, and every truncation and many corruptions of a real profile without a
 * crash), then profiles of the corpus written and read back, whose per-line and per-branch
 * counts must add up to the run's totals, and matching against kernels. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "support/json.h"
#include "test_util.h"
#include "waveopt/interp.h"
#include "waveopt/profile.h"

/* ---- the JSON reader ------------------------------------------------------------------------ */

typedef struct parsed {
  wave_arena *arena;
  wave_json *root;
  wave_json_error error;
} parsed;

static parsed parse_n(const char *text, size_t len) {
  parsed p = {wave_arena_create(NULL), NULL, {0}};
  cr_assert_not_null(p.arena);
  p.root = wave_json_parse(text, len, p.arena, &p.error);
  return p;
}

static parsed parse(const char *text) { return parse_n(text, strlen(text)); }

Test(json, values_and_members) {
  parsed p = parse(" {\"a\": [1, -2.5, \"x\\n\\u00e9\\ud83d\\ude00\", true, false, null, {}, []],\n"
                   "  \"b\": {\"c\": 18446744073709551615}, \"a\": 0}\n");
  cr_assert_not_null(p.root, "%u:%u %s", p.error.line, p.error.col, p.error.message);
  cr_assert_eq(p.root->type, WAVE_JSON_OBJECT);
  cr_assert_eq(p.root->size, 3);
  const wave_json *a = wave_json_member(p.root, "a");
  cr_assert_eq(a->type, WAVE_JSON_ARRAY, "the first of two members named a");
  cr_assert_eq(a->size, 8);
  const wave_json *e = a->first;
  cr_assert(e->is_count && e->count == 1);
  e = e->next;
  cr_assert(!e->is_count && e->number == -2.5);
  e = e->next;
  cr_assert_str_eq(e->string, "x\n\xc3\xa9\xf0\x9f\x98\x80");
  cr_assert_eq(e->next->type, WAVE_JSON_TRUE);
  cr_assert_eq(e->next->next->type, WAVE_JSON_FALSE);
  cr_assert_eq(e->next->next->next->type, WAVE_JSON_NULL);
  cr_assert_eq(a->last->type, WAVE_JSON_ARRAY);
  cr_assert_eq(a->last->size, 0);
  const wave_json *c = wave_json_member(wave_json_member(p.root, "b"), "c");
  cr_assert(c->is_count && c->count == UINT64_MAX);
  cr_assert_eq(c->line, 2);
  cr_assert_eq(c->col, 14);
  cr_assert_null(wave_json_member(p.root, "z"));
  cr_assert_null(wave_json_member(a, "a"), "an array has no members");
  wave_arena_destroy(p.arena);
}

/* \u escapes of every UTF-8 length, hex digits in either case: U+0041 is one byte, U+00E9 two,
 * U+20AC three (U+1F600 takes four, through a surrogate pair, above). */
Test(json, escapes_of_every_length) {
  parsed p = parse("\"\\u0041\\u00E9\\u20aC\"");
  cr_assert_not_null(p.root, "%u:%u %s", p.error.line, p.error.col, p.error.message);
  cr_assert_str_eq(p.root->string, "A\xc3\xa9\xe2\x82\xac");
  wave_arena_destroy(p.arena);
}

Test(json, huge_numbers) {
  parsed p =
      parse("[18446744073709551616, 1e400, -1e400, 1e-400, -0, 0.0, 100000000000000000000000]");
  cr_assert_not_null(p.root);
  const wave_json *e = p.root->first;
  cr_assert(!e->is_count, "2^64 is no count");
  cr_assert(e->number > 1.8e19);
  e = e->next;
  cr_assert(isinf(e->number) && e->number > 0 && !e->is_count);
  e = e->next;
  cr_assert(isinf(e->number) && e->number < 0);
  e = e->next;
  cr_assert(e->number == 0.0 && !e->is_count);
  e = e->next;
  cr_assert(!e->is_count, "-0 is negative");
  e = e->next;
  cr_assert(!e->is_count, "0.0 is not written as an integer");
  cr_assert(!e->next->is_count);
  wave_arena_destroy(p.arena);
}

typedef struct bad_case {
  const char *text;
  uint32_t line, col;
  const char *message;
} bad_case;

Test(json, malformed_text_says_where) {
  static const bad_case cases[] = {
      {"", 1, 1, "unexpected end of input"},
      {"   \n  ", 2, 3, "unexpected end of input"},
      {"[1, 2", 1, 6, "unexpected end of input"},
      {"[1, 2,]", 1, 7, "expected a value"},
      {"[1 2]", 1, 4, "expected ',' or ']'"},
      {"{\"a\" 1}", 1, 6, "expected ':'"},
      {"{\"a\": 1,}", 1, 9, "expected a member name"},
      {"{1: 2}", 1, 2, "expected a member name"},
      {"{\"a\": 1]", 1, 8, "expected ',' or '}'"},
      {"[1] [2]", 1, 5, "text after the value"},
      {"tru", 1, 1, "expected a value"},
      {"nul", 1, 1, "expected a value"},
      {"-", 1, 1, "bad number"},
      {"01", 1, 2, "text after the value"},
      {"1.", 1, 1, "bad number"},
      {"1e", 1, 1, "bad number"},
      {"+1", 1, 1, "expected a value"},
      {"\"abc", 1, 1, "unterminated string"},
      {"\"a\\", 1, 1, "unterminated string"},
      {"\"a\tb\"", 1, 3, "control character in a string"},
      {"\"\\x\"", 1, 2, "bad escape in a string"},
      {"\"\\u12\"", 1, 2, "bad \\u escape in a string"},
      {"\"\\u0000\"", 1, 2, "\\u0000 in a string"},
      {"\"\\ud800\"", 1, 2, "unpaired surrogate in a string"},
      {"\"\\ud800\\u0041\"", 1, 2, "unpaired surrogate in a string"},
      {"\"\\udc00\"", 1, 2, "unpaired surrogate in a string"},
      {"[\"a\"\n, @]", 2, 3, "expected a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    parsed p = parse(cases[i].text);
    cr_expect_null(p.root, "'%s' parses", cases[i].text);
    cr_expect_str_eq(p.error.message, cases[i].message, "'%s'", cases[i].text);
    cr_expect(p.error.line == cases[i].line && p.error.col == cases[i].col,
              "'%s': error at %u:%u, expected %u:%u", cases[i].text, p.error.line, p.error.col,
              cases[i].line, cases[i].col);
    wave_arena_destroy(p.arena);
  }
  /* a NUL byte inside the text is no value */
  parsed p = parse_n("[1,\0]", 5);
  cr_assert_null(p.root);
  wave_arena_destroy(p.arena);
}

/* depth times `open`, then `mid`, then depth times `close`. */
static char *nest(size_t depth, const char *open, const char *mid, const char *close) {
  size_t o = strlen(open), m = strlen(mid), c = strlen(close);
  char *text = malloc(depth * (o + c) + m + 1);
  cr_assert_not_null(text);
  for (size_t i = 0; i < depth; i++) {
    memcpy(text + i * o, open, o);
    memcpy(text + depth * o + m + i * c, close, c);
  }
  memcpy(text + depth * o, mid, m);
  text[depth * (o + c) + m] = '\0';
  return text;
}

Test(json, deep_nesting_costs_no_stack) {
  char *text = nest(WAVE_JSON_MAX_DEPTH, "[", "", "]");
  parsed p = parse(text);
  cr_assert_not_null(p.root, "%s", p.error.message);
  wave_arena_destroy(p.arena);
  free(text);
  text = nest(WAVE_JSON_MAX_DEPTH - 1, "{\"k\":", "0", "}");
  p = parse(text);
  cr_assert_not_null(p.root, "%s", p.error.message);
  wave_arena_destroy(p.arena);
  free(text);
  /* a million open brackets: refused at the limit, without recursion */
  text = nest(1000000, "[", "", "");
  p = parse(text);
  cr_assert_null(p.root);
  cr_assert_str_eq(p.error.message, "nested too deeply");
  cr_assert_eq(p.error.col, WAVE_JSON_MAX_DEPTH + 1);
  wave_arena_destroy(p.arena);
  free(text);
}

/* ---- profiles of real runs ------------------------------------------------------------------ */

static const char branch_kernel[] =
    ".kernel branch\n"                 /* 1 */
    ".registers 12\n"
    "    mov_sr   r1, sr_thread_id_x\n" /* 3 */
    "    mov_imm  r2, 2\n"
    "    shl      r3, r1, r2\n"         /* 5 */
    "    device_load_u32 r4, r3\n"
    "    mov_imm  r5, 0\n"              /* 7 */
    "    icmp_ne  p1, r4, r5\n"
    "    if p1\n"                       /* 9 */
    "        iadd r6, r4, r1\n"
    "    else\n"                        /* 11 */
    "        isub r6, r1, r4\n"
    "    endif\n"                       /* 13 */
    "    loop\n"
    "        icmp_ge p2, r5, r1\n"      /* 15 */
    "        break p2\n"
    "        iadd r5, r5, r2\n"         /* 17 */
    "    endloop\n"
    "    mov_imm  r7, 256\n"            /* 19 */
    "    iadd     r8, r3, r7\n"
    "    device_store_u32 r8, r6\n"     /* 21 */
    "    halt\n"
    ".end\n";

/* The profile text of `kernel` run with 32 lanes, device memory word i = i * scale. */
static char *profile_of(const wave_kernel *kernel, uint32_t scale) {
  uint8_t memory[4096];
  for (uint32_t i = 0; i < sizeof memory / 4; i++) {
    uint32_t v = i * scale;
    memcpy(memory + 4 * i, &v, 4);
  }
  wave_launch_config cfg;
  wave_launch_config_init(&cfg);
  cfg.memory_init = memory;
  cfg.memory_init_size = sizeof memory;
  cfg.max_steps = 1000000;
  cfg.no_deadlock_check = true;
  wave_machine *m = wave_simulate(kernel, &cfg, NULL);
  cr_assert_not_null(m);
  char *json = wave_profile_write(m, "branch.wave");
  cr_assert_not_null(json);
  wave_machine_destroy(m);
  return json;
}

static wave_profile *read_ok(const char *json) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_profile *p = wave_profile_parse(json, strlen(json), "branch.prof", &diags);
  tu_log_diags(&diags);
  cr_assert_not_null(p);
  cr_assert_eq(diags.count, 0);
  wave_diags_free(&diags);
  return p;
}

Test(profile, lookups_by_kernel_line_and_branch) {
  wave_module *m = tu_parse_ok(branch_kernel, "branch.wave", true);
  const wave_kernel *kernel = wave_module_find_kernel(m, "branch");
  /* word t = 2t: lanes 1..31 take the then-side, lane 0 the else-side; the loop lets lane t
   * go at iteration ceil(t / 2) (r5 steps by 2), so its exits differ */
  char *json = profile_of(kernel, 2);
  wave_profile *p = read_ok(json);
  cr_assert_str_eq(wave_profile_source(p), "branch.wave");
  cr_assert_eq(wave_profile_num_kernels(p), 1);
  cr_assert_null(wave_profile_find_kernel(p, "other"));
  cr_assert_null(wave_profile_kernel_at(p, 1));
  wave_diags diags;
  wave_diags_init(&diags);
  const wave_profile_kernel *k = wave_profile_match(p, kernel, &diags);
  cr_assert_not_null(k);
  cr_assert_eq(diags.count, 0);
  cr_assert_eq(k, wave_profile_find_kernel(p, "branch"));
  cr_assert_str_eq(wave_profile_kernel_name(k), "branch");
  cr_assert_eq(wave_profile_wave_width(k), 32);
  cr_assert_eq(wave_profile_num_lines(k), 20, "every line with a statement");
  cr_assert_null(wave_profile_find_line(k, 2), ".registers holds no statement");
  cr_assert_null(wave_profile_find_line(k, 23));
  const wave_profile_line *l = wave_profile_find_line(k, 10);
  cr_assert_str_eq(l->ops, "iadd");
  cr_assert(l->issued == 1 && l->lanes == 31);
  cr_assert_float_eq(wave_profile_line_efficiency(k, l), 31.0 / 32.0, 1e-12);
  l = wave_profile_find_line(k, 9);
  cr_assert(l->splits == 1 && l->divergent_exits == 0);
  l = wave_profile_find_line(k, 14);
  cr_assert(l->splits == 0 && l->divergent_exits == 1);
  /* the loop's compare runs in iterations 0..16 (lane 31 leaves at 16): 32 lanes, then the
   * 33 - 2i lanes t >= 2i - 1 of iteration i, 32 + 31 + 29 + ... + 1 = 32 + 256 */
  l = wave_profile_find_line(k, 15);
  cr_assert_eq(l->issued, 17);
  cr_assert_eq(l->lanes, 288);
  cr_assert_eq(wave_profile_num_branches(k), 2);
  const wave_profile_branch *b = wave_profile_find_branch(k, 9, WAVE_PROFILE_IF);
  cr_assert(b && b->runs == 1 && b->splits == 1 && b->lanes == 32);
  cr_assert_float_eq(wave_profile_branch_rate(b), 1.0, 1e-12);
  cr_assert_null(wave_profile_find_branch(k, 9, WAVE_PROFILE_LOOP));
  b = wave_profile_find_branch(k, 14, WAVE_PROFILE_LOOP);
  cr_assert(b && b->runs == 1 && b->divergent_exits == 1);
  cr_assert_eq(b, wave_profile_branch_at(k, 1));
  cr_assert_null(wave_profile_branch_at(k, 2));
  wave_profile_destroy(p);
  free(json);

  /* all zeros: the if never splits; the loop, which reads no memory, diverges as before */
  json = profile_of(kernel, 0);
  p = read_ok(json);
  k = wave_profile_match(p, kernel, &diags);
  b = wave_profile_find_branch(k, 9, WAVE_PROFILE_IF);
  cr_assert(b->runs == 1 && b->splits == 0);
  cr_assert_float_eq(wave_profile_branch_rate(b), 0.0, 1e-12);
  cr_assert_eq(wave_profile_find_line(k, 10)->issued, 0, "nobody took the then-side");
  cr_assert_float_eq(wave_profile_line_efficiency(k, wave_profile_find_line(k, 10)), 0.0, 1e-12);
  cr_assert_eq(wave_profile_find_branch(k, 14, WAVE_PROFILE_LOOP)->divergent_exits, 1);
  wave_profile_destroy(p);
  free(json);
  wave_diags_free(&diags);
  wave_module_destroy(m);
}

Test(profile, stale_and_foreign_kernels) {
  wave_module *m = tu_parse_ok(branch_kernel, "branch.wave", true);
  char *json = profile_of(wave_module_find_kernel(m, "branch"), 1);
  wave_profile *p = read_ok(json);
  wave_diags diags;
  wave_diags_init(&diags);

  /* same name, one opcode changed */
  char *edited = strdup(branch_kernel);
  memcpy(strstr(edited, "isub"), "iadd", 4);
  wave_module *m2 = tu_parse_ok(edited, "edited.wave", true);
  cr_assert_null(wave_profile_match(p, wave_module_find_kernel(m2, "branch"), &diags));
  cr_assert_eq(diags.num_errors, 1);
  cr_assert_eq(diags.items[0].line, 12);
  cr_assert_str_eq(diags.items[0].file, "edited.wave");
  cr_assert(strstr(diags.items[0].message, "line 12 holds 'iadd' here, 'isub' there"),
            "%s", diags.items[0].message);
  wave_module_destroy(m2);
  free(edited);

  /* a kernel of another name: no profile, and nothing to say */
  wave_diags_free(&diags);
  wave_diags_init(&diags);
  wave_module *m3 = tu_parse_ok(".kernel other\n    halt\n.end\n", "other.wave", true);
  cr_assert_null(wave_profile_match(p, wave_module_find_kernel(m3, "other"), &diags));
  cr_assert_eq(diags.count, 0);
  wave_module_destroy(m3);

  /* a kernel one line shorter */
  wave_module *m4 = tu_parse_ok(".kernel branch\n    halt\n.end\n", "short.wave", true);
  cr_assert_null(wave_profile_match(p, wave_module_find_kernel(m4, "branch"), &diags));
  cr_assert_eq(diags.num_errors, 1);
  cr_assert(strstr(diags.items[0].message, "is stale: line 2 holds 'halt' here"), "%s",
            diags.items[0].message);
  wave_module_destroy(m4);
  wave_diags_free(&diags);
  wave_profile_destroy(p);
  free(json);
  wave_module_destroy(m);
}

/* A copy of `text` with the first `from` replaced by `to`. */
static char *replaced(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  cr_assert_not_null(at, "no '%s' in the profile", from);
  size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to);
  char *out = malloc(n + 1);
  cr_assert_not_null(out);
  memcpy(out, text, head);
  strcpy(out + head, to);
  strcat(out, at + strlen(from));
  return out;
}

/* Well-formed JSON in the wrong shape is refused with one error that says what is wrong. */
Test(profile, wrong_shapes_are_named) {
  wave_module *m = tu_parse_ok(branch_kernel, "branch.wave", true);
  char *json = profile_of(wave_module_find_kernel(m, "branch"), 1);
  static const struct {
    const char *from, *to, *message;
  } cases[] = {
      {"\"kernels\":[", "\"kernels\":[7,", "profile: a kernel must be an object"},
      {"\"lines\":[", "\"lines\":[7,", "profile: a line must be an object"},
      {"\"branches\":[", "\"branches\":[7,", "profile: a branch must be an object"},
      {"\"wave_width\":32", "\"wave_width\":4", "profile: \"wave_width\" must be 8..64"},
      {"\"wave_width\":32", "\"wave_width\":\"32\"",
       "profile: \"wave_width\" must be a number, not a string"},
      {"\"line\":", "\"line\":4294967296, \"x\":", "profile: \"line\" is out of range"},
  };
  for (size_t i = 0; i <= sizeof cases / sizeof cases[0]; i++) {
    char *text = i < sizeof cases / sizeof cases[0]
                     ? replaced(json, cases[i].from, cases[i].to)
                     : strdup("[1]");
    const char *message = i < sizeof cases / sizeof cases[0]
                              ? cases[i].message
                              : "profile: expected an object, found an array";
    wave_diags diags;
    wave_diags_init(&diags);
    wave_profile *p = wave_profile_parse(text, strlen(text), "shape.prof", &diags);
    cr_assert_null(p, "case %zu read", i);
    cr_assert_eq(diags.num_errors, 1, "case %zu", i);
    cr_assert(strstr(diags.items[0].message, message), "case %zu: %s", i,
              diags.items[0].message);
    wave_diags_free(&diags);
    free(text);
  }
  free(json);
  wave_module_destroy(m);
}

/* The reader on every prefix and on many corrupted copies of a real profile: each either reads
 * or is refused with an error; nothing crashes, leaks or reads past the text (the sanitizer
 * builds check the last two). */
Test(profile, truncated_and_corrupted_profiles) {
  wave_module *m = tu_parse_ok(branch_kernel, "branch.wave", true);
  const wave_kernel *kernel = wave_module_find_kernel(m, "branch");
  char *json = profile_of(kernel, 1);
  size_t len = strlen(json);
  for (size_t n = 0; n < len; n++) {
    char *prefix = malloc(n ? n : 1);
    memcpy(prefix, json, n);
    wave_diags diags;
    wave_diags_init(&diags);
    wave_profile *p = wave_profile_parse(prefix, n, "cut.prof", &diags);
    /* only whitespace may be cut off the end */
    cr_assert(p ? strspn(json + n, " \n") == len - n : diags.num_errors == 1, "prefix %zu", n);
    wave_profile_destroy(p);
    wave_diags_free(&diags);
    free(prefix);
  }
  static const char noise[] = "{}[]\",:0123456789-+.eE\\u tfn\n\x01\x80";
  uint32_t seed = 12345;
  char *copy = malloc(len);
  for (int round = 0; round < 20000; round++) {
    memcpy(copy, json, len);
    for (int k = 0; k < 1 + round % 3; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % len;
      seed = seed * 1103515245u + 12345u;
      copy[at] = noise[(seed >> 8) % (sizeof noise - 1)];
    }
    wave_diags diags;
    wave_diags_init(&diags);
    wave_profile *p = wave_profile_parse(copy, len, "noise.prof", &diags);
    cr_assert(p || diags.num_errors == 1, "round %d: refused without an error", round);
    if (p)
      wave_profile_match(p, kernel, &diags);
    wave_profile_destroy(p);
    wave_diags_free(&diags);
  }
  free(copy);
  free(json);
  wave_module_destroy(m);
}

/* ---- the corpus: per-line and per-branch counts add up to the totals ---------------------- */

static void free_params(struct criterion_test_params *params) { cr_free(params->params); }

ParameterizedTestParameters(profile, corpus_counts_add_up) {
  tu_corpus_file *files = cr_malloc(TU_MAX_CORPUS_FILES * sizeof(*files));
  cr_assert_not_null(files);
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  return cr_make_param_array(tu_corpus_file, files, n, free_params);
}

ParameterizedTest(tu_corpus_file *file, profile, corpus_counts_add_up) {
  char *path = tu_corpus_path(file->name);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_file(path, &diags);
  cr_assert_not_null(m);
  if (!wave_lower_docs_dialect(m, &diags) || wave_diags_has_errors(&diags)) {
    wave_module_destroy(m);
    wave_diags_free(&diags);
    free(path);
    return;
  }
  for (const wave_kernel *kernel = wave_module_first_kernel(m); kernel;
       kernel = wave_kernel_next(kernel)) {
    wave_launch_config cfg;
    wave_launch_config_init(&cfg);
    cfg.max_steps = 1000000;
    cfg.no_deadlock_check = true;
    wave_machine *machine = wave_simulate(kernel, &cfg, NULL);
    cr_assert_not_null(machine);
    const wave_counters *c = wave_machine_counters(machine);
    char *json = wave_profile_write(machine, file->name);
    cr_assert_not_null(json);
    wave_profile *p = read_ok(json);
    const wave_profile_kernel *k = wave_profile_match(p, kernel, &diags);
    tu_log_diags(&diags);
    if (wave_machine_status(machine) == WAVE_RUN_ERROR &&
        wave_machine_error(machine)->kind == WAVE_ERR_INVALID_PROGRAM) {
      cr_assert_null(k, "%s: a kernel the interpreter cannot build cannot be matched", file->name);
    } else {
      cr_assert_not_null(k, "%s: kernel %s", file->name, wave_kernel_name(kernel));
      cr_assert(memcmp(wave_profile_totals(k), c, sizeof *c) == 0, "%s: totals", file->name);
      uint64_t issued = 0, lanes = 0, splits = 0, exits = 0, branch_splits = 0, branch_exits = 0;
      for (size_t i = 0; i < wave_profile_num_lines(k); i++) {
        const wave_profile_line *l = wave_profile_line_at(k, i);
        issued += l->issued;
        lanes += l->lanes;
        splits += l->splits;
        exits += l->divergent_exits;
        cr_assert_leq(l->lanes, l->issued * 32);
      }
      for (size_t i = 0; i < wave_profile_num_branches(k); i++) {
        const wave_profile_branch *b = wave_profile_branch_at(k, i);
        branch_splits += b->splits;
        branch_exits += b->divergent_exits;
        cr_assert_eq(b, wave_profile_find_branch(k, b->line, b->kind));
      }
      cr_assert_eq(issued, c->issued, "%s: issues", file->name);
      cr_assert_eq(lanes, c->lane_instructions, "%s: lanes", file->name);
      cr_assert_eq(splits, c->divergent_ifs, "%s: splits", file->name);
      cr_assert_eq(branch_splits, c->divergent_ifs, "%s: branch splits", file->name);
      cr_assert_eq(exits, c->divergent_loops, "%s: divergent exits", file->name);
      cr_assert_eq(branch_exits, c->divergent_loops, "%s: branch exits", file->name);
    }
    wave_profile_destroy(p);
    free(json);
    wave_machine_destroy(machine);
  }
  wave_module_destroy(m);
  wave_diags_free(&diags);
  free(path);
}
