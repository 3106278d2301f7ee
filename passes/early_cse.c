/* SPDX-License-Identifier: Apache-2.0 */
/*
 * early-cse: removes the redundancy a compiler leaves in straight-line WAVE code, in the
 * manner of LLVM's EarlyCSE (scoped value numbering over the dominator tree), on the region
 * tree of a register machine without SSA.
 *
 *   mov_imm r9, 2                mov_imm r9, 2          a value computed again: the reads of
 *   shl r10, r8, r9              shl r10, r8, r9        its register go to the register that
 *   iadd r11, r0, r10            iadd r11, r0, r10      already holds it (copy propagation);
 *   mov_imm r15, 2          ->   mov_imm r15, 2         the recomputation is then dead and dce
 *   shl r16, r8, r15             shl r16, r8, r9        deletes it
 *   iadd r17, r1, r16            iadd r17, r1, r10
 *
 *   mov r5, r3                   mov r5, r3             a write of the value the register
 *   mov r5, r3              ->                          already holds goes at once
 *
 * How. Every register and predicate carries a value number at each point of the walk; an
 * instruction computes the number a table gives for (opcode, value numbers of its operands,
 * immediates and special registers), a copy passes its source's number on. Equal numbers at a
 * point mean equal contents in every lane active there. A read of a register is redirected to
 * the first register that took its number, while that one still holds it. The walk follows
 * the text once (a worklist walker, no recursion) with an undo log, so that what a side of an
 * if or a loop body learnt is forgotten when it ends:
 *   - values from before an if hold inside both sides; a value made inside a side holds only
 *     there, and every register a side writes gets a new number after the endif, since lanes
 *     of the other side kept the old contents (docs/language.md "Partial definitions");
 *   - at a loop, every register written anywhere in its body gets a new number (a pre-pass
 *     collects them), because a later iteration sees the last one's writes; after the endloop
 *     they get new numbers again, each lane keeping its last iteration's value ("Loops");
 *   - a guarded instruction and a write that also writes a pair or quad half (docs/language.md
 *     "Implicit register pairs and quads") give every register they write a new number;
 *   - a call may write any register (subroutines share their caller's registers, "Calls"):
 *     after it every register gets a new number, as at the start of every region, which may be
 *     reached by a call or by falling in from the region before.
 *
 * Only pure instructions that cannot trap take a number from the table: mov_imm, mov, mov_sr
 * (special registers are constant per lane, "Special registers"), ALU, compares and select
 * (wave_instr_can_speculate). Loads, stores, atomics, idiv/imod/iclamp/fclamp, wave operations,
 * MMA and documentation-dialect pseudo forms (legalize lowers them later) never do: memory may
 * change in between, a trap belongs to the instruction that traps, and convergent results
 * depend on the active lanes. An instruction that writes its destination's current value is
 * removed even when guarded: no lane changes.
 *
 * Why it is safe: a redirected read gets, in every lane active at it, the contents the old
 * register had there. Reads a lane makes in other lanes (a shuffle's value source, "Wave
 * operations") are never redirected, since inactive lanes' contents may differ; nor are pair
 * and quad slots, special registers in GPR slots, or a guard that would become @p0
 * (docs/toolchain.md "Rules our output keeps" 1). Nothing is added: no register, predicate,
 * guard or control flow, so every rule there holds if it held before. Instructions keep their
 * place and location; comments on a removed instruction leave with it.
 *
 * One run leaves nothing for a second (wave_pass_done_settled) unless it removed the last write
 * of a register inside a loop: the loop was judged by the writes it held, and the register
 * now keeps its value across it. The walk adds up what each loop still writes as it passes
 * the instructions it keeps, so telling costs no second look at the code.
 *
 * What it does not merge, with a missed remark naming the instruction and the earlier one it
 * repeats: a repeat whose operand may have changed in between; a repeat whose value no
 * register holds any more; a repeat that is guarded, reads memory, may trap, is convergent or
 * writes a register pair.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/code.h"
#include "ir/ir_internal.h"
#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/pass.h"
#include "xform/early_cse.h"
#include "xform/xform.h"

/* A key: word 0 is the opcode and whether the operands are value numbers or their text, word 1
 * each source operand's kind and negation (4 bits a slot), then one word per source slot. */
#define KEY_WORDS (2 + WAVE_MAX_OPERANDS)
#define NO_REG UINT32_MAX
#define NO_ENTRY UINT32_MAX
#define REG_NAME_LEN 16

