/* SPDX-License-Identifier: Apache-2.0 */
/* The shared core: opcode table, builder, walker, register references, diagnostics. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/module.h"
#include "test_util.h"
#include "waveopt/waveopt.h"

/* ---- opcode table ------------------------------------------------------------------------ */

Test(opcodes, real_mnemonics_come_first_and_are_unique) {
  unsigned real = 0;
  for (int op = 0; op < WAVE_OP_COUNT; op++) {
    const wave_opcode_info *info = wave_opcode_get((wave_opcode)op);
    bool pseudo = (info->flags & WAVE_F_PSEUDO) != 0;
    if (!pseudo) {
      cr_assert_eq(op, (int)real, "%s is real but follows a pseudo form", info->mnemonic);
      real++;
      cr_assert(info->size == 4 || info->size == 8, "%s size", info->mnemonic);
      for (int other = 0; other < op; other++)
        cr_assert_str_neq(info->mnemonic, wave_opcode_table[other].mnemonic);
    }
  }
  cr_assert_eq(real, 164);
  cr_assert_eq(real, WAVE_NUM_REAL_OPCODES);
}

Test(opcodes, shapes_are_well_formed) {
  for (int op = 0; op < WAVE_OP_COUNT; op++) {
    const char *shape = wave_opcode_table[op].shape;
    cr_assert_eq(strlen(shape) % 2, 0, "%s", wave_opcode_table[op].mnemonic);
    cr_assert_eq(wave_opcode_num_slots((wave_opcode)op), strlen(shape) / 2, "%s",
                 wave_opcode_table[op].mnemonic);
    cr_assert_leq(wave_opcode_num_slots((wave_opcode)op), WAVE_MAX_OPERANDS);
    for (unsigned s = 0; s < wave_opcode_num_slots((wave_opcode)op); s++) {
      char kind = wave_opcode_slot_kind((wave_opcode)op, s);
      cr_assert_not_null(strchr("duoqpsilcf", kind));
      unsigned w = wave_opcode_slot_width((wave_opcode)op, s);
      cr_assert(w == 1 || w == 2 || w == 4);
      /* wave_instr_def_refs and wave_instr_dest look for writes in the first slot alone. */
      cr_assert(s == 0 || !strchr("doq", kind), "%s writes slot %u",
                wave_opcode_table[op].mnemonic, s);
    }
  }
}

/* docs/language.md "Binary encoding" lists the one-word instructions; every other real mnemonic is
 * two words. */
Test(opcodes, encoding_sizes_follow_the_spec_list) {
  static const char *const four[] = {
      "ineg", "iabs", "fneg", "fabs", "fsqrt", "frsqrt", "frcp", "ffloor", "fceil", "fround",
      "ftrunc", "ffract", "fsat", "fsin", "fcos", "fexp2", "flog2", "not", "bitcount",
      "bitfind", "bitrev", "dsqrt", "wave_ballot", "wave_any", "wave_all", "wave_prefix_sum",
      "wave_reduce_add", "wave_reduce_min", "wave_reduce_max", "if", "else", "endif", "loop",
      "break", "continue", "endloop", "return", "halt", "barrier", "wait", "nop", "mov",
      "mov_sr"};
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++) {
    const char *m = wave_opcode_table[op].mnemonic;
    bool is_four = strncmp(m, "cvt_", 4) == 0 || strncmp(m, "local_load_", 11) == 0 ||
                   strncmp(m, "device_load_", 12) == 0;
    for (size_t i = 0; i < sizeof(four) / sizeof(four[0]); i++)
      is_four = is_four || strcmp(m, four[i]) == 0;
    cr_assert_eq(wave_opcode_table[op].size, is_four ? 4 : 8, "%s", m);
  }
}

