/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass manager, after LLVM's new pass manager, Mesa NIR and SPIRV-Tools.
 *
 * A pass runs on one kernel and answers with one value: whether it changed anything and which
 * analyses it kept valid (`return wave_pass_done(progress, WAVE_PRESERVE_NONE);`, as NIR's
 * nir_progress). Analyses are computed on demand, cached per kernel, and dropped when a pass
 * that changed the kernel did not preserve them, as SPIRV-Tools' Pass::Run does; under
 * verify-each every claim is checked against a fresh computation.
 *
 * Passes and analyses live in a registry value: wave_pass_registry_create() fills one with the
 * built-ins, and an embedder adds its own to it. A pipeline is a string over the registry's
 * names (`simplify-cfg,fixpoint<max=4>(a,b),print<liveness>`) or is built through the API.
 * Running one returns everything as values (diagnostics, remarks, statistics, timings) and
 * calls back for what must interleave with the run (IR dumps, opt-bisect lines). Nothing here
 * prints. Threads may share a complete registry and its pipelines and run them on distinct
 * modules at once (docs/threads.md).
 */
#ifndef WAVEOPT_PASS_H
#define WAVEOPT_PASS_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"
#include "waveopt/target.h"
#include "waveopt/waveopt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wave_pass_registry wave_pass_registry;
typedef struct wave_analysis_manager wave_analysis_manager;
typedef struct wave_pass_context wave_pass_context;
typedef struct wave_pipeline wave_pipeline;

/* ---- analyses ----------------------------------------------------------------------------- */

/* An analysis is known by the index its registry gave it; -1 means none. Built-in analyses
 * come first, in the order of analysis/analyses.def. */
typedef int wave_analysis_id;
#define WAVE_MAX_ANALYSES 64

/* The set of analyses a pass keeps valid: bit `id` per analysis. */
typedef uint64_t wave_preserved;
#define WAVE_PRESERVE_NONE ((wave_preserved)0)
#define WAVE_PRESERVE_ALL (~(wave_preserved)0)
#define WAVE_PRESERVE(id) ((wave_preserved)1 << (id))

typedef struct wave_analysis_info {
  const char *name;  /* kebab-case; `print<name>` in a pipeline */
  const char *help;  /* one line */
  /* The result for `kernel`, or NULL after reporting why in diags. May ask `am` for other
   * analyses of the same kernel: the result is then dropped whenever one of those is. */
  void *(*compute)(wave_kernel *kernel, wave_analysis_manager *am, wave_diags *diags);
  void (*destroy)(void *result);
  /* Whether two results of the same kernel agree; NULL: a preservation claim is not checked. */
  bool (*equal)(const void *a, const void *b);
  /* Writes the result readably for `print<name>`; returns 0, or non-zero when write failed. */
  int (*print)(const void *result, const wave_kernel *kernel, wave_write_fn write, void *ctx);
  /* Reports what the result finds wrong with the kernel (a divergent barrier, a possible SIMT
   * deadlock) in diags; NULL for an analysis that only computes facts. `asked` is true when the
   * user named the analysis (print<name>, waveopt -analyze=name): a defect the analysis exists
   * to find is then an error. The lint pass calls it with asked false inside optimization
   * pipelines, which do not refuse kernels: every finding is then a warning. */
  void (*diagnose)(const void *result, const wave_kernel *kernel, bool asked, wave_diags *diags);
} wave_analysis_info;

/* A cache of analysis results for the analyses of one registry. A pipeline run makes its own;
 * an embedder may make one to compute analyses outside any pipeline. */
WAVE_API wave_analysis_manager *wave_analysis_manager_create(const wave_pass_registry *registry,
                                                             const wave_target *target,
                                                             wave_diags *diags);
WAVE_API void wave_analysis_manager_destroy(wave_analysis_manager *am);
/* The target the results are for (passes and analyses may read its wave widths). */
WAVE_API const wave_target *wave_analysis_manager_target(const wave_analysis_manager *am);
/* The registry whose analyses the manager computes. */
WAVE_API const wave_pass_registry *wave_analysis_manager_registry(const wave_analysis_manager *am);
/* Registers the host presets differently per lane, a fact of the launch that analyses read
 * (uniformity: divergent from the kernel's entry on); none unless set. A pipeline run sets
 * them from wave_pipeline_options.assume_divergent. */
WAVE_API void wave_analysis_manager_set_assume_divergent(wave_analysis_manager *am,
                                                         wave_regset regs);
WAVE_API wave_regset wave_analysis_manager_assume_divergent(const wave_analysis_manager *am);

