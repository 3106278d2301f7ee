/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The storage of instructions and tree nodes, private to the library. The public headers
 * declare wave_instr and wave_node opaque and export one function per accessor
 * (waveopt/instr.h, waveopt/edit.h); the records around them, from node lists up to the
 * module, are in ir/module.h. An embedder never compiles against this layout, so it may change
 * in any release.
 *
 * Inside the library the accessor names are macros over the static inline readers below: the
 * analyses and passes ask them millions of times per kernel and pay nothing for the opacity.
 * ir/access.c defines the exported functions, writing each name in parentheses so that the
 * macro does not apply there.
 *
 * Only the files of ir/ that make, link, clone and lay out code (module.c, edit.c, clone.c,
 * compact.c), decode registers (regs.c) and export the accessors (access.c) read the fields;
 * everything else, passes and analyses included, goes through the accessors.
 */
#ifndef WAVEOPT_IR_CODE_H
#define WAVEOPT_IR_CODE_H

#include <stddef.h>

#include "ir/module.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/ir.h"

/* An operand as an instruction stores it: 8 bytes where the public wave_operand takes 24, for
 * the six slots every instruction carries. A label, which needs a pointer, is stored as its
 * index in the module's label table (wave_module.labels); a column past WAVE_CODE_MAX_COL,
 * which only a line of some 64 000 characters has, is stored as 0, "not known", and a
 * diagnostic about that operand points at its instruction instead. */
typedef struct wave_code_slot {
  uint8_t kind;   /* wave_operand_kind */
  uint8_t bits;   /* half (bits 0-1), negated (bit 2), imm_form (bits 3-4) */
  uint16_t col;   /* source column, 0 when built or unknown */
  uint32_t value; /* register, predicate, special register, scope, immediate bits or label */
} wave_code_slot;

#define WAVE_CODE_MAX_COL UINT16_MAX

/* What few instructions have: comments, or a file that is not their module's. Each note
 * belongs to one instruction (a clone copies it), so that moving comments can change it in
 * place. */
typedef struct wave_code_note {
  const char *file;
  const char *comment, *leading;
} wave_code_note;

#define WAVE_CODE_REGS 11

/* An instruction's operands and decoded registers live in 8-byte units after its header: its
 * slots first, one unit each, then the regset indices of the registers it reads and writes,
 * four to a unit (wave_code_regs). An instruction that outgrows the units it was made with
 * (more operands than it had) moves them to a block of WAVE_CODE_FULL_UNITS, which the first
 * unit then points at (wave_instr.spilled). */
typedef union wave_code_unit {
  wave_code_slot slot;
  uint16_t regs[4];
  union wave_code_unit *spill;
} wave_code_unit;

#define WAVE_CODE_FULL_UNITS (WAVE_MAX_OPERANDS + (WAVE_CODE_REGS + 3) / 4)
#define WAVE_CODE_UNDECODED 15
#define WAVE_CODE_MAX_WRITES 7
#define WAVE_CODE_MAX_NOTES ((1u << 27) - 1)

/* Forty bytes and the units: a million-instruction kernel is most of a module, and every walk
 * reads it (tests/unit/test_validate.c fails when the header grows). */
struct wave_instr {
  struct wave_instr *prev, *next;
  /* The block holding it, or, detached, its module with the lowest bit set: an instruction
   * reaches its module's arena, label table and notes through whichever it has. */
  uintptr_t owner;
  uint32_t line; /* of its source, 0 when built */
  uint16_t col;  /* as an operand's (WAVE_CODE_MAX_COL) */
  uint16_t op;   /* wave_opcode */
  /* 1 + the index of its note in the module's table, 0 for none: then it has no comments, and
   * its file is the module's when it has a line, none when not. */
  unsigned note : 27;
  unsigned units : 4;   /* made with; WAVE_CODE_FULL_UNITS once spilled */
  unsigned spilled : 1; /* its slots moved out (wave_code_units) */
  /* What every walk reads in whole bytes; the rest in bits. */
  int8_t guard;         /* WAVE_NO_GUARD or a predicate 0..3 */
  uint8_t cache_hint;   /* wave_cache_hint */
  uint8_t num_operands; /* slots as written; the verifier checks it against the shape */
  /* How many of the decoded registers it reads and writes (reads first, each list ascending);
   * num_reads is WAVE_CODE_UNDECODED when they do not fit its units. The guard is not among
   * them (it changes alone). */
  unsigned num_reads : 4;
  unsigned num_writes : 3;
  unsigned guard_negated : 1;
  wave_code_unit area[];
};