Test(opcodes, effect_flags_match_section_5_1) {
  cr_assert(wave_opcode_has(WAVE_OP_IADD, WAVE_F_PURE));
  cr_assert(wave_opcode_has(WAVE_OP_IDIV, WAVE_F_MAY_TRAP));
  cr_assert(wave_opcode_has(WAVE_OP_ICLAMP, WAVE_F_MAY_TRAP));
  cr_assert(wave_opcode_has(WAVE_OP_FCLAMP, WAVE_F_MAY_TRAP));
  cr_assert(wave_opcode_has(WAVE_OP_DEVICE_STORE_U32, WAVE_F_WRITES_MEM));
  cr_assert_not(wave_opcode_has(WAVE_OP_DEVICE_STORE_U32, WAVE_F_GUARD_OK));
  cr_assert(wave_opcode_has(WAVE_OP_ATOMIC_ADD, WAVE_F_RMW));
  cr_assert(wave_opcode_has(WAVE_OP_WAVE_REDUCE_ADD, WAVE_F_CONVERGENT));
  cr_assert(wave_opcode_has(WAVE_OP_BARRIER, WAVE_F_CONVERGENT));
  cr_assert(wave_opcode_has(WAVE_OP_MMA_COMPUTE, WAVE_F_CONVERGENT));
  cr_assert(wave_opcode_has(WAVE_OP_HALT, WAVE_F_EXIT | WAVE_F_GUARD_OK));
  cr_assert(wave_opcode_has(WAVE_OP_BREAK, WAVE_F_STRUCTURED));
  cr_assert(wave_opcode_has(WAVE_OP_CALL, WAVE_F_CALL | WAVE_F_CONVERGENT));
  cr_assert(wave_opcode_has(WAVE_OP_FENCE_ACQUIRE, WAVE_F_ORDERING));
  cr_assert(wave_opcode_has(WAVE_OP_HADD, WAVE_F_ZERO_HI));
  cr_assert_not(wave_opcode_has(WAVE_OP_HADD2, WAVE_F_ZERO_HI));
  for (int op = 0; op < WAVE_OP_COUNT; op++) {
    uint32_t f = wave_opcode_table[op].flags;
    cr_assert(!(f & WAVE_F_PURE) || !(f & (WAVE_F_READS_MEM | WAVE_F_WRITES_MEM |
                                           WAVE_F_CONVERGENT | WAVE_F_CONTROL)),
              "%s is pure and effectful", wave_opcode_table[op].mnemonic);
  }
}

Test(opcodes, lookup_prefers_real_mnemonics) {
  wave_opcode_index index;
  wave_opcode_index_init(&index);
  for (int op = 0; op < WAVE_NUM_REAL_OPCODES; op++) {
    const char *m = wave_opcode_table[op].mnemonic;
    wave_opcode found, slow;
    cr_assert(wave_opcode_index_find(&index, m, strlen(m), &found), "%s", m);
    cr_assert(wave_opcode_lookup(m, strlen(m), &slow));
    cr_assert_eq(found, op);
    cr_assert_eq(slow, op);
  }
  wave_opcode op;
  cr_assert(wave_opcode_index_find(&index, "and", 3, &op));
  cr_assert_eq(op, WAVE_OP_AND);
  cr_assert(wave_opcode_index_find(&index, "ucmp_ge", 7, &op));
  cr_assert_eq(op, WAVE_OP_UCMP_GE);
  cr_assert_not(wave_opcode_index_find(&index, "umin", 4, &op));
  cr_assert_not(wave_opcode_index_find(&index, "iad", 3, &op));
  cr_assert_not(wave_opcode_lookup("iaddx", 5, &op));
  cr_assert(wave_opcode_lookup("iaddx", 4, &op), "length bounds the name");
}

Test(opcodes, docs_immediates_only_in_single_register_alu_reads) {
  cr_assert(wave_opcode_accepts_docs_immediate(WAVE_OP_IADD, 2));
  cr_assert(wave_opcode_accepts_docs_immediate(WAVE_OP_SHL, 1));
  cr_assert(wave_opcode_accepts_docs_immediate(WAVE_OP_SELECT, 2));
  cr_assert_not(wave_opcode_accepts_docs_immediate(WAVE_OP_IADD, 0), "destination");
  cr_assert_not(wave_opcode_accepts_docs_immediate(WAVE_OP_SELECT, 1), "predicate");
  cr_assert_not(wave_opcode_accepts_docs_immediate(WAVE_OP_DADD, 1), "register pair");
  cr_assert_not(wave_opcode_accepts_docs_immediate(WAVE_OP_DEVICE_STORE_U32, 1));
  cr_assert_not(wave_opcode_accepts_docs_immediate(WAVE_OP_WAVE_SHUFFLE, 2));
}

/* ---- builder and walker ------------------------------------------------------------------ */


