/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exported accessors of waveopt/instr.h and waveopt/edit.h: what an embedder calls, one
 * function per macro of ir/code.h, which the library's own files use instead. Each name is
 * written in parentheses so that its macro does not replace the definition.
 */
#include "ir/code.h"

/* clang-format would take `wave_opcode (wave_instr_op)(...)` for a call and glue the type to
 * the parenthesis. */
/* clang-format off */
wave_opcode (wave_instr_op)(const wave_instr *instr) { return wave_instr_op(instr); }
/* Setting the opcode or the operands decodes the registers again (wave_code_instr_decode): not
 * inline in the library, which changes instructions far less often than it reads them. */
void wave_instr_set_op(wave_instr *instr, wave_opcode op) {
  wave_code_instr_set_op(instr, op);
  wave_code_instr_decode(instr);
}
int (wave_instr_guard)(const wave_instr *instr) { return wave_instr_guard(instr); }
bool (wave_instr_guard_negated)(const wave_instr *instr) { return wave_instr_guard_negated(instr); }
void (wave_instr_set_guard)(wave_instr *instr, int pred, bool negated) {
  wave_instr_set_guard(instr, pred, negated);
}
wave_cache_hint (wave_instr_cache_hint)(const wave_instr *instr) {
  return wave_instr_cache_hint(instr);
}
void (wave_instr_set_cache_hint)(wave_instr *instr, wave_cache_hint hint) {
  wave_instr_set_cache_hint(instr, hint);
}
unsigned (wave_instr_num_operands)(const wave_instr *instr) {
  return wave_instr_num_operands(instr);
}
wave_operand (wave_instr_operand)(const wave_instr *instr, unsigned i) {
  return wave_instr_operand(instr, i);
}
bool wave_instr_set_num_operands(wave_instr *instr, unsigned n) {
  return wave_code_instr_set_num_operands(instr, n);
}
bool wave_instr_set_operand(wave_instr *instr, unsigned i, wave_operand operand) {
  if (i >= instr->num_operands ||
      !wave_code_slot_store(wave_code_instr_module(instr), &wave_code_slots(instr)[i], operand))
    return false;
  wave_code_instr_decode(instr);
  return true;
}
wave_instr *(wave_instr_prev)(const wave_instr *instr) { return wave_instr_prev(instr); }
wave_instr *(wave_instr_next)(const wave_instr *instr) { return wave_instr_next(instr); }
wave_node *(wave_instr_node)(const wave_instr *instr) { return wave_instr_node(instr); }
wave_src (wave_instr_origin)(const wave_instr *instr) { return wave_instr_origin(instr); }
wave_loc (wave_instr_loc)(const wave_instr *instr) { return wave_instr_loc(instr); }
wave_instr *(wave_block_first)(const wave_node *block) { return wave_block_first(block); }
wave_instr *(wave_block_last)(const wave_node *block) { return wave_block_last(block); }

wave_node_kind (wave_node_kind_of)(const wave_node *node) { return wave_node_kind_of(node); }
wave_node *(wave_node_prev)(const wave_node *node) { return wave_node_prev(node); }
wave_node *(wave_node_next)(const wave_node *node) { return wave_node_next(node); }
wave_node_list *(wave_node_list_of)(const wave_node *node) { return wave_node_list_of(node); }
wave_operand (wave_if_cond)(const wave_node *node) { return wave_if_cond(node); }
void (wave_if_set_cond)(wave_node *node, wave_operand cond) { wave_if_set_cond(node, cond); }
wave_node_list *(wave_if_then)(const wave_node *node) { return wave_if_then(node); }
wave_node_list *(wave_if_else)(const wave_node *node) { return wave_if_else(node); }
bool (wave_if_has_else)(const wave_node *node) { return wave_if_has_else(node); }
void (wave_if_set_has_else)(wave_node *node, bool has_else) {
  wave_if_set_has_else(node, has_else);
}
wave_node_list *(wave_loop_body)(const wave_node *node) { return wave_loop_body(node); }
wave_src (wave_node_origin)(const wave_node *node, wave_node_line line) {
  return wave_node_origin(node, line);
}
void (wave_node_set_origin)(wave_node *node, wave_node_line line, const wave_src *origin) {
  wave_node_set_origin(node, line, origin);
}
wave_node *(wave_node_list_first)(const wave_node_list *list) { return wave_node_list_first(list); }
wave_node *(wave_node_list_last)(const wave_node_list *list) { return wave_node_list_last(list); }
wave_node *(wave_node_list_parent)(const wave_node_list *list) {
  return wave_node_list_parent(list);
}
wave_region *(wave_node_list_region)(const wave_node_list *list) {
  return wave_node_list_region(list);
}
wave_node *(wave_node_parent)(const wave_node *node) { return wave_node_parent(node); }
wave_region *(wave_node_region)(const wave_node *node) { return wave_node_region(node); }
/* clang-format on */
