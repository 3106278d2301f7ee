/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A module and what it owns (waveopt/ir.h): its arenas, kernels, regions, nodes and
 * instructions, made and linked here; an instruction's operands in their stored form, its
 * comments in a note, the labels it names in the module's table (ir/code.h).
 */
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "support/arena.h"
#include "support/grow.h"
#include "waveopt/waveopt.h"

const char *wave_version(void) { return WAVE_VERSION; }

wave_module *wave_module_create(const char *file) { return wave_module_create_with(file, NULL); }

wave_module *wave_module_create_with(const char *file, const wave_allocator *allocator) {
  wave_arena *arena = wave_arena_create(allocator);
  wave_arena *code = arena ? wave_arena_create(allocator) : NULL;
  wave_module *module = arena && code ? wave_arena_alloc(arena, sizeof(*module)) : NULL;
  if (module) {
    module->allocator = wave_mem_keep(&module->own_allocator, allocator);
    module->arena = arena;
    module->code_arena = code;
    module->source.fd = -1;
    module->source.allocator = module->allocator;
  }
  if (!module || (file && !(module->file = wave_module_strdup(module, file, strlen(file))))) {
    wave_arena_destroy(code);
    wave_arena_destroy(arena);
    return NULL;
  }
  return module;
}

void wave_module_destroy(wave_module *module) {
  if (!module)
    return;
  wave_source_free(&module->source);
  wave_arena_destroy(module->code_arena);
  wave_mem_free(module->allocator, module->labels);
  wave_mem_free(module->allocator, module->notes);
  wave_arena_destroy(module->arena);
}

const wave_allocator *wave_module_allocator(const wave_module *module) { return module->allocator; }

void *wave_module_alloc_code(wave_module *module, size_t size) {
  return wave_arena_alloc(module->code_arena, size);
}

void *wave_module_alloc(wave_module *module, size_t size) {
  return wave_arena_alloc(module->arena, size);
}

bool wave_module_adopt(wave_module *module, void *block) {
  return wave_arena_adopt(module->arena, block);
}

const char *wave_module_strdup(wave_module *module, const char *s, size_t len) {
  if (len == SIZE_MAX)
    return NULL;
  char *d = wave_arena_alloc(module->arena, len + 1);
  if (d)
    memcpy(d, s, len);
  return d;
}

static void init_list(wave_node_list *list, wave_node *parent, wave_region *region) {
  list->first = list->last = NULL;
  list->parent = parent;
  list->region = region;
}

wave_node_list *wave_node_list_create(wave_module *module) {
  return wave_module_alloc(module, sizeof(wave_node_list));
}

wave_kernel *wave_kernel_create(wave_module *module, const char *name) {
  wave_kernel *kernel = wave_module_alloc(module, sizeof(*kernel));
  if (!kernel || !(kernel->name = wave_module_strdup(module, name, strlen(name))))
    return NULL;
  kernel->module = module;
  kernel->registers = WAVE_DEFAULT_REGISTERS;
  wave_region *entry = wave_module_alloc(module, sizeof(*entry));
  if (!entry)
    return NULL;
  entry->kernel = kernel;
  init_list(&entry->body, NULL, entry);
  kernel->first_region = kernel->last_region = entry;
  kernel->prev = module->last_kernel;
  if (module->last_kernel)
    module->last_kernel->next = kernel;
  else
    module->first_kernel = kernel;
  module->last_kernel = kernel;
  module->num_kernels++;
  return kernel;
}

wave_region *wave_region_create(wave_kernel *kernel, const char *label) {
  wave_module *module = kernel->module;
  wave_region *region = wave_module_alloc(module, sizeof(*region));
  if (!region || !(region->label = wave_module_strdup(module, label, strlen(label))))
    return NULL;
  region->kernel = kernel;
  init_list(&region->body, NULL, region);
  region->prev = kernel->last_region;
  kernel->last_region->next = region;
  kernel->last_region = region;
  return region;
}

