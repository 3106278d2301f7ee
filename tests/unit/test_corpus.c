/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hand-written kernel corpus (the .wave files in tests/corpus). Every file must parse and
 * verify, print to a fixed point that denotes the same instructions (documentation-dialect files
 * after lowering, with no documentation form left in the printed text), and together the files
 * must cover every opcode and every control-flow shape. Every kernel is then run in the reference
 * interpreter with the launch its header comment documents, and device memory is compared with
 * the results worked out by hand in that header (typed again below as tables or closed forms).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/interp.h"
#include "waveopt/waveopt.h"

/* ---- the corpus files ---------------------------------------------------------------------- */

static bool is_docs_file(const char *name) { return strncmp(name, "docs_", 5) == 0; }

/* ---- diagnostics as text for failure messages --------------------------------------------- */

/* Every recorded diagnostic, formatted and joined; malloc'd, never NULL. */
static char *diags_text(const wave_diags *diags) {
  size_t len = 0;
  char *all = calloc(1, 1);
  cr_assert_not_null(all);
  for (size_t i = 0; i < diags->count; i++) {
    char *one = wave_diag_format_text(&diags->items[i], false);
    cr_assert_not_null(one);
    size_t n = strlen(one);
    char *grown = realloc(all, len + n + 2);
    cr_assert_not_null(grown);
    all = grown;
    memcpy(all + len, one, n);
    all[len + n] = '\n';
    all[len + n + 1] = '\0';
    len += n + 1;
    free(one);
  }
  return all;
}

/* ---- loading: parse, verify, lower ---------------------------------------------------------- */

static void assert_verifies(const wave_module *module, const char *what) {
  wave_diags diags;
  wave_diags_init(&diags);
  bool ok = wave_verify_module(module, &diags);
  char *text = diags_text(&diags);
  cr_assert(ok && !wave_diags_has_errors(&diags), "%s: the verifier reports errors:\n%s", what,
            text);
  free(text);
  wave_diags_free(&diags);
}

/* The file parsed and verified; a documentation-dialect file is also lowered (and verified
 * again) when `lower` is set. Fails the test on any error. */
static wave_module *load_corpus_file(const char *name, bool lower) {
  char *path = tu_corpus_path(name);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_file(path, &diags);
  char *text = diags_text(&diags);
  cr_assert_not_null(m, "%s does not parse:\n%s", name, text);
  cr_assert(!wave_diags_has_errors(&diags), "%s: parse errors:\n%s", name, text);
  free(text);
  wave_diags_free(&diags);
  free(path);
  assert_verifies(m, name);
  if (lower && is_docs_file(name)) {
    wave_diags_init(&diags);
    bool ok = wave_lower_docs_dialect(m, &diags);
    text = diags_text(&diags);
    cr_assert(ok && !wave_diags_has_errors(&diags), "%s: lowering fails:\n%s", name, text);
    free(text);
    wave_diags_free(&diags);
    assert_verifies(m, name);
  }
  return m;
}

static char *print_asm(const wave_module *m, const char *what) {
  wave_print_options opts = {WAVE_DIALECT_ASM, false, 0};
  size_t len = 0;
  char *text = wave_print_to_string(m, &opts, &len);
  cr_assert_not_null(text, "%s: printing in the assembly dialect fails", what);
  cr_assert_eq(len, strlen(text), "%s: printed length %zu is not the text's", what, len);
  return text;
}

static wave_module *parse_text(const char *text, const char *what) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_string(text, strlen(text), what, &diags);
  char *msgs = diags_text(&diags);
  cr_assert_not_null(m, "%s does not parse:\n%s\n--- text ---\n%s", what, msgs, text);
  cr_assert(!wave_diags_has_errors(&diags), "%s: parse errors:\n%s", what, msgs);
  free(msgs);
  wave_diags_free(&diags);
  return m;
}

/* ---- the region tree as a stream of items --------------------------------------------------- */

/* A region read in text order: instructions and the structured statements around them. With
 * `blocks` set, every block also shows up as an item, so that block boundaries are compared too
 * (two parses of one text must agree on them; a lowered module may hold adjacent blocks that
 * print as one). */
typedef enum item_kind {
  ITEM_END, ITEM_BLOCK, ITEM_INSTR, ITEM_IF, ITEM_ELSE, ITEM_ENDIF, ITEM_LOOP, ITEM_ENDLOOP,
} item_kind;

typedef struct item {
  item_kind kind;
  const wave_node *node;
  const wave_instr *instr;
  unsigned depth;
} item;

typedef struct item_stream {
  wave_const_walker walker;
  const wave_instr *pending;
  bool blocks;
} item_stream;

static void stream_init(item_stream *s, const wave_region *region, bool blocks) {
  wave_const_walk_init(&s->walker, wave_region_body(region));
  s->pending = NULL;
  s->blocks = blocks;
}

static item stream_next(item_stream *s) {
  for (;;) {
    if (s->pending) {
      item it = {ITEM_INSTR, s->walker.node, s->pending, s->walker.depth};
      s->pending = wave_instr_next(s->pending);
      return it;
    }
    if (!wave_const_walk_next(&s->walker))
      return (item){ITEM_END, NULL, NULL, 0};
    const wave_node *n = s->walker.node;
    unsigned depth = s->walker.depth;
    switch (s->walker.event) {
    case WAVE_WALK_BLOCK:
      s->pending = wave_block_first(n);
      if (s->blocks)
        return (item){ITEM_BLOCK, n, NULL, depth};
      break;
    case WAVE_WALK_IF:
      return (item){ITEM_IF, n, NULL, depth};
    case WAVE_WALK_ELSE:
      return (item){ITEM_ELSE, n, NULL, depth};
    case WAVE_WALK_ENDIF:
      return (item){ITEM_ENDIF, n, NULL, depth};
    case WAVE_WALK_LOOP:
      return (item){ITEM_LOOP, n, NULL, depth};
    case WAVE_WALK_ENDLOOP:
      return (item){ITEM_ENDLOOP, n, NULL, depth};
    }
  }
}

/* ---- structural comparison ------------------------------------------------------------------ */

typedef struct mismatch {
  char text[512];
} mismatch;

static bool differ(mismatch *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool differ(mismatch *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->text, sizeof(m->text), fmt, ap);
  va_end(ap);
  return false;
}

static const char *op_name(unsigned op) {
  return op < WAVE_OP_COUNT ? wave_opcode_table[op].mnemonic : "?";
}

static bool same_operand(const wave_operand *a, const wave_operand *b) {
  if (a->kind != b->kind || a->half != b->half || a->negated != b->negated)
    return false;
  if (a->kind == WAVE_OPERAND_LABEL)
    return a->label && b->label && strcmp(a->label, b->label) == 0;
  if (a->kind == WAVE_OPERAND_IMM && a->imm_form != b->imm_form)
    return false;
  return a->kind == WAVE_OPERAND_NONE || a->value == b->value;
}

