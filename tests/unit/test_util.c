/* SPDX-License-Identifier: Apache-2.0 */
#include "test_util.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tu_log_diags(const wave_diags *d) {
  for (size_t i = 0; i < d->count; i++) {
    char *s = wave_diag_format_text(&d->items[i], false);
    cr_log_error("%s", s ? s : "?");
    free(s);
  }
}

void tu_run_words(const wave_kernel *k, unsigned lanes, uint32_t *words, size_t num_words) {
  wave_launch_config config;
  wave_launch_config_init(&config);
  config.workgroup[0] = lanes;
  config.wave_width = lanes;
  config.device_memory_size = 4 * num_words;
  wave_diags diags;
  wave_diags_init(&diags);
  wave_machine *m = wave_simulate(k, &config, &diags);
  cr_assert_not_null(m);
  cr_assert_eq(wave_machine_status(m), WAVE_RUN_OK, "%s",
               wave_machine_error(m) ? wave_machine_error(m)->message : "");
  size_t size;
  memcpy(words, wave_machine_device_memory(m, &size), num_words * 4);
  wave_machine_destroy(m);
  wave_diags_free(&diags);
}

void tu_run_pipeline(const wave_pass_registry *registry, wave_module *m, const char *text,
                     const wave_pipeline_options *options, wave_pipeline_result *result) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *p = wave_pipeline_parse(registry, text, &diags);
  if (!p)
    tu_log_diags(&diags);
  cr_assert_not_null(p, "'%s' does not parse", text);
  bool ok = wave_pipeline_run(p, m, options, result, &diags);
  if (!ok)
    tu_log_diags(&diags);
  cr_assert(ok, "'%s' failed", text);
  wave_pipeline_destroy(p);
  wave_diags_free(&diags);
}

bool tu_all_remarks(void *ctx, wave_remark_kind kind, const char *pass) {
  (void)ctx;
  (void)kind;
  (void)pass;
  return true;
}

unsigned tu_runs(const wave_pipeline_result *result, const char *pass) {
  for (size_t i = 0; i < result->num_timings; i++)
    if (strcmp(result->timings[i].pass, pass) == 0)
      return result->timings[i].runs;
  return 0;
}

uint64_t tu_stat(const wave_pipeline_result *result, const char *name) {
  uint64_t sum = 0;
  for (size_t i = 0; i < result->num_stats; i++)
    if (strcmp(result->stats[i].name, name) == 0)
      sum += result->stats[i].value;
  return sum;
}

wave_module *tu_parse_ok(const char *text, const char *file, bool quiet) {
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_string(text, strlen(text), file, &d);
  if (!m || d.num_errors || (quiet && d.count))
    tu_log_diags(&d);
  cr_assert_not_null(m, "the text does not parse:\n%s", text);
  cr_assert_eq(d.num_errors, 0, "errors for:\n%s", text);
  if (quiet)
    cr_assert_eq(d.count, 0, "unexpected diagnostics for:\n%s", text);
  wave_diags_free(&d);
  return m;
}

wave_builder tu_deep_builder(wave_module **m, wave_kernel **k) {
  *m = wave_module_create("deep.wave");
  cr_assert_not_null(*m);
  *k = wave_kernel_create(*m, "k");
  cr_assert_not_null(*k);
  wave_kernel_set_registers(*k, 8);
  return wave_builder_at(*m, wave_cursor_list_end(wave_region_body(wave_kernel_first_region(*k))),
                         (wave_loc){0});
}

wave_instr *tu_add(wave_module *m, wave_node *block, wave_opcode op, unsigned n,
                   const wave_operand *ops) {
  wave_instr *i = wave_instr_create(m, op, WAVE_NO_GUARD, false, n, ops);
  cr_assert_not_null(i);
  wave_block_append(block, i);
  return i;
}

void tu_repeat(char *buf, size_t size, const char *piece, unsigned count) {
  size_t used = strlen(buf), len = strlen(piece);
  cr_assert_leq(used + (size_t)count * len, size - 1, "text buffer too small");
  for (unsigned i = 0; i < count; i++, used += len)
    memcpy(buf + used, piece, len + 1);
}

wave_instr *tu_tag(wave_module *m, wave_node_list *list, uint32_t tag) {
  wave_operand ops[] = {wave_gpr(1), wave_imm(tag)};
  wave_node *block = wave_node_list_tail_block(m, list);
  cr_assert_not_null(block);
  return tu_add(m, block, WAVE_OP_MOV_IMM, 2, ops);
}

/* Appends text to buf, failing the test when it does not fit. */
static void put(char *buf, size_t size, size_t *used, const char *text) {
  size_t n = strlen(text);
  cr_assert_lt(*used + n, size, "shape buffer too small");
  memcpy(buf + *used, text, n + 1);
  *used += n;
}