wave_node *wave_block_create(wave_module *module) {
  wave_node *node = wave_module_alloc_code(module, wave_code_node_size(WAVE_NODE_BLOCK));
  if (node) {
    node->kind = WAVE_NODE_BLOCK;
    node->module = module;
  }
  return node;
}

wave_node *wave_if_create(wave_module *module, wave_operand cond) {
  wave_node *node = wave_module_alloc_code(module, wave_code_node_size(WAVE_NODE_IF));
  if (!node)
    return NULL;
  node->kind = WAVE_NODE_IF;
  node->module = module;
  node->u.if_.cond = cond;
  init_list(&node->u.if_.then_body, node, NULL);
  init_list(&node->u.if_.else_body, node, NULL);
  return node;
}

wave_node *wave_loop_create(wave_module *module) {
  wave_node *node = wave_module_alloc_code(module, wave_code_node_size(WAVE_NODE_LOOP));
  if (!node)
    return NULL;
  node->kind = WAVE_NODE_LOOP;
  node->module = module;
  init_list(&node->u.loop.body, node, NULL);
  return node;
}

/* A label's index in the module's table. Instructions that name the same label one after
 * another (a clone, a rewrite copying an operand) share the last entry; the table otherwise
 * grows by one per label stored, as the labels of a module are few. */
static bool label_index(wave_module *module, const char *label, uint32_t *index) {
  if (module->num_labels && module->labels[module->num_labels - 1] == label) {
    *index = (uint32_t)(module->num_labels - 1);
    return true;
  }
  if (module->num_labels == UINT32_MAX ||
      !wave_grow(module->allocator, (void **)&module->labels, &module->cap_labels,
                 module->num_labels + 1, sizeof(*module->labels)))
    return false;
  module->labels[module->num_labels] = label;
  *index = (uint32_t)module->num_labels++;
  return true;
}

bool wave_code_slot_store(wave_module *module, wave_code_slot *slot, wave_operand operand) {
  if (operand.half > 3 || operand.imm_form > 3)
    return false;
  wave_code_slot s = {
      operand.kind, (uint8_t)(operand.half | (operand.negated != 0) << 2 | operand.imm_form << 3),
      (uint16_t)(operand.col <= WAVE_CODE_MAX_COL ? operand.col : 0), operand.value};
  if (operand.kind == WAVE_OPERAND_LABEL && !label_index(module, operand.label, &s.value))
    return false;
  *slot = s;
  return true;
}

/* The instruction's own note, made from what it has when it has none; NULL when the module's
 * table cannot grow. The address holds until the next note is made. */
static wave_code_note *note_of(wave_instr *instr) {
  wave_module *module = wave_code_instr_module(instr);
  if (!instr->note) {
    if (module->num_notes >= WAVE_CODE_MAX_NOTES ||
        !wave_grow(module->allocator, (void **)&module->notes, &module->cap_notes,
                   module->num_notes + 1, sizeof(*module->notes)))
      return NULL;
    module->notes[module->num_notes] = (wave_code_note){wave_code_instr_file(instr), NULL, NULL};
    instr->note = (unsigned)++module->num_notes;
  }
  return &module->notes[instr->note - 1];
}

bool wave_code_instr_set_comments(wave_instr *instr, const char *leading, const char *comment) {
  if (!instr->note && !leading && !comment)
    return true;
  wave_code_note *note = note_of(instr);
  if (!note)
    return false;
  note->leading = leading;
  note->comment = comment;
  return true;
}

bool wave_instr_set_origin(wave_instr *instr, const wave_src *origin) {
  const char *file = origin->loc.file;
  /* Without a note the file follows from the line (wave_instr.note). */
  const char *implied = origin->loc.line ? wave_code_instr_module(instr)->file : NULL;
  bool needs_note = file != implied || origin->comment || origin->leading;
  if (needs_note && !note_of(instr))
    return false;
  instr->line = origin->loc.line;
  instr->col = (uint16_t)(origin->loc.col <= WAVE_CODE_MAX_COL ? origin->loc.col : 0);
  if (instr->note)
    *note_of(instr) = (wave_code_note){file, origin->comment, origin->leading};
  return true;
}