static inline const wave_code_unit *wave_code_units(const wave_instr *instr) {
  return instr->spilled ? instr->area[0].spill : instr->area;
}
static inline wave_code_slot *wave_code_slots(wave_instr *instr) {
  return &((wave_code_unit *)wave_code_units(instr))->slot;
}
/* The decoded registers: num_reads reads, then num_writes writes. */
static inline const uint16_t *wave_code_regs(const wave_instr *instr) {
  return (const uint16_t *)(const void *)(wave_code_units(instr) + instr->num_operands);
}

/* The stored form of an operand, and back (loading reads the module only for a label). Storing
 * fails for a half or imm_form outside its enum, and for a label when the module's label table
 * cannot grow. */
bool wave_code_slot_store(wave_module *module, wave_code_slot *slot, wave_operand operand);
static inline wave_operand wave_code_slot_load(const wave_module *module, wave_code_slot slot) {
  wave_operand o = {0};
  o.kind = slot.kind;
  o.half = slot.bits & 3;
  o.negated = slot.bits >> 2 & 1;
  o.imm_form = slot.bits >> 3 & 3;
  o.col = slot.col;
  if (slot.kind == WAVE_OPERAND_LABEL)
    o.label = module->labels[slot.value];
  else
    o.value = slot.value;
  return o;
}

struct wave_node {
  wave_node_kind kind;
  struct wave_node *prev, *next;
  wave_node_list *list; /* the list holding it, NULL when detached */
  /* Whose arena holds it: it joins only that module's code, and a block's instructions reach
   * their module through it (wave_instr.owner). */
  wave_module *module;
  union {
    struct {
      wave_instr *first, *last;
    } block;
    struct {
      wave_operand cond; /* a predicate */
      wave_node_list then_body;
      wave_node_list else_body;
      bool has_else; /* print `else` even when the else-list is empty */
      wave_src if_src, else_src, endif_src;
    } if_;
    struct {
      wave_node_list body;
      wave_src loop_src, endloop_src;
    } loop;
  } u;
};

static inline wave_module *wave_code_instr_module(const wave_instr *instr) {
  if (instr->owner & 1)
    return (wave_module *)(instr->owner & ~(uintptr_t)1);
  return ((const struct wave_node *)instr->owner)->module;
}

/* The module whose code a list holds, or NULL for a detached list that has held nothing yet
 * (wave_node_list_create). */
static inline wave_module *wave_code_list_module(const wave_node_list *list) {
  if (list->parent)
    return list->parent->module;
  return list->region ? list->region->kernel->module : NULL;
}

/* The bytes a node of the kind occupies: a block, most nodes of a kernel, ends after its
 * instruction list (48 bytes where an if takes 224), so nodes are allocated by kind and nothing
 * reads or copies past the arm of their own kind. */
#define WAVE_CODE_NODE_END(arm) (offsetof(wave_node, u) + sizeof(((wave_node *)NULL)->u.arm))
static inline size_t wave_code_node_size(wave_node_kind kind) {
  switch (kind) {
  case WAVE_NODE_BLOCK:
    return WAVE_CODE_NODE_END(block);
  case WAVE_NODE_IF:
    return WAVE_CODE_NODE_END(if_);
  case WAVE_NODE_LOOP:
    break;
  }
  return WAVE_CODE_NODE_END(loop);
}

/* Decodes the registers of the instruction's operands again (wave_code_regs), or marks them
 * undecoded when they do not fit its units. */
