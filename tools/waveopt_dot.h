/* SPDX-License-Identifier: Apache-2.0 */
/* waveopt -dot and -dot-before: one graph file per kernel through libwaveopt-dot. */
#ifndef WAVEOPT_DOT_TOOL_H
#define WAVEOPT_DOT_TOOL_H

#include <stdbool.h>

#include "waveopt/dot.h"

typedef struct dot_request {
  bool after;               /* -dot: the IR after the pipeline, <stem>.<ext> */
  bool before;              /* -dot-before: the input as parsed, <stem>.before.<ext> */
  const char *dir;          /* -dot-dir=DIR; NULL: beside the output */
  bool has_format;
  wave_dot_format format;   /* -dot-format= */
  const char *profile;      /* -profile=FILE: colour by this divergence profile */
  /* Each kernel's part of the profile the graphs are coloured by, matched against the input
   * before the pipeline; NULL when there is no profile. */
  const wave_profile_kernel **measured;
  /* The -dot-before graphs, drawn before the pipeline and written with the others at the end
   * so that a failed run writes none. */
  Agraph_t **before_graphs;
  size_t num_before;
} dot_request;

/* Takes arg when it is one of the -dot flags, setting *status to 2 after a usage error; false
 * when arg is no -dot flag. */
bool dot_take_flag(dot_request *req, const char *arg, int *status);
/* Checks the flags together once all are read: -1, or 2 after a usage error. */
int dot_check_flags(const dot_request *req);
/* Matches profile (read from profile_path; NULL: none) against each kernel of a verified
 * module, the input before any pass, and draws the -dot-before graphs. A stale profile is an
 * error, a kernel the profile lacks a warning (it is drawn without measurements), both in
 * diags. False after an error (in diags, or printed). */
bool dot_snapshot(dot_request *req, const wave_module *module, const wave_dot_options *options,
                  const wave_profile *profile, const char *profile_path, wave_diags *diags);
/* Draws the -dot graphs and writes every file; output is waveopt's -o (NULL or "-": stdout).
 * False after printing why. */
bool dot_finish(dot_request *req, const wave_module *module, const wave_dot_options *options,
                const char *output);
void dot_request_free(dot_request *req);

#endif
