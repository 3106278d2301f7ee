/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a pipeline: every step on the first kernel, then on the next. Kernels are
 * independent (a call never leaves its kernel), so finishing one before starting the next
 * keeps only one kernel's analyses alive and numbers pass runs the way opt-bisect users
 * expect: the order in which they execute.
 *
 * The flat step list is walked with a program counter; a fixpoint keeps a frame on a stack
 * bounded by WAVE_MAX_PIPELINE_DEPTH, and its END jumps back while the last round changed
 * the kernel and rounds remain.
 *
 * Inside a fixpoint a pass is not run again on a kernel it already left unchanged: every
 * change numbers a new version of the kernel, and a step that ran clean on the current
 * version would only do the same again (a pass sees nothing but the kernel, its analyses, the
 * options and the target, all the same as then). So the round after a change runs only the
 * passes that have not yet seen the kernel as it is, and the round that finds nothing new
 * costs the passes from the last change on, not all of them. A pass that changed the kernel
 * itself has not seen its own output and runs again, unless it says it ran to its own fixpoint
 * (wave_pass_result.settled): then its output counts as a kernel it ran clean on, and a round
 * ends the fixpoint as soon as every pass in it has run clean on the kernel as it is.
 *
 * After a pass that changed the kernel, the module's code is laid out afresh when the
 * instructions removed since it last was are a quarter or more of those made
 * (wave_module_compact_pays): later walks then read the survivors packed in text order instead
 * of strewn among the dead, which on a kernel that dce thins by a third saves far more than the
 * copy costs. Analyses point into the code and are dropped first; the kernel's text stays as it
 * was. wave_pipeline_options.keep_code_in_place turns this off.
 *
 * With a profile (wave_pipeline_options.profile), each kernel is matched against it before its
 * first pass, while its lines still hold the code that was measured; a stale profile stops the
 * run with the matcher's error, and passes see the match through wave_pass_profile.
 *
 * verify_each checks, after every pass and in this order: that the IR is valid (later checks
 * would only report its consequences), that a pass answering "no change" left the kernel's
 * text alone (as SPIRV-Tools compares module hashes), and that every analysis it claims to
 * preserve still equals a fresh computation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <time.h>

#include "pm/pm_internal.h"
#include "support/strbuf.h"
#include "waveopt/profile.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void internal_error(wave_pm_run *run, const wave_kernel *kernel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A bug in a pass rather than in the input: reported at the kernel it was running on. */
static void internal_error(wave_pm_run *run, const wave_kernel *kernel, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *message = wave_vformat(fmt, ap);
  va_end(ap);
  wave_module_report(wave_kernel_module(kernel), run->diags, WAVE_SEV_ERROR, NULL,
                     wave_kernel_loc(kernel), "internal error: %s",
                     message ? message : "out of memory");
  wave_mem_free(NULL, message);
}

/* The kernel as text with every detail the printer keeps, or NULL when memory ran out. */
static char *kernel_text(const wave_kernel *kernel) {
  wave_print_options options = {WAVE_DIALECT_DOCS, false, 0};
  wave_strbuf b = {.allocator = wave_module_allocator(wave_kernel_module(kernel))};
  if (wave_print_kernel(kernel, &options, wave_strbuf_write, &b) != 0)
    b.failed = true;
  return wave_strbuf_take(&b, NULL);
}

/* Copies the errors of `from` into the run's diagnostics; its warnings were already reported
 * when the input was verified. */
static void keep_errors(wave_pm_run *run, const wave_diags *from) {
  for (size_t i = 0; i < from->count; i++) {
    const wave_diag *d = &from->items[i];
    if (d->severity != WAVE_SEV_ERROR)
      continue;
    wave_diag_report_copy(run->diags, d);
  }
}

/* The links and normal form first (a broken tree is the pass's fault, reported as an internal
 * error naming it), then the verifier's rules, which a pass must not break either. */
static bool ir_is_valid(wave_pm_run *run, const wave_kernel *kernel, const char *pass) {
  char context[160];
  snprintf(context, sizeof context, "pass %s", pass);
  if (!wave_validate_kernel(kernel, context, run->diags))
    return false;
  wave_diags found;
  wave_diags_init(&found);
  bool valid = wave_verify_module(wave_kernel_module(kernel), &found);
  keep_errors(run, &found);
  wave_diags_free(&found);
  if (!valid)
    internal_error(run, kernel, "kernel '%s' is invalid after pass %s", wave_kernel_name(kernel),
                   pass);
  return valid;
}

