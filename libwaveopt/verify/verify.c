/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verifier checks every module, parsed or built: the parser already rejects what the region
 * tree cannot represent, so this file checks what it can represent but must not hold — structured
 * opcodes as plain instructions, break/continue outside a loop, guards on control flow, operand
 * counts and kinds against the opcode shape, register indices against .registers and the
 * encoding, and call targets. Warnings about what the toolchain mishandles come from
 * verify_toolchain.c during the same walk.
 *
 * Each region is walked once with wave_walker (no recursion); call targets are found through a
 * hash table of the kernel's labels, so the whole check is linear in the size of the module.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/code.h"
#include "verify/verify_state.h"

#define VERIFY_ERROR(v, loc, ...) \
  wave_module_report((v)->module, (v)->diags, WAVE_SEV_ERROR, NULL, (loc), __VA_ARGS__)

static const char *mnemonic_of(const wave_instr *instr) {
  return wave_opcode_table[wave_instr_op(instr)].mnemonic;
}

/* ---- the kernel's labels ------------------------------------------------------------------ */

static void free_kernel_tables(wave_verify *v) {
  wave_label_table_free(&v->labels);
  wave_mem_free(wave_module_allocator(v->module), v->called);
  wave_mem_free(wave_module_allocator(v->module), v->falls_through);
  v->called = NULL;
  v->falls_through = NULL;
}

static bool build_kernel_tables(wave_verify *v) {
  if (!wave_label_table_init(&v->labels, v->kernel))
    return false;
  size_t n = v->labels.num_regions;
  const wave_allocator *allocator = wave_module_allocator(v->module);
  v->called = wave_mem_calloc(allocator, n + 1, sizeof(*v->called));
  v->falls_through = wave_mem_calloc(allocator, n + 1, sizeof(*v->falls_through));
  if (!v->called || !v->falls_through) {
    free_kernel_tables(v);
    return false;
  }
  return true;
}

/* ---- operands ----------------------------------------------------------------------------- */

static bool operand_fits(const wave_instr *instr, unsigned slot, char kind) {
  wave_operand o = wave_instr_operand(instr, slot);
  bool gpr = o.kind == WAVE_OPERAND_GPR || o.kind == WAVE_OPERAND_SREG;
  switch (kind) {
  case 'o':
    return gpr || o.kind == WAVE_OPERAND_NONE;
  case 'd': case 'f':
    return gpr;
  case 'u':
    return gpr || (o.kind == WAVE_OPERAND_IMM &&
                   wave_opcode_accepts_docs_immediate(wave_instr_op(instr), slot));
  case 'q': case 'p':
    return o.kind == WAVE_OPERAND_PRED;
  case 's':
    return o.kind == WAVE_OPERAND_SREG;
  case 'i':
    return o.kind == WAVE_OPERAND_IMM;
  case 'l':
    return o.kind == WAVE_OPERAND_LABEL && o.label;
  case 'c':
    return o.kind == WAVE_OPERAND_SCOPE;
  default:
    return false;
  }
}

/* The GPRs rFIRST..rFIRST+width-1 must be encodable and, except for fragment ids (never read
 * or written), below .registers: the emulator allocates exactly that many per thread. */
static void check_gpr_range(wave_verify *v, wave_loc loc, uint32_t first, unsigned width,
                            char kind) {
  uint64_t last = (uint64_t)first + width - 1;
  if (last > WAVE_MAX_GPR) {
    uint32_t bad = first > WAVE_MAX_GPR ? first : WAVE_MAX_GPR + 1;
    VERIFY_ERROR(v, loc, "register r%u does not exist (registers are r0-r%u)", bad,
                 WAVE_MAX_GPR);
    return;
  }
  uint32_t limit = wave_kernel_registers(v->kernel);
  if (kind == 'f' || last < limit)
    return;
  uint32_t bad = first >= limit ? first : limit;
  const char *why = kind == 'u' ? "the emulator reads such registers as 0; ptxas rejects them"
                                : "the emulator drops such writes; ptxas rejects them";
  if (bad == first)
    VERIFY_ERROR(v, loc, "register r%u is beyond .registers %u (%s)", bad, limit, why);
  else
    VERIFY_ERROR(v, loc, "register r%u (part of the %u-register operand r%u) is beyond "
                 ".registers %u (%s)", bad, width, first, limit, why);
}

