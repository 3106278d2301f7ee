/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the Criterion unit tests. */
#ifndef WAVE_TEST_UTIL_H
#define WAVE_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../harness/difftest.h"
#include "waveopt/edit.h"
#include "waveopt/gen.h"
#include "waveopt/interp.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

/* ---- the kernel corpus: the .wave files of tests/corpus ---- */

#define TU_CORPUS_DIR WAVE_SRCDIR "/tests/corpus"
#define TU_MAX_CORPUS_FILES 128

/* A parameter of per-file tests: a plain array, so the test workers may copy it freely. */
typedef struct tu_corpus_file {
  char name[64];
} tu_corpus_file;

/* The *.wave files of the corpus, sorted by name; at most max of them. */
size_t tu_list_corpus(tu_corpus_file *files, size_t max);
/* The path of a corpus file; malloc'd. */
char *tu_corpus_path(const char *name);
/* The corpus file `name`, parsed and verified (the test fails otherwise). */
wave_module *tu_parse_corpus(const char *name);

/* ---- suites that run passes ---- */

/* Declares the Criterion suite `name` with a `registry` of every pass and a `diags` list, made
 * before each of its tests and freed after it. */
#define TU_PASS_SUITE(name)                                                                     \
  static wave_pass_registry *registry;                                                          \
  static wave_diags diags;                                                                      \
  static void tu_suite_setup(void) {                                                            \
    wave_diags_init(&diags);                                                                    \
    registry = wave_pass_registry_create();                                                     \
    cr_assert_not_null(registry);                                                               \
  }                                                                                             \
  static void tu_suite_teardown(void) {                                                         \
    wave_pass_registry_destroy(registry);                                                       \
    wave_diags_free(&diags);                                                                    \
  }                                                                                             \
  TestSuite(name, .init = tu_suite_setup, .fini = tu_suite_teardown)

/* A remark filter that lets every remark through (wave_pipeline_options.remark_filter). */
bool tu_all_remarks(void *ctx, wave_remark_kind kind, const char *pass);

/* ---- diagnostics, parsing and building ---- */

/* Logs every diagnostic of d, so that a failed assertion shows what the library said. */
void tu_log_diags(const wave_diags *d);

/* Parses text that must be accepted (failing the test otherwise); `quiet`: not even a warning
 * or note may be reported. `file` names the text in diagnostics. */
wave_module *tu_parse_ok(const char *text, const char *file, bool quiet);

/* A new module "deep.wave" with one kernel "k" of 8 registers, in *m and *k, and a builder at
 * the end of the kernel's body: the start of the tests that build nests 100 000 deep. */
wave_builder tu_deep_builder(wave_module **m, wave_kernel **k);

/* Appends an unguarded instruction to block, failing the test when it cannot be created. */
wave_instr *tu_add(wave_module *m, wave_node *block, wave_opcode op, unsigned n,
                   const wave_operand *ops);

/* Appends `mov_imm r1, tag` at the end of list (joining its tail block): instructions that
 * tu_shape can tell apart. */
/* Gives instr the location and comments a parsed statement would have; NULL leaves one out. */
void tu_set_origin(wave_instr *instr, wave_loc loc, const char *leading, const char *comment);
/* The same for one line of an if or loop. */
void tu_set_node_origin(wave_node *node, wave_node_line line, wave_loc loc, const char *leading,
                        const char *comment);
/* Replaces one field of operand i, as a corrupt or hand-made tree would have it. */
void tu_set_operand_value(wave_instr *instr, unsigned i, uint32_t value);

wave_instr *tu_tag(wave_module *m, wave_node_list *list, uint32_t tag);

/* The tree under list as compact text written independently of the printer: a block is its
 * instructions in brackets (mov_imm as its immediate, anything else as its mnemonic), an if is
 * "if{THEN}{ELSE}", a loop "loop{BODY}", nodes separated by one space:
 * "[1 2] if{[3]}{} loop{[4 halt]}". Fails the test when size is too small. */
void tu_shape(const wave_node_list *list, char *buf, size_t size);

/* Asserts that the shape of list is `expected`. */
void tu_assert_shape(const wave_node_list *list, const char *expected);

/* Validates the kernel (context "test"), logging and failing on any diagnostic. */
void tu_assert_valid(const wave_kernel *kernel);

