/* SPDX-License-Identifier: Apache-2.0 */
/* The passes' shared rewriting helpers (libwaveopt/xform): every condition wave_cond_emit can
 * be asked for, built on each target and run in the interpreter over all sixteen combinations
 * of p0..p3 (lane t holds bit i of t in pi), against the truth table computed here; compares
 * inverted exactly, NaN included; scratch registers that avoid what is taken and grow
 * .registers only within the limit; -shrink-registers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_util.h"
#include "test_util.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "xform/xform.h"

/* p0..p3 from the lane's bits, then a nop where the code under test goes, then the result
 * stored as a word per lane and per predicate at 4 * (16 * p + lane). */
static const char cond_kernel[] =
    ".kernel cond\n.registers 8\n"
    "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 1\n    mov_imm  r4, 0\n"
    "    and      r3, r1, r2\n    icmp_ne  p0, r3, r4\n    shr      r1, r1, r2\n"
    "    and      r3, r1, r2\n    icmp_ne  p1, r3, r4\n    shr      r1, r1, r2\n"
    "    and      r3, r1, r2\n    icmp_ne  p2, r3, r4\n    shr      r1, r1, r2\n"
    "    and      r3, r1, r2\n    icmp_ne  p3, r3, r4\n"
    "    nop\n"
    "    mov_sr   r1, sr_lane_id\n    mov_imm  r5, 2\n    shl      r1, r1, r5\n"
    "    mov_imm  r6, 64\n"
    "    select   r7, p0, r2, r4\n    device_store_u32 r1, r7\n    iadd     r1, r1, r6\n"
    "    select   r7, p1, r2, r4\n    device_store_u32 r1, r7\n    iadd     r1, r1, r6\n"
    "    select   r7, p2, r2, r4\n    device_store_u32 r1, r7\n    iadd     r1, r1, r6\n"
    "    select   r7, p3, r2, r4\n    device_store_u32 r1, r7\n"
    "    halt\n.end\n";

static wave_instr *find_nop(wave_kernel *k) {
  wave_foreach_block(b, k) {
    wave_foreach_instr(i, b) {
      if (i->op == WAVE_OP_NOP)
        return i;
    }
  }
  cr_assert_fail("no nop");
  return NULL;
}

static bool lane_bit(unsigned lane, uint32_t pred) { return (lane >> pred) & 1; }

static bool truth(unsigned lane, wave_cond c) { return lane_bit(lane, c.pred) != c.negated; }

/* The condition kernel parsed, r0..r(taken - 1) taken, .registers allowed to grow to limit,
 * and a builder at the nop. */
typedef struct bench {
  wave_module *m;
  wave_kernel *k;
  wave_instr *nop;
  wave_scratch s;
  wave_builder b;
} bench;

static void bench_init(bench *x, unsigned taken_gprs, uint32_t limit) {
  x->m = tu_parse_ok(cond_kernel, "cond.wave", true);
  x->k = wave_module_first_kernel(x->m);
  x->nop = find_nop(x->k);
  wave_regset taken = wave_regset_empty();
  for (unsigned r = 0; r < taken_gprs; r++)
    wave_regset_set(&taken, WAVE_REG_GPR(r));
  wave_scratch_init(&x->s, x->k, taken, limit);
  x->b = wave_builder_at(x->m, wave_cursor_before_instr(x->nop), wave_instr_loc(x->nop));
}

/* Builds dst = a OP c (copy when op is NULL) and checks every lane's p0..p3. Returns how many
 * instructions were emitted. */