static bool verify_after(wave_pm_run *run, wave_kernel *kernel, const char *pass, bool changed,
                         const char *before) {
  if (!ir_is_valid(run, kernel, pass))
    return false;
  if (!changed) {
    char *after = kernel_text(kernel);
    bool same = after && strcmp(before, after) == 0;
    wave_mem_free(wave_module_allocator(wave_kernel_module(kernel)), after);
    if (!same) {
      if (after)
        internal_error(run, kernel, "kernel '%s' changed after pass %s, which reported no change",
                       wave_kernel_name(kernel), pass);
      else
        internal_error(run, kernel, "out of memory comparing kernel '%s' after pass %s",
                       wave_kernel_name(kernel), pass);
      return false;
    }
  }
  return wave_pm_check_preserved(run->am, kernel, pass, run->diags);
}

/* Reports one pass run to opt-bisect; false when the limit says to skip it. */
static bool bisect_allows(wave_pm_run *run, const char *pass, const wave_kernel *kernel) {
  unsigned number = ++run->pass_runs;
  const wave_pipeline_options *o = run->options;
  if (!o->opt_bisect)
    return true;
  bool ran = o->opt_bisect_limit < 0 || number <= (unsigned)o->opt_bisect_limit;
  if (o->on_bisect) {
    char *line =
        wave_format("BISECT: %s pass (%u) %s on kernel %s", ran ? "running" : "NOT running", number,
                    pass, wave_kernel_name(kernel));
    if (!line)
      run->out_of_memory = true;
    wave_bisect_step step = {number, ran, pass, wave_kernel_name(kernel), line ? line : ""};
    o->on_bisect(o->callback_ctx, &step);
    wave_mem_free(NULL, line);
  }
  return ran;
}

/* What one run of a pass did to the kernel. */
typedef enum pass_outcome {
  PASS_FAILED,   /* it, or a check after it, failed */
  PASS_CLEAN,    /* changed nothing */
  PASS_CHANGED,
  PASS_SETTLED,  /* changed it into its own fixpoint (wave_pass_result.settled) */
} pass_outcome;

static pass_outcome run_pass(wave_pm_run *run, const wave_pass_info *pass, wave_kernel *kernel) {
  const wave_pipeline_options *o = run->options;
  if (o->before_pass)
    o->before_pass(o->callback_ctx, pass->name, kernel);
  char *before = NULL;
  if (o->verify_each && !(before = kernel_text(kernel))) {
    internal_error(run, kernel, "out of memory saving kernel '%s' before pass %s",
                   wave_kernel_name(kernel), pass->name);
    return PASS_FAILED;
  }
  size_t errors = run->diags->num_errors;
  wave_pass_context ctx = {run, pass, kernel};
  double start = o->time_passes ? now() : 0;
  wave_pass_result r = pass->run(kernel, run->am, &ctx);
  if (o->time_passes)
    wave_pm_add_timing(run, pass->name, now() - start);
  /* Said even when the pass failed for want of the analysis: its own message may not say why. */
  if (wave_pm_take_out_of_memory(run->am)) {
    r.failed = true;
    wave_module_report(wave_kernel_module(kernel), run->diags, WAVE_SEV_ERROR, NULL,
                       wave_kernel_loc(kernel), "out of memory in pass %s on kernel '%s'",
                       pass->name, wave_kernel_name(kernel));
  }

  bool ok = !r.failed;
  if (r.failed) {
    if (run->diags->num_errors == errors)
      internal_error(run, kernel, "pass %s failed on kernel '%s' without saying why", pass->name,
                     wave_kernel_name(kernel));
    wave_analysis_invalidate(run->am, kernel, WAVE_PRESERVE_NONE);
  } else {
    if (r.changed) {
      wave_analysis_invalidate(run->am, kernel, r.preserved);
      run->result->changed = true;
    }
    ok = !o->verify_each || verify_after(run, kernel, pass->name, r.changed, before);
  }
  wave_mem_free(wave_module_allocator(wave_kernel_module(kernel)), before);
  if (!ok)
    return PASS_FAILED;
  if (o->after_pass)
    o->after_pass(o->callback_ctx, pass->name, kernel, r.changed);
  return !r.changed ? PASS_CLEAN : r.settled ? PASS_SETTLED : PASS_CHANGED;
}

