/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analysis cache. A result is computed the first time a pass asks for it and kept, keyed
 * by kernel and analysis id, until a pass that changed the kernel does not preserve it. An
 * analysis may ask for others while it computes; each such use is recorded, so dropping one
 * result also drops every result computed from it, whatever the pass claimed for those (the
 * later result may point into the earlier one).
 *
 * Beside the results it keeps each kernel's flat layout (ir/layout.h), which the built-in
 * analyses read instead of walking and decoding the kernel each for itself, and its index of
 * ifs and loops (ir/node_index.h), which the rewriting passes take their worklists from. Each
 * is the kernel as it was: any invalidation of the kernel drops both, whatever was preserved,
 * and no result points into them, so no result depends on them.
 *
 * Under verify-each a preservation claim is checked as SPIRV-Tools does in debug builds: every
 * result still cached after the pass is compared with a computation from scratch, in a
 * separate manager so that no stale dependency leaks into the fresh result.
 */
#include <stdlib.h>
#include <string.h>

#include "pm/builtin.h"
#include "pm/pm_internal.h"
#include "support/grow.h"

typedef struct cached {
  const wave_kernel *kernel;
  wave_analysis_id id;
  void *result;
  wave_preserved sources;  /* the analyses of the same kernel it was computed from */
} cached;

/* A kernel's layout and node index, each made on its first request, and the size of the last
 * layout made, kept when the kernel changes for the next one to start from (no items: none
 * made yet; a layout has at least its region's end). */
typedef struct cached_views {
  const wave_kernel *kernel;
  wave_layout *layout;
  wave_node_index *nodes;
  wave_layout_size last_size;
} cached_views;

/* An analysis being computed; analyses asked for meanwhile become its sources. */
typedef struct computing {
  const wave_kernel *kernel;
  wave_analysis_id id;
  wave_preserved sources;
} computing;

struct wave_analysis_manager {
  const wave_pass_registry *registry;
  const wave_target *target;
  wave_regset assume_divergent;
  wave_diags *diags;
  /* Memory ran out for an analysis or a view since the flag was last taken: whatever the pass
   * that asked did without it, the run must fail rather than pass off less work as done. */
  bool out_of_memory;
  cached *entries;
  size_t num_entries, capacity;
  cached_views *views;
  size_t num_views, cap_views;
  /* Each analysis appears at most once per kernel here (a second time is a cycle), and only
   * an analysis's own requests nest, so the depth stays within the registry's size. */
  computing stack[WAVE_MAX_ANALYSES];
  unsigned depth;
};

wave_analysis_manager *wave_analysis_manager_create(const wave_pass_registry *registry,
                                                    const wave_target *target,
                                                    wave_diags *diags) {
  wave_analysis_manager *am = wave_mem_calloc(registry->allocator, 1, sizeof(*am));
  if (!am)
    return NULL;
  am->registry = registry;
  am->target = target ? target : wave_target_default();
  am->diags = diags;
  return am;
}

void wave_analysis_manager_destroy(wave_analysis_manager *am) {
  if (!am)
    return;
  for (size_t i = 0; i < am->num_entries; i++)
    wave_pass_registry_analysis_at(am->registry, am->entries[i].id)->destroy(am->entries[i].result);
  wave_mem_free(am->registry->allocator, am->entries);
  for (size_t i = 0; i < am->num_views; i++) {
    wave_layout_destroy(am->views[i].layout);
    wave_node_index_destroy(am->views[i].nodes);
  }
  wave_mem_free(am->registry->allocator, am->views);
  wave_mem_free(am->registry->allocator, am);
}

bool wave_pm_take_out_of_memory(wave_analysis_manager *am) {
  bool ran_out = am->out_of_memory;
  am->out_of_memory = false;
  return ran_out;
}

const wave_target *wave_analysis_manager_target(const wave_analysis_manager *am) {
  return am->target;
}

const wave_pass_registry *wave_analysis_manager_registry(const wave_analysis_manager *am) {
  return am->registry;
}

void wave_analysis_manager_set_assume_divergent(wave_analysis_manager *am, wave_regset regs) {
  am->assume_divergent = regs;
}

wave_regset wave_analysis_manager_assume_divergent(const wave_analysis_manager *am) {
  return am->assume_divergent;
}

/* The kernel's entry, added empty if it has none; NULL when memory runs out. */
static cached_views *views_of(wave_analysis_manager *am, const wave_kernel *kernel) {
  for (size_t i = 0; i < am->num_views; i++)
    if (am->views[i].kernel == kernel)
      return &am->views[i];
  if (!wave_grow(am->registry->allocator, (void **)&am->views, &am->cap_views, am->num_views + 1,
                 sizeof(*am->views)))
    return NULL;
  am->views[am->num_views] = (cached_views){.kernel = kernel};
  return &am->views[am->num_views++];
}

const wave_layout *wave_analysis_manager_layout(wave_analysis_manager *am,
                                                const wave_kernel *kernel) {
  cached_views *v = views_of(am, kernel);
  if (v && !v->layout &&
      (v->layout = wave_layout_build(kernel, v->last_size.items ? &v->last_size : NULL)) != NULL)
    v->last_size = wave_layout_size_of(v->layout);
  am->out_of_memory |= !v || !v->layout;
  return v ? v->layout : NULL;
}

const wave_node_index *wave_analysis_manager_nodes(wave_analysis_manager *am,
                                                   wave_kernel *kernel) {
  cached_views *v = views_of(am, kernel);
  if (v && !v->nodes)
    v->nodes = wave_node_index_build(kernel);
  am->out_of_memory |= !v || !v->nodes;
  return v ? v->nodes : NULL;
}