static int check_cond(const wave_target *t, uint32_t dst, wave_cond a, const wave_cond_op *op,
                      wave_cond c) {
  bench x;
  bench_init(&x, 8, 16);
  wave_module *m = x.m;
  wave_kernel *k = x.k;
  wave_instr *nop = x.nop;
  wave_scratch s = x.s;
  wave_builder b = x.b;
  unsigned need = op ? wave_cond_gprs_needed(t, dst, a, *op, c) : 0;
  bool ok = op ? wave_cond_emit(&b, t, &s, dst, a, *op, c) : wave_cond_emit_copy(&b, t, &s, dst, a);
  cr_assert(ok, "%s: refused", t->name);
  int emitted = 0;
  for (wave_instr *i = wave_block_first(wave_instr_node(nop)); i != nop; i = wave_instr_next(i))
    emitted += wave_instr_loc(i).line == wave_instr_loc(nop).line;
  if (op)
    cr_assert_eq(need == 0, wave_kernel_registers(k) == 8,
                 "%s: needed %u scratch GPRs, .registers %u", t->name, need,
                 wave_kernel_registers(k));
  wave_diags diags;
  wave_diags_init(&diags);
  cr_assert(wave_verify_module(m, &diags), "%s: the emitted code does not verify", t->name);
  wave_diags_free(&diags);
  char *text = wave_print_to_string(m, NULL, NULL);
  cr_assert_not_null(text);
  wave_launch_config config = iu_wave_config(16, 16);
  iu_result *r = iu_ok_or_fail(iu_run(text, &config));
  for (unsigned lane = 0; lane < 16; lane++)
    for (uint32_t p = 0; p < WAVE_NUM_PREDS; p++) {
      bool want = lane_bit(lane, p);
      if (p == dst)
        want = !op ? truth(lane, a)
               : *op == WAVE_COND_AND ? truth(lane, a) && truth(lane, c)
                                      : truth(lane, a) || truth(lane, c);
      cr_assert_eq(iu_u32(r, 4 * (16 * p + lane)), want,
                   "%s: p%u = %s%sp%u %s %sp%u, lane %u: p%u is %u\n%s", t->name, dst,
                   op ? "" : "copy ", a.negated ? "!" : "", a.pred,
                   !op ? "" : *op == WAVE_COND_AND ? "and" : "or", c.negated ? "!" : "", c.pred,
                   lane, p, iu_u32(r, 4 * (16 * p + lane)), text);
    }
  iu_free(r);
  free(text);
  wave_module_destroy(m);
  return emitted;
}

static const char *const target_names[] = {"portable", "wave-emu", "spec"};

Test(xform, every_combination_on_every_target, .timeout = 120) {
  static const wave_cond_op ops[] = {WAVE_COND_AND, WAVE_COND_OR};
  unsigned guarded = 0, selects = 0;
  for (size_t ti = 0; ti < 3; ti++) {
    const wave_target *t = wave_target_lookup(target_names[ti]);
    cr_assert_not_null(t);
    for (uint32_t dst = 0; dst < 4; dst++)
      for (unsigned bits = 0; bits < 64; bits++) {
        wave_cond a = wave_cond_of(bits & 3, bits & 4),
                  c = wave_cond_of((bits >> 3) & 3, bits & 32);
        for (size_t o = 0; o < 2; o++) {
          int n = check_cond(t, dst, a, &ops[o], c);
          if (wave_cond_gprs_needed(t, dst, a, ops[o], c)) {
            selects++;
          } else {
            guarded++;
            cr_assert_leq(n, 3, "a guarded form takes at most 3 compares");
          }
        }
        if (bits < 8)
          check_cond(t, dst, a, NULL, a);
      }
  }
  cr_log_info("%u guarded forms, %u select idioms", guarded, selects);
  cr_assert_gt(guarded, 0);
  cr_assert_gt(selects, 0);
}

/* A guard on p0 is never positive on any target, and @!p0 only where the target says. */
Test(xform, no_p0_guard_is_emitted) {
  const wave_target *portable = wave_target_lookup("portable"),
                    *emu = wave_target_lookup("wave-emu");
  wave_cond p0 = wave_cond_of(0, false), p2 = wave_cond_of(2, false);
  cr_assert_eq(wave_cond_gprs_needed(portable, 2, p0, WAVE_COND_OR, p2), 3);
  cr_assert_eq(wave_cond_gprs_needed(portable, 2, p0, WAVE_COND_AND, p2), 3);
  cr_assert_eq(wave_cond_gprs_needed(emu, 2, p0, WAVE_COND_AND, p2), 0, "@!p0 on the emulator");
  cr_assert_eq(wave_cond_gprs_needed(emu, 2, p0, WAVE_COND_OR, p2), 3);
  cr_assert_eq(wave_cond_gprs_needed(portable, 1, wave_cond_of(1, true), WAVE_COND_AND,
                                     wave_cond_of(1, true)), 3, "negating p1 in place");
}

