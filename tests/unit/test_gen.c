/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel generator, the differential harness and the reducer. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/difftest.h"
#include "waveopt/uniformity.h"

enum { SEEDS = 200 };

static wave_module *generate(const wave_gen_options *o, wave_gen_launch *launch) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_generate(o, launch, &diags);
  cr_assert_not_null(m, "seed %llu", (unsigned long long)o->seed);
  cr_assert_eq(diags.count, 0);
  wave_diags_free(&diags);
  return m;
}

static wave_gen_options options_for(uint64_t seed) {
  wave_gen_options o;
  wave_gen_options_init(&o);
  o.seed = seed;
  return o;
}

static char *print(const wave_module *m, wave_dialect dialect, size_t *len) {
  wave_print_options po = {0};
  po.dialect = dialect;
  char *text = wave_print_to_string(m, &po, len);
  cr_assert_not_null(text);
  return text;
}

static char *generate_text(const wave_gen_options *o, wave_gen_launch *launch, size_t *len) {
  wave_module *m = generate(o, launch);
  char *text = print(m, o->docs_dialect ? WAVE_DIALECT_DOCS : WAVE_DIALECT_ASM, len);
  wave_module_destroy(m);
  return text;
}

/* ---- what the kernels contain ---------------------------------------------------------------- */

typedef struct features {
  unsigned ifs, elses, loops, breaks, continues, breaks_in_ifs, continues_in_ifs, wave_ops,
      shuffles, guards, halts, guarded_halts, barriers, atomics, atomic_returns, loads, stores,
      divisions, clamps, selects, pseudo, negated_exits, docs_immediates, w_dependent_sregs,
      convergent_after_halts, max_depth, instrs;
} features;

/* Whether the innermost region around `block` is an if nested inside a loop. */
static bool in_if_inside_loop(const wave_node *block) {
  const wave_node *parent = wave_node_list_parent(wave_node_list_of(block));
  if (!parent || wave_node_kind_of(parent) != WAVE_NODE_IF)
    return false;
  for (; parent; parent = wave_node_list_parent(wave_node_list_of(parent)))
    if (wave_node_kind_of(parent) == WAVE_NODE_LOOP)
      return true;
  return false;
}

/* after_halt: a guarded halt comes earlier in the same block. Below the top level, a shuffle
 * or barrier may only follow one there: the shape that ends a few lanes of a uniform if or
 * loop right before a convergent instruction, every other lane still active. */
static void count_instr(features *f, const wave_instr *in, const wave_node *block,
                        unsigned depth, bool after_halt) {
  bool allowed_below_top = depth == 1 && after_halt;
  wave_opcode op = wave_instr_op(in);
  const wave_opcode_info *info = wave_opcode_get(op);
  f->instrs++;
  if (wave_instr_guard(in) != WAVE_NO_GUARD) {
    f->guards++;
    cr_assert(wave_instr_guard(in) >= 1 && wave_instr_guard(in) <= 3, "guard @p%d",
              wave_instr_guard(in));
    cr_assert(info->flags & WAVE_F_GUARD_OK, "guard on %s", info->mnemonic);
    cr_assert_not(info->flags & (WAVE_F_READS_MEM | WAVE_F_WRITES_MEM | WAVE_F_CONVERGENT),
                  "guard on %s", info->mnemonic);
  }
  if (op == WAVE_OP_BREAK || op == WAVE_OP_CONTINUE) {
    bool in_if = in_if_inside_loop(block);
    if (op == WAVE_OP_BREAK) {
      f->breaks++;
      f->breaks_in_ifs += in_if;
    } else {
      f->continues++;
      f->continues_in_ifs += in_if;
    }
    f->negated_exits += wave_instr_operand(in, 0).negated;
  }
  if (info->category == WAVE_CAT_WAVE) {
    f->wave_ops++;
    if (op >= WAVE_OP_WAVE_SHUFFLE && op <= WAVE_OP_WAVE_BROADCAST) {
      f->shuffles++;
      cr_assert(depth == 0 || allowed_below_top, "a shuffle under divergence");
    }
  }
  if (op == WAVE_OP_HALT) {
    f->halts++;
    f->guarded_halts += wave_instr_guard(in) != WAVE_NO_GUARD;
  }
  if (op == WAVE_OP_BARRIER) {
    f->barriers++;
    cr_assert(depth == 0 || allowed_below_top, "a barrier inside a region");
  }
  f->convergent_after_halts += after_halt && (info->flags & WAVE_F_CONVERGENT);
  if (info->category == WAVE_CAT_ATOMIC) {
    f->atomics++;
    f->atomic_returns += wave_instr_operand(in, 0).kind == WAVE_OPERAND_GPR;
  }
  f->loads += info->category == WAVE_CAT_LOAD;
  f->stores += info->category == WAVE_CAT_STORE;
  f->divisions += op == WAVE_OP_IDIV || op == WAVE_OP_IMOD;
  f->clamps += op == WAVE_OP_ICLAMP;
  f->selects += op == WAVE_OP_SELECT;
  f->pseudo += (info->flags & WAVE_F_PSEUDO) != 0;
  cr_assert_neq(op, WAVE_OP_FCLAMP);
  for (unsigned s = 0; s < wave_instr_num_operands(in); s++) {
    wave_operand o = wave_instr_operand(in, s);
    if (o.kind == WAVE_OPERAND_IMM && op != WAVE_OP_MOV_IMM)
      f->docs_immediates++;
    if (o.kind == WAVE_OPERAND_SREG &&
        (o.value == 3 || o.value == 4 || o.value == 14 || o.value == 15))
      f->w_dependent_sregs++;
  }
}

static features count_features(wave_module *m) {
  features f = {0};
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))));
  while (wave_walk_next(&w)) {
    if (w.depth + (w.event == WAVE_WALK_IF || w.event == WAVE_WALK_LOOP) > f.max_depth)
      f.max_depth = w.depth + 1;
    if (w.event == WAVE_WALK_IF) {
      f.ifs++;
      f.elses += wave_if_has_else(w.node);
    } else if (w.event == WAVE_WALK_LOOP) {
      f.loops++;
    } else if (w.event == WAVE_WALK_BLOCK) {
      bool after_halt = false;
      for (const wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in)) {
        count_instr(&f, in, w.node, w.depth, after_halt);
        after_halt |= wave_instr_op(in) == WAVE_OP_HALT && wave_instr_guard(in) != WAVE_NO_GUARD;
      }
    }
  }
  return f;
}

