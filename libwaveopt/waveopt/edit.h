/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Editing the region tree: traversal, navigation, surgery on node lists, a cursor-based
 * builder, deep clones, and the normal form with its checker. What a pass needs to rewrite
 * the tree without setting a link by hand.
 *
 * Normal form. Every tree the parser and the generator produce, and every tree a pass hands
 * on, satisfies two rules:
 *   - no block is empty: a block holds at least one instruction;
 *   - no two blocks are adjacent in one list.
 * So a block is exactly a maximal run of straight-line instructions, "the code just before
 * this if" is node->prev with no search, and two trees that print alike have the same shape.
 * Empty lists are fine: they are an if without else or an empty loop body. The surgery below
 * keeps the normal form (merging blocks that end up adjacent, never leaving an empty one)
 * except where a function says otherwise (wave_block_split, and the raw linking functions of
 * ir.h such as wave_instr_remove); wave_normalize_kernel restores it, wave_validate_kernel
 * checks it. Comments belong to instructions and to if/else/endif/loop/endloop lines, never to
 * blocks, so merging or dropping blocks loses none.
 *
 * Detached lists. A wave_node_list that is no if's, loop's or region's carries nodes between
 * places: wave_node_list_extract fills one, wave_node_list_reinsert empties it into the tree.
 * It keeps the region of the nodes it holds, so that putting them back into the same region
 * costs nothing per nested list.
 *
 * Every function here works with links and worklists, never recursion: a tree nested 100 000
 * deep is as safe to walk, clone, normalize and validate as a flat one. Allocation failure
 * returns NULL or false with the tree as it was.
 */
#ifndef WAVEOPT_EDIT_H
#define WAVEOPT_EDIT_H

#include "waveopt/api.h"

#include <stdbool.h>

#include "waveopt/diag.h"
#include "waveopt/instr.h"
#include "waveopt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- traversal ---------------------------------------------------------------------------- */

#define wave_foreach_kernel(k, module)                                                             \
  for (wave_kernel *k = wave_module_first_kernel(module); k; k = wave_kernel_next(k))
#define wave_foreach_region(r, kernel)                                                             \
  for (wave_region *r = wave_kernel_first_region(kernel); r; r = wave_region_next(r))

#define wave_foreach_node(n, list)                                                                 \
  for (wave_node *n = wave_node_list_first(list); n; n = wave_node_next(n))
