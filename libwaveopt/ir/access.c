/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exported accessors of waveopt/instr.h and waveopt/edit.h: what an embedder calls, one
 * function per macro of ir/code.h, which the library's own files use instead. Each name is
 * written in parentheses so that its macro does not replace the definition.
 *
 * Then those of modules, kernels and regions (waveopt/ir.h), which have no macros: the
 * library calls them too, a few times per region, where a call costs nothing measurable.
 */
#include <string.h>

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

const char *wave_module_file(const wave_module *module) { return module->file; }
wave_kernel *wave_module_first_kernel(const wave_module *module) { return module->first_kernel; }
size_t wave_module_num_kernels(const wave_module *module) { return module->num_kernels; }

wave_module *wave_kernel_module(const wave_kernel *kernel) { return kernel->module; }
wave_kernel *wave_kernel_next(const wave_kernel *kernel) { return kernel->next; }
wave_kernel *wave_kernel_prev(const wave_kernel *kernel) { return kernel->prev; }
const char *wave_kernel_name(const wave_kernel *kernel) { return kernel->name; }
bool wave_kernel_set_name(wave_kernel *kernel, const char *name) {
  const char *copy = wave_module_strdup(kernel->module, name, strlen(name));
  if (copy)
    kernel->name = copy;
  return copy != NULL;
}
wave_region *wave_kernel_first_region(const wave_kernel *kernel) { return kernel->first_region; }
wave_region *wave_kernel_last_region(const wave_kernel *kernel) { return kernel->last_region; }

uint32_t wave_kernel_registers(const wave_kernel *kernel) { return kernel->registers; }
bool wave_kernel_has_registers(const wave_kernel *kernel) { return kernel->has_registers; }
void wave_kernel_set_registers(wave_kernel *kernel, uint32_t registers) {
  kernel->registers = registers;
  kernel->has_registers = true;
}
void wave_kernel_clear_registers(wave_kernel *kernel) {
  kernel->registers = WAVE_DEFAULT_REGISTERS;
  kernel->has_registers = false;
}
uint32_t wave_kernel_local_memory(const wave_kernel *kernel) { return kernel->local_memory; }
bool wave_kernel_has_local_memory(const wave_kernel *kernel) { return kernel->has_local_memory; }
void wave_kernel_set_local_memory(wave_kernel *kernel, uint32_t bytes) {
  kernel->local_memory = bytes;
  kernel->has_local_memory = true;
}
uint32_t wave_kernel_workgroup_size(const wave_kernel *kernel, unsigned dim) {
  return dim < 3 ? kernel->workgroup_size[dim] : 0;
}
bool wave_kernel_has_workgroup_size(const wave_kernel *kernel) {
  return kernel->has_workgroup_size;
}
void wave_kernel_set_workgroup_size(wave_kernel *kernel, uint32_t x, uint32_t y, uint32_t z) {
  kernel->workgroup_size[0] = x;
  kernel->workgroup_size[1] = y;
  kernel->workgroup_size[2] = z;
  kernel->has_workgroup_size = true;
}

static wave_src *kernel_src(wave_kernel *kernel, wave_kernel_line line) {
  switch (line) {
  case WAVE_KERNEL_LINE_KERNEL:
    return &kernel->kernel_src;
  case WAVE_KERNEL_LINE_END:
    return &kernel->end_src;
  case WAVE_KERNEL_LINE_REGISTERS:
    return &kernel->registers_src;
  case WAVE_KERNEL_LINE_LOCAL_MEMORY:
    return &kernel->local_memory_src;
  case WAVE_KERNEL_LINE_WORKGROUP_SIZE:
    break;
  }
  return &kernel->workgroup_size_src;
}
wave_loc wave_kernel_loc(const wave_kernel *kernel) { return kernel->kernel_src.loc; }
wave_src wave_kernel_origin(const wave_kernel *kernel, wave_kernel_line line) {
  return *kernel_src((wave_kernel *)kernel, line);
}
void wave_kernel_set_origin(wave_kernel *kernel, wave_kernel_line line, const wave_src *origin) {
  *kernel_src(kernel, line) = *origin;
}

wave_kernel *wave_region_kernel(const wave_region *region) { return region->kernel; }
wave_region *wave_region_next(const wave_region *region) { return region->next; }
wave_region *wave_region_prev(const wave_region *region) { return region->prev; }
const char *wave_region_label(const wave_region *region) { return region->label; }
wave_src wave_region_origin(const wave_region *region) { return region->label_src; }
wave_node_list *wave_region_body(const wave_region *region) {
  return (wave_node_list *)&region->body;
}