static bool same_instr(const wave_instr *a, const wave_instr *b, mismatch *m) {
  unsigned line = wave_instr_loc(a).line;
  if (wave_instr_op(a) != wave_instr_op(b))
    return differ(m, "line %u: '%s' became '%s'", line, op_name(wave_instr_op(a)),
                  op_name(wave_instr_op(b)));
  const char *mn = op_name(wave_instr_op(a));
  if (wave_instr_guard(a) != wave_instr_guard(b) ||
      wave_instr_guard_negated(a) != wave_instr_guard_negated(b))
    return differ(m, "line %u: the guard of '%s' changed (%d%s -> %d%s)", line, mn,
                  wave_instr_guard(a), wave_instr_guard_negated(a) ? " negated" : "",
                  wave_instr_guard(b), wave_instr_guard_negated(b) ? " negated" : "");
  if (wave_instr_cache_hint(a) != wave_instr_cache_hint(b))
    return differ(m, "line %u: the cache hint of '%s' changed (%u -> %u)", line, mn,
                  wave_instr_cache_hint(a), wave_instr_cache_hint(b));
  if (wave_instr_num_operands(a) != wave_instr_num_operands(b))
    return differ(m, "line %u: '%s' had %u operands, now %u", line, mn, wave_instr_num_operands(a),
                  wave_instr_num_operands(b));
  for (unsigned i = 0; i < wave_instr_num_operands(a); i++) {
    wave_operand x = wave_instr_operand(a, i), y = wave_instr_operand(b, i);
    if (!same_operand(&x, &y))
      return differ(m,
                    "line %u: operand %u of '%s' changed (kind %u value 0x%x half %u neg %u "
                    "form %u -> kind %u value 0x%x half %u neg %u form %u)",
                    line, i + 1, mn, x.kind, x.value, x.half, x.negated, x.imm_form, y.kind,
                    y.value, y.half, y.negated, y.imm_form);
  }
  return true;
}

static const char *item_name(item_kind k) {
  static const char *const names[] = {"end of region", "block", "instruction", "if", "else",
                                      "endif", "loop", "endloop"};
  return names[k];
}

static bool same_region(const wave_region *a, const wave_region *b, bool blocks, mismatch *m) {
  if ((wave_region_label(a) == NULL) != (wave_region_label(b) == NULL) ||
      (wave_region_label(a) && strcmp(wave_region_label(a), wave_region_label(b)) != 0))
    return differ(m, "region label '%s' became '%s'",
                  wave_region_label(a) ? wave_region_label(a) : "(entry)",
                  wave_region_label(b) ? wave_region_label(b) : "(entry)");
  item_stream sa, sb;
  stream_init(&sa, a, blocks);
  stream_init(&sb, b, blocks);
  for (;;) {
    item x = stream_next(&sa), y = stream_next(&sb);
    if (x.kind != y.kind || x.depth != y.depth)
      return differ(m, "region '%s': %s at depth %u (line %u) became %s at depth %u",
                    wave_region_label(a) ? wave_region_label(a) : "(entry)", item_name(x.kind),
                    x.depth, x.instr ? wave_instr_loc(x.instr).line : 0, item_name(y.kind),
                    y.depth);
    switch (x.kind) {
    case ITEM_END:
      return true;
    case ITEM_INSTR:
      if (!same_instr(x.instr, y.instr, m))
        return false;
      break;
    case ITEM_IF: {
      wave_operand cx = wave_if_cond(x.node), cy = wave_if_cond(y.node);
      if (!same_operand(&cx, &cy) || wave_if_has_else(x.node) != wave_if_has_else(y.node))
        return differ(m, "line %u: the condition or the else of an if changed",
                      wave_node_origin(x.node, WAVE_LINE_IF).loc.line);
      break;
    }
    default:
      break;
    }
  }
}

static bool same_kernel(const wave_kernel *a, const wave_kernel *b, bool blocks, mismatch *m) {
  if (strcmp(wave_kernel_name(a), wave_kernel_name(b)) != 0)
    return differ(m, "kernel '%s' became '%s'", wave_kernel_name(a), wave_kernel_name(b));
  if (wave_kernel_registers(a) != wave_kernel_registers(b) ||
      wave_kernel_local_memory(a) != wave_kernel_local_memory(b) ||
      wave_kernel_has_registers(a) != wave_kernel_has_registers(b) ||
      wave_kernel_has_local_memory(a) != wave_kernel_has_local_memory(b) ||
      wave_kernel_has_workgroup_size(a) != wave_kernel_has_workgroup_size(b))
    return differ(m, "kernel '%s': .registers/.local_memory changed", wave_kernel_name(a));
  for (int i = 0; i < 3; i++)
    if (wave_kernel_workgroup_size(a, i) != wave_kernel_workgroup_size(b, i))
      return differ(m, "kernel '%s': .workgroup_size changed", wave_kernel_name(a));
  const wave_region *ra = wave_kernel_first_region(a), *rb = wave_kernel_first_region(b);
  for (; ra && rb; ra = wave_region_next(ra), rb = wave_region_next(rb))
    if (!same_region(ra, rb, blocks, m))
      return false;
  if (ra || rb)
    return differ(m, "kernel '%s': the number of regions changed", wave_kernel_name(a));
  return true;
}

static bool same_module(const wave_module *a, const wave_module *b, bool blocks, mismatch *m) {
  if (wave_module_num_kernels(a) != wave_module_num_kernels(b))
    return differ(m, "%zu kernels became %zu", wave_module_num_kernels(a),
                  wave_module_num_kernels(b));
  for (const wave_kernel *ka = wave_module_first_kernel(a), *kb = wave_module_first_kernel(b);
       ka && kb; ka = wave_kernel_next(ka), kb = wave_kernel_next(kb))
    if (!same_kernel(ka, kb, blocks, m))
      return false;
  return true;
}

/* ---- documentation forms ------------------------------------------------------------------- */

/* Whether an instruction is written in the documentation dialect: a pseudo opcode, a negated
 * predicate operand, or an immediate outside mov_imm's immediate slot. */
static bool is_docs_form(const wave_instr *in) {
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_PSEUDO))
    return true;
  for (unsigned i = 0; i < wave_instr_num_operands(in); i++) {
    wave_operand o = wave_instr_operand(in, i);
    if (o.negated)
      return true;
    if (o.kind == WAVE_OPERAND_IMM && wave_opcode_slot_kind(wave_instr_op(in), i) != 'i')
      return true;
  }
  return false;
}

static size_t count_docs_forms(const wave_module *m) {
  size_t n = 0;
  for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k))
    for (const wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
      item_stream s;
      stream_init(&s, r, false);
      for (item it = stream_next(&s); it.kind != ITEM_END; it = stream_next(&s))
        if (it.kind == ITEM_INSTR && is_docs_form(it.instr))
          n++;
    }
  return n;
}

static bool is_scope_word(const char *s, size_t len) {
  if (len > 0 && s[0] == '.') {
    s++;
    len--;
  }
  for (int i = 0; i < 4; i++)
    if (strlen(wave_scope_names[i]) == len && strncmp(s, wave_scope_names[i], len) == 0)
      return true;
  return false;
}

static bool is_cache_hint(const char *s, size_t len) {
  static const char *const hints[] = {".cached", ".uncached", ".streaming"};
  for (size_t i = 0; i < 3; i++)
    if (strlen(hints[i]) == len && strncmp(s, hints[i], len) == 0)
      return true;
  return false;
}

/* Checks one printed line against what the real assembler accepts; returns a complaint or NULL.
 * Comments are ignored (they may quote anything). */
