/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registry: which passes and analyses a pipeline may name. It is a value, not a global,
 * so that an embedder can add passes of its own without touching anybody else's pipelines,
 * and two threads can each hold one. wave_pass_registry_create() starts it from the const
 * tables of built-ins; registration checks what the pipeline syntax and the command line rely
 * on: kebab-case names, unique among passes (and among analyses), and option names unique
 * across all passes, because the tools set options by name alone.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pm/builtin.h"
#include "pm/pm_internal.h"

_Static_assert(WAVE_NUM_BUILTIN_ANALYSES <= WAVE_MAX_ANALYSES, "too many built-in analyses");

static const wave_pass_info *const builtin_passes[] = {
#define WAVE_PASS(stem) &wave_pass_##stem,
#include "passes/passes.def"
#undef WAVE_PASS
    NULL};

static const wave_analysis_info *const builtin_analyses[] = {
#define WAVE_ANALYSIS(ID, stem) &wave_analysis_##stem,
#include "analysis/analyses.def"
#undef WAVE_ANALYSIS
    NULL};

/* Words of the pipeline syntax, which no pass may take. */
static const char *const reserved_names[] = {"fixpoint", "print"};

wave_pass_registry *wave_pass_registry_create(void) { return wave_pass_registry_create_with(NULL); }

wave_pass_registry *wave_pass_registry_create_with(const wave_allocator *allocator) {
  wave_pass_registry *registry = wave_mem_calloc(allocator, 1, sizeof(*registry));
  if (!registry)
    return NULL;
  registry->allocator = wave_mem_keep(&registry->own_allocator, allocator);
  wave_diags ignored;
  wave_diags_init(&ignored);
  bool ok = true;
  for (const wave_analysis_info *const *a = builtin_analyses; ok && *a; a++)
    ok = wave_pass_registry_add_analysis(registry, *a, &ignored) >= 0;
  for (const wave_pass_info *const *p = builtin_passes; ok && *p; p++)
    ok = wave_pass_registry_add_pass(registry, *p, &ignored);
  wave_diags_free(&ignored);
  if (!ok) {
    wave_pass_registry_destroy(registry);
    return NULL;
  }
  return registry;
}

void wave_pass_registry_destroy(wave_pass_registry *registry) {
  if (!registry)
    return;
  wave_mem_free(registry->allocator, registry->passes);
  wave_pass_plugins_close(registry);
  wave_mem_free_holder(registry->allocator, registry);
}

/* Lower-case words of letters and digits joined by single hyphens: what a pipeline string
 * and a command-line flag can carry without quoting. */
static bool is_kebab_case(const char *name) {
  if (!name || !(*name >= 'a' && *name <= 'z'))
    return false;
  for (const char *c = name; *c; c++) {
    bool word = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
    if (!word && !(*c == '-' && c[1] != '\0' && c[1] != '-'))
      return false;
  }
  return true;
}

static bool report(wave_diags *diags, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool report(wave_diags *diags, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = wave_vformat(fmt, ap);
  va_end(ap);
  wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0, "%s",
                   message ? message : "out of memory");
  wave_mem_free(NULL, message);
  return false;
}

/* A name as a message may quote it: a missing one reads as empty. */
static const char *shown(const char *name) { return name ? name : ""; }

static bool check_pass(const wave_pass_registry *registry, const wave_pass_info *info,
                       wave_diags *diags) {
  if (!is_kebab_case(info->name))
    return report(diags, "pass name '%s' is not kebab-case", shown(info->name));
  if (!info->help || !info->run || (info->num_options && !info->options))
    return report(diags, "pass '%s' lacks its help, its run function or its options",
                  info->name);
  for (size_t i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++)
    if (strcmp(info->name, reserved_names[i]) == 0)
      return report(diags, "'%s' is a word of the pipeline syntax, not a pass name", info->name);
  if (wave_pass_registry_find_pass(registry, info->name))
    return report(diags, "a pass named '%s' is already registered", info->name);
  for (size_t i = 0; i < info->num_options; i++) {
    const char *option = info->options[i].name;
    size_t ignored;
    if (!is_kebab_case(option) || !info->options[i].help)
      return report(diags, "option '%s' needs a kebab-case name and its help", shown(option));
    if (wave_pass_registry_find_option(registry, option, &ignored))
      return report(diags, "an option named '%s' is already registered", option);
    for (size_t j = 0; j < i; j++)
      if (strcmp(option, info->options[j].name) == 0)
        return report(diags, "option '%s' is declared twice", option);
  }
  return true;
}

bool wave_pass_registry_add_pass(wave_pass_registry *registry, const wave_pass_info *info,
                                 wave_diags *diags) {
  if (!check_pass(registry, info, diags))
    return false;
  if (registry->num_passes == registry->pass_capacity) {
    size_t capacity = registry->pass_capacity ? 2 * registry->pass_capacity : 16;
    const wave_pass_info **passes =
        wave_mem_realloc(registry->allocator, registry->passes, capacity * sizeof(*passes));
    if (!passes)
      return report(diags, "out of memory registering pass '%s'", info->name);
    registry->passes = passes;
    registry->pass_capacity = capacity;
  }
  registry->passes[registry->num_passes++] = info;
  return true;
}

wave_analysis_id wave_pass_registry_add_analysis(wave_pass_registry *registry,
                                                 const wave_analysis_info *info,
                                                 wave_diags *diags) {
  if (!is_kebab_case(info->name))
    report(diags, "analysis name '%s' is not kebab-case", shown(info->name));
  else if (!info->help || !info->compute || !info->destroy)
    report(diags, "analysis '%s' lacks its help, its compute or its destroy function",
           info->name);
  else if (wave_pass_registry_find_analysis(registry, info->name) >= 0)
    report(diags, "an analysis named '%s' is already registered", info->name);
  else if (registry->num_analyses == WAVE_MAX_ANALYSES)
    report(diags, "cannot register analysis '%s': a registry holds at most %d", info->name,
           WAVE_MAX_ANALYSES);
  else {
    registry->analyses[registry->num_analyses] = info;
    return (wave_analysis_id)registry->num_analyses++;
  }
  return -1;
}

const wave_pass_info *wave_pass_registry_find_pass(const wave_pass_registry *registry,
                                                   const char *name) {
  for (size_t i = 0; i < registry->num_passes; i++)
    if (strcmp(registry->passes[i]->name, name) == 0)
      return registry->passes[i];
  return NULL;
}

wave_analysis_id wave_pass_registry_find_analysis(const wave_pass_registry *registry,
                                                  const char *name) {
  for (size_t i = 0; i < registry->num_analyses; i++)
    if (strcmp(registry->analyses[i]->name, name) == 0)
      return (wave_analysis_id)i;
  return -1;
}

const wave_pass_info *wave_pass_registry_find_option(const wave_pass_registry *registry,
                                                     const char *name, size_t *index) {
  for (size_t i = 0; i < registry->num_passes; i++) {
    const wave_pass_info *pass = registry->passes[i];
    for (size_t j = 0; j < pass->num_options; j++)
      if (strcmp(pass->options[j].name, name) == 0) {
        *index = j;
        return pass;
      }
  }
  return NULL;
}

const wave_pass_info *wave_pass_registry_pass_at(const wave_pass_registry *registry,
                                                 size_t index) {
  return index < registry->num_passes ? registry->passes[index] : NULL;
}

const wave_analysis_info *wave_pass_registry_analysis_at(const wave_pass_registry *registry,
                                                         wave_analysis_id id) {
  return id >= 0 && (size_t)id < registry->num_analyses ? registry->analyses[id] : NULL;
}