/* The cached result, computing it first when there is none. NULL when the computation failed
 * (diagnostics say why), when id is not registered, or when the analysis needs itself.
 *
 * A result describes the kernel as it was when computed, and the manager cannot see the
 * kernel change: after changing it, call wave_analysis_invalidate before asking again, or
 * the same result comes back. A result kept past a change stays safe to read, though not
 * right: asked about code it never saw, it gives the conservative answer (every register
 * live, every value divergent), and code removed since stays in the module's memory until
 * the module is compacted (only a pipeline run does that) or destroyed. */
WAVE_API const void *wave_analysis_get(wave_analysis_manager *am, wave_kernel *kernel,
                                       wave_analysis_id id);
/* Drops the results for `kernel` that `preserved` does not name, and every result computed
 * from a dropped one. A pass that changed the kernel calls it (the pipeline does, after the
 * pass) before asking for more: what the manager keeps describes the kernel as it was. */
WAVE_API void wave_analysis_invalidate(wave_analysis_manager *am, const wave_kernel *kernel,
                                       wave_preserved preserved);

/* ---- passes ------------------------------------------------------------------------------- */

typedef struct wave_pass_result {
  bool changed;
  bool failed;               /* an error was reported; the pipeline stops */
  wave_preserved preserved;  /* meaningful when changed */
  /* Meaningful when changed: the pass ran to its own fixpoint, so a second run on its output
   * would change nothing, and a fixpoint need not run it again until another pass changes the
   * kernel. A false claim costs optimization, not correctness: the fixpoint stops short. */
  bool settled;
} wave_pass_result;

/* The last line of a pass: a pass that changed nothing preserves everything. */
static inline wave_pass_result wave_pass_done(bool changed, wave_preserved preserved) {
  wave_pass_result r = {changed, false, changed ? preserved : WAVE_PRESERVE_ALL, false};
  return r;
}

/* The last line of a pass whose output is its own fixpoint (wave_pass_result.settled). */
static inline wave_pass_result wave_pass_done_settled(bool changed, wave_preserved preserved) {
  wave_pass_result r = wave_pass_done(changed, preserved);
  r.settled = changed;
  return r;
}

/* An option a pass declares; its value is set with wave_pipeline_options.option_values (the
 * tools' `-NAME=VALUE`), so the name is unique among the registry's passes. */
typedef struct wave_pass_option_info {
  const char *name;   /* kebab-case, usually prefixed with the pass name: `if-to-select-limit` */
  const char *help;
  int64_t default_value;
} wave_pass_option_info;

typedef struct wave_pass_info {
  const char *name;   /* kebab-case; the file passes/<name with '_'>.c */
  const char *help;   /* one line */
  const wave_pass_option_info *options;
  size_t num_options;
  wave_pass_result (*run)(wave_kernel *kernel, wave_analysis_manager *am, wave_pass_context *ctx);
} wave_pass_info;

/* What a running pass may ask of its context. */
WAVE_API const wave_target *wave_pass_target(const wave_pass_context *ctx);
/* The value of the pass's own option options[index]. */
WAVE_API int64_t wave_pass_option(const wave_pass_context *ctx, size_t index);
WAVE_API wave_diags *wave_pass_diags(wave_pass_context *ctx);
/* How many GPRs the kernel may have once the pass has taken its scratch registers: the
 * pipeline's max_registers, never less than the kernel's own .registers. */
WAVE_API uint32_t wave_pass_max_registers(const wave_pass_context *ctx, const wave_kernel *kernel);
/* The same for a rewrite without which the target runs the kernel wrongly (legalize): the
 * pipeline's max_registers when it sets one, else every encodable GPR. A kernel with fewer
 * waves resident is better than one that computes the wrong result. */
WAVE_API uint32_t wave_pass_max_registers_to_legalize(const wave_pass_context *ctx,
                                                      const wave_kernel *kernel);
/* The divergence-stack depth to keep within, 0 for no limit (wave_pipeline_options). */
WAVE_API uint32_t wave_pass_max_divergence_depth(const wave_pass_context *ctx);
/* The measured profile of the kernel the pass runs on, or NULL when the run has none for it.
 * Lines are those of the input: passes keep wave_loc on what they keep. */