Test(builder, walk_visits_statements_in_text_order) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = tu_sample_kernel(m);
  static const wave_walk_event expected[] = {
      WAVE_WALK_BLOCK, WAVE_WALK_IF,      WAVE_WALK_BLOCK,   WAVE_WALK_ELSE,  WAVE_WALK_LOOP,
      WAVE_WALK_BLOCK, WAVE_WALK_ENDLOOP, WAVE_WALK_ENDIF,   WAVE_WALK_BLOCK};
  static const unsigned depth[] = {0, 0, 1, 0, 1, 2, 1, 0, 0};
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(k)));
  unsigned n = 0;
  while (wave_walk_next(&w)) {
    cr_assert_lt(n, 9);
    cr_assert_eq(w.event, expected[n], "event %u", n);
    cr_assert_eq(w.depth, depth[n], "depth of event %u", n);
    n++;
  }
  cr_assert_eq(n, 9);
  wave_module_destroy(m);
}

Test(builder, nested_lists_know_their_region) {
  wave_module *m = wave_module_create(NULL);
  wave_kernel *k = tu_sample_kernel(m);
  wave_node *iff =
      wave_node_next(wave_node_list_first(wave_region_body(wave_kernel_first_region(k))));
  wave_node *loop = wave_node_list_first(wave_if_else(iff));
  cr_assert_eq(wave_node_list_region(wave_loop_body(loop)), wave_kernel_first_region(k));
  cr_assert_eq(wave_node_list_parent(wave_loop_body(loop)), loop);
  cr_assert_eq(wave_node_list_parent(wave_node_list_of(loop)), iff);
  wave_region *sub = wave_region_create(k, "sub");
  cr_assert_eq(wave_kernel_last_region(k), sub);
  cr_assert_str_eq(wave_region_label(sub), "sub");
  wave_node_remove(loop);
  cr_assert_null(wave_node_list_first(wave_if_else(iff)));
  wave_node_list_append(wave_region_body(sub), loop);
  cr_assert_eq(wave_node_list_region(wave_loop_body(loop)), sub,
               "moved subtree follows its new region");
  wave_module_destroy(m);
}

/* The accessors of modules, kernels and regions, through the public API alone: what they read
 * back, and the directives the printer writes after the setters (the text written by hand). */
Test(builder, module_kernel_and_region_accessors) {
  wave_module *m = wave_module_create("acc.wave");
  cr_assert_not_null(m);
  cr_assert_str_eq(wave_module_file(m), "acc.wave");
  cr_assert(wave_module_first_kernel(m) == NULL && wave_module_num_kernels(m) == 0);
  wave_kernel *a = wave_kernel_create(m, "a");
  wave_kernel *b = wave_kernel_create(m, "b");
  cr_assert(a && b);
  cr_assert_eq(wave_module_num_kernels(m), 2);
  cr_assert(wave_module_first_kernel(m) == a && wave_kernel_next(a) == b && !wave_kernel_next(b));
  cr_assert(wave_kernel_prev(b) == a && !wave_kernel_prev(a) && wave_kernel_module(b) == m);
  cr_assert(wave_kernel_registers(a) == WAVE_DEFAULT_REGISTERS && !wave_kernel_has_registers(a));
  cr_assert(!wave_kernel_has_local_memory(a) && wave_kernel_local_memory(a) == 0);
  cr_assert(!wave_kernel_has_workgroup_size(a) && wave_kernel_workgroup_size(a, 0) == 0);

  wave_kernel_set_registers(a, 40);
  wave_kernel_set_local_memory(a, 256);
  wave_kernel_set_workgroup_size(a, 64, 2, 1);
  cr_assert(wave_kernel_has_registers(a) && wave_kernel_registers(a) == 40);
  cr_assert(wave_kernel_has_local_memory(a) && wave_kernel_local_memory(a) == 256);
  cr_assert_eq(wave_kernel_workgroup_size(a, 1), 2);
  cr_assert_eq(wave_kernel_workgroup_size(a, 3), 0, "no fourth dimension");
  wave_kernel_set_registers(b, 9);
  wave_kernel_clear_registers(b);
  cr_assert(!wave_kernel_has_registers(b) && wave_kernel_registers(b) == WAVE_DEFAULT_REGISTERS);
  cr_assert(wave_kernel_set_name(b, "renamed"));
  cr_assert_str_eq(wave_kernel_name(b), "renamed");

  wave_src end = wave_kernel_origin(a, WAVE_KERNEL_LINE_END);
  cr_assert(end.loc.line == 0 && !end.comment);
  end.comment = "; last";
  wave_kernel_set_origin(a, WAVE_KERNEL_LINE_END, &end);
  cr_assert_str_eq(wave_kernel_origin(a, WAVE_KERNEL_LINE_END).comment, "; last");
  wave_src head = {{"acc.wave", 7, 1}, NULL, NULL};
  wave_kernel_set_origin(a, WAVE_KERNEL_LINE_KERNEL, &head);
  cr_assert(wave_kernel_loc(a).line == 7 && wave_kernel_loc(a).col == 1);

  wave_region *entry = wave_kernel_first_region(a);
  wave_region *sub = wave_region_create(a, "sub");
  cr_assert(entry && sub && wave_region_next(entry) == sub && wave_region_prev(sub) == entry);
  cr_assert(wave_region_kernel(sub) == a && !wave_region_label(entry));
  cr_assert_null(wave_region_origin(sub).comment);
  wave_node *halt = wave_block_create(m);
  wave_instr *i = wave_instr_create(m, WAVE_OP_HALT, WAVE_NO_GUARD, false, 0, NULL);
  cr_assert(halt && i);
  wave_block_append(halt, i);
  wave_node_list_append(wave_region_body(entry), halt);
  cr_assert_eq(wave_node_list_region(wave_region_body(sub)), sub);

  wave_node_list *carry = wave_node_list_create(m);
  cr_assert(carry && wave_node_list_is_empty(carry) && !wave_node_list_region(carry));
  cr_assert(wave_node_list_extract(halt, halt, carry));
  cr_assert(wave_node_list_reinsert(m, wave_cursor_list_start(wave_region_body(sub)), carry));
  cr_assert(wave_node_list_is_empty(carry) && wave_node_list_first(wave_region_body(sub)) == halt);

  char *text = wave_print_to_string(m, NULL, NULL);
  cr_assert_not_null(text);
  cr_assert_str_eq(text, ".kernel a\n.registers 40\n.local_memory 256\n.workgroup_size 64, 2, 1\n"
                         "sub:\n    halt\n.end ; last\n\n.kernel renamed\n.end\n");
  free(text);
  wave_module_destroy(m);
}

