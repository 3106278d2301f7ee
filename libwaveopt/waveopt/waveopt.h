/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libwaveopt: read, check, transform and print WAVE assembly.
 *
 * Threading: there is no global mutable state; distinct modules may be used from distinct
 * threads at once. Errors: no function prints, exits or aborts; problems come back in a
 * wave_diags list the caller owns.
 */
#ifndef WAVEOPT_WAVEOPT_H
#define WAVEOPT_WAVEOPT_H

#include "waveopt/api.h"

#include <stdio.h>

#include "waveopt/diag.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/ir.h"
#include "waveopt/regset.h"

#ifdef __cplusplus
extern "C" {
#endif

WAVE_API const char *wave_version(void);

/* ---- region-tree walking ------------------------------------------------------------------ */

/* Events of a depth-first walk, in the order the statements appear in the text. */
typedef enum wave_walk_event {
  WAVE_WALK_BLOCK,    /* node is a block */
  WAVE_WALK_IF,       /* node is an if; its then-list comes next */
  WAVE_WALK_ELSE,     /* the then-list of node is done; its else-list comes next (this event
                       * comes for every if, with or without an else) */
  WAVE_WALK_ENDIF,    /* node (an if) is done */
  WAVE_WALK_LOOP,     /* node is a loop; its body comes next */
  WAVE_WALK_ENDLOOP,  /* node (a loop) is done */
} wave_walk_event;

/* Walks a node list without recursion (parent links replace the stack), so arbitrarily deep
 * nesting is safe. The tree must not be restructured during the walk, except that the
 * instructions inside a visited block may be edited freely. */
typedef struct wave_walker {
  wave_node *node;
  wave_walk_event event;
  unsigned depth;          /* nesting depth of the event's statement (0 = region top level) */
  wave_node_list *root;
  bool started;
} wave_walker;

WAVE_API void wave_walk_init(wave_walker *walker, wave_node_list *root);
WAVE_API bool wave_walk_next(wave_walker *walker);

/* The same walk for readers that hold the tree as const (printers, interpreters, analyses):
 * identical events, depths and order, with const nodes. */
typedef struct wave_const_walker {
  const wave_node *node;
  wave_walk_event event;
  unsigned depth;
  const wave_node_list *root;
  bool started;
} wave_const_walker;

WAVE_API void wave_const_walk_init(wave_const_walker *walker, const wave_node_list *root);
WAVE_API bool wave_const_walk_next(wave_const_walker *walker);

/* ---- parsing ------------------------------------------------------------------------------ */

/* Parses WAVE assembly, real or documentation dialect. Returns the module, or NULL when there
 * were errors (all reported in diags) or memory ran out. `filename` names the text in
 * diagnostics. The module keeps a copy of the text. */
WAVE_API wave_module *wave_parse_string(const char *text, size_t len, const char *filename,
                                        wave_diags *diags);

/* wave_parse_string into a module made with `allocator` (waveopt/alloc.h; NULL: malloc), from
 * which the parse takes all its memory. When that runs out, the result is NULL and diags has
 * an "out of memory" error. */
WAVE_API wave_module *wave_parse_string_with(const char *text, size_t len, const char *filename,
                                             wave_diags *diags, const wave_allocator *allocator);

/* wave_parse_string for text the caller hands over: a buffer from malloc holding len bytes and
 * a NUL after them. The module keeps it as its source instead of a copy (a file is then in
 * memory once); it is freed with the module, or at once when parsing fails. */
WAVE_API wave_module *wave_parse_owned(char *text, size_t len, const char *filename,
                                       wave_diags *diags);

/* Reads the whole of `in` into a buffer from malloc with a NUL after its *len bytes, ready for
 * wave_parse_owned (a regular file in one read, into a buffer of its size). NULL, with *err
 * set to errno's value (ENOMEM when memory runs out), when reading fails. */
WAVE_API char *wave_read_stream(FILE *in, size_t *len, int *err);

/* Reads `in` from where it stands to its end and parses what it held, as wave_read_stream and
 * wave_parse_owned do. A regular file of megabytes, read from its start, is not kept whole: as
 * the parse passes its text, the pages go back to the system, and a line a later diagnostic
 * quotes is read again from the file, through a duplicate of its descriptor that the module
 * keeps until it is destroyed (should the file change meanwhile, the quote shows what it holds
 * then). NULL with *err set to errno's value when reading fails, and nothing reported; else
 * *err is 0 and NULL means the text did not parse (diags says why). */
WAVE_API wave_module *wave_parse_stream(FILE *in, const char *filename, wave_diags *diags,
                                        int *err);

/* Reads and parses a file; "-" is not special here. I/O errors are reported in diags. */
WAVE_API wave_module *wave_parse_file(const char *path, wave_diags *diags);

/* ---- verification ------------------------------------------------------------------------- */

/* Checks structure, operands, register ranges and what the downstream tools mishandle
 * (docs/toolchain.md "Summary"). Returns true when no error was found; warnings do not count. */
WAVE_API bool wave_verify_module(const wave_module *module, wave_diags *diags);

/* Reports a diagnostic at a location of the module, quoting the source line if known. */
WAVE_API void wave_module_report(const wave_module *module, wave_diags *diags,
                                 wave_severity severity, const char *flag, wave_loc loc,
                                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- lowering and printing ----------------------------------------------------------------- */

/* Rewrites every documentation-dialect form (predicate logic, negated break/continue, ALU
 * immediates, compares the assembler lacks) into real instructions, using scratch registers
 * the kernel never mentions and growing .registers for them. Returns false, with an error in
 * diags, when a form cannot be lowered (e.g. no free predicate register). */
WAVE_API bool wave_lower_docs_dialect(wave_module *module, wave_diags *diags);

typedef enum wave_dialect { WAVE_DIALECT_ASM, WAVE_DIALECT_DOCS } wave_dialect;

typedef struct wave_print_options {
  wave_dialect dialect;
  bool strip_comments;
  unsigned max_indent;   /* nesting levels that still indent; 0 = the default (16) */
} wave_print_options;

/* Receives printed text; returns 0 on success, non-zero to stop printing. */
typedef int (*wave_write_fn)(void *ctx, const char *data, size_t len);

/* Prints canonical WAVE. In the assembly dialect a remaining documentation-dialect form is an
 * error (lower first). Returns 0, or -1 when writing failed or a form cannot be printed. */
WAVE_API int wave_print_module(const wave_module *module, const wave_print_options *options,
                               wave_write_fn write, void *ctx);
WAVE_API int wave_print_file(const wave_module *module, const wave_print_options *options,
                             FILE *out);
/* NUL-terminated text from the module's allocator (free() it when that is NULL); NULL on
 * failure. */
WAVE_API char *wave_print_to_string(const wave_module *module, const wave_print_options *options,
                                    size_t *len);
/* Writes one instruction as the printer spells it (documentation dialect, with its guard,
 * without indentation or comments) into buf, truncated to size and NUL-terminated when size is
 * non-zero. Returns the length of the whole text, as snprintf does. For diagnostics. */
WAVE_API size_t wave_format_instr(const wave_instr *instr, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