/* The body may unlink (or move) n itself; it must leave the nodes after n where they are. */
#define wave_foreach_node_safe(n, list)                                                            \
  for (wave_node *n = wave_node_list_first(list), *n##_next_ = n ? wave_node_next(n) : NULL; n;    \
       n = n##_next_, n##_next_ = n ? wave_node_next(n) : NULL)

#define wave_foreach_instr(i, blk)                                                                 \
  for (wave_instr *i = wave_block_first(blk); i; i = wave_instr_next(i))
/* The body may unlink (or move) i itself; it must leave the instructions after i in place. */
#define wave_foreach_instr_safe(i, blk)                                                            \
  for (wave_instr *i = wave_block_first(blk), *i##_next_ = i ? wave_instr_next(i) : NULL; i;       \
       i = i##_next_, i##_next_ = i ? wave_instr_next(i) : NULL)

/* The blocks of a region or of a whole kernel (its regions in order), in text order. The body
 * may edit the instructions of the current block but not restructure the tree. */
typedef struct wave_block_iter {
  wave_region *region;   /* where the walk stands */
  wave_node *block;      /* the block returned last; NULL before the first */
  bool whole_kernel;     /* at the end of a region, go on with the next one */
  bool done;
} wave_block_iter;

WAVE_API wave_block_iter wave_block_iter_region(wave_region *region);
WAVE_API wave_block_iter wave_block_iter_kernel(wave_kernel *kernel);
/* The next block, or NULL at the end. */
WAVE_API wave_node *wave_block_iter_next(wave_block_iter *iter);

/* for-loops over every block; `break` and `continue` behave as in a plain for-loop. */
#define wave_foreach_block_with_(b, start)                                                   \
  for (wave_block_iter b##_iter_ = (start), *b##_once_ = &b##_iter_; b##_once_; b##_once_ = NULL) \
    for (wave_node *b; (b = wave_block_iter_next(&b##_iter_)) != NULL;)
#define wave_foreach_block(b, kernel) wave_foreach_block_with_(b, wave_block_iter_kernel(kernel))
#define wave_foreach_block_in_region(b, region) \
  wave_foreach_block_with_(b, wave_block_iter_region(region))

/* ---- nodes and lists ---------------------------------------------------------------------- */

/* Nodes are opaque: these read and change them. Navigation reads links, which are plain
 * pointers, so a const node's neighbours and lists come back as they are stored. */
WAVE_API wave_node_kind wave_node_kind_of(const wave_node *node);
/* The nodes before and after it in its list; NULL at either end and when detached. */
WAVE_API wave_node *wave_node_prev(const wave_node *node);
WAVE_API wave_node *wave_node_next(const wave_node *node);
/* The list holding it, NULL when detached. */
WAVE_API wave_node_list *wave_node_list_of(const wave_node *node);

/* An if's predicate (negated only in the documentation dialect, `if !p1`), its two lists, and
 * whether it prints `else` when the else-list is empty. */
WAVE_API wave_operand wave_if_cond(const wave_node *node);
WAVE_API void wave_if_set_cond(wave_node *node, wave_operand cond);
WAVE_API wave_node_list *wave_if_then(const wave_node *node);
WAVE_API wave_node_list *wave_if_else(const wave_node *node);
WAVE_API bool wave_if_has_else(const wave_node *node);
WAVE_API void wave_if_set_has_else(wave_node *node, bool has_else);
WAVE_API wave_node_list *wave_loop_body(const wave_node *node);

/* The lines an if or a loop is written on, each with its location and comments. */
typedef enum wave_node_line {
  WAVE_LINE_IF,
  WAVE_LINE_ELSE,
  WAVE_LINE_ENDIF,
  WAVE_LINE_LOOP,
  WAVE_LINE_ENDLOOP,
} wave_node_line;
/* By value, as wave_instr_origin; IF, ELSE and ENDIF are an if's lines, LOOP and ENDLOOP a
 * loop's. */
WAVE_API wave_src wave_node_origin(const wave_node *node, wave_node_line line);
WAVE_API void wave_node_set_origin(wave_node *node, wave_node_line line, const wave_src *origin);

/* A list's ends, the if or loop it belongs to (NULL for a region's body and a detached list)
 * and its region: the one it lies in, which every list nested below names too; for a detached
 * list, the region its nodes came from, or NULL for nodes never inserted anywhere. */
WAVE_API wave_node *wave_node_list_first(const wave_node_list *list);
WAVE_API wave_node *wave_node_list_last(const wave_node_list *list);
WAVE_API wave_node *wave_node_list_parent(const wave_node_list *list);
WAVE_API wave_region *wave_node_list_region(const wave_node_list *list);

/* ---- downcasts and navigation ------------------------------------------------------------- */

static inline const wave_node *wave_node_kind_as_(const wave_node *node, wave_node_kind kind) {
  return node && wave_node_kind_of(node) == kind ? node : NULL;
}
static inline wave_node *wave_node_kind_as_mutable_(wave_node *node, wave_node_kind kind) {
  return (wave_node *)wave_node_kind_as_(node, kind);
}
/* The node itself when it is of that kind, else NULL (also for NULL). Like C23's strchr the
 * result keeps the argument's constness. */
#define wave_node_as_(node, kind)                                                         \
  _Generic((node), const wave_node *: wave_node_kind_as_, default: wave_node_kind_as_mutable_)( \
      (node), (kind))
#define wave_node_as_block(node) wave_node_as_((node), WAVE_NODE_BLOCK)
#define wave_node_as_if(node) wave_node_as_((node), WAVE_NODE_IF)
#define wave_node_as_loop(node) wave_node_as_((node), WAVE_NODE_LOOP)

/* The if or loop whose list holds node, or NULL at a region's top level (or detached). */
WAVE_API wave_node *wave_node_parent(const wave_node *node);
/* The region node lies in, or NULL when it is detached from every region. */
WAVE_API wave_region *wave_node_region(const wave_node *node);
/* The block holding instr, or NULL when it is detached. */
WAVE_API wave_node *wave_instr_node(const wave_instr *instr);
/* A block's first and last instructions, NULL for an empty block. */
WAVE_API wave_instr *wave_block_first(const wave_node *block);
WAVE_API wave_instr *wave_block_last(const wave_node *block);

static inline bool wave_block_is_empty(const wave_node *block) {
  return wave_block_first(block) == NULL;
}
static inline bool wave_node_list_is_empty(const wave_node_list *list) {
  return wave_node_list_first(list) == NULL;
}

/* The innermost loop around node (not node itself), or NULL. */
WAVE_API wave_node *wave_node_enclosing_loop(const wave_node *node);

/* The block before / after `block` in text order within its region: into and out of ifs and
 * loops, as the walker would meet them. NULL at the region's start / end. */
WAVE_API wave_node *wave_block_prev(const wave_node *block);
WAVE_API wave_node *wave_block_next(const wave_node *block);

/* ---- cursor ------------------------------------------------------------------------------- */

/* A place in the tree between two things, as in Mesa's nir_cursor. Cursors at the start or end
 * of a block and before or after a node of a list name the same places seen from different
 * sides; insertion picks the block the normal form wants. */
typedef enum wave_cursor_kind {
  WAVE_CURSOR_BEFORE_INSTR,
  WAVE_CURSOR_AFTER_INSTR,
  WAVE_CURSOR_BLOCK_START,
  WAVE_CURSOR_BLOCK_END,
  WAVE_CURSOR_LIST_START,
  WAVE_CURSOR_LIST_END,
  WAVE_CURSOR_BEFORE_NODE,
  WAVE_CURSOR_AFTER_NODE,
} wave_cursor_kind;

typedef struct wave_cursor {
  wave_cursor_kind kind;
  union {
    wave_instr *instr;     /* BEFORE_INSTR, AFTER_INSTR */
    wave_node *node;       /* BLOCK_START, BLOCK_END (a block), BEFORE_NODE, AFTER_NODE */
    wave_node_list *list;  /* LIST_START, LIST_END */
  } at;
} wave_cursor;

static inline wave_cursor wave_cursor_before_instr(wave_instr *instr) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_BEFORE_INSTR;
  c.at.instr = instr;
  return c;
}
static inline wave_cursor wave_cursor_after_instr(wave_instr *instr) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_AFTER_INSTR;
  c.at.instr = instr;
  return c;
}
static inline wave_cursor wave_cursor_block_start(wave_node *block) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_BLOCK_START;
  c.at.node = block;
  return c;
}
static inline wave_cursor wave_cursor_block_end(wave_node *block) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_BLOCK_END;
  c.at.node = block;
  return c;
}
static inline wave_cursor wave_cursor_list_start(wave_node_list *list) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_LIST_START;
  c.at.list = list;
  return c;
}
static inline wave_cursor wave_cursor_list_end(wave_node_list *list) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_LIST_END;
  c.at.list = list;
  return c;
}
static inline wave_cursor wave_cursor_before_node(wave_node *node) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_BEFORE_NODE;
  c.at.node = node;
  return c;
}
static inline wave_cursor wave_cursor_after_node(wave_node *node) {
  wave_cursor c;
  c.kind = WAVE_CURSOR_AFTER_NODE;
  c.at.node = node;
  return c;
}

