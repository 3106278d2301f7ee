/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wave_xform_if_split_rate (xform/xform.h): the static uniformity verdict of an if, refined by
 * a measured divergence profile. A cost model with a divergent and a uniform case weighs them
 * by the measured rate: an if that split in r of its runs issues both sides r of the time, one
 * side the rest. The rate comes from the if's own line, so it is exact for the if as written;
 * after a rewrite that moved another if onto that statement (flatten-ifs keeps the inner if's
 * location), it is the inner if's rate, an approximation.
 */
#include "waveopt/pass.h"
#include "waveopt/profile.h"
#include "waveopt/uniformity.h"
#include "xform/xform.h"

double wave_xform_if_split_rate(wave_pass_context *ctx, const wave_uniformity *u,
                                const wave_node *if_node) {
  if (!wave_uniformity_node_divergent(u, if_node))
    return 0.0;
  const wave_profile_kernel *k = wave_pass_profile(ctx);
  if (!k)
    return 1.0;
  wave_loc loc = wave_node_origin(if_node, WAVE_LINE_IF).loc;
  const wave_profile_branch *b = wave_profile_find_branch(k, loc.line, WAVE_PROFILE_IF);
  if (!b || !b->runs) {
    wave_remark_analysis(ctx, "profile-split-rate", loc,
                         "if at %u:%u never ran in the profile: costed as divergent (uniformity "
                         "analysis)",
                         loc.line, loc.col);
    return 1.0;
  }
  double rate = wave_profile_branch_rate(b);
  wave_remark_analysis(ctx, "profile-split-rate", loc,
                       "if at %u:%u split in %llu of %llu runs (%.1f%%) in the profile: costed "
                       "as %s",
                       loc.line, loc.col, (unsigned long long)b->splits,
                       (unsigned long long)b->runs, 100.0 * rate,
                       b->splits == 0            ? "uniform"
                       : b->splits == b->runs ? "divergent"
                                               : "divergent in that share of its runs");
  return rate;
}
