/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The canonical printer. Every statement gets its own line and one spelling, so printing what
 * the parser read back from our own output reproduces it byte for byte: `print(parse(x))` is a
 * fixed point. Nesting indents four spaces a level up to a cap, which keeps the output linear
 * in the size of the IR however deep the region tree is.
 *
 * The assembly dialect is what wave-asm accepts; a documentation-dialect form left in the IR
 * (predicate logic, negated predicate operands, ALU immediates, missing compares) makes it fail
 * instead of printing text the assembler would reject. The documentation dialect prints those
 * forms the way the parser reads them.
 *
 * Output goes through a small buffer and hand-written number formatting: printing is on the
 * path of every tool invocation and a million-instruction kernel must print in well under a
 * second.
 */
#include <string.h>

#include "ir/code.h"
#include "support/strbuf.h"
#include "waveopt/waveopt.h"

enum { OUT_BUF_SIZE = 8192, INDENT_WIDTH = 4, DEFAULT_MAX_INDENT = 16 };

typedef struct printer {
  wave_write_fn write;
  void *ctx;
  bool write_failed;
  bool unprintable;   /* a form the chosen dialect cannot express */
  wave_dialect dialect;
  bool comments;
  unsigned max_indent;
  size_t len;
  char buf[OUT_BUF_SIZE];
} printer;

static void printer_init(printer *p, const wave_print_options *options, wave_write_fn write,
                         void *ctx) {
  p->write = write;
  p->ctx = ctx;
  p->write_failed = false;
  p->unprintable = false;
  p->dialect = options ? options->dialect : WAVE_DIALECT_ASM;
  p->comments = !(options && options->strip_comments);
  p->max_indent = options && options->max_indent ? options->max_indent : DEFAULT_MAX_INDENT;
  p->len = 0;
}

/* Printing stops at the first failed write or unprintable form: the result is -1 either way. */
static bool stopped(const printer *p) { return p->write_failed || p->unprintable; }

static void flush(printer *p) {
  if (p->len && !p->write_failed && p->write(p->ctx, p->buf, p->len) != 0)
    p->write_failed = true;
  p->len = 0;
}

/* The text past a full buffer: flushed first, and written straight through when larger than
 * the buffer. */
static void put_slow(printer *p, const char *s, size_t n) {
  flush(p);
  if (n > OUT_BUF_SIZE) {
    if (!p->write_failed && p->write(p->ctx, s, n) != 0)
      p->write_failed = true;
    return;
  }
  memcpy(p->buf, s, n);
  p->len = n;
}

/* After a failed write the buffer still fills, but flush drops it: nothing more is written. */
static inline void put(printer *p, const char *s, size_t n) {
  if (n > OUT_BUF_SIZE - p->len) {
    put_slow(p, s, n);
    return;
  }
  memcpy(p->buf + p->len, s, n);
  p->len += n;
}

static void put_str(printer *p, const char *s) { put(p, s, strlen(s)); }

static inline void put_char(printer *p, char c) {
  if (p->len == OUT_BUF_SIZE)
    flush(p);
  p->buf[p->len++] = c;
}