typedef struct entry {
  uint32_t key[KEY_WORDS];
  uint32_t value;           /* value-number entries: the number the computation gives */
  uint32_t reg;             /* the register that first took it */
  const wave_instr *instr;  /* where the computation was */
} entry;

/* An entry's place in its bucket's chain, kept apart from the entries: a lookup walks the
 * chain reading the hashes and touches an entry only when its hash matches, which on a large
 * table spares a cache miss for every entry passed over. */
typedef struct link {
  uint32_t hash;            /* hash_key of the entry's key */
  uint32_t next;            /* the next entry of the same bucket, or NO_ENTRY */
} link;

typedef enum undo_kind { UNDO_VN, UNDO_LEADER, UNDO_INSERT } undo_kind;

typedef struct undo {
  uint32_t kind;
  uint32_t index;
  uint32_t old;
} undo;

/* An open if or loop: where its undo log starts, and what the then-side wrote (ifs) or what
 * the body writes (loops). */
typedef struct scope {
  size_t mark;
  wave_regset written;
} scope;

typedef struct cse {
  wave_pass_context *ctx;
  const wave_allocator *allocator; /* the region's module's, for every array below */
  bool explain;                   /* missed remarks are wanted: keep the text entries */
  uint32_t vn[WAVE_NUM_REGS];
  uint32_t next_vn;
  uint32_t *leader;               /* per value number: the register reads go to */
  size_t leader_cap;
  /* The table lives as long as the scopes of its entries: it is sized to what is live, not to
   * the region, so that a lookup touches a table that stays in cache. */
  uint32_t *buckets;
  size_t num_buckets;             /* a power of two, at least num_entries */
  entry *entries;
  link *links;                    /* per entry */
  size_t num_entries, entries_cap, links_cap;
  /* With explain, per entry: a text entry's key by value numbers when it was made. */
  uint32_t (*values)[KEY_WORDS];
  size_t values_cap;
  undo *log;
  size_t log_len, log_cap;
  scope *scopes;
  size_t num_scopes, scopes_cap;
  wave_regset *loop_writes;       /* per loop in walk order: what its body writes */
  wave_regset *kept_writes;       /* per loop: what it writes without the removed instructions */
  size_t num_loops, loops_cap, kept_cap;
  size_t *open;                   /* the loops around the walk's place, innermost last */
  size_t num_open, open_cap;
  wave_instr **removed;
  size_t num_removed, removed_cap;
  unsigned rewrites;
  bool out_of_memory;
} cse;

/* ---- state with its undo log ---------------------------------------------------------------- */

/* Only a scope takes changes back: what the walk learns at a region's top level stays, and
 * logging it would only grow the log with the region. */
static void log_push(cse *c, undo_kind kind, uint32_t index, uint32_t old) {
  if (!c->num_scopes)
    return;
  if (!wave_grow(c->allocator, (void **)&c->log, &c->log_cap, c->log_len + 1, sizeof(*c->log))) {
    c->out_of_memory = true;
    return;
  }
  c->log[c->log_len++] = (undo){kind, index, old};
}

static void set_leader(cse *c, uint32_t value, uint32_t reg) {
  log_push(c, UNDO_LEADER, value, c->leader[value]);
  c->leader[value] = reg;
}

/* The register that reads of `value` go to, or NO_REG when none holds it any more. */
static uint32_t holder(const cse *c, uint32_t value) {
  uint32_t r = c->leader[value];
  return r != NO_REG && c->vn[r] == value ? r : NO_REG;
}

static void set_vn(cse *c, unsigned reg, uint32_t value) {
  log_push(c, UNDO_VN, reg, c->vn[reg]);
  c->vn[reg] = value;
  if (holder(c, value) == NO_REG)
    set_leader(c, value, reg);
}

static void set_fresh(cse *c, unsigned reg) {
  if (!wave_grow(c->allocator, (void **)&c->leader, &c->leader_cap, (size_t)c->next_vn + 1,
                 sizeof(*c->leader))) {
    c->out_of_memory = true;
    return;
  }
  c->leader[c->next_vn] = NO_REG;
  set_vn(c, reg, c->next_vn++);
}

static void set_fresh_all(cse *c, wave_regset regs) {
  for (unsigned w = 0; w < WAVE_REGSET_WORDS; w++) {
    for (uint64_t bits = regs.words[w]; bits; bits &= bits - 1)
      set_fresh(c, w * 64 + (unsigned)__builtin_ctzll(bits));
  }
}

