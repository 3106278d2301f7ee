/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The differential harness: original and transformed kernel, same inputs, every wave width,
 * compare memory, finished lanes and errors. See difftest.h.
 */
#include "difftest.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool wave_transform_identity(wave_module *module, void *ctx, wave_diags *diags) {
  (void)module, (void)ctx, (void)diags;
  return true;
}

bool wave_transform_lower_docs(wave_module *module, void *ctx, wave_diags *diags) {
  (void)ctx;
  return wave_lower_docs_dialect(module, diags);
}

/* after_pass: notes which pass changed the kernel. A pass name is its registered info's, which
 * outlives the registry: keeping the pointer is safe. */
static void record_pass(void *ctx, const char *pass, const wave_kernel *kernel, bool changed) {
  (void)kernel;
  wave_difftest_pipeline *p = ctx;
  unsigned i = 0;
  while (i < p->num_passes && strcmp(p->passes[i], pass) != 0)
    i++;
  if (i == p->num_passes) {
    if (i == WAVE_DIFF_MAX_PASSES)
      return;
    p->passes[p->num_passes++] = pass;
    p->pass_changed[i] = false;
  }
  p->pass_changed[i] |= changed;
}

bool wave_transform_pipeline(wave_module *module, void *ctx, wave_diags *diags) {
  wave_difftest_pipeline *p = ctx;
  wave_pipeline_options options = {0};
  options.verify_each = true;
  options.target = p->target;
  options.max_registers = p->max_registers;
  options.callback_ctx = p;
  options.after_pass = record_pass;
  p->num_passes = 0;
  wave_pipeline_result result = {0};
  bool ok = wave_pipeline_run(p->pipeline, module, &options, &result, diags);
  p->changed = result.changed;
  p->exits_rewritten = p->exits_kept = 0;
  for (size_t i = 0; i < result.num_stats; i++) {
    const wave_pass_stat *st = &result.stats[i];
    if (strcmp(st->pass, "legalize") == 0 && strcmp(st->name, "exits-rewritten") == 0)
      p->exits_rewritten += st->value;
    else if (strcmp(st->pass, "legalize") == 0 && strcmp(st->name, "exits-kept") == 0)
      p->exits_kept += st->value;
  }
  wave_pipeline_result_free(&result);
  return ok;
}

void wave_difftest_init(wave_difftest *test, const wave_gen_launch *launch) {
  memset(test, 0, sizeof(*test));
  test->launch = *launch;
  test->original_mode = test->transformed_mode = WAVE_MODE_SIMT;
  static const uint32_t widths[] = {8, 32, 64};
  test->num_widths = 3;
  memcpy(test->widths, widths, sizeof(widths));
}

/* ---- reporting ----------------------------------------------------------------------------- */

static void say(wave_diff_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(wave_diff_report *r, const char *fmt, ...) {
  size_t used = strlen(r->message);
  if (used + 1 >= sizeof(r->message))
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message + used, sizeof(r->message) - used, fmt, ap);
  va_end(ap);
}

static wave_diff_status fail(wave_diff_report *r, wave_diff_status status, uint32_t width) {
  r->status = status;
  r->width = width;
  return status;
}

/* The first error in diags, formatted without colour. */
static void say_diags(wave_diff_report *r, const wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    if (diags->items[i].severity != WAVE_SEV_ERROR)
      continue;
    char *text = wave_diag_format_text(&diags->items[i], false);
    say(r, "\n%s", text ? text : diags->items[i].message);
    free(text);
    return;
  }
  if (diags->out_of_memory)
    say(r, "\n(out of memory while recording diagnostics)");
}

/* Where an address lies in the generator's memory layout, for people reading a mismatch. */
static void say_place(wave_diff_report *r, const wave_gen_launch *l, uint32_t address) {
  uint32_t threads = l->grid[0] * l->grid[1] * l->grid[2] * l->workgroup[0] * l->workgroup[1] *
                     l->workgroup[2];
  if (!l->output_slot_bytes || address < l->output_base ||
      address - l->output_base >= (uint64_t)threads * l->output_slot_bytes) {
    say(r, " (outside the output slots)");
    return;
  }
  uint32_t t = (address - l->output_base) / l->output_slot_bytes;
  uint32_t off = (address - l->output_base) % l->output_slot_bytes;
  say(r, " (thread %u's output slot + %u", t, off);
  if (off >= l->dump_offset) {
    uint32_t word = (off - l->dump_offset) / 4;
    if (word < l->num_dumped_registers)
      say(r, ": r%u at its last halt", word);
    else if (word - l->num_dumped_registers < l->num_dumped_predicates)
      say(r, ": p%u at its last halt", word - l->num_dumped_registers);
  }
  say(r, ")");
}