void wave_code_instr_decode(wave_instr *instr);
/* The registers of op over the slots as wave_code_regs lists them, into regs (room for
 * WAVE_MAX_INSTR_REGS); false when they are more than WAVE_CODE_REGS reads and writes, or more
 * than WAVE_CODE_MAX_WRITES writes, which the record does not hold. */
bool wave_code_decode(wave_opcode op, const wave_code_unit *units, unsigned num_operands,
                      uint16_t *regs, unsigned *num_reads, unsigned *num_writes);
/* A detached copy of the instruction in the module, without its note (the caller gives it the
 * origin) and with label slots still naming the original module's table. */
wave_instr *wave_code_instr_copy(wave_module *module, const wave_instr *instr);
/* Sets how many slots the instruction has; a slot past the old count starts empty. False, with
 * nothing changed, past WAVE_MAX_OPERANDS or when its slots must move and memory runs out. */
bool wave_code_instr_set_num_operands(wave_instr *instr, unsigned n);

/* Gives the instruction comments (NULL for none), keeping its location; false, with nothing
 * changed, when memory for its note runs out. */
bool wave_code_instr_set_comments(wave_instr *instr, const char *leading, const char *comment);

/* A source line the library writes comments to: an instruction's, or a wave_src stored in a
 * node, a region, a kernel or a stray label. Exactly one of the two is set; the comment moves
 * (xform/comments.h) and the parser's trailing comments know lines by it. */
typedef struct wave_code_line {
  wave_src *src;
  wave_instr *instr;
} wave_code_line;

static inline wave_code_line wave_code_src_line(wave_src *src) {
  wave_code_line line = {src, NULL};
  return line;
}
/* The line a region's label is written on, and a kernel's `.end` line. */
static inline wave_code_line wave_code_region_line(wave_region *region) {
  return wave_code_src_line(&region->label_src);
}
static inline wave_code_line wave_code_kernel_end_line(wave_kernel *kernel) {
  return wave_code_src_line(&kernel->end_src);
}
static inline wave_code_line wave_code_instr_line(wave_instr *instr) {
  wave_code_line line = {NULL, instr};
  return line;
}
static inline bool wave_code_line_is(wave_code_line a, wave_code_line b) {
  return a.src == b.src && a.instr == b.instr;
}
static inline const void *wave_code_line_key(wave_code_line line) {
  return line.src ? (const void *)line.src : (const void *)line.instr;
}
/* Whether it names a line at all: an empty list has none to give (a line of two NULLs). */
static inline bool wave_code_line_exists(wave_code_line line) {
  return wave_code_line_key(line) != NULL;
}
wave_src wave_code_line_origin(wave_code_line line);
/* False, with nothing changed, when memory runs out (an instruction's note). */
bool wave_code_line_set_comments(wave_code_line line, const char *leading, const char *comment);

