/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Comments of removed lines (xform/comments.h). Each recorded comment is a piece; the pieces
 * bound for one line form a linked chain, so handing a removed line's chain to another line,
 * ahead of what that line already collected, is two link updates whatever the lengths. The
 * chains are found by the line's address in an open-addressing table, and each line's text is
 * built once, by wave_comment_moves_apply.
 */
#include "xform/comments.h"

#include <stdint.h>
#include <string.h>

#include "ir/code.h"
#include "support/alloc.h"
#include "waveopt/ir.h"

#define NONE UINT32_MAX

typedef struct piece {
  const char *text;   /* leading lines or a trailing comment, as the source had them */
  uint32_t next;
} piece;

/* The pieces that go before `line`, first to last; a free slot names no line. */
typedef struct slot {
  wave_code_line line;
  uint32_t head, tail;
} slot;

static bool in_use(const slot *s) { return wave_code_line_exists(s->line); }

struct wave_comment_moves {
  wave_module *module;
  const wave_allocator *allocator; /* the module's: what the arrays and this come from */
  piece *pieces;
  size_t num_pieces, cap_pieces;
  slot *slots;          /* cap_slots entries, a power of two, at most half in use */
  size_t num_slots, cap_slots;
};

wave_code_line wave_line_after(wave_node *node) {
  wave_node *next = wave_node_next(node);
  if (next && wave_node_kind_of(next) == WAVE_NODE_BLOCK)
    return wave_code_instr_line(wave_block_first(next));
  if (next)
    return wave_node_kind_of(next) == WAVE_NODE_IF ? wave_code_node_line(next, WAVE_LINE_IF)
                                                   : wave_code_node_line(next, WAVE_LINE_LOOP);
  wave_node *parent = wave_node_parent(node);
  if (parent && wave_node_kind_of(parent) == WAVE_NODE_LOOP)
    return wave_code_node_line(parent, WAVE_LINE_ENDLOOP);
  if (parent && wave_node_list_of(node) == wave_if_then(parent) && wave_if_has_else(parent))
    return wave_code_node_line(parent, WAVE_LINE_ELSE);
  if (parent)
    return wave_code_node_line(parent, WAVE_LINE_ENDIF);
  wave_region *region = wave_node_region(node);
  wave_region *after = wave_region_next(region);
  return after ? wave_code_region_line(after)
               : wave_code_kernel_end_line(wave_region_kernel(region));
}

wave_comment_moves *wave_comment_moves_create(wave_module *module) {
  const wave_allocator *a = wave_module_allocator(module);
  wave_comment_moves *m = wave_mem_calloc(a, 1, sizeof(*m));
  if (m) {
    m->module = module;
    m->allocator = a;
  }
  return m;
}

void wave_comment_moves_destroy(wave_comment_moves *m) {
  if (!m)
    return;
  const wave_allocator *a = m->allocator;
  wave_mem_free(a, m->pieces);
  wave_mem_free(a, m->slots);
  wave_mem_free(a, m);
}

static size_t hash_line(wave_code_line line, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)wave_code_line_key(line) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

/* The slot of `line`, or where it would go. */
static slot *find(const wave_comment_moves *m, wave_code_line line) {
  size_t i = hash_line(line, m->cap_slots);
  while (in_use(&m->slots[i]) && !wave_code_line_is(m->slots[i].line, line))
    i = (i + 1) & (m->cap_slots - 1);
  return &m->slots[i];
}

bool wave_comment_moves_reserve(wave_comment_moves *m, size_t lines) {
  /* Each line adds at most two pieces (leading and trailing comments) and one slot. */
  if (m->num_pieces + 2 * lines > m->cap_pieces) {
    size_t cap = m->cap_pieces ? 2 * m->cap_pieces : 64;
    while (cap < m->num_pieces + 2 * lines)
      cap *= 2;
    if (cap >= NONE)
      return false;
    piece *p = wave_mem_realloc(m->allocator, m->pieces, cap * sizeof(*p));
    if (!p)
      return false;
    m->pieces = p;
    m->cap_pieces = cap;
  }
  if (2 * (m->num_slots + lines) <= m->cap_slots)
    return true;
  size_t cap = m->cap_slots ? 2 * m->cap_slots : 64;
  while (cap < 2 * (m->num_slots + lines))
    cap *= 2;
  slot *old = m->slots;
  size_t old_cap = m->cap_slots;
  m->slots = wave_mem_calloc(m->allocator, cap, sizeof(*m->slots));
  if (!m->slots) {
    m->slots = old;
    return false;
  }
  m->cap_slots = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (in_use(&old[i]))
      *find(m, old[i].line) = old[i];
  wave_mem_free(m->allocator, old);
  return true;
}