/* Most numbers printed are register numbers of one or two digits. */
static inline void put_u32(printer *p, uint32_t v) {
  if (v < 100 && OUT_BUF_SIZE - p->len >= 2) {
    if (v >= 10)
      p->buf[p->len++] = (char)('0' + v / 10);
    p->buf[p->len++] = (char)('0' + v % 10);
    return;
  }
  char digits[10];
  size_t n = 0;
  do {
    digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  put(p, digits + sizeof(digits) - n, n);
}

static void put_i32(printer *p, uint32_t bits) {
  if (bits & 0x80000000u) {
    put_char(p, '-');
    bits = ~bits + 1u; /* magnitude; INT32_MIN comes out as 2147483648 */
  }
  put_u32(p, bits);
}

static void put_hex(printer *p, uint32_t v, unsigned min_digits) {
  static const char hex[] = "0123456789ABCDEF";
  char digits[10] = "0x";
  unsigned n = 8;
  while (n > min_digits && n > 1 && (v >> (4 * (n - 1))) == 0)
    n--;
  for (unsigned i = 0; i < n; i++)
    digits[2 + i] = hex[(v >> (4 * (n - 1 - i))) & 15];
  put(p, digits, 2 + n);
}

static void put_indent(printer *p, unsigned level) {
  static const char spaces[] = "                                                                ";
  size_t n = (size_t)(level < p->max_indent ? level : p->max_indent) * INDENT_WIDTH;
  while (n) {
    size_t chunk = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
    put(p, spaces, chunk);
    n -= chunk;
  }
}

/* ---- operands and instructions ------------------------------------------------------------ */

static void put_imm(printer *p, const wave_operand *o) {
  switch ((wave_imm_form)o->imm_form) {
  case WAVE_IMM_NEGATIVE:
    put_i32(p, o->value);
    break;
  case WAVE_IMM_HEX:
    put_hex(p, o->value, 1);
    break;
  case WAVE_IMM_FLOAT:
    /* wave-asm stores the low half of the binary64 encoding of a float literal
     * (docs/toolchain.md "Float literals"): only the bit pattern survives assembly unchanged. */
    put_hex(p, o->value, 8);
    break;
  case WAVE_IMM_DECIMAL:
  default:
    put_u32(p, o->value);
    break;
  }
}

static void put_operand(printer *p, const wave_operand *o, char slot_kind) {
  switch ((wave_operand_kind)o->kind) {
  case WAVE_OPERAND_NONE:
    break;
  case WAVE_OPERAND_GPR:
    put_char(p, 'r');
    put_u32(p, o->value);
    if (o->half == WAVE_HALF_LO)
      put(p, ".lo", 3);
    else if (o->half == WAVE_HALF_HI)
      put(p, ".hi", 3);
    break;
  case WAVE_OPERAND_PRED:
    if (o->negated) {
      if (p->dialect == WAVE_DIALECT_ASM)
        p->unprintable = true;
      put_char(p, '!');
    }
    put_char(p, 'p');
    put_u32(p, o->value);
    break;
  case WAVE_OPERAND_SREG:
    if (o->value < WAVE_NUM_SREGS) {
      put_str(p, wave_sreg_names[o->value]);
    } else {
      p->unprintable = true;
      put(p, "sr_?", 4);
    }
    break;
  case WAVE_OPERAND_IMM:
    if (slot_kind != 'i' && p->dialect == WAVE_DIALECT_ASM)
      p->unprintable = true;
    put_imm(p, o);
    break;
  case WAVE_OPERAND_SCOPE:
    put_char(p, '.');
    if (o->value < 4) {
      put_str(p, wave_scope_names[o->value]);
    } else {
      p->unprintable = true;
      put_char(p, '?');
    }
    break;
  case WAVE_OPERAND_LABEL:
    if (o->label) {
      put_str(p, o->label);
    } else {
      p->unprintable = true;
      put_char(p, '?');
    }
    break;
  default:
    p->unprintable = true;
    break;
  }
}

static const char *const hint_names[] = {"", ".cached", ".uncached", ".streaming"};

/* The length of every mnemonic, known when compiling: strlen once an instruction is a tenth of
 * what printing one costs. */
static const uint8_t mnemonic_length[WAVE_OP_COUNT] = {
#define WAVE_OP(id, mnemonic, shape, category, flags, enc_op, enc_mod, size) sizeof(mnemonic) - 1,
#include "waveopt/opcodes.def"
#undef WAVE_OP
};

static void put_instr(printer *p, const wave_instr *instr) {
  wave_opcode op = wave_instr_op(instr);
  if (op >= WAVE_OP_COUNT) {
    p->unprintable = true;
    return;
  }
  if (wave_opcode_has(op, WAVE_F_PSEUDO) && p->dialect == WAVE_DIALECT_ASM)
    p->unprintable = true;
  if (wave_instr_guard(instr) != WAVE_NO_GUARD) {
    put(p, wave_instr_guard_negated(instr) ? "@!p" : "@p", wave_instr_guard_negated(instr) ? 3 : 2);
    put_u32(p, (uint32_t)wave_instr_guard(instr));
    put_char(p, ' ');
  }
  put(p, wave_opcode_table[op].mnemonic, mnemonic_length[op]);
  wave_cache_hint hint = wave_instr_cache_hint(instr);
  if (hint >= sizeof(hint_names) / sizeof(hint_names[0]))
    p->unprintable = true;
  else if (hint != WAVE_HINT_NONE)
    put_str(p, hint_names[hint]);
  bool first = true;
  for (unsigned i = 0; i < wave_instr_num_operands(instr); i++) {
    wave_operand o = wave_instr_operand(instr, i);
    if (o.kind == WAVE_OPERAND_NONE)
      continue;
    put(p, first ? " " : ", ", first ? 1 : 2);
    first = false;
    put_operand(p, &o, wave_opcode_slot_kind(op, i));
  }
}

/* ---- statements --------------------------------------------------------------------------- */

/* Whole-line comments: one per line at the statement's indentation. Empty lines are dropped
 * because the parser drops blank lines too. */
static void put_comment_lines(printer *p, const char *text, unsigned level) {
  if (!p->comments || !text)
    return;
  while (*text) {
    const char *end = strchr(text, '\n');
    size_t n = end ? (size_t)(end - text) : strlen(text);
    if (n) {
      put_indent(p, level);
      put(p, text, n);
      put_char(p, '\n');
    }
    text += n + (end != NULL);
  }
}

static void begin_stmt(printer *p, const wave_src *src, unsigned level) {
  put_comment_lines(p, src->leading, level);
  put_indent(p, level);
}

static void end_stmt(printer *p, const wave_src *src) {
  if (p->comments && src->comment && src->comment[0]) {
    put_char(p, ' ');
    put_str(p, src->comment);
  }
  put_char(p, '\n');
}

static void put_keyword_stmt(printer *p, const char *keyword, const wave_src *src,
                             unsigned level) {
  begin_stmt(p, src, level);
  put_str(p, keyword);
  end_stmt(p, src);
}

static void put_label_stmt(printer *p, const char *name, const wave_src *src) {
  begin_stmt(p, src, 0);
  put_str(p, name);
  put_char(p, ':');
  end_stmt(p, src);
}

/* The line of an if or a loop that a walk event prints. */
static wave_node_line line_of(wave_walk_event event) {
  switch (event) {
  case WAVE_WALK_ELSE:
    return WAVE_LINE_ELSE;
  case WAVE_WALK_ENDIF:
    return WAVE_LINE_ENDIF;
  case WAVE_WALK_LOOP:
    return WAVE_LINE_LOOP;
  case WAVE_WALK_ENDLOOP:
    return WAVE_LINE_ENDLOOP;
  default:
    return WAVE_LINE_IF;
  }
}

static void put_node_list(printer *p, wave_node_list *list) {
  wave_walker w;
  wave_walk_init(&w, list);
  while (!stopped(p) && wave_walk_next(&w)) {
    wave_node *n = w.node;
    unsigned level = w.depth + 1;
    if (w.event == WAVE_WALK_BLOCK) {
      for (const wave_instr *i = wave_block_first(n); i && !stopped(p); i = wave_instr_next(i)) {
        wave_src src = wave_instr_origin(i);
        begin_stmt(p, &src, level);
        put_instr(p, i);
        end_stmt(p, &src);
      }
      continue;
    }
    wave_src src = wave_node_origin(n, line_of(w.event));
    switch (w.event) {
    case WAVE_WALK_IF:
      begin_stmt(p, &src, level);
      put(p, "if ", 3);
      wave_operand cond = wave_if_cond(n);
      put_operand(p, &cond, 'p');
      end_stmt(p, &src);
      break;
    case WAVE_WALK_ELSE:
      if (wave_if_has_else(n) || wave_node_list_first(wave_if_else(n)))
        put_keyword_stmt(p, "else", &src, level);
      break;
    case WAVE_WALK_ENDIF:
      put_keyword_stmt(p, "endif", &src, level);
      break;
    case WAVE_WALK_LOOP:
      put_keyword_stmt(p, "loop", &src, level);
      break;
    case WAVE_WALK_ENDLOOP:
      put_keyword_stmt(p, "endloop", &src, level);
      break;
    case WAVE_WALK_BLOCK:
      break;
    }
  }
}

static void put_directive_u32(printer *p, const char *name, uint32_t value,
                              const wave_src *src) {
  begin_stmt(p, src, 0);
  put_str(p, name);
  put_char(p, ' ');
  put_u32(p, value);
  end_stmt(p, src);
}

static void put_kernel(printer *p, const wave_kernel *k) {
  begin_stmt(p, &k->kernel_src, 0);
  put(p, ".kernel ", 8);
  put_str(p, k->name);
  end_stmt(p, &k->kernel_src);
  if (k->has_registers)
    put_directive_u32(p, ".registers", k->registers, &k->registers_src);
  if (k->has_local_memory)
    put_directive_u32(p, ".local_memory", k->local_memory, &k->local_memory_src);
  if (k->has_workgroup_size) {
    begin_stmt(p, &k->workgroup_size_src, 0);
    put(p, ".workgroup_size ", 16);
    for (int i = 0; i < 3; i++) {
      if (i)
        put(p, ", ", 2);
      put_u32(p, k->workgroup_size[i]);
    }
    end_stmt(p, &k->workgroup_size_src);
  }
  for (wave_region *r = k->first_region; r && !stopped(p); r = r->next) {
    if (r->label)
      put_label_stmt(p, r->label, &r->label_src);
    put_node_list(p, &r->body);
  }
  put_keyword_stmt(p, ".end", &k->end_src, 0);
}

int wave_print_module(const wave_module *module, const wave_print_options *options,
                      wave_write_fn write, void *ctx) {
  printer *p = wave_mem_alloc(module->allocator, sizeof(*p));
  if (!p)
    return -1;
  printer_init(p, options, write, ctx);
  /* Stray labels are listed in file order, so one cursor places each of them exactly once;
   * any whose kernel never comes up are printed at the end rather than lost. */
  const wave_stray_label *stray = module->first_stray;
  bool separate = false;
  for (const wave_kernel *k = module->first_kernel; k && !stopped(p); k = k->next) {
    if (separate)
      put_char(p, '\n');
    for (; stray && stray->before == k; stray = stray->next)
      put_label_stmt(p, stray->name, &stray->src);
    put_kernel(p, k);
    separate = true;
  }
  if (stray && separate)
    put_char(p, '\n');
  for (; stray; stray = stray->next)
    put_label_stmt(p, stray->name, &stray->src);
  put_comment_lines(p, module->trailing, 0);
  if (!p->unprintable)
    flush(p);
  int result = stopped(p) ? -1 : 0;
  wave_mem_free(module->allocator, p);
  return result;
}

static int write_file(void *ctx, const char *data, size_t len) {
  return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

/* Flushed here so that a full disk is reported by this call rather than by a later fclose. */
int wave_print_file(const wave_module *module, const wave_print_options *options, FILE *out) {
  int result = wave_print_module(module, options, write_file, out);
  return fflush(out) != 0 ? -1 : result;
}

char *wave_print_to_string(const wave_module *module, const wave_print_options *options,
                           size_t *len) {
  wave_strbuf s = {.allocator = module->allocator};
  if (wave_print_module(module, options, wave_strbuf_write, &s) != 0)
    s.failed = true;
  return wave_strbuf_take(&s, len);
}

/* ---- one instruction, for diagnostics ------------------------------------------------------ */

typedef struct fixed_sink {
  char *buf;
  size_t size, len;
} fixed_sink;

static int write_fixed(void *ctx, const char *data, size_t len) {
  fixed_sink *s = ctx;
  if (s->len + 1 < s->size) {
    size_t room = s->size - 1 - s->len;
    memcpy(s->buf + s->len, data, len < room ? len : room);
  }
  s->len += len;
  return 0;
}

size_t wave_format_instr(const wave_instr *instr, char *buf, size_t size) {
  fixed_sink s = {buf, size, 0};
  printer p;
  wave_print_options options = {WAVE_DIALECT_DOCS, true, 0};
  printer_init(&p, &options, write_fixed, &s);
  put_instr(&p, instr);
  flush(&p);
  if (size)
    buf[s.len < size ? s.len : size - 1] = '\0';
  return s.len;
}
