/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pipelines: built step by step, parsed from text, printed back to text. The parser is a loop
 * over the characters that calls the same builder functions as an embedder does, so both ways
 * of making a pipeline obey the same rules; it only adds where in the text a problem is, as a
 * column under the quoted pipeline. Printing is the inverse: parsing the printed text gives a
 * pipeline that prints the same.
 *
 * -O0..-O3 are rows of one table of pipeline texts, parsed like any other: a level naming a
 * pass the registry lacks fails as an unknown pass, instead of silently running less.
 */
#include <stdlib.h>
#include <string.h>

#include "pm/pm_internal.h"
#include "support/strbuf.h"

/* -O1..-O3 lower the documentation dialect before optimizing (its constants become loads that
 * early-cse and licm can share and hoist; legalize then finds none left). -O1 cleans up
 * (early-cse leaves the recomputations it bypassed to the dce after it) and takes breaks out
 * of ifs (which the upstream emulator runs wrongly); -O2 adds constants hoisted out of loops
 * (one loop a run), loops of a few constant iterations unrolled, and the divergence rewrites,
 * repeated while one of them still finds work (a flattened nest or a hoisted prefix leaves an
 * if small enough to convert), then bound-depth keeps the nesting within the divergence
 * stack. -O3 is -O2 with the tools' larger register budget (waveopt -max-registers). */
static const char *const level_pipelines[] = {
    "legalize",
    "lint,lower-docs,simplify-cfg,early-cse,dce,predicated-break,legalize",
    "lint,lower-docs,fixpoint(simplify-cfg,early-cse,licm,loop-unroll,dce,hoist-common,"
    "flatten-ifs,predicated-break,if-to-select),bound-depth,legalize",
    "lint,lower-docs,fixpoint(simplify-cfg,early-cse,licm,loop-unroll,dce,hoist-common,"
    "flatten-ifs,predicated-break,if-to-select),bound-depth,legalize",
};

const char *wave_pipeline_for_level(unsigned level) {
  return level < sizeof(level_pipelines) / sizeof(level_pipelines[0]) ? level_pipelines[level]
                                                                     : NULL;
}

/* Where in a pipeline text a builder call comes from; text is NULL for calls by hand. */
typedef struct origin {
  const char *text;
  size_t offset;
} origin;

static const origin by_hand = {NULL, 0};

