/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The caller's allocator. A compiler that embeds libwaveopt may keep its memory in pools of
 * its own, count it, or cap it; a module created with an allocator (wave_module_create_with,
 * wave_parse_string_with) takes every block it needs from it, and so does everything made for
 * that module: its analyses, the passes' working memory, the interpreter's machine, the
 * printer's text, the DOT library's tables (graphviz's own memory is graphviz's). A registry
 * made with one (wave_pass_registry_create_with) gives it to its pipelines. Where none is
 * given, malloc, realloc and free serve.
 *
 * When an allocator returns NULL, the call that needed the memory gives up: it returns its
 * error value, reports "out of memory" where it takes diagnostics, and frees what it had
 * taken. Reports use malloc, so that they can still be stored when the allocator has run dry:
 * the diagnostics list (waveopt/diag.h), which is the caller's, and a pipeline's remarks and
 * statistics (waveopt/pass.h). So do profiles (waveopt/profile.h), which belong to no module.
 */
#ifndef WAVEOPT_ALLOC_H
#define WAVEOPT_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library copies this struct where it keeps it; `user` must outlive every object made
 * with it. The functions may be called from the threads that use those objects
 * (docs/threads.md). */
typedef struct wave_allocator {
  /* A block of `size` bytes (never 0) aligned for any object, or NULL when memory has run out. */
  void *(*allocate)(void *user, size_t size);
  /* `block` (never NULL) moved to `size` bytes (never 0), its contents kept up to the smaller
   * size; NULL, the block left as it was, when memory has run out. */
  void *(*reallocate)(void *user, void *block, size_t size);
  /* Takes back a block from allocate or reallocate (never NULL). */
  void (*release)(void *user, void *block);
  void *user;
} wave_allocator;

#ifdef __cplusplus
}
#endif

#endif