static void add(features *total, const features *f) {
  unsigned *t = (unsigned *)total;
  const unsigned *x = (const unsigned *)f;
  for (size_t i = 0; i < sizeof(*f) / sizeof(unsigned); i++)
    t[i] += x[i];
}

Test(gen, every_feature_appears_across_seeds) {
  features total = {0};
  unsigned deepest = 0;
  for (uint64_t seed = 0; seed < SEEDS; seed++) {
    wave_gen_options o = options_for(seed);
    wave_gen_launch launch;
    wave_module *m = generate(&o, &launch);
    features f = count_features(m);
    cr_assert_leq(f.max_depth, o.max_depth, "seed %llu", (unsigned long long)seed);
    cr_assert_geq(f.halts, 1, "the kernel must end in a halt");
    cr_assert_eq(f.pseudo + f.negated_exits + f.docs_immediates, 0, "docs forms in asm mode");
    deepest = f.max_depth > deepest ? f.max_depth : deepest;
    add(&total, &f);
    wave_module_destroy(m);
  }
  cr_expect_gt(total.ifs, 100);
  cr_expect_gt(total.elses, 50);
  cr_expect_gt(total.loops, 50);
  cr_expect_gt(total.breaks, 50);
  cr_expect_gt(total.continues, 50);
  cr_expect_gt(total.breaks_in_ifs, 20);
  cr_expect_gt(total.continues_in_ifs, 20);
  cr_expect_gt(total.wave_ops, 50);
  cr_expect_gt(total.shuffles, 10);
  cr_expect_gt(total.guards, 100);
  cr_expect_gt(total.halts - SEEDS, 50, "halts inside regions");
  cr_expect_gt(total.guarded_halts, 20);
  cr_expect_gt(total.barriers, 20);
  cr_expect_gt(total.atomics, 50);
  cr_expect_gt(total.atomic_returns, 20);
  cr_expect_gt(total.loads, 100);
  cr_expect_gt(total.stores, 100);
  cr_expect_gt(total.divisions, 20);
  cr_expect_gt(total.clamps, 20);
  cr_expect_gt(total.selects, 50);
  cr_expect_gt(total.w_dependent_sregs, 10);
  cr_expect_gt(total.convergent_after_halts, 20, "exits right before convergent instructions");
  cr_expect_geq(deepest, 5);
}

Test(gen, docs_dialect_forms_appear_only_when_asked) {
  features total = {0};
  for (uint64_t seed = 0; seed < 100; seed++) {
    wave_gen_options o = options_for(seed);
    o.docs_dialect = true;
    wave_gen_launch launch;
    wave_module *m = generate(&o, &launch);
    features f = count_features(m);
    add(&total, &f);
    cr_assert_eq(launch.num_dumped_predicates, 3, "p3 is left to the lowering");
    wave_module_destroy(m);
  }
  cr_expect_gt(total.pseudo, 30);
  cr_expect_gt(total.negated_exits, 30);
  cr_expect_gt(total.docs_immediates, 50);
}

Test(gen, options_switch_features_off) {
  for (uint64_t seed = 0; seed < 100; seed++) {
    wave_gen_options o = options_for(seed);
    o.wave_ops = o.atomics = o.barriers = o.halts = false;
    o.max_depth = 2;
    wave_gen_launch launch;
    wave_module *m = generate(&o, &launch);
    features f = count_features(m);
    cr_assert_eq(f.wave_ops + f.w_dependent_sregs + f.atomics + f.barriers, 0);
    cr_assert_eq(f.halts, 1, "only the final halt");
    cr_assert_leq(f.max_depth, 2);
    wave_module_destroy(m);

    o = options_for(seed);
    o.atomic_returns = false;
    o.max_depth = 0;
    m = generate(&o, &launch);
    f = count_features(m);
    cr_assert_eq(f.atomic_returns, 0);
    cr_assert_eq(f.ifs + f.loops, 0);
    wave_module_destroy(m);
  }
}

Test(gen, size_is_roughly_respected) {
  for (unsigned size = 100; size <= 3000; size *= 3) {
    wave_gen_options o = options_for(size);
    o.size = size;
    wave_gen_launch launch;
    wave_module *m = generate(&o, &launch);
    features f = count_features(m);
    cr_expect_geq(f.instrs, size * 9 / 10, "size %u: %u instructions", size, f.instrs);
    cr_expect_leq(f.instrs, size + 150, "size %u: %u instructions", size, f.instrs);
    wave_module_destroy(m);
  }
}

Test(gen, same_seed_same_kernel_and_different_seeds_differ) {
  enum { N = 60 };
  char *texts[N];
  for (uint64_t seed = 0; seed < N; seed++) {
    wave_gen_options o = options_for(seed);
    wave_gen_launch l1, l2;
    size_t n1, n2;
    texts[seed] = generate_text(&o, &l1, &n1);
    char *again = generate_text(&o, &l2, &n2);
    cr_assert_str_eq(texts[seed], again);
    cr_assert_eq(memcmp(&l1, &l2, sizeof(l1)), 0);
    free(again);
    for (uint64_t other = 0; other < seed; other++)
      cr_assert_str_neq(texts[seed], texts[other], "seeds %llu and %llu",
                        (unsigned long long)seed, (unsigned long long)other);
  }
  for (unsigned i = 0; i < N; i++)
    free(texts[i]);
}

Test(gen, describe_names_the_seed_and_the_launch) {
  wave_gen_options o = options_for(1234);
  wave_gen_launch launch;
  wave_module *m = generate(&o, &launch);
  char *d = wave_gen_describe(&o, &launch);
  cr_assert_not_null(d);
  cr_assert_not_null(strstr(d, "--seed 1234"));
  char grid[64];
  snprintf(grid, sizeof(grid), "grid %u,%u,%u", launch.grid[0], launch.grid[1], launch.grid[2]);
  cr_assert_not_null(strstr(d, grid));
  cr_assert_not_null(strstr(d, "--set-reg 1:4096"));
  for (const char *line = d; *line; line = strchr(line, '\n') + 1)
    cr_assert_eq(*line, ';', "every line is a comment");
  free(d);
  wave_module_destroy(m);
}

