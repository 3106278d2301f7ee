/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A compiler back end in miniature, built against the installed library alone (pkg-config
 * --cflags --libs waveopt): what a compiler that emits WAVE does with libwaveopt.
 *
 *   1. It builds a kernel in memory through the builder, never writing text: out[t] = 5 * t
 *      for odd lanes and t + 5 for even ones, behind a divergent if.
 *   2. It registers a pass and an analysis of its own: `device-stores` lists the kernel's
 *      device stores, and `stream-stores` asks for that list and marks each store streaming
 *      (the result is written once and read by the host, so caching it is wasted).
 *   3. It runs `-O2` followed by its pass, as one pipeline string over one registry, with every
 *      claim checked (verify-each), and reads the remarks and diagnostics as data.
 *   4. It prints the result and runs it in the reference interpreter at two wave widths, and
 *      checks the memory against what the kernel is meant to compute, reckoned here in C.
 *
 * It exits 0 when every step did what it should, 1 otherwise, saying which on stderr.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <waveopt/edit.h>
#include <waveopt/interp.h>
#include <waveopt/pass.h>
#include <waveopt/waveopt.h>

#define THREADS 32

/* ---- the analysis: the kernel's device stores ---------------------------------------------- */

typedef struct store_list {
  size_t count;
  wave_instr *stores[]; /* in text order */
} store_list;

static bool is_device_store(const wave_instr *instr) {
  return wave_instr_op(instr) == WAVE_OP_DEVICE_STORE_U32;
}

static void *device_stores_compute(wave_kernel *kernel, wave_analysis_manager *am,
                                   wave_diags *diags) {
  (void)am;
  size_t count = 0;
  wave_foreach_block(block, kernel) {
    wave_foreach_instr(instr, block) count += is_device_store(instr);
  }
  store_list *list = malloc(sizeof(*list) + count * sizeof(list->stores[0]));
  if (!list) {
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, wave_kernel_loc(kernel), NULL, 0,
                     "out of memory listing the device stores of '%s'", wave_kernel_name(kernel));
    return NULL;
  }
  list->count = 0;
  wave_foreach_block(block, kernel) {
    wave_foreach_instr(instr, block) {
      if (is_device_store(instr))
        list->stores[list->count++] = instr;
    }
  }
  return list;
}

static void device_stores_destroy(void *result) { free(result); }

static bool device_stores_equal(const void *a, const void *b) {
  const store_list *x = a, *y = b;
  return x->count == y->count && memcmp(x->stores, y->stores, x->count * sizeof(x->stores[0])) == 0;
}

static const wave_analysis_info device_stores_analysis = {
    .name = "device-stores",
    .help = "the kernel's device stores in text order",
    .compute = device_stores_compute,
    .destroy = device_stores_destroy,
    .equal = device_stores_equal,
};

/* ---- the pass: stream the stores ----------------------------------------------------------- */

/* A registry is a value, and two may number their analyses differently: the pass asks the
 * registry it runs under for the analysis's id by name. */
static wave_pass_result stream_stores_run(wave_kernel *kernel, wave_analysis_manager *am,
                                          wave_pass_context *ctx) {
  wave_analysis_id id =
      wave_pass_registry_find_analysis(wave_analysis_manager_registry(am), "device-stores");
  const store_list *list = wave_analysis_get(am, kernel, id);
  if (!list)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "no list of device stores");
  bool changed = false;
  for (size_t i = 0; i < list->count; i++) {
    wave_instr *store = list->stores[i];
    if (wave_instr_cache_hint(store) == WAVE_HINT_STREAMING)
      continue;
    wave_instr_set_cache_hint(store, WAVE_HINT_STREAMING);
    changed = true;
    wave_remark_passed(ctx, "store-streamed", wave_instr_loc(store),
                       "device store marked .streaming");
    wave_pass_stat_add(ctx, "stores-streamed", "device stores marked streaming", 1);
  }
  if (list->count == 0)
    wave_remark_missed(ctx, "no-stores", wave_kernel_loc(kernel), "no device store to mark");
  /* A cache hint changes no register, no control flow and no store's place: every analysis,
   * built-in or ours, holds. verify-each recomputes them to check it. */
  return wave_pass_done(changed, WAVE_PRESERVE_ALL);
}