Test(builder, instruction_list_edits) {
  wave_module *m = wave_module_create(NULL);
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_node *b = wave_node_list_tail_block(m, wave_region_body(wave_kernel_first_region(k)));
  wave_instr *a = tu_add(m, b, WAVE_OP_NOP, 0, NULL);
  wave_instr *c = tu_add(m, b, WAVE_OP_HALT, 0, NULL);
  wave_instr *mid = wave_instr_create(m, WAVE_OP_WAIT, WAVE_NO_GUARD, false, 0, NULL);
  wave_instr_insert_after(a, mid);
  cr_assert_eq(wave_instr_next(a), mid);
  cr_assert_eq(wave_instr_next(mid), c);
  cr_assert_eq(wave_instr_prev(c), mid);
  wave_instr *first = wave_instr_create(m, WAVE_OP_BARRIER, WAVE_NO_GUARD, false, 0, NULL);
  wave_instr_insert_before(a, first);
  cr_assert_eq(wave_block_first(b), first);
  wave_instr_remove(c);
  cr_assert_eq(wave_block_last(b), mid);
  cr_assert_null(wave_instr_node(c));
  wave_block_prepend(b, c);
  cr_assert_eq(wave_block_first(b), c);
  cr_assert_eq(wave_instr_next(c), first);
  cr_assert_eq(wave_node_list_tail_block(m, wave_region_body(wave_kernel_first_region(k))), b,
               "reuses a tail block");
  wave_module_destroy(m);
}

Test(builder, deep_nesting_walks_without_recursion) {
  enum { DEPTH = 100000 };
  wave_module *m = wave_module_create(NULL);
  wave_kernel *k = wave_kernel_create(m, "deep");
  wave_node_list *list = wave_region_body(wave_kernel_first_region(k));
  for (int i = 0; i < DEPTH; i++) {
    wave_node *iff = wave_if_create(m, wave_pred(1));
    cr_assert_not_null(iff);
    wave_node_list_append(list, iff);
    list = wave_if_then(iff);
  }
  wave_walker w;
  wave_walk_init(&w, wave_region_body(wave_kernel_first_region(k)));
  unsigned long events = 0;
  unsigned max_depth = 0;
  while (wave_walk_next(&w)) {
    events++;
    if (w.depth > max_depth)
      max_depth = w.depth;
  }
  cr_assert_eq(events, 3ul * DEPTH, "if, else and endif for each level");
  cr_assert_eq(max_depth, DEPTH - 1);
  wave_module_destroy(m);
}