/* ---- the shapes the optimization passes rewrite --------------------------------------------- */

/* Counts of each shape libwaveopt/gen/gen.c builds for a pass, recognised from the tree alone. */
typedef struct pass_shapes {
  unsigned small_ifs, small_elses, same_register_sides, small_ifs_on_p0, small_uniform_ifs,
      protected_divisions,
      nested_ifs, nested_with_compare, else_if_same, if_breaks, if_continues, if_pure_exits,
      trailing_ifs, common_begins, common_ends, dead, repeated_constants, equal_selects,
      adjacent_ifs, counted_loops;
} pass_shapes;

static bool is_speculable(const wave_instr *in) {
  unsigned flags = wave_opcode_get(wave_instr_op(in))->flags;
  return (flags & WAVE_F_PURE) && !(flags & (WAVE_F_CONVERGENT | WAVE_F_OTHER_LANES));
}

/* The instructions of a list holding at most one block; false for anything else. With max_len
 * also: 1..max_len instructions, all pure. */
static bool only_block(const wave_node_list *list, unsigned max_len, const wave_instr **first,
                       const wave_instr **last) {
  *first = *last = NULL;
  if (!wave_node_list_first(list))
    return true;
  if (wave_node_list_first(list) != wave_node_list_last(list) ||
      wave_node_kind_of(wave_node_list_first(list)) != WAVE_NODE_BLOCK)
    return false;
  *first = wave_block_first(wave_node_list_first(list));
  *last = wave_block_last(wave_node_list_first(list));
  unsigned n = 0;
  for (const wave_instr *in = *first; in; in = wave_instr_next(in), n++)
    if (max_len && !is_speculable(in))
      return false;
  return !max_len || (n >= 1 && n <= max_len);
}

static bool same_operand(wave_operand a, wave_operand b) {
  return a.kind == b.kind && a.value == b.value && a.negated == b.negated;
}

static bool same_instr(const wave_instr *a, const wave_instr *b) {
  if (!a || !b || wave_instr_op(a) != wave_instr_op(b) ||
      wave_instr_guard(a) != wave_instr_guard(b) ||
      wave_instr_guard_negated(a) != wave_instr_guard_negated(b) ||
      wave_instr_num_operands(a) != wave_instr_num_operands(b))
    return false;
  for (unsigned s = 0; s < wave_instr_num_operands(a); s++)
    if (!same_operand(wave_instr_operand(a, s), wave_instr_operand(b, s)))
      return false;
  return true;
}

/* Whether two lists hold the same statements. */
static bool same_lists(const wave_node_list *a, const wave_node_list *b) {
  wave_const_walker wa, wb;
  wave_const_walk_init(&wa, a);
  wave_const_walk_init(&wb, b);
  for (;;) {
    bool more = wave_const_walk_next(&wa);
    if (more != wave_const_walk_next(&wb))
      return false;
    if (!more)
      return true;
    if (wa.event != wb.event)
      return false;
    if (wa.event == WAVE_WALK_IF && (!same_operand(wave_if_cond(wa.node), wave_if_cond(wb.node)) ||
                                     wave_if_has_else(wa.node) != wave_if_has_else(wb.node)))
      return false;
    if (wa.event != WAVE_WALK_BLOCK)
      continue;
    const wave_instr *x = wave_block_first(wa.node), *y = wave_block_first(wb.node);
    for (; x && y; x = wave_instr_next(x), y = wave_instr_next(y))
      if (!same_instr(x, y))
        return false;
    if (x || y)
      return false;
  }
}

static bool writes_gpr(const wave_instr *in, uint32_t r) {
  return wave_instr_num_operands(in) && wave_opcode_slot_kind(wave_instr_op(in), 0) == 'd' &&
         wave_instr_operand(in, 0).kind == WAVE_OPERAND_GPR && wave_instr_operand(in, 0).value == r;
}

static bool reads_gpr(const wave_instr *in, uint32_t r) {
  for (unsigned s = 1; s < wave_instr_num_operands(in); s++)
    if (wave_instr_operand(in, s).kind == WAVE_OPERAND_GPR && wave_instr_operand(in, s).value == r)
      return true;
  return false;
}

static bool inside_loop(const wave_node *node) {
  for (const wave_node *p = wave_node_list_parent(wave_node_list_of(node)); p;
       p = wave_node_list_parent(wave_node_list_of(p)))
    if (wave_node_kind_of(p) == WAVE_NODE_LOOP)
      return true;
  return false;
}

