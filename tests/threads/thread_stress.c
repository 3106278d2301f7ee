/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The thread contract (docs/threads.md) under load: 8 threads at once each parse, verify,
 * analyse, optimize at every level, print, draw and interpret modules of their own, while all of
 * them read one registry, the four -O pipelines parsed from it, one target, and one module that
 * nobody changes (printed, verified and interpreted by every thread). Drawing goes through
 * graphviz, which keeps process-wide state: as the contract asks, the threads take turns there
 * under one lock, while the rest of their work goes on at once.
 *
 * Whatever a thread computes must be what one thread alone computes: main first works every
 * kernel sequentially and keeps what came out (the analyses' printouts, the output of each
 * level, the drawing), then the threads work the same kernels in a shuffled order and compare
 * byte for byte. Hidden shared state (a cache, a static buffer, a counter) shows up as a
 * difference here, or as a data race when the test is built with ThreadSanitizer (make
 * check-all: a build configured --enable-sanitizers=thread runs it). Each level is also held
 * to the interpreter through the differential harness, at wave widths 8, 32 and 64.
 *
 * Exit status 0 when every comparison held, 1 otherwise (each failure on stderr).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/difftest.h"
#include "waveopt/dot.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

#ifndef THREADS
#define THREADS 8
#endif
#define KERNELS 24
#define LEVELS 4

/* Read by every thread, written only by main before they start. */
typedef struct shared {
  const wave_pass_registry *registry;
  const wave_pipeline *levels[LEVELS];
  const wave_target *target;
  const wave_module *module; /* read by every thread at once */
  wave_gen_launch launch;    /* what it expects */
  const char *module_text;   /* what printing it gave main */
  uint64_t module_memory;    /* a hash of the memory running it left, in main */
} shared;

/* Graphviz is one thread at a time (docs/threads.md). */
static pthread_mutex_t graphviz = PTHREAD_MUTEX_INITIALIZER;

/* What working one kernel produced: every text malloc'd, NULL where a step failed. */
typedef struct outcome {
  char *analyses;          /* print<NAME> of every built-in analysis, one after another */
  char *optimized[LEVELS]; /* the printed module after -O0..-O3 */
  char *drawing;           /* the DOT text of the -O2 kernel */
  char *failure;           /* why the kernel failed, or NULL */
} outcome;

typedef struct text {
  char *data;
  size_t len;
  bool failed;
} text;

static int append(void *ctx, const char *data, size_t len) {
  text *t = ctx;
  char *grown = realloc(t->data, t->len + len + 1);
  if (!grown) {
    t->failed = true;
    return -1;
  }
  memcpy(grown + t->len, data, len);
  t->len += len;
  grown[t->len] = '\0';
  t->data = grown;
  return 0;
}

static char *take(text *t) {
  if (t->failed) {
    free(t->data);
    return NULL;
  }
  return t->data ? t->data : strdup("");
}

static char *say(const char *fmt, unsigned seed, const char *detail) {
  char *message = malloc(strlen(fmt) + strlen(detail) + 32);
  if (message)
    sprintf(message, fmt, seed, detail);
  return message;
}

static wave_gen_options gen_options(unsigned seed) {
  wave_gen_options o;
  wave_gen_options_init(&o);
  o.seed = seed;
  o.size = 120;
  return o;
}

/* Every built-in analysis of the kernel, printed as print<NAME> would. */
static char *print_analyses(const shared *s, wave_kernel *kernel, wave_diags *diags) {
  wave_analysis_manager *am = wave_analysis_manager_create(s->registry, s->target, diags);
  text out = {0};
  const wave_analysis_info *info;
  for (wave_analysis_id id = 0; am && (info = wave_pass_registry_analysis_at(s->registry, id));
       id++) {
    const void *result = wave_analysis_get(am, kernel, id);
    if (!result || (info->print && info->print(result, kernel, append, &out) != 0))
      out.failed = true;
  }
  out.failed |= !am;
  wave_analysis_manager_destroy(am);
  return take(&out);
}