/* Undoes the log back to `mark`, adding the registers whose numbers it restores to *written. */
static void undo_to(cse *c, size_t mark, wave_regset *written) {
  while (c->log_len > mark) {
    undo u = c->log[--c->log_len];
    if (u.kind == UNDO_VN) {
      c->vn[u.index] = u.old;
      wave_regset_set(written, u.index);
    } else if (u.kind == UNDO_LEADER) {
      c->leader[u.index] = u.old;
    } else {
      const link *l = &c->links[u.index];
      c->buckets[l->hash & (c->num_buckets - 1)] = l->next;
      c->num_entries--;
    }
  }
}

/* ---- the table ---------------------------------------------------------------------------- */

static uint32_t hash_key(const uint32_t *key) {
  uint32_t h = 2166136261u;
  for (unsigned i = 0; i < KEY_WORDS; i++)
    h = (h ^ key[i]) * 16777619u;
  return h;
}

static entry *lookup(const cse *c, const uint32_t *key) {
  uint32_t hash = hash_key(key);
  for (uint32_t i = c->buckets[hash & (c->num_buckets - 1)]; i != NO_ENTRY;
       i = c->links[i].next) {
    if (c->links[i].hash == hash &&
        memcmp(c->entries[i].key, key, sizeof(c->entries[i].key)) == 0)
      return &c->entries[i];
  }
  return NULL;
}

/* Sets the buckets up for `count` of them, with every entry in its bucket. Entries go in from
 * the oldest, each at the head of its bucket, so that a newer one shadows an older one with
 * the same key, as insert leaves them. */
static bool rehash(cse *c, size_t count) {
  uint32_t *buckets = wave_mem_alloc(c->allocator, count * sizeof(*buckets));
  if (!buckets)
    return false;
  wave_mem_free(c->allocator, c->buckets);
  c->buckets = buckets;
  c->num_buckets = count;
  memset(buckets, 0xff, count * sizeof(*buckets));
  for (uint32_t i = 0; i < c->num_entries; i++) {
    uint32_t bucket = c->links[i].hash & (uint32_t)(count - 1);
    c->links[i].next = buckets[bucket];
    buckets[bucket] = i;
  }
  return true;
}

/* A new entry at the head of its bucket, so that it shadows an older one with the same key
 * and undoing the inserts in reverse order pops each from its bucket's head. */
static entry *insert(cse *c, const uint32_t *key, const wave_instr *instr) {
  if (!wave_grow(c->allocator, (void **)&c->entries, &c->entries_cap, c->num_entries + 1,
                 sizeof(*c->entries)) ||
      !wave_grow(c->allocator, (void **)&c->links, &c->links_cap, c->num_entries + 1,
                 sizeof(*c->links)) ||
      (c->num_entries == c->num_buckets && !rehash(c, 2 * c->num_buckets))) {
    c->out_of_memory = true;
    return NULL;
  }
  uint32_t hash = hash_key(key);
  uint32_t bucket = hash & (uint32_t)(c->num_buckets - 1);
  uint32_t index = (uint32_t)c->num_entries++;
  entry *e = &c->entries[index];
  memcpy(e->key, key, sizeof(e->key));
  c->links[index] = (link){hash, c->buckets[bucket]};
  e->instr = instr;
  e->reg = NO_REG;
  c->buckets[bucket] = index;
  log_push(c, UNDO_INSERT, index, 0);
  return e;
}

/* ---- instructions ------------------------------------------------------------------------- */

static bool is_source_slot(char kind) {
  return kind == 'u' || kind == 'p' || kind == 'i' || kind == 's' || kind == 'c' || kind == 'l';
}

/* The register an operand reads in this slot, or NO_REG (immediates, labels, scopes, and
 * special registers read as themselves). */
static uint32_t read_reg(const wave_instr *in, unsigned slot) {
  wave_operand o = wave_instr_operand(in, slot);
  if (o.kind == WAVE_OPERAND_PRED)
    return WAVE_REG_PRED(o.value);
  if (o.kind == WAVE_OPERAND_GPR ||
      (o.kind == WAVE_OPERAND_SREG && !wave_opcode_reads_sreg(wave_instr_op(in), slot)))
    return WAVE_REG_GPR(o.value);
  return NO_REG;
}