/* Appends `count` copies of piece to the string in buf (size bytes), failing on overflow. */
void tu_repeat(char *buf, size_t size, const char *piece, unsigned count);

/* Runs the kernel in one wave of `lanes` lanes over `num_words` words of zeroed device
 * memory, fails the test unless the run finishes, and copies the memory into words. */
void tu_run_words(const wave_kernel *k, unsigned lanes, uint32_t *words, size_t num_words);

/* Runs the pipeline `text` of registry's passes over m with options, failing the test on an
 * error; the statistics and remarks land in *result, which the caller frees. */
void tu_run_pipeline(const wave_pass_registry *registry, wave_module *m, const char *text,
                     const wave_pipeline_options *options, wave_pipeline_result *result);

/* The statistic `name` in result, summed over the passes that kept one; 0 when none did. */
uint64_t tu_stat(const wave_pipeline_result *result, const char *name);

/* How many times pass `pass` ran, from result's timings (the run needs time_passes). */
unsigned tu_runs(const wave_pipeline_result *result, const char *pass);

/* ---- generated kernels (waveopt/gen.h) ---- */

/* The kernel that options describe, failing the test when it cannot be built. */
wave_module *tu_generate(const wave_gen_options *options, wave_gen_launch *launch);

/* Holds transform (tests/harness/difftest.h) to the interpreter on the kernel that options
 * describe, printed in its dialect, with memory and argument values drawn from its seed: the
 * harness's verdict, explained in *report. */
wave_diff_status tu_difftest_generated(const wave_gen_options *options, wave_transform_fn transform,
                                       void *transform_ctx, wave_diff_report *report);

/* Runs pipeline_text (registry's passes, writing for target) on the generated kernels of seeds
 * 0 to seeds - 1, each held to the interpreter by tu_difftest_generated, and fails the test on
 * any mismatch. Returns on how many kernels the pass named `pass` changed something. */
unsigned tu_check_generated_pipeline(const wave_pass_registry *registry, const char *target,
                                     const char *pipeline_text, unsigned seeds, const char *pass);

/* tu_check_generated_pipeline on kernels with documentation-dialect forms (docs_dialect). */
unsigned tu_check_generated_docs_pipeline(const wave_pass_registry *registry, const char *target,
                                          const char *pipeline_text, unsigned seeds,
                                          const char *pass);

/* Fills in config (initialised by the caller) for the launch a generated kernel expects: its
 * grid and workgroup shape, its memory, and each argument preset to its base in every lane.
 * presets receives the argument values and must live as long as config. */
void tu_gen_launch_config(const wave_gen_launch *launch, wave_launch_config *config,
                          wave_reg_value presets[WAVE_GEN_MAX_ARGS]);

/* docs/language.md "Example kernels", example 1, with its comments. */
#define TU_AXPY_TEXT                                                                 \
    "; y[i] = a * x[i] + y[i] for every i < n (f32 data)\n"                          \
    ".kernel axpy_guarded\n"                                                         \
    ".registers 12\n"                                                                \
    ".workgroup_size 64, 1, 1\n"                                                     \
    "    mov_sr   r4, sr_workgroup_id_x\n"                                           \
    "    mov_sr   r5, sr_workgroup_size_x\n"                                         \
    "    mov_sr   r6, sr_thread_id_x\n"                                              \
    "    imad     r4, r4, r5, r6          ; i = group * size + local id\n"           \
    "    ucmp_lt  p1, r4, r2              ; lane in range?\n"                        \
    "    if p1\n"                                                                    \
    "        mov_imm  r7, 2\n"                                                       \
    "        shl      r8, r4, r7          ; byte offset = i << 2\n"                  \
    "        iadd     r9, r0, r8\n"                                                  \
    "        iadd     r10, r1, r8\n"                                                 \
    "        device_load_u32 r9, r9       ; x[i]\n"                                  \
    "        device_load_u32 r11, r10     ; y[i]\n"                                  \
    "        fma      r11, r3, r9, r11    ; a*x[i] + y[i]  (4th operand = addend)\n" \
    "        device_store_u32 r10, r11    ; address first, value second\n"           \
    "    endif\n"                                                                    \
    "    halt\n"                                                                     \
    ".end\n"

/* A small kernel built by hand, the same for every test that walks one:
 * block{nop}; if p1 { block{halt} } else { loop { block{break p2} } }; block{nop} */
wave_kernel *tu_sample_kernel(wave_module *m);

#endif