static bool report(wave_diags *diags, origin at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool report(wave_diags *diags, origin at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = wave_vformat(fmt, ap);
  va_end(ap);
  wave_loc loc = {NULL, at.text ? 1 : 0, at.text ? (uint32_t)at.offset + 1 : 0};
  wave_diag_report(diags, WAVE_SEV_ERROR, NULL, loc, at.text, at.text ? strlen(at.text) : 0,
                   "%s", message ? message : "out of memory");
  wave_mem_free(NULL, message);
  return false;
}

static bool report_unknown(wave_diags *diags, origin at, const char *what,
                           const wave_suggest *s) {
  char *message = wave_pm_unknown(what, s);
  report(diags, at, "%s", message ? message : "out of memory");
  wave_mem_free(NULL, message);
  return false;
}

/* ---- building ----------------------------------------------------------------------------- */

wave_pipeline *wave_pipeline_create(const wave_pass_registry *registry) {
  wave_pipeline *pipeline = wave_mem_calloc(registry->allocator, 1, sizeof(*pipeline));
  if (pipeline)
    pipeline->registry = registry;
  return pipeline;
}

void wave_pipeline_destroy(wave_pipeline *pipeline) {
  if (!pipeline)
    return;
  wave_mem_free(pipeline->registry->allocator, pipeline->steps);
  wave_mem_free(pipeline->registry->allocator, pipeline);
}

static bool append(wave_pipeline *p, wave_pipeline_step step, wave_diags *diags, origin at) {
  if (p->num_steps == p->capacity) {
    size_t capacity = p->capacity ? 2 * p->capacity : 8;
    wave_pipeline_step *steps =
        wave_mem_realloc(p->registry->allocator, p->steps, capacity * sizeof(*steps));
    if (!steps)
      return report(diags, at, "out of memory building the pipeline");
    p->steps = steps;
    p->capacity = capacity;
  }
  p->steps[p->num_steps++] = step;
  return true;
}

static bool add_pass(wave_pipeline *p, const char *name, wave_diags *diags, origin at) {
  const wave_pass_info *pass = wave_pass_registry_find_pass(p->registry, name);
  if (pass)
    return append(p, (wave_pipeline_step){.kind = WAVE_STEP_PASS, .pass = pass}, diags, at);
  wave_suggest s;
  wave_suggest_init(&s, name, strlen(name));
  for (size_t i = 0; (pass = wave_pass_registry_pass_at(p->registry, i)); i++)
    wave_suggest_offer(&s, pass->name);
  return report_unknown(diags, at, "pass", &s);
}

static bool add_print(wave_pipeline *p, const char *name, wave_diags *diags, origin at) {
  wave_analysis_id id = wave_pass_registry_find_analysis(p->registry, name);
  const wave_analysis_info *info = wave_pass_registry_analysis_at(p->registry, id);
  if (info && info->print)
    return append(p, (wave_pipeline_step){.kind = WAVE_STEP_PRINT, .analysis = id}, diags, at);
  if (info)
    return report(diags, at, "analysis '%s' has no printer", name);
  wave_suggest s;
  wave_suggest_init(&s, name, strlen(name));
  for (wave_analysis_id i = 0; (info = wave_pass_registry_analysis_at(p->registry, i)); i++)
    wave_suggest_offer(&s, info->name);
  return report_unknown(diags, at, "analysis", &s);
}

static bool begin_fixpoint(wave_pipeline *p, unsigned max, wave_diags *diags, origin at) {
  if (max == 0)
    return report(diags, at, "a fixpoint needs at least one iteration");
  if (p->depth == WAVE_MAX_PIPELINE_DEPTH)
    return report(diags, at, "fixpoints nest more than %d deep", WAVE_MAX_PIPELINE_DEPTH);
  size_t index = p->num_steps;
  wave_pipeline_step step = {.kind = WAVE_STEP_FIXPOINT, .max_iterations = max};
  if (!append(p, step, diags, at))
    return false;
  p->open[p->depth++] = index;
  return true;
}

static bool end_fixpoint(wave_pipeline *p, wave_diags *diags, origin at) {
  if (p->depth == 0)
    return report(diags, at, "')' closes no fixpoint");
  size_t begin = p->open[p->depth - 1];
  if (begin + 1 == p->num_steps)
    return report(diags, at, "a fixpoint needs at least one pass");
  if (!append(p, (wave_pipeline_step){.kind = WAVE_STEP_END, .begin = begin}, diags, at))
    return false;
  p->depth--;
  return true;
}

bool wave_pipeline_add_pass(wave_pipeline *pipeline, const char *name, wave_diags *diags) {
  return add_pass(pipeline, name, diags, by_hand);
}

bool wave_pipeline_add_print(wave_pipeline *pipeline, const char *analysis, wave_diags *diags) {
  return add_print(pipeline, analysis, diags, by_hand);
}

bool wave_pipeline_begin_fixpoint(wave_pipeline *pipeline, unsigned max_iterations,
                                  wave_diags *diags) {
  return begin_fixpoint(pipeline, max_iterations, diags, by_hand);
}

bool wave_pipeline_end_fixpoint(wave_pipeline *pipeline, wave_diags *diags) {
  return end_fixpoint(pipeline, diags, by_hand);
}

/* ---- parsing ------------------------------------------------------------------------------ */

typedef struct parser {
  wave_pipeline *pipeline;
  const char *text;
  size_t pos;
  wave_diags *diags;
  char name[128];   /* the last name read, NUL-terminated */
} parser;

static origin here(const parser *ps, size_t offset) { return (origin){ps->text, offset}; }

static bool is_name_char(char c) {
  return c != '\0' && !strchr(",()<>=", c) && c != ' ' && c != '\t' && c != '\n';
}

/* Reads a name into ps->name; false (after reporting) when there is none or it is too long. */
static bool read_name(parser *ps, const char *what) {
  size_t start = ps->pos;
  while (is_name_char(ps->text[ps->pos]))
    ps->pos++;
  size_t len = ps->pos - start;
  if (len == 0) {
    char c = ps->text[start];
    if (c == '\0')
      return report(ps->diags, here(ps, start), "expected %s at the end of the pipeline", what);
    return report(ps->diags, here(ps, start), "expected %s before '%c'", what, c);
  }
  if (len >= sizeof(ps->name))
    return report(ps->diags, here(ps, start), "a name of %zu characters is too long", len);
  memcpy(ps->name, ps->text + start, len);
  ps->name[len] = '\0';
  return true;
}

static bool expect(parser *ps, char c, const char *after) {
  if (ps->text[ps->pos] == c) {
    ps->pos++;
    return true;
  }
  return report(ps->diags, here(ps, ps->pos), "expected '%c' after %s", c, after);
}

/* `<max=N>` after `fixpoint`, if present. */
static bool read_fixpoint_limit(parser *ps, unsigned *max) {
  *max = WAVE_FIXPOINT_DEFAULT_MAX;
  if (ps->text[ps->pos] != '<')
    return true;
  ps->pos++;
  size_t start = ps->pos;
  if (strncmp(ps->text + ps->pos, "max=", 4) != 0)
    return report(ps->diags, here(ps, start), "expected 'max=N' after 'fixpoint<'");
  ps->pos += 4;
  unsigned long long n = 0;
  size_t digits = ps->pos;
  for (; ps->text[ps->pos] >= '0' && ps->text[ps->pos] <= '9' && n <= UINT32_MAX; ps->pos++)
    n = 10 * n + (unsigned)(ps->text[ps->pos] - '0');
  if (ps->pos == digits || n == 0 || n > UINT32_MAX)
    return report(ps->diags, here(ps, digits), "expected an iteration count from 1 to %u",
                  (unsigned)UINT32_MAX);
  *max = (unsigned)n;
  return expect(ps, '>', "the iteration count");
}

/* One element; a fixpoint is opened and left open. */
static bool parse_element(parser *ps) {
  size_t start = ps->pos;
  if (!read_name(ps, "a pass name"))
    return false;
  char next = ps->text[ps->pos];
  if (strcmp(ps->name, "fixpoint") == 0) {
    unsigned max;
    return read_fixpoint_limit(ps, &max) && expect(ps, '(', "'fixpoint'") &&
           begin_fixpoint(ps->pipeline, max, ps->diags, here(ps, start));
  }
  if (strcmp(ps->name, "print") == 0 && next == '<') {
    ps->pos++;
    size_t name_at = ps->pos;
    return read_name(ps, "an analysis name") && expect(ps, '>', "the analysis name") &&
           add_print(ps->pipeline, ps->name, ps->diags, here(ps, name_at));
  }
  if (next == '<' || next == '(')
    return report(ps->diags, here(ps, ps->pos), "unexpected '%c' after pass '%s'", next,
                  ps->name);
  return add_pass(ps->pipeline, ps->name, ps->diags, here(ps, start));
}

static bool parse(parser *ps) {
  if (ps->text[0] == '\0')
    return true;
  for (;;) {
    if (!parse_element(ps))
      return false;
    /* After `fixpoint(` its first element follows; `fixpoint()` goes on to the ')', where
     * end_fixpoint names the problem as it does for a pipeline built by hand. */
    const wave_pipeline *p = ps->pipeline;
    if (p->steps[p->num_steps - 1].kind == WAVE_STEP_FIXPOINT && ps->text[ps->pos] != ')')
      continue;
    while (ps->text[ps->pos] == ')') {
      if (!end_fixpoint(ps->pipeline, ps->diags, here(ps, ps->pos)))
        return false;
      ps->pos++;
    }
    char c = ps->text[ps->pos];
    if (c == '\0')
      break;
    if (c != ',')
      return report(ps->diags, here(ps, ps->pos), "expected ',' or ')' before '%c'", c);
    ps->pos++;
  }
  if (ps->pipeline->depth)
    return report(ps->diags, here(ps, ps->pos), "expected ')' to close 'fixpoint('");
  return true;
}

wave_pipeline *wave_pipeline_parse(const wave_pass_registry *registry, const char *text,
                                   wave_diags *diags) {
  wave_pipeline *pipeline = wave_pipeline_create(registry);
  if (!pipeline) {
    report(diags, by_hand, "out of memory building the pipeline");
    return NULL;
  }
  parser ps = {pipeline, text, 0, diags, {0}};
  if (!parse(&ps)) {
    wave_pipeline_destroy(pipeline);
    return NULL;
  }
  return pipeline;
}

/* ---- printing ----------------------------------------------------------------------------- */

char *wave_pipeline_print(const wave_pipeline *pipeline) {
  wave_strbuf b = {0};
  for (size_t i = 0; i < pipeline->num_steps; i++) {
    const wave_pipeline_step *s = &pipeline->steps[i];
    if (i > 0 && s->kind != WAVE_STEP_END && s[-1].kind != WAVE_STEP_FIXPOINT)
      wave_strbuf_puts(&b, ",");
    switch (s->kind) {
    case WAVE_STEP_PASS:
      wave_strbuf_puts(&b, s->pass->name);
      break;
    case WAVE_STEP_PRINT:
      wave_strbuf_printf(&b, "print<%s>",
                         wave_pass_registry_analysis_at(pipeline->registry, s->analysis)->name);
      break;
    case WAVE_STEP_FIXPOINT:
      wave_strbuf_puts(&b, "fixpoint");
      if (s->max_iterations != WAVE_FIXPOINT_DEFAULT_MAX)
        wave_strbuf_printf(&b, "<max=%u>", s->max_iterations);
      wave_strbuf_puts(&b, "(");
      break;
    case WAVE_STEP_END:
      wave_strbuf_puts(&b, ")");
      break;
    }
  }
  return wave_strbuf_take(&b, NULL);
}