/* ---- running ------------------------------------------------------------------------------- */

typedef struct inputs {
  uint8_t *memory;
  size_t size;
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  size_t num_presets;
} inputs;

static uint64_t mix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static bool make_inputs(const wave_difftest *test, inputs *in) {
  uint64_t state = test->input_seed;
  in->size = test->launch.device_memory_size;
  in->memory = malloc(in->size ? in->size : 1);
  if (!in->memory)
    return false;
  for (size_t i = 0; i < in->size; i += 8) {
    uint64_t v = mix(&state);
    size_t n = in->size - i < 8 ? in->size - i : 8;
    memcpy(in->memory + i, &v, n);
  }
  in->num_presets = test->launch.num_args;
  for (size_t i = 0; i < in->num_presets; i++) {
    const wave_gen_arg *a = &test->launch.args[i];
    in->presets[i].reg = a->reg;
    in->presets[i].value = a->base + ((uint32_t)mix(&state) & a->random_mask);
  }
  return true;
}

static wave_machine *run_kernel(const wave_difftest *test, const wave_module *module,
                                const inputs *in, uint32_t width, wave_exec_mode mode) {
  const wave_kernel *kernel = wave_module_find_kernel(module, NULL);
  if (!kernel)
    return NULL;
  wave_launch_config cfg;
  wave_launch_config_init(&cfg);
  memcpy(cfg.grid, test->launch.grid, sizeof(cfg.grid));
  memcpy(cfg.workgroup, test->launch.workgroup, sizeof(cfg.workgroup));
  cfg.wave_width = width;
  cfg.mode = mode;
  cfg.max_steps = test->max_steps;
  cfg.device_memory_size = in->size;
  cfg.memory_init = in->memory;
  cfg.memory_init_size = in->size;
  cfg.presets = in->presets;
  cfg.num_presets = in->num_presets;
  return wave_simulate(kernel, &cfg, NULL);
}

static const char *run_error(const wave_machine *m) {
  const wave_run_error *e = wave_machine_error(m);
  return e && e->message ? e->message : "unknown error";
}

static bool compare_lanes(wave_machine *a, wave_machine *b, wave_diff_report *r) {
  uint32_t groups = wave_machine_num_workgroups(a);
  uint32_t threads = wave_machine_num_waves(a) * wave_machine_wave_width(a);
  for (uint32_t g = 0; g < groups; g++) {
    for (uint32_t t = 0; t < threads; t++) {
      wave_lane_state sa = wave_machine_lane_state(a, g, t);
      wave_lane_state sb = wave_machine_lane_state(b, g, t);
      if (sa != sb) {
        static const char *const names[] = {"unused", "running", "finished"};
        say(r, "lane states differ: workgroup %u thread %u is %s originally, %s after the "
               "transformation", g, t, names[sa], names[sb]);
        return false;
      }
    }
  }
  return true;
}

static bool compare_memory(wave_machine *a, wave_machine *b, const wave_gen_launch *launch,
                           wave_diff_report *r) {
  size_t na, nb;
  const uint8_t *ma = wave_machine_device_memory(a, &na);
  const uint8_t *mb = wave_machine_device_memory(b, &nb);
  size_t n = na < nb ? na : nb;
  size_t first = n, count = 0;
  for (size_t i = 0; i < n; i++) {
    if (ma[i] != mb[i]) {
      if (first == n)
        first = i;
      count++;
    }
  }
  if (first == n)
    return true;
  size_t word = first & ~(size_t)3;
  r->memory_differs = true;
  r->address = (uint32_t)first;
  r->before = ma[first];
  r->after = mb[first];
  r->differing_bytes = count;
  r->word_before = r->word_after = 0;
  for (size_t i = 0; i < 4 && word + i < n; i++) {
    r->word_before |= (uint32_t)ma[word + i] << (8 * i);
    r->word_after |= (uint32_t)mb[word + i] << (8 * i);
  }
  say(r, "memory differs at 0x%zx", first);
  say_place(r, launch, (uint32_t)first);
  say(r, ": byte 0x%02x originally, 0x%02x after the transformation (word at 0x%zx: 0x%08x vs "
         "0x%08x; %zu bytes differ)",
      r->before, r->after, word, r->word_before, r->word_after, count);
  return false;
}