/* The key of the instruction's sources: by value numbers, or by their text. */
static void make_key(const cse *c, const wave_instr *in, bool by_value, uint32_t *key) {
  memset(key, 0, KEY_WORDS * sizeof(*key));
  wave_opcode op = wave_instr_op(in);
  /* `mov rd, sr_x` is mov_sr. */
  if (op == WAVE_OP_MOV && wave_instr_num_operands(in) == 2 &&
      wave_instr_operand(in, 1).kind == WAVE_OPERAND_SREG)
    op = WAVE_OP_MOV_SR;
  key[0] = (uint32_t)op | (by_value ? 0u : 1u << 16);
  for (unsigned slot = 0, n = 2; slot < wave_instr_num_operands(in); slot++) {
    if (!is_source_slot(wave_opcode_slot_kind(wave_instr_op(in), slot)))
      continue;
    wave_operand o = wave_instr_operand(in, slot);
    uint32_t reg = read_reg(in, slot);
    key[1] |= ((uint32_t)o.kind | (uint32_t)o.negated << 3) << (4 * (n - 2));
    key[n] = by_value && reg != NO_REG && wave_opcode_slot_width(wave_instr_op(in), slot) == 1
                 ? c->vn[reg]
                 : o.value;
    if (o.kind == WAVE_OPERAND_LABEL)
      key[n] = wave_hash_name(o.label, strlen(o.label));
    n++;
  }
}

/* Why a repeat of this instruction may not take the earlier one's value; NULL when it may.
 * With ignore_guard, as if it were unguarded. */
static const char *why_not_merged(const wave_instr *in, bool ignore_guard) {
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_READS_MEM | WAVE_F_WRITES_MEM))
    return "it accesses memory, which may change in between";
  if (wave_instr_is_convergent(in))
    return "it is convergent";
  if (wave_opcode_has(wave_instr_op(in), WAVE_F_MAY_TRAP))
    return "it may trap";
  if (!wave_instr_can_speculate(in) || wave_opcode_has(wave_instr_op(in), WAVE_F_PSEUDO))
    return "it is not a plain computation";
  if (wave_instr_dest(in).kind == WAVE_OPERAND_NONE)
    return "it writes no register";
  for (unsigned slot = 0; slot < wave_instr_num_operands(in); slot++) {
    if (wave_opcode_slot_width(wave_instr_op(in), slot) != 1)
      return "it reads or writes a register pair";
  }
  if (wave_instr_guard(in) != WAVE_NO_GUARD && !ignore_guard)
    return "it is guarded: lanes outside the guard keep their old value";
  return NULL;
}

static const char *reg_name(uint32_t reg, char *buf) {
  if (reg >= WAVE_REG_PRED(0))
    snprintf(buf, REG_NAME_LEN, "p%u", reg - WAVE_REG_PRED(0));
  else
    snprintf(buf, REG_NAME_LEN, "r%u", reg);
  return buf;
}

static uint32_t dest_reg(wave_operand d) {
  return d.kind == WAVE_OPERAND_PRED ? WAVE_REG_PRED(d.value) : WAVE_REG_GPR(d.value);
}

static const char *mnemonic(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->mnemonic;
}

/* Missed remarks for a repeat of an earlier instruction's text that is not merged; then the
 * instruction becomes the one later repeats are compared with. */
static void explain(cse *c, const wave_instr *in, bool merged) {
  uint32_t text[KEY_WORDS], values[KEY_WORDS];
  make_key(c, in, false, text);
  make_key(c, in, true, values);
  entry *e = lookup(c, text);
  wave_loc at = wave_instr_loc(in);
  if (e && !merged) {
    wave_loc was = wave_instr_loc(e->instr);
    const char *why = why_not_merged(in, false);
    uint32_t changed = NO_REG;
    const uint32_t *then = c->values[e - c->entries];
    for (unsigned slot = 0, n = 2; slot < wave_instr_num_operands(in) && changed == NO_REG;
         slot++) {
      if (!is_source_slot(wave_opcode_slot_kind(wave_instr_op(in), slot)))
        continue;
      if (then[n] != values[n])
        changed = read_reg(in, slot);
      n++;
    }
    wave_operand earlier_dest = wave_instr_dest(e->instr);
    /* `iadd r7, r7, r8` again steps on from the earlier result: no news for the reader. */
    bool steps = earlier_dest.kind != WAVE_OPERAND_NONE && changed == dest_reg(earlier_dest);
    if (changed != NO_REG && !steps) {
      char buf[REG_NAME_LEN];
      reg_name(changed, buf);
      wave_remark_missed(c->ctx, "operand-changed", at,
                         "%s at %u:%u not merged with the one at %u:%u: %s may have changed in "
                         "between",
                         mnemonic(in), at.line, at.col, was.line, was.col, buf);
    } else if (changed == NO_REG && why) {
      wave_remark_missed(c->ctx, "not-mergeable", at, "%s at %u:%u not merged with the one at "
                         "%u:%u: %s", mnemonic(in), at.line, at.col, was.line, was.col, why);
    }
  }
  /* Room first: an entry without its values, found by a later explain in the same block,
   * would be read past the array. */
  if (!wave_grow(c->allocator, (void **)&c->values, &c->values_cap, c->num_entries + 1,
                 sizeof(*c->values))) {
    c->out_of_memory = true;
    return;
  }
  entry *mine = insert(c, text, in);
  if (!mine)
    return;
  memcpy(c->values[mine - c->entries], values, sizeof(values));
}

