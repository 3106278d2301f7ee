/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The WAVE IR: a module of kernels, each a list of regions (the entry code and the labelled
 * subroutines that `call` reaches), each region a tree of control-flow nodes in the manner of
 * Mesa NIR's cf lists. A node is a block of straight-line instructions, an if (predicate,
 * then-list, else-list) or a loop (body list). `break` and `continue` are instructions inside
 * blocks: they only narrow the active mask. Registers are the physical r0..r254 and p0..p3.
 *
 * All memory belongs to the module's arena: nodes and instructions removed from a tree stay
 * allocated until the module is destroyed, so they may be reinserted elsewhere.
 *
 * The linking functions below do exactly what they say and nothing more; a tree handed from
 * one stage to the next is in the normal form of waveopt/edit.h (no empty block, no adjacent
 * blocks), whose editing functions keep it and whose validator checks it.
 */
#ifndef WAVEOPT_IR_H
#define WAVEOPT_IR_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/alloc.h"
#include "waveopt/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- opcode table ----------------------------------------------------------------------- */

typedef enum wave_opcode {
#define WAVE_OP(id, mnemonic, shape, category, flags, enc_op, enc_mod, size) WAVE_OP_##id,
#include "waveopt/opcodes.def"
#undef WAVE_OP
  WAVE_OP_COUNT
} wave_opcode;

/* The first WAVE_NUM_REAL_OPCODES entries are the mnemonics the upstream assembler accepts. */
#define WAVE_NUM_REAL_OPCODES 164

typedef enum wave_category {
  WAVE_CAT_INT, WAVE_CAT_BIT, WAVE_CAT_F32, WAVE_CAT_F16, WAVE_CAT_BF16, WAVE_CAT_F64,
  WAVE_CAT_CMP, WAVE_CAT_SELECT, WAVE_CAT_CVT, WAVE_CAT_LOAD, WAVE_CAT_STORE,
  WAVE_CAT_ATOMIC, WAVE_CAT_WAVE, WAVE_CAT_CONTROL, WAVE_CAT_MOVE, WAVE_CAT_MMA,
  WAVE_CAT_PRED,
} wave_category;

/* Effect flags of docs/language.md "Effect classes" plus what the toolchain survives
 * (docs/toolchain.md "Rules our output keeps"). */
enum {
  WAVE_F_PURE = 1u << 0,         /* no effect beyond its destination registers */
  WAVE_F_READS_MEM = 1u << 1,
  WAVE_F_WRITES_MEM = 1u << 2,
  WAVE_F_RMW = 1u << 3,          /* atomic read-modify-write */
  WAVE_F_ORDERING = 1u << 4,     /* barrier, fences, wait: memory motion stops here */
  WAVE_F_CONVERGENT = 1u << 5,   /* result depends on the set of active lanes */
  WAVE_F_MAY_TRAP = 1u << 6,     /* UB or emulator abort on some inputs: never speculate */
  WAVE_F_CONTROL = 1u << 7,      /* changes the active mask or the program counter */
  WAVE_F_STRUCTURED = 1u << 8,   /* if else endif loop break continue endloop */
  WAVE_F_CALL = 1u << 9,
  WAVE_F_EXIT = 1u << 10,        /* halt, return */
  WAVE_F_HIDDEN_STATE = 1u << 11, /* MMA fragments */
  WAVE_F_LOCAL_MEM = 1u << 12,
  WAVE_F_DEVICE_MEM = 1u << 13,
  WAVE_F_GUARD_OK = 1u << 14,    /* a @p1..3 guard on it survives every downstream tool */
  WAVE_F_ZERO_HI = 1u << 15,     /* writes a 16-bit result, upper half of rd zeroed */
  WAVE_F_PSEUDO = 1u << 16,      /* documentation dialect only; lowered before assembly */
  WAVE_F_OTHER_LANES = 1u << 17, /* reads its first source in other lanes, inactive ones too */
};

typedef struct wave_opcode_info {
  const char *mnemonic;
  const char *shape;     /* see opcodes.def */
  wave_category category;
  uint32_t flags;
  uint8_t enc_opcode;
  uint8_t enc_modifier;
  uint8_t size;          /* bytes in the upstream encoding; 0 for pseudo forms */
  uint8_t num_slots;     /* operand slots: two characters of the shape each */
} wave_opcode_info;

WAVE_API extern const wave_opcode_info wave_opcode_table[WAVE_OP_COUNT];