static bool print_analysis(wave_pm_run *run, wave_analysis_id id, wave_kernel *kernel) {
  const wave_analysis_info *info = wave_pass_registry_analysis_at(run->pipeline->registry, id);
  const void *result = wave_analysis_get(run->am, kernel, id);
  if (!result)
    return false;
  if (info->diagnose)
    info->diagnose(result, kernel, true, run->diags);
  const wave_pipeline_options *o = run->options;
  if (!o->print_write)
    return true;
  char *header = wave_format("Printing analysis '%s' for kernel '%s':\n", info->name,
                             wave_kernel_name(kernel));
  bool written = header && o->print_write(o->print_ctx, header, strlen(header)) == 0 &&
                 info->print(result, kernel, o->print_write, o->print_ctx) == 0;
  wave_mem_free(NULL, header);
  if (written)
    return true;
  wave_module_report(wave_kernel_module(kernel), run->diags, WAVE_SEV_ERROR, NULL, (wave_loc){0},
                     "cannot write the output of print<%s>", info->name);
  return false;
}

/* Lays the module's code out afresh when that pays (see above). Running out of memory for the
 * copy leaves the code where it is, which costs only speed. */
static void compact_if_it_pays(wave_pm_run *run, wave_kernel *kernel) {
  wave_module *module = wave_kernel_module(kernel);
  if (run->options->keep_code_in_place || !wave_module_compact_pays(module))
    return;
  wave_foreach_kernel(k, module) wave_analysis_invalidate(run->am, k, WAVE_PRESERVE_NONE);
#ifdef __GLIBC__
  /* The analyses just freed are tens of megabytes on a large kernel, mostly below the size
   * glibc maps on its own, so their pages stay with the process, and the copy below would come
   * on top of them: -O2's peak RSS on a 1M-instruction kernel 232 -> 198 MB. */
  malloc_trim(0);
#endif
  wave_module_compact(module);
}

/* A fixpoint being repeated. */
typedef struct fixpoint_frame {
  size_t begin;       /* its FIXPOINT step */
  unsigned done;      /* rounds started */
  bool changed;       /* in the current round */
  bool ever_changed;
} fixpoint_frame;

/* Whether every pass step between begin and end has run clean on `version`: another round
 * would run none of them. */
static bool settled(const wave_pipeline *p, size_t begin, size_t end, const uint64_t *clean_at,
                    uint64_t version) {
  for (size_t pc = begin; pc < end; pc++)
    if (p->steps[pc].kind == WAVE_STEP_PASS && clean_at[pc] != version)
      return false;
  return true;
}

/* clean_at[pc]: the version of the kernel on which pass step pc last ran without changing
 * it, or left as its own fixpoint; versions start at 1, so 0 means never. */
static bool run_kernel(wave_pm_run *run, wave_kernel *kernel, uint64_t *clean_at) {
  const wave_pipeline *p = run->pipeline;
  fixpoint_frame rounds[WAVE_MAX_PIPELINE_DEPTH];
  unsigned depth = 0;
  uint64_t version = 1;
  memset(clean_at, 0, p->num_steps * sizeof(*clean_at));
  for (size_t pc = 0; pc < p->num_steps; pc++) {
    const wave_pipeline_step *s = &p->steps[pc];
    switch (s->kind) {
    case WAVE_STEP_PASS: {
      /* A run that opt-bisect skips saw nothing: it does not make the step clean. */
      if ((depth && clean_at[pc] == version) || !bisect_allows(run, s->pass->name, kernel))
        break;
      pass_outcome outcome = run_pass(run, s->pass, kernel);
      if (outcome == PASS_FAILED)
        return false;
      if (outcome != PASS_CLEAN) {
        compact_if_it_pays(run, kernel);
        version++;
        if (depth)
          rounds[depth - 1].changed = true;
      }
      if (outcome != PASS_CHANGED)
        clean_at[pc] = version;
      break;
    }
    case WAVE_STEP_PRINT:
      if (!print_analysis(run, s->analysis, kernel))
        return false;
      break;
    case WAVE_STEP_FIXPOINT:
      rounds[depth++] = (fixpoint_frame){pc, 1, false, false};
      break;
    case WAVE_STEP_END: {
      fixpoint_frame *r = &rounds[depth - 1];
      unsigned max = p->steps[r->begin].max_iterations;
      r->ever_changed |= r->changed;
      if (r->changed && settled(p, r->begin, pc, clean_at, version))
        r->changed = false;
      if (r->changed && r->done < max) {
        r->done++;
        r->changed = false;
        pc = r->begin;
        break;
      }
      wave_pm_add_stat(run, "fixpoint", "rounds",
                       "Number of rounds the fixpoints ran, over every kernel", r->done);
      if (r->changed) {
        wave_pm_add_stat(run, "fixpoint", "at-limit",
                         "Number of fixpoints stopped at their limit, the kernel still changing",
                         1);
        wave_module_report(wave_kernel_module(kernel), run->diags, WAVE_SEV_WARNING, "fixpoint",
                           wave_kernel_loc(kernel),
                           "fixpoint<max=%u> reached its limit on kernel '%s' while the "
                           "kernel still changed",
                           max, wave_kernel_name(kernel));
      }
      depth--;
      if (r->ever_changed && depth)
        rounds[depth - 1].changed = true;
      break;
    }
    }
  }
  return true;
}