static void count_if_shapes(pass_shapes *s, const wave_node *n, const wave_uniformity *u) {
  const wave_node_list *then_list = wave_if_then(n), *else_list = wave_if_else(n);
  const wave_instr *t0, *t1, *e0, *e1;
  uint32_t cond = wave_if_cond(n).value;
  if (only_block(then_list, 4, &t0, &t1) && t0 &&
      (!wave_node_list_first(else_list) || only_block(else_list, 4, &e0, &e1))) {
    s->small_ifs++;
    s->small_ifs_on_p0 += cond == 0;
    s->small_uniform_ifs += !wave_uniformity_node_divergent(u, n);
    if (wave_node_list_first(else_list)) {
      s->small_elses++;
      s->same_register_sides += wave_instr_num_operands(t1) && wave_instr_num_operands(e1) &&
                                wave_instr_operand(t1, 0).kind == WAVE_OPERAND_GPR &&
                                same_operand(wave_instr_operand(t1, 0), wave_instr_operand(e1, 0));
    }
  }
  /* A division right inside the if by a register compared with zero just before it. */
  const wave_node *prev = wave_node_prev(n);
  const wave_instr *cmp =
      prev && wave_node_kind_of(prev) == WAVE_NODE_BLOCK ? wave_block_last(prev) : NULL;
  if (cmp && (wave_instr_op(cmp) == WAVE_OP_ICMP_NE || wave_instr_op(cmp) == WAVE_OP_ICMP_EQ) &&
      wave_instr_operand(cmp, 0).value == cond) {
    const wave_node_list *side = wave_instr_op(cmp) == WAVE_OP_ICMP_NE ? then_list : else_list;
    if (only_block(side, 0, &t0, &t1) && t0 &&
        (wave_instr_op(t0) == WAVE_OP_IDIV || wave_instr_op(t0) == WAVE_OP_IMOD) &&
        same_operand(wave_instr_operand(t0, 2), wave_instr_operand(cmp, 1)))
      s->protected_divisions++;
  }
  /* if pA { [compare] if pB { S } } */
  const wave_node *inner = wave_node_list_last(then_list);
  if (!wave_if_has_else(n) && inner && wave_node_kind_of(inner) == WAVE_NODE_IF &&
      !wave_if_has_else(inner)) {
    const wave_node *before = wave_node_list_first(then_list);
    if (before == inner) {
      s->nested_ifs++;
    } else if (wave_node_next(before) == inner && wave_node_kind_of(before) == WAVE_NODE_BLOCK) {
      /* The compare, with the constant it may need. */
      const wave_instr *last = wave_block_last(before);
      s->nested_with_compare += wave_opcode_get(wave_instr_op(last))->category == WAVE_CAT_CMP &&
                                wave_instr_operand(last, 0).value == wave_if_cond(inner).value &&
                                (wave_block_first(before) == last ||
                                 wave_instr_op(wave_block_first(before)) == WAVE_OP_MOV_IMM);
    }
  }
  /* if pA { S } else { [compare] if pB { S } } */
  inner = wave_node_list_last(else_list);
  if (inner && wave_node_kind_of(inner) == WAVE_NODE_IF && !wave_if_has_else(inner) &&
      (wave_node_list_first(else_list) == inner ||
       wave_node_next(wave_node_list_first(else_list)) == inner) &&
      same_lists(then_list, wave_if_then(inner)))
    s->else_if_same++;
  /* if pA { [S] break/continue pB } in a loop */
  if (!wave_if_has_else(n) && inside_loop(n) && only_block(then_list, 0, &t0, &t1) && t1 &&
      (wave_instr_op(t1) == WAVE_OP_BREAK || wave_instr_op(t1) == WAVE_OP_CONTINUE)) {
    bool pure = true;
    for (const wave_instr *in = t0; in != t1; in = wave_instr_next(in))
      pure &= is_speculable(in);
    if (t0 != t1)
      s->if_pure_exits += pure;
    else if (wave_instr_op(t1) == WAVE_OP_BREAK)
      s->if_breaks++;
    else
      s->if_continues++;
  }
  /* The same first or last instruction on both sides. */
  const wave_node *a = wave_node_list_first(then_list), *b = wave_node_list_first(else_list);
  s->common_begins += a && b && wave_node_kind_of(a) == WAVE_NODE_BLOCK &&
                      wave_node_kind_of(b) == WAVE_NODE_BLOCK &&
                      same_instr(wave_block_first(a), wave_block_first(b));
  a = wave_node_list_last(then_list), b = wave_node_list_last(else_list);
  s->common_ends += a && b && wave_node_kind_of(a) == WAVE_NODE_BLOCK &&
                    wave_node_kind_of(b) == WAVE_NODE_BLOCK &&
                    same_instr(wave_block_last(a), wave_block_last(b));
  s->adjacent_ifs += wave_node_next(n) && wave_node_kind_of(wave_node_next(n)) == WAVE_NODE_IF &&
                     wave_if_cond(wave_node_next(n)).value == cond;
}

static void count_block_shapes(pass_shapes *s, const wave_node *block) {
  for (const wave_instr *in = wave_block_first(block); in; in = wave_instr_next(in)) {
    /* Value registers only: r8 and r9 are the generator's address temporaries. */
    uint32_t d = wave_instr_operand(in, 0).value;
    bool value = wave_instr_num_operands(in) &&
                 wave_instr_operand(in, 0).kind == WAVE_OPERAND_GPR && d >= 13;
    if (value && is_speculable(in) && writes_gpr(in, d) && wave_instr_next(in) &&
        wave_instr_guard(wave_instr_next(in)) == WAVE_NO_GUARD &&
        writes_gpr(wave_instr_next(in), d) && !reads_gpr(wave_instr_next(in), d))
      s->dead++;
    if (wave_instr_op(in) == WAVE_OP_MOV_IMM && value) {
      unsigned distance = 0;
      for (const wave_instr *later = wave_instr_next(in); later && distance < 4;
           later = wave_instr_next(later)) {
        distance++;
        if (wave_instr_op(later) == WAVE_OP_MOV_IMM && wave_instr_operand(later, 0).value >= 13 &&
            wave_instr_operand(later, 1).value == wave_instr_operand(in, 1).value) {
          s->repeated_constants++;
          break;
        }
      }
    }
    s->equal_selects += wave_instr_op(in) == WAVE_OP_SELECT &&
                        same_operand(wave_instr_operand(in, 2), wave_instr_operand(in, 3));
  }
}

/* A loop that starts by comparing a counter with the counted loops' bound r27 (gen.c) and ends
 * by adding to the counter. */
static bool is_counted_loop(const wave_node *loop) {
  const wave_node *first = wave_node_list_first(wave_loop_body(loop)),
                  *last = wave_node_list_last(wave_loop_body(loop));
  const wave_instr *cmp =
      first && wave_node_kind_of(first) == WAVE_NODE_BLOCK ? wave_block_first(first) : NULL;
  const wave_instr *step =
      last && wave_node_kind_of(last) == WAVE_NODE_BLOCK ? wave_block_last(last) : NULL;
  if (!cmp || !step || wave_instr_num_operands(cmp) != 3 || wave_instr_op(step) != WAVE_OP_IADD)
    return false;
  uint32_t a = wave_instr_operand(cmp, 1).value, b = wave_instr_operand(cmp, 2).value;
  uint32_t counter = a == 27 ? b : a;
  return (a == 27 || b == 27) && wave_instr_operand(step, 0).value == counter;
}

