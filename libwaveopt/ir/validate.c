/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IR validator, in the manner of Mesa's nir_validate: after a pass, check that every link
 * of the tree still agrees with every other and that the normal form holds, so that a broken
 * pass is caught where it broke the tree rather than three passes later.
 *
 * The validator distrusts exactly what it checks. It never climbs a parent link and never
 * follows `prev`, `list`, `block`, `parent` or `last`: it only compares them with what it
 * reached by going down (first and next pointers and nested lists), keeping its own stack of
 * the lists it is inside. Everything it reaches goes into a set of visited pointers, so a cycle
 * or a node shared by two lists is reported once and not followed: the walk ends after one
 * visit per object, whatever the links say. The set and the stack are its own heap memory,
 * freed before it returns, so a const module is checked without marks in it and nothing
 * global is touched.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/code.h"
#include "support/alloc.h"
#include "waveopt/waveopt.h"

/* ---- visited pointers --------------------------------------------------------------------- */

typedef struct pointer_set {
  const void **slots;  /* open addressing, NULL = free */
  size_t capacity;     /* a power of two, at least twice count */
  size_t count;
  const wave_allocator *allocator;
} pointer_set;

static size_t slot_of(const pointer_set *s, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (s->capacity - 1);
}

static bool grow(pointer_set *s) {
  size_t capacity = s->capacity ? 2 * s->capacity : 256;
  pointer_set bigger = {wave_mem_calloc(s->allocator, capacity, sizeof(void *)), capacity, s->count,
                        s->allocator};
  if (!bigger.slots)
    return false;
  for (size_t i = 0; i < s->capacity; i++) {
    if (!s->slots[i])
      continue;
    size_t h = slot_of(&bigger, s->slots[i]);
    while (bigger.slots[h])
      h = (h + 1) & (bigger.capacity - 1);
    bigger.slots[h] = s->slots[i];
  }
  wave_mem_free(s->allocator, s->slots);
  *s = bigger;
  return true;
}

/* Adds p; *fresh says whether it was new. False when memory ran out. */
static bool visit(pointer_set *s, const void *p, bool *fresh) {
  if (2 * (s->count + 1) > s->capacity && !grow(s))
    return false;
  size_t h = slot_of(s, p);
  while (s->slots[h] && s->slots[h] != p)
    h = (h + 1) & (s->capacity - 1);
  *fresh = !s->slots[h];
  if (*fresh) {
    s->slots[h] = p;
    s->count++;
  }
  return true;
}

/* ---- the validator ------------------------------------------------------------------------ */

/* A list being checked: where the walk stands in it. */
typedef struct frame {
  const wave_node_list *list;
  const wave_node *prev;  /* the node reached last in this list */
  const wave_node *next;  /* the node to check next; NULL at the end */
  bool cut;               /* the walk stopped early (a node met twice): last is not checked */
} frame;

typedef struct validator {
  const wave_module *module;
  const wave_kernel *kernel;
  const wave_region *region;
  const char *context;
  wave_diags *diags;
  pointer_set seen;
  frame *stack;
  size_t depth, capacity;
  bool failed;
  bool out_of_memory;
} validator;

/* A location for a problem: where the statement was written, else where the kernel was. */
static wave_loc where(const validator *v, wave_loc loc) {
  return loc.line || !v->kernel ? loc : v->kernel->kernel_src.loc;
}

__attribute__((format(printf, 3, 4))) static void problem(validator *v, wave_loc loc,
                                                          const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  v->failed = true;
  if (v->context)
    wave_module_report(v->module, v->diags, WAVE_SEV_ERROR, NULL, where(v, loc),
                       "internal error: %s (after %s)", what, v->context);
  else
    wave_module_report(v->module, v->diags, WAVE_SEV_ERROR, NULL, where(v, loc),
                       "internal error: %s", what);
}

static void out_of_memory(validator *v) {
  if (!v->out_of_memory)
    problem(v, (wave_loc){0}, "out of memory while validating");
  v->out_of_memory = true;
}

/* Marks p visited; false when it was already (or memory ran out). */
static bool first_visit(validator *v, const void *p) {
  bool fresh = false;
  if (!visit(&v->seen, p, &fresh))
    out_of_memory(v);
  return fresh;
}

static const char *kind_name(wave_node_kind kind) {
  switch (kind) {
  case WAVE_NODE_BLOCK:
    return "block";
  case WAVE_NODE_IF:
    return "if";
  case WAVE_NODE_LOOP:
    return "loop";
  }
  return "node";
}

static const char *region_name(const wave_region *r) {
  return r->label ? r->label : "(entry)";
}

static wave_loc node_loc(const wave_node *n) {
  switch (wave_node_kind_of(n)) {
  case WAVE_NODE_BLOCK:
    return wave_block_first(n) ? wave_instr_loc(wave_block_first(n)) : (wave_loc){0};
  case WAVE_NODE_IF:
    return wave_node_origin(n, WAVE_LINE_IF).loc;
  case WAVE_NODE_LOOP:
    return wave_node_origin(n, WAVE_LINE_LOOP).loc;
  }
  return (wave_loc){0};
}