static cached *find(wave_analysis_manager *am, const wave_kernel *kernel, wave_analysis_id id) {
  for (size_t i = 0; i < am->num_entries; i++)
    if (am->entries[i].kernel == kernel && am->entries[i].id == id)
      return &am->entries[i];
  return NULL;
}

/* Reports why an analysis has no result; returns that missing result. */
static const void *fail(wave_analysis_manager *am, const wave_kernel *kernel,
                        const wave_analysis_info *info, const char *why) {
  wave_module_report(wave_kernel_module(kernel), am->diags, WAVE_SEV_ERROR, NULL,
                     wave_kernel_loc(kernel), "analysis '%s' of kernel '%s' %s", info->name,
                     wave_kernel_name(kernel), why);
  return NULL;
}

/* Makes the analysis being computed (if it is for the same kernel) depend on `id`. */
static void note_source(wave_analysis_manager *am, const wave_kernel *kernel,
                        wave_analysis_id id) {
  if (am->depth && am->stack[am->depth - 1].kernel == kernel)
    am->stack[am->depth - 1].sources |= WAVE_PRESERVE(id);
}

const void *wave_analysis_get(wave_analysis_manager *am, wave_kernel *kernel,
                              wave_analysis_id id) {
  const wave_analysis_info *info = wave_pass_registry_analysis_at(am->registry, id);
  if (!info)
    return NULL;
  cached *hit = find(am, kernel, id);
  if (hit) {
    note_source(am, kernel, id);
    return hit->result;
  }
  for (unsigned i = 0; i < am->depth; i++)
    if (am->stack[i].kernel == kernel && am->stack[i].id == id)
      return fail(am, kernel, info, "needs its own result");
  if (am->depth == WAVE_MAX_ANALYSES)
    return fail(am, kernel, info, "nests too deeply in other analyses");
  am->stack[am->depth++] = (computing){kernel, id, 0};
  void *result = info->compute(kernel, am, am->diags);
  wave_preserved sources = am->stack[--am->depth].sources;
  if (!result) {
    /* An analysis returns nothing only when memory ran out. */
    am->out_of_memory = true;
    return NULL;
  }
  /* Grown only now: the analyses it asked for were appended meanwhile. */
  if (am->num_entries == am->capacity) {
    size_t capacity = am->capacity ? 2 * am->capacity : 16;
    cached *entries =
        wave_mem_realloc(am->registry->allocator, am->entries, capacity * sizeof(*entries));
    if (!entries) {
      am->out_of_memory = true;
      info->destroy(result);
      return fail(am, kernel, info, "cannot be kept: out of memory");
    }
    am->entries = entries;
    am->capacity = capacity;
  }
  am->entries[am->num_entries++] = (cached){kernel, id, result, sources};
  note_source(am, kernel, id);
  return result;
}

void wave_analysis_invalidate(wave_analysis_manager *am, const wave_kernel *kernel,
                              wave_preserved preserved) {
  /* Dropping spreads to dependents until nothing more falls; a chain of n results takes at
   * most n rounds, and a registry holds at most 64 analyses. */
  wave_preserved dropped = ~preserved;
  for (bool spread = true; spread;) {
    spread = false;
    for (size_t i = 0; i < am->num_entries; i++) {
      const cached *e = &am->entries[i];
      if (e->kernel == kernel && !(dropped & WAVE_PRESERVE(e->id)) && (e->sources & dropped)) {
        dropped |= WAVE_PRESERVE(e->id);
        spread = true;
      }
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < am->num_entries; i++) {
    cached *e = &am->entries[i];
    if (e->kernel == kernel && (dropped & WAVE_PRESERVE(e->id)))
      wave_pass_registry_analysis_at(am->registry, e->id)->destroy(e->result);
    else
      am->entries[kept++] = *e;
  }
  am->num_entries = kept;
  for (size_t i = 0; i < am->num_views; i++) {
    cached_views *v = &am->views[i];
    if (v->kernel == kernel) {
      wave_layout_destroy(v->layout);
      wave_node_index_destroy(v->nodes);
      v->layout = NULL;
      v->nodes = NULL;
    }
  }
}

bool wave_pm_check_preserved(wave_analysis_manager *am, wave_kernel *kernel,
                             const char *pass, wave_diags *diags) {
  wave_analysis_manager *fresh = wave_analysis_manager_create(am->registry, am->target, diags);
  if (!fresh) {
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){0}, NULL, 0,
                     "out of memory checking the analyses preserved by pass %s", pass);
    return false;
  }
  fresh->assume_divergent = am->assume_divergent;
  bool ok = true;
  for (size_t i = 0; i < am->num_entries; i++) {
    const cached *e = &am->entries[i];
    const wave_analysis_info *info = wave_pass_registry_analysis_at(am->registry, e->id);
    if (e->kernel != kernel || !info->equal)
      continue;
    const void *now = wave_analysis_get(fresh, kernel, e->id);
    if (now && info->equal(e->result, now))
      continue;
    ok = false;
    /* Without a result, only memory can have run out (wave_analysis_get). */
    wave_module_report(wave_kernel_module(kernel), diags, WAVE_SEV_ERROR, NULL,
                       wave_kernel_loc(kernel),
                       now ? "internal error: analysis '%s' of kernel '%s' is out of date "
                             "after pass %s, which claims to preserve it"
                           : "out of memory computing analysis '%s' of kernel '%s' again "
                             "after pass %s",
                       info->name, wave_kernel_name(kernel), pass);
  }
  wave_analysis_manager_destroy(fresh);
  return ok;
}