static inline const wave_opcode_info *wave_opcode_get(wave_opcode op) {
  return &wave_opcode_table[op];
}
static inline bool wave_opcode_has(wave_opcode op, uint32_t flags) {
  return (wave_opcode_table[op].flags & flags) != 0;
}
/* Pure and unable to trap: what wave_instr_can_speculate (waveopt/instr.h) asks of an
 * instruction's opcode. */
static inline bool wave_opcode_can_speculate(wave_opcode op) {
  return wave_opcode_has(op, WAVE_F_PURE) && !wave_opcode_has(op, WAVE_F_MAY_TRAP);
}

/* Operand slots of an opcode, read from its shape string. Inline, like the two above: the
 * analyses and passes ask them of every slot of every instruction. */
static inline unsigned wave_opcode_num_slots(wave_opcode op) {
  return wave_opcode_table[op].num_slots;
}
/* 'd' 'u' 'o' 'q' 'p' ...; '\0' past the last slot. */
static inline char wave_opcode_slot_kind(wave_opcode op, unsigned slot) {
  return slot < wave_opcode_num_slots(op) ? wave_opcode_table[op].shape[2 * slot] : '\0';
}
static inline unsigned wave_opcode_slot_width(wave_opcode op, unsigned slot) {
  return slot < wave_opcode_num_slots(op)
             ? (unsigned)(wave_opcode_table[op].shape[2 * slot + 1] - '0')
             : 0;
}
/* Whether a special register in this slot is read as itself: mov_sr's source, and mov's, which
 * the assembler turns into mov_sr. In every other slot sr_N is encoded as the GPR rN. */
static inline bool wave_opcode_reads_sreg(wave_opcode op, unsigned slot) {
  return wave_opcode_slot_kind(op, slot) == 's' || (op == WAVE_OP_MOV && slot == 1);
}
/* What a slot kind takes, for "expected ..." diagnostics ("predicate register", "scope"). */
WAVE_API const char *wave_slot_kind_noun(char kind);

/* Finds the opcode spelled name[0..len): a real mnemonic first, else a documentation-dialect
 * form (so "and" finds the GPR `and`; the parser picks PAND from its predicate operands). */
WAVE_API bool wave_opcode_lookup(const char *name, size_t len, wave_opcode *out);

/* A name -> opcode hash table for callers that look up many names (the parser). It is built
 * per caller rather than kept as a global so the library holds no mutable state. */
typedef struct wave_opcode_index {
  int16_t slots[512];
} wave_opcode_index;
WAVE_API void wave_opcode_index_init(wave_opcode_index *index);
WAVE_API bool wave_opcode_index_find(const wave_opcode_index *index, const char *name, size_t len,
                                     wave_opcode *out);

/* Whether the documentation dialect may write an immediate in this GPR-read slot
 * (`iadd r0, r0, 1`): single-register reads of ALU, compare, select and conversion ops. */
WAVE_API bool wave_opcode_accepts_docs_immediate(wave_opcode op, unsigned slot);

/* ---- operands ----------------------------------------------------------------------------- */

#define WAVE_MAX_GPR 254     /* r0..r254 are encodable */
#define WAVE_NUM_PREDS 4
#define WAVE_NUM_SREGS 20
#define WAVE_MAX_OPERANDS 6
#define WAVE_DEFAULT_REGISTERS 32

typedef enum wave_operand_kind {
  WAVE_OPERAND_NONE,   /* an omitted optional slot (atomic without a destination) */
  WAVE_OPERAND_GPR,
  WAVE_OPERAND_PRED,
  WAVE_OPERAND_SREG,
  WAVE_OPERAND_IMM,    /* mov_imm's value; in a GPR-read slot it is a docs-dialect immediate */
  WAVE_OPERAND_SCOPE,
  WAVE_OPERAND_LABEL,
} wave_operand_kind;

typedef enum wave_half { WAVE_HALF_NONE, WAVE_HALF_LO, WAVE_HALF_HI } wave_half;

typedef enum wave_scope {
  WAVE_SCOPE_WAVE, WAVE_SCOPE_WORKGROUP, WAVE_SCOPE_DEVICE, WAVE_SCOPE_SYSTEM,
} wave_scope;

/* How an immediate was written; printing keeps the spelling, the value is in `value`. */
typedef enum wave_imm_form {
  WAVE_IMM_DECIMAL,   /* printed as an unsigned decimal */
  WAVE_IMM_NEGATIVE,  /* printed as a signed decimal */
  WAVE_IMM_HEX,
  WAVE_IMM_FLOAT,     /* a float literal, already converted to its binary32 bits */
} wave_imm_form;