/* Inserts a detached instruction at the cursor. Between two nodes of a list it joins the block
 * before (at its end) or the block after (at its start), and only when neither is a block
 * does it get a new block of its own. False, with nothing linked, when instr is not detached,
 * the cursor lies outside every list or block, instr or the cursor's place belongs to another
 * module than `module` (code joins only the module it was made in, whose memory holds it), or
 * memory runs out. */
WAVE_API bool wave_instr_insert(wave_module *module, wave_cursor at, wave_instr *instr);

/* Inserts a detached node (an if, a loop, or a non-empty block) at the cursor. A cursor inside
 * a block splits it; a block node merges with blocks beside it. False, with nothing linked,
 * when node is attached or an empty block, node or the cursor's place belongs to another module
 * than `module`, the cursor lies outside every list, or memory runs out (splitting a block
 * allocates). */
WAVE_API bool wave_node_insert(wave_module *module, wave_cursor at, wave_node *node);

/* ---- surgery ------------------------------------------------------------------------------ */

/* An empty detached list, owned by the module (freed with it), to carry nodes between places;
 * NULL when memory runs out. */
WAVE_API wave_node_list *wave_node_list_create(wave_module *module);

/* Unlinks the nodes first..last (first before or equal to last, in one list) into *out, a
 * detached list (its previous contents are forgotten). The blocks left on either side of the
 * gap are merged. False, with nothing changed, when first and last are not so ordered in one
 * list. */
