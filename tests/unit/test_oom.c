/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Out of memory. Every block the library takes on the way parse -> verify -> -O2 -> print ->
 * interpret -> DOT comes from the caller's allocator (waveopt/alloc.h), which here counts the
 * blocks and fails the n-th: once (memory comes back, as when another thread frees some) and
 * from then on (memory is gone). For every n, each step either does exactly what it does with
 * memory to spare (the same text printed, the same memory computed, the same graph) or
 * returns its error value, with an "out of memory" error in diags where it takes them; the
 * chain stops at the first such step. Afterwards every block handed out has come back (the
 * count here catches a leak in the plain build, LeakSanitizer in the sanitizer build), and a
 * module whose -O2 failed half way still verifies and computes what the input did: what the
 * caller passed in may be left unoptimized, never broken. OOM_DEBUG=1 in the environment
 * prints what the failing steps said, and the two texts when -O2 printed another.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/dot.h"

typedef struct budget {
  size_t calls;    /* allocate and reallocate calls so far */
  size_t fail_at;  /* the call that fails (from 1); 0: none */
  bool persistent; /* and every call after it */
  size_t failed;   /* calls that failed */
  size_t live;     /* blocks handed out and not taken back */
} budget;

static bool refuse(budget *b) {
  b->calls++;
  bool fail = b->fail_at && (b->calls == b->fail_at || (b->persistent && b->calls > b->fail_at));
  b->failed += fail;
  return fail;
}

/* Each block carries a header marking it as this allocator's: a block the library gave back
 * to free() instead would be an invalid free (valgrind, ASan), one from elsewhere handed to
 * release fails the check. */
enum { HEADER = 16 };
static const uint64_t MARK = 0x00AA110CA7EDB10Cull;

static void *allocate(void *user, size_t size) {
  budget *b = user;
  cr_assert_gt(size, 0, "the library asked for 0 bytes");
  if (refuse(b))
    return NULL;
  uint8_t *block = malloc(HEADER + size);
  cr_assert_not_null(block);
  memcpy(block, &MARK, sizeof(MARK));
  b->live++;
  return block + HEADER;
}

static uint8_t *header_of(void *block) {
  uint8_t *start = (uint8_t *)block - HEADER;
  cr_assert(memcmp(start, &MARK, sizeof(MARK)) == 0, "%p is not a block of this allocator", block);
  return start;
}

static void *reallocate(void *user, void *block, size_t size) {
  budget *b = user;
  cr_assert(block && size > 0, "reallocate(%p, %zu) breaks the allocator's contract", block, size);
  uint8_t *start = header_of(block);
  if (refuse(b))
    return NULL;
  uint8_t *moved = realloc(start, HEADER + size);
  cr_assert_not_null(moved);
  return moved + HEADER;
}

static void release(void *user, void *block) {
  budget *b = user;
  cr_assert_not_null(block, "release(NULL) breaks the allocator's contract");
  uint8_t *start = header_of(block);
  cr_assert_gt(b->live, 0, "a block was given back twice");
  b->live--;
  memset(start, 0, sizeof(MARK));
  free(start);
}

/* What the whole chain gives with memory to spare. */
typedef struct outcome {
  char *printed;
  uint8_t memory[256];
  char *graph;
} outcome;

enum { OUT_ADDRESS = 0x100, MEMORY_SIZE = 0x200 };

static bool says_out_of_memory(const wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++)
    if (diags->items[i].severity == WAVE_SEV_ERROR &&
        strstr(diags->items[i].message, "out of memory"))
      return true;
  return diags->out_of_memory;
}

/* Runs the module's first kernel; false when the machine could not be made or run. */
static bool interpret(const wave_module *module, uint8_t *memory, wave_diags *diags) {
  wave_launch_config config;
  wave_launch_config_init(&config);
  config.device_memory_size = MEMORY_SIZE;
  wave_reg_value out = {0, OUT_ADDRESS};
  config.presets = &out;
  config.num_presets = 1;
  wave_machine *m = wave_simulate(wave_module_first_kernel(module), &config, diags);
  bool ran = m && wave_machine_status(m) == WAVE_RUN_OK;
  if (ran) {
    size_t size;
    memcpy(memory, wave_machine_device_memory(m, &size) + OUT_ADDRESS, sizeof(outcome){0}.memory);
  }
  wave_machine_destroy(m);
  return ran;
}