/* Every option value must belong to a registered pass: a misspelt name would otherwise be
 * ignored without a word. */
static bool option_values_known(wave_pm_run *run) {
  const wave_pipeline_options *o = run->options;
  const wave_pass_registry *registry = run->pipeline->registry;
  bool ok = true;
  for (size_t i = 0; i < o->num_option_values; i++) {
    const char *name = o->option_values[i].name;
    size_t index;
    if (wave_pass_registry_find_option(registry, name, &index))
      continue;
    wave_suggest s;
    wave_suggest_init(&s, name, strlen(name));
    const wave_pass_info *pass;
    for (size_t j = 0; (pass = wave_pass_registry_pass_at(registry, j)); j++)
      for (size_t k = 0; k < pass->num_options; k++)
        wave_suggest_offer(&s, pass->options[k].name);
    char *message = wave_pm_unknown("pass option", &s);
    wave_diag_report(run->diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0, "%s",
                     message ? message : "out of memory");
    wave_mem_free(NULL, message);
    ok = false;
  }
  return ok;
}

/* A pass takes for granted what the verifier checks (operand kinds, registers within
 * .registers, the structure), so a module that fails it is refused before any pass runs. Its
 * warnings were the caller's to see when it verified; only the errors are repeated here. */
static bool module_verifies(const wave_module *module, wave_diags *diags) {
  wave_diags found;
  wave_diags_init(&found);
  bool ok = wave_verify_module(module, &found);
  for (size_t i = 0; !ok && i < found.count; i++)
    if (found.items[i].severity == WAVE_SEV_ERROR)
      wave_diag_report_copy(diags, &found.items[i]);
  if (!ok)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0,
                     "the module does not verify: no pass was run");
  wave_diags_free(&found);
  return ok;
}

bool wave_pipeline_run(const wave_pipeline *pipeline, wave_module *module,
                       const wave_pipeline_options *options, wave_pipeline_result *result,
                       wave_diags *diags) {
  static const wave_pipeline_options defaults = {0};
  wave_pm_run run = {pipeline, options ? options : &defaults, NULL, result, diags, NULL, 0, false,
                     NULL};
  run.target = run.options->target ? run.options->target : wave_target_default();
  if (pipeline->depth) {
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0,
                     "the pipeline has a fixpoint that is not closed");
    return false;
  }
  if (!option_values_known(&run) ||
      (!run.options->assume_verified && !module_verifies(module, diags)))
    return false;
  run.am = wave_analysis_manager_create(pipeline->registry, run.target, diags);
  uint64_t *clean_at =
      wave_mem_calloc(wave_module_allocator(module), pipeline->num_steps + 1, sizeof(*clean_at));
  bool ok = run.am && clean_at;
  if (ok)
    wave_analysis_manager_set_assume_divergent(run.am, run.options->assume_divergent);
  for (wave_kernel *k = wave_module_first_kernel(module); ok && k; k = wave_kernel_next(k)) {
    size_t errors = diags->num_errors;
    run.profile = run.options->profile ? wave_profile_match(run.options->profile, k, diags) : NULL;
    ok = diags->num_errors == errors && run_kernel(&run, k, clean_at);
    wave_analysis_invalidate(run.am, k, WAVE_PRESERVE_NONE);
  }
  wave_analysis_manager_destroy(run.am);
  wave_mem_free(wave_module_allocator(module), clean_at);
  if (!run.am || !clean_at || run.out_of_memory) {
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0,
                     "out of memory running the pipeline");
    ok = false;
  }
  return ok;
}