WAVE_API bool wave_node_list_extract(wave_node *first, wave_node *last, wave_node_list *out);

/* Moves every node of `nodes` to the cursor, in order, leaving `nodes` empty; blocks that meet
 * at either end are merged, and a cursor inside a block splits it. `nodes` is usually what
 * wave_node_list_extract or wave_node_list_clone filled, but may be any list the cursor is
 * not inside (an if's then-list, for instance). False, with nothing changed, when the cursor
 * lies outside every list, a node or the cursor's place belongs to another module than
 * `module`, or memory runs out. */
WAVE_API bool wave_node_list_reinsert(wave_module *module, wave_cursor at, wave_node_list *nodes);

/* Puts the nodes of `with` where node stood and unlinks node; `with` ends up empty. With may be
 * one of node's own lists: wave_node_replace(n, wave_if_then(n)) keeps an if's then-code
 * and drops the if. The comments of node's own lines (if/else/endif, loop/endloop) leave with
 * node. False, with nothing changed, when node is detached or a node of `with` belongs to
 * another module. */
WAVE_API bool wave_node_replace(wave_node *node, wave_node_list *with);

/* Splits the block holding `at` so that `at` starts a block, and returns that block: a new one
 * right after the old when `at` was not first (the tree then leaves normal form until something
 * goes between the halves or they are merged again), else the old block unchanged. NULL when
 * the block is in no list, is another module's than `module`, or memory runs out. */
WAVE_API wave_node *wave_block_split(wave_module *module, wave_instr *at);

/* Appends the instructions of `second`, the block right after `first`, to `first` and unlinks
 * `second`. False, with nothing changed, unless both are blocks and second == first->next. */
WAVE_API bool wave_block_merge(wave_node *first, wave_node *second);

/* ---- clones ------------------------------------------------------------------------------- */

/* Copies share the original's strings (comments, labels), which live as long as the module:
 * clone within one module. Copies are detached; their source locations are the originals'. */
WAVE_API wave_instr *wave_instr_clone(wave_module *module, const wave_instr *instr);
/* The node with everything nested in it. */
WAVE_API wave_node *wave_node_clone(wave_module *module, const wave_node *node);
/* Every node of list into *out, a detached list of list's region. False (out left empty) when
 * memory runs out. */
WAVE_API bool wave_node_list_clone(wave_module *module, const wave_node_list *list,
                                   wave_node_list *out);

/* ---- compaction --------------------------------------------------------------------------- */

