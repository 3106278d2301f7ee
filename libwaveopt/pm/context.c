/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a running pass can reach through its context (its target, its option values, the
 * diagnostics list, statistics and remarks), and the result lists those fill. Everything a
 * pass hands over is copied, so a result stays valid after the registry, the pipeline and the
 * module are gone. A list that cannot grow leaves the run marked out of memory instead of
 * failing the pass that was only reporting.
 *
 * The strings of one record share one allocation, owned by its first field (the pass name),
 * so a record is either stored whole or not at all. The result lists keep no capacity field:
 * each is grown to the next power of two whenever its count reaches one, so the capacity
 * follows from the count.
 */
#include <stdlib.h>
#include <string.h>

#include "pm/pm_internal.h"
#include "support/strbuf.h"

/* Room for one more item in a list of `count` items of `size` bytes; false when memory ran
 * out (the run is marked). The result's remarks and statistics are reports, whose memory is
 * malloc's as the diagnostics' is (waveopt/alloc.h). */
static bool make_room(wave_pm_run *run, void **items, size_t count, size_t size) {
  if (count && (count & (count - 1)))
    return true;
  void *bigger = wave_mem_realloc(NULL, *items, (count ? 2 * count : 4) * size);
  if (!bigger) {
    run->out_of_memory = true;
    return false;
  }
  *items = bigger;
  return true;
}

/* Copies the n strings in[i] into one allocation and points *out[i] at the copies (NULL stays
 * NULL); in[0] is never NULL, so *out[0] owns the block. False when memory ran out (the run is
 * marked). */
static bool pack(wave_pm_run *run, size_t n, const char *const *in, char **const *out) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += in[i] ? strlen(in[i]) + 1 : 0;
  char *block = wave_mem_alloc(NULL, total);
  if (!block) {
    run->out_of_memory = true;
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    *out[i] = in[i] ? block : NULL;
    if (in[i]) {
      size_t len = strlen(in[i]) + 1;
      memcpy(block, in[i], len);
      block += len;
    }
  }
  return true;
}

const wave_target *wave_pass_target(const wave_pass_context *ctx) { return ctx->run->target; }

uint32_t wave_pass_max_registers(const wave_pass_context *ctx, const wave_kernel *kernel) {
  uint32_t limit = ctx->run->options->max_registers;
  return limit > wave_kernel_registers(kernel) ? limit : wave_kernel_registers(kernel);
}

uint32_t wave_pass_max_registers_to_legalize(const wave_pass_context *ctx,
                                             const wave_kernel *kernel) {
  return ctx->run->options->max_registers ? wave_pass_max_registers(ctx, kernel)
                                          : WAVE_MAX_GPR + 1;
}

uint32_t wave_pass_max_divergence_depth(const wave_pass_context *ctx) {
  uint32_t limit = ctx->run->options->max_divergence_depth;
  return limit ? limit : ctx->run->target->divergence_stack;
}

const struct wave_profile_kernel *wave_pass_profile(const wave_pass_context *ctx) {
  return ctx->run->profile;
}

int64_t wave_pass_option(const wave_pass_context *ctx, size_t index) {
  const wave_pass_option_info *option = &ctx->pass->options[index];
  const wave_pipeline_options *o = ctx->run->options;
  int64_t value = option->default_value;
  for (size_t i = 0; i < o->num_option_values; i++)
    if (strcmp(o->option_values[i].name, option->name) == 0)
      value = o->option_values[i].value;
  return value;
}

wave_diags *wave_pass_diags(wave_pass_context *ctx) { return ctx->run->diags; }

wave_pass_result wave_pass_fail(wave_pass_context *ctx, wave_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = wave_vformat(fmt, ap);
  va_end(ap);
  wave_module_report(wave_kernel_module(ctx->kernel), ctx->run->diags, WAVE_SEV_ERROR, NULL, loc,
                     "%s", message ? message : "out of memory");
  wave_mem_free(NULL, message);
  wave_pass_result failed = {false, true, WAVE_PRESERVE_NONE, false};
  return failed;
}

void wave_pm_add_stat(wave_pm_run *run, const char *pass, const char *name,
                      const char *description, uint64_t n) {
  wave_pipeline_result *r = run->result;
  for (size_t i = 0; i < r->num_stats; i++)
    if (strcmp(r->stats[i].pass, pass) == 0 && strcmp(r->stats[i].name, name) == 0) {
      r->stats[i].value += n;
      return;
    }
  if (!make_room(run, (void **)&r->stats, r->num_stats, sizeof(*r->stats)))
    return;
  wave_pass_stat *stat = &r->stats[r->num_stats];
  stat->value = n;
  if (pack(run, 3, (const char *[]){pass, name, description},
           (char **[]){&stat->pass, &stat->name, &stat->description}))
    r->num_stats++;
}

