/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The records of modules, kernels, regions and node lists, private to the library. The public
 * headers declare them opaque and export one function per accessor (waveopt/ir.h,
 * waveopt/edit.h), defined in ir/access.c; an embedder never compiles against these layouts,
 * so they may change in any release.
 *
 * Only the IR's own implementation reads and writes these fields: ir/ (making, linking,
 * cloning, laying out), the parser and the printer (asm/), which fill and write every
 * directive, comment and stray label, and the one-kernel view of pm/print_kernel.c. Passes,
 * analyses, the interpreter and the tools go through the accessors: a module has few kernels
 * and regions, so a call per step costs nothing measurable.
 */
#ifndef WAVEOPT_IR_MODULE_H
#define WAVEOPT_IR_MODULE_H

#include "ir/source.h"
#include "waveopt/ir.h"

struct wave_node_list {
  struct wave_node *first, *last;
  struct wave_node *parent; /* the if/loop whose list this is; NULL for a region's body */
  /* The region the list lies in; every list nested below it names the same one (inserting a
   * node updates its whole subtree when the region differs). A detached list names the region
   * its nodes came from, or NULL for nodes never inserted anywhere. */
  struct wave_region *region;
};

struct wave_region {
  struct wave_region *prev, *next;
  struct wave_kernel *kernel;
  const char *label; /* NULL for code before the kernel's first label */
  wave_src label_src;
  wave_node_list body;
};

struct wave_kernel {
  struct wave_kernel *prev, *next;
  struct wave_module *module;
  const char *name;
  uint32_t registers;         /* .registers (WAVE_DEFAULT_REGISTERS when absent) */
  uint32_t local_memory;      /* .local_memory bytes, 0 = runtime default */
  uint32_t workgroup_size[3]; /* .workgroup_size, {0,0,0} = runtime value */
  bool has_registers, has_local_memory, has_workgroup_size;
  wave_src kernel_src, end_src, registers_src, local_memory_src, workgroup_size_src;
  /* The first region is where the kernel starts; later ones begin at labels. Execution falls
   * from one region into the next in source order, exactly as the code is laid out. */
  wave_region *first_region, *last_region;
};

/* A label written outside every kernel: it names no code we keep, but it occupies the file's
 * one label namespace and is printed back where it stood. */
typedef struct wave_stray_label {
  const char *name;
  wave_src src;
  struct wave_kernel *before; /* printed before this kernel; NULL = at the end of the file */
  struct wave_stray_label *next;
} wave_stray_label;

struct wave_arena;

struct wave_module {
  /* Where everything of the module comes from: NULL for malloc, else `own_allocator`, the
   * caller's copied (waveopt/alloc.h). */
  const wave_allocator *allocator;
  wave_allocator own_allocator;
  struct wave_arena *arena;
  /* Instructions and nodes live apart from everything else, so that wave_module_compact can
   * lay them out afresh and free the old memory, with what was removed in it. */
  struct wave_arena *code_arena;
  /* Instructions made and removed since the code was last laid out (read, built or compacted):
   * what a compaction would win back (wave_module_compact_pays). */
  size_t instrs_made, instrs_removed;
  const char *file; /* name used in diagnostics */
  wave_kernel *first_kernel, *last_kernel;
  size_t num_kernels;
  wave_stray_label *first_stray, *last_stray;
  const char *trailing; /* comments after the last statement */
  wave_source source;
  /* The labels instructions name, by index: an instruction stores a label operand as its index
   * here (the module's allocator's, freed with it). */
  const char **labels;
  size_t num_labels, cap_labels;
  /* The comments and foreign files of the few instructions that have them, by index
   * (the module's allocator's, freed with it). */
  struct wave_code_note *notes;
  size_t num_notes, cap_notes;
};

#endif
