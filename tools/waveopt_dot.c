/* SPDX-License-Identifier: Apache-2.0 */
/*
 * waveopt's -dot flags. Files are named after the kernel: its file stem (wave_dot_file_stem:
 * bytes outside [A-Za-z0-9_] as '_', cut to 200 bytes), ".2", ".3", ... added for a kernel
 * whose stem an earlier kernel of the file already has, then ".before" for -dot-before, then
 * the format's extension. Each file is written to a temporary name and renamed when complete.
 */
#include "waveopt_dot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool_util.h"

bool dot_take_flag(dot_request *req, const char *arg, int *status) {
  const char *v;
  if (strcmp(arg, "-dot") == 0 || strcmp(arg, "--dot") == 0) {
    req->after = true;
  } else if (strcmp(arg, "-dot-before") == 0 || strcmp(arg, "--dot-before") == 0) {
    req->before = true;
  } else if ((v = tool_option_value(arg, "dot-dir"))) {
    if (!*v)
      *status = tool_usage_error("waveopt", "-dot-dir needs a directory");
    req->dir = v;
  } else if ((v = tool_option_value(arg, "profile"))) {
    if (!*v)
      *status = tool_usage_error("waveopt", "-profile needs a file name");
    req->profile = v;
  } else if ((v = tool_option_value(arg, "dot-format"))) {
    if (!wave_dot_format_parse(v, &req->format))
      *status = tool_usage_error("waveopt",
                                 "unknown -dot-format '%s' (expected dot, svg, png or pdf)", v);
    req->has_format = true;
  } else {
    return false;
  }
  return true;
}

int dot_check_flags(const dot_request *req) {
  if ((req->dir || req->has_format || req->profile) && !req->after && !req->before)
    return tool_usage_error("waveopt",
                            "-dot-dir, -dot-format and -profile need -dot or -dot-before");
  return -1;
}

/* What libwaveopt-dot reported (graphviz's errors, running out of memory) concerns no line
 * of the input: it is printed as the tool's own errors are, then dropped. */
static void print_diags(wave_diags *diags) {
  for (size_t i = 0; i < diags->count; i++)
    fprintf(stderr, "waveopt: %s: %s\n",
            diags->items[i].severity == WAVE_SEV_ERROR ? "error" : "warning",
            diags->items[i].message);
  if (diags->out_of_memory)
    fprintf(stderr, "waveopt: error: out of memory\n");
  wave_diags_free(diags);
  wave_diags_init(diags);
}

/* Kernel k's graph (the i-th kernel of the module), or NULL after printing why. */
static Agraph_t *draw(const dot_request *req, const wave_kernel *k, size_t i,
                      const wave_dot_options *options) {
  wave_dot_options each = *options;
  each.profile = req->measured ? req->measured[i] : NULL;
  wave_diags diags;
  wave_diags_init(&diags);
  Agraph_t *graph = wave_dot_build(k, &each, &diags);
  print_diags(&diags);
  return graph;
}

static Agraph_t **draw_all(const dot_request *req, const wave_module *module,
                           const wave_dot_options *options) {
  Agraph_t **graphs = calloc(wave_module_num_kernels(module) ? wave_module_num_kernels(module) : 1,
                             sizeof(*graphs));
  if (!graphs) {
    fprintf(stderr, "waveopt: error: out of memory\n");
    return NULL;
  }
  size_t i = 0;
  for (const wave_kernel *k = wave_module_first_kernel(module); k; k = wave_kernel_next(k), i++) {
    if (!(graphs[i] = draw(req, k, i, options))) {
      for (size_t j = 0; j < i; j++)
        agclose(graphs[j]);
      free(graphs);
      return NULL;
    }
  }
  return graphs;
}

/* The pipeline keeps the input's kernels in order and every statement's line, so what is
 * matched here still finds its kernel by index, and its lines by number, after the passes. */
static bool match_profile(dot_request *req, const wave_module *module,
                          const wave_profile *profile, const char *profile_path,
                          wave_diags *diags) {
  req->measured = calloc(wave_module_num_kernels(module) ? wave_module_num_kernels(module) : 1,
                         sizeof(*req->measured));
  if (!req->measured) {
    diags->out_of_memory = true;
    return false;
  }
  size_t i = 0;
  for (const wave_kernel *k = wave_module_first_kernel(module); k; k = wave_kernel_next(k), i++) {
    req->measured[i] = wave_profile_match(profile, k, diags);
    if (!req->measured[i] && !wave_diags_has_errors(diags))
      wave_diag_report(diags, WAVE_SEV_WARNING, NULL, (wave_loc){profile_path, 0, 0}, NULL, 0,
                       "the profile has no kernel '%s': its graph is drawn without "
                       "measurements",
                       wave_kernel_name(k));
  }
  return !wave_diags_has_errors(diags);
}

bool dot_snapshot(dot_request *req, const wave_module *module, const wave_dot_options *options,
                  const wave_profile *profile, const char *profile_path, wave_diags *diags) {
  if (!req->after && !req->before)
    return true;
  if (profile && !match_profile(req, module, profile, profile_path, diags))
    return false;
  if (!req->before)
    return true;
  req->before_graphs = draw_all(req, module, options);
  req->num_before = wave_module_num_kernels(module);
  return req->before_graphs != NULL;
}

/* The directory the files go to: -dot-dir, else the -o file's, else the current one. An -o
 * that names something other than a regular file (-o /dev/null) says nothing about where
 * files belong, so it counts as standard output rather than putting graphs into /dev. */