static inline wave_opcode wave_code_instr_op(const wave_instr *instr) {
  return (wave_opcode)instr->op;
}
static inline int wave_code_instr_guard(const wave_instr *instr) { return instr->guard; }
static inline bool wave_code_instr_guard_negated(const wave_instr *instr) {
  return instr->guard_negated;
}
static inline wave_cache_hint wave_code_instr_cache_hint(const wave_instr *instr) {
  return (wave_cache_hint)instr->cache_hint;
}
static inline unsigned wave_code_instr_num_operands(const wave_instr *instr) {
  return instr->num_operands;
}
static inline wave_operand wave_code_instr_operand(const wave_instr *instr, unsigned i) {
  /* Only a label needs the module: the others do not pay for finding it. */
  if (i < instr->num_operands) {
    wave_code_slot slot = wave_code_units(instr)[i].slot;
    return wave_code_slot_load(
        slot.kind == WAVE_OPERAND_LABEL ? wave_code_instr_module(instr) : NULL, slot);
  }
  wave_operand none = {0};
  return none;
}
static inline wave_instr *wave_code_instr_next(const wave_instr *instr) { return instr->next; }
static inline wave_instr *wave_code_instr_prev(const wave_instr *instr) { return instr->prev; }
static inline wave_node *wave_code_instr_node(const wave_instr *instr) {
  return instr->owner & 1 ? NULL : (wave_node *)instr->owner;
}
static inline const wave_code_note *wave_code_instr_note(const wave_instr *instr) {
  return instr->note ? &wave_code_instr_module(instr)->notes[instr->note - 1] : NULL;
}
static inline const char *wave_code_instr_file(const wave_instr *instr) {
  if (instr->note)
    return wave_code_instr_note(instr)->file;
  return instr->line ? wave_code_instr_module(instr)->file : NULL;
}
static inline wave_src wave_code_instr_origin(const wave_instr *instr) {
  wave_src src = {{wave_code_instr_file(instr), instr->line, instr->col}, NULL, NULL};
  const wave_code_note *note = wave_code_instr_note(instr);
  if (note) {
    src.comment = note->comment;
    src.leading = note->leading;
  }
  return src;
}
static inline wave_loc wave_code_instr_loc(const wave_instr *instr) {
  wave_loc loc = {wave_code_instr_file(instr), instr->line, instr->col};
  return loc;
}
static inline wave_instr *wave_code_block_first(const wave_node *block) {
  return block->u.block.first;
}
static inline wave_instr *wave_code_block_last(const wave_node *block) {
  return block->u.block.last;
}
static inline void wave_code_instr_set_op(wave_instr *instr, wave_opcode op) {
  instr->op = (uint16_t)op;
}
static inline void wave_code_instr_set_guard(wave_instr *instr, int pred, bool negated) {
  instr->guard = (int8_t)pred;
  instr->guard_negated = pred != WAVE_NO_GUARD && negated;
}
static inline void wave_code_instr_set_cache_hint(wave_instr *instr, wave_cache_hint hint) {
  instr->cache_hint = (uint8_t)hint;
}

static inline wave_node_kind wave_code_node_kind(const wave_node *node) { return node->kind; }
static inline wave_node *wave_code_node_prev(const wave_node *node) { return node->prev; }
static inline wave_node *wave_code_node_next(const wave_node *node) { return node->next; }
static inline wave_node_list *wave_code_node_list(const wave_node *node) { return node->list; }
static inline wave_operand wave_code_if_cond(const wave_node *node) { return node->u.if_.cond; }
static inline void wave_code_if_set_cond(wave_node *node, wave_operand cond) {
  node->u.if_.cond = cond;
}
/* Lists are links: a const node hands out its lists as they are stored, like its neighbours. */
static inline wave_node_list *wave_code_if_then(const wave_node *node) {
  return (wave_node_list *)&node->u.if_.then_body;
}
static inline wave_node_list *wave_code_if_else(const wave_node *node) {
  return (wave_node_list *)&node->u.if_.else_body;
}
static inline bool wave_code_if_has_else(const wave_node *node) { return node->u.if_.has_else; }
static inline void wave_code_if_set_has_else(wave_node *node, bool has_else) {
  node->u.if_.has_else = has_else;
}
static inline wave_node_list *wave_code_loop_body(const wave_node *node) {
  return (wave_node_list *)&node->u.loop.body;
}
/* A line of an if or loop as a place to write, for the comment moves (xform/comments.h). */
static inline wave_src *wave_code_node_src(const wave_node *node, wave_node_line line) {
  wave_node *n = (wave_node *)node;
  switch (line) {
  case WAVE_LINE_IF:
    return &n->u.if_.if_src;
  case WAVE_LINE_ELSE:
    return &n->u.if_.else_src;
  case WAVE_LINE_ENDIF:
    return &n->u.if_.endif_src;
  case WAVE_LINE_LOOP:
    return &n->u.loop.loop_src;
  case WAVE_LINE_ENDLOOP:
    break;
  }
  return &n->u.loop.endloop_src;
}
static inline wave_code_line wave_code_node_line(const wave_node *node, wave_node_line line) {
  return wave_code_src_line(wave_code_node_src(node, line));
}
static inline wave_src wave_code_node_origin(const wave_node *node, wave_node_line line) {
  return *wave_code_node_src(node, line);
}
static inline void wave_code_node_set_origin(wave_node *node, wave_node_line line,
                                             const wave_src *origin) {
  *wave_code_node_src(node, line) = *origin;
}
static inline wave_node *wave_code_list_first(const wave_node_list *list) { return list->first; }
static inline wave_node *wave_code_list_last(const wave_node_list *list) { return list->last; }
static inline wave_node *wave_code_list_parent(const wave_node_list *list) { return list->parent; }
static inline wave_region *wave_code_list_region(const wave_node_list *list) {
  return list->region;
}
static inline wave_node *wave_code_node_parent(const wave_node *node) {
  return node->list ? node->list->parent : NULL;
}
static inline wave_region *wave_code_node_region(const wave_node *node) {
  return node->list ? node->list->region : NULL;
}
/* edit.h's emptiness tests and downcasts, over the inline readers: its own inline helpers were
 * read before the macros here existed and would call the exported functions. */