static void remove_instr(cse *c, wave_instr *in, uint32_t dest) {
  if (!wave_grow(c->allocator, (void **)&c->removed, &c->removed_cap, c->num_removed + 1,
                 sizeof(*c->removed))) {
    c->out_of_memory = true;
    return;
  }
  c->removed[c->num_removed++] = in;
  c->rewrites++;
  char buf[REG_NAME_LEN];
  wave_pass_stat_add(c->ctx, "instructions-removed",
                     "Number of instructions removed because their register held the value", 1);
  wave_remark_passed(c->ctx, "redundant-removed", wave_instr_loc(in),
                     "%s at %u:%u removed: %s already holds that value", mnemonic(in),
                     wave_instr_loc(in).line, wave_instr_loc(in).col, reg_name(dest, buf));
}

static void redirect(cse *c, wave_loc at, const char *what, wave_operand *o, uint32_t from,
                     uint32_t to) {
  char a[REG_NAME_LEN], b[REG_NAME_LEN];
  o->value = to >= WAVE_REG_PRED(0) ? to - WAVE_REG_PRED(0) : to;
  c->rewrites++;
  wave_pass_stat_add(c->ctx, "reads-redirected",
                     "Number of reads redirected to a register holding the same value", 1);
  wave_remark_passed(c->ctx, "read-redirected", at,
                     "%s at %u:%u reads %s instead of %s: same "
                     "value",
                     what, at.line, at.col, reg_name(to, a), reg_name(from, b));
}

/* A read that stays although `to` holds the same value. */
static void kept(cse *c, const wave_instr *in, uint32_t reg, uint32_t to, const char *why) {
  char a[REG_NAME_LEN], b[REG_NAME_LEN];
  wave_remark_missed(c->ctx, "read-kept", wave_instr_loc(in),
                     "%s at %u:%u keeps reading %s, not %s: %s", mnemonic(in),
                     wave_instr_loc(in).line, wave_instr_loc(in).col, reg_name(reg, a),
                     reg_name(to, b), why);
}

/* Where the register read lands: the holder of its value when another register is, else the
 * register itself, which then becomes the holder. */
static uint32_t read_target(cse *c, uint32_t reg) {
  uint32_t value = c->vn[reg];
  uint32_t h = holder(c, value);
  if (h == NO_REG) {
    set_leader(c, value, reg);
    return reg;
  }
  return h;
}

static void rewrite_reads(cse *c, wave_instr *in) {
  wave_regset other_lanes = wave_regset_empty();
  wave_instr_other_lane_uses(in, &other_lanes);
  for (unsigned slot = 0; slot < wave_instr_num_operands(in); slot++) {
    char kind = wave_opcode_slot_kind(wave_instr_op(in), slot);
    wave_operand o = wave_instr_operand(in, slot);
    if ((kind != 'u' && kind != 'p') || wave_opcode_slot_width(wave_instr_op(in), slot) != 1 ||
        (o.kind != WAVE_OPERAND_GPR && o.kind != WAVE_OPERAND_PRED))
      continue;
    uint32_t reg = read_reg(in, slot);
    uint32_t to = read_target(c, reg);
    if (to == reg)
      continue;
    if (wave_regset_test(other_lanes, reg))
      kept(c, in, reg, to, "it reads that register in other lanes too, inactive ones included");
    else {
      redirect(c, wave_instr_loc(in), mnemonic(in), &o, reg, to);
      wave_instr_set_operand(in, slot, o);
    }
  }
  if (wave_instr_guard(in) != WAVE_NO_GUARD) {
    uint32_t reg = WAVE_REG_PRED((uint32_t)wave_instr_guard(in));
    uint32_t to = read_target(c, reg);
    if (to == WAVE_REG_PRED(0) && reg != to) {
      kept(c, in, reg, to, "a guard may not name p0");
    } else if (to != reg) {
      wave_operand guard = wave_pred((uint32_t)wave_instr_guard(in));
      redirect(c, wave_instr_loc(in), mnemonic(in), &guard, reg, to);
      wave_instr_set_guard(in, (int)guard.value, wave_instr_guard_negated(in));
    }
  }
}

