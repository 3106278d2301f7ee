/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libwaveopt-dot: a kernel's control-flow graph drawn with graphviz, coloured by divergence.
 *
 * A separate library (pkg-config waveopt-dot) so that the core libwaveopt never needs
 * graphviz. wave_dot_build makes one cgraph graph per kernel: a node for every basic block of
 * the region tree, an edge for every way control goes from one to another, each kind of edge
 * in its own style (a legend subgraph explains them), and the verdicts of the uniformity,
 * divergence-depth, barrier and SIMT-deadlock analyses on the blocks. docs/dot.md describes
 * the picture; libwaveopt/dot/blocks.c says how the blocks are cut.
 *
 * cgraph reports its errors through one process-wide handler and prints to stderr by
 * default. The functions below route what it says during their call into the caller's
 * wave_diags and leave its handler and level as they found them; they never print. Graphviz
 * keeps process-wide state, so these functions, agclose of their graphs and any other graphviz
 * code of the process run in one thread at a time (docs/threads.md).
 */
#ifndef WAVEOPT_DOT_H
#define WAVEOPT_DOT_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stdio.h>

#include <cgraph.h>

#include "waveopt/depth.h"
#include "waveopt/diag.h"
#include "waveopt/ir.h"
#include "waveopt/profile.h"
#include "waveopt/regset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Set up with wave_dot_options_init. Fields added later take the value their zero means or
 * get a default there, so a caller that initialises this way keeps working unchanged. */
typedef struct wave_dot_options {
  /* Registers the host presets differently per lane (waveopt's -assume-divergent). */
  wave_regset assume_divergent;
  /* Which deepest path to highlight: every frame (the hardware stack, the default) or the
   * divergent ones only. */
  wave_depth_kind deepest;
  /* A divergence profile (wavesim --profile; waveopt/profile.h) of this kernel, already
   * checked with wave_profile_match against the code it measured; NULL: none. With one, a
   * block is filled by the SIMD efficiency measured on the lines it holds (a heat scale), its
   * border takes the divergence colour instead, and every if and loop line says how often it
   * split. Only line numbers are looked up, so the kernel drawn may be the profiled code after
   * passes: its statements keep their lines, and a block then shows what the input's code on
   * those lines measured (docs/dot.md). */
  const wave_profile_kernel *profile;
} wave_dot_options;

WAVE_API void wave_dot_options_init(wave_dot_options *options);

/* The graph of `kernel` (a verified kernel), named after it; options may be NULL (defaults).
 * The caller may add attributes and must agclose it. NULL, with the reason in diags, when
 * memory ran out or cgraph refused. */
WAVE_API Agraph_t *wave_dot_build(const wave_kernel *kernel, const wave_dot_options *options,
                                  wave_diags *diags);

typedef enum wave_dot_format {
  WAVE_DOT_FORMAT_DOT,   /* the graph as DOT text (agwrite), not laid out */
  WAVE_DOT_FORMAT_SVG,   /* laid out by `dot` and rendered through libgvc */
  WAVE_DOT_FORMAT_PNG,
  WAVE_DOT_FORMAT_PDF,
} wave_dot_format;

/* "dot", "svg", "png" or "pdf"; false for anything else. */
WAVE_API bool wave_dot_format_parse(const char *name, wave_dot_format *format);
/* The name of a format, which is also its file extension. */
WAVE_API const char *wave_dot_format_name(wave_dot_format format);

/* What renders graphs: a graphviz context (its plugins, its font tables). Make one and use it
 * for every graph the process renders: graphviz 2.43's pango plugin keeps a pointer into the
 * previous context's font table, which a second context would have it read after the first
 * was freed. NULL when memory ran out or graphviz could not start (the reason in diags). */
typedef struct wave_dot_renderer wave_dot_renderer;
WAVE_API wave_dot_renderer *wave_dot_renderer_create(wave_diags *diags);
WAVE_API void wave_dot_renderer_destroy(wave_dot_renderer *renderer);

/* Writes graph to out in format: DOT text needs no renderer (it may be NULL); the other
 * formats lay the graph out with `dot`, render it, and free the layout again (layout
 * attributes it declared stay declared). Returns 0, or -1 with the reason in diags; an error
 * graphviz reported and then worked around (a malformed label it drew as text) counts. */
WAVE_API int wave_dot_write(Agraph_t *graph, wave_dot_format format,
                            wave_dot_renderer *renderer, FILE *out, wave_diags *diags);

/* The file name stem for a kernel name: every byte outside [A-Za-z0-9_] becomes '_', an empty
 * name becomes "_", and the stem is cut to WAVE_DOT_STEM_MAX bytes so that suffixes still fit
 * a file name. Stems never hold '.', so a caller may tell equal stems apart with ".2", ".3"
 * and add ".before" without two names meeting. Written into buf as snprintf does; returns
 * the stem's length. */
#define WAVE_DOT_STEM_MAX 200
WAVE_API size_t wave_dot_file_stem(const char *kernel_name, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