/* Lays the code of every kernel (instructions and nodes) out afresh in text order and frees the
 * old memory, with whatever was removed from the code: walks read far less memory afterwards.
 * Kernels, regions and strings stay where they are; pointers to instructions and nodes no
 * longer hold. False, with nothing changed, when memory runs out. The pass manager compacts
 * between fixpoint rounds when it pays. */
WAVE_API bool wave_module_compact(wave_module *module);
/* Whether the instructions removed since the code was last laid out are a quarter or more of
 * those made: then a compaction wins back more than it costs. */
WAVE_API bool wave_module_compact_pays(const wave_module *module);

/* ---- builder ------------------------------------------------------------------------------ */

/* Creates instructions and nodes at a cursor that then moves past them, so consecutive calls
 * emit code in order. Everything built carries `loc` (typically the location of the code being
 * replaced), so that diagnostics and remarks about new code point somewhere real. */
typedef struct wave_builder {
  wave_module *module;
  wave_cursor cursor;
  wave_loc loc;
} wave_builder;

static inline wave_builder wave_builder_at(wave_module *module, wave_cursor cursor,
                                           wave_loc loc) {
  wave_builder b = {module, cursor, loc};
  return b;
}

/* An unguarded instruction at the cursor, which moves after it; NULL, with nothing linked and
 * the cursor unchanged, when memory runs out or the cursor is not usable. */
WAVE_API wave_instr *wave_build_instr(wave_builder *b, wave_opcode op, unsigned num_operands,
                                      const wave_operand *operands);
/* wave_build(b, WAVE_OP_IADD, wave_gpr(1), wave_gpr(2), wave_gpr(3)): operands counted for
 * you. Use wave_build_instr(b, op, 0, NULL) for an instruction without operands. */
#define wave_build(b, op, ...)                                                     \
  wave_build_instr((b), (op),                                                      \
                   (unsigned)(sizeof((const wave_operand[]){__VA_ARGS__}) /        \
                              sizeof(wave_operand)),                               \
                   (const wave_operand[]){__VA_ARGS__})

/* An if (its if, else and endif lines at the builder's location) or a loop at the cursor; the
 * cursor moves to the end of its then-list or body. Come back out with
 * b->cursor = wave_cursor_after_node(node). NULL as for wave_build_instr. */
WAVE_API wave_node *wave_build_if(wave_builder *b, wave_operand cond);
WAVE_API wave_node *wave_build_loop(wave_builder *b);

/* Lowers .registers to the highest GPR the kernel mentions, pair and quad halves included,
 * plus one (at least 1); returns whether it changed. Subroutines are regions of the kernel and
 * count. */
WAVE_API bool wave_kernel_shrink_registers(wave_kernel *kernel);

/* ---- normal form and validation ----------------------------------------------------------- */

/* Merges adjacent blocks and drops empty ones in every list of the kernel; returns whether
 * anything changed. */
WAVE_API bool wave_normalize_kernel(wave_kernel *kernel);

/* Checks every link of the kernel (instruction to block, node to list, list to parent and
 * region, prev/next symmetry, first/last, nothing reachable twice), the normal form, that
 * .registers covers every register used and that if conditions are predicates. Each problem
 * is an error "internal error: <what> (after <context>)" at the instruction or the kernel;
 * context names what ran last (a pass), NULL leaves the parenthesis out. Returns true when
 * nothing was wrong. Never crashes on a broken tree, cycles included, as long as every
 * pointer it meets points to a node, instruction or region of the module. Meant for trees
 * the verifier accepted: the parser takes registers beyond .registers, and reporting those to
 * a user is the verifier's work, not an internal error. */
WAVE_API bool wave_validate_kernel(const wave_kernel *kernel, const char *context,
                                   wave_diags *diags);
/* Every kernel, and the module's kernel list itself. */
WAVE_API bool wave_validate_module(const wave_module *module, const char *context,
                                   wave_diags *diags);

#ifdef __cplusplus
}
#endif

#endif