static const wave_pass_info stream_stores_pass = {
    .name = "stream-stores",
    .help = "marks device stores streaming (.streaming)",
    .run = stream_stores_run,
};

/* ---- the kernel, built in memory ----------------------------------------------------------- */

static uint32_t sreg_named(const char *name) {
  for (uint32_t s = 0; s < WAVE_NUM_SREGS; s++)
    if (strcmp(wave_sreg_names[s], name) == 0)
      return s;
  return 0;
}

/* out[t] = t odd ? 5 * t : t + 5, at byte 4 * t. r9 = t * 1 is computed and never used: -O2
 * should remove it, and the divergent if becomes selects. */
static wave_module *build_kernel(void) {
  wave_module *module = wave_module_create("embedded.wave");
  wave_kernel *kernel = module ? wave_kernel_create(module, "scale") : NULL;
  if (!kernel) {
    wave_module_destroy(module);
    return NULL;
  }
  wave_kernel_set_registers(kernel, 10);
  wave_kernel_set_workgroup_size(kernel, THREADS, 1, 1);
  wave_loc here = {"embedded.wave", 0, 0};
  wave_builder b = wave_builder_at(
      module, wave_cursor_list_end(wave_region_body(wave_kernel_first_region(kernel))), here);
  bool ok = wave_build(&b, WAVE_OP_MOV_SR, wave_gpr(1), wave_sreg(sreg_named("sr_thread_id_x"))) &&
            wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(2), wave_imm(1)) &&
            wave_build(&b, WAVE_OP_AND, wave_gpr(3), wave_gpr(1), wave_gpr(2)) &&
            wave_build(&b, WAVE_OP_ICMP_EQ, wave_pred(1), wave_gpr(3), wave_gpr(2)) &&
            wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(4), wave_imm(5)) &&
            wave_build(&b, WAVE_OP_IMUL, wave_gpr(9), wave_gpr(1), wave_gpr(2));
  wave_node *branch = ok ? wave_build_if(&b, wave_pred(1)) : NULL;
  ok = branch && wave_build(&b, WAVE_OP_IMUL, wave_gpr(5), wave_gpr(1), wave_gpr(4));
  if (ok) {
    b.cursor = wave_cursor_list_end(wave_if_else(branch));
    wave_if_set_has_else(branch, true);
    ok = wave_build(&b, WAVE_OP_IADD, wave_gpr(5), wave_gpr(1), wave_gpr(4)) != NULL;
  }
  if (ok) {
    b.cursor = wave_cursor_after_node(branch);
    ok = wave_build(&b, WAVE_OP_MOV_IMM, wave_gpr(6), wave_imm(2)) &&
         wave_build(&b, WAVE_OP_SHL, wave_gpr(7), wave_gpr(1), wave_gpr(6)) &&
         wave_build(&b, WAVE_OP_DEVICE_STORE_U32, wave_gpr(7), wave_gpr(5)) &&
         wave_build_instr(&b, WAVE_OP_HALT, 0, NULL);
  }
  if (!ok) {
    wave_module_destroy(module);
    return NULL;
  }
  return module;
}

/* ---- checking ------------------------------------------------------------------------------ */

static int failures;

static void check(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "embed: FAILED: %s\n", what);
    failures++;
  }
}

static void print_diags(const wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    char *text = wave_diag_format_text(&diags->items[i], false);
    if (text)
      fprintf(stderr, "%s", text);
    free(text);
  }
}

/* Runs the kernel at the wave width and compares out[0..THREADS) with the C reckoning. */
static void check_memory(const wave_kernel *kernel, uint32_t wave_width, const char *what) {
  wave_launch_config config;
  wave_launch_config_init(&config);
  config.wave_width = wave_width;
  wave_diags diags;
  wave_diags_init(&diags);
  wave_machine *machine = wave_simulate(kernel, &config, &diags);
  bool ran = machine && wave_machine_status(machine) == WAVE_RUN_OK;
  check(ran, what);
  if (ran) {
    size_t size;
    const uint8_t *memory = wave_machine_device_memory(machine, &size);
    for (uint32_t t = 0; t < THREADS; t++) {
      uint32_t expected = t % 2 ? 5 * t : t + 5, got;
      memcpy(&got, memory + 4 * t, sizeof(got));
      if (got != expected) {
        fprintf(stderr, "embed: %s: out[%u] = %u, expected %u\n", what, t, got, expected);
        check(false, what);
        break;
      }
    }
  }
  print_diags(&diags);
  wave_diags_free(&diags);
  wave_machine_destroy(machine);
}