void tu_shape(const wave_node_list *list, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  wave_const_walker w;
  wave_const_walk_init(&w, list);
  while (wave_const_walk_next(&w)) {
    bool opens = w.event == WAVE_WALK_BLOCK || w.event == WAVE_WALK_IF ||
                 w.event == WAVE_WALK_LOOP;
    if (opens && used && buf[used - 1] != '{')
      put(buf, size, &used, " ");
    switch (w.event) {
    case WAVE_WALK_BLOCK:
      put(buf, size, &used, "[");
      for (const wave_instr *i = wave_block_first(w.node); i; i = wave_instr_next(i)) {
        char item[32];
        if (wave_instr_op(i) == WAVE_OP_MOV_IMM)
          snprintf(item, sizeof(item), "%u", wave_instr_operand(i, 1).value);
        else
          snprintf(item, sizeof(item), "%s", wave_opcode_table[wave_instr_op(i)].mnemonic);
        put(buf, size, &used, item);
        if (wave_instr_next(i))
          put(buf, size, &used, " ");
      }
      put(buf, size, &used, "]");
      break;
    case WAVE_WALK_IF:
      put(buf, size, &used, "if{");
      break;
    case WAVE_WALK_ELSE:
      put(buf, size, &used, "}{");
      break;
    case WAVE_WALK_LOOP:
      put(buf, size, &used, "loop{");
      break;
    case WAVE_WALK_ENDIF:
    case WAVE_WALK_ENDLOOP:
      put(buf, size, &used, "}");
      break;
    }
  }
}

void tu_assert_shape(const wave_node_list *list, const char *expected) {
  char buf[1024];
  tu_shape(list, buf, sizeof(buf));
  cr_assert_str_eq(buf, expected);
}

void tu_assert_valid(const wave_kernel *kernel) {
  wave_diags d;
  wave_diags_init(&d);
  bool ok = wave_validate_kernel(kernel, "test", &d);
  if (d.count)
    tu_log_diags(&d);
  cr_assert(ok, "the kernel does not validate");
  cr_assert_eq(d.count, 0);
  wave_diags_free(&d);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(((const tu_corpus_file *)a)->name, ((const tu_corpus_file *)b)->name);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

size_t tu_list_corpus(tu_corpus_file *files, size_t max) {
  DIR *dir = opendir(TU_CORPUS_DIR);
  cr_assert_not_null(dir, "cannot open %s", TU_CORPUS_DIR);
  size_t n = 0;
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    if (!has_suffix(e->d_name, ".wave"))
      continue;
    cr_assert_lt(n, max, "more than %zu corpus files", max);
    cr_assert_lt(strlen(e->d_name), sizeof(files[n].name), "file name too long: %s", e->d_name);
    strcpy(files[n].name, e->d_name);
    n++;
  }
  closedir(dir);
  qsort(files, n, sizeof(*files), compare_names);
  return n;
}

char *tu_corpus_path(const char *name) {
  size_t n = strlen(TU_CORPUS_DIR) + strlen(name) + 2;
  char *path = malloc(n);
  cr_assert_not_null(path);
  snprintf(path, n, "%s/%s", TU_CORPUS_DIR, name);
  return path;
}

wave_module *tu_parse_corpus(const char *name) {
  char *path = tu_corpus_path(name);
  wave_diags d;
  wave_diags_init(&d);
  wave_module *m = wave_parse_file(path, &d);
  if (!m || !wave_verify_module(m, &d))
    tu_log_diags(&d);
  cr_assert(m && !wave_diags_has_errors(&d), "%s does not verify", path);
  wave_diags_free(&d);
  free(path);
  return m;
}

/* Builds: block{nop}; if p1 { block{halt} } else { loop { block{break p2} } }; block{nop} */
wave_kernel *tu_sample_kernel(wave_module *m) {
  wave_kernel *k = wave_kernel_create(m, "k");
  cr_assert_not_null(k);
  wave_node_list *body = wave_region_body(wave_kernel_first_region(k));
  wave_node *b0 = wave_node_list_tail_block(m, body);
  tu_add(m, b0, WAVE_OP_NOP, 0, NULL);
  wave_node *iff = wave_if_create(m, wave_pred(1));
  wave_node_list_append(body, iff);
  tu_add(m, wave_node_list_tail_block(m, wave_if_then(iff)), WAVE_OP_HALT, 0, NULL);
  wave_node *loop = wave_loop_create(m);
  wave_node_list_append(wave_if_else(iff), loop);
  wave_operand p2 = wave_pred(2);
  tu_add(m, wave_node_list_tail_block(m, wave_loop_body(loop)), WAVE_OP_BREAK, 1, &p2);
  tu_add(m, wave_node_list_tail_block(m, body), WAVE_OP_NOP, 0, NULL);
  return k;
}

