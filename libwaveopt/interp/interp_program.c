/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Flattens one kernel's region tree into the interpreter's linear program.
 *
 * Every region (the entry code, then each labelled subroutine) is laid out in source order,
 * exactly as the text runs, and an END marker follows the last one so that falling off the
 * kernel is caught. The structured statements become instructions of their own with their
 * jump targets resolved: if -> its else (or endif), else -> endif, loop <-> endloop, and
 * break/continue -> their loop. Operands are decoded once into register rows, so the
 * executor never looks at operand kinds: an immediate in a GPR-read slot (documentation
 * dialect) becomes a read-only row holding the constant, mov_imm reads such a row and mov_sr
 * reads the special-register row.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "interp/interp_program.h"

#include "ir/code.h"
#include "support/grow.h"

enum { NO_FRAG = -1, CONST_HASH_MIN = 64 };

typedef struct builder {
  interp_program *prog;
  const wave_kernel *kernel;
  size_t cap;
  uint32_t *open;            /* indices of the if/loop ops not yet closed */
  size_t num_open, cap_open;
  uint32_t *const_slots;     /* open-addressing hash of immediate value -> row offset + 1 */
  size_t const_slot_count;
  size_t cap_consts;
  int16_t frag_slot[256];    /* fragment id (register number) -> slot */
  char *err;
  size_t err_size;
  wave_loc *err_loc;
  bool *oom;
  bool failed;
} builder;

static bool fail(builder *b, wave_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(builder *b, wave_loc loc, const char *fmt, ...) {
  if (!b->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, b->err_size, fmt, ap);
    va_end(ap);
    *b->err_loc = loc;
  }
  b->failed = true;
  return false;
}

static bool out_of_memory(builder *b) {
  *b->oom = true;
  b->failed = true;
  return false;
}

/* Appends an instruction slot; returns its index or UINT32_MAX when memory ran out. */
static uint32_t emit(builder *b, uint16_t op, wave_loc loc, const wave_instr *src) {
  interp_program *p = b->prog;
  if (p->len >= UINT32_MAX - 1)
    return out_of_memory(b), UINT32_MAX;
  if (p->len == b->cap) {
    /* code and entries are parallel arrays sharing one capacity */
    size_t cap_code = b->cap, cap_entries = b->cap;
    bool ok =
        wave_grow(p->allocator, (void **)&p->code, &cap_code, p->len + 1, sizeof *p->code) &&
        wave_grow(p->allocator, (void **)&p->entries, &cap_entries, p->len + 1, sizeof *p->entries);
    if (!ok) {
      out_of_memory(b);
      return UINT32_MAX;
    }
    b->cap = cap_code;
  }
  uint32_t index = (uint32_t)p->len++;
  interp_instr *in = &p->code[index];
  memset(in, 0, sizeof *in);
  in->op = op;
  in->guard = WAVE_NO_GUARD;
  in->d = INTERP_NO_REG;
  for (int i = 0; i < 4; i++)
    in->s[i] = INTERP_NO_REG;
  in->target = in->target2 = INTERP_NO_TARGET;
  wave_program_entry *e = &p->entries[index];
  memset(e, 0, sizeof *e);
  e->op = op < WAVE_OP_COUNT ? (wave_opcode)op : WAVE_OP_NOP;
  e->loc = loc;
  e->instr = src;
  return index;
}

static bool push_open(builder *b, uint32_t index) {
  if (!wave_grow(b->prog->allocator, (void **)&b->open, &b->cap_open, b->num_open + 1,
                 sizeof *b->open))
    return out_of_memory(b);
  b->open[b->num_open++] = index;
  return true;
}

/* The innermost open loop, or INTERP_NO_TARGET. */
static uint32_t innermost_loop(const builder *b) {
  for (size_t i = b->num_open; i-- > 0;) {
    if (b->prog->code[b->open[i]].op == WAVE_OP_LOOP)
      return b->open[i];
  }
  return INTERP_NO_TARGET;
}

/* ---- immediates ----------------------------------------------------------------------- */