static char *draw(const wave_module *module, wave_diags *diags) {
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(module), NULL, diags);
  if (!g)
    return NULL;
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_not_null(out);
  int written = wave_dot_write(g, WAVE_DOT_FORMAT_DOT, NULL, out, diags);
  fclose(out);
  agclose(g);
  if (written != 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* A step that failed: it must say why when it takes diagnostics. */
#define STEP_FAILED(what, diags)                                                                   \
  do {                                                                                             \
    const wave_diags *said = (diags);                                                              \
    for (size_t i = 0; getenv("OOM_DEBUG") && said && i < said->count; i++)                        \
      fprintf(stderr, "diag: %s\n", said->items[i].message);                                       \
    if (said)                                                                                      \
      cr_assert(says_out_of_memory(said),                                                          \
                "%s failed at allocation %zu without saying "                                      \
                "\"out of memory\"",                                                               \
                what, b->fail_at);                                                                 \
    goto done;                                                                                     \
  } while (0)

/* The chain with allocator `b`; fills *got as far as it came. Returns how many steps of six
 * finished. With `input_memory`, a module left by a failed -O2 is checked against it. */
static int chain(budget *b, const char *text, const uint8_t *input_memory, outcome *got) {
  wave_allocator allocator = {allocate, reallocate, release, b};
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pass_registry *registry = NULL;
  wave_pipeline *pipeline = NULL;
  wave_pipeline_result result = {0};
  int steps = 0;
  memset(got, 0, sizeof(*got));

  wave_module *module = wave_parse_string_with(text, strlen(text), "oom.wave", &diags, &allocator);
  if (!module)
    STEP_FAILED("parsing", &diags);
  steps++;
  if (!wave_verify_module(module, &diags))
    STEP_FAILED("verifying", &diags);
  steps++;
  registry = wave_pass_registry_create_with(&allocator);
  if (!registry)
    STEP_FAILED("making the registry", (wave_diags *)NULL);
  pipeline = wave_pipeline_parse(registry, wave_pipeline_for_level(2), &diags);
  if (!pipeline)
    STEP_FAILED("parsing -O2", &diags);
  wave_pipeline_options options = {.verify_each = true};
  if (!wave_pipeline_run(pipeline, module, &options, &result, &diags)) {
    for (size_t i = 0; getenv("OOM_DEBUG") && i < diags.count; i++)
      fprintf(stderr, "diag: %s\n", diags.items[i].message);
    cr_assert(says_out_of_memory(&diags),
              "-O2 failed at allocation %zu without saying \"out "
              "of memory\"",
              b->fail_at);
    if (input_memory) {
      size_t fail_at = b->fail_at;
      bool persistent = b->persistent;
      b->fail_at = 0;
      b->persistent = false;
      wave_diags after;
      wave_diags_init(&after);
      uint8_t memory[sizeof(got->memory)];
      cr_assert(wave_verify_module(module, &after),
                "-O2 failing at allocation %zu left a "
                "module that does not verify: %s",
                fail_at, after.count ? after.items[0].message : "");
      cr_assert(interpret(module, memory, &after));
      cr_assert_arr_eq(memory, input_memory, sizeof(memory),
                       "-O2 failing at allocation %zu "
                       "left a module that computes something else",
                       fail_at);
      wave_diags_free(&after);
      b->fail_at = fail_at;
      b->persistent = persistent;
    }
    goto done;
  }
  steps++;
  got->printed = wave_print_to_string(module, NULL, NULL);
  if (!got->printed)
    STEP_FAILED("printing", (wave_diags *)NULL);
  steps++;
  if (!interpret(module, got->memory, &diags))
    STEP_FAILED("interpreting", &diags);
  steps++;
  got->graph = draw(module, &diags);
  if (!got->graph)
    STEP_FAILED("drawing", &diags);
  steps++;

done:
  wave_pipeline_result_free(&result);
  wave_pipeline_destroy(pipeline);
  wave_pass_registry_destroy(registry);
  if (got->printed) {
    /* The printed text is the module's allocator's, to be given back to it. */
    char *copy = strdup(got->printed);
    release(b, got->printed);
    got->printed = copy;
  }
  wave_module_destroy(module);
  wave_diags_free(&diags);
  cr_assert_eq(b->live, 0, "%zu blocks were not given back (allocation %zu failed%s)", b->live,
               b->fail_at, b->persistent ? ", and all after it" : "");
  return steps;
}

static void outcome_free(outcome *o) {
  free(o->printed);
  free(o->graph);
}

/* The input's memory, computed with malloc's memory and no passes. */
static void input_memory(const char *text, uint8_t *memory) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *module = wave_parse_string(text, strlen(text), "oom.wave", &diags);
  cr_assert_not_null(module);
  cr_assert(interpret(module, memory, &diags));
  wave_module_destroy(module);
  wave_diags_free(&diags);
}

