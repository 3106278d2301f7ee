/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pass plugins: shared objects that add passes and analyses to a registry (waveopt/pass.h,
 * "pass plugins"). Loading one is dlopen, a lookup of its entry point, a check of the API
 * version it was built for, and its registration callback. The registry then points into the
 * object (its wave_pass_info and wave_analysis_info records), so the registry holds the handle
 * and closes it last, when nothing can reach those records any more.
 *
 * A load that fails leaves the registry as it was: whatever the plugin registered before its
 * callback failed is taken off again (nothing else can have seen it, since a registry is
 * changed by one thread at a time), and only then is the object closed. RTLD_LOCAL keeps one
 * plugin's symbols from resolving another's; RTLD_NOW finds a missing symbol at the load, where
 * it can be reported, instead of at the first call of a pass.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm/pm_internal.h"
#include "support/grow.h"

static bool fail(wave_diags *diags, const char *path, const char *what, const char *detail) {
  wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){path, 0, 0}, NULL, 0,
                   "cannot load pass plugin: %s%s%s", what, detail ? ": " : "",
                   detail ? detail : "");
  return false;
}

/* The entry point, through a cast that ISO C leaves to the platform: POSIX guarantees that a
 * function's address survives the round trip through dlsym's void *. */
typedef const wave_pass_plugin_info *(*entry_fn)(void);

static entry_fn find_entry(void *handle) {
  void *symbol = dlsym(handle, "wave_get_pass_plugin_info");
  entry_fn entry;
  _Static_assert(sizeof(entry) == sizeof(symbol), "function and object pointers differ");
  memcpy(&entry, &symbol, sizeof(entry));
  return entry;
}

bool wave_pass_registry_load_plugin(wave_pass_registry *registry, const char *path,
                                    wave_diags *diags) {
  if (!wave_grow(registry->allocator, (void **)&registry->plugins, &registry->plugin_capacity,
                 registry->num_plugins + 1, sizeof(*registry->plugins)))
    return fail(diags, path, "out of memory", NULL);
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return fail(diags, path, "the file does not load", dlerror());
  entry_fn entry = find_entry(handle);
  const wave_pass_plugin_info *info = entry ? entry() : NULL;
  size_t passes = registry->num_passes, analyses = registry->num_analyses;
  bool ok = false;
  if (!entry)
    fail(diags, path, "it defines no wave_get_pass_plugin_info", NULL);
  else if (!info)
    fail(diags, path, "wave_get_pass_plugin_info returned no description", NULL);
  else if (info->api_version != WAVE_PASS_PLUGIN_API_VERSION) {
    char detail[96];
    snprintf(detail, sizeof(detail), "built for plugin API version %u, this library has %u",
             info->api_version, WAVE_PASS_PLUGIN_API_VERSION);
    fail(diags, path, "wrong API version", detail);
  } else if (!info->register_passes) {
    fail(diags, path, "it has no registration function", NULL);
  } else if (!info->register_passes(registry, diags)) {
    fail(diags, path, "its registration failed", info->name);
  } else {
    ok = true;
  }
  if (!ok) {
    registry->num_passes = passes;
    registry->num_analyses = analyses;
    dlclose(handle);
    return false;
  }
  registry->plugins[registry->num_plugins++] = handle;
  return true;
}

void wave_pass_plugins_close(wave_pass_registry *registry) {
  while (registry->num_plugins > 0)
    dlclose(registry->plugins[--registry->num_plugins]);
  wave_mem_free(registry->allocator, registry->plugins);
  registry->plugins = NULL;
}