/* With no scratch GPR left the select idiom refuses and emits nothing. */
Test(xform, refuses_without_scratch) {
  bench x;
  bench_init(&x, 7, 8);
  wave_module *m = x.m;
  wave_kernel *k = x.k;
  wave_instr *nop = x.nop;
  wave_scratch s = x.s;
  wave_builder b = x.b;
  cr_assert_eq(wave_scratch_gprs_left(&s), 1);
  cr_assert_not(wave_cond_emit(&b, wave_target_default(), &s, 2, wave_cond_of(0, false),
                               WAVE_COND_AND, wave_cond_of(1, false)));
  cr_assert_eq(nop->prev->op, WAVE_OP_ICMP_NE, "something was emitted");
  cr_assert_eq(wave_kernel_registers(k), 8);
  wave_module_destroy(m);
}

Test(xform, scratch_registers) {
  wave_module *m = tu_parse_ok(".kernel k\n.registers 4\n    halt\n.end\n", "k.wave", true);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_regset taken = wave_regset_empty();
  wave_regset_set(&taken, WAVE_REG_GPR(0));
  wave_regset_set(&taken, WAVE_REG_GPR(2));
  wave_regset_set(&taken, WAVE_REG_PRED(1));
  wave_scratch s;
  wave_scratch_init(&s, k, taken, 6);
  uint32_t r, p;
  cr_assert(wave_scratch_gpr(&s, &r) && r == 1);
  cr_assert(wave_scratch_gpr(&s, &r) && r == 3);
  cr_assert_eq(wave_kernel_registers(k), 4);
  cr_assert(wave_scratch_gpr(&s, &r) && r == 4);
  cr_assert_eq(wave_kernel_registers(k), 5, ".registers grows to hold r4");
  cr_assert(wave_scratch_gpr(&s, &r) && r == 5);
  cr_assert_not(wave_scratch_gpr(&s, &r), "past the limit");
  cr_assert_eq(wave_kernel_registers(k), 6);
  cr_assert(wave_scratch_pred(&s, &p) && p == 2, "p1 is taken; p2 comes before p0");
  cr_assert(wave_scratch_pred(&s, &p) && p == 3);
  cr_assert(wave_scratch_pred(&s, &p) && p == 0);
  cr_assert_not(wave_scratch_pred(&s, &p));
  wave_scratch_init(&s, k, wave_regset_empty(), 2);
  cr_assert_eq(s.limit, 6, "a limit below .registers means no growth");
  wave_module_destroy(m);
}

/* Each compare and its inverse on values around zero, extremes and NaN: exactly one of the two
 * holds in every lane. lane t compares x = table[t % 8] with y = table[t / 8]. */
static const uint32_t values[8] = {0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x3F800000,
                                   0x7FC00000, 0xBF800000};