static char *draw(wave_kernel *kernel, wave_diags *diags) {
  char *data = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&data, &len);
  if (!f)
    return NULL;
  pthread_mutex_lock(&graphviz);
  Agraph_t *graph = wave_dot_build(kernel, NULL, diags);
  bool ok = graph && wave_dot_write(graph, WAVE_DOT_FORMAT_DOT, NULL, f, diags) == 0;
  if (graph)
    agclose(graph);
  pthread_mutex_unlock(&graphviz);
  if (fclose(f) != 0 || !ok) {
    free(data);
    return NULL;
  }
  return data;
}

/* FNV-1a over the device memory a run of the module's first kernel leaves; 0 when it fails. The
 * kernel's arguments take their base values. */
static uint64_t run_hash(const wave_module *module, const wave_gen_launch *launch) {
  wave_launch_config config;
  wave_launch_config_init(&config);
  memcpy(config.grid, launch->grid, sizeof(config.grid));
  memcpy(config.workgroup, launch->workgroup, sizeof(config.workgroup));
  config.device_memory_size = launch->device_memory_size;
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  for (unsigned i = 0; i < launch->num_args; i++)
    presets[i] = (wave_reg_value){launch->args[i].reg, launch->args[i].base};
  config.presets = presets;
  config.num_presets = launch->num_args;
  wave_machine *machine = wave_simulate(wave_module_first_kernel(module), &config, NULL);
  uint64_t h = 0;
  if (machine && wave_machine_status(machine) == WAVE_RUN_OK) {
    size_t size;
    const uint8_t *memory = wave_machine_device_memory(machine, &size);
    h = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++)
      h = (h ^ memory[i]) * 1099511628211ull;
  }
  wave_machine_destroy(machine);
  return h;
}

/* What every thread does with the shared module, which it may only read. */
static bool read_shared(const shared *s) {
  wave_diags diags;
  wave_diags_init(&diags);
  char *printed = wave_print_to_string(s->module, NULL, NULL);
  bool ok = printed && strcmp(printed, s->module_text) == 0 &&
            wave_verify_module(s->module, &diags) &&
            run_hash(s->module, &s->launch) == s->module_memory;
  free(printed);
  wave_diags_free(&diags);
  return ok;
}

/* One kernel, every step; the text of its failure in o->failure. */
static void work(const shared *s, unsigned seed, outcome *o) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_gen_options gen = gen_options(seed);
  wave_gen_launch launch;
  wave_module *generated = wave_generate(&gen, &launch, &diags);
  char *source = generated ? wave_print_to_string(generated, NULL, NULL) : NULL;
  wave_module_destroy(generated);
  if (!source) {
    o->failure = say("seed %u: %s", seed, "not generated");
    wave_diags_free(&diags);
    return;
  }
  for (unsigned level = 0; level < LEVELS && !o->failure; level++) {
    wave_module *module = wave_parse_string(source, strlen(source), "threads.wave", &diags);
    if (!module || !wave_verify_module(module, &diags)) {
      o->failure = say("seed %u: %s", seed, "does not parse and verify");
      wave_module_destroy(module);
      break;
    }
    if (level == 0)
      o->analyses = print_analyses(s, wave_module_first_kernel(module), &diags);
    wave_pipeline_options options = {0};
    options.target = s->target;
    wave_pipeline_result result = {0};
    if (wave_pipeline_run(s->levels[level], module, &options, &result, &diags))
      o->optimized[level] = wave_print_to_string(module, NULL, NULL);
    wave_pipeline_result_free(&result);
    if (level == 2)
      o->drawing = draw(wave_module_first_kernel(module), &diags);
    wave_module_destroy(module);

    /* The interpreter's verdict on the level: the harness parses the source again, runs the
     * pipeline itself and compares memory and finished lanes at three wave widths. */
    wave_difftest test;
    wave_difftest_init(&test, &launch);
    wave_difftest_pipeline ctx = {.pipeline = s->levels[level], .target = s->target};
    test.transform = wave_transform_pipeline;
    test.transform_ctx = &ctx;
    test.input_seed = seed;
    wave_diff_report report;
    if (wave_difftest_run(&test, source, strlen(source), &report) != WAVE_DIFF_PASS)
      o->failure = say("seed %u: the interpreter disagrees: %s", seed, report.message);
  }
  if (!o->failure && wave_diags_has_errors(&diags))
    o->failure = say("seed %u: %s", seed, diags.items[0].message);
  free(source);
  wave_diags_free(&diags);
}