WAVE_API const struct wave_profile_kernel *wave_pass_profile(const wave_pass_context *ctx);
/* Reports an error at loc (quoting its source line) and returns the failed result. */
WAVE_API wave_pass_result wave_pass_fail(wave_pass_context *ctx, wave_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds n to the pass's counter `name` ("blocks-merged"), summed over kernels and runs. */
WAVE_API void wave_pass_stat_add(wave_pass_context *ctx, const char *name,
                                 const char *description, uint64_t n);

typedef enum wave_remark_kind {
  WAVE_REMARK_PASSED,    /* a transformation was done */
  WAVE_REMARK_MISSED,    /* one was not, and why */
  WAVE_REMARK_ANALYSIS,  /* a fact that explains a decision */
} wave_remark_kind;

/* Whether a remark of this kind from the running pass would be kept: a pass may skip the work
 * of composing one that nobody asked for. */
WAVE_API bool wave_remark_enabled(const wave_pass_context *ctx, wave_remark_kind kind);
/* Remarks: `name` is kebab-case and identifies the kind of event ("if-converted"). A loc
 * without a file is in the module's file. */
WAVE_API void wave_remark_passed(wave_pass_context *ctx, const char *name, wave_loc loc,
                                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
WAVE_API void wave_remark_missed(wave_pass_context *ctx, const char *name, wave_loc loc,
                                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
WAVE_API void wave_remark_analysis(wave_pass_context *ctx, const char *name, wave_loc loc,
                                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- the registry ------------------------------------------------------------------------- */

/* A registry holding the built-in passes (passes/passes.def) and analyses
 * (analysis/analyses.def); NULL when memory ran out. */
WAVE_API wave_pass_registry *wave_pass_registry_create(void);
/* The same, taking its memory, and its pipelines', from `allocator` (waveopt/alloc.h). */
WAVE_API wave_pass_registry *wave_pass_registry_create_with(const wave_allocator *allocator);
WAVE_API void wave_pass_registry_destroy(wave_pass_registry *registry);

/* Adds a pass or an analysis of one's own. `info` is not copied: it must outlive the registry.
 * Fails, saying why in diags, on a malformed or taken name (or option name), or when memory
 * runs out; an analysis also fails past WAVE_MAX_ANALYSES. */
WAVE_API bool wave_pass_registry_add_pass(wave_pass_registry *registry, const wave_pass_info *info,
                                          wave_diags *diags);
WAVE_API wave_analysis_id wave_pass_registry_add_analysis(wave_pass_registry *registry,
                                                          const wave_analysis_info *info,
                                                          wave_diags *diags);

WAVE_API const wave_pass_info *wave_pass_registry_find_pass(const wave_pass_registry *registry,
                                                            const char *name);
WAVE_API wave_analysis_id wave_pass_registry_find_analysis(const wave_pass_registry *registry,
                                                           const char *name);
/* The pass declaring option `name`, with the option's index in *index; NULL if none does. */
WAVE_API const wave_pass_info *wave_pass_registry_find_option(const wave_pass_registry *registry,
                                                              const char *name, size_t *index);

/* Iteration in registration order: NULL past the last. */
WAVE_API const wave_pass_info *wave_pass_registry_pass_at(const wave_pass_registry *registry,
                                                          size_t index);
WAVE_API const wave_analysis_info *wave_pass_registry_analysis_at(
    const wave_pass_registry *registry, wave_analysis_id id);

/* ---- pass plugins ------------------------------------------------------------------------- */

/* A pass plugin is a shared object that adds passes and analyses to a registry when it is
 * loaded (waveopt -load-pass-plugin=FILE), as LLVM's pass plugins do. It defines one function
 * with C linkage, wave_get_pass_plugin_info, returning a pointer to its static description:
 *
 *   static bool add(wave_pass_registry *r, wave_diags *d) {
 *     return wave_pass_registry_add_pass(r, &my_pass, d);
 *   }
 *   static const wave_pass_plugin_info info = {WAVE_PASS_PLUGIN_API_VERSION, "mine", "1.0", add};
 *   const wave_pass_plugin_info *wave_get_pass_plugin_info(void) { return &info; }
 *
 * The library reads api_version before anything else, so a plugin built against another
 * version of this description is refused without reading the rest. The version changes
 * whenever wave_pass_info, wave_analysis_info or this struct change shape. */
#define WAVE_PASS_PLUGIN_API_VERSION 1u

typedef struct wave_pass_plugin_info {
  uint32_t api_version; /* WAVE_PASS_PLUGIN_API_VERSION as the plugin saw it */
  const char *name;     /* for diagnostics */
  const char *version;
  /* Adds the plugin's passes and analyses; false after saying why in diags. */
  bool (*register_passes)(wave_pass_registry *registry, wave_diags *diags);
} wave_pass_plugin_info;

/* What a plugin defines; the library only looks it up by name. */
WAVE_API const wave_pass_plugin_info *wave_get_pass_plugin_info(void);

/* Loads the shared object at path and lets it register its passes and analyses. The registry
 * keeps the object loaded until it is destroyed (its passes live there). False, with the
 * registry as it was and the object unloaded, when the file cannot be loaded, lacks the entry
 * point, was built for another WAVE_PASS_PLUGIN_API_VERSION, or its registration fails (a name
 * taken twice, say); diags says which, naming the file. */
WAVE_API bool wave_pass_registry_load_plugin(wave_pass_registry *registry, const char *path,
                                             wave_diags *diags);

/* ---- pipelines ---------------------------------------------------------------------------- */

/* Nesting of fixpoint(...) beyond this is refused. */
#define WAVE_MAX_PIPELINE_DEPTH 16
/* fixpoint(...) without <max=N> repeats its passes at most this often. */
#define WAVE_FIXPOINT_DEFAULT_MAX 8

/* Parses a pipeline:
 *   pipeline := element (',' element)*
 *   element  := pass-name | 'print<' analysis-name '>'
 *             | 'fixpoint' ['<max=' N '>'] '(' pipeline ')'
 * print<NAME> prints the analysis and reports what it diagnoses (asked: errors included).
 * The empty string is the empty pipeline. NULL after reporting the first problem in diags, at
 * its column of `text` (an unknown name comes with the nearest registered one). The pipeline
 * refers to the registry, which must outlive it. */
WAVE_API wave_pipeline *wave_pipeline_parse(const wave_pass_registry *registry, const char *text,
                                            wave_diags *diags);
/* The pipeline text of -O<level> (0..3), or NULL for other levels. The text may name passes
 * that a registry lacks; parsing it then fails like any unknown name. */
WAVE_API const char *wave_pipeline_for_level(unsigned level);

/* Building by hand: the same elements, appended in order. Each call fails (saying why in
 * diags) on an unknown name, a fixpoint nested too deeply or closed without being opened or
 * without passes, and when memory runs out. */
WAVE_API wave_pipeline *wave_pipeline_create(const wave_pass_registry *registry);
WAVE_API bool wave_pipeline_add_pass(wave_pipeline *pipeline, const char *name, wave_diags *diags);
WAVE_API bool wave_pipeline_add_print(wave_pipeline *pipeline, const char *analysis,
                                      wave_diags *diags);
/* max_iterations >= 1. */
WAVE_API bool wave_pipeline_begin_fixpoint(wave_pipeline *pipeline, unsigned max_iterations,
                                           wave_diags *diags);
WAVE_API bool wave_pipeline_end_fixpoint(wave_pipeline *pipeline, wave_diags *diags);
WAVE_API void wave_pipeline_destroy(wave_pipeline *pipeline);

/* The text that parses back to this pipeline (malloc'd), or NULL when memory ran out. A
 * fixpoint still open is printed open. */
WAVE_API char *wave_pipeline_print(const wave_pipeline *pipeline);

/* ---- running ------------------------------------------------------------------------------ */

typedef struct wave_pass_option_value {
  const char *name;
  int64_t value;
} wave_pass_option_value;

/* One pass run under opt-bisect, as LLVM numbers and words it. Valid during the callback. */
typedef struct wave_bisect_step {
  unsigned number;      /* pass runs counted from 1 in execution order */
  bool ran;
  const char *pass;
  const char *kernel;
  const char *line;     /* "BISECT: running pass (N) NAME on kernel K" or "... NOT running ..." */
} wave_bisect_step;

/* Zero-initialised options run every pass with no checks and collect no remarks. */
typedef struct wave_pipeline_options {
  const wave_target *target;    /* NULL: wave_target_default() */
  /* Registers the host presets differently per lane (waveopt -assume-divergent). */
  wave_regset assume_divergent;
  /* After every pass: validate the IR, check a "no change" answer against the kernel's text,
   * and recompute every analysis the pass claims to preserve. A failure is an
   * "internal error: ... after pass NAME" and stops the run. */
  bool verify_each;
  bool time_passes;             /* fill the result's timings */
  /* Only the first opt_bisect_limit pass runs execute; a negative limit executes all. Every
   * pass run (executed or not) is reported to on_bisect. */
  bool opt_bisect;
  int opt_bisect_limit;
  /* Scratch registers: passes may grow .registers up to this many GPRs (waveopt
   * -max-registers); 0 keeps every kernel's own count, so nothing grows unasked. */
  uint32_t max_registers;
  /* The divergence-stack depth passes keep within (waveopt -max-divergence-depth); 0 takes the
   * target's (wave_target.divergence_stack, itself 0 where the target has no limit). */
  uint32_t max_divergence_depth;
  /* Overrides of declared pass options; a name no registered pass declares is an error. */
  const wave_pass_option_value *option_values;
  size_t num_option_values;
  /* A divergence profile (waveopt/profile.h, waveopt -profile-use): each kernel it has is
   * matched against the kernel's code before the first pass (a stale one is an error that
   * stops the run), and passes read it through wave_pass_profile. */
  const struct wave_profile *profile;
  /* Between fixpoint rounds the manager may lay the module's code out afresh
   * (wave_module_compact), which moves every instruction and node; set this to keep pointers
   * into the code valid across the run, at some cost in speed on large kernels. */
  bool keep_code_in_place;
  /* The caller verified the module (wave_verify_module) since it last changed it. Unset, the
   * run verifies it first and refuses one that fails, reporting the verifier's errors and
   * running nothing: passes take for granted what the verifier checks. */
  bool assume_verified;

  /* Callbacks, each optional, all given callback_ctx. The kernel may be printed in them. */
  void *callback_ctx;
  void (*before_pass)(void *ctx, const char *pass, const wave_kernel *kernel);
  /* After a pass that ran and did not fail. */
  void (*after_pass)(void *ctx, const char *pass, const wave_kernel *kernel, bool changed);
  void (*on_bisect)(void *ctx, const wave_bisect_step *step);
  /* Whether to keep remarks of this kind from this pass; NULL keeps none. */
  bool (*remark_filter)(void *ctx, wave_remark_kind kind, const char *pass);
  /* Receives the output of print<NAME>; NULL discards it. */
  wave_write_fn print_write;
  void *print_ctx;
} wave_pipeline_options;

typedef struct wave_remark {
  wave_remark_kind kind;
  char *pass;
  char *name;
  char *kernel;
  char *file;      /* may be NULL */
  uint32_t line, col;
  char *message;
} wave_remark;

typedef struct wave_pass_stat {
  char *pass;
  char *name;
  char *description;
  uint64_t value;
} wave_pass_stat;

typedef struct wave_pass_timing {
  char *pass;
  double seconds;   /* wall time, summed over every run of the pass */
  unsigned runs;
} wave_pass_timing;

/* What a run returns besides diagnostics. Zero-initialise before the first run; a second run
 * appends to it. Strings are owned copies. */
typedef struct wave_pipeline_result {
  bool changed;
  wave_remark *remarks;
  size_t num_remarks;
  wave_pass_stat *stats;       /* in the order each counter was first added */
  size_t num_stats;
  wave_pass_timing *timings;   /* in the order each pass first ran */
  size_t num_timings;
} wave_pipeline_result;

/* Runs the pipeline on every kernel of the module in turn; options may be NULL (all zero).
 * Returns false when the module does not verify (unless options->assume_verified), a pass
 * failed, a check of verify_each failed, an option value was unknown, the pipeline has an open
 * fixpoint, or memory ran out: diags says which. A fixpoint
 * that still changes the kernel at its last iteration is a warning (-Wfixpoint). Inside a
 * fixpoint a pass is not run again on a kernel it already left unchanged: a pass must answer
 * from the kernel, its analyses, its options and the target alone. After the run, pointers to
 * the module's kernels and regions still hold; pointers to instructions and nodes taken before
 * it do not (passes remove code, and the code may be laid out afresh) unless
 * options->keep_code_in_place was set, and then only for code no pass removed. A run that
 * fails because memory ran out leaves the module valid and computing what it did, with the
 * passes before the failure applied (tests/unit/test_oom.c). */
WAVE_API bool wave_pipeline_run(const wave_pipeline *pipeline, wave_module *module,
                                const wave_pipeline_options *options,
                                wave_pipeline_result *result, wave_diags *diags);
WAVE_API void wave_pipeline_result_free(wave_pipeline_result *result);

WAVE_API const char *wave_remark_kind_name(wave_remark_kind kind);  /* "passed" ... */
/* One JSON object, no newline (malloc'd; NULL when memory ran out), with the keys pass, name,
 * kernel, file, line, column, message and kind. */
WAVE_API char *wave_remark_format_json(const wave_remark *remark);

/* ---- IR dumps ----------------------------------------------------------------------------- */

/* Prints one kernel as wave_print_module prints it within its module. */
WAVE_API int wave_print_kernel(const wave_kernel *kernel, const wave_print_options *options,
                               wave_write_fn write, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