static const char *docs_form_in_line(const char *line, size_t len) {
  size_t end = 0;
  while (end < len && line[end] != ';' && line[end] != '#')
    end++;
  size_t p = 0;
  while (p < end && (line[p] == ' ' || line[p] == '\t'))
    p++;
  if (p == end)
    return NULL;
  for (size_t i = p; i < end; i++)
    if (line[i] == '!' && (i == 0 || line[i - 1] != '@'))
      return "'!' outside a guard";
  if (line[p] == '@') {
    while (p < end && line[p] != ' ' && line[p] != '\t')
      p++;
    while (p < end && (line[p] == ' ' || line[p] == '\t'))
      p++;
  }
  size_t word = p;
  while (p < end && line[p] != ' ' && line[p] != '\t' && line[p] != ':')
    p++;
  size_t word_len = p - word;
  if (p < end && line[p] == ':')
    return NULL; /* a label */
  if (line[word] == '.') {
    if (word_len == 15 && strncmp(line + word, ".workgroup_size", 15) == 0) {
      unsigned commas = 0;
      for (size_t i = p; i < end; i++)
        commas += line[i] == ',';
      if (commas != 2)
        return "a .workgroup_size without three numbers";
    }
    return NULL;
  }
  size_t dot = 0;
  while (dot < word_len && line[word + dot] != '.')
    dot++;
  if (dot < word_len && !is_cache_hint(line + word + dot, word_len - dot))
    return "a dotted mnemonic";
  wave_opcode op;
  if (!wave_opcode_lookup(line + word, dot, &op) || op >= WAVE_NUM_REAL_OPCODES)
    return "a mnemonic the assembler lacks";
  if (wave_opcode_table[op].category == WAVE_CAT_ATOMIC &&
      wave_opcode_has(op, WAVE_F_DEVICE_MEM)) {
    size_t last = end;
    while (last > p && (line[last - 1] == ' ' || line[last - 1] == '\t'))
      last--;
    size_t first = last;
    while (first > p && line[first - 1] != ',' && line[first - 1] != ' ')
      first--;
    if (!is_scope_word(line + first, last - first))
      return "a device atomic without a scope";
  }
  return NULL;
}

static void assert_no_docs_text(const char *text, const char *what) {
  unsigned line_no = 1;
  for (const char *line = text; *line; line_no++) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    const char *why = docs_form_in_line(line, len);
    cr_assert_null(why, "%s: printed line %u has %s: %.*s", what, line_no, why, (int)len, line);
    line = nl ? nl + 1 : line + len;
  }
}

/* ---- per-file tests ------------------------------------------------------------------------ */

/* Criterion hands parameters to test workers in its shared arena, so they are built there. */
static void free_params(struct criterion_test_params *params) { cr_free(params->params); }

static struct criterion_test_params corpus_params(void) {
  tu_corpus_file *files = cr_malloc(TU_MAX_CORPUS_FILES * sizeof(*files));
  cr_assert_not_null(files);
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  return cr_make_param_array(tu_corpus_file, files, n, free_params);
}

ParameterizedTestParameters(corpus, parses_and_verifies) { return corpus_params(); }

ParameterizedTest(tu_corpus_file *file, corpus, parses_and_verifies) {
  wave_module *m = load_corpus_file(file->name, false);
  cr_assert_geq(wave_module_num_kernels(m), 1, "%s has no kernel", file->name);
  if (is_docs_file(file->name))
    cr_assert_gt(count_docs_forms(m), 0, "%s is named docs_ but uses no documentation form",
                 file->name);
  else
    cr_assert_eq(count_docs_forms(m), 0, "%s uses documentation forms but is not named docs_",
                 file->name);
  wave_module_destroy(m);
}

ParameterizedTestParameters(corpus, prints_to_a_fixed_point) { return corpus_params(); }

/* print(parse(x)) reparses and prints to the same text; the assembly-dialect text holds
 * nothing the real assembler rejects. */
ParameterizedTest(tu_corpus_file *file, corpus, prints_to_a_fixed_point) {
  wave_module *m = load_corpus_file(file->name, true);
  char *first = print_asm(m, file->name);
  assert_no_docs_text(first, file->name);
  char what[128];
  snprintf(what, sizeof(what), "%s (printed once)", file->name);
  wave_module *again = parse_text(first, what);
  assert_verifies(again, what);
  cr_assert_eq(count_docs_forms(again), 0, "%s still holds documentation forms", what);
  char *second = print_asm(again, what);
  cr_assert_str_eq(second, first, "%s: printing is not a fixed point\n--- first ---\n%s\n"
                   "--- second ---\n%s", file->name, first, second);
  free(first);
  free(second);
  wave_module_destroy(again);
  wave_module_destroy(m);
}

ParameterizedTestParameters(corpus, printing_keeps_every_instruction) {
  return corpus_params();
}

/* The printed text denotes the module it was printed from: for a real-dialect file the parsed
 * input itself (block for block), for a documentation-dialect file its lowering. */
ParameterizedTest(tu_corpus_file *file, corpus, printing_keeps_every_instruction) {
  wave_module *m = load_corpus_file(file->name, true);
  char *text = print_asm(m, file->name);
  char what[128];
  snprintf(what, sizeof(what), "%s (printed)", file->name);
  wave_module *again = parse_text(text, what);
  mismatch why = {{0}};
  bool same = same_module(m, again, !is_docs_file(file->name), &why);
  cr_assert(same, "%s: the printed text differs from the input: %s", file->name, why.text);
  free(text);
  wave_module_destroy(again);
  wave_module_destroy(m);
}

/* ---- coverage of the whole corpus ---------------------------------------------------------- */

typedef struct coverage {
  unsigned ops[WAVE_OP_COUNT];
  unsigned categories[WAVE_CAT_PRED + 1];
  unsigned if_with_else, if_without_else, nested_loops;
  unsigned top_level_breaks, breaks_in_if, inner_loop_breaks, continues;
  unsigned halts_in_if, calls, returns, labelled_regions, multi_kernel_files;
  unsigned guards[2][WAVE_NUM_PREDS]; /* [negated][predicate] */
  unsigned trailing_comments, line_comments;
  unsigned docs_files;
} coverage;

static void count_op(coverage *c, wave_opcode op) {
  c->ops[op]++;
  c->categories[wave_opcode_table[op].category]++;
}

/* The innermost if or loop around a node; NULL at the top level of a region. */
static const wave_node *enclosing(const wave_node *node) {
  return wave_node_list_of(node) ? wave_node_list_parent(wave_node_list_of(node)) : NULL;
}

/* The innermost loop around a node, looking through ifs. */
static const wave_node *enclosing_loop(const wave_node *node) {
  for (const wave_node *n = enclosing(node); n; n = enclosing(n))
    if (wave_node_kind_of(n) == WAVE_NODE_LOOP)
      return n;
  return NULL;
}

static void count_instr(coverage *c, const wave_instr *in, const wave_node *block) {
  count_op(c, wave_instr_op(in));
  if (wave_instr_guard(in) != WAVE_NO_GUARD && wave_instr_guard(in) >= 0 &&
      wave_instr_guard(in) < WAVE_NUM_PREDS)
    c->guards[wave_instr_guard_negated(in) ? 1 : 0][wave_instr_guard(in)]++;
  if (wave_instr_origin(in).comment)
    c->trailing_comments++;
  if (wave_instr_origin(in).leading)
    c->line_comments++;
  const wave_node *parent = enclosing(block);
  bool in_if = parent && wave_node_kind_of(parent) == WAVE_NODE_IF;
  switch (wave_instr_op(in)) {
  case WAVE_OP_BREAK: {
    const wave_node *loop = enclosing_loop(block);
    if (in_if)
      c->breaks_in_if++;
    else if (parent && wave_node_kind_of(parent) == WAVE_NODE_LOOP)
      c->top_level_breaks++;
    if (loop && enclosing_loop(loop))
      c->inner_loop_breaks++;
    break;
  }
  case WAVE_OP_CONTINUE:
    c->continues++;
    break;
  case WAVE_OP_HALT:
    c->halts_in_if += in_if;
    break;
  case WAVE_OP_CALL:
    c->calls++;
    break;
  case WAVE_OP_RETURN:
    c->returns++;
    break;
  default:
    break;
  }
}