typedef enum wave_cache_hint {
  WAVE_HINT_NONE, WAVE_HINT_CACHED, WAVE_HINT_UNCACHED, WAVE_HINT_STREAMING,
} wave_cache_hint;

typedef struct wave_operand {
  uint8_t kind;       /* wave_operand_kind */
  uint8_t half;       /* wave_half: parsed and printed, ignored by every tool */
  uint8_t negated;    /* docs-dialect `break !p1` / `continue !p1` */
  uint8_t imm_form;   /* wave_imm_form */
  uint32_t value;     /* register, predicate, special register, scope, or immediate bits */
  const char *label;  /* WAVE_OPERAND_LABEL */
  uint32_t col;       /* source column, 0 when built */
} wave_operand;

/* An operand of the kind with the value, every other field zero. Every field is written out so
 * that the header compiles as C++ too (where `= {0}` leaves the rest to a warning). */
static inline wave_operand wave_operand_of(wave_operand_kind kind, uint32_t value,
                                           const char *label) {
  wave_operand o = {(uint8_t)kind, 0, 0, WAVE_IMM_DECIMAL, value, label, 0};
  return o;
}
static inline wave_operand wave_gpr(uint32_t r) {
  return wave_operand_of(WAVE_OPERAND_GPR, r, NULL);
}
static inline wave_operand wave_pred(uint32_t p) {
  return wave_operand_of(WAVE_OPERAND_PRED, p, NULL);
}
static inline wave_operand wave_not_pred(uint32_t p) {
  wave_operand o = wave_pred(p); o.negated = 1; return o;
}
static inline wave_operand wave_sreg(uint32_t s) {
  return wave_operand_of(WAVE_OPERAND_SREG, s, NULL);
}
static inline wave_operand wave_imm(uint32_t bits) {
  return wave_operand_of(WAVE_OPERAND_IMM, bits, NULL);
}
static inline wave_operand wave_scope_operand(wave_scope s) {
  return wave_operand_of(WAVE_OPERAND_SCOPE, (uint32_t)s, NULL);
}
static inline wave_operand wave_label_operand(const char *label) {
  return wave_operand_of(WAVE_OPERAND_LABEL, 0, label);
}

/* Special register names, indexed by their encoding (docs/language.md "Registers"). */
WAVE_API extern const char *const wave_sreg_names[WAVE_NUM_SREGS];
WAVE_API extern const char *const wave_scope_names[4];

/* ---- source positions and comments -------------------------------------------------------- */

/* Where a statement came from and the comments that travel with it. */
typedef struct wave_src {
  wave_loc loc;
  const char *comment;  /* trailing comment on the same line, with its ';' or '#'; or NULL */
  const char *leading;  /* whole-line comments before it, '\n'-separated; or NULL */
} wave_src;

/* ---- instructions and the region tree ----------------------------------------------------- */

#define WAVE_NO_GUARD (-1)

/* An instruction: opaque, read and changed through waveopt/instr.h, so that its storage can
 * change without breaking a caller. */
typedef struct wave_instr wave_instr;

typedef enum wave_node_kind { WAVE_NODE_BLOCK, WAVE_NODE_IF, WAVE_NODE_LOOP } wave_node_kind;

/* A list of nodes: an if's then- or else-list, a loop's body, a region's body, or a detached
 * list carrying nodes between places (waveopt/edit.h, wave_node_list_create). Opaque, read
 * through the accessors of waveopt/edit.h. */
typedef struct wave_node_list wave_node_list;

/* A node of the region tree: opaque, read and changed through waveopt/edit.h. */
typedef struct wave_node wave_node;

/* A module, its kernels and their regions are opaque as well: read and changed through the
 * functions below, so that their records can change without breaking a caller. */
typedef struct wave_region wave_region;
typedef struct wave_kernel wave_kernel;
typedef struct wave_module wave_module;

/* ---- builder ------------------------------------------------------------------------------ */

/* All constructors return NULL when memory runs out; nothing is half-linked then. */
WAVE_API wave_module *wave_module_create(const char *file);
/* A module whose memory, and that of everything made for it, comes from `allocator`
 * (waveopt/alloc.h; NULL: malloc). */
WAVE_API wave_module *wave_module_create_with(const char *file, const wave_allocator *allocator);
/* The allocator the module was made with, NULL for malloc: strings the library returns for a
 * module (wave_print_module_string, ...) are given back to it. */
WAVE_API const wave_allocator *wave_module_allocator(const wave_module *module);
WAVE_API void wave_module_destroy(wave_module *module);
WAVE_API void *wave_module_alloc(wave_module *module, size_t size);   /* zeroed, arena-owned */
WAVE_API const char *wave_module_strdup(wave_module *module, const char *s, size_t len);