/* ---- instructions ------------------------------------------------------------------------- */

static void check_registers(validator *v, const wave_instr *instr) {
  const char *name = wave_opcode_table[wave_instr_op(instr)].mnemonic;
  wave_reg_ref refs[WAVE_MAX_REG_REFS];
  unsigned n = wave_instr_reg_refs(instr, refs);
  for (unsigned i = 0; i < n; i++) {
    uint64_t end = (uint64_t)refs[i].first + refs[i].count;
    if (refs[i].is_pred && end > WAVE_NUM_PREDS)
      problem(v, wave_instr_loc(instr), "'%s' uses p%u, which does not exist", name,
              (unsigned)(end - 1));
    else if (!refs[i].is_pred && end > WAVE_MAX_GPR + 1)
      problem(v, wave_instr_loc(instr), "'%s' uses r%u, which does not exist", name,
              (unsigned)(end - 1));
    else if (!refs[i].is_pred && end > v->kernel->registers)
      problem(v, wave_instr_loc(instr), "'%s' uses r%u, beyond .registers %u", name,
              (unsigned)(end - 1), v->kernel->registers);
  }
}

static void check_instr(validator *v, const wave_node *block, const wave_instr *instr,
                        const wave_instr *prev) {
  if (wave_instr_op(instr) >= WAVE_OP_COUNT) {
    problem(v, wave_instr_loc(instr), "instruction with opcode number %u, which does not exist",
            (unsigned)wave_instr_op(instr));
    return;
  }
  const char *name = wave_opcode_table[wave_instr_op(instr)].mnemonic;
  if (wave_instr_node(instr) != block)
    problem(v, wave_instr_loc(instr), "'%s' names another block than the one holding it", name);
  if (wave_instr_prev(instr) != prev)
    problem(v, wave_instr_loc(instr), "'%s' has a previous-instruction link to another instruction",
            name);
  if (wave_instr_num_operands(instr) > WAVE_MAX_OPERANDS)
    problem(v, wave_instr_loc(instr), "'%s' has %u operands (at most %d)", name,
            (unsigned)wave_instr_num_operands(instr), WAVE_MAX_OPERANDS);
  else
    check_registers(v, instr);
}

static void check_block(validator *v, const wave_node *block) {
  wave_loc loc = node_loc(block);
  if (!wave_block_first(block)) {
    problem(v, loc, "empty block (the normal form has none)");
    if (wave_block_last(block))
      problem(v, loc, "block without a first instruction has a last one");
    return;
  }
  const wave_instr *prev = NULL;
  for (const wave_instr *i = wave_block_first(block); i; prev = i, i = wave_instr_next(i)) {
    if (!first_visit(v, i)) {
      if (!v->out_of_memory)
        problem(v, wave_instr_loc(i),
                "an instruction is reached twice (a cycle, or shared by two "
                "blocks)");
      return;
    }
    check_instr(v, block, i, prev);
  }
  if (wave_block_last(block) != prev)
    problem(v, loc, "block's last-instruction link does not name its last instruction");
}

/* ---- lists -------------------------------------------------------------------------------- */

static bool push(validator *v, const wave_node_list *list) {
  if (v->depth == v->capacity) {
    size_t capacity = v->capacity ? 2 * v->capacity : 64;
    frame *grown = wave_mem_realloc(v->module->allocator, v->stack, capacity * sizeof(*grown));
    if (!grown) {
      out_of_memory(v);
      return false;
    }
    v->stack = grown;
    v->capacity = capacity;
  }
  v->stack[v->depth++] = (frame){list, NULL, wave_node_list_first(list), false};
  return true;
}

/* A list nested in `owner`: its parent and region links. */
static void check_nested(validator *v, const wave_node *owner, const wave_node_list *list,
                         const char *which) {
  if (wave_node_list_parent(list) != owner)
    problem(v, node_loc(owner), "the %s's %s names another parent",
            kind_name(wave_node_kind_of(owner)), which);
  if (wave_node_list_region(list) != v->region)
    problem(v, node_loc(owner), "the %s's %s names another region than '%s'",
            kind_name(wave_node_kind_of(owner)), which, region_name(v->region));
}

/* Checks n, reached in `list` after `prev`, and enters its lists. False when memory ran
 * out. */