static void count_module(coverage *c, const wave_module *m) {
  c->multi_kernel_files += wave_module_num_kernels(m) >= 2;
  for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k)) {
    if (wave_kernel_origin(k, WAVE_KERNEL_LINE_KERNEL).leading)
      c->line_comments++;
    for (const wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
      c->labelled_regions += wave_region_label(r) != NULL;
      item_stream s;
      stream_init(&s, r, false);
      for (item it = stream_next(&s); it.kind != ITEM_END; it = stream_next(&s)) {
        switch (it.kind) {
        case ITEM_INSTR:
          count_instr(c, it.instr, it.node);
          break;
        case ITEM_IF:
          count_op(c, WAVE_OP_IF);
          count_op(c, WAVE_OP_ENDIF);
          if (wave_if_has_else(it.node)) {
            count_op(c, WAVE_OP_ELSE);
            c->if_with_else++;
          } else {
            c->if_without_else++;
          }
          break;
        case ITEM_LOOP:
          count_op(c, WAVE_OP_LOOP);
          count_op(c, WAVE_OP_ENDLOOP);
          c->nested_loops += enclosing_loop(it.node) != NULL;
          break;
        default:
          break;
        }
      }
    }
  }
}

Test(corpus, covers_every_opcode_and_control_flow_shape) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  cr_assert_geq(n, 15, "the corpus has %zu files, at least 15 are required", n);
  coverage *c = calloc(1, sizeof(*c));
  cr_assert_not_null(c);
  for (size_t i = 0; i < n; i++) {
    wave_module *m = load_corpus_file(files[i].name, false);
    count_module(c, m);
    c->docs_files += is_docs_file(files[i].name);
    wave_module_destroy(m);
  }
  static const char *const category_names[] = {
      "INT", "BIT", "F32", "F16", "BF16", "F64", "CMP", "SELECT", "CVT", "LOAD", "STORE",
      "ATOMIC", "WAVE", "CONTROL", "MOVE", "MMA", "PRED"};
  for (int cat = 0; cat < WAVE_CAT_PRED; cat++)
    cr_expect_gt(c->categories[cat], 0, "no instruction of category %s in the corpus",
                 category_names[cat]);
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++)
    cr_expect_gt(c->ops[op], 0, "'%s' appears nowhere in the corpus", op_name((unsigned)op));
  cr_expect_gt(c->if_with_else, 0, "no if with an else");
  cr_expect_gt(c->if_without_else, 0, "no if without an else");
  cr_expect_gt(c->top_level_breaks, 0, "no break at the top level of a loop body");
  cr_expect_gt(c->breaks_in_if, 0, "no break inside an if");
  cr_expect_gt(c->continues, 0, "no continue");
  cr_expect_gt(c->nested_loops, 0, "no nested loop");
  cr_expect_gt(c->inner_loop_breaks, 0, "no break out of an inner loop");
  cr_expect_gt(c->halts_in_if, 0, "no halt inside an if");
  cr_expect_gt(c->calls, 0, "no call");
  cr_expect_gt(c->returns, 0, "no return");
  cr_expect_gt(c->labelled_regions, 0, "no labelled region");
  cr_expect_gt(c->multi_kernel_files, 0, "no file with two or more kernels");
  for (int p = 1; p < WAVE_NUM_PREDS; p++)
    cr_expect_gt(c->guards[0][p], 0, "no @p%d guard", p);
  cr_expect_gt(c->guards[1][2], 0, "no @!p2 guard");
  cr_expect_gt(c->trailing_comments, 0, "no trailing comment");
  cr_expect_gt(c->line_comments, 0, "no full-line comment");
  cr_expect_geq(c->docs_files, 2, "fewer than two documentation-dialect files");
  free(c);
}

/* ---- execution ------------------------------------------------------------------------------ */

#define MEM_SIZE 0x10000u

static void put_u32(uint8_t *mem, uint32_t addr, uint32_t value) {
  cr_assert_leq(addr + 4, MEM_SIZE);
  for (int i = 0; i < 4; i++)
    mem[addr + i] = (uint8_t)(value >> (8 * i));
}

static uint32_t get_u32(const uint8_t *mem, uint32_t addr) {
  cr_assert_leq(addr + 4, MEM_SIZE);
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= (uint32_t)mem[addr + i] << (8 * i);
  return v;
}

static void put_words(uint8_t *mem, uint32_t addr, const uint32_t *words, size_t n) {
  for (size_t i = 0; i < n; i++)
    put_u32(mem, addr + 4 * (uint32_t)i, words[i]);
}

static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  return u;
}

/* Compares n words at addr with `want`, reporting up to eight wrong ones, then fails. */
static void expect_words(const uint8_t *mem, const char *who, const char *what, uint32_t addr,
                         const uint32_t *want, size_t n) {
  unsigned wrong = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t got = get_u32(mem, addr + 4 * (uint32_t)i);
    if (got != want[i] && wrong++ < 8)
      cr_log_error("%s: %s[%zu] (0x%x) = 0x%08x, expected 0x%08x", who, what, i,
                   addr + 4 * (unsigned)i, got, want[i]);
  }
  cr_assert_eq(wrong, 0, "%s: %u of %zu words of %s are wrong (see the log)", who, wrong, n,
               what);
}

/* Words from their little-endian bytes, for byte- and half-word expectations. */
static void expect_bytes(const uint8_t *mem, const char *who, const char *what, uint32_t addr,
                         const uint8_t *want, size_t n) {
  cr_assert_eq(n % 4, 0);
  uint32_t words[64];
  cr_assert_leq(n / 4, 64);
  for (size_t i = 0; i < n / 4; i++)
    words[i] = (uint32_t)want[4 * i] | (uint32_t)want[4 * i + 1] << 8 |
               (uint32_t)want[4 * i + 2] << 16 | (uint32_t)want[4 * i + 3] << 24;
  expect_words(mem, who, what, addr, words, n / 4);
}

typedef void (*fill_fn)(uint8_t *mem);
typedef void (*check_fn)(const uint8_t *mem, const char *who);

typedef struct run_case {
  const char *file;
  const char *kernel;
  uint32_t grid;
  unsigned num_presets;   /* presets are r0, r1, ... in order */
  uint32_t presets[6];
  fill_fn fill;           /* NULL: device memory starts zeroed */
  check_fn check;
} run_case;

/* saxpy.wave, docs_saxpy.wave */
static void fill_saxpy(uint8_t *mem) {
  for (uint32_t i = 0; i < 128; i++) {
    put_u32(mem, 0x1000 + 4 * i, f2u((float)i));
    put_u32(mem, 0x2000 + 4 * i, f2u(1.0f));
  }
}
static void check_saxpy(const uint8_t *mem, const char *who) {
  uint32_t x[128], y[128];
  for (uint32_t i = 0; i < 128; i++) {
    x[i] = f2u((float)i);
    y[i] = i < 100 ? f2u((float)(2 * i + 1)) : f2u(1.0f);
  }
  expect_words(mem, who, "y", 0x2000, y, 128);
  expect_words(mem, who, "x", 0x1000, x, 128);
}

/* loop_sum.wave, loop_continue.wave */
static void check_loop_sum(const uint8_t *mem, const char *who) {
  static const uint32_t out[32] = {0,  0,  1,  3,  3,  7,  12, 12, 19, 27, 27,
                                   37, 48, 48, 48, 48, 48, 48, 48, 48, 48, 48,
                                   48, 48, 48, 48, 48, 48, 48, 48, 48, 48};
  expect_words(mem, who, "out", 0x1000, out, 32);
}

