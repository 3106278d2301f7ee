/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ifs or loops of a kernel as a worklist (xform/xform.h): the passes that rewrite one at a
 * time take them from an array made before the first rewrite, so that rewriting never disturbs
 * the walk that finds them. The array is the analysis manager's index of the kernel
 * (ir/node_index.h), which the passes of a round share until one changes the kernel. And the
 * registers an instruction may write, a call counted as writing all.
 */
#include "ir/code.h"
#include "pm/builtin.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/waveopt.h"
#include "xform/xform.h"

wave_node *const *wave_xform_collect_ifs(wave_analysis_manager *am, wave_kernel *kernel,
                                         wave_if_order order, size_t *count) {
  const wave_node_index *index = wave_analysis_manager_nodes(am, kernel);
  *count = index ? index->num_ifs : 0;
  if (!index)
    return NULL;
  return order == WAVE_OUTER_IFS_FIRST ? index->ifs_entered : index->ifs_left;
}

wave_node *const *wave_xform_collect_loops(wave_analysis_manager *am, wave_kernel *kernel,
                                           size_t *count) {
  const wave_node_index *index = wave_analysis_manager_nodes(am, kernel);
  *count = index ? index->num_loops : 0;
  return index ? index->loops_left : NULL;
}

static wave_regset all_registers(void) {
  wave_regset all = wave_regset_empty();
  wave_regset_set_range(&all, 0, WAVE_NUM_REGS);
  return all;
}

wave_regset wave_xform_may_write(const wave_instr *in) {
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_CALL))
    return all_registers();
  wave_regset defs;
  wave_instr_defs(in, &defs);
  return defs;
}