Test(builder, rejects_too_many_operands) {
  wave_module *m = wave_module_create(NULL);
  wave_operand ops[WAVE_MAX_OPERANDS + 1] = {0};
  cr_assert_null(wave_instr_create(m, WAVE_OP_NOP, WAVE_NO_GUARD, false, WAVE_MAX_OPERANDS + 1,
                                   ops));
  wave_module_destroy(m);
}

/* ---- register references ----------------------------------------------------------------- */

static unsigned refs_of(wave_module *m, wave_opcode op, int guard, unsigned n,
                        const wave_operand *ops, wave_reg_ref *refs) {
  wave_instr *i = wave_instr_create(m, op, guard, false, n, ops);
  cr_assert_not_null(i);
  return wave_instr_reg_refs(i, refs);
}

/* Module memory comes in chunks; from huge-page size on they are mapped apart (support/arena.c).
 * Either way every block is zero, aligned for any object, writable to its end and apart from
 * the others; a block larger than any chunk gets one of its own. */
Test(builder, module_memory_small_and_huge) {
  wave_module *m = wave_module_create(NULL);
  cr_assert_not_null(m);
  size_t sizes[] = {1, 24, 4096, 3 << 20, 100, 9 << 20, 7};
  unsigned char *blocks[sizeof(sizes) / sizeof(sizes[0])];
  for (int round = 0; round < 40; round++) {
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      size_t n = round ? (sizes[i] < 4096 ? sizes[i] : 64) : sizes[i];
      unsigned char *b = wave_module_alloc(m, n);
      cr_assert_not_null(b);
      cr_assert_eq((uintptr_t)b % _Alignof(max_align_t), 0);
      for (size_t k = 0; k < n; k += n / 7 + 1)
        cr_assert_eq(b[k], 0, "block %zu of %zu bytes, byte %zu", i, n, k);
      cr_assert_eq(b[n - 1], 0);
      memset(b, (int)(i + 1), n);
      blocks[i] = b;
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
      cr_assert_eq(blocks[i][0], (unsigned char)(i + 1), "blocks overlap");
  }
  wave_module_destroy(m);
}

Test(reg_refs, pairs_guards_and_atomics) {
  wave_module *m = wave_module_create(NULL);
  wave_reg_ref r[WAVE_MAX_REG_REFS];
  wave_operand dadd[] = {wave_gpr(2), wave_gpr(4), wave_gpr(6)};
  cr_assert_eq(refs_of(m, WAVE_OP_DADD, 3, 3, dadd, r), 4);
  cr_assert(r[0].is_pred && r[0].first == 3 && !r[0].is_def, "guard reads p3");
  cr_assert(r[1].is_def && r[1].first == 2 && r[1].count == 2);
  cr_assert(!r[2].is_def && r[2].first == 4 && r[2].count == 2);

  wave_operand st[] = {wave_gpr(1), wave_gpr(8)};
  cr_assert_eq(refs_of(m, WAVE_OP_DEVICE_STORE_U128, WAVE_NO_GUARD, 2, st, r), 2);
  cr_assert(!r[1].is_def && r[1].first == 8 && r[1].count == 4);

  wave_operand no_ret[] = {wave_gpr(0), wave_gpr(1), wave_gpr(2),
                           wave_scope_operand(WAVE_SCOPE_DEVICE)};
  cr_assert_eq(refs_of(m, WAVE_OP_ATOMIC_ADD, WAVE_NO_GUARD, 4, no_ret, r), 2,
               "r0 destination writes nothing");
  wave_operand omitted[] = {{0}, wave_gpr(1), wave_gpr(2), wave_scope_operand(WAVE_SCOPE_DEVICE)};
  cr_assert_eq(refs_of(m, WAVE_OP_ATOMIC_ADD, WAVE_NO_GUARD, 4, omitted, r), 2);
  wave_operand ret[] = {wave_gpr(5), wave_gpr(1), wave_gpr(2),
                        wave_scope_operand(WAVE_SCOPE_DEVICE)};
  cr_assert_eq(refs_of(m, WAVE_OP_ATOMIC_ADD, WAVE_NO_GUARD, 4, ret, r), 3);
  cr_assert(r[0].is_def && r[0].first == 5);

  wave_operand sel[] = {wave_gpr(1), wave_pred(0), wave_gpr(2), wave_gpr(3)};
  cr_assert_eq(refs_of(m, WAVE_OP_SELECT, WAVE_NO_GUARD, 4, sel, r), 4);
  cr_assert(r[1].is_pred && !r[1].is_def && r[1].first == 0);

  wave_operand sr[] = {wave_gpr(1), wave_sreg(4), wave_gpr(2)};
  cr_assert_eq(refs_of(m, WAVE_OP_IADD, WAVE_NO_GUARD, 3, sr, r), 3);
  cr_assert(!r[1].is_pred && r[1].first == 4, 
            "sr_lane_id in a GPR slot reads r4 (docs/language.md, Registers)");

  wave_operand mma[] = {wave_gpr(3), wave_gpr(1), wave_gpr(2)};
  cr_assert_eq(refs_of(m, WAVE_OP_MMA_LOAD_A, WAVE_NO_GUARD, 3, mma, r), 2,
               "the fragment id names no register");
  wave_module_destroy(m);
}