static uint32_t hash_u32(uint32_t v) {
  v ^= v >> 16;
  v *= 0x7FEB352Du;
  v ^= v >> 15;
  v *= 0x846CA68Bu;
  return v ^ (v >> 16);
}

static bool rehash_consts(builder *b, size_t slots) {
  uint32_t *table = wave_mem_calloc(b->prog->allocator, slots, sizeof *table);
  if (!table)
    return false;
  const interp_program *p = b->prog;
  for (uint32_t i = 0; i < p->num_consts; i++) {
    size_t h = hash_u32(p->consts[i]) & (slots - 1);
    while (table[h])
      h = (h + 1) & (slots - 1);
    table[h] = i + 1;
  }
  wave_mem_free(b->prog->allocator, b->const_slots);
  b->const_slots = table;
  b->const_slot_count = slots;
  return true;
}

/* The row offset (from const_row) of the immediate `value`, added when new. */
static bool const_offset(builder *b, uint32_t value, uint32_t *offset) {
  interp_program *p = b->prog;
  if ((p->num_consts + 1) * 2 > b->const_slot_count &&
      !rehash_consts(b, b->const_slot_count ? b->const_slot_count * 2 : CONST_HASH_MIN))
    return out_of_memory(b);
  size_t mask = b->const_slot_count - 1;
  size_t h = hash_u32(value) & mask;
  for (; b->const_slots[h]; h = (h + 1) & mask) {
    if (p->consts[b->const_slots[h] - 1] == value) {
      *offset = b->const_slots[h] - 1;
      return true;
    }
  }
  if (!wave_grow(p->allocator, (void **)&p->consts, &b->cap_consts, p->num_consts + 1,
                 sizeof *p->consts))
    return out_of_memory(b);
  p->consts[p->num_consts] = value;
  b->const_slots[h] = p->num_consts + 1;
  *offset = p->num_consts++;
  return true;
}

/* ---- operands ------------------------------------------------------------------------- */

static bool gpr_row(builder *b, const wave_instr *instr, uint32_t reg, unsigned width,
                    uint32_t *row) {
  if ((uint64_t)reg + width > b->prog->num_gprs) {
    const char *what = wave_opcode_table[wave_instr_op(instr)].mnemonic;
    return fail(b, wave_instr_loc(instr), "%s: register r%u is beyond .registers %u", what,
                (unsigned)(reg + width - 1), (unsigned)b->prog->num_gprs);
  }
  *row = reg;
  return true;
}

/* Decodes a GPR-read slot: a register, or a constant row for an immediate / special
 * register (mov_imm, mov_sr, mov). Special registers in other slots read the GPR of the same
 * number, as the assembler encodes them (docs/language.md "Registers"). Errors name operands by
 * their slot in the opcode's shape, counting from 1. */
static bool source_row(builder *b, const wave_instr *instr, unsigned slot,
                       const wave_operand *o, char kind, unsigned width, uint32_t *row) {
  uint32_t offset;
  switch (o->kind) {
  case WAVE_OPERAND_IMM:
    if (width != 1)
      break;
    if (!const_offset(b, o->value, &offset))
      return false;
    *row = b->prog->const_row + offset;
    return true;
  case WAVE_OPERAND_SREG:
    /* mov from a special register is mov_sr, as the assembler encodes it */
    if (kind == 's' || wave_instr_op(instr) == WAVE_OP_MOV) {
      if (o->value >= WAVE_NUM_SREGS)
        break;
      *row = b->prog->sreg_row + o->value;
      return true;
    }
    return gpr_row(b, instr, o->value, width, row);
  case WAVE_OPERAND_GPR:
    return gpr_row(b, instr, o->value, width, row);
  default:
    break;
  }
  return fail(b, wave_instr_loc(instr), "%s: operand %u has the wrong kind",
              wave_opcode_table[wave_instr_op(instr)].mnemonic, slot + 1);
}

static bool pred_operand(builder *b, const wave_instr *instr, unsigned slot,
                         const wave_operand *o, uint8_t *pred, uint8_t *neg) {
  if (o->kind != WAVE_OPERAND_PRED || o->value >= WAVE_NUM_PREDS)
    return fail(b, wave_instr_loc(instr), "%s: operand %u must be a predicate register",
                wave_opcode_table[wave_instr_op(instr)].mnemonic, slot + 1);
  *pred = (uint8_t)o->value;
  if (neg)
    *neg = o->negated;
  return true;
}

