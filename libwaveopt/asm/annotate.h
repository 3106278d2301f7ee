/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The annotated listing that every analysis printer shares (print<uniformity>, print<barriers>,
 * print<deadlock>, ...): the kernel one statement a line in the canonical spelling, indented by
 * nesting, each line followed by its own comment and then by the analysis's verdict as
 * `; verdict`. The comment comes first so that a test kernel's `; uni` or `; div` marker sits
 * right before the verdict it is checked against. An analysis says only what its verdicts are.
 */
#ifndef WAVE_ANNOTATE_H
#define WAVE_ANNOTATE_H

#include "ir/code.h"
#include "waveopt/waveopt.h"

/* Each callback returns the verdict for one line, or NULL for none. It may write the text into
 * buf (size bytes, as snprintf does) and return buf, or return text it owns. */
typedef struct wave_annotator {
  void *ctx;
  const char *(*instr)(void *ctx, const wave_instr *instr, char *buf, size_t size);
  /* The `if` and `loop` lines; NULL when they get no verdict. */
  const char *(*node)(void *ctx, const wave_node *node, char *buf, size_t size);
} wave_annotator;

/* Writes `.kernel NAME`, every region (labels included) and `.end`. Returns 0, or non-zero when
 * write failed. */
int wave_print_annotated(const wave_kernel *kernel, const wave_annotator *annotator,
                         wave_write_fn write, void *ctx);

#endif