/* ---- diagnostics ------------------------------------------------------------------------- */

Test(diags, text_format_has_location_source_and_caret) {
  wave_diags d;
  wave_diags_init(&d);
  wave_loc loc = {"k.wave", 3, 5};
  wave_diag_report(&d, WAVE_SEV_ERROR, NULL, loc, "\tiad r0", 7, "unknown instruction '%s'",
                   "iad");
  cr_assert_eq(d.count, 1);
  char *text = wave_diag_format_text(&d.items[0], false);
  cr_assert_str_eq(text, "k.wave:3:5: error: unknown instruction 'iad'\n\tiad r0\n\t   ^\n");
  free(text);
  wave_diags_free(&d);
}

/* In colour, as GCC and Clang colour a terminal's diagnostics: the location and message bold,
 * the severity red, magenta or cyan, the caret green. */
Test(diags, text_format_in_colour) {
  static const struct {
    wave_severity severity;
    const char *name, *colour;
  } cases[] = {{WAVE_SEV_ERROR, "error", "\033[1;31m"},
               {WAVE_SEV_WARNING, "warning", "\033[1;35m"},
               {WAVE_SEV_NOTE, "note", "\033[1;36m"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    wave_diags d;
    wave_diags_init(&d);
    wave_loc loc = {"k.wave", 3, 2};
    wave_diag_report(&d, cases[i].severity, NULL, loc, "  nop", 5, "message");
    char *text = wave_diag_format_text(&d.items[0], true);
    char want[160];
    snprintf(want, sizeof want,
             "\033[1mk.wave:3:2: %s%s:\033[0m\033[1m message\033[0m\n  nop\n \033[1;32m^\033[0m\n",
             cases[i].colour, cases[i].name);
    cr_assert_str_eq(text, want, "%s", cases[i].name);
    free(text);
    wave_diags_free(&d);
  }
}

Test(diags, policy_flags) {
  wave_diags d;
  wave_diags_init(&d);
  wave_loc loc = {"f", 1, 1};
  d.ignore_warnings = true;
  wave_diag_report(&d, WAVE_SEV_WARNING, "toolchain", loc, NULL, 0, "dropped");
  cr_assert_eq(d.count, 0);
  d.ignore_warnings = false;
  d.warnings_as_errors = true;
  wave_diag_report(&d, WAVE_SEV_WARNING, "toolchain", loc, NULL, 0, "promoted");
  cr_assert_eq(d.items[0].severity, WAVE_SEV_ERROR);
  cr_assert(wave_diags_has_errors(&d));
  char *text = wave_diag_format_text(&d.items[0], false);
  cr_assert_str_eq(text, "f:1:1: error: promoted [-Wtoolchain]\n");
  free(text);
  d.max_errors = 2;
  wave_diag_report(&d, WAVE_SEV_ERROR, NULL, loc, NULL, 0, "second");
  wave_diag_report(&d, WAVE_SEV_ERROR, NULL, loc, NULL, 0, "third");
  cr_assert_eq(d.count, 2);
  cr_assert_eq(d.num_errors, 3);
  cr_assert(d.truncated);
  wave_diags_free(&d);
}

Test(diags, json_escapes) {
  wave_diags d;
  wave_diags_init(&d);
  wave_loc loc = {"a\"b.wave", 2, 7};
  wave_diag_report(&d, WAVE_SEV_WARNING, "toolchain", loc, NULL, 0, "tab\there \\ \"q\"");
  char *json = wave_diag_format_json(&d.items[0]);
  cr_assert_str_eq(json, "{\"file\":\"a\\\"b.wave\",\"line\":2,\"column\":7,\"severity\":"
                         "\"warning\",\"message\":\"tab\\u0009here \\\\ \\\"q\\\"\","
                         "\"flag\":\"toolchain\"}");
  free(json);
  wave_diags_free(&d);
}

/* A module of no code, parsed from `src` (comment lines only), which it keeps. */
static wave_module *module_over(const char *src) {
  wave_module *m = tu_parse_ok(src, "m.wave", true);
  cr_assert_eq(wave_module_num_kernels(m), 0);
  return m;
}

Test(diags, module_report_quotes_the_line) {
  wave_module *m = module_over("; first\r\n; second line\n; third");
  wave_diags d;
  wave_diags_init(&d);
  wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, 1, 2}, "n");
  wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, 2, 1}, "n");
  wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, 3, 1}, "n");
  wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, 9, 1}, "n");
  cr_assert_str_eq(d.items[0].source_line, "; first", "CR is not part of the line");
  cr_assert_str_eq(d.items[1].source_line, "; second line");
  cr_assert_str_eq(d.items[2].source_line, "; third");
  cr_assert_null(d.items[3].source_line);
  cr_assert_str_eq(d.items[0].file, "m.wave");
  wave_diags_free(&d);
  wave_module_destroy(m);
}