static pass_shapes count_pass_shapes(wave_module *m) {
  pass_shapes s = {0};
  wave_uniformity *u = wave_uniformity_compute(wave_module_first_kernel(m), NULL);
  cr_assert_not_null(u);
  wave_const_walker w;
  wave_const_walk_init(&w, wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))));
  while (wave_const_walk_next(&w)) {
    if (w.event == WAVE_WALK_IF)
      count_if_shapes(&s, w.node, u);
    else if (w.event == WAVE_WALK_LOOP) {
      s.trailing_ifs +=
          wave_node_list_last(wave_loop_body(w.node)) &&
          wave_node_kind_of(wave_node_list_last(wave_loop_body(w.node))) == WAVE_NODE_IF;
      s.counted_loops += is_counted_loop(w.node);
    }
    else if (w.event == WAVE_WALK_BLOCK)
      count_block_shapes(&s, w.node);
  }
  wave_uniformity_destroy(u);
  return s;
}

/* Each shape appears a few times in every few kernels, so that each pass fires on many of the
 * differential harness's kernels. */
/* The fields of pass_shapes, in order. */
static const char *const shape_names[] = {
    "small pure ifs",
    "  of them with an else",
    "  of them ending in one register on both sides",
    "  of them on p0",
    "  of them uniform (so proven)",
    "divisions protected by the if",
    "ifs holding only an if",
    "ifs holding a compare and an if",
    "else-sides repeating the then-side in an if",
    "if-break",
    "if-continue",
    "if with pure code, then break or continue",
    "trailing ifs",
    "if/else beginning alike",
    "if/else ending alike",
    "dead pure instructions",
    "repeated constants",
    "selects with equal arms",
    "adjacent ifs on one predicate",
    "counted loops",
};
_Static_assert(sizeof(shape_names) / sizeof(shape_names[0]) ==
                   sizeof(pass_shapes) / sizeof(unsigned),
               "a name per field");

/* Every shape appears in a good share of the kernels, so that each pass fires on many of the
 * differential harness's kernels (which are larger: more shapes each). */
Test(gen, the_shapes_the_passes_rewrite_appear) {
  pass_shapes total = {0}, kernels = {0};
  enum { FIELDS = sizeof(pass_shapes) / sizeof(unsigned) };
  for (uint64_t seed = 0; seed < SEEDS; seed++) {
    wave_gen_options o = options_for(seed);
    wave_gen_launch launch;
    wave_module *m = generate(&o, &launch);
    pass_shapes s = count_pass_shapes(m);
    const unsigned *x = (const unsigned *)&s;
    for (size_t i = 0; i < FIELDS; i++) {
      ((unsigned *)&total)[i] += x[i];
      ((unsigned *)&kernels)[i] += x[i] > 0;
    }
    wave_module_destroy(m);
  }
  const unsigned *n = (const unsigned *)&total, *k = (const unsigned *)&kernels;
  for (size_t i = 0; i < FIELDS; i++) {
    cr_log_info("%-48s %4u in %u kernels (%.2f a kernel)", shape_names[i], n[i], k[i],
                (double)n[i] / SEEDS);
    cr_expect_geq(k[i], SEEDS / 10, "%s: in %u kernels only", shape_names[i], k[i]);
  }
}

/* ---- the kernels are valid, terminate, and store their registers ----------------------------- */

static void random_memory(uint8_t *mem, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    mem[i] = (uint8_t)(seed >> 56);
  }
}

/* Runs a generated kernel; returns the machine after checking that it ran cleanly and that
 * every thread finished and wrote its slot. */
static wave_machine *run_checked(const wave_module *m, const wave_gen_launch *l, uint32_t w,
                                 wave_exec_mode mode, uint64_t seed) {
  uint8_t *mem = malloc(l->device_memory_size);
  cr_assert_not_null(mem);
  random_memory(mem, l->device_memory_size, seed);
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  for (unsigned i = 0; i < l->num_args; i++) {
    presets[i].reg = l->args[i].reg;
    presets[i].value = l->args[i].base + ((uint32_t)(seed * 2654435761u + i) &
                                          l->args[i].random_mask);
  }
  wave_launch_config cfg;
  wave_launch_config_init(&cfg);
  memcpy(cfg.grid, l->grid, sizeof(cfg.grid));
  cfg.wave_width = w;
  cfg.mode = mode;
  cfg.device_memory_size = l->device_memory_size;
  cfg.memory_init = mem;
  cfg.memory_init_size = l->device_memory_size;
  cfg.presets = presets;
  cfg.num_presets = l->num_args;
  wave_machine *mach = wave_simulate(wave_module_find_kernel(m, NULL), &cfg, NULL);
  free(mem);
  cr_assert_not_null(mach);
  const wave_run_error *err = wave_machine_error(mach);
  cr_assert_eq(wave_machine_status(mach), WAVE_RUN_OK, "seed %llu W=%u: %s",
               (unsigned long long)seed, w, err && err->message ? err->message : "?");

  uint32_t threads = l->workgroup[0] * l->workgroup[1] * l->workgroup[2];
  for (uint32_t g = 0; g < wave_machine_num_workgroups(mach); g++)
    for (uint32_t t = 0; t < threads; t++)
      cr_assert_eq(wave_machine_lane_state(mach, g, t), WAVE_LANE_FINISHED,
                   "seed %llu W=%u: workgroup %u thread %u", (unsigned long long)seed, w, g, t);
  /* r1 (never written) and r5 (the slot address) prove that every slot was dumped. */
  size_t size;
  const uint8_t *dev = wave_machine_device_memory(mach, &size);
  for (uint32_t t = 0; t < threads * l->grid[0]; t++) {
    uint32_t slot = l->output_base + t * l->output_slot_bytes, r1, r5;
    memcpy(&r1, dev + slot + l->dump_offset + 4, 4);
    memcpy(&r5, dev + slot + l->dump_offset + 20, 4);
    cr_assert_eq(r1, l->output_base, "seed %llu W=%u thread %u: r1 not dumped",
                 (unsigned long long)seed, w, t);
    cr_assert_eq(r5, slot, "seed %llu W=%u thread %u: r5 not dumped", (unsigned long long)seed,
                 w, t);
  }
  return mach;
}