/* Every register the instruction may write gets a new number; returns them. */
static wave_regset set_defs_fresh(cse *c, const wave_instr *in) {
  wave_regset writes = wave_xform_may_write(in);
  set_fresh_all(c, writes);
  return writes;
}

/* The value number the instruction computes, with the table entry it repeats in *earlier
 * (NULL for a copy, whose number is its source's). A computation the table does not know gets
 * a new number and entry when `add`, else the answer is NO_REG. */
static uint32_t value_of(cse *c, const wave_instr *in, bool add, const entry **earlier) {
  *earlier = NULL;
  if (wave_instr_op(in) == WAVE_OP_MOV && wave_instr_operand(in, 1).kind == WAVE_OPERAND_GPR)
    return c->vn[wave_instr_operand(in, 1).value];
  uint32_t key[KEY_WORDS];
  make_key(c, in, true, key);
  entry *e = lookup(c, key);
  if (e) {
    *earlier = e;
    return e->value;
  }
  if (!add)
    return NO_REG;
  e = insert(c, key, in);
  if (!e || !wave_grow(c->allocator, (void **)&c->leader, &c->leader_cap, (size_t)c->next_vn + 1,
                       sizeof(*c->leader))) {
    c->out_of_memory = true;
    return NO_REG;
  }
  e->value = c->next_vn++;
  e->reg = dest_reg(wave_instr_dest(in));
  c->leader[e->value] = NO_REG;
  return e->value;
}

/* Visits an instruction; returns the registers it writes, none when it is to be removed. */
static wave_regset visit_instr(cse *c, wave_instr *in) {
  rewrite_reads(c, in);
  wave_operand d = wave_instr_dest(in);
  bool has_dest = d.kind != WAVE_OPERAND_NONE;
  const entry *earlier;
  bool copy =
      wave_instr_op(in) == WAVE_OP_MOV && wave_instr_operand(in, 1).kind == WAVE_OPERAND_GPR;
  if (!has_dest || why_not_merged(in, true) != NULL) {
    if (c->explain && has_dest)
      explain(c, in, false);
    return set_defs_fresh(c, in);
  }
  /* Past why_not_merged the destination is all it writes: no opcode writes two slots, and
   * pairs and quads were refused. */
  uint32_t dest = dest_reg(d);
  wave_regset writes = wave_regset_empty();
  /* Writing what the destination holds changes no lane, guarded or not. */
  uint32_t value = value_of(c, in, wave_instr_guard(in) == WAVE_NO_GUARD, &earlier);
  if (c->out_of_memory)
    return writes;
  if (value != NO_REG && c->vn[dest] == value) {
    remove_instr(c, in, dest);
    return writes;
  }
  wave_regset_set(&writes, dest);
  if (wave_instr_guard(in) != WAVE_NO_GUARD) {
    if (c->explain && !copy)
      explain(c, in, false);
    set_fresh(c, dest);
    return writes;
  }
  bool held = holder(c, value) != NO_REG;
  if (c->explain && earlier && !held) {
    char buf[REG_NAME_LEN];
    wave_loc at = wave_instr_loc(in), was = wave_instr_loc(earlier->instr);
    wave_remark_missed(c->ctx, "value-lost", at,
                       "%s at %u:%u not merged with the one at %u:%u: no register holds that "
                       "value any more (%s was overwritten)",
                       mnemonic(in), at.line, at.col, was.line, was.col,
                       reg_name(earlier->reg, buf));
  }
  if (c->explain && !copy)
    explain(c, in, held);
  set_vn(c, dest, value);
  return writes;
}

/* ---- the walk ----------------------------------------------------------------------------- */