static bool check_node(validator *v, const wave_node *n, const wave_node_list *list,
                       const wave_node *prev) {
  wave_loc loc = node_loc(n);
  if (wave_node_kind_of(n) != WAVE_NODE_BLOCK && wave_node_kind_of(n) != WAVE_NODE_IF &&
      wave_node_kind_of(n) != WAVE_NODE_LOOP) {
    problem(v, loc, "node of kind %d, which does not exist", (int)wave_node_kind_of(n));
    return true;
  }
  if (wave_node_list_of(n) != list)
    problem(v, loc, "%s names another list than the one holding it",
            kind_name(wave_node_kind_of(n)));
  if (wave_node_prev(n) != prev)
    problem(v, loc, "%s has a previous-node link to another node", kind_name(wave_node_kind_of(n)));
  if (prev && wave_node_kind_of(prev) == WAVE_NODE_BLOCK && wave_node_kind_of(n) == WAVE_NODE_BLOCK)
    problem(v, loc, "two adjacent blocks (the normal form merges them)");
  switch (wave_node_kind_of(n)) {
  case WAVE_NODE_BLOCK:
    check_block(v, n);
    return true;
  case WAVE_NODE_IF: {
    wave_operand c = wave_if_cond(n);
    if (c.kind != WAVE_OPERAND_PRED || c.value >= WAVE_NUM_PREDS)
      problem(v, loc, "if condition is not a predicate register p0-p3");
    check_nested(v, n, wave_if_then(n), "then-list");
    check_nested(v, n, wave_if_else(n), "else-list");
    /* The else-list goes below so the then-list is checked first, as the text reads. */
    return push(v, wave_if_else(n)) && push(v, wave_if_then(n));
  }
  case WAVE_NODE_LOOP:
    check_nested(v, n, wave_loop_body(n), "body");
    return push(v, wave_loop_body(n));
  }
  return true;
}

/* Walks a region body and everything below it with the explicit stack. */
static void check_body(validator *v, const wave_node_list *body) {
  if (!push(v, body))
    return;
  while (v->depth) {
    frame *f = &v->stack[v->depth - 1];
    const wave_node *n = f->next;
    if (!n) {
      if (!f->cut && wave_node_list_last(f->list) != f->prev)
        problem(v, (wave_loc){0}, "a list's last-node link does not name its last node "
                "(in region '%s')", region_name(v->region));
      v->depth--;
      continue;
    }
    if (!first_visit(v, n)) {
      if (!v->out_of_memory)
        problem(v, node_loc(n), "%s reached twice (a cycle, or shared by two lists)",
                kind_name(wave_node_kind_of(n)));
      f->next = NULL;
      f->cut = true;
      if (v->out_of_memory)
        return;
      continue;
    }
    const wave_node *prev = f->prev;
    f->prev = n;
    f->next = wave_node_next(n);
    if (!check_node(v, n, f->list, prev))
      return;
  }
}

/* ---- kernels and modules ------------------------------------------------------------------ */

static void check_kernel(validator *v, const wave_kernel *k) {
  v->kernel = k;
  wave_loc loc = k->kernel_src.loc;
  if (!k->first_region)
    problem(v, loc, "kernel '%s' has no entry region", k->name);
  const wave_region *prev = NULL;
  for (const wave_region *r = k->first_region; r; prev = r, r = r->next) {
    if (!first_visit(v, r)) {
      if (!v->out_of_memory)
        problem(v, loc, "region list of kernel '%s' meets region '%s' twice", k->name,
                region_name(r));
      return;
    }
    v->region = r;
    if (r->kernel != k)
      problem(v, loc, "region '%s' names another kernel than '%s'", region_name(r), k->name);
    if (r->prev != prev)
      problem(v, loc, "region '%s' has a previous-region link to another region",
              region_name(r));
    if (wave_node_list_parent(&r->body))
      problem(v, loc, "body of region '%s' has a parent node", region_name(r));
    if (wave_node_list_region(&r->body) != r)
      problem(v, loc, "body of region '%s' names another region", region_name(r));
    v->depth = 0;
    check_body(v, &r->body);
    if (v->out_of_memory)
      return;
  }
  if (k->last_region != prev)
    problem(v, loc, "kernel '%s' has a last-region link to another region", k->name);
}

static bool finish(validator *v) {
  wave_mem_free(v->module->allocator, v->seen.slots);
  wave_mem_free(v->module->allocator, v->stack);
  return !v->failed;
}

bool wave_validate_kernel(const wave_kernel *kernel, const char *context, wave_diags *diags) {
  validator v = {.module = kernel->module,
                 .context = context,
                 .diags = diags,
                 .seen.allocator = kernel->module->allocator};
  check_kernel(&v, kernel);
  return finish(&v);
}

bool wave_validate_module(const wave_module *module, const char *context, wave_diags *diags) {
  validator v = {
      .module = module, .context = context, .diags = diags, .seen.allocator = module->allocator};
  const wave_kernel *prev = NULL;
  size_t count = 0;
  for (const wave_kernel *k = module->first_kernel; k && !v.out_of_memory;
       prev = k, k = k->next) {
    if (!first_visit(&v, k)) {
      if (!v.out_of_memory)
        problem(&v, k->kernel_src.loc, "kernel list meets kernel '%s' twice", k->name);
      return finish(&v);
    }
    count++;
    if (k->module != module)
      problem(&v, k->kernel_src.loc, "kernel '%s' names another module", k->name);
    if (k->prev != prev)
      problem(&v, k->kernel_src.loc, "kernel '%s' has a previous-kernel link to another kernel",
              k->name);
    check_kernel(&v, k);
  }
  v.kernel = NULL;
  if (!v.out_of_memory && module->last_kernel != prev)
    problem(&v, (wave_loc){0}, "the module's last-kernel link does not name its last kernel");
  if (!v.out_of_memory && module->num_kernels != count)
    problem(&v, (wave_loc){0}, "the module counts %zu kernels but holds %zu",
            module->num_kernels, count);
  return finish(&v);
}