static void check_call_target(wave_verify *v, wave_loc loc, const char *label) {
  size_t target = wave_label_table_find(&v->labels, label);
  if (target == WAVE_NO_REGION)
    VERIFY_ERROR(v, loc, "call target '%s' is not a label of kernel '%s'", label,
                 wave_kernel_name(v->kernel));
  else
    v->called[target] = true;
}

static void check_operand(wave_verify *v, const wave_instr *instr, unsigned slot) {
  wave_opcode op = wave_instr_op(instr);
  wave_operand o = wave_instr_operand(instr, slot);
  char kind = wave_opcode_slot_kind(op, slot);
  wave_loc loc = wave_verify_operand_loc(wave_instr_loc(instr), &o);
  if (!operand_fits(instr, slot, kind)) {
    VERIFY_ERROR(v, loc, "expected %s as operand %u of '%s'", wave_slot_kind_noun(kind), slot + 1,
                 mnemonic_of(instr));
    return;
  }
  switch ((wave_operand_kind)o.kind) {
  case WAVE_OPERAND_GPR:
    check_gpr_range(v, loc, o.value, wave_opcode_slot_width(op, slot), kind);
    break;
  case WAVE_OPERAND_SREG:
    if (o.value >= WAVE_NUM_SREGS)
      VERIFY_ERROR(v, loc, "special register %u does not exist (there are %u)", o.value,
                   WAVE_NUM_SREGS);
    else if (!wave_opcode_reads_sreg(op, slot))
      check_gpr_range(v, loc, o.value, wave_opcode_slot_width(op, slot), kind);
    break;
  case WAVE_OPERAND_PRED:
    if (o.value >= WAVE_NUM_PREDS)
      VERIFY_ERROR(v, loc, "predicate p%u does not exist (predicates are p0-p3)", o.value);
    else if (o.negated && kind == 'q')
      /* A negated read is documentation dialect that lowering inverts; a write cannot be. */
      VERIFY_ERROR(v, loc, "a predicate destination cannot be negated ('!p%u')", o.value);
    break;
  case WAVE_OPERAND_SCOPE:
    if (o.value > WAVE_SCOPE_SYSTEM)
      VERIFY_ERROR(v, loc, "scope %u does not exist (wave, workgroup, device, system)", o.value);
    break;
  case WAVE_OPERAND_LABEL:
    check_call_target(v, loc, o.label);
    break;
  case WAVE_OPERAND_NONE:
  case WAVE_OPERAND_IMM:
    break;
  }
}

/* ---- instructions ------------------------------------------------------------------------- */

static bool is_tree_opcode(wave_opcode op) {
  return op == WAVE_OP_IF || op == WAVE_OP_ELSE || op == WAVE_OP_ENDIF || op == WAVE_OP_LOOP ||
         op == WAVE_OP_ENDLOOP;
}

/* Reports every error of one instruction; the toolchain checks assume a well-formed one. */
static void check_instr(wave_verify *v, const wave_instr *instr) {
  wave_loc loc = wave_instr_loc(instr);
  if (wave_instr_op(instr) >= WAVE_OP_COUNT) {
    VERIFY_ERROR(v, loc, "invalid opcode %u", (unsigned)wave_instr_op(instr));
    return;
  }
  wave_opcode op = wave_instr_op(instr);
  const char *m = mnemonic_of(instr);
  if (is_tree_opcode(op)) {
    VERIFY_ERROR(v, loc, "'%s' cannot be an instruction in a block: structured control flow "
                 "is represented by if and loop nodes", m);
    return;
  }
  if (wave_instr_guard(instr) != WAVE_NO_GUARD) {
    if (wave_instr_guard(instr) < 0 || wave_instr_guard(instr) >= WAVE_NUM_PREDS)
      VERIFY_ERROR(v, loc, "guard predicate p%d does not exist (predicates are p0-p3)",
                   wave_instr_guard(instr));
    else if (op == WAVE_OP_BREAK || op == WAVE_OP_CONTINUE || op == WAVE_OP_CALL)
      VERIFY_ERROR(v, loc, "guard on a structured control-flow instruction '%s' (the emulator "
                   "mishandles its masks; wave-ptx rejects it)", m);
  }
  if ((op == WAVE_OP_BREAK || op == WAVE_OP_CONTINUE) && v->loop_depth == 0)
    VERIFY_ERROR(v, loc, "'%s' is not inside a loop of its region", m);
  unsigned slots = wave_opcode_num_slots(op);
  if (wave_instr_num_operands(instr) != slots) {
    VERIFY_ERROR(v, loc, "'%s' expects %u operand%s, got %u", m, slots, slots == 1 ? "" : "s",
                 wave_instr_num_operands(instr));
    return;
  }
  for (unsigned slot = 0; slot < slots; slot++)
    check_operand(v, instr, slot);
}