/* wave_sums.wave */
static void fill_wave_sums(uint8_t *mem) {
  for (uint32_t i = 0; i < 128; i++) {
    put_u32(mem, 0x1000 + 4 * i, i);
    put_u32(mem, 0x3000 + 4 * i, f2u((float)i));
  }
}
static void check_wave_sums(const uint8_t *mem, const char *who) {
  static const uint32_t total[1] = {8128};
  const uint32_t sums[4] = {f2u(496.0f), f2u(1520.0f), f2u(2544.0f), f2u(3568.0f)};
  expect_words(mem, who, "total", 0x2000, total, 1);
  expect_words(mem, who, "wave sums", 0x4000, sums, 4);
}

/* compaction.wave (both kernels) */
static void fill_compaction(uint8_t *mem) {
  for (uint32_t t = 0; t < 32; t++)
    put_u32(mem, 0x1000 + 4 * t, 3 * t);
}
static void check_compaction(const uint8_t *mem, const char *who) {
  static const uint32_t out[32] = {3,  9,  15, 21, 27, 33, 39, 45, 51, 57, 63,
                                   69, 75, 81, 87, 93, 0,  0,  0,  0,  0,  0,
                                   0,  0,  0,  0,  0,  0,  0,  0,  0,  0};
  static const uint32_t count[1] = {16};
  expect_words(mem, who, "out", 0x2000, out, 32);
  expect_words(mem, who, "count", 0x3000, count, 1);
}

/* prefix_sum.wave */
static void fill_prefix_sum(uint8_t *mem) {
  for (uint32_t i = 0; i < 64; i++)
    put_u32(mem, 0x1000 + 4 * i, i + 1);
}
static void check_prefix_sum(const uint8_t *mem, const char *who) {
  uint32_t out[64];
  for (uint32_t i = 0; i < 64; i++)
    out[i] = i * (i + 1) / 2;
  expect_words(mem, who, "out", 0x2000, out, 64);
}

/* histogram.wave */
static void fill_histogram(uint8_t *mem) {
  for (uint32_t i = 0; i < 128; i++)
    mem[0x1000 + i] = (uint8_t)(i * i);
}
static void check_histogram(const uint8_t *mem, const char *who) {
  static const uint32_t hist[8] = {32, 64, 0, 0, 32, 0, 0, 0};
  expect_words(mem, who, "hist", 0x2000, hist, 8);
}

/* atomics.wave */
static const uint32_t atomic_finals[8] = {528, 472, 1, 32, 0, 0xFFFFFFFF, 32, 32};

/* xor of 1..t: t, 1, t + 1, 0 for t % 4 = 0, 1, 2, 3 */
static uint32_t xor_1_to(uint32_t t) {
  switch (t % 4) {
  case 0: return t;
  case 1: return 1;
  case 2: return t + 1;
  default: return 0;
  }
}

static void check_local_atomics(const uint8_t *mem, const char *who) {
  uint32_t add_old[32], max_old[32], and_old[32], xchg_old[32];
  for (uint32_t t = 0; t < 32; t++) {
    add_old[t] = t * (t + 1) / 2;
    max_old[t] = t;
    and_old[t] = 0xFFFFFFFFu << t;
    xchg_old[t] = t;
  }
  expect_words(mem, who, "final words", 0x1000, atomic_finals, 8);
  expect_words(mem, who, "add_old", 0x2000, add_old, 32);
  expect_words(mem, who, "max_old", 0x2080, max_old, 32);
  expect_words(mem, who, "and_old", 0x2100, and_old, 32);
  expect_words(mem, who, "exchange_old", 0x2180, xchg_old, 32);
}

static void fill_device_atomics(uint8_t *mem) {
  static const uint32_t init[8] = {0, 1000, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0, 0};
  put_words(mem, 0x1000, init, 8);
}
static void check_device_atomics(const uint8_t *mem, const char *who) {
  uint32_t sub_old[32], min_old[32], or_old[32], xor_old[32];
  for (uint32_t t = 0; t < 32; t++) {
    sub_old[t] = 1000 - t * (t + 1) / 2;
    min_old[t] = t == 0 ? 0xFFFFFFFF : 33 - t;
    or_old[t] = (uint32_t)((1ull << t) - 1);
    xor_old[t] = xor_1_to(t);
  }
  expect_words(mem, who, "counters", 0x1000, atomic_finals, 8);
  expect_words(mem, who, "sub_old", 0x2000, sub_old, 32);
  expect_words(mem, who, "min_old", 0x2080, min_old, 32);
  expect_words(mem, who, "or_old", 0x2100, or_old, 32);
  expect_words(mem, who, "xor_old", 0x2180, xor_old, 32);
}

/* cas_claim.wave */
static void check_cas_claim(const uint8_t *mem, const char *who) {
  static const uint32_t slots[4] = {1, 2, 3, 4};
  uint32_t old[32];
  for (uint32_t t = 0; t < 32; t++)
    old[t] = t < 4 ? 0 : (t & 3) + 1;
  expect_words(mem, who, "device slots", 0x1000, slots, 4);
  expect_words(mem, who, "device CAS old values", 0x2000, old, 32);
  expect_words(mem, who, "local slots", 0x3000, slots, 4);
  expect_words(mem, who, "local CAS old values", 0x4000, old, 32);
}

/* bit_tricks.wave */
static void fill_bit_tricks(uint8_t *mem) {
  static const uint32_t x[4] = {0x00000001, 0x80000000, 0x0000F0F0, 0xFFFFFFFF};
  put_words(mem, 0x1000, x, 4);
}
static void check_bit_tricks(const uint8_t *mem, const char *who) {
  static const uint32_t out[48] = {
      1,  31, 0x80000000, 1,          0,          1, 0,    0x00000A01,
      0x00000100, 0,          0xF0F0F0F1, 1,
      1,  0,  0x00000001, 0x80000000, 0,          1, 0,    0x80000A00,
      0x00000080, 0xF8000000, 0x70F0F0F0, 1,
      8,  16, 0x0F0F0000, 0x10,       0xF0E0,     0, 0x0F, 0xFAF0,
      0x00F0F000, 0x0F0F,     0xF0F00000, 0,
      32, 0,  0xFFFFFFFF, 1,          0xFFFFFFFE, 0, 0xFF, 0xFFFFFAFF,
      0xFFFFFFFF, 0xFFFFFFFF, 0x0F0F0F0F, 0};
  expect_words(mem, who, "out", 0x2000, out, 48);
}

/* int_math.wave */
static void fill_int_table(uint8_t *mem) {
  static const uint32_t pairs[8] = {7, 2, (uint32_t)-7, 2, 100, (uint32_t)-3, (uint32_t)-1, 2};
  put_words(mem, 0x1000, pairs, 8);
}
#define N(x) ((uint32_t)(x))
static void check_int_table(const uint8_t *mem, const char *who) {
  static const uint32_t out[48] = {
      9,  5,    14,    0, 21,     3,     1,  N(-7),   7,   2,     7,   7,
      N(-5), N(-9), N(-14), 1, N(-21), N(-3), N(-1), 7, 7, N(-7), 2, N(-7),
      97, 103, N(-300), 99, N(-200), N(-33), 1, N(-100), 100, N(-3), 100, 10,
      1, N(-3), N(-2), 1, N(-3), 0, N(-1), 1, 1, N(-1), 2, N(-1)};
  expect_words(mem, who, "out", 0x2000, out, 48);
}
static void fill_gcd_lcm(uint8_t *mem) {
  static const uint32_t pairs[16] = {12, 18, 17, 5, 100, 75, 0, 9, 48, 180, 7, 7, 81, 27, 1, 1};
  put_words(mem, 0x1000, pairs, 16);
}
static void check_gcd_lcm(const uint8_t *mem, const char *who) {
  static const uint32_t gcd[8] = {6, 1, 25, 9, 12, 7, 27, 1};
  static const uint32_t lcm[8] = {36, 85, 300, 0, 720, 7, 81, 1};
  expect_words(mem, who, "gcd", 0x2000, gcd, 8);
  expect_words(mem, who, "lcm", 0x3000, lcm, 8);
}