/* The last line of a file that ends in a newline is empty; the one before it ends there. */
Test(diags, module_report_at_a_final_newline) {
  wave_module *m = module_over("; one\n; two\n");
  wave_diags d;
  wave_diags_init(&d);
  wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, 2, 1}, "n");
  wave_module_report(m, &d, WAVE_SEV_NOTE, NULL, (wave_loc){NULL, 3, 1}, "n");
  cr_assert_str_eq(d.items[0].source_line, "; two");
  cr_assert_str_eq(d.items[1].source_line, "");
  wave_diags_free(&d);
  wave_module_destroy(m);
}

/* A line longer than WAVE_DIAG_SOURCE_MAX (160) bytes is quoted by 160 of them around the
 * column: 80 before it where the line has them, fewer at its ends, never half a UTF-8
 * character, "..." where it was cut; the caret stays under the column's byte. */
static wave_diag quote_of(const char *line, uint32_t col, wave_diags *d) {
  wave_diags_init(d);
  wave_diag_report(d, WAVE_SEV_ERROR, NULL, (wave_loc){"f", 1, col}, line, strlen(line), "m");
  cr_assert_eq(d->count, 1);
  return d->items[0];
}

Test(diags, a_long_line_is_quoted_around_the_column) {
  char line[520];
  for (int i = 0; i < 400; i++)
    line[i] = (char)('a' + i % 26);
  line[400] = '\0';
  wave_diags d;
  /* Column 300 is byte 299: the window is bytes 219 to 378, the caret 3 + 80 + 1 in. */
  wave_diag q = quote_of(line, 300, &d);
  cr_assert_eq(strlen(q.source_line), 3 + 160 + 3);
  cr_assert(strncmp(q.source_line, "...", 3) == 0);
  cr_assert(strncmp(q.source_line + 3, line + 219, 160) == 0);
  cr_assert_str_eq(q.source_line + 163, "...");
  cr_assert_eq(q.caret_col, 84);
  cr_assert_eq(q.source_line[q.caret_col - 1], line[299]);
  cr_assert_eq(q.col, 300, "the location keeps the real column");
  char *text = wave_diag_format_text(&q, false);
  char want[600];
  snprintf(want, sizeof want, "f:1:300: error: m\n%s\n%83s^\n", q.source_line, "");
  cr_assert_str_eq(text, want);
  free(text);
  wave_diags_free(&d);
  /* Near the start: from byte 0, cut at the end only. */
  q = quote_of(line, 5, &d);
  cr_assert(strncmp(q.source_line, line, 160) == 0);
  cr_assert_str_eq(q.source_line + 160, "...");
  cr_assert_eq(q.caret_col, 5);
  wave_diags_free(&d);
  /* Near the end: the last 160 bytes, bytes 240 to 399; column 399 at 3 + 158 + 1. */
  q = quote_of(line, 399, &d);
  cr_assert(strncmp(q.source_line, "...", 3) == 0);
  cr_assert_str_eq(q.source_line + 3, line + 240);
  cr_assert_eq(q.caret_col, 162);
  wave_diags_free(&d);
  /* No column: the start of the line. */
  q = quote_of(line, 0, &d);
  cr_assert(strncmp(q.source_line, line, 160) == 0);
  cr_assert_eq(q.caret_col, 0);
  wave_diags_free(&d);
  /* 160 bytes are quoted whole. */
  line[160] = '\0';
  q = quote_of(line, 150, &d);
  cr_assert_str_eq(q.source_line, line);
  cr_assert_eq(q.caret_col, 150);
  wave_diags_free(&d);
  /* 219 'a', then 150 two-byte characters, their first bytes at 219, 221, ... Column 301: the
   * window would be bytes 220 to 379; 220 continues a character, so it starts at 221, and 380
   * continues one, so it ends before 379. */
  size_t n = 0;
  for (; n < 219; n++)
    line[n] = 'a';
  for (int i = 0; i < 150; i++, n += 2)
    memcpy(line + n, "\xc3\xa9", 2);
  line[n] = '\0';
  q = quote_of(line, 301, &d);
  cr_assert(strncmp(q.source_line + 3, line + 221, 379 - 221) == 0);
  cr_assert_str_eq(q.source_line + 3 + (379 - 221), "...");
  cr_assert_eq(q.caret_col, 301 - 221 + 3);
  wave_diags_free(&d);
}