static void check_if(wave_verify *v, const wave_node *node) {
  wave_operand cond_value = wave_if_cond(node);
  const wave_operand *cond = &cond_value;
  wave_loc loc = wave_verify_operand_loc(wave_node_origin(node, WAVE_LINE_IF).loc, cond);
  if (cond->kind != WAVE_OPERAND_PRED)
    VERIFY_ERROR(v, loc, "the condition of 'if' must be a predicate register");
  else if (cond->value >= WAVE_NUM_PREDS)
    VERIFY_ERROR(v, loc, "predicate p%u does not exist (predicates are p0-p3)", cond->value);
}

static void check_block(wave_verify *v, const wave_node *block) {
  for (const wave_instr *instr = wave_block_first(block); instr; instr = wave_instr_next(instr)) {
    size_t errors = v->diags->num_errors;
    check_instr(v, instr);
    wave_verify_toolchain_flow(v, instr);
    if (v->diags->num_errors == errors)
      wave_verify_toolchain_instr(v, block, instr);
  }
}

static void check_region(wave_verify *v, wave_region *region) {
  wave_verify_toolchain_region_begin(v);
  v->loop_depth = 0;
  wave_walker walker;
  wave_walk_init(&walker, wave_region_body(region));
  while (wave_walk_next(&walker)) {
    switch (walker.event) {
    case WAVE_WALK_BLOCK:
      check_block(v, walker.node);
      break;
    case WAVE_WALK_IF:
      check_if(v, walker.node);
      break;
    case WAVE_WALK_LOOP:
      v->loop_depth++;
      break;
    case WAVE_WALK_ENDLOOP:
      v->loop_depth--;
      break;
    case WAVE_WALK_ELSE:
    case WAVE_WALK_ENDIF:
      break;
    }
    if (walker.event != WAVE_WALK_BLOCK)
      wave_verify_toolchain_event(v, &walker);
  }
  wave_verify_toolchain_region_end(v);
}

static void check_kernel(wave_verify *v, const wave_kernel *kernel) {
  v->kernel = kernel;
  if (!build_kernel_tables(v)) {
    v->out_of_memory = true;
    return;
  }
  v->nesting_warned = false;
  wave_verify_toolchain_kernel_begin(v);
  for (v->region_index = 0; v->region_index < v->labels.num_regions; v->region_index++)
    check_region(v, v->labels.regions[v->region_index]);
  wave_verify_toolchain_kernel_end(v);
  free_kernel_tables(v);
}

bool wave_verify_module(const wave_module *module, wave_diags *diags) {
  size_t errors = diags->num_errors;
  wave_verify v;
  memset(&v, 0, sizeof(v));
  v.module = module;
  v.diags = diags;
  for (const wave_kernel *k = wave_module_first_kernel(module); k && !v.out_of_memory;
       k = wave_kernel_next(k))
    check_kernel(&v, k);
  wave_mem_free(wave_module_allocator(module), v.frames);
  if (v.out_of_memory) {
    wave_loc loc = {wave_module_file(module), 0, 0};
    VERIFY_ERROR(&v, loc, "out of memory while verifying");
  }
  return diags->num_errors == errors;
}