static bool push_scope(cse *c) {
  if (!wave_grow(c->allocator, (void **)&c->scopes, &c->scopes_cap, c->num_scopes + 1,
                 sizeof(*c->scopes))) {
    c->out_of_memory = true;
    return false;
  }
  c->scopes[c->num_scopes++] = (scope){c->log_len, wave_regset_empty()};
  return true;
}

/* `mov rX, rX`: no lane changes, and the visit removes it, so a loop is judged without it
 * (else removing a loop's only write of rX would leave a second run something to find). */
static bool copies_itself(const wave_instr *in) {
  wave_operand d = wave_instr_operand(in, 0), s = wave_instr_operand(in, 1);
  return wave_instr_op(in) == WAVE_OP_MOV && d.kind == WAVE_OPERAND_GPR &&
         s.kind == WAVE_OPERAND_GPR && d.value == s.value && d.half == s.half;
}

/* What the body of `loop` writes, and the body of each loop inside it, numbered on from
 * c->num_loops in walk order; a call writes everything. The walk asks at each outermost loop,
 * right before it walks the body, which is then still in cache. */
static bool collect_loop_writes(cse *c, wave_node *loop) {
  size_t *open = NULL, num_open = 0, open_cap = 0;
  bool ok = true;
  wave_walker w;
  wave_walk_init(&w, wave_loop_body(loop));
  for (bool more = true; ok && more; more = wave_walk_next(&w)) {
    /* The loop itself opens first; its endloop is not in its body's walk. */
    wave_walk_event event = num_open ? w.event : WAVE_WALK_LOOP;
    if (event == WAVE_WALK_LOOP) {
      ok = wave_grow(c->allocator, (void **)&c->loop_writes, &c->loops_cap, c->num_loops + 1,
                     sizeof(*c->loop_writes)) &&
           wave_grow(c->allocator, (void **)&open, &open_cap, num_open + 1, sizeof(*open));
      if (ok) {
        c->loop_writes[c->num_loops] = wave_regset_empty();
        open[num_open++] = c->num_loops++;
      }
    } else if (event == WAVE_WALK_ENDLOOP) {
      num_open--;
      c->loop_writes[open[num_open - 1]] = wave_regset_union(c->loop_writes[open[num_open - 1]],
                                                             c->loop_writes[open[num_open]]);
    } else if (event == WAVE_WALK_BLOCK) {
      wave_regset *into = &c->loop_writes[open[num_open - 1]];
      wave_foreach_instr(in, w.node) {
        if (!copies_itself(in))
          *into = wave_regset_union(*into, wave_xform_may_write(in));
      }
    }
  }
  wave_mem_free(c->allocator, open);
  return ok;
}

static void visit_cond(cse *c, wave_node *node) {
  wave_operand cond = wave_if_cond(node);
  if (cond.kind != WAVE_OPERAND_PRED)
    return;
  uint32_t reg = WAVE_REG_PRED(cond.value);
  uint32_t to = read_target(c, reg);
  if (to == reg)
    return;
  redirect(c, wave_node_origin(node, WAVE_LINE_IF).loc, "if", &cond, reg, to);
  wave_if_set_cond(node, cond);
}

/* Visits the instructions of a block; those it keeps count as writes of the innermost loop
 * around them. */
static void visit_block(cse *c, wave_node *block) {
  wave_regset *kept = c->num_open ? &c->kept_writes[c->open[c->num_open - 1]] : NULL;
  wave_foreach_instr(in, block) {
    wave_regset writes = visit_instr(c, in);
    if (kept)
      *kept = wave_regset_union(*kept, writes);
  }
}

/* Enters loop number `loop`, collecting the writes of it and of the loops inside it when it
 * is an outermost one (their numbers follow on). */
static void open_loop(cse *c, wave_node *node, size_t loop) {
  if ((loop == c->num_loops && !collect_loop_writes(c, node)) ||
      !wave_grow(c->allocator, (void **)&c->kept_writes, &c->kept_cap, c->num_loops,
                 sizeof(*c->kept_writes)) ||
      !wave_grow(c->allocator, (void **)&c->open, &c->open_cap, c->num_open + 1,
                 sizeof(*c->open))) {
    c->out_of_memory = true;
    return;
  }
  c->kept_writes[loop] = wave_regset_empty();
  c->open[c->num_open++] = loop;
  set_fresh_all(c, c->loop_writes[loop]);
  if (push_scope(c))
    c->scopes[c->num_scopes - 1].written = c->loop_writes[loop];
}