/* Appends a kernel with default metadata and one empty, unlabelled entry region. */
WAVE_API wave_kernel *wave_kernel_create(wave_module *module, const char *name);
/* Appends a labelled region (a subroutine) to the kernel. */
WAVE_API wave_region *wave_region_create(wave_kernel *kernel, const char *label);

WAVE_API wave_node *wave_block_create(wave_module *module);
WAVE_API wave_node *wave_if_create(wave_module *module, wave_operand cond);
WAVE_API wave_node *wave_loop_create(wave_module *module);

/* An instruction with the given operands; guard is WAVE_NO_GUARD or 0..3. NULL also for an
 * operand wave_instr_set_operand (waveopt/instr.h) would refuse. */
WAVE_API wave_instr *wave_instr_create(wave_module *module, wave_opcode op, int guard,
                                       bool guard_negated, unsigned num_operands,
                                       const wave_operand *operands);

/* Linking a detached node into a list, or a detached instruction into a block. Each returns
 * false, changing nothing, when the node or instruction is linked somewhere already, when it
 * was made in another module than the one whose code it would join (its memory belongs to the
 * module it was made in), or when pos lies in no list or block (or block is not one). A
 * detached list that has held nothing yet (wave_node_list_create) takes a node of any module. */
WAVE_API bool wave_node_list_append(wave_node_list *list, wave_node *node);
WAVE_API bool wave_node_list_prepend(wave_node_list *list, wave_node *node);
WAVE_API bool wave_node_insert_before(wave_node *pos, wave_node *node);
WAVE_API bool wave_node_insert_after(wave_node *pos, wave_node *node);
WAVE_API void wave_node_remove(wave_node *node);

WAVE_API bool wave_block_append(wave_node *block, wave_instr *instr);
WAVE_API bool wave_block_prepend(wave_node *block, wave_instr *instr);
WAVE_API bool wave_instr_insert_before(wave_instr *pos, wave_instr *instr);
WAVE_API bool wave_instr_insert_after(wave_instr *pos, wave_instr *instr);
WAVE_API void wave_instr_remove(wave_instr *instr);

/* The block at the end of a list, created and appended if the list ends in an if or loop. */
WAVE_API wave_node *wave_node_list_tail_block(wave_module *module, wave_node_list *list);

/* ---- modules, kernels and regions --------------------------------------------------------- */

/* The name diagnostics give the module's file. */
WAVE_API const char *wave_module_file(const wave_module *module);
/* Its kernels in file order: the first (NULL when there is none), and how many. */
WAVE_API wave_kernel *wave_module_first_kernel(const wave_module *module);
WAVE_API size_t wave_module_num_kernels(const wave_module *module);

/* The kernel's module and the kernels on either side of it in the file (NULL at the ends). */
WAVE_API wave_module *wave_kernel_module(const wave_kernel *kernel);
WAVE_API wave_kernel *wave_kernel_next(const wave_kernel *kernel);
WAVE_API wave_kernel *wave_kernel_prev(const wave_kernel *kernel);
WAVE_API const char *wave_kernel_name(const wave_kernel *kernel);
/* Renames it to a copy of name (the module's); false, with the name unchanged, when memory
 * runs out. */
WAVE_API bool wave_kernel_set_name(wave_kernel *kernel, const char *name);
/* Its regions in order: the first is where the kernel starts, later ones begin at labels, and
 * execution falls from one into the next as the code is laid out. */
WAVE_API wave_region *wave_kernel_first_region(const wave_kernel *kernel);
WAVE_API wave_region *wave_kernel_last_region(const wave_kernel *kernel);

/* The directives of a kernel. Without `.registers` a kernel has WAVE_DEFAULT_REGISTERS; without
 * `.local_memory` 0 (the runtime's default); without `.workgroup_size` 0 in every dimension
 * (the launch decides). Setting one writes the directive; clearing `.registers` removes it and
 * brings the count back to the default. */
WAVE_API uint32_t wave_kernel_registers(const wave_kernel *kernel);
WAVE_API bool wave_kernel_has_registers(const wave_kernel *kernel);
WAVE_API void wave_kernel_set_registers(wave_kernel *kernel, uint32_t registers);
WAVE_API void wave_kernel_clear_registers(wave_kernel *kernel);
WAVE_API uint32_t wave_kernel_local_memory(const wave_kernel *kernel);
WAVE_API bool wave_kernel_has_local_memory(const wave_kernel *kernel);
WAVE_API void wave_kernel_set_local_memory(wave_kernel *kernel, uint32_t bytes);
/* dim is 0, 1 or 2 (x, y, z); 0 for any other. */
WAVE_API uint32_t wave_kernel_workgroup_size(const wave_kernel *kernel, unsigned dim);
WAVE_API bool wave_kernel_has_workgroup_size(const wave_kernel *kernel);
WAVE_API void wave_kernel_set_workgroup_size(wave_kernel *kernel, uint32_t x, uint32_t y,
                                             uint32_t z);