wave_src wave_code_line_origin(wave_code_line line) {
  return line.src ? *line.src : wave_code_instr_origin(line.instr);
}

bool wave_code_line_set_comments(wave_code_line line, const char *leading, const char *comment) {
  if (line.instr)
    return wave_code_instr_set_comments(line.instr, leading, comment);
  line.src->leading = leading;
  line.src->comment = comment;
  return true;
}

/* A record with room for `units` units, detached in the module. */
static wave_instr *alloc_instr(wave_module *module, unsigned units) {
  wave_instr *instr =
      wave_module_alloc_code(module, sizeof(*instr) + units * sizeof(wave_code_unit));
  if (!instr)
    return NULL;
  instr->owner = (uintptr_t)module | 1;
  instr->units = units;
  module->instrs_made++;
  return instr;
}

/* The units a record needs for its slots and decoded registers; at least one, which a spilled
 * record needs for its pointer. */
static unsigned units_for(unsigned num_operands, unsigned num_regs) {
  unsigned units = num_operands + (num_regs + 3) / 4;
  return units ? units : 1;
}

/* Writes the registers decoded from the record's slots after them, or marks them undecoded
 * when they (or the opcode's decoding) do not fit the record. */
static void store_regs(wave_instr *instr, bool fit, const uint16_t *regs, unsigned num_reads,
                       unsigned num_writes) {
  unsigned cap = instr->spilled ? WAVE_CODE_FULL_UNITS : instr->units;
  if (!fit || units_for(instr->num_operands, num_reads + num_writes) > cap) {
    instr->num_reads = WAVE_CODE_UNDECODED;
    instr->num_writes = 0;
    return;
  }
  /* A few each: by hand, where memcpy of a varying size is a call. */
  uint16_t *to = (uint16_t *)(void *)(wave_code_slots(instr) + instr->num_operands);
  for (unsigned i = 0; i < num_reads + num_writes; i++)
    to[i] = regs[i];
  instr->num_reads = num_reads;
  instr->num_writes = num_writes;
}

void wave_code_instr_decode(wave_instr *instr) {
  uint16_t regs[WAVE_MAX_INSTR_REGS];
  unsigned num_reads, num_writes;
  bool fit = wave_code_decode(wave_instr_op(instr), wave_code_units(instr), instr->num_operands,
                              regs, &num_reads, &num_writes);
  store_regs(instr, fit, regs, num_reads, num_writes);
}

wave_instr *wave_instr_create(wave_module *module, wave_opcode op, int guard, bool guard_negated,
                              unsigned num_operands, const wave_operand *operands) {
  if (num_operands > WAVE_MAX_OPERANDS)
    return NULL;
  /* Stored and decoded first, so that the record is made as small as they let it be. */
  wave_code_unit units[WAVE_MAX_OPERANDS];
  for (unsigned i = 0; i < num_operands; i++)
    if (!wave_code_slot_store(module, &units[i].slot, operands[i]))
      return NULL;
  uint16_t regs[WAVE_MAX_INSTR_REGS];
  unsigned num_reads, num_writes;
  bool fit = wave_code_decode(op, units, num_operands, regs, &num_reads, &num_writes);
  wave_instr *instr =
      alloc_instr(module, units_for(num_operands, fit ? num_reads + num_writes : 0));
  if (!instr)
    return NULL;
  for (unsigned i = 0; i < num_operands; i++)
    instr->area[i] = units[i];
  instr->op = (uint16_t)op;
  instr->guard = (int8_t)guard;
  instr->guard_negated = guard_negated;
  instr->num_operands = num_operands;
  store_regs(instr, fit, regs, num_reads, num_writes);
  return instr;
}