Test(xform, compares_invert_exactly) {
  static const char *const ops[] = {"icmp_eq", "icmp_ne", "icmp_lt", "icmp_le", "icmp_gt",
                                    "icmp_ge", "ucmp_lt", "ucmp_le", "fcmp_eq", "fcmp_ne",
                                    "fcmp_ord", "fcmp_unord"};
  for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
    char text[2048];
    snprintf(text, sizeof(text),
             ".kernel inv\n.registers 12\n"
             "    mov_sr   r1, sr_lane_id\n    mov_imm  r2, 7\n    and      r3, r1, r2\n"
             "    mov_imm  r4, 3\n    shr      r5, r1, r4\n    mov_imm  r6, 2\n"
             "    shl      r3, r3, r6\n    shl      r5, r5, r6\n"
             "    device_load_u32 r3, r3\n    device_load_u32 r5, r5\n"
             "    %s p1, r3, r5\n    %s p2, r3, r5\n"
             "    mov_imm  r7, 1\n    mov_imm  r8, 0\n    select   r9, p1, r7, r8\n"
             "    select   r10, p2, r7, r8\n    shl      r1, r1, r6\n    mov_imm  r11, 64\n"
             "    iadd     r1, r1, r11\n    iadd     r9, r9, r10\n    device_store_u32 r1, r9\n"
             "    halt\n.end\n",
             ops[o], ops[o]);
    wave_module *m = tu_parse_ok(text, "inv.wave", true);
    wave_instr *second = NULL;
    wave_foreach_block(b, wave_module_first_kernel(m)) {
      wave_foreach_instr(i, b) {
        if (wave_instr_loc(i).line == 14)
          second = i;
      }
    }
    cr_assert(second &&
              wave_opcode_get(second->op)->category == wave_opcode_get(WAVE_OP_ICMP_EQ)->category);
    cr_assert(wave_compare_invertible(second->op), "%s has an exact inverse", ops[o]);
    cr_assert(wave_compare_invert(second), "%s has an exact inverse", ops[o]);
    char *printed = wave_print_to_string(m, NULL, NULL);
    cr_assert_not_null(printed);
    wave_launch_config config = iu_wave_config(64, 64);
    config.memory_init = values;
    config.memory_init_size = sizeof(values);
    iu_result *r = iu_ok_or_fail(iu_run(printed, &config));
    for (unsigned lane = 0; lane < 64; lane++)
      cr_assert_eq(iu_u32(r, 64 + 4 * lane), 1, "%s and its inverse on %#x, %#x: %u hold",
                   ops[o], values[lane % 8], values[lane / 8], iu_u32(r, 64 + 4 * lane));
    iu_free(r);
    free(printed);
    wave_module_destroy(m);
  }
}

/* fcmp_lt, fcmp_le and fcmp_gt are false on NaN, and so would be any compare offered as their
 * inverse: none is given, and none is promised. */
Test(xform, ordered_float_compares_have_no_inverse) {
  wave_module *m = tu_parse_ok(".kernel k\n    fcmp_lt p1, r1, r2\n    fcmp_le p1, r1, r2\n"
                               "    fcmp_gt p1, r1, r2\n    halt\n.end\n", "k.wave", true);
  wave_foreach_block(b, wave_module_first_kernel(m)) {
    wave_foreach_instr(i, b) {
      uint16_t op = i->op;
      if (op == WAVE_OP_HALT)
        continue;
      cr_assert_not(wave_compare_invertible(op));
      cr_assert_not(wave_compare_invert(i) || i->op != op);
    }
  }
  wave_module_destroy(m);
}

Test(xform, shrink_registers) {
  wave_module *m = tu_parse_ok(".kernel k\n.registers 40\n    mov_imm r3, 1\n"
                               "    device_store_u64 r3, r6\n    halt\n.end\n", "k.wave", true);
  cr_assert(wave_kernel_shrink_registers(wave_module_first_kernel(m)));
  cr_assert_eq(wave_kernel_registers(wave_module_first_kernel(m)), 8, "r6 and its pair half r7");
  cr_assert_not(wave_kernel_shrink_registers(wave_module_first_kernel(m)));
  wave_module_destroy(m);
}

