/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a divergence profile (waveopt/profile.h, docs/profile.md). The text goes through the
 * JSON reader of support/json.h, then every field the format requires is checked for its type
 * and copied into flat arrays in one arena: a profile that reads is complete, and lookups
 * never meet a missing field. Rules beyond the types:
 *   - "format" is "wave-profile" and "version" is WAVE_PROFILE_VERSION;
 *   - lines are in strictly increasing order and branches in non-decreasing line order (the
 *     writer's order; lookups bisect), every branch on a listed line;
 *   - a line's splits and divergent exits are its branches' sums, kept on the line for readers
 *     that go line by line.
 * Counts must be JSON integers in 0..2^64-1; any other number there is an error. Unknown
 * fields are ignored, so later versions may add some without breaking old readers.
 *
 * Matching (wave_profile_match) rebuilds the kernel's program as the interpreter runs it and
 * compares its lines and their opcodes with the profile's, reporting the first difference.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_program.h"
#include "profile/profile_internal.h"
#include "support/arena.h"
#include "support/json.h"
#include "support/text.h"
#include "waveopt/profile.h"

struct wave_profile_kernel {
  const char *name;
  uint32_t wave_width;
  uint64_t signature;
  wave_counters totals;
  wave_profile_line *lines;
  size_t num_lines;
  wave_profile_branch *branches;
  size_t num_branches;
  const wave_profile *profile;
};

struct wave_profile {
  wave_arena *arena;
  const char *file;       /* the profile's own name, for diagnostics */
  const char *source;
  wave_profile_kernel *kernels;
  size_t num_kernels;
};

/* ---- reading -------------------------------------------------------------------------- */

typedef struct loader {
  wave_profile *p;
  wave_diags *diags;
  bool ok;
} loader;

static void report_at(wave_diags *diags, wave_severity severity, wave_loc loc, const char *fmt,
                      va_list ap) {
  char *text = wave_vformat(fmt, ap);
  if (text)
    wave_diag_report(diags, severity, NULL, loc, NULL, 0, "%s", text);
  else
    diags->out_of_memory = true;
  wave_mem_free(NULL, text);
}

static bool bad(loader *l, const wave_json *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool bad(loader *l, const wave_json *at, const char *fmt, ...) {
  if (l->ok && l->diags) {
    va_list ap;
    va_start(ap, fmt);
    report_at(l->diags, WAVE_SEV_ERROR, (wave_loc){l->p->file, at->line, at->col}, fmt, ap);
    va_end(ap);
  }
  l->ok = false;
  return false;
}

static const char *const type_names[] = {"null", "false", "true", "a number", "a string",
                                         "an array", "an object"};

static const wave_json *field(loader *l, const wave_json *obj, const char *key,
                              wave_json_type type) {
  const wave_json *v = wave_json_member(obj, key);
  if (!v) {
    bad(l, obj, "profile: missing \"%s\"", key);
    return NULL;
  }
  if (v->type != type) {
    bad(l, v, "profile: \"%s\" must be %s, not %s", key, type_names[type], type_names[v->type]);
    return NULL;
  }
  return v;
}

static uint64_t count(loader *l, const wave_json *obj, const char *key) {
  const wave_json *v = field(l, obj, key, WAVE_JSON_NUMBER);
  if (v && !v->is_count)
    bad(l, v, "profile: \"%s\" must be an integer from 0 to 2^64-1", key);
  return v && v->is_count ? v->count : 0;
}

static uint32_t count32(loader *l, const wave_json *obj, const char *key) {
  uint64_t n = count(l, obj, key);
  if (n > UINT32_MAX)
    bad(l, wave_json_member(obj, key), "profile: \"%s\" is out of range", key);
  return n > UINT32_MAX ? 0 : (uint32_t)n;
}

static const char *text_field(loader *l, const wave_json *obj, const char *key) {
  const wave_json *v = field(l, obj, key, WAVE_JSON_STRING);
  return v ? v->string : "";
}

static void *alloc_array(loader *l, size_t n, size_t size) {
  if (n > SIZE_MAX / size) {
    l->ok = false;
    return NULL;
  }
  void *a = wave_arena_alloc(l->p->arena, n ? n * size : 1);
  if (!a)
    l->ok = false;
  return a;
}

static void read_totals(loader *l, const wave_json *obj, wave_counters *c) {
  c->issued = count(l, obj, "issued");
  c->empty_issues = count(l, obj, "empty_issues");
  c->lane_instructions = count(l, obj, "lane_instructions");
  c->max_depth = count32(l, obj, "max_depth");
  c->divergent_ifs = count(l, obj, "divergent_ifs");
  c->divergent_loops = count(l, obj, "divergent_loops");
  c->mask_ops = count(l, obj, "mask_ops");
  c->barriers = count(l, obj, "barriers");
  c->steps = count(l, obj, "steps");
  /* later than the other counters: a profile without them reads as 0 */
  c->emu_walked = wave_json_member(obj, "emu_walked") ? count(l, obj, "emu_walked") : 0;
  c->parked_wave_ops =
      wave_json_member(obj, "parked_wave_ops") ? count(l, obj, "parked_wave_ops") : 0;
}

static bool read_signature(loader *l, const wave_json *obj, uint64_t *out) {
  const char *s = text_field(l, obj, "signature");
  const char *prefix = "fnv1a64:";
  size_t n = strlen(prefix);
  if (!l->ok)
    return false;
  uint64_t v = 0;
  bool good = strncmp(s, prefix, n) == 0 && strlen(s) == n + 16;
  for (size_t i = n; good && s[i]; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    good = d >= 0;
    v = v << 4 | (uint64_t)(d < 0 ? 0 : d);
  }
  if (!good)
    return bad(l, wave_json_member(obj, "signature"),
               "profile: \"signature\" must be \"fnv1a64:\" and 16 lower-case hex digits");
  *out = v;
  return true;
}

static wave_profile_line *find_line(wave_profile_line *lines, size_t n, uint32_t line) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (lines[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && lines[lo].line == line ? &lines[lo] : NULL;
}

static void read_lines(loader *l, const wave_json *arr, wave_profile_kernel *k) {
  k->lines = alloc_array(l, arr->size, sizeof *k->lines);
  for (const wave_json *e = arr->first; e && l->ok; e = e->next) {
    if (e->type != WAVE_JSON_OBJECT) {
      bad(l, e, "profile: a line must be an object");
      return;
    }
    wave_profile_line *line = &k->lines[k->num_lines];
    line->line = count32(l, e, "line");
    line->ops = text_field(l, e, "ops");
    line->issued = count(l, e, "issued");
    line->lanes = count(l, e, "lanes");
    if (l->ok && k->num_lines && line->line <= k->lines[k->num_lines - 1].line)
      bad(l, e, "profile: line %" PRIu32 " comes after line %" PRIu32
                " (lines must be in increasing order)",
          line->line, k->lines[k->num_lines - 1].line);
    k->num_lines++;
  }
}

static void read_branches(loader *l, const wave_json *arr, wave_profile_kernel *k) {
  k->branches = alloc_array(l, arr->size, sizeof *k->branches);
  for (const wave_json *e = arr->first; e && l->ok; e = e->next) {
    if (e->type != WAVE_JSON_OBJECT) {
      bad(l, e, "profile: a branch must be an object");
      return;
    }
    wave_profile_branch *b = &k->branches[k->num_branches];
    b->line = count32(l, e, "line");
    const char *kind = text_field(l, e, "kind");
    b->runs = count(l, e, "runs");
    b->lanes = count(l, e, "lanes");
    if (!l->ok)
      return;
    if (strcmp(kind, "if") == 0) {
      b->kind = WAVE_PROFILE_IF;
      b->splits = count(l, e, "splits");
    } else if (strcmp(kind, "loop") == 0) {
      b->kind = WAVE_PROFILE_LOOP;
      b->divergent_exits = count(l, e, "divergent_exits");
    } else {
      bad(l, wave_json_member(e, "kind"), "profile: unknown branch kind '%s' (if or loop)", kind);
      return;
    }
    if (l->ok && (b->splits > b->runs || b->divergent_exits > b->runs))
      bad(l, e, "profile: a branch cannot split more often than it ran");
    if (l->ok && k->num_branches && b->line < k->branches[k->num_branches - 1].line)
      bad(l, e, "profile: branches must be in line order");
    wave_profile_line *line = l->ok ? find_line(k->lines, k->num_lines, b->line) : NULL;
    if (l->ok && !line)
      bad(l, e, "profile: branch at line %" PRIu32 ", which \"lines\" does not list", b->line);
    if (!l->ok)
      return;
    line->splits += b->splits;
    line->divergent_exits += b->divergent_exits;
    k->num_branches++;
  }
}

static void read_kernel(loader *l, const wave_json *obj, wave_profile_kernel *k) {
  if (obj->type != WAVE_JSON_OBJECT) {
    bad(l, obj, "profile: a kernel must be an object");
    return;
  }
  k->profile = l->p;
  k->name = text_field(l, obj, "kernel");
  k->wave_width = count32(l, obj, "wave_width");
  if (l->ok && (k->wave_width < WAVE_MIN_WAVE_WIDTH || k->wave_width > WAVE_MAX_WAVE_WIDTH))
    bad(l, wave_json_member(obj, "wave_width"), "profile: \"wave_width\" must be 8..64");
  const wave_json *totals = field(l, obj, "totals", WAVE_JSON_OBJECT);
  if (totals)
    read_totals(l, totals, &k->totals);
  if (l->ok)
    read_signature(l, obj, &k->signature);
  const wave_json *lines = l->ok ? field(l, obj, "lines", WAVE_JSON_ARRAY) : NULL;
  if (lines)
    read_lines(l, lines, k);
  const wave_json *branches = l->ok ? field(l, obj, "branches", WAVE_JSON_ARRAY) : NULL;
  if (branches)
    read_branches(l, branches, k);
}

static void read_profile(loader *l, const wave_json *root) {
  if (root->type != WAVE_JSON_OBJECT) {
    bad(l, root, "profile: expected an object, found %s", type_names[root->type]);
    return;
  }
  const char *format = text_field(l, root, "format");
  if (l->ok && strcmp(format, "wave-profile") != 0) {
    bad(l, wave_json_member(root, "format"), "profile: format '%s' is not \"wave-profile\"",
        format);
    return;
  }
  uint64_t version = count(l, root, "version");
  if (l->ok && version != WAVE_PROFILE_VERSION) {
    bad(l, wave_json_member(root, "version"),
        "profile: version %" PRIu64 " is not one this reader knows (%d)", version,
        WAVE_PROFILE_VERSION);
    return;
  }
  l->p->source = text_field(l, root, "source");
  const wave_json *kernels = l->ok ? field(l, root, "kernels", WAVE_JSON_ARRAY) : NULL;
  if (!kernels)
    return;
  l->p->kernels = alloc_array(l, kernels->size, sizeof *l->p->kernels);
  for (const wave_json *k = kernels->first; k && l->ok; k = k->next)
    read_kernel(l, k, &l->p->kernels[l->p->num_kernels++]);
}

static char *arena_strdup(wave_arena *arena, const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = wave_arena_alloc(arena, n);
  if (copy)
    memcpy(copy, s, n);
  return copy;
}

wave_profile *wave_profile_parse(const char *text, size_t len, const char *file_name,
                                 wave_diags *diags) {
  wave_profile *p = wave_mem_calloc(NULL, 1, sizeof *p);
  if (!p)
    return NULL;
  p->arena = wave_arena_create(NULL);
  p->file = p->arena ? arena_strdup(p->arena, file_name ? file_name : "<profile>") : NULL;
  if (!p->file) {
    wave_profile_destroy(p);
    return NULL;
  }
  loader l = {p, diags, true};
  wave_json_error error;
  wave_json *root = wave_json_parse(text, len, p->arena, &error);
  if (!root) {
    if (diags)
      wave_diag_report(diags, WAVE_SEV_ERROR, NULL, (wave_loc){p->file, error.line, error.col},
                       NULL, 0, "%s", error.message);
    l.ok = false;
  } else {
    read_profile(&l, root);
  }
  if (!l.ok) {
    wave_profile_destroy(p);
    return NULL;
  }
  return p;
}

void wave_profile_destroy(wave_profile *p) {
  if (!p)
    return;
  wave_arena_destroy(p->arena);
  wave_mem_free(NULL, p);
}

/* ---- lookups ------------------------------------------------------------------------------ */

const char *wave_profile_source(const wave_profile *p) { return p->source; }
size_t wave_profile_num_kernels(const wave_profile *p) { return p->num_kernels; }

const wave_profile_kernel *wave_profile_kernel_at(const wave_profile *p, size_t index) {
  return index < p->num_kernels ? &p->kernels[index] : NULL;
}

const wave_profile_kernel *wave_profile_find_kernel(const wave_profile *p, const char *name) {
  for (size_t i = 0; i < p->num_kernels; i++) {
    if (strcmp(p->kernels[i].name, name) == 0)
      return &p->kernels[i];
  }
  return NULL;
}

const char *wave_profile_kernel_name(const wave_profile_kernel *k) { return k->name; }
uint32_t wave_profile_wave_width(const wave_profile_kernel *k) { return k->wave_width; }
const wave_counters *wave_profile_totals(const wave_profile_kernel *k) { return &k->totals; }
size_t wave_profile_num_lines(const wave_profile_kernel *k) { return k->num_lines; }

const wave_profile_line *wave_profile_line_at(const wave_profile_kernel *k, size_t index) {
  return index < k->num_lines ? &k->lines[index] : NULL;
}

const wave_profile_line *wave_profile_find_line(const wave_profile_kernel *k, uint32_t line) {
  return find_line(k->lines, k->num_lines, line);
}

double wave_profile_line_efficiency(const wave_profile_kernel *k, const wave_profile_line *line) {
  if (!line->issued)
    return 0.0;
  return (double)line->lanes / ((double)line->issued * k->wave_width);
}

size_t wave_profile_num_branches(const wave_profile_kernel *k) { return k->num_branches; }

const wave_profile_branch *wave_profile_branch_at(const wave_profile_kernel *k, size_t index) {
  return index < k->num_branches ? &k->branches[index] : NULL;
}

const wave_profile_branch *wave_profile_find_branch(const wave_profile_kernel *k, uint32_t line,
                                                    wave_profile_branch_kind kind) {
  size_t lo = 0, hi = k->num_branches;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->branches[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < k->num_branches && k->branches[lo].line == line; lo++) {
    if (k->branches[lo].kind == kind)
      return &k->branches[lo];
  }
  return NULL;
}

double wave_profile_branch_rate(const wave_profile_branch *b) {
  if (!b->runs)
    return 0.0;
  return (double)(b->kind == WAVE_PROFILE_IF ? b->splits : b->divergent_exits) / (double)b->runs;
}

/* ---- matching ----------------------------------------------------------------------------- */

static void stale(const wave_profile_kernel *k, const wave_kernel *kernel, uint32_t line,
                  wave_diags *diags, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void stale(const wave_profile_kernel *k, const wave_kernel *kernel, uint32_t line,
                  wave_diags *diags, const char *fmt, ...) {
  if (!diags)
    return;
  va_list ap;
  va_start(ap, fmt);
  char *what = wave_vformat(fmt, ap);
  va_end(ap);
  wave_loc loc = {wave_kernel_loc(kernel).file, line, line ? 1 : 0};
  if (what)
    wave_diag_report(diags, WAVE_SEV_ERROR, NULL, loc, NULL, 0,
                     "profile %s of kernel '%s' is stale: %s", k->profile->file, k->name, what);
  else
    diags->out_of_memory = true;
  wave_mem_free(NULL, what);
}

/* Compares the kernel's lines (slots of its program) with the profile's; true when equal. */
static bool same_lines(const wave_profile_kernel *k, const wave_kernel *kernel,
                       const interp_program *prog, const profile_slot *slots, size_t n,
                       wave_diags *diags) {
  wave_strbuf ops = {0};
  uint64_t hash = PROFILE_HASH_INIT;
  size_t j = 0;
  bool same = true;
  for (size_t from = 0, to; same && from < n; from = to, j++) {
    to = profile_line_end(slots, n, from);
    uint32_t line = slots[from].line;
    ops.len = 0;
    wave_strbuf_printf(&ops, "%" PRIu32 " ", line);
    size_t head = ops.len;
    profile_put_ops(&ops, prog->entries, slots, from, to);
    wave_strbuf_puts(&ops, "\n");
    if (ops.failed) {
      if (diags)
        diags->out_of_memory = true;
      same = false;
      break;
    }
    hash = profile_hash(hash, ops.data, ops.len);
    ops.data[ops.len - 1] = '\0';
    const wave_profile_line *theirs = j < k->num_lines ? &k->lines[j] : NULL;
    if (theirs && theirs->line < line) {
      stale(k, kernel, theirs->line, diags, "line %" PRIu32 " holds no statement here, '%s' there",
            theirs->line, theirs->ops);
      same = false;
    } else if (!theirs || theirs->line > line) {
      stale(k, kernel, line, diags, "line %" PRIu32 " holds '%s' here, nothing there", line,
            ops.data + head);
      same = false;
    } else if (strcmp(theirs->ops, ops.data + head) != 0) {
      stale(k, kernel, line, diags, "line %" PRIu32 " holds '%s' here, '%s' there", line,
            ops.data + head, theirs->ops);
      same = false;
    }
  }
  wave_mem_free(NULL, wave_strbuf_take(&ops, NULL));
  if (same && j < k->num_lines) {
    stale(k, kernel, k->lines[j].line, diags,
          "line %" PRIu32 " holds no statement here, '%s' there", k->lines[j].line,
          k->lines[j].ops);
    same = false;
  }
  if (same && hash != k->signature) {
    stale(k, kernel, 0, diags, "its signature does not match its lines (an edited profile?)");
    same = false;
  }
  return same;
}

const wave_profile_kernel *wave_profile_match(const wave_profile *p, const wave_kernel *kernel,
                                              wave_diags *diags) {
  const wave_profile_kernel *k = wave_profile_find_kernel(p, wave_kernel_name(kernel));
  if (!k)
    return NULL;
  interp_program prog;
  char err[256];
  wave_loc loc = {0};
  bool oom;
  if (!interp_program_build(&prog, kernel, wave_module_allocator(wave_kernel_module(kernel)), err,
                            sizeof err, &loc, &oom)) {
    if (diags && oom)
      diags->out_of_memory = true;
    else if (diags)
      wave_diag_report(diags, WAVE_SEV_ERROR, NULL, loc, NULL, 0,
                       "cannot match profile %s: %s", p->file, err);
    return NULL;
  }
  size_t n;
  profile_slot *slots = profile_slots(prog.entries, prog.len, &n);
  bool same = false;
  if (slots)
    same = same_lines(k, kernel, &prog, slots, n, diags);
  else if (diags)
    diags->out_of_memory = true;
  wave_mem_free(NULL, slots);
  interp_program_free(&prog);
  return same ? k : NULL;
}