void wave_pass_stat_add(wave_pass_context *ctx, const char *name, const char *description,
                        uint64_t n) {
  wave_pm_add_stat(ctx->run, ctx->pass->name, name, description, n);
}

void wave_pm_add_timing(wave_pm_run *run, const char *pass, double seconds) {
  wave_pipeline_result *r = run->result;
  for (size_t i = 0; i < r->num_timings; i++)
    if (strcmp(r->timings[i].pass, pass) == 0) {
      r->timings[i].seconds += seconds;
      r->timings[i].runs++;
      return;
    }
  if (!make_room(run, (void **)&r->timings, r->num_timings, sizeof(*r->timings)))
    return;
  wave_pass_timing *timing = &r->timings[r->num_timings];
  timing->seconds = seconds;
  timing->runs = 1;
  if (pack(run, 1, (const char *[]){pass}, (char **[]){&timing->pass}))
    r->num_timings++;
}

/* ---- remarks ------------------------------------------------------------------------------ */

bool wave_remark_enabled(const wave_pass_context *ctx, wave_remark_kind kind) {
  const wave_pipeline_options *o = ctx->run->options;
  return o->remark_filter && o->remark_filter(o->callback_ctx, kind, ctx->pass->name);
}

static void remark(wave_pass_context *ctx, wave_remark_kind kind, const char *name, wave_loc loc,
                   const char *fmt, va_list ap) {
  if (!wave_remark_enabled(ctx, kind))
    return;
  wave_pm_run *run = ctx->run;
  wave_pipeline_result *r = run->result;
  char *message = wave_vformat(fmt, ap);
  if (!message)
    run->out_of_memory = true;
  else if (make_room(run, (void **)&r->remarks, r->num_remarks, sizeof(*r->remarks))) {
    wave_remark *m = &r->remarks[r->num_remarks];
    m->kind = kind;
    m->line = loc.line;
    m->col = loc.col;
    const char *file = loc.file ? loc.file : wave_module_file(wave_kernel_module(ctx->kernel));
    if (pack(run, 5,
             (const char *[]){ctx->pass->name, name, wave_kernel_name(ctx->kernel), file, message},
             (char **[]){&m->pass, &m->name, &m->kernel, &m->file, &m->message}))
      r->num_remarks++;
  }
  wave_mem_free(NULL, message);
}

#define DEFINE_REMARK(fn, kind)                                                           \
  void fn(wave_pass_context *ctx, const char *name, wave_loc loc, const char *fmt, ...) { \
    va_list ap;                                                                           \
    va_start(ap, fmt);                                                                    \
    remark(ctx, kind, name, loc, fmt, ap);                                                \
    va_end(ap);                                                                           \
  }
DEFINE_REMARK(wave_remark_passed, WAVE_REMARK_PASSED)
DEFINE_REMARK(wave_remark_missed, WAVE_REMARK_MISSED)
DEFINE_REMARK(wave_remark_analysis, WAVE_REMARK_ANALYSIS)

const char *wave_remark_kind_name(wave_remark_kind kind) {
  return kind == WAVE_REMARK_PASSED ? "passed" : kind == WAVE_REMARK_MISSED ? "missed" : "analysis";
}

char *wave_remark_format_json(const wave_remark *remark) {
  wave_strbuf b = {0};
  wave_strbuf_puts(&b, "{\"pass\":");
  wave_strbuf_json_string(&b, remark->pass);
  wave_strbuf_puts(&b, ",\"name\":");
  wave_strbuf_json_string(&b, remark->name);
  wave_strbuf_puts(&b, ",\"kernel\":");
  wave_strbuf_json_string(&b, remark->kernel);
  wave_strbuf_puts(&b, ",\"file\":");
  if (remark->file)
    wave_strbuf_json_string(&b, remark->file);
  else
    wave_strbuf_puts(&b, "null");
  wave_strbuf_printf(&b, ",\"line\":%u,\"column\":%u,\"message\":", remark->line, remark->col);
  wave_strbuf_json_string(&b, remark->message);
  wave_strbuf_printf(&b, ",\"kind\":\"%s\"}", wave_remark_kind_name(remark->kind));
  return wave_strbuf_take(&b, NULL);
}

/* ---- the result --------------------------------------------------------------------------- */

void wave_pipeline_result_free(wave_pipeline_result *result) {
  for (size_t i = 0; i < result->num_remarks; i++)
    wave_mem_free(NULL, result->remarks[i].pass);
  for (size_t i = 0; i < result->num_stats; i++)
    wave_mem_free(NULL, result->stats[i].pass);
  for (size_t i = 0; i < result->num_timings; i++)
    wave_mem_free(NULL, result->timings[i].pass);
  wave_mem_free(NULL, result->remarks);
  wave_mem_free(NULL, result->stats);
  wave_mem_free(NULL, result->timings);
  memset(result, 0, sizeof(*result));
}