Test(gen, kernels_verify_and_terminate_at_every_width) {
  static const uint32_t widths[] = {8, 32, 64};
  for (uint64_t seed = 0; seed < SEEDS; seed++) {
    wave_gen_options o = options_for(seed);
    o.docs_dialect = seed % 4 == 3;
    wave_gen_launch l;
    wave_module *m = generate(&o, &l);
    wave_diags diags;
    wave_diags_init(&diags);
    bool ok = wave_verify_module(m, &diags);
    cr_assert(ok && diags.num_errors == 0, "seed %llu: %s", (unsigned long long)seed,
              diags.count ? diags.items[0].message : "");
    wave_diags_free(&diags);
    for (unsigned i = 0; i < 3; i++)
      wave_machine_destroy(run_checked(m, &l, widths[i], WAVE_MODE_SIMT, seed));
    wave_module_destroy(m);
  }
}

/* Without wave operations nothing may depend on the wave width. */
Test(gen, kernels_without_wave_ops_do_not_depend_on_the_width) {
  for (uint64_t seed = 0; seed < 60; seed++) {
    wave_gen_options o = options_for(seed);
    o.wave_ops = false;
    wave_gen_launch l;
    wave_module *m = generate(&o, &l);
    wave_machine *a = run_checked(m, &l, 8, WAVE_MODE_SIMT, seed);
    wave_machine *b = run_checked(m, &l, 64, WAVE_MODE_SIMT, seed);
    size_t na, nb;
    const uint8_t *ma = wave_machine_device_memory(a, &na);
    const uint8_t *mb = wave_machine_device_memory(b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(ma, mb, na), 0, "seed %llu", (unsigned long long)seed);
    wave_machine_destroy(a);
    wave_machine_destroy(b);
    wave_module_destroy(m);
  }
}

/* ---- the harness ----------------------------------------------------------------------------- */

typedef struct harness_case {
  char *text;
  size_t len;
  wave_difftest test;
  wave_gen_options opt;
} harness_case;

static harness_case make_case(uint64_t seed, bool docs, wave_transform_fn fn) {
  harness_case c;
  c.opt = options_for(seed);
  c.opt.docs_dialect = docs;
  wave_gen_launch l;
  c.text = generate_text(&c.opt, &l, &c.len);
  wave_difftest_init(&c.test, &l);
  c.test.transform = fn;
  c.test.input_seed = seed;
  return c;
}

Test(harness, identity_and_lowering_pass) {
  for (uint64_t seed = 0; seed < 20; seed++) {
    for (int docs = 0; docs < 2; docs++) {
      harness_case c =
          make_case(seed, docs, docs ? wave_transform_lower_docs : wave_transform_identity);
      wave_diff_report r;
      cr_assert_eq(wave_difftest_run(&c.test, c.text, c.len, &r), WAVE_DIFF_PASS,
                   "seed %llu: %s", (unsigned long long)seed, r.message);
      cr_assert_eq(r.message[0], '\0');
      free(c.text);
    }
  }
}

Test(harness, simt_and_per_thread_agree) {
  for (uint64_t seed = 0; seed < 20; seed++) {
    harness_case c = make_case(seed, false, NULL);
    free(c.text);
    c.opt.wave_ops = false;
    c.opt.atomic_returns = false;
    wave_gen_launch l;
    c.text = generate_text(&c.opt, &l, &c.len);
    wave_difftest_init(&c.test, &l);
    c.test.transformed_mode = WAVE_MODE_THREAD;
    wave_diff_report r;
    cr_assert_eq(wave_difftest_run(&c.test, c.text, c.len, &r), WAVE_DIFF_PASS,
                 "seed %llu: %s", (unsigned long long)seed, r.message);
    free(c.text);
  }
}

/* ---- deliberately wrong transformations ------------------------------------------------------ */

/* The last instruction of the kernel with opcode `op`, or NULL. */
static wave_instr *last_instr(wave_module *m, bool (*match)(const wave_instr *)) {
  wave_instr *found = NULL;
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(wave_module_first_kernel(m))));
  while (wave_walk_next(&w))
    if (w.event == WAVE_WALK_BLOCK)
      for (wave_instr *in = wave_block_first(w.node); in; in = wave_instr_next(in))
        if (match(in))
          found = in;
  return found;
}

static bool is_store(const wave_instr *in) {
  return wave_opcode_get(wave_instr_op(in))->category == WAVE_CAT_STORE;
}
/* r13 and up hold values in generated kernels (gen.c); the others are pointers and counters. */
static bool is_iadd_of_values(const wave_instr *in) {
  return wave_instr_op(in) == WAVE_OP_IADD && wave_instr_operand(in, 0).value >= 13;
}
static bool is_final_halt(const wave_instr *in) {
  return wave_instr_op(in) == WAVE_OP_HALT && wave_instr_guard(in) == WAVE_NO_GUARD &&
         !wave_node_list_parent(wave_node_list_of(wave_instr_node(in)));
}

/* Removes the last instruction that `match` picks, if any: a wrong transformation. */
static bool remove_last(wave_module *m, bool (*match)(const wave_instr *)) {
  wave_instr *in = last_instr(m, match);
  if (in)
    wave_instr_remove(in);
  return true;
}

static bool drop_last_store(wave_module *m, void *ctx, wave_diags *d) {
  return remove_last(m, is_store);
}

static bool flip_last_iadd(wave_module *m, void *ctx, wave_diags *d) {
  wave_instr *in = last_instr(m, is_iadd_of_values);
  if (in)
    wave_instr_set_op(in, WAVE_OP_ISUB);
  return true;
}

static bool drop_final_halt(wave_module *m, void *ctx, wave_diags *d) {
  return remove_last(m, is_final_halt);
}

static bool refuse(wave_module *m, void *ctx, wave_diags *d) {
  wave_loc loc = {0};
  wave_diag_report(d, WAVE_SEV_ERROR, NULL, loc, NULL, 0, "refusing on purpose");
  return false;
}

/* Makes the kernel invalid: the last store reads a register beyond .registers. */
static bool break_verification(wave_module *m, void *ctx, wave_diags *d) {
  wave_instr *in = last_instr(m, is_store);
  wave_instr_set_operand(in, 1, wave_gpr(250));
  return true;
}

/* The first seed whose kernel `fn` visibly breaks. */
static uint64_t first_failing_seed(wave_transform_fn fn) {
  for (uint64_t seed = 0; seed < 100; seed++) {
    harness_case c = make_case(seed, false, fn);
    wave_diff_report r;
    wave_diff_status status = wave_difftest_run(&c.test, c.text, c.len, &r);
    free(c.text);
    if (status == WAVE_DIFF_MISMATCH)
      return seed;
  }
  cr_assert_fail("no seed shows the bug");
  return 0;
}