static bool fragment_slot(builder *b, const wave_instr *instr, unsigned slot,
                          const wave_operand *o, uint32_t *frag) {
  if ((o->kind != WAVE_OPERAND_GPR && o->kind != WAVE_OPERAND_SREG) || o->value > 255)
    return fail(b, wave_instr_loc(instr), "%s: operand %u must name a fragment",
                wave_opcode_table[wave_instr_op(instr)].mnemonic, slot + 1);
  if (b->frag_slot[o->value] == NO_FRAG)
    b->frag_slot[o->value] = (int16_t)b->prog->num_frags++;
  *frag = (uint32_t)b->frag_slot[o->value];
  return true;
}

/* Slot i of the shape -> operand; an omitted optional destination may have been written
 * either as a NONE operand or left out of the list. */
static wave_operand slot_operand(const wave_instr *instr, unsigned slot, unsigned slots) {
  bool shifted = wave_opcode_slot_kind(wave_instr_op(instr), 0) == 'o' &&
                 wave_instr_num_operands(instr) + 1u == slots;
  if (shifted && slot == 0) {
    wave_operand none = {0};
    return none;
  }
  return wave_instr_operand(instr, shifted ? slot - 1 : slot);
}

static bool decode(builder *b, const wave_instr *instr, interp_instr *in) {
  wave_opcode op = wave_instr_op(instr);
  const char *name = wave_opcode_table[op].mnemonic;
  if (wave_instr_guard(instr) != WAVE_NO_GUARD) {
    if (wave_instr_guard(instr) < 0 || wave_instr_guard(instr) >= WAVE_NUM_PREDS)
      return fail(b, wave_instr_loc(instr), "%s: bad guard predicate", name);
    if (op == WAVE_OP_CALL)
      return fail(b, wave_instr_loc(instr), "%s: a guard on call is not supported", name);
    in->guard = wave_instr_guard(instr);
    in->guard_neg = wave_instr_guard_negated(instr);
  }
  unsigned slots = wave_opcode_num_slots(op);
  unsigned num_operands = wave_instr_num_operands(instr);
  if (num_operands != slots && !(wave_opcode_slot_kind(op, 0) == 'o' && num_operands + 1u == slots))
    return fail(b, wave_instr_loc(instr), "%s: expected %u operands, found %u", name, slots,
                num_operands);
  unsigned nsrc = 0, npred = 0, nfrag = 0;
  for (unsigned i = 0; i < slots; i++) {
    wave_operand operand = slot_operand(instr, i, slots);
    const wave_operand *o = &operand;
    char kind = wave_opcode_slot_kind(op, i);
    unsigned width = wave_opcode_slot_width(op, i);
    switch (kind) {
    case 'd':
      if (o->kind != WAVE_OPERAND_GPR && o->kind != WAVE_OPERAND_SREG)
        return fail(b, wave_instr_loc(instr), "%s: operand %u must be a register", name, i + 1);
      if (!gpr_row(b, instr, o->value, width, &in->d))
        return false;
      break;
    case 'o':
      /* r0 or nothing: the atomic returns no value (docs/language.md "Atomics"). */
      if ((o->kind == WAVE_OPERAND_GPR || o->kind == WAVE_OPERAND_SREG) && o->value != 0 &&
          !gpr_row(b, instr, o->value, width, &in->d))
        return false;
      break;
    case 'u':
    case 's':
    case 'i':
      if (!source_row(b, instr, i, o, kind, width, &in->s[nsrc++]))
        return false;
      break;
    case 'q':
      if (!pred_operand(b, instr, i, o, &in->pd, NULL))
        return false;
      break;
    case 'p':
      if (!pred_operand(b, instr, i, o, &in->ps[npred], &in->ps_neg[npred]))
        return false;
      npred++;
      break;
    case 'f':
      if (!fragment_slot(b, instr, i, o, &in->frag[nfrag++]))
        return false;
      break;
    case 'l':
      if (o->kind != WAVE_OPERAND_LABEL || !o->label)
        return fail(b, wave_instr_loc(instr), "%s: operand %u must be a label", name, i + 1);
      break;
    default: /* scope: the interpreter has no caches or reordering to scope */
      break;
    }
  }
  if (op == WAVE_OP_BREAK || op == WAVE_OP_CONTINUE) {
    in->target = innermost_loop(b);
    if (in->target == INTERP_NO_TARGET)
      return fail(b, wave_instr_loc(instr), "%s outside a loop", name);
  }
  if (op == WAVE_OP_IF || op == WAVE_OP_ELSE || op == WAVE_OP_ENDIF || op == WAVE_OP_LOOP ||
      op == WAVE_OP_ENDLOOP)
    return fail(b, wave_instr_loc(instr), "%s outside the region tree", name);
  return true;
}

