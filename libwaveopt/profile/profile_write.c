/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wave_profile_write: a machine's run as a divergence profile (docs/profile.md). The
 * per-statement counts the interpreter keeps (issues, lanes, an if's splits, a loop's
 * divergent exits) are summed per source line; every line with a statement is written, those
 * never reached too, so that the list of lines and opcodes identifies the code.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_machine.h"
#include "profile/profile_internal.h"
#include "waveopt/profile.h"

static int compare_slots(const void *a, const void *b) {
  const profile_slot *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

profile_slot *profile_slots(const wave_program_entry *entries, size_t num_entries, size_t *n) {
  *n = num_entries ? num_entries - 1 : 0;
  profile_slot *slots = wave_mem_alloc(NULL, (*n ? *n : 1) * sizeof *slots);
  if (!slots)
    return NULL;
  for (size_t i = 0; i < *n; i++)
    slots[i] = (profile_slot){entries[i].loc.line, (uint32_t)i};
  if (*n)
    qsort(slots, *n, sizeof *slots, compare_slots);
  return slots;
}

size_t profile_line_end(const profile_slot *slots, size_t n, size_t from) {
  size_t to = from;
  while (to < n && slots[to].line == slots[from].line)
    to++;
  return to;
}

void profile_put_ops(wave_strbuf *b, const wave_program_entry *entries, const profile_slot *slots,
                     size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    if (i > from)
      wave_strbuf_puts(b, " ");
    wave_strbuf_puts(b, wave_opcode_table[entries[slots[i].index].op].mnemonic);
  }
}

uint64_t profile_hash(uint64_t hash, const char *text, size_t len) {
  for (size_t i = 0; i < len; i++) {
    hash ^= (unsigned char)text[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

static double efficiency(uint64_t lanes, uint64_t issued, uint32_t width) {
  return issued && width ? (double)lanes / ((double)issued * width) : 0.0;
}

static void put_lines(wave_strbuf *b, const wave_machine *m, const profile_slot *slots, size_t n,
                      uint64_t *hash) {
  const wave_program_entry *entries = m->prog.entries;
  wave_strbuf ops = {0};
  wave_strbuf_puts(b, ",\"lines\":[");
  for (size_t from = 0, to; from < n; from = to) {
    to = profile_line_end(slots, n, from);
    uint64_t issued = 0, lanes = 0;
    for (size_t i = from; i < to; i++) {
      issued += entries[slots[i].index].issues;
      lanes += entries[slots[i].index].lanes;
    }
    ops.len = 0;
    wave_strbuf_printf(&ops, "%" PRIu32 " ", slots[from].line);
    size_t head = ops.len;
    profile_put_ops(&ops, entries, slots, from, to);
    wave_strbuf_puts(&ops, "\n");
    if (ops.failed) {
      b->failed = true;
      break;
    }
    *hash = profile_hash(*hash, ops.data, ops.len);
    ops.data[ops.len - 1] = '\0';
    wave_strbuf_printf(b, "%s\n    {\"line\":%" PRIu32 ",\"ops\":", from ? "," : "",
                       slots[from].line);
    wave_strbuf_json_string(b, ops.data + head);
    wave_strbuf_printf(b,
                       ",\"issued\":%" PRIu64 ",\"lanes\":%" PRIu64 ",\"simd_efficiency\":%.6f}",
                       issued, lanes, efficiency(lanes, issued, m->width));
  }
  wave_mem_free(NULL, wave_strbuf_take(&ops, NULL));
  wave_strbuf_puts(b, "\n  ]");
}

static void put_branches(wave_strbuf *b, const wave_machine *m, const profile_slot *slots,
                         size_t n) {
  const wave_program_entry *entries = m->prog.entries;
  wave_strbuf_puts(b, ",\"branches\":[");
  bool first = true;
  for (size_t i = 0; i < n; i++) {
    const wave_program_entry *e = &entries[slots[i].index];
    if (e->op != WAVE_OP_IF && e->op != WAVE_OP_LOOP)
      continue;
    bool is_if = e->op == WAVE_OP_IF;
    uint64_t divergent = is_if ? e->splits : e->divergent_exits;
    wave_strbuf_printf(b,
                       "%s\n    {\"line\":%" PRIu32 ",\"kind\":\"%s\",\"runs\":%" PRIu64
                       ",\"lanes\":%" PRIu64 ",\"%s\":%" PRIu64 ",\"rate\":%.6f}",
                       first ? "" : ",", e->loc.line, is_if ? "if" : "loop", e->issues, e->lanes,
                       is_if ? "splits" : "divergent_exits", divergent,
                       e->issues ? (double)divergent / (double)e->issues : 0.0);
    first = false;
  }
  wave_strbuf_puts(b, "\n  ]");
}

char *wave_profile_write(const wave_machine *m, const char *source) {
  size_t n;
  profile_slot *slots = profile_slots(m->prog.entries, m->prog.len, &n);
  if (!slots)
    return NULL;
  const wave_counters *c = &m->counters;
  wave_strbuf b = {0};
  wave_strbuf_printf(&b, "{\"format\":\"wave-profile\",\"version\":%d,\"source\":",
                     WAVE_PROFILE_VERSION);
  wave_strbuf_json_string(&b, source);
  wave_strbuf_puts(&b, ",\"kernels\":[\n {\"kernel\":");
  wave_strbuf_json_string(&b, wave_kernel_name(m->kernel));
  wave_strbuf_printf(&b,
                     ",\"mode\":\"%s\",\"status\":\"%s\",\"wave_width\":%" PRIu32
                     ",\n  \"totals\":{\"issued\":%" PRIu64 ",\"empty_issues\":%" PRIu64
                     ",\"lane_instructions\":%" PRIu64 ",\"simd_efficiency\":%.6f"
                     ",\"max_depth\":%" PRIu32 ",\"divergent_ifs\":%" PRIu64
                     ",\"divergent_loops\":%" PRIu64 ",\"mask_ops\":%" PRIu64
                     ",\"barriers\":%" PRIu64 ",\"steps\":%" PRIu64 ",\"emu_walked\":%" PRIu64
                     ",\"parked_wave_ops\":%" PRIu64 "},\n  ",
                     m->config.mode == WAVE_MODE_THREAD ? "thread" : "simt",
                     m->status == WAVE_RUN_OK      ? "ok"
                     : m->status == WAVE_RUN_ERROR ? "error"
                                                   : "not-run",
                     m->width, c->issued, c->empty_issues, c->lane_instructions,
                     wave_counters_simd_efficiency(c, m->width), c->max_depth, c->divergent_ifs,
                     c->divergent_loops, c->mask_ops, c->barriers, c->steps, c->emu_walked,
                     c->parked_wave_ops);
  uint64_t hash = PROFILE_HASH_INIT;
  /* the signature goes first for people reading the file, but is known only after the lines */
  size_t mark = b.len;
  wave_strbuf_puts(&b, "\"signature\":\"fnv1a64:0000000000000000\"");
  put_lines(&b, m, slots, n, &hash);
  put_branches(&b, m, slots, n);
  wave_strbuf_puts(&b, "}\n]}\n");
  wave_mem_free(NULL, slots);
  if (!b.failed) {
    char digits[17];
    snprintf(digits, sizeof digits, "%016" PRIx64, hash);
    memcpy(b.data + mark + strlen("\"signature\":\"fnv1a64:"), digits, 16);
  }
  return wave_strbuf_take(&b, NULL);
}