/* Parses and verifies; on failure says why and returns NULL. */
static wave_module *load(const char *text, size_t len, const char *what, wave_diff_report *r) {
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_module *m = wave_parse_string(text, len, what, &diags);
  if (m && !wave_verify_module(m, &diags)) {
    wave_module_destroy(m);
    m = NULL;
  }
  if (!m) {
    say(r, "%s does not parse or verify", what);
    say_diags(r, &diags);
  }
  wave_diags_free(&diags);
  return m;
}

/* Parse, transform, verify, print in the assembler's dialect, parse and verify again. With a
 * hazard target, *hazards receives the transformed kernel's hazards, found before printing so
 * that its lines are still the original's. */
static wave_module *transformed(const wave_difftest *test, const char *text, size_t len,
                                wave_hazard_set **hazards, wave_diff_report *r) {
  wave_module *m = load(text, len, "the kernel", r);
  if (!m)
    return NULL;
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_transform_fn fn = test->transform ? test->transform : wave_transform_identity;
  bool ok = fn(m, test->transform_ctx, &diags) && !wave_diags_has_errors(&diags);
  if (!ok) {
    say(r, "the transformation failed");
  } else if (!wave_verify_module(m, &diags)) {
    ok = false;
    say(r, "the transformed kernel does not verify");
  } else if (test->hazard_target &&
             !(*hazards = wave_hazards_find(wave_module_find_kernel(m, NULL),
                                            test->hazard_target))) {
    ok = false;
    say(r, "out of memory while looking for toolchain hazards");
  }
  char *printed = NULL;
  size_t printed_len = 0;
  if (ok) {
    wave_print_options po = {0};
    po.dialect = WAVE_DIALECT_ASM;
    printed = wave_print_to_string(m, &po, &printed_len);
    if (!printed)
      say(r, "the transformed kernel cannot be printed in the assembler's dialect");
  }
  say_diags(r, &diags);
  wave_diags_free(&diags);
  wave_module_destroy(m);
  if (!printed)
    return NULL;
  wave_module *again = load(printed, printed_len, "the printed transformed kernel", r);
  free(printed);
  return again;
}

/* A wave operation issued with lanes parked where the original never issued one, on a target
 * whose wave operations wait for every live lane. */
static bool parks_lanes(const wave_difftest *test, wave_machine *a, wave_machine *b,
                        wave_diff_report *r) {
  const wave_target *t = test->hazard_target;
  uint64_t before = wave_machine_counters(a)->parked_wave_ops;
  uint64_t after = wave_machine_counters(b)->parked_wave_ops;
  if (!t || t->divergent_wave_ops_ok || before || !after)
    return false;
  say(r, "wave operations issued with lanes parked: %llu in the transformed kernel, none in the "
         "original (undefined on %s)",
      (unsigned long long)after, t->name);
  return true;
}

/* Marks the lines the original ran with at least one lane. */
static void note_lines_run(const wave_machine *m, bool *ran, size_t num_lines) {
  for (size_t i = 0; i < wave_machine_program_size(m); i++) {
    const wave_program_entry *e = wave_machine_program_entry(m, i);
    if (e->issues && e->loc.line < num_lines)
      ran[e->loc.line] = true;
  }
}

