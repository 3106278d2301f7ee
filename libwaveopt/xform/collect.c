/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ifs or loops of a kernel as a worklist (xform/xform.h): the passes that rewrite one at a
 * time take them from an array made before the first rewrite, so that rewriting never disturbs
 * the walk that finds them. And the registers an instruction may write, a call counted as
 * writing all.
 */
#include <stdlib.h>

#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/waveopt.h"
#include "xform/xform.h"

/* The node of every `at` event of the walk, in walk order. */
static wave_node **collect(wave_kernel *kernel, wave_walk_event at, size_t *count) {
  size_t cap = 0;
  wave_node **nodes = NULL;
  *count = 0;
  /* One walk, the array grown as it goes: on a large kernel the walk, which visits every node
   * once, costs more than growing the array. */
  if (!wave_grow((void **)&nodes, &cap, 1, sizeof(*nodes)))
    return NULL;
  wave_foreach_region(r, kernel) {
    wave_walker w;
    wave_walk_init(&w, &r->body);
    while (wave_walk_next(&w)) {
      if (w.event != at)
        continue;
      if (!wave_grow((void **)&nodes, &cap, *count + 1, sizeof(*nodes))) {
        free(nodes);
        *count = 0;
        return NULL;
      }
      nodes[(*count)++] = w.node;
    }
  }
  return nodes;
}

wave_node **wave_xform_collect_ifs(wave_kernel *kernel, wave_if_order order, size_t *count) {
  return collect(kernel, order == WAVE_OUTER_IFS_FIRST ? WAVE_WALK_IF : WAVE_WALK_ENDIF, count);
}

wave_node **wave_xform_collect_loops(wave_kernel *kernel, size_t *count) {
  return collect(kernel, WAVE_WALK_ENDLOOP, count);
}

static wave_regset all_registers(void) {
  wave_regset all = wave_regset_empty();
  wave_regset_set_range(&all, 0, WAVE_NUM_REGS);
  return all;
}

wave_regset wave_xform_may_write(const wave_instr *in) {
  if (wave_opcode_has(in->op, WAVE_F_CALL))
    return all_registers();
  wave_regset defs;
  wave_instr_defs(in, &defs);
  return defs;
}

wave_regset wave_xform_reads_may_write(const wave_instr *in, wave_regset *uses) {
  wave_regset defs;
  wave_instr_uses_defs(in, uses, &defs);
  return wave_opcode_has(in->op, WAVE_F_CALL) ? all_registers() : defs;
}
