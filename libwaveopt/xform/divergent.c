/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wave_xform_if_divergent (xform/xform.h): the static uniformity verdict of an if, refined by a
 * measured divergence profile. Half the runs is the threshold because a pass's cost model has
 * two cases: an if that splits in a fraction r of its runs issues both sides r of the time, so
 * costing it by the case it is in most often is wrong in at most half of them, and never on
 * the ifs that always or never split.
 */
#include "waveopt/pass.h"
#include "waveopt/profile.h"
#include "waveopt/uniformity.h"
#include "xform/xform.h"

bool wave_xform_if_divergent(wave_pass_context *ctx, const wave_uniformity *u,
                             const wave_node *if_node) {
  bool divergent = wave_uniformity_node_divergent(u, if_node);
  const wave_profile_kernel *k = wave_pass_profile(ctx);
  if (!divergent || !k)
    return divergent;
  wave_loc loc = if_node->u.if_.if_src.loc;
  const wave_profile_branch *b = wave_profile_find_branch(k, loc.line, WAVE_PROFILE_IF);
  if (!b || !b->runs) {
    wave_remark_analysis(ctx, "profile-split-rate", loc,
                         "if at %u:%u never ran in the profile: costed as divergent (uniformity "
                         "analysis)",
                         loc.line, loc.col);
    return true;
  }
  divergent = b->splits >= b->runs - b->splits;
  wave_remark_analysis(ctx, "profile-split-rate", loc,
                       "if at %u:%u split in %llu of %llu runs (%.1f%%) in the profile: costed "
                       "as %s",
                       loc.line, loc.col, (unsigned long long)b->splits,
                       (unsigned long long)b->runs, 100.0 * wave_profile_branch_rate(b),
                       divergent ? "divergent" : "uniform");
  return divergent;
}