/* A copy carries the quote as it was cut, under the policy of the list it goes to. */
Test(diags, report_copy) {
  char line[400];
  memset(line, 'x', 399);
  line[399] = '\0';
  wave_diags from;
  wave_diag q = quote_of(line, 300, &from);
  wave_diags to;
  wave_diags_init(&to);
  wave_diag_report_copy(&to, &q);
  cr_assert_eq(to.count, 1);
  cr_assert_eq(to.num_errors, 1);
  cr_assert_str_eq(to.items[0].source_line, q.source_line);
  cr_assert_str_eq(to.items[0].message, "m");
  cr_assert_str_eq(to.items[0].file, "f");
  cr_assert_eq(to.items[0].caret_col, q.caret_col);
  cr_assert_eq(to.items[0].col, 300);
  cr_assert_neq(to.items[0].source_line, q.source_line, "an owned copy");
  wave_diags_free(&from);
  wave_diags_free(&to);
  wave_diags_init(&to);
  to.ignore_warnings = true;
  wave_diag w = {WAVE_SEV_WARNING, NULL, 1, 1, "w", NULL, 0, "toolchain"};
  wave_diag_report_copy(&to, &w);
  cr_assert_eq(to.count, 0);
  to.ignore_warnings = false;
  to.warnings_as_errors = true;
  wave_diag_report_copy(&to, &w);
  cr_assert_eq(to.items[0].severity, WAVE_SEV_ERROR);
  cr_assert_null(to.items[0].file);
  cr_assert_str_eq(to.items[0].flag, "toolchain");
  wave_diags_free(&to);
}

/* ---- lookup by name ---------------------------------------------------------------------- */

Test(lookup, kernels_by_name_and_position) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *a = wave_kernel_create(m, "alpha");
  wave_kernel *b = wave_kernel_create(m, "beta");
  cr_assert_eq(wave_module_find_kernel(m, NULL), a);
  cr_assert_eq(wave_module_find_kernel(m, "beta"), b);
  cr_assert_null(wave_module_find_kernel(m, "gamma"));
  cr_assert_eq(wave_module_kernel_at(m, 1), b);
  cr_assert_null(wave_module_kernel_at(m, 2));
  wave_module_destroy(m);
}

Test(lookup, label_table_maps_labels_to_regions_in_order) {
  wave_module *m = wave_module_create("t.wave");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_region *sub = wave_region_create(k, "sub");
  wave_region *other = wave_region_create(k, "other");
  wave_region *again = wave_region_create(k, "sub"); /* a builder may repeat a label */
  wave_label_table t;
  cr_assert(wave_label_table_init(&t, k));
  cr_assert_eq(t.num_regions, 4);
  cr_assert_eq(t.regions[0], wave_kernel_first_region(k));
  cr_assert_eq(t.regions[3], again);
  cr_assert_eq(wave_label_table_find(&t, "sub"), 1, "the first region of a repeated label wins");
  cr_assert_eq(t.regions[wave_label_table_find(&t, "other")], other);
  cr_assert_eq(wave_label_table_find(&t, "missing"), WAVE_NO_REGION);
  cr_assert_eq(t.regions[1], sub);
  wave_label_table_free(&t);
  wave_module_destroy(m);
}

Test(lookup, one_hash_for_every_name_table) {
  /* FNV-1a reference values: the empty string is the offset basis; "a" is published. */
  cr_assert_eq(wave_hash_name("", 0), 2166136261u);
  cr_assert_eq(wave_hash_name("a", 1), 0xe40c292cu);
  cr_assert_eq(wave_hash_name("ab", 1), wave_hash_name("a", 1), "only len bytes count");
}