/* collatz.wave */
static void check_collatz(const uint8_t *mem, const char *who) {
  static const uint32_t steps[32] = {0,  1,  7,  2,  5,  8,  16, 3,  19, 6,  14,
                                     9,  9,  17, 17, 4,  12, 20, 20, 7,  7,  15,
                                     15, 10, 23, 10, 111, 18, 18, 18, 106, 5};
  expect_words(mem, who, "steps", 0x1000, steps, 32);
}

/* classify.wave */
static void check_classify(const uint8_t *mem, const char *who) {
  static const uint32_t out[32] = {
      11001, 10101, 1,     101,   11001, 10101, 1,  101, 11002, 10002, 2,  2,  11002,
      10002, 2,     2,     11019, 10020, 21,    22, 11023, 10024, 25,   26, 11028, 10029,
      30,    31,    11032, 10033, 34,    35};
  expect_words(mem, who, "out", 0x1000, out, 32);
}

/* primes.wave */
static void check_primes(const uint8_t *mem, const char *who) {
  static const uint32_t out[32] = {0, 0, 1, 2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 6, 6,  6,
                                   6, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 10, 10, 11};
  expect_words(mem, who, "out", 0x1000, out, 32);
}

/* linear_search.wave */
static void fill_linear_search(uint8_t *mem) {
  static const uint32_t table[16] = {5, 3, 9, 3, 12, 7, 0, 5, 1, 14, 2, 8, 14, 6, 11, 4};
  put_words(mem, 0x1000, table, 16);
}
static void check_linear_search(const uint8_t *mem, const char *who) {
  static const uint32_t out[32] = {6,  8,  10, 1,  15, 0,  13, 5,  11, 2,  16,
                                   14, 4,  16, 9,  16, 16, 16, 16, 16, 16, 16,
                                   16, 16, 16, 16, 16, 16, 16, 16, 16, 16};
  expect_words(mem, who, "out", 0x2000, out, 32);
}

/* halt_lanes.wave */
static void fill_halt_lanes(uint8_t *mem) {
  for (uint32_t t = 0; t < 32; t++)
    put_u32(mem, 0x1000 + 4 * t, 0xDEADBEEF);
}
static void check_halt_lanes(const uint8_t *mem, const char *who) {
  const uint32_t D = 0xDEADBEEF;
  const uint32_t out[32] = {D, 1,   4,   D,   16, 25, D, 49, 64, D, 100, 121, D, 169, 196, D,
                            256, 289, D, 361, D,  D,  D, D,  D,  D, D,   D,   D, D,   D,   D};
  expect_words(mem, who, "out", 0x1000, out, 32);
}

/* subroutine.wave */
static void check_subroutine(const uint8_t *mem, const char *who) {
  uint32_t out[64];
  for (uint32_t t = 0; t < 32; t++) {
    out[t] = t <= 22 ? t * t + 1 : 500;
    out[32 + t] = t <= 21 ? (t + 1) * (t + 1) + 1 : 500;
  }
  expect_words(mem, who, "out", 0x1000, out, 64);
}

/* f32_math.wave */
static void fill_f32_math(uint8_t *mem) {
  const uint32_t x[4] = {f2u(2.5f), f2u(-1.5f), f2u(4.0f), f2u(0.25f)};
  put_words(mem, 0x1000, x, 4);
}
#define F(x) f2u(x##f)
static void check_f32_math(const uint8_t *mem, const char *who) {
  const uint32_t out[92] = {
      /* 2.5 */
      F(3.5), F(1.5), F(6.25), F(1.25), F(-2.5), F(2.5), F(1.0), F(2.5), F(2.5), F(2.0),
      F(3.0), F(3.0), F(2.0), F(0.5), F(1.0), F(2.5), F(0.25), 0x3ECCCCCD, F(4.0), F(2.0),
      0, F(1.0), F(5.5),
      /* -1.5 */
      F(-0.5), F(-2.5), F(2.25), F(-0.75), F(1.5), F(1.5), F(-1.5), F(1.0), 0, F(-2.0),
      F(-1.0), F(-2.0), F(-1.0), F(-0.5), 0, F(1.5), F(0.25), 0xBF2AAAAB, F(0.25), F(-2.0),
      0, F(1.0), F(-2.5),
      /* 4.0 */
      F(5.0), F(3.0), F(16.0), F(2.0), F(-4.0), F(4.0), F(1.0), F(4.0), F(3.0), F(4.0),
      F(4.0), F(4.0), F(4.0), 0, F(1.0), F(4.0), F(0.25), F(0.25), F(16.0), F(4.0),
      0, F(1.0), F(8.5),
      /* 0.25 */
      F(1.25), F(-0.75), F(0.0625), F(0.125), F(-0.25), F(0.25), F(0.25), F(1.0), F(0.25), 0,
      F(1.0), 0, 0, F(0.25), F(0.25), F(0.25), F(0.25), F(4.0), F(1.0), 0,
      0, F(1.0), F(1.0)};
  expect_words(mem, who, "out", 0x2000, out, 92);
}

/* f16_math.wave */
static void fill_f16_math(uint8_t *mem) {
  static const uint32_t in[8] = {0x40003E00, 0xB8004000, 0x42003400, 0x3E004400,
                                 0x3C003C00, 0x16001000, 0xC0007BFF, 0x38007BFF};
  put_words(mem, 0x1000, in, 8);
}
static void check_f16_math(const uint8_t *mem, const char *who) {
  static const uint32_t out[36] = {
      0x4300, 0xB800, 0x4200, 0x4400, 0x3E004300, 0xBC004200, 0x00004400, 0x40000000, 0x4000,
      0x4440, 0xC380, 0x3C00, 0x4000, 0x44804440, 0x44803C00, 0x45804000, 0x40B00000, 0x4580,
      0x3C00, 0x3BFF, 0x1000, 0x3C00, 0x3C023C00, 0x16001000, 0x3C023C00, 0x3B000000, 0x1800,
      0x7C00, 0x0000, 0x7C00, 0x7C00, 0xBE007C00, 0xBC007C00, 0x00007C00, 0x7F800000, 0x7C00};
  expect_words(mem, who, "out", 0x2000, out, 36);
}

/* bf16_math.wave */
static void fill_bf16_math(uint8_t *mem) {
  static const uint32_t in[6] = {0x40003FC0, 0xBF004000, 0x3F803F80,
                                 0x3B803BC0, 0xBF804040, 0x40403F00};
  put_words(mem, 0x1000, in, 6);
}
static void check_bf16_math(const uint8_t *mem, const char *who) {
  static const uint32_t out[27] = {
      0x4060, 0xBF00, 0x4040, 0x4080, 0x3FC04060, 0xBF804040, 0x00004080, 0x40000000, 0x4000,
      0x3F80, 0x3F7E, 0x3BC0, 0x3F80, 0x3F803F80, 0x3B803BC0, 0x3F803F80, 0x3C200000, 0x3C20,
      0x4060, 0x4020, 0x3FC0, 0x4020, 0x40004060, 0xC0403FC0, 0xC0004020, 0xBFC00000, 0xBFC0};
  expect_words(mem, who, "out", 0x2000, out, 27);
}