Test(harness, a_dropped_store_is_found_with_its_address) {
  harness_case c = make_case(first_failing_seed(drop_last_store), false, drop_last_store);
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&c.test, c.text, c.len, &r), WAVE_DIFF_MISMATCH);
  cr_assert_eq(r.width, 8, "the first width tried");
  cr_assert(r.memory_differs);
  cr_assert_neq(r.before, r.after);
  cr_assert_neq(r.word_before, r.word_after);
  /* The last store writes the last predicate of some thread's dump. */
  const wave_gen_launch *l = &c.test.launch;
  uint32_t off = (r.address - l->output_base) % l->output_slot_bytes;
  cr_assert_geq(r.address, l->output_base);
  cr_assert_eq((off - l->dump_offset) / 4, l->num_dumped_registers + 3, "%s", r.message);
  cr_assert_not_null(strstr(r.message, "W=8"), "%s", r.message);
  cr_assert_not_null(strstr(r.message, "p3 at its last halt"), "%s", r.message);
  free(c.text);
}

/* (Where every lane halts early, the final halt is never reached and its loss is invisible:
 * hence the search for a seed.) */
Test(harness, errors_on_one_side_only_are_mismatches) {
  harness_case c = make_case(first_failing_seed(drop_final_halt), false, drop_final_halt);
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&c.test, c.text, c.len, &r), WAVE_DIFF_MISMATCH);
  cr_assert_not_null(strstr(r.message, "transformed kernel fails"), "%s", r.message);
  free(c.text);
}

Test(harness, failing_and_invalid_transformations_are_reported) {
  harness_case c = make_case(5, false, refuse);
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&c.test, c.text, c.len, &r), WAVE_DIFF_BAD_TRANSFORM);
  cr_assert_not_null(strstr(r.message, "refusing on purpose"), "%s", r.message);
  c.test.transform = break_verification;
  cr_assert_eq(wave_difftest_run(&c.test, c.text, c.len, &r), WAVE_DIFF_BAD_TRANSFORM);
  cr_assert_not_null(strstr(r.message, "does not verify"), "%s", r.message);
  free(c.text);
}

Test(harness, a_broken_original_is_not_blamed_on_the_transformation) {
  static const char text[] = ".kernel k\n"
                             "    mov_imm r1, 0\n"
                             "    idiv r2, r2, r1\n"
                             "    halt\n"
                             ".end\n";
  wave_gen_launch l = {0};
  l.grid[0] = l.workgroup[0] = 1;
  l.workgroup[1] = l.workgroup[2] = l.grid[1] = l.grid[2] = 1;
  l.device_memory_size = 64;
  wave_difftest t;
  wave_difftest_init(&t, &l);
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&t, text, sizeof(text) - 1, &r), WAVE_DIFF_BAD_ORIGINAL);
  cr_assert_not_null(strstr(r.message, "original fails"), "%s", r.message);
  cr_assert_eq(wave_difftest_run(&t, "garbage", 7, &r), WAVE_DIFF_BAD_ORIGINAL);
}

/* ---- the reducer ----------------------------------------------------------------------------- */

static unsigned count_items(const char *text, size_t len, features *f) {
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *m = wave_parse_string(text, len, "<reduced>", &diags);
  cr_assert_not_null(m, "%s", text);
  cr_assert(wave_verify_module(m, &diags), "%s", text);
  wave_diags_free(&diags);
  *f = count_features(m);
  wave_module_destroy(m);
  return f->instrs + f->ifs + f->loops;
}

static void check_reduction(uint64_t seed, wave_transform_fn fn, unsigned max_items) {
  harness_case c = make_case(seed, false, fn);
  wave_reduce_stats stats;
  char *reduced = wave_reduce(&c.test, c.text, c.len, &stats);
  cr_assert_not_null(reduced);
  features f;
  unsigned items = count_items(reduced, strlen(reduced), &f);
  cr_assert_eq(items, stats.items_after);
  cr_assert_leq(items, max_items, "%u items left:\n%s", items, reduced);
  cr_assert_lt(stats.items_after * 5, stats.items_before);
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&c.test, reduced, strlen(reduced), &r), WAVE_DIFF_MISMATCH,
               "the reduced kernel must still show the mismatch:\n%s", reduced);
  /* And it still runs cleanly untransformed. */
  c.test.transform = NULL;
  cr_assert_eq(wave_difftest_run(&c.test, reduced, strlen(reduced), &r), WAVE_DIFF_PASS, "%s",
               r.message);
  free(reduced);
  free(c.text);
}

Test(reduce, a_dropped_store_reduces_to_a_few_instructions, .timeout = 60) {
  check_reduction(first_failing_seed(drop_last_store), drop_last_store, 12);
}

Test(reduce, a_flipped_add_reduces_to_a_few_instructions, .timeout = 60) {
  check_reduction(first_failing_seed(flip_last_iadd), flip_last_iadd, 16);
}

Test(reduce, a_kernel_that_passes_is_not_reduced) {
  harness_case c = make_case(2, false, NULL);
  cr_assert_null(wave_reduce(&c.test, c.text, c.len, NULL));
  free(c.text);
}

Test(reduce, writes_the_file_and_names_it, .timeout = 60) {
  harness_case c = make_case(first_failing_seed(drop_last_store), false, drop_last_store);
  char path[] = "/tmp/test_gen_reduced_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  FILE *log = tmpfile();
  cr_assert(wave_reduce_to_file(&c.test, c.text, c.len, "; header\n", path, log));
  rewind(log);
  char line[512] = {0};
  cr_assert_not_null(fgets(line, sizeof(line), log));
  cr_assert_not_null(strstr(line, path), "%s", line);
  fclose(log);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  cr_assert_not_null(fgets(line, sizeof(line), f));
  cr_assert_str_eq(line, "; header\n");
  fclose(f);
  unlink(path);
  free(c.text);
}

/* ---- toolchain hazards the harness refuses --------------------------------------------------- */

/* A wave of lanes t % 4 == 3 halting inside an if p0 that every lane takes, then a ballot of
 * the survivors, stored at 4t: on portable legalize must leave the halt where it is. */