static inline const wave_node *wave_code_node_as(const wave_node *node, wave_node_kind kind) {
  return node && node->kind == kind ? node : NULL;
}
static inline wave_node *wave_code_node_as_mutable(wave_node *node, wave_node_kind kind) {
  return (wave_node *)wave_code_node_as(node, kind);
}
#define wave_block_is_empty(block) (wave_code_block_first(block) == NULL)
#define wave_node_list_is_empty(list) (wave_code_list_first(list) == NULL)
#undef wave_node_as_
#define wave_node_as_(node, kind)                                                                  \
  _Generic((node), const wave_node *: wave_code_node_as, default: wave_code_node_as_mutable)( \
      (node), (kind))

#define wave_instr_op(instr) wave_code_instr_op(instr)
#define wave_instr_guard(instr) wave_code_instr_guard(instr)
#define wave_instr_guard_negated(instr) wave_code_instr_guard_negated(instr)
#define wave_instr_cache_hint(instr) wave_code_instr_cache_hint(instr)
#define wave_instr_num_operands(instr) wave_code_instr_num_operands(instr)
#define wave_instr_operand(instr, i) wave_code_instr_operand((instr), (i))
#define wave_instr_next(instr) wave_code_instr_next(instr)
#define wave_instr_prev(instr) wave_code_instr_prev(instr)
#define wave_instr_node(instr) wave_code_instr_node(instr)
#define wave_instr_origin(instr) wave_code_instr_origin(instr)
#define wave_instr_loc(instr) wave_code_instr_loc(instr)
#define wave_instr_set_guard(instr, pred, negated)                                                 \
  wave_code_instr_set_guard((instr), (pred), (negated))
#define wave_instr_set_cache_hint(instr, hint) wave_code_instr_set_cache_hint((instr), (hint))
#define wave_block_first(block) wave_code_block_first(block)
#define wave_block_last(block) wave_code_block_last(block)
#define wave_node_kind_of(node) wave_code_node_kind(node)
#define wave_node_prev(node) wave_code_node_prev(node)
#define wave_node_next(node) wave_code_node_next(node)
#define wave_node_list_of(node) wave_code_node_list(node)
#define wave_if_cond(node) wave_code_if_cond(node)
#define wave_if_set_cond(node, cond) wave_code_if_set_cond((node), (cond))
#define wave_if_then(node) wave_code_if_then(node)
#define wave_if_else(node) wave_code_if_else(node)
#define wave_if_has_else(node) wave_code_if_has_else(node)
#define wave_if_set_has_else(node, has_else) wave_code_if_set_has_else((node), (has_else))
#define wave_loop_body(node) wave_code_loop_body(node)
#define wave_node_origin(node, line) wave_code_node_origin((node), (line))
#define wave_node_set_origin(node, line, origin) wave_code_node_set_origin((node), (line), (origin))
#define wave_node_parent(node) wave_code_node_parent(node)
#define wave_node_region(node) wave_code_node_region(node)
#define wave_node_list_first(list) wave_code_list_first(list)
#define wave_node_list_last(list) wave_code_list_last(list)
#define wave_node_list_parent(list) wave_code_list_parent(list)
#define wave_node_list_region(list) wave_code_list_region(list)

#endif