/* f64_math.wave: f64 values as (low word, high word) */
static void fill_f64_math(uint8_t *mem) {
  static const uint32_t lane0[5] = {0, 0x40200000, 0, 0x40000000, 0x3DCCCCCD};
  static const uint32_t lane1[5] = {0, 0x40020000, 0, 0xC0100000, 0xC0400000};
  put_words(mem, 0x1000, lane0, 5);
  put_words(mem, 0x1020, lane1, 5);
}
static void check_f64_math(const uint8_t *mem, const char *who) {
  static const uint32_t out[32] = {
      0, 0x40240000, 0, 0x40180000, 0, 0x40300000, 0, 0x40100000,
      0, 0x40380000, 0, 0x40200000, 0x41200000, 0, 0xA0000000, 0x3FB99999,
      0, 0xBFFC0000, 0, 0x40190000, 0, 0xC0220000, 0, 0xBFE20000,
      0, 0xC01B0000, 0, 0x40020000, 0xBFE00000, 0, 0, 0xC0080000};
  expect_words(mem, who, "out", 0x2000, out, 32);
}

/* memory_pack.wave */
static void fill_memory_pack(uint8_t *mem) {
  for (uint32_t t = 0; t < 16; t++)
    for (uint32_t k = 0; k < 4; k++)
      put_u32(mem, 0x1000 + 16 * t + 4 * k, t << 8 | k);
}
static void check_memory_pack(const uint8_t *mem, const char *who) {
  uint32_t a[64], b[32];
  uint8_t c[16], d[32];
  for (uint32_t t = 0; t < 16; t++) {
    for (uint32_t k = 0; k < 4; k++)
      a[4 * t + k] = t << 8 | (3 - k);
    b[2 * t] = (t ^ 1) << 8 | 2;
    b[2 * t + 1] = (t ^ 1) << 8 | 3;
    c[t] = (uint8_t)(15 - t);
    d[2 * t] = 1;
    d[2 * t + 1] = (uint8_t)(15 - t);
  }
  expect_words(mem, who, "outA", 0x2000, a, 64);
  expect_words(mem, who, "outB", 0x3000, b, 32);
  expect_bytes(mem, who, "outC", 0x4000, c, 16);
  expect_bytes(mem, who, "outD", 0x5000, d, 32);
}

/* mma_tile.wave */
static void fill_mma_tile(uint8_t *mem) {
  static const float b[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1};
  for (uint32_t i = 0; i < 16; i++) {
    put_u32(mem, 0x1000 + 4 * i, f2u((float)i));
    put_u32(mem, 0x2000 + 4 * i, f2u(b[i]));
  }
}
static void check_mma_tile(const uint8_t *mem, const char *who) {
  static const float c[16] = {3, 4, 5, 3, 11, 12, 13, 7, 19, 20, 21, 11, 27, 28, 29, 15};
  uint32_t out[16];
  for (int i = 0; i < 16; i++)
    out[i] = f2u(c[i]);
  expect_words(mem, who, "C", 0x3000, out, 16);
}

/* wave_ops.wave */
static void fill_wave_ops(uint8_t *mem) {
  for (uint32_t t = 0; t < 32; t++)
    put_u32(mem, 0x1000 + 4 * t, t * t);
}
static void check_wave_ops(const uint8_t *mem, const char *who) {
  uint32_t out[320];
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t s = (t + 5) & 31, x = t ^ 3;
    out[t] = s * s;
    out[32 + t] = t == 0 ? 0 : (t - 1) * (t - 1);
    out[64 + t] = t <= 27 ? (t + 4) * (t + 4) : 0;
    out[96 + t] = x * x;
    out[128 + t] = 81;
    out[160 + t] = 0;
    out[192 + t] = 961;
    out[224 + t] = 3;
    out[256 + t] = 0xAAAAAAAA;
    out[288 + t] = t < 16 ? 1240 : 9176;
  }
  expect_words(mem, who, "out", 0x2000, out, 320);
}

/* compare_convert.wave */
static void fill_compare_convert(uint8_t *mem) {
  const uint32_t in[8] = {f2u(-2.75f), (uint32_t)-7, f2u(3.5f), 100,
                          0x7FC00000,  16777217,     f2u(1e10f), 0xFFFFFFFF};
  put_words(mem, 0x1000, in, 8);
}
static void check_compare_convert(const uint8_t *mem, const char *who) {
  static const uint32_t out[20] = {
      0xC0E00000, 0x4F800000, 0xFFFFFFFE, 0,          0x24AE,
      0x42C80000, 0x42C80000, 3,          3,          0x5729,
      0x4B800000, 0x4B800000, 0,          0,          0x3842,
      0xBF800000, 0x4F800000, 0x7FFFFFFF, 0xFFFFFFFF, 0x24B2};
  expect_words(mem, who, "out", 0x2000, out, 20);
}

/* docs_count_above.wave */
static void fill_docs_count_above(uint8_t *mem) {
  for (uint32_t i = 0; i < 64; i++) {
    put_u32(mem, 0x1000 + 4 * i, i);
    put_u32(mem, 0x2000 + 4 * i, f2u((float)(i % 5)));
  }
}
static void check_docs_count_above(const uint8_t *mem, const char *who) {
  static const uint32_t counters[2] = {24, 9};
  uint32_t digits[64];
  for (uint32_t i = 0; i < 64; i++)
    digits[i] = i < 10 ? 1 : 2;
  expect_words(mem, who, "counters", 0x3000, counters, 2);
  expect_words(mem, who, "digits", 0x4000, digits, 64);
}

/* docs_pred_logic.wave */
static void check_docs_pred_logic(const uint8_t *mem, const char *who) {
  uint32_t out[32];
  for (uint32_t t = 0; t < 32; t++) {
    static const uint32_t by_class[4] = {14, 3, 8, 6}; /* [high * 2 + odd] */
    out[t] = by_class[(t >= 16) * 2 + (t & 1)];
  }
  expect_words(mem, who, "out", 0x1000, out, 32);
}