static wave_diff_status compare_at(const wave_difftest *test, const wave_module *orig,
                                   const wave_module *xform, const inputs *in, uint32_t w,
                                   bool *ran, size_t num_lines, wave_diff_report *r) {
  wave_machine *a = run_kernel(test, orig, in, w, test->original_mode);
  if (a && ran)
    note_lines_run(a, ran, num_lines);
  wave_machine *b = a ? run_kernel(test, xform, in, w, test->transformed_mode) : NULL;
  wave_diff_status status = WAVE_DIFF_PASS;
  if (!a || !b) {
    say(r, "out of memory (or no kernel) at W=%u", w);
    status = fail(r, WAVE_DIFF_NO_MEMORY, w);
  } else if (wave_machine_status(a) != WAVE_RUN_OK) {
    say(r, "W=%u: the original fails: %s", w, run_error(a));
    status = fail(r, WAVE_DIFF_BAD_ORIGINAL, w);
  } else if (wave_machine_status(b) != WAVE_RUN_OK) {
    say(r, "W=%u: the original runs, the transformed kernel fails: %s", w, run_error(b));
    status = fail(r, WAVE_DIFF_MISMATCH, w);
  } else {
    say(r, "W=%u: ", w);
    if (!compare_lanes(a, b, r) || !compare_memory(a, b, &test->launch, r))
      status = fail(r, WAVE_DIFF_MISMATCH, w);
    else if (parks_lanes(test, a, b, r))
      status = fail(r, WAVE_DIFF_HAZARD, w);
    else
      r->message[0] = '\0';
  }
  wave_machine_destroy(a);
  wave_machine_destroy(b);
  return status;
}

wave_diff_status wave_difftest_run(const wave_difftest *test, const char *text, size_t len,
                                   wave_diff_report *report) {
  memset(report, 0, sizeof(*report));
  inputs in = {0};
  if (!make_inputs(test, &in)) {
    say(report, "out of memory");
    return fail(report, WAVE_DIFF_NO_MEMORY, 0);
  }
  wave_diff_status status = WAVE_DIFF_PASS;
  wave_module *orig = load(text, len, "the original kernel", report);
  wave_hazard_set *before = NULL, *after = NULL;
  wave_module *xform = orig ? transformed(test, text, len, &after, report) : NULL;
  /* Lines are 1-based; one more for a text without a final newline. */
  size_t num_lines = 2;
  for (size_t i = 0; i < len; i++)
    num_lines += text[i] == '\n';
  bool *ran = after ? calloc(num_lines, sizeof(bool)) : NULL;
  if (after &&
      (!ran || !(before = wave_hazards_find(wave_module_find_kernel(orig, NULL),
                                            test->hazard_target)))) {
    say(report, "out of memory");
    status = fail(report, WAVE_DIFF_NO_MEMORY, 0);
  } else if (!orig) {
    status = fail(report, WAVE_DIFF_BAD_ORIGINAL, 0);
  } else if (!xform) {
    status = fail(report, WAVE_DIFF_BAD_TRANSFORM, 0);
  }
  for (unsigned i = 0; status == WAVE_DIFF_PASS && i < test->num_widths; i++)
    status = compare_at(test, orig, xform, &in, test->widths[i], ran, num_lines, report);
  char what[128];
  if (status == WAVE_DIFF_PASS && after &&
      wave_hazards_added(before, after, ran, num_lines, what, sizeof(what))) {
    say(report, "the transformed kernel runs wrongly on %s where the original did not: %s",
        test->hazard_target->name, what);
    status = fail(report, WAVE_DIFF_HAZARD, 0);
  }
  free(ran);
  wave_hazard_set_destroy(before);
  wave_hazard_set_destroy(after);
  wave_module_destroy(orig);
  wave_module_destroy(xform);
  free(in.memory);
  return status;
}

bool wave_difftest_original_ok(const wave_difftest *test, const wave_module *module,
                               uint64_t *max_steps) {
  inputs in = {0};
  if (!make_inputs(test, &in))
    return false;
  bool ok = true;
  for (unsigned i = 0; ok && i < test->num_widths; i++) {
    wave_machine *m = run_kernel(test, module, &in, test->widths[i], test->original_mode);
    ok = m && wave_machine_status(m) == WAVE_RUN_OK;
    if (ok && max_steps && wave_machine_counters(m)->steps > *max_steps)
      *max_steps = wave_machine_counters(m)->steps;
    wave_machine_destroy(m);
  }
  free(in.memory);
  return ok;
}
