/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built-in passes and analyses as the library's own files see them: the info object each
 * pass or analysis file defines, and the fixed ids of the built-in analyses, which passes
 * name in the sets they preserve. Both lists come from the one-line-per-entry tables
 * passes/passes.def and analysis/analyses.def.
 */
#ifndef WAVE_PM_BUILTIN_H
#define WAVE_PM_BUILTIN_H

#include "ir/layout.h"
#include "ir/node_index.h"
#include "waveopt/depth.h"
#include "waveopt/pass.h"
#include "waveopt/uniformity.h"

enum {
#define WAVE_ANALYSIS(ID, stem) WAVE_ANALYSIS_##ID,
#include "analysis/analyses.def"
#undef WAVE_ANALYSIS
  WAVE_NUM_BUILTIN_ANALYSES
};

#define WAVE_ANALYSIS(ID, stem) extern const wave_analysis_info wave_analysis_##stem;
#include "analysis/analyses.def"
#undef WAVE_ANALYSIS

/* The kernel's flat layout, built on the first request and kept until the kernel is
 * invalidated (ir/layout.h); NULL when memory runs out. The built-in analyses read it. */
const wave_layout *wave_analysis_manager_layout(wave_analysis_manager *am,
                                                const wave_kernel *kernel);

/* The kernel's index of ifs and loops, read off its layout on the first request and kept
 * with it until the kernel is invalidated (ir/node_index.h); NULL when memory runs out. */
const wave_node_index *wave_analysis_manager_nodes(wave_analysis_manager *am,
                                                   wave_kernel *kernel);

/* wave_uniformity_node_divergent for the statement at position `at` of the layout the result
 * was computed from, counting every item but blocks: no lookup when it is there, the usual
 * one otherwise. For analyses that meet many nodes in layout order. */
bool wave_uniformity_node_divergent_at(const wave_uniformity *u, const wave_node *node,
                                       size_t at);

/* wave_depth_compute over a layout of the kernel (the manager's, say) instead of one of its
 * own. */
wave_depth *wave_depth_from_layout(const wave_kernel *kernel, const wave_layout *layout,
                                   const wave_uniformity *uniformity);

#define WAVE_PASS(stem) extern const wave_pass_info wave_pass_##stem;
#include "passes/passes.def"
#undef WAVE_PASS

#endif