/* ---- the walk ------------------------------------------------------------------------- */

static bool flatten_block(builder *b, const wave_node *block) {
  for (const wave_instr *instr = wave_block_first(block); instr; instr = wave_instr_next(instr)) {
    if (wave_instr_op(instr) >= WAVE_OP_COUNT)
      return fail(b, wave_instr_loc(instr), "unknown opcode %u", (unsigned)wave_instr_op(instr));
    uint32_t index = emit(b, wave_instr_op(instr), wave_instr_loc(instr), instr);
    if (index == UINT32_MAX || !decode(b, instr, &b->prog->code[index]))
      return false;
  }
  return true;
}

static bool flatten_if(builder *b, const wave_node *node) {
  wave_operand cond_value = wave_if_cond(node);
  const wave_operand *cond = &cond_value;
  uint32_t index = emit(b, WAVE_OP_IF, wave_node_origin(node, WAVE_LINE_IF).loc, NULL);
  if (index == UINT32_MAX)
    return false;
  if (cond->kind != WAVE_OPERAND_PRED || cond->value >= WAVE_NUM_PREDS)
    return fail(b, wave_node_origin(node, WAVE_LINE_IF).loc,
                "if: the condition must be a predicate");
  interp_instr *in = &b->prog->code[index];
  in->ps[0] = (uint8_t)cond->value;
  in->ps_neg[0] = cond->negated;
  return push_open(b, index);
}

/* The then-list is done: an else op is needed only when the else-list has code. */
static bool flatten_else(builder *b, const wave_node *node) {
  if (!wave_node_list_first(wave_if_else(node)))
    return true;
  uint32_t if_index = b->open[b->num_open - 1];
  uint32_t index = emit(b, WAVE_OP_ELSE, wave_node_origin(node, WAVE_LINE_ELSE).loc, NULL);
  if (index == UINT32_MAX)
    return false;
  b->prog->code[if_index].target = index;
  return true;
}

static bool flatten_endif(builder *b, const wave_node *node) {
  uint32_t if_index = b->open[--b->num_open];
  uint32_t index = emit(b, WAVE_OP_ENDIF, wave_node_origin(node, WAVE_LINE_ENDIF).loc, NULL);
  if (index == UINT32_MAX)
    return false;
  interp_instr *code = b->prog->code;
  code[if_index].target2 = index;
  if (code[if_index].target != INTERP_NO_TARGET)
    code[code[if_index].target].target = index;
  code[index].target = if_index;
  return true;
}

static bool flatten_loop(builder *b, const wave_node *node) {
  uint32_t index = emit(b, WAVE_OP_LOOP, wave_node_origin(node, WAVE_LINE_LOOP).loc, NULL);
  return index != UINT32_MAX && push_open(b, index);
}

static bool flatten_endloop(builder *b, const wave_node *node) {
  uint32_t loop_index = b->open[--b->num_open];
  uint32_t index = emit(b, WAVE_OP_ENDLOOP, wave_node_origin(node, WAVE_LINE_ENDLOOP).loc, NULL);
  if (index == UINT32_MAX)
    return false;
  b->prog->code[loop_index].target = index;
  b->prog->code[index].target = loop_index;
  return true;
}