wave_instr *wave_code_instr_copy(wave_module *module, const wave_instr *instr) {
  unsigned units = instr->spilled ? WAVE_CODE_FULL_UNITS : instr->units;
  wave_instr *copy = alloc_instr(module, units);
  if (!copy)
    return NULL;
  uintptr_t owner = copy->owner;
  memcpy(copy, instr, sizeof(*copy));
  const wave_code_unit *from = wave_code_units(instr);
  for (unsigned i = 0; i < units; i++)
    copy->area[i] = from[i];
  copy->prev = copy->next = NULL;
  copy->owner = owner;
  copy->units = units;
  copy->spilled = false;
  copy->note = 0;
  return copy;
}

bool wave_code_instr_set_num_operands(wave_instr *instr, unsigned n) {
  if (n > WAVE_MAX_OPERANDS)
    return false;
  if (!instr->spilled && n > instr->units) {
    wave_code_unit *spill = wave_module_alloc_code(wave_code_instr_module(instr),
                                                   WAVE_CODE_FULL_UNITS * sizeof(*spill));
    if (!spill)
      return false;
    memcpy(spill, instr->area, instr->num_operands * sizeof(*spill));
    instr->area[0].spill = spill;
    instr->spilled = true;
  }
  wave_code_slot *slots = wave_code_slots(instr);
  for (unsigned i = instr->num_operands; i < n; i++)
    slots[i] = (wave_code_slot){0};
  instr->num_operands = n;
  wave_code_instr_decode(instr);
  return true;
}

/* The list a node's subtree starts with; NULL for a block, which has none. */
static wave_node_list *first_list(wave_node *node) {
  switch (node->kind) {
  case WAVE_NODE_IF:
    return &node->u.if_.then_body;
  case WAVE_NODE_LOOP:
    return &node->u.loop.body;
  case WAVE_NODE_BLOCK:
    break;
  }
  return NULL;
}

/* Every list of a subtree names one region: each insertion keeps that true, so the node's own
 * first list tells whether anything below it needs the walk. A subtree built detached and then
 * inserted, or moved to another region, is walked once (in text order, no recursion); the
 * parser's top-down appends put still-empty nodes into their own region's lists and cost O(1). */
void wave_node_adopt(wave_node_list *list, wave_node *node) {
  node->list = list;
  wave_node_list *inner = first_list(node);
  if (!inner || inner->region == list->region)
    return;
  for (wave_node *n = node; n; n = wave_tree_next(node, n)) {
    if (n->kind == WAVE_NODE_IF) {
      n->u.if_.then_body.region = list->region;
      n->u.if_.else_body.region = list->region;
    } else if (n->kind == WAVE_NODE_LOOP) {
      n->u.loop.body.region = list->region;
    }
  }
}

/* Whether the node may be linked into the list: it is detached, and made in the list's module
 * (its memory is that module's arena, which destroying or compacting the module takes along). */
static bool node_joins(const wave_node_list *list, const wave_node *node) {
  const wave_module *module = list ? wave_code_list_module(list) : NULL;
  return list && !node->list && (!module || module == node->module);
}

bool wave_node_list_append(wave_node_list *list, wave_node *node) {
  if (!node_joins(list, node))
    return false;
  node->prev = list->last;
  node->next = NULL;
  if (list->last)
    list->last->next = node;
  else
    list->first = node;
  list->last = node;
  wave_node_adopt(list, node);
  return true;
}

bool wave_node_list_prepend(wave_node_list *list, wave_node *node) {
  if (!node_joins(list, node))
    return false;
  node->next = list->first;
  node->prev = NULL;
  if (list->first)
    list->first->prev = node;
  else
    list->last = node;
  list->first = node;
  wave_node_adopt(list, node);
  return true;
}