static void outcome_free(outcome *o) {
  free(o->analyses);
  for (unsigned l = 0; l < LEVELS; l++)
    free(o->optimized[l]);
  free(o->drawing);
  free(o->failure);
}

static bool same_text(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* ---- the threads ------------------------------------------------------------------------- */

typedef struct worker {
  const shared *s;
  const outcome *reference; /* indexed by kernel */
  unsigned index;
  unsigned first; /* the kernel it starts at; it takes every one, in its own order */
  unsigned mismatches;
} worker;

static void *run_worker(void *arg) {
  worker *w = arg;
  for (unsigned k = 0; k < KERNELS; k++) {
    unsigned kernel = (w->first + 5 * k) % KERNELS;
    outcome o = {0};
    work(w->s, 1000 + kernel, &o);
    const outcome *r = &w->reference[kernel];
    bool same =
        !o.failure && same_text(o.analyses, r->analyses) && same_text(o.drawing, r->drawing);
    for (unsigned l = 0; l < LEVELS; l++)
      same = same && same_text(o.optimized[l], r->optimized[l]);
    if (!same) {
      fprintf(stderr, "thread_stress: kernel %u in thread %u differs from the sequential run%s%s\n",
              kernel, w->index, o.failure ? ": " : "", o.failure ? o.failure : "");
      w->mismatches++;
    }
    outcome_free(&o);
    if (!read_shared(w->s)) {
      fprintf(stderr, "thread_stress: thread %u read the shared module differently\n", w->index);
      w->mismatches++;
    }
  }
  return NULL;
}

int main(void) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_pass_registry *registry = wave_pass_registry_create();
  shared s;
  memset(&s, 0, sizeof(s));
  s.registry = registry;
  s.target = wave_target_lookup("portable");
  bool ok = registry && s.target;
  /* The shared module: a generated kernel of its own. */
  wave_gen_options gen = gen_options(7);
  wave_module *module = ok ? wave_generate(&gen, &s.launch, &diags) : NULL;
  char *module_text = module ? wave_print_to_string(module, NULL, NULL) : NULL;
  s.module = module;
  s.module_text = module_text;
  s.module_memory = module_text ? run_hash(module, &s.launch) : 0;
  ok = s.module_memory != 0;
  wave_pipeline *levels[LEVELS] = {NULL};
  for (unsigned l = 0; ok && l < LEVELS; l++)
    ok = (s.levels[l] = levels[l] =
              wave_pipeline_parse(registry, wave_pipeline_for_level(l), &diags)) != NULL;
  if (!ok) {
    fprintf(stderr, "thread_stress: no registry, target, shared module or pipelines\n");
    return 1;
  }

  outcome reference[KERNELS] = {{0}};
  unsigned failures = 0;
  for (unsigned k = 0; k < KERNELS; k++) {
    work(&s, 1000 + k, &reference[k]);
    if (reference[k].failure) {
      fprintf(stderr, "thread_stress: sequential run: %s\n", reference[k].failure);
      failures++;
    }
  }

  pthread_t threads[THREADS];
  worker workers[THREADS];
  unsigned started = 0;
  for (unsigned t = 0; t < THREADS; t++) {
    workers[t] = (worker){&s, reference, t, t * KERNELS / THREADS, 0};
    if (pthread_create(&threads[t], NULL, run_worker, &workers[t]) != 0) {
      fprintf(stderr, "thread_stress: cannot start thread %u\n", t);
      failures++;
      break;
    }
    started++;
  }
  for (unsigned t = 0; t < started; t++) {
    pthread_join(threads[t], NULL);
    failures += workers[t].mismatches;
  }

  for (unsigned k = 0; k < KERNELS; k++)
    outcome_free(&reference[k]);
  free(module_text);
  wave_module_destroy(module);
  for (unsigned l = 0; l < LEVELS; l++)
    wave_pipeline_destroy(levels[l]);
  wave_pass_registry_destroy(registry);
  wave_diags_free(&diags);
  printf("thread_stress: %u threads x %u kernels x %u levels: %u failures\n", started, KERNELS,
         LEVELS, failures);
  return failures ? 1 : 0;
}