static void fail_every_allocation(const char *text) {
  uint8_t input[sizeof(outcome){0}.memory];
  input_memory(text, input);
  budget b = {0};
  outcome full;
  cr_assert_eq(chain(&b, text, input, &full), 6, "the chain fails with memory to spare");
  cr_assert_arr_eq(full.memory, input, sizeof(input), "-O2 changed what the kernel computes");
  size_t total = b.calls;
  cr_assert_gt(total, 100, "the allocator was not used: %zu calls", total);
  size_t finished = 0;
  for (int persistent = 0; persistent < 2; persistent++) {
    for (size_t n = 1; n <= total; n++) {
      b = (budget){.fail_at = n, .persistent = persistent};
      outcome got;
      int steps = chain(&b, text, input, &got);
      cr_assert_gt(b.failed, 0, "allocation %zu was never asked for", n);
      if (got.printed && getenv("OOM_DEBUG") && strcmp(got.printed, full.printed))
        fprintf(stderr, "---- full\n%s---- got\n%s", full.printed, got.printed);
      if (got.printed)
        cr_assert_str_eq(got.printed, full.printed,
                         "allocation %zu failed: -O2 printed other "
                         "text",
                         n);
      if (steps >= 5)
        cr_assert_arr_eq(got.memory, full.memory, sizeof(got.memory),
                         "allocation %zu failed: "
                         "the run computed other memory",
                         n);
      if (got.graph)
        cr_assert_str_eq(got.graph, full.graph, "allocation %zu failed: another graph", n);
      finished += steps == 6;
      outcome_free(&got);
    }
  }
  cr_log_info("%zu allocations, each failed once and for good; %zu runs finished regardless", total,
              finished);
  outcome_free(&full);
}

/* Divergent ifs with and without else, a guarded add, a loop that lanes leave at different
 * iterations, repeated constants and dead values: work for most passes of -O2. */
static const char kernel[] = ".kernel oom\n"
                             ".registers 16\n"
                             ".workgroup_size 32, 1, 1\n"
                             "    mov_sr   r1, sr_thread_id_x\n"
                             "    mov_imm  r2, 8\n"
                             "    mov_imm  r3, 0\n"
                             "    mov_imm  r9, 99\n"
                             "    icmp_lt  p1, r1, r2\n"
                             "    if p1\n"
                             "        mov_imm  r3, 1\n"
                             "    else\n"
                             "        mov_imm  r3, 2\n"
                             "        mov_imm  r8, 1\n"
                             "        and      r4, r1, r8\n"
                             "        icmp_eq  p2, r4, r8\n"
                             "        if p2\n"
                             "            iadd     r3, r3, r2\n"
                             "        endif\n"
                             "    endif\n"
                             "    mov_imm  r5, 0\n"
                             "    mov_imm  r6, 0\n"
                             "    loop\n"
                             "        icmp_ge  p3, r6, r1\n"
                             "        break p3\n"
                             "        iadd     r5, r5, r6\n"
                             "        mov_imm  r8, 1\n"
                             "        iadd     r6, r6, r8\n"
                             "    endloop\n"
                             "    iadd     r3, r3, r5\n"
                             "    mov_imm  r8, 2\n"
                             "    shl      r7, r1, r8\n"
                             "    iadd     r7, r7, r0\n"
                             "    device_store_u32 r7, r3\n"
                             "    halt\n"
                             ".end\n";

Test(oom, every_allocation_of_the_chain_may_fail, .timeout = 600) { fail_every_allocation(kernel); }

/* Subroutines, which legalize inlines at -O2 (the portable target): its copies too. */
Test(oom, every_allocation_may_fail_while_calls_are_inlined, .timeout = 600) {
  char *path = tu_corpus_path("subroutine.wave");
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  char text[8192];
  size_t len = fread(text, 1, sizeof(text) - 1, f);
  cr_assert(len > 0 && feof(f), "%s is empty or larger than the buffer", path);
  text[len] = '\0';
  fclose(f);
  free(path);
  fail_every_allocation(text);
}

/* The allocator is the module's alone: two modules with different allocators in one process
 * each take only from their own. */
Test(oom, a_module_takes_only_from_its_own_allocator) {
  budget mine = {0}, other = {0};
  wave_allocator a = {allocate, reallocate, release, &mine};
  wave_allocator o = {allocate, reallocate, release, &other};
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_string_with(kernel, strlen(kernel), "a.wave", &diags, &a);
  wave_module *n = wave_parse_string_with(kernel, strlen(kernel), "b.wave", &diags, &o);
  cr_assert(m && n);
  size_t before = other.calls;
  cr_assert(wave_verify_module(m, &diags));
  char *text = wave_print_to_string(m, NULL, NULL);
  cr_assert_not_null(text);
  cr_assert_eq(other.calls, before, "work on one module took from the other's allocator");
  cr_assert_gt(mine.calls, 0);
  release(&mine, text);
  wave_module_destroy(m);
  wave_module_destroy(n);
  cr_assert_eq(mine.live + other.live, 0);
  wave_diags_free(&diags);
}