static size_t count_remarks(const wave_pipeline_result *result, wave_remark_kind kind,
                            const char *pass, const char *name) {
  size_t n = 0;
  for (size_t i = 0; i < result->num_remarks; i++) {
    const wave_remark *r = &result->remarks[i];
    n += r->kind == kind && strcmp(r->pass, pass) == 0 && strcmp(r->name, name) == 0;
  }
  return n;
}

static bool keep_every_remark(void *ctx, wave_remark_kind kind, const char *pass) {
  (void)ctx, (void)kind, (void)pass;
  return true;
}

int main(void) {
  printf("libwaveopt %s\n", wave_version());
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pass_registry *registry = wave_pass_registry_create();
  wave_module *module = build_kernel();
  if (!registry || !module) {
    fprintf(stderr, "embed: out of memory\n");
    return 1;
  }
  check(wave_pass_registry_add_analysis(registry, &device_stores_analysis, &diags) >= 0,
        "the analysis registers");
  check(wave_pass_registry_add_pass(registry, &stream_stores_pass, &diags), "the pass registers");
  check(wave_verify_module(module, &diags), "the built kernel verifies");

  wave_kernel *kernel = wave_module_first_kernel(module);
  check_memory(kernel, 32, "the built kernel computes out[t]");

  /* -O2 and the pass of our own, in one pipeline string over the one registry. */
  char text[512];
  snprintf(text, sizeof(text), "%s,stream-stores", wave_pipeline_for_level(2));
  wave_pipeline *pipeline = wave_pipeline_parse(registry, text, &diags);
  check(pipeline != NULL, "the pipeline parses");
  wave_pipeline_options options = {0};
  options.verify_each = true;
  options.remark_filter = keep_every_remark;
  wave_pipeline_result result = {0};
  bool ran = pipeline && wave_pipeline_run(pipeline, module, &options, &result, &diags);
  check(ran && result.changed, "the pipeline runs and changes the kernel");
  check(!wave_diags_has_errors(&diags), "no error is reported");
  print_diags(&diags);

  /* Remarks and statistics as data. */
  check(count_remarks(&result, WAVE_REMARK_PASSED, "stream-stores", "store-streamed") == 1,
        "one store-streamed remark from our pass");
  size_t converted = 0;
  for (size_t i = 0; i < result.num_remarks; i++)
    converted += result.remarks[i].kind == WAVE_REMARK_PASSED &&
                 strcmp(result.remarks[i].pass, "if-to-select") == 0;
  check(converted == 1, "if-to-select converts the one if");
  bool counted = false;
  for (size_t i = 0; i < result.num_stats; i++)
    counted |= strcmp(result.stats[i].name, "stores-streamed") == 0 && result.stats[i].value == 1;
  check(counted, "our statistic is counted");

  /* The result: no if, no dead multiply, one streaming store; the same memory at two widths. */
  char *printed = wave_print_to_string(module, NULL, NULL);
  check(printed != NULL, "the result prints");
  if (printed) {
    fputs(printed, stdout);
    check(!strstr(printed, "if p1"), "the if is gone");
    check(!strstr(printed, "r9"), "the dead multiply is gone");
    check(strstr(printed, "device_store_u32.streaming") != NULL, "the store is streaming");
  }
  free(printed);
  kernel = wave_module_first_kernel(module);
  check_memory(kernel, 32, "the optimized kernel computes out[t] (wave width 32)");
  check_memory(kernel, 8, "the optimized kernel computes out[t] (wave width 8)");

  wave_pipeline_result_free(&result);
  wave_pipeline_destroy(pipeline);
  wave_module_destroy(module);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
  if (failures)
    return 1;
  printf("embed: every check passed\n");
  return 0;
}