static void append_piece(wave_comment_moves *m, uint32_t *head, uint32_t *tail, const char *text) {
  if (!text || !text[0])
    return;
  uint32_t i = (uint32_t)m->num_pieces++;
  m->pieces[i] = (piece){text, NONE};
  if (*tail == NONE)
    *head = i;
  else
    m->pieces[*tail].next = i;
  *tail = i;
}

bool wave_comment_moves_add(wave_comment_moves *m, wave_code_line from, wave_code_line to) {
  if (wave_code_line_is(from, to))
    return true;
  if (!wave_comment_moves_reserve(m, 1))
    return false;
  slot *s = find(m, from);
  uint32_t head = in_use(s) ? s->head : NONE, tail = in_use(s) ? s->tail : NONE;
  if (in_use(s))
    s->head = s->tail = NONE;
  wave_src text = wave_code_line_origin(from);
  append_piece(m, &head, &tail, text.leading);
  append_piece(m, &head, &tail, text.comment);
  /* Taking comments away needs no memory: a line that had some keeps where they were. */
  wave_code_line_set_comments(from, NULL, NULL);
  if (head == NONE)
    return true;
  slot *t = find(m, to);
  if (!in_use(t)) {
    *t = (slot){to, NONE, NONE};
    m->num_slots++;
  }
  m->pieces[tail].next = t->head;
  t->head = head;
  if (t->tail == NONE)
    t->tail = tail;
  return true;
}

bool wave_comment_moves_apply(wave_comment_moves *m) {
  bool ok = true;
  for (size_t i = 0; i < m->cap_slots; i++) {
    slot *s = &m->slots[i];
    if (!in_use(s) || s->head == NONE)
      continue;
    wave_src line = wave_code_line_origin(s->line);
    const char *own = line.leading;
    size_t size = own ? strlen(own) + 1 : 1;
    for (uint32_t p = s->head; p != NONE; p = m->pieces[p].next)
      size += strlen(m->pieces[p].text) + 1;
    char *buf = wave_module_alloc(m->module, size);
    if (!buf) {
      ok = false;
      continue;
    }
    size_t len = 0;
    for (uint32_t p = s->head; p != NONE; p = m->pieces[p].next) {
      size_t n = strlen(m->pieces[p].text);
      memcpy(buf + len, m->pieces[p].text, n);
      len += n;
      buf[len++] = '\n';
    }
    if (own)
      memcpy(buf + len, own, strlen(own) + 1);
    else
      buf[len - 1] = '\0';
    if (!wave_code_line_set_comments(s->line, buf, line.comment))
      ok = false;
  }
  if (m->slots)
    memset(m->slots, 0, m->cap_slots * sizeof(*m->slots));
  m->num_slots = m->num_pieces = 0;
  return ok;
}

bool wave_comment_moves_now(wave_module *module, const wave_code_line *from, size_t count,
                            wave_code_line to) {
  wave_comment_moves *m = wave_comment_moves_create(module);
  bool ok = m && wave_comment_moves_reserve(m, count);
  for (size_t k = count; ok && k-- > 0;)
    wave_comment_moves_add(m, from[k], to);
  ok = ok && wave_comment_moves_apply(m);
  wave_comment_moves_destroy(m);
  return ok;
}

bool wave_comment_moves_remove_if(wave_comment_moves *moves, wave_node *node) {
  wave_code_line to = wave_line_after(node);
  /* Last line first: each goes ahead of those recorded before it. */
  if (!wave_comment_moves_reserve(moves, 3))
    return false;
  wave_comment_moves_add(moves, wave_code_node_line(node, WAVE_LINE_ENDIF), to);
  wave_comment_moves_add(moves, wave_code_node_line(node, WAVE_LINE_ELSE), to);
  wave_comment_moves_add(moves, wave_code_node_line(node, WAVE_LINE_IF), to);
  wave_node_list none = {0};
  wave_node_replace(node, &none);
  return true;
}