static bool flatten_region(builder *b, const wave_region *region) {
  wave_const_walker w;
  wave_const_walk_init(&w, wave_region_body(region));
  bool ok = true;
  while (ok && wave_const_walk_next(&w)) {
    switch (w.event) {
    case WAVE_WALK_BLOCK: ok = flatten_block(b, w.node); break;
    case WAVE_WALK_IF: ok = flatten_if(b, w.node); break;
    case WAVE_WALK_ELSE: ok = flatten_else(b, w.node); break;
    case WAVE_WALK_ENDIF: ok = flatten_endif(b, w.node); break;
    case WAVE_WALK_LOOP: ok = flatten_loop(b, w.node); break;
    case WAVE_WALK_ENDLOOP: ok = flatten_endloop(b, w.node); break;
    }
  }
  return ok;
}

/* ---- call targets --------------------------------------------------------------------- */

/* starts[i] is the program index where region i of `labels` begins. */
static bool resolve_calls(builder *b, const wave_label_table *labels, const uint32_t *starts) {
  interp_program *p = b->prog;
  for (size_t i = 0; i < p->len; i++) {
    if (p->code[i].op != WAVE_OP_CALL)
      continue;
    const wave_instr *instr = p->entries[i].instr;
    /* decode() checked that a call's one operand is a label */
    const char *label = wave_instr_operand(instr, 0).label;
    size_t region = wave_label_table_find(labels, label);
    if (region == WAVE_NO_REGION)
      return fail(b, wave_instr_loc(instr), "call: label '%s' is not in this kernel", label);
    p->code[i].target = starts[region];
  }
  return true;
}

bool interp_program_build(interp_program *prog, const wave_kernel *kernel,
                          const wave_allocator *allocator, char *err, size_t err_size,
                          wave_loc *loc, bool *oom) {
  memset(prog, 0, sizeof *prog);
  prog->allocator = allocator;
  *oom = false;
  builder b = {0};
  b.prog = prog;
  b.kernel = kernel;
  b.err = err;
  b.err_size = err_size;
  b.err_loc = loc;
  b.oom = oom;
  for (int i = 0; i < 256; i++)
    b.frag_slot[i] = NO_FRAG;
  if (wave_kernel_registers(kernel) > INTERP_MAX_REGISTERS) {
    fail(&b, wave_kernel_origin(kernel, WAVE_KERNEL_LINE_REGISTERS).loc,
         ".registers %u is more than the interpreter runs (%u)",
         (unsigned)wave_kernel_registers(kernel), (unsigned)INTERP_MAX_REGISTERS);
    return false;
  }
  prog->num_gprs = wave_kernel_registers(kernel);
  prog->sreg_row = prog->num_gprs;
  prog->const_row = prog->sreg_row + WAVE_NUM_SREGS;

  wave_label_table labels;
  if (!wave_label_table_init(&labels, kernel))
    return out_of_memory(&b);
  uint32_t *starts = wave_mem_calloc(prog->allocator, labels.num_regions, sizeof *starts);
  bool ok = starts != NULL;
  if (!ok)
    out_of_memory(&b);
  for (size_t i = 0; ok && i < labels.num_regions; i++) {
    starts[i] = (uint32_t)prog->len;
    ok = flatten_region(&b, labels.regions[i]);
  }
  if (ok) {
    wave_loc end = wave_kernel_origin(kernel, WAVE_KERNEL_LINE_END).loc;
    ok = emit(&b, INTERP_OP_END, end, NULL) != UINT32_MAX && resolve_calls(&b, &labels, starts);
  }
  wave_mem_free(prog->allocator, starts);
  wave_label_table_free(&labels);
  wave_mem_free(prog->allocator, b.open);
  wave_mem_free(prog->allocator, b.const_slots);
  if (!ok)
    interp_program_free(prog);
  return ok;
}

void interp_program_free(interp_program *prog) {
  wave_mem_free(prog->allocator, prog->code);
  wave_mem_free(prog->allocator, prog->entries);
  wave_mem_free(prog->allocator, prog->consts);
  memset(prog, 0, sizeof *prog);
}