static const run_case run_cases[] = {
    {"atomics.wave", "local_atomics", 1, 2, {0x1000, 0x2000}, NULL, check_local_atomics},
    {"atomics.wave", "device_atomics", 1, 2, {0x1000, 0x2000}, fill_device_atomics,
     check_device_atomics},
    {"bf16_math.wave", "bf16_math", 1, 2, {0x1000, 0x2000}, fill_bf16_math, check_bf16_math},
    {"bit_tricks.wave", "bit_tricks", 1, 2, {0x1000, 0x2000}, fill_bit_tricks,
     check_bit_tricks},
    {"cas_claim.wave", "cas_claim", 1, 4, {0x1000, 0x2000, 0x3000, 0x4000}, NULL,
     check_cas_claim},
    {"classify.wave", "classify", 1, 1, {0x1000}, NULL, check_classify},
    {"collatz.wave", "collatz", 1, 1, {0x1000}, NULL, check_collatz},
    {"compaction.wave", "compact_atomic", 1, 3, {0x1000, 0x2000, 0x3000}, fill_compaction,
     check_compaction},
    {"compaction.wave", "compact_ballot", 1, 3, {0x1000, 0x2000, 0x3000}, fill_compaction,
     check_compaction},
    {"compare_convert.wave", "compare_convert", 1, 2, {0x1000, 0x2000}, fill_compare_convert,
     check_compare_convert},
    {"docs_count_above.wave", "docs_count_above", 1, 4, {0x1000, 0x2000, 0x3000, 0x4000},
     fill_docs_count_above, check_docs_count_above},
    {"docs_pred_logic.wave", "docs_pred_logic", 1, 1, {0x1000}, NULL, check_docs_pred_logic},
    {"docs_saxpy.wave", "docs_saxpy", 2, 4, {0x1000, 0x2000, 100, 0x40000000}, fill_saxpy,
     check_saxpy},
    {"f16_math.wave", "f16_math", 1, 2, {0x1000, 0x2000}, fill_f16_math, check_f16_math},
    {"f32_math.wave", "f32_math", 1, 2, {0x1000, 0x2000}, fill_f32_math, check_f32_math},
    {"f64_math.wave", "f64_math", 1, 2, {0x1000, 0x2000}, fill_f64_math, check_f64_math},
    {"halt_lanes.wave", "halt_lanes", 1, 1, {0x1000}, fill_halt_lanes, check_halt_lanes},
    {"histogram.wave", "histogram", 2, 2, {0x1000, 0x2000}, fill_histogram, check_histogram},
    {"int_math.wave", "int_table", 1, 2, {0x1000, 0x2000}, fill_int_table, check_int_table},
    {"int_math.wave", "gcd_lcm", 1, 3, {0x1000, 0x2000, 0x3000}, fill_gcd_lcm, check_gcd_lcm},
    {"linear_search.wave", "linear_search", 1, 2, {0x1000, 0x2000}, fill_linear_search,
     check_linear_search},
    {"loop_continue.wave", "loop_continue", 1, 1, {0x1000}, NULL, check_loop_sum},
    {"loop_sum.wave", "loop_sum", 1, 1, {0x1000}, NULL, check_loop_sum},
    {"memory_pack.wave", "memory_pack", 1, 5, {0x1000, 0x2000, 0x3000, 0x4000, 0x5000},
     fill_memory_pack, check_memory_pack},
    {"mma_tile.wave", "mma_tile", 1, 3, {0x1000, 0x2000, 0x3000}, fill_mma_tile,
     check_mma_tile},
    {"prefix_sum.wave", "prefix_sum", 1, 2, {0x1000, 0x2000}, fill_prefix_sum,
     check_prefix_sum},
    {"primes.wave", "primes", 1, 1, {0x1000}, NULL, check_primes},
    {"saxpy.wave", "saxpy", 2, 4, {0x1000, 0x2000, 100, 0x40000000}, fill_saxpy, check_saxpy},
    {"subroutine.wave", "subroutine", 1, 1, {0x1000}, NULL, check_subroutine},
    {"wave_ops.wave", "wave_ops", 1, 2, {0x1000, 0x2000}, fill_wave_ops, check_wave_ops},
    {"wave_sums.wave", "wave_sums", 2, 4, {0x1000, 0x2000, 0x3000, 0x4000}, fill_wave_sums,
     check_wave_sums},
};
#define NUM_RUN_CASES (sizeof(run_cases) / sizeof(run_cases[0]))

/* Whether a kernel holds a cross-lane operation (an error in the per-thread mode). */
static bool uses_wave_ops(const wave_kernel *k) {
  for (const wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
    item_stream s;
    stream_init(&s, r, false);
    for (item it = stream_next(&s); it.kind != ITEM_END; it = stream_next(&s))
      if (it.kind == ITEM_INSTR &&
          wave_opcode_table[wave_instr_op(it.instr)].category == WAVE_CAT_WAVE)
        return true;
  }
  return false;
}

/* Runs one kernel of `m` with the case's launch and checks device memory afterwards. */
static void run_and_check(const wave_module *m, const run_case *rc, wave_exec_mode mode,
                          const char *who) {
  const wave_kernel *k = wave_module_find_kernel(m, rc->kernel);
  cr_assert_not_null(k, "%s: no kernel named %s", who, rc->kernel);
  uint8_t *image = calloc(1, MEM_SIZE);
  cr_assert_not_null(image);
  if (rc->fill)
    rc->fill(image);
  wave_reg_value presets[6];
  for (unsigned i = 0; i < rc->num_presets; i++)
    presets[i] = (wave_reg_value){i, rc->presets[i]};
  wave_launch_config cfg;
  wave_launch_config_init(&cfg);
  cfg.grid[0] = rc->grid;
  cfg.presets = presets;
  cfg.num_presets = rc->num_presets;
  cfg.memory_init = image;
  cfg.memory_init_size = MEM_SIZE;
  cfg.device_memory_size = MEM_SIZE;
  cfg.mode = mode;
  wave_diags diags;
  wave_diags_init(&diags);
  wave_machine *machine = wave_simulate(k, &cfg, &diags);
  cr_assert_not_null(machine, "%s: out of memory", who);
  const wave_run_error *err = wave_machine_error(machine);
  cr_assert_eq(wave_machine_status(machine), WAVE_RUN_OK, "%s: the run fails: %s", who,
               err && err->message ? err->message : "(no message)");
  size_t size = 0;
  const uint8_t *mem = wave_machine_device_memory(machine, &size);
  cr_assert_not_null(mem);
  cr_assert_geq(size, MEM_SIZE, "%s: device memory of %zu bytes", who, size);
  rc->check(mem, who);
  wave_machine_destroy(machine);
  wave_diags_free(&diags);
  free(image);
}

/* The parameter is an index into run_cases, which every worker process has in its own image. */
typedef struct run_index {
  size_t index;
} run_index;

ParameterizedTestParameters(corpus, computes_the_documented_results) {
  run_index *indices = cr_malloc(NUM_RUN_CASES * sizeof(*indices));
  cr_assert_not_null(indices);
  for (size_t i = 0; i < NUM_RUN_CASES; i++)
    indices[i].index = i;
  return cr_make_param_array(run_index, indices, NUM_RUN_CASES, free_params);
}

/* Each kernel as parsed (lowered, for documentation-dialect files) and as reparsed from its
 * printed text must produce the results of its header comment; so must the per-thread mode,
 * for the kernels it can run (the race-free ones without wave operations: all of ours). */
ParameterizedTest(run_index *param, corpus, computes_the_documented_results) {
  const run_case *rc = &run_cases[param->index];
  char who[160];
  snprintf(who, sizeof(who), "%s:%s", rc->file, rc->kernel);
  wave_module *m = load_corpus_file(rc->file, true);
  run_and_check(m, rc, WAVE_MODE_SIMT, who);
  const wave_kernel *k = wave_module_find_kernel(m, rc->kernel);
  if (k && !uses_wave_ops(k)) {
    snprintf(who, sizeof(who), "%s:%s (per-thread mode)", rc->file, rc->kernel);
    run_and_check(m, rc, WAVE_MODE_THREAD, who);
  }
  char *text = print_asm(m, who);
  wave_module *again = parse_text(text, who);
  snprintf(who, sizeof(who), "%s:%s (printed and reparsed)", rc->file, rc->kernel);
  run_and_check(again, rc, WAVE_MODE_SIMT, who);
  free(text);
  wave_module_destroy(again);
  wave_module_destroy(m);
}

/* New corpus kernels must come with their expected results. */
Test(corpus, every_kernel_has_documented_results_checked) {
  tu_corpus_file files[TU_MAX_CORPUS_FILES];
  size_t n = tu_list_corpus(files, TU_MAX_CORPUS_FILES);
  for (size_t i = 0; i < n; i++) {
    wave_module *m = load_corpus_file(files[i].name, false);
    for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k)) {
      bool found = false;
      for (size_t c = 0; c < NUM_RUN_CASES && !found; c++)
        found = strcmp(run_cases[c].file, files[i].name) == 0 &&
                strcmp(run_cases[c].kernel, wave_kernel_name(k)) == 0;
      cr_expect(found, "%s: kernel %s has no entry in run_cases", files[i].name,
                wave_kernel_name(k));
    }
    wave_module_destroy(m);
  }
  for (size_t c = 0; c < NUM_RUN_CASES; c++) {
    bool found = false;
    for (size_t i = 0; i < n && !found; i++)
      found = strcmp(run_cases[c].file, files[i].name) == 0;
    cr_expect(found, "run_cases names %s, which is not in the corpus", run_cases[c].file);
  }
}