wave_module *tu_generate(const wave_gen_options *options, wave_gen_launch *launch) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_generate(options, launch, &diags);
  if (!m)
    tu_log_diags(&diags);
  wave_diags_free(&diags);
  cr_assert_not_null(m, "seed %llu: no kernel", (unsigned long long)options->seed);
  return m;
}

wave_diff_status tu_difftest_generated(const wave_gen_options *options, wave_transform_fn transform,
                                       void *transform_ctx, wave_diff_report *report) {
  wave_gen_launch launch;
  wave_module *m = tu_generate(options, &launch);
  wave_print_options print = {0};
  print.dialect = options->docs_dialect ? WAVE_DIALECT_DOCS : WAVE_DIALECT_ASM;
  size_t len = 0;
  char *text = wave_print_to_string(m, &print, &len);
  wave_module_destroy(m);
  cr_assert_not_null(text);
  wave_difftest test;
  wave_difftest_init(&test, &launch);
  test.transform = transform;
  test.transform_ctx = transform_ctx;
  test.input_seed = options->seed;
  wave_diff_status status = wave_difftest_run(&test, text, len, report);
  free(text);
  return status;
}

static unsigned check_generated(const wave_pass_registry *registry, const char *target,
                                const char *pipeline_text, unsigned seeds, const char *pass,
                                bool docs_dialect) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pipeline *pipeline = wave_pipeline_parse(registry, pipeline_text, &diags);
  tu_log_diags(&diags);
  wave_diags_free(&diags);
  cr_assert_not_null(pipeline);
  wave_difftest_pipeline ctx = {.pipeline = pipeline, .target = wave_target_lookup(target)};
  cr_assert_not_null(ctx.target);
  unsigned failed = 0, fired = 0;
  for (unsigned seed = 0; seed < seeds; seed++) {
    wave_gen_options g;
    wave_gen_options_init(&g);
    g.seed = seed;
    g.size = 400;
    g.docs_dialect = docs_dialect;
    wave_diff_report report;
    if (tu_difftest_generated(&g, wave_transform_pipeline, &ctx, &report) != WAVE_DIFF_PASS) {
      cr_log_error("%s on %s, seed %u: %s", pipeline_text, target, seed, report.message);
      failed++;
    }
    for (unsigned i = 0; i < ctx.num_passes; i++)
      fired += strcmp(ctx.passes[i], pass) == 0 && ctx.pass_changed[i];
  }
  cr_log_info("%s on %s: %u seeds, %s fired on %u", pipeline_text, target, seeds, pass, fired);
  wave_pipeline_destroy(pipeline);
  cr_assert_eq(failed, 0);
  return fired;
}

unsigned tu_check_generated_pipeline(const wave_pass_registry *registry, const char *target,
                                     const char *pipeline_text, unsigned seeds, const char *pass) {
  return check_generated(registry, target, pipeline_text, seeds, pass, false);
}

unsigned tu_check_generated_docs_pipeline(const wave_pass_registry *registry, const char *target,
                                          const char *pipeline_text, unsigned seeds,
                                          const char *pass) {
  return check_generated(registry, target, pipeline_text, seeds, pass, true);
}

void tu_gen_launch_config(const wave_gen_launch *launch, wave_launch_config *config,
                          wave_reg_value presets[WAVE_GEN_MAX_ARGS]) {
  memcpy(config->grid, launch->grid, sizeof(config->grid));
  memcpy(config->workgroup, launch->workgroup, sizeof(config->workgroup));
  config->device_memory_size = launch->device_memory_size;
  for (unsigned i = 0; i < launch->num_args; i++)
    presets[i] = (wave_reg_value){launch->args[i].reg, launch->args[i].base};
  config->presets = presets;
  config->num_presets = launch->num_args;
}

void tu_set_origin(wave_instr *instr, wave_loc loc, const char *leading, const char *comment) {
  wave_src origin = {loc, comment, leading};
  cr_assert(wave_instr_set_origin(instr, &origin));
}

void tu_set_operand_value(wave_instr *instr, unsigned i, uint32_t value) {
  wave_operand o = wave_instr_operand(instr, i);
  o.value = value;
  cr_assert(wave_instr_set_operand(instr, i, o));
}

void tu_set_node_origin(wave_node *node, wave_node_line line, wave_loc loc, const char *leading,
                        const char *comment) {
  wave_src origin = {loc, comment, leading};
  wave_node_set_origin(node, line, &origin);
}