/* The lines a kernel is written on besides its code, each with its location and comments. */
typedef enum wave_kernel_line {
  WAVE_KERNEL_LINE_KERNEL,         /* .kernel NAME */
  WAVE_KERNEL_LINE_END,            /* .end */
  WAVE_KERNEL_LINE_REGISTERS,      /* .registers N */
  WAVE_KERNEL_LINE_LOCAL_MEMORY,   /* .local_memory N */
  WAVE_KERNEL_LINE_WORKGROUP_SIZE, /* .workgroup_size X, Y, Z */
} wave_kernel_line;
/* By value, as wave_node_origin (waveopt/edit.h); all zero for a line the kernel lacks. */
WAVE_API wave_src wave_kernel_origin(const wave_kernel *kernel, wave_kernel_line line);
WAVE_API void wave_kernel_set_origin(wave_kernel *kernel, wave_kernel_line line,
                                     const wave_src *origin);
/* Where `.kernel NAME` is written: what diagnostics about the kernel as a whole point at. */
WAVE_API wave_loc wave_kernel_loc(const wave_kernel *kernel);

/* The region's kernel and the regions on either side of it (NULL at the ends). */
WAVE_API wave_kernel *wave_region_kernel(const wave_region *region);
WAVE_API wave_region *wave_region_next(const wave_region *region);
WAVE_API wave_region *wave_region_prev(const wave_region *region);
/* The label it starts at; NULL for the code before the kernel's first label. */
WAVE_API const char *wave_region_label(const wave_region *region);
/* Where the label is written, with its comments. */
WAVE_API wave_src wave_region_origin(const wave_region *region);
/* The nodes of the region, in order. */
WAVE_API wave_node_list *wave_region_body(const wave_region *region);

/* ---- register references ------------------------------------------------------------------ */

/* One register range an instruction reads or writes, with implicit pair/quad registers
 * (docs/language.md "Implicit register pairs and quads") already expanded into `count`. Guards and
 * select/if/break predicates are reads of predicates. Special registers in GPR slots read the GPR
 * of the same number (docs/language.md "Registers") except where wave_opcode_reads_sreg says they
 * are read as themselves; atomics whose destination is r0 or omitted write nothing
 * (docs/language.md "Atomics"). */
typedef struct wave_reg_ref {
  uint32_t first;
  uint8_t count;
  bool is_pred;
  bool is_def;
} wave_reg_ref;

#define WAVE_MAX_REG_REFS 8

/* Fills refs (at least WAVE_MAX_REG_REFS entries) and returns how many there are. */
WAVE_API unsigned wave_instr_reg_refs(const wave_instr *instr, wave_reg_ref *refs);

/* ---- lookup by name (ir/lookup.c) --------------------------------------------------------- */

/* FNV-1a over name[0..len): the hash of every name table in the library. */
WAVE_API uint32_t wave_hash_name(const char *name, size_t len);

/* Kernel lookup: by name (NULL = the first kernel), or by position. NULL when absent. */
WAVE_API wave_kernel *wave_module_find_kernel(const wave_module *module, const char *name);
WAVE_API wave_kernel *wave_module_kernel_at(const wave_module *module, size_t index);

#define WAVE_NO_REGION ((size_t)-1)

/* A kernel's regions in order, and its labels -> region index. Built on demand (a pass that
 * adds or removes regions builds a new one); malloc'd, freed with wave_label_table_free. */
typedef struct wave_label_table {
  wave_region **regions;      /* in kernel order; regions[0] is the entry */
  size_t num_regions;
  size_t *slots;              /* open addressing: region index + 1, 0 = empty */
  size_t capacity;            /* a power of two */
} wave_label_table;

/* False when memory runs out (the table is then empty and needs no free). */
WAVE_API bool wave_label_table_init(wave_label_table *table, const wave_kernel *kernel);
WAVE_API void wave_label_table_free(wave_label_table *table);
/* The index of the region the label starts, or WAVE_NO_REGION. */
WAVE_API size_t wave_label_table_find(const wave_label_table *table, const char *name);

#ifdef __cplusplus
}
#endif

#endif