static const char halt_ballot[] = ".kernel halt_ballot\n.registers 10\n.workgroup_size 32, 1, 1\n"
                                  "    mov_sr r1, sr_thread_id_x\n    mov_imm r4, 3\n"
                                  "    and r5, r1, r4\n    mov_imm r2, 2\n    shl r3, r1, r2\n"
                                  "    icmp_eq p0, r4, r4\n    if p0\n"
                                  "        icmp_eq p2, r5, r4\n        @p2 halt\n"
                                  "        icmp_eq p3, r4, r4\n        wave_ballot r6, p3\n"
                                  "        bitcount r7, r6\n        device_store_u32 r3, r7\n"
                                  "    endif\n    halt\n.end\n";

static wave_difftest hand_written_case(wave_transform_fn fn, void *ctx) {
  wave_gen_launch l = {{1, 1, 1}, {32, 1, 1}, 128, 0, 4, 0, 0, 0, 0, {{0}}};
  wave_difftest t;
  wave_difftest_init(&t, &l);
  t.transform = fn;
  t.transform_ctx = ctx;
  return t;
}

/* legalize for the emulator, whose wave operations reduce over the active lanes: it rewrites
 * the halt into a flag, parking the halted lanes before the ballot. */
static bool legalize_for_the_emulator(wave_module *m, void *ctx, wave_diags *d) {
  wave_pass_registry *registry = wave_pass_registry_create();
  wave_pipeline *p = registry ? wave_pipeline_parse(registry, "legalize", d) : NULL;
  wave_pipeline_options o = {0};
  o.target = wave_target_lookup("wave-emu");
  wave_pipeline_result r = {0};
  bool ok = p && wave_pipeline_run(p, m, &o, &r, d);
  wave_pipeline_result_free(&r);
  wave_pipeline_destroy(p);
  wave_pass_registry_destroy(registry);
  return ok;
}

/* The kernel passes under `t` held to the target `fine_on`, and fails on portable with a hazard
 * whose message holds `message`. */
static void check_hazard(wave_difftest *t, const char *kernel, const char *fine_on,
                         const char *message) {
  wave_diff_report r;
  t->hazard_target = wave_target_lookup(fine_on);
  cr_assert_eq(wave_difftest_run(t, kernel, strlen(kernel), &r), WAVE_DIFF_PASS, "%s: %s",
               fine_on, r.message);
  t->hazard_target = wave_target_default();
  cr_assert_eq(wave_difftest_run(t, kernel, strlen(kernel), &r), WAVE_DIFF_HAZARD, "%s",
               r.message);
  cr_assert_not_null(strstr(r.message, message), "%s", r.message);
}

/* Unchecked, the rewrite keeps the memory; the emulator runs it right. */
Test(harness, a_wave_operation_left_where_lanes_are_parked_is_a_hazard) {
  wave_difftest t = hand_written_case(legalize_for_the_emulator, NULL);
  wave_diff_report r;
  cr_assert_eq(wave_difftest_run(&t, halt_ballot, strlen(halt_ballot), &r), WAVE_DIFF_PASS, "%s",
               r.message);
  check_hazard(&t, halt_ballot, "wave-emu",
               "W=8: wave operations issued with lanes parked: 4 in the transformed kernel, "
               "none in the original");
}

/* A loop whose lanes all leave after three iterations; p3 is false everywhere. */
static const char counted_loop[] = ".kernel counted\n.registers 8\n.workgroup_size 8, 1, 1\n"
                                   "    mov_imm r1, 0\n    mov_imm r2, 3\n    mov_imm r3, 1\n"
                                   "    icmp_ne p3, r1, r1\n    loop\n"
                                   "        icmp_ge p1, r1, r2\n        break p1\n"
                                   "        iadd r1, r1, r3\n    endloop\n    halt\n.end\n";

static bool is_iadd(const wave_instr *in) { return wave_instr_op(in) == WAVE_OP_IADD; }

/* `continue p3` before the iadd, at its line: no lane takes it, nothing changes at run time. */
static bool add_dead_continue(wave_module *m, void *ctx, wave_diags *d) {
  wave_instr *iadd = last_instr(m, is_iadd);
  wave_builder b = wave_builder_at(m, wave_cursor_before_instr(iadd), wave_instr_loc(iadd));
  return wave_build(&b, WAVE_OP_CONTINUE, wave_pred(3)) != NULL;
}

/* wave-ptx runs a continue right. */
Test(harness, a_construct_the_target_runs_wrongly_is_a_hazard_though_no_lane_takes_it) {
  wave_difftest t = hand_written_case(add_dead_continue, NULL);
  check_hazard(&t, counted_loop, "wave-ptx",
               "runs wrongly on portable where the original did not: 'continue' at line 11");
}

/* The ballot's if is on t < 1000: the analysis cannot tell that every lane takes it, so the
 * original is flagged there already, but no lane is ever parked. Narrowing it to t < 4 parks
 * lanes at run time while the static findings stay the same, and so does memory (the ballot's
 * result is not stored). */
static const char narrowed_if[] = ".kernel narrowed\n.registers 10\n.workgroup_size 32, 1, 1\n"
                                  "    mov_sr r1, sr_thread_id_x\n    mov_imm r4, 1000\n"
                                  "    icmp_lt p1, r1, r4\n    if p1\n"
                                  "        wave_ballot r6, p1\n"
                                  "    endif\n    halt\n.end\n";

static bool is_mov_1000(const wave_instr *in) {
  return wave_instr_op(in) == WAVE_OP_MOV_IMM && wave_instr_operand(in, 1).value == 1000;
}

static bool narrow_to_4(wave_module *m, void *ctx, wave_diags *d) {
  wave_instr_set_operand(last_instr(m, is_mov_1000), 1, wave_imm(4));
  return true;
}

/* The emulator reduces over the active lanes. */
Test(harness, a_wave_operation_issued_with_lanes_parked_is_a_hazard) {
  wave_difftest t = hand_written_case(narrow_to_4, NULL);
  check_hazard(&t, narrowed_if, "wave-emu",
               "W=8: wave operations issued with lanes parked: 1 in the transformed kernel, "
               "none in the original (undefined on portable)");
}