static char *target_dir(const dot_request *req, const char *output) {
  if (req->dir)
    return strdup(req->dir);
  struct stat st;
  if (output && stat(output, &st) == 0 && !S_ISREG(st.st_mode))
    output = NULL;
  const char *slash = output && strcmp(output, "-") != 0 ? strrchr(output, '/') : NULL;
  if (!slash)
    return strdup(".");
  if (slash == output)
    return strdup("/");
  return strndup(output, (size_t)(slash - output));
}

/* A kernel's stem before it is made unique, and the kernel's place in the module. */
typedef struct named {
  char *stem;
  size_t index;
} named;

static int by_stem_then_index(const void *a, const void *b) {
  const named *x = a, *y = b;
  int c = strcmp(x->stem, y->stem);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Every kernel's stem, made unique in kernel order; NULL when memory ran out. A stem holds no
 * '.', so "s.2" can only be taken by another kernel of stem s: the k-th kernel of a stem gets
 * ".k" from the second on, and sorting by stem finds them without comparing every pair (a file
 * of 100 000 kernels took a minute that way). */
static char **unique_stems(const wave_module *module) {
  size_t n = wave_module_num_kernels(module), i = 0;
  char **stems = calloc(n ? n : 1, sizeof(*stems));
  named *order = calloc(n ? n : 1, sizeof(*order));
  if (!stems || !order) {
    free(stems);
    free(order);
    return NULL;
  }
  for (const wave_kernel *k = wave_module_first_kernel(module); k; k = wave_kernel_next(k), i++) {
    /* Room for the base and a copy number. */
    size_t size = WAVE_DOT_STEM_MAX + 1 + 24;
    if (!(stems[i] = malloc(size)))
      break;
    wave_dot_file_stem(wave_kernel_name(k), stems[i], WAVE_DOT_STEM_MAX + 1);
    order[i] = (named){stems[i], i};
  }
  if (i == n) {
    qsort(order, n, sizeof(*order), by_stem_then_index);
    /* The first of a run of equal stems keeps its stem, the one the others are compared to. */
    for (size_t j = 1, first = 0, copy = 1; j < n; j++) {
      if (strcmp(order[j].stem, order[first].stem) != 0) {
        first = j;
        copy = 1;
      } else {
        snprintf(order[j].stem + strlen(order[j].stem), 24, ".%zu", ++copy);
      }
    }
  }
  free(order);
  if (i < n) {
    for (size_t j = 0; j < i; j++)
      free(stems[j]);
    free(stems);
    return NULL;
  }
  return stems;
}

typedef struct write_ctx {
  Agraph_t *graph;
  wave_dot_format format;
  wave_dot_renderer *renderer;
  wave_diags *diags;
} write_ctx;

static int emit_graph(FILE *out, void *ctx) {
  write_ctx *w = ctx;
  return wave_dot_write(w->graph, w->format, w->renderer, out, w->diags);
}

/* Writes one graph into dir as <stem><suffix>.<ext>. False after printing why. */
static bool write_graph(Agraph_t *graph, const char *stem, const char *dir, const char *suffix,
                        wave_dot_format format, wave_dot_renderer *renderer) {
  size_t size = strlen(dir) + strlen(stem) + strlen(suffix) + 16;
  char *path = malloc(size);
  if (!path) {
    fprintf(stderr, "waveopt: error: out of memory\n");
    return false;
  }
  snprintf(path, size, "%s/%s%s.%s", dir, stem, suffix, wave_dot_format_name(format));
  wave_diags diags;
  wave_diags_init(&diags);
  write_ctx ctx = {graph, format, renderer, &diags};
  bool ok = tool_write_output("waveopt", path, emit_graph, &ctx) == 0;
  print_diags(&diags);
  free(path);
  return ok;
}

bool dot_finish(dot_request *req, const wave_module *module, const wave_dot_options *options,
                const char *output) {
  if (!req->after && !req->before)
    return true;
  char *dir = target_dir(req, output);
  char **stems = dir ? unique_stems(module) : NULL;
  if (!stems) {
    fprintf(stderr, "waveopt: error: out of memory\n");
    free(dir);
    return false;
  }
  bool ok = true;
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "waveopt: error: cannot write graphs into '%s': %s\n", dir,
            stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
    ok = false;
  }
  /* One renderer for every file (waveopt/dot.h says why). */
  wave_dot_renderer *renderer = NULL;
  if (ok && req->format != WAVE_DOT_FORMAT_DOT) {
    wave_diags diags;
    wave_diags_init(&diags);
    renderer = wave_dot_renderer_create(&diags);
    print_diags(&diags);
    ok = renderer != NULL;
  }
  size_t n = wave_module_num_kernels(module);
  /* The pipeline keeps the kernels of the input, so the graphs drawn before still line up
   * with the stems. */
  ok = ok && (!req->before || req->num_before == n);
  for (size_t i = 0; ok && req->before && i < n; i++)
    ok = write_graph(req->before_graphs[i], stems[i], dir, ".before", req->format, renderer);
  /* The run is over and went well: each graph after it is drawn, written and let go in turn,
   * so that memory holds one graph, not one per kernel. */
  size_t index = 0;
  for (const wave_kernel *k = wave_module_first_kernel(module); ok && req->after && k;
       k = wave_kernel_next(k), index++) {
    Agraph_t *graph = draw(req, k, index, options);
    ok = graph && write_graph(graph, stems[index], dir, "", req->format, renderer);
    if (graph)
      agclose(graph);
  }
  wave_dot_renderer_destroy(renderer);
  for (size_t i = 0; i < n; i++)
    free(stems[i]);
  free(stems);
  free(dir);
  return ok;
}

void dot_request_free(dot_request *req) {
  for (size_t i = 0; req->before_graphs && i < req->num_before; i++)
    agclose(req->before_graphs[i]);
  free(req->before_graphs);
  req->before_graphs = NULL;
  free(req->measured);
  req->measured = NULL;
}