static void close_loop(cse *c) {
  size_t loop = c->open[--c->num_open];
  if (c->num_open) {
    wave_regset *outer = &c->kept_writes[c->open[c->num_open - 1]];
    *outer = wave_regset_union(*outer, c->kept_writes[loop]);
  }
  scope s = c->scopes[--c->num_scopes];
  wave_regset ignored = wave_regset_empty();
  undo_to(c, s.mark, &ignored);
  set_fresh_all(c, s.written);
}

static void walk(cse *c, wave_region *region) {
  size_t loop = 0;
  wave_walker w;
  wave_walk_init(&w, wave_region_body(region));
  while (!c->out_of_memory && wave_walk_next(&w)) {
    switch (w.event) {
    case WAVE_WALK_BLOCK:
      visit_block(c, w.node);
      break;
    case WAVE_WALK_IF:
      visit_cond(c, w.node);
      push_scope(c);
      break;
    case WAVE_WALK_ELSE: {
      scope *s = &c->scopes[c->num_scopes - 1];
      undo_to(c, s->mark, &s->written);
      break;
    }
    case WAVE_WALK_ENDIF: {
      scope s = c->scopes[--c->num_scopes];
      undo_to(c, s.mark, &s.written);
      set_fresh_all(c, s.written);
      break;
    }
    case WAVE_WALK_LOOP:
      open_loop(c, w.node, loop++);
      break;
    case WAVE_WALK_ENDLOOP:
      close_loop(c);
      break;
    }
  }
}

static void cse_free(cse *c) {
  const wave_allocator *a = c->allocator;
  wave_mem_free(a, c->leader);
  wave_mem_free(a, c->buckets);
  wave_mem_free(a, c->entries);
  wave_mem_free(a, c->links);
  wave_mem_free(a, c->values);
  wave_mem_free(a, c->log);
  wave_mem_free(a, c->scopes);
  wave_mem_free(a, c->loop_writes);
  wave_mem_free(a, c->kept_writes);
  wave_mem_free(a, c->open);
  wave_mem_free(a, c->removed);
}

/* Whether every loop still writes what the walk took it to write. A register a loop no longer
 * writes would keep its value across it, and a second run could take that. */
static bool loop_writes_unchanged(const cse *c) {
  for (size_t i = 0; i < c->num_loops; i++)
    if (!wave_regset_equal(c->loop_writes[i], c->kept_writes[i]))
      return false;
  return true;
}

bool wave_early_cse_region(wave_region *region, wave_pass_context *ctx, unsigned *rewrites,
                           bool *settled) {
  cse c = {.ctx = ctx,
           .allocator = wave_module_allocator(wave_kernel_module(wave_region_kernel(region))),
           .explain = wave_remark_enabled(ctx, WAVE_REMARK_MISSED)};
  if (!rehash(&c, 1024) || !wave_grow(c.allocator, (void **)&c.leader, &c.leader_cap, WAVE_NUM_REGS,
                                      sizeof(*c.leader))) {
    cse_free(&c);
    return false;
  }
  /* Nothing is known at a region's start: each register holds a value of its own. */
  for (uint32_t r = 0; r < WAVE_NUM_REGS; r++) {
    c.vn[r] = r;
    c.leader[r] = r;
  }
  c.next_vn = WAVE_NUM_REGS;
  walk(&c, region);
  /* Removal comes last: the walk's loop numbering needs the tree as the pre-pass saw it. */
  for (size_t i = 0; i < c.num_removed; i++)
    wave_instr_delete(c.removed[i]);
  *rewrites += c.rewrites;
  bool ok = !c.out_of_memory;
  /* After running out, the loops' write sets may be missing: the pass fails anyway. */
  *settled &= ok && loop_writes_unchanged(&c);
  cse_free(&c);
  return ok;
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  (void)am;
  unsigned rewrites = 0;
  bool settled = true;
  wave_foreach_region(r, kernel) {
    if (!wave_early_cse_region(r, ctx, &rewrites, &settled))
      return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in early-cse");
  }
  return settled ? wave_pass_done_settled(rewrites > 0, WAVE_PRESERVE_NONE)
                 : wave_pass_done(rewrites > 0, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_early_cse = {
    .name = "early-cse",
    .help = "redirect reads of recomputed values and copies to the register already holding "
            "them; remove writes of the value a register holds",
    .run = run,
};