bool wave_node_insert_before(wave_node *pos, wave_node *node) {
  wave_node_list *list = pos->list;
  if (!node_joins(list, node))
    return false;
  node->next = pos;
  node->prev = pos->prev;
  if (pos->prev)
    pos->prev->next = node;
  else
    list->first = node;
  pos->prev = node;
  wave_node_adopt(list, node);
  return true;
}

bool wave_node_insert_after(wave_node *pos, wave_node *node) {
  wave_node_list *list = pos->list;
  if (!node_joins(list, node))
    return false;
  node->prev = pos;
  node->next = pos->next;
  if (pos->next)
    pos->next->prev = node;
  else
    list->last = node;
  pos->next = node;
  wave_node_adopt(list, node);
  return true;
}

void wave_node_remove(wave_node *node) {
  wave_node_list *list = node->list;
  if (!list)
    return;
  if (node->prev)
    node->prev->next = node->next;
  else
    list->first = node->next;
  if (node->next)
    node->next->prev = node->prev;
  else
    list->last = node->prev;
  node->prev = node->next = NULL;
  node->list = NULL;
}

/* Whether the instruction may be linked into the block: it is detached, and made in the
 * block's module (see node_joins). */
static bool instr_joins(const wave_node *block, const wave_instr *instr) {
  return block && block->kind == WAVE_NODE_BLOCK && (instr->owner & 1) &&
         (const wave_module *)(instr->owner & ~(uintptr_t)1) == block->module;
}

bool wave_block_append(wave_node *block, wave_instr *instr) {
  if (!instr_joins(block, instr))
    return false;
  instr->prev = block->u.block.last;
  instr->next = NULL;
  if (block->u.block.last)
    block->u.block.last->next = instr;
  else
    block->u.block.first = instr;
  block->u.block.last = instr;
  instr->owner = (uintptr_t)block;
  return true;
}

bool wave_block_prepend(wave_node *block, wave_instr *instr) {
  if (!instr_joins(block, instr))
    return false;
  instr->next = block->u.block.first;
  instr->prev = NULL;
  if (block->u.block.first)
    block->u.block.first->prev = instr;
  else
    block->u.block.last = instr;
  block->u.block.first = instr;
  instr->owner = (uintptr_t)block;
  return true;
}

bool wave_instr_insert_before(wave_instr *pos, wave_instr *instr) {
  wave_node *block = wave_code_instr_node(pos);
  if (!instr_joins(block, instr))
    return false;
  instr->next = pos;
  instr->prev = pos->prev;
  if (pos->prev)
    pos->prev->next = instr;
  else
    block->u.block.first = instr;
  pos->prev = instr;
  instr->owner = (uintptr_t)block;
  return true;
}

bool wave_instr_insert_after(wave_instr *pos, wave_instr *instr) {
  wave_node *block = wave_code_instr_node(pos);
  if (!instr_joins(block, instr))
    return false;
  instr->prev = pos;
  instr->next = pos->next;
  if (pos->next)
    pos->next->prev = instr;
  else
    block->u.block.last = instr;
  pos->next = instr;
  instr->owner = (uintptr_t)block;
  return true;
}

void wave_instr_remove(wave_instr *instr) {
  wave_node *block = wave_code_instr_node(instr);
  if (!block)
    return;
  const wave_node_list *list = block->list;
  if (list && list->region)
    list->region->kernel->module->instrs_removed++;
  if (instr->prev)
    instr->prev->next = instr->next;
  else
    block->u.block.first = instr->next;
  if (instr->next)
    instr->next->prev = instr->prev;
  else
    block->u.block.last = instr->prev;
  instr->prev = instr->next = NULL;
  instr->owner = (uintptr_t)block->module | 1;
}

wave_node *wave_node_list_tail_block(wave_module *module, wave_node_list *list) {
  if (list->last && list->last->kind == WAVE_NODE_BLOCK)
    return list->last;
  wave_node *block = wave_block_create(module);
  if (block)
    wave_node_list_append(list, block);
  return block;
}
