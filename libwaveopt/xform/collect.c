/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ifs of a kernel as a worklist (xform/xform.h): the passes that rewrite one if at a time
 * take them from an array made before the first rewrite, so that rewriting never disturbs the
 * walk that finds them. And the registers read in other lanes, collected over the kernel once.
 */
#include <stdlib.h>

#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/waveopt.h"
#include "xform/xform.h"

wave_node **wave_xform_collect_ifs(wave_kernel *kernel, wave_if_order order, size_t *count) {
  wave_walk_event at = order == WAVE_OUTER_IFS_FIRST ? WAVE_WALK_IF : WAVE_WALK_ENDIF;
  size_t n = 0;
  wave_foreach_region(r, kernel) {
    wave_walker w;
    wave_walk_init(&w, &r->body);
    while (wave_walk_next(&w))
      n += w.event == at;
  }
  wave_node **ifs = malloc((n + 1) * sizeof(*ifs));
  *count = 0;
  if (!ifs)
    return NULL;
  wave_foreach_region(r, kernel) {
    wave_walker w;
    wave_walk_init(&w, &r->body);
    while (wave_walk_next(&w))
      if (w.event == at)
        ifs[(*count)++] = w.node;
  }
  return ifs;
}

wave_regset wave_xform_other_lane_reads(const wave_kernel *kernel) {
  wave_regset set = wave_regset_empty();
  wave_foreach_block(b, (wave_kernel *)kernel) {
    wave_foreach_instr(in, b) {
      wave_regset other;
      wave_instr_other_lane_uses(in, &other);
      set = wave_regset_union(set, other);
    }
  }
  return set;
}