/* wave_xform_may_write: the definitions, every register for a call. */
Test(xform, may_write) {
  wave_module *m = tu_parse_ok(".kernel k\n.registers 8\n    @p2 iadd r1, r2, r3\n"
                               "    dadd r4, r6, r6\n    call sub\n    halt\n"
                               "sub:\n    return\n.end\n",
                               "k.wave", false);
  wave_instr *in[3];
  unsigned n = 0;
  wave_foreach_block(b, wave_module_first_kernel(m)) {
    wave_foreach_instr(i, b) {
      if (n < 3)
        in[n++] = i;
    }
  }
  cr_assert_eq(n, 3);
  wave_regset all = wave_regset_empty();
  wave_regset_set_range(&all, 0, WAVE_NUM_REGS);
  for (unsigned k = 0; k < 3; k++) {
    wave_regset defs;
    wave_instr_defs(in[k], &defs);
    cr_assert(wave_regset_equal(wave_xform_may_write(in[k]), k == 2 ? all : defs),
              "instruction %u", k);
  }
  wave_regset r1 = wave_regset_empty();
  wave_regset_set(&r1, WAVE_REG_GPR(1));
  cr_assert(wave_regset_equal(wave_xform_may_write(in[0]), r1), "a guarded write writes r1");
  wave_module_destroy(m);
}

/* The worklists come from the analysis manager's index: ifs in the order of their if lines or
 * of their endif lines, loops in the order of their endloop lines, over every region; the same
 * array until the kernel is invalidated, a new one after. */
Test(xform, worklists_in_both_orders_shared_until_the_kernel_changes) {
  wave_module *m = tu_parse_ok(".kernel k\n.registers 8\n    mov_imm r1, 1\n"
                               "    if p1\n        loop\n            if p2\n"
                               "                break p2\n            endif\n"
                               "            loop\n                break p1\n            endloop\n"
                               "        endloop\n    else\n        if p3\n"
                               "            mov_imm r2, 2\n        endif\n    endif\n"
                               "    call sub\n    halt\nsub:\n    if p2\n        return\n"
                               "    endif\n    return\n.end\n",
                               "worklist.wave", false);
  wave_kernel *k = wave_module_first_kernel(m);
  wave_node *outer = wave_node_list_first(wave_region_body(wave_kernel_first_region(k)))->next;
  wave_node *loop = wave_node_list_first(&outer->u.if_.then_body);
  wave_node *in_loop = wave_node_list_first(&loop->u.loop.body), *inner_loop = in_loop->next;
  wave_node *in_else = wave_node_list_first(&outer->u.if_.else_body);
  wave_node *in_sub =
      wave_node_list_first(wave_region_body(wave_region_next(wave_kernel_first_region(k))));
  wave_pass_registry *registry = wave_pass_registry_create();
  wave_diags d;
  wave_diags_init(&d);
  wave_analysis_manager *am = wave_analysis_manager_create(registry, NULL, &d);
  cr_assert_not_null(am);

  size_t n;
  wave_node *const *entered = wave_xform_collect_ifs(am, k, WAVE_OUTER_IFS_FIRST, &n);
  cr_assert_eq(n, 4);
  cr_assert(entered[0] == outer && entered[1] == in_loop && entered[2] == in_else &&
            entered[3] == in_sub);
  wave_node *const *left = wave_xform_collect_ifs(am, k, WAVE_INNER_IFS_FIRST, &n);
  cr_assert_eq(n, 4);
  cr_assert(left[0] == in_loop && left[1] == in_else && left[2] == outer && left[3] == in_sub);
  wave_node *const *loops = wave_xform_collect_loops(am, k, &n);
  cr_assert_eq(n, 2);
  cr_assert(loops[0] == inner_loop && loops[1] == loop);
  cr_assert_eq(wave_xform_collect_ifs(am, k, WAVE_OUTER_IFS_FIRST, &n), entered);

  wave_node_remove(in_sub);
  wave_analysis_invalidate(am, k, WAVE_PRESERVE_ALL);
  wave_node *const *again = wave_xform_collect_ifs(am, k, WAVE_OUTER_IFS_FIRST, &n);
  cr_assert_eq(n, 3);
  cr_assert(again[0] == outer && again[1] == in_loop && again[2] == in_else);

  wave_analysis_manager_destroy(am);
  wave_diags_free(&d);
  wave_pass_registry_destroy(registry);
  wave_module_destroy(m);
}
