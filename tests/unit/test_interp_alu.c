/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter's per-instruction semantics (the instruction sections of docs/language.md), with
 * the edge cases the optimizer's folding must agree with. Expected values are computed by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interp_util.h"
#include "test_util.h"

/* Runs `code` for one thread with r1, r2, r3, r5 preset to a, b, c, e; returns the machine's
 * result (the caller reads registers). */
static iu_result *run1(const char *code, uint32_t a, uint32_t b, uint32_t c, uint32_t e) {
  char text[2048];
  snprintf(text, sizeof text, ".kernel t\n.registers 16\n%s\n    halt\n.end\n", code);
  wave_launch_config cfg = iu_config(1, 1);
  wave_reg_value presets[4] = {{1, a}, {2, b}, {3, c}, {5, e}};
  cfg.presets = presets;
  cfg.num_presets = 4;
  return iu_run(text, &cfg);
}

/* r4 after `op r4, r1, r2[, r3[, r5]]` with the given sources. */
static uint32_t op3(const char *op, uint32_t a, uint32_t b) {
  char code[128];
  snprintf(code, sizeof code, "    %s r4, r1, r2", op);
  iu_result *r = run1(code, a, b, 0, 0);
  cr_assert(iu_ok(r), "%s: %s", op, iu_error_message(r));
  uint32_t v = iu_reg(r, 0, 4);
  iu_free(r);
  return v;
}

static uint32_t op2(const char *op, uint32_t a) {
  char code[128];
  snprintf(code, sizeof code, "    %s r4, r1", op);
  iu_result *r = run1(code, a, 0, 0, 0);
  cr_assert(iu_ok(r), "%s: %s", op, iu_error_message(r));
  uint32_t v = iu_reg(r, 0, 4);
  iu_free(r);
  return v;
}

static uint32_t op4(const char *op, uint32_t a, uint32_t b, uint32_t c) {
  char code[128];
  snprintf(code, sizeof code, "    %s r4, r1, r2, r3", op);
  iu_result *r = run1(code, a, b, c, 0);
  cr_assert(iu_ok(r), "%s: %s", op, iu_error_message(r));
  uint32_t v = iu_reg(r, 0, 4);
  iu_free(r);
  return v;
}

/* The predicate written by `cmp p1, r1, r2`. */
static bool cmp(const char *op, uint32_t a, uint32_t b) {
  char code[128];
  snprintf(code, sizeof code, "    %s p1, r1, r2", op);
  iu_result *r = run1(code, a, b, 0, 0);
  cr_assert(iu_ok(r), "%s: %s", op, iu_error_message(r));
  bool v = iu_pred(r, 0, 1);
  iu_free(r);
  return v;
}

#define F(x) iu_bits(x)
#define NAN_BITS 0x7FC00000u
#define INF_BITS 0x7F800000u

/* ---- integer --------------------------------------------------------------------- */

Test(alu_int, wrapping_arithmetic) {
  cr_assert_eq(op3("iadd", 0xFFFFFFFFu, 1), 0);
  cr_assert_eq(op3("iadd", 0x7FFFFFFFu, 1), 0x80000000u);
  cr_assert_eq(op3("isub", 0, 1), 0xFFFFFFFFu);
  cr_assert_eq(op3("imul", 0x10000u, 0x10000u), 0);
  cr_assert_eq(op3("imul", 0xFFFFFFFFu, 3), 0xFFFFFFFDu);
  cr_assert_eq(op4("imad", 3, 4, 5), 17);
  cr_assert_eq(op4("imad", 0x80000000u, 2, 7), 7);
}

Test(alu_int, imul_hi_is_unsigned) {
  cr_assert_eq(op3("imul_hi", 0xFFFFFFFFu, 2), 1);
  cr_assert_eq(op3("imul_hi", 0x80000000u, 0x80000000u), 0x40000000u);
  cr_assert_eq(op3("imul_hi", 0xFFFFFFFFu, 0xFFFFFFFFu), 0xFFFFFFFEu);
  cr_assert_eq(op3("imul_hi", 3, 5), 0);
}

Test(alu_int, signed_division_truncates) {
  cr_assert_eq(op3("idiv", 7, 2), 3);
  cr_assert_eq(op3("idiv", (uint32_t)-7, 2), (uint32_t)-3);
  cr_assert_eq(op3("idiv", 7, (uint32_t)-2), (uint32_t)-3);
  cr_assert_eq(op3("idiv", 0x80000000u, 0xFFFFFFFFu), 0x80000000u);
  cr_assert_eq(op3("imod", (uint32_t)-7, 2), (uint32_t)-1);
  cr_assert_eq(op3("imod", 7, (uint32_t)-2), 1);
  cr_assert_eq(op3("imod", 0x80000000u, 0xFFFFFFFFu), 0);
}

Test(alu_int, division_by_zero_is_an_error_naming_the_line) {
  iu_result *r = run1("    mov_imm r6, 1\n    idiv r4, r1, r2", 5, 0, 0, 0);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_DIV_ZERO);
  const wave_run_error *e = wave_machine_error(r->machine);
  cr_assert_eq(e->loc.line, 4);
  cr_assert_eq(e->lanes, 1);
  cr_assert_not_null(strstr(e->message, "line 4"), "%s", e->message);
  cr_assert_not_null(strstr(e->message, "wave 0"), "%s", e->message);
  cr_assert_not_null(strstr(e->message, "0x1"), "%s", e->message);
  /* nothing after the fault ran, and the destination is untouched */
  cr_assert_eq(iu_reg(r, 0, 4), 0);
  iu_free(r);
  r = run1("    imod r4, r1, r2", 5, 0, 0, 0);
  iu_free_expecting(r, WAVE_ERR_DIV_ZERO);
}

Test(alu_int, emulator_fallbacks_divide_by_zero_to_zero) {
  const char *text = ".kernel t\n.registers 8\n    mov_imm r4, 9\n    idiv r4, r1, r2\n"
                     "    mov_imm r5, 9\n    imod r5, r1, r2\n    halt\n.end\n";
  wave_launch_config cfg = iu_config(1, 1);
  wave_reg_value presets[] = {{1, 5}, {2, 0}};
  cfg.presets = presets;
  cfg.num_presets = 2;
  cfg.emulator_fallbacks = true;
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  cr_assert_eq(iu_reg(r, 0, 4), 0);
  cr_assert_eq(iu_reg(r, 0, 5), 0);
  iu_free(r);
}

Test(alu_int, negation_abs_min_max_clamp) {
  cr_assert_eq(op2("ineg", 0x80000000u), 0x80000000u);
  cr_assert_eq(op2("ineg", 5), (uint32_t)-5);
  cr_assert_eq(op2("iabs", (uint32_t)-5), 5);
  cr_assert_eq(op2("iabs", 0x80000000u), 0x80000000u);
  cr_assert_eq(op3("imin", (uint32_t)-1, 1), (uint32_t)-1);
  cr_assert_eq(op3("imax", (uint32_t)-1, 1), 1);
  cr_assert_eq(op4("iclamp", 10, 0, 5), 5);
  cr_assert_eq(op4("iclamp", (uint32_t)-3, 0, 5), 0);
  cr_assert_eq(op4("iclamp", (uint32_t)-3, (uint32_t)-5, 5), (uint32_t)-3);
  cr_assert_eq(op4("iclamp", 4, 4, 4), 4);
}

Test(alu_int, clamp_with_inverted_bounds_is_an_error) {
  iu_result *r = run1("    iclamp r4, r1, r2, r3", 1, 5, 0, 0);
  iu_free_expecting(r, WAVE_ERR_BAD_CLAMP);
  r = run1("    fclamp r4, r1, r2, r3", F(1.0f), F(2.0f), F(1.0f), 0);
  iu_free_expecting(r, WAVE_ERR_BAD_CLAMP);
  r = run1("    fclamp r4, r1, r2, r3", F(1.0f), NAN_BITS, F(1.0f), 0);
  iu_free_expecting(r, WAVE_ERR_BAD_CLAMP);
}

/* ---- bits ------------------------------------------------------------------------ */

Test(alu_bits, shifts_mask_the_count) {
  cr_assert_eq(op3("shl", 1, 33), 2);
  cr_assert_eq(op3("shl", 7, 32), 7);
  cr_assert_eq(op3("shr", 0x80000000u, 31), 1);
  cr_assert_eq(op3("shr", 0x80000000u, 63), 1);
  cr_assert_eq(op3("sar", 0x80000000u, 31), 0xFFFFFFFFu);
  cr_assert_eq(op3("sar", 0x80000000u, 4), 0xF8000000u);
  cr_assert_eq(op3("sar", 0x40000000u, 4), 0x04000000u);
  cr_assert_eq(op3("and", 0xF0F0u, 0xFF00u), 0xF000u);
  cr_assert_eq(op3("or", 0xF0F0u, 0xFF00u), 0xFFF0u);
  cr_assert_eq(op3("xor", 0xF0F0u, 0xFF00u), 0x0FF0u);
  cr_assert_eq(op2("not", 0), 0xFFFFFFFFu);
}

Test(alu_bits, count_find_reverse) {
  cr_assert_eq(op2("bitcount", 0xF0F0u), 8);
  cr_assert_eq(op2("bitcount", 0xFFFFFFFFu), 32);
  cr_assert_eq(op2("bitfind", 2), 30);
  cr_assert_eq(op2("bitfind", 0x80000000u), 0);
  cr_assert_eq(op2("bitfind", 1), 31);
  cr_assert_eq(op2("bitfind", 0), 0xFFFFFFFFu);
  cr_assert_eq(op2("bitrev", 1), 0x80000000u);
  cr_assert_eq(op2("bitrev", 0x12345678u), 0x1E6A2C48u);
}

Test(alu_bits, bit_field_extract_and_insert) {
  cr_assert_eq(op4("bfe", 0xABCD1234u, 8, 8), 0x12);
  cr_assert_eq(op4("bfe", 0xABCD1234u, 36, 4), 0x3);  /* offset & 31 = 4 */
  cr_assert_eq(op4("bfe", 0xABCD1234u, 0, 0), 0);
  cr_assert_eq(op4("bfe", 0xABCD1234u, 0, 32), 0);    /* 32 & 31 = 0 */
  cr_assert_eq(op4("bfe", 0xABCD1234u, 28, 8), 0xA);  /* zero-extending past bit 31 */
  iu_result *r = run1("    bfi r4, r1, r2, r3, r5", 0xFFFFFFFFu, 0, 4, 8);
  cr_assert_eq(iu_reg(r, 0, 4), 0xFFFFF00Fu);
  iu_free(r);
  r = run1("    bfi r4, r1, r2, r3, r5", 0x12345678u, 0xFFu, 4, 0);
  cr_assert_eq(iu_reg(r, 0, 4), 0x12345678u);
  iu_free(r);
  r = run1("    bfi r4, r1, r2, r3, r5", 0, 0xABCu, 28, 8); /* bits shifted out are lost */
  cr_assert_eq(iu_reg(r, 0, 4), 0xC0000000u);
  iu_free(r);
}

/* ---- f32 ------------------------------------------------------------------------- */

Test(alu_f32, division_by_either_zero_is_plus_infinity) {
  cr_assert_eq(op3("fdiv", F(1.0f), F(0.0f)), INF_BITS);
  cr_assert_eq(op3("fdiv", F(-1.0f), F(0.0f)), INF_BITS);
  cr_assert_eq(op3("fdiv", F(1.0f), F(-0.0f)), INF_BITS);
  cr_assert_eq(op3("fdiv", F(0.0f), F(0.0f)), INF_BITS);
  cr_assert_eq(op3("fdiv", NAN_BITS, F(0.0f)), INF_BITS);
  cr_assert_eq(op3("fdiv", F(1.0f), F(4.0f)), F(0.25f));
  cr_assert_eq(op3("fdiv", F(-3.0f), F(2.0f)), F(-1.5f));
}

Test(alu_f32, min_max_ignore_one_nan) {
  cr_assert_eq(op3("fmin", NAN_BITS, F(1.0f)), F(1.0f));
  cr_assert_eq(op3("fmin", F(1.0f), NAN_BITS), F(1.0f));
  cr_assert_eq(op3("fmax", NAN_BITS, F(-2.0f)), F(-2.0f));
  cr_assert(isnan(iu_float(op3("fmin", NAN_BITS, NAN_BITS))));
  cr_assert_eq(op3("fmin", F(-1.0f), F(2.0f)), F(-1.0f));
  cr_assert_eq(op3("fmax", F(-1.0f), F(2.0f)), F(2.0f));
}

/* A signalling NaN (quiet bit 22 clear) is ignored by minNum/maxNum like a quiet one: the
 * host's fminf would turn it into a NaN result. */
Test(alu_f32, min_max_ignore_a_signalling_nan) {
  const uint32_t snan = 0x7FA00001u, neg_snan = 0xFF800005u;
  cr_assert_eq(op3("fmin", snan, F(0.0f)), F(0.0f));
  cr_assert_eq(op3("fmin", F(0.0f), snan), F(0.0f));
  cr_assert_eq(op3("fmax", neg_snan, F(-3.0f)), F(-3.0f));
  cr_assert_eq(op3("fmax", F(7.0f), snan), F(7.0f));
  /* Two NaNs: the first, quieted. */
  cr_assert_eq(op3("fmin", snan, neg_snan), 0x7FE00001u);
  cr_assert_eq(op3("fmax", 0xFFC00002u, snan), 0xFFC00002u);
}

/* Two NaN operands: the result is the first NaN in operand order with its quiet bit set,
 * whatever order the host's instruction selection put them in; an invalid operation on
 * numbers gives the default NaN 0xFFC00000 (docs/language.md "Floating point"). */
Test(alu_f32, which_nan_an_operation_returns) {
  const uint32_t snan = 0x7FA00001u, qnan = 0xFFC00002u, inf = 0x7F800000u;
  cr_assert_eq(op3("fadd", snan, qnan), 0x7FE00001u);
  cr_assert_eq(op3("fadd", qnan, snan), qnan);
  cr_assert_eq(op3("fsub", F(1.0f), snan), 0x7FE00001u);
  cr_assert_eq(op3("fmul", qnan, F(2.0f)), qnan);
  cr_assert_eq(op3("fdiv", snan, qnan), 0x7FE00001u);
  cr_assert_eq(op4("fma", F(1.0f), qnan, snan), qnan);
  cr_assert_eq(op4("fma", F(1.0f), F(2.0f), snan), 0x7FE00001u);
  cr_assert_eq(op3("fsub", inf, inf), 0xFFC00000u);
  cr_assert_eq(op3("fmul", F(0.0f), inf), 0xFFC00000u);
  cr_assert_eq(op3("fdiv", qnan, F(0.0f)), inf); /* division by zero wins over NaN */
}

Test(alu_f32, compares_with_nan) {
  cr_assert(cmp("fcmp_ne", NAN_BITS, F(1.0f)));
  cr_assert(cmp("fcmp_ne", NAN_BITS, NAN_BITS));
  cr_assert_not(cmp("fcmp_eq", NAN_BITS, NAN_BITS));
  cr_assert_not(cmp("fcmp_lt", NAN_BITS, F(1.0f)));
  cr_assert_not(cmp("fcmp_le", F(1.0f), NAN_BITS));
  cr_assert_not(cmp("fcmp_gt", NAN_BITS, F(1.0f)));
  cr_assert_not(cmp("fcmp_ord", NAN_BITS, F(1.0f)));
  cr_assert(cmp("fcmp_ord", F(1.0f), F(2.0f)));
  cr_assert(cmp("fcmp_unord", F(1.0f), NAN_BITS));
  cr_assert(cmp("fcmp_eq", F(0.0f), F(-0.0f)));
  cr_assert(cmp("fcmp_lt", F(-1.0f), F(0.5f)));
  cr_assert_not(cmp("fcmp_ge", NAN_BITS, F(1.0f))); /* docs-dialect pseudo compare */
  cr_assert(cmp("fcmp_ge", F(2.0f), F(2.0f)));
}

Test(alu_f32, denormals_are_preserved) {
  uint32_t tiny = 0x00000001u; /* 2^-149 */
  cr_assert_eq(op3("fadd", tiny, tiny), 0x00000002u);
  cr_assert_eq(op3("fmul", F(0x1p-126f), F(0.5f)), 0x00400000u);
  cr_assert_eq(op3("fsub", 0x00800000u, 0x00000001u), 0x007FFFFFu);
}

Test(alu_f32, fma_rounds_once) {
  float a = 1.0f + 0x1p-12f;
  /* a*a = 1 + 2^-11 + 2^-24: separate rounding loses the 2^-24 term, fma keeps it */
  cr_assert_eq(op4("fma", F(a), F(a), F(-1.0f)), F(0x1p-11f + 0x1p-24f));
  cr_assert_eq(op3("fmul", F(a), F(a)), F(1.0f + 0x1p-11f));
  cr_assert_eq(op4("fma", F(2.0f), F(3.0f), F(1.0f)), F(7.0f)); /* rc is the addend */
}

Test(alu_f32, rounding_and_unary_ops) {
  cr_assert_eq(op2("fround", F(2.5f)), F(3.0f));
  cr_assert_eq(op2("fround", F(-2.5f)), F(-3.0f));
  cr_assert_eq(op2("fround", F(0.5f)), F(1.0f));
  cr_assert_eq(op2("fround", F(1.4f)), F(1.0f));
  cr_assert_eq(op2("ffract", F(-1.5f)), F(-0.5f));
  cr_assert_eq(op2("ffract", F(2.75f)), F(0.75f));
  cr_assert_eq(op2("ffloor", F(-1.5f)), F(-2.0f));
  cr_assert_eq(op2("fceil", F(-1.5f)), F(-1.0f));
  cr_assert_eq(op2("ftrunc", F(-1.7f)), F(-1.0f));
  cr_assert(isnan(iu_float(op2("fsat", NAN_BITS))));
  cr_assert_eq(op2("fsat", F(2.0f)), F(1.0f));
  cr_assert_eq(op2("fsat", F(-1.0f)), F(0.0f));
  cr_assert_eq(op2("fsat", F(0.25f)), F(0.25f));
  cr_assert_eq(op2("fneg", F(0.0f)), 0x80000000u);
  cr_assert_eq(op2("fneg", NAN_BITS), 0xFFC00000u);
  cr_assert_eq(op2("fabs", F(-0.0f)), 0);
  cr_assert_eq(op2("fsqrt", F(2.25f)), F(1.5f));
  cr_assert(isnan(iu_float(op2("fsqrt", F(-1.0f)))));
  cr_assert_eq(op2("frsqrt", F(4.0f)), F(0.5f));
  cr_assert_eq(op2("frcp", F(0.0f)), INF_BITS);
  cr_assert_eq(op2("frcp", F(-4.0f)), F(-0.25f));
  cr_assert_eq(op2("fexp2", F(3.0f)), F(8.0f));
  cr_assert_eq(op2("flog2", F(0.125f)), F(-3.0f));
  cr_assert_eq(op2("fsin", F(0.0f)), F(0.0f));
  cr_assert_eq(op2("fcos", F(0.0f)), F(1.0f));
  cr_assert_eq(op4("fclamp", F(3.0f), F(0.0f), F(2.0f)), F(2.0f));
  cr_assert(isnan(iu_float(op4("fclamp", NAN_BITS, F(0.0f), F(2.0f)))));
}

/* ---- f16 and bf16 ---------------------------------------------------------------- */

Test(alu_half, f16_arithmetic_rounds_to_nearest_even) {
  /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even 1.0 */
  cr_assert_eq(op3("hadd", 0x3C00u, 0x1000u), 0x3C00u);
  /* (1 + 2^-10) + 2^-11 is halfway between 0x3C01 and 0x3C02: even is 0x3C02 */
  cr_assert_eq(op3("hadd", 0x3C01u, 0x1000u), 0x3C02u);
  cr_assert_eq(op3("hsub", 0x3C00u, 0x4000u), 0xBC00u);          /* 1 - 2 = -1 */
  cr_assert_eq(op3("hmul", 0x5C00u, 0x5C00u), 0x7C00u);          /* 256^2 overflows */
  cr_assert_eq(op3("hmul", 0x5BFFu, 0x5BFFu), 0x7BFEu);          /* 255.875^2 = 65472 */
  cr_assert_eq(op4("hma", 0x4000u, 0x4200u, 0x3C00u), 0x4700u);  /* 2*3+1 = 7 */
  /* only the low halves are read; the result's upper half is zero */
  cr_assert_eq(op3("hadd", 0xABCD3C00u, 0x12343C00u), 0x4000u);
}

Test(alu_half, f16_conversions_cover_subnormals_infinity_and_nan) {
  cr_assert_eq(op2("cvt_f16_f32", F(65504.0f)), 0x7BFFu);
  cr_assert_eq(op2("cvt_f16_f32", F(65520.0f)), 0x7C00u);  /* the tie rounds up to infinity */
  cr_assert_eq(op2("cvt_f16_f32", F(65519.0f)), 0x7BFFu);
  cr_assert_eq(op2("cvt_f16_f32", F(1e-7f)), 0x0002u);     /* subnormal: 1.68 * 2^-24 */
  cr_assert_eq(op2("cvt_f16_f32", F(0x1p-25f)), 0x0000u);  /* tie with 0: even */
  cr_assert_eq(op2("cvt_f16_f32", F(0x1.8p-25f)), 0x0001u);
  cr_assert_eq(op2("cvt_f16_f32", F(0x1p-14f)), 0x0400u);  /* smallest normal */
  cr_assert_eq(op2("cvt_f16_f32", F(0x1.ffcp-15f)), 0x0400u); /* rounds up into the normals */
  cr_assert_eq(op2("cvt_f16_f32", F(-0.0f)), 0x8000u);
  cr_assert_eq(op2("cvt_f16_f32", F(-INFINITY)), 0xFC00u);
  cr_assert_eq(op2("cvt_f16_f32", NAN_BITS), 0x7E00u);
  cr_assert_eq(op2("cvt_f16_f32", F(1.0f + 0x1p-11f)), 0x3C00u);
  cr_assert_eq(op2("cvt_f16_f32", F(1.0f + 0x1.8p-11f)), 0x3C01u);
  cr_assert_eq(op2("cvt_f32_f16", 0x0001u), F(0x1p-24f));
  cr_assert_eq(op2("cvt_f32_f16", 0x03FFu), F(0x3FFp-24f));
  cr_assert_eq(op2("cvt_f32_f16", 0x7C00u), INF_BITS);
  cr_assert(isnan(iu_float(op2("cvt_f32_f16", 0x7E00u))));
  cr_assert_eq(op2("cvt_f32_f16", 0xC000u), F(-2.0f));
  cr_assert_eq(op2("cvt_f32_f16", 0xFFFF3555u), F(0.333251953125f)); /* upper half ignored */
}

Test(alu_half, packed_f16_halves_are_independent) {
  /* (1, 2) + (1, 1) = (2, 3) */
  cr_assert_eq(op3("hadd2", 0x40003C00u, 0x3C003C00u), 0x42004000u);
  /* (2, -1) * (3, 4) = (6, -4) */
  cr_assert_eq(op3("hmul2", 0xBC004000u, 0x44004200u), 0xC4004600u);
  /* (2, 1) * (3, 1) + (1, 1) = (7, 2) */
  cr_assert_eq(op4("hma2", 0x3C004000u, 0x3C004200u, 0x3C003C00u), 0x40004700u);
}

Test(alu_half, bf16_truncates) {
  /* 1 + 2^-8 needs 9 mantissa bits: truncated back to 1.0 */
  cr_assert_eq(op3("badd", 0x3F80u, 0x3B80u), 0x3F80u);
  cr_assert_eq(op3("bmul", 0x3FC0u, 0x3FC0u), 0x4010u);      /* 1.5 * 1.5 = 2.25 */
  cr_assert_eq(op3("bsub", 0x3F80u, 0x4000u), 0xBF80u);      /* 1 - 2 = -1 */
  /* 1.5 * 1.0078125 = 1.51171875 lies halfway: truncation gives 0x3FC1, rounding 0x3FC2 */
  cr_assert_eq(op3("bmul", 0x3FC0u, 0x3F81u), 0x3FC1u);
  cr_assert_eq(op3("bmul", 0x3FFFu, 0x3FFFu), 0x407Eu);
  cr_assert_eq(op4("bma", 0x4000u, 0x4040u, 0x3F80u), 0x40E0u); /* 2*3+1 = 7 */
  cr_assert_eq(op2("cvt_bf16_f32", 0x3F80FFFFu), 0x3F80u);
  cr_assert_eq(op2("cvt_bf16_f32", 0xBF80FFFFu), 0xBF80u);
  cr_assert_eq(op2("cvt_f32_bf16", 0xFFFF4049u), 0x40490000u);
  cr_assert_eq(op3("badd2", 0x40003F80u, 0x3F803F80u), 0x40404000u); /* (1,2)+(1,1) */
  cr_assert_eq(op3("bmul2", 0x40003F80u, 0x40404000u), 0x40C04000u); /* (1,2)*(2,3) */
  cr_assert_eq(op4("bma2", 0x3F803F80u, 0x3F803F80u, 0x3F803F80u), 0x40004000u);
  cr_assert_eq(op3("badd", 0xABCD3F80u, 0x12343F80u), 0x4000u);
}

/* ---- f64 and conversions ---------------------------------------------------- */

static uint32_t lo_word(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return (uint32_t)b;
}

static uint32_t hi_word(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return (uint32_t)(b >> 32);
}

/* r8:r9 = OP(r2:r3, r4:r5, r6:r7) */
static void f64op(const char *text, double a, double b, double c, double expected) {
  char code[256];
  snprintf(code, sizeof code,
           "    mov_imm r2, %u\n    mov_imm r3, %u\n    mov_imm r4, %u\n    mov_imm r5, %u\n"
           "    mov_imm r6, %u\n    mov_imm r7, %u\n    %s",
           lo_word(a), hi_word(a), lo_word(b), hi_word(b), lo_word(c), hi_word(c), text);
  iu_result *r = iu_ok_or_fail(run1(code, 0, 0, 0, 0));
  cr_assert_eq(iu_reg(r, 0, 8), lo_word(expected), "%s: low word", text);
  cr_assert_eq(iu_reg(r, 0, 9), hi_word(expected), "%s: high word", text);
  iu_free(r);
}

Test(alu_f64, pairs_low_word_first) {
  f64op("dadd r8, r2, r4", 1.5, 2.25, 0, 3.75);
  f64op("dsub r8, r2, r4", 1.5, 2.25, 0, -0.75);
  f64op("dmul r8, r2, r4", 1.5, 2.25, 0, 3.375);
  f64op("ddiv r8, r2, r4", 1.0, 3.0, 0, 1.0 / 3.0);
  f64op("ddiv r8, r2, r4", -1.0, 0.0, 0, -INFINITY); /* IEEE, no fdiv rule */
  f64op("dma r8, r2, r4, r6", 2.0, 3.0, 0.5, 6.5);
  f64op("dsqrt r8, r2", 2.25, 0, 0, 1.5);
  f64op("dadd r8, r2, r4", 0x1p52, 0.5, 0, 0x1p52); /* ties to even */
}

Test(alu_f64, conversions_with_f32) {
  iu_result *r = run1("    cvt_f64_f32 r8, r1", F(1.5f), 0, 0, 0);
  cr_assert_eq(iu_reg(r, 0, 8), lo_word(1.5));
  cr_assert_eq(iu_reg(r, 0, 9), hi_word(1.5));
  iu_free(r);
  char code[128];
  snprintf(code, sizeof code, "    mov_imm r6, %u\n    mov_imm r7, %u\n    cvt_f32_f64 r4, r6",
           lo_word(1.0 / 3.0), hi_word(1.0 / 3.0));
  r = run1(code, 0, 0, 0, 0);
  cr_assert_eq(iu_reg(r, 0, 4), F(1.0f / 3.0f));
  cr_assert_eq(iu_reg(r, 0, 4), 0x3EAAAAABu);
  iu_free(r);
}

Test(alu_cvt, saturating_integer_conversions) {
  cr_assert_eq(op2("cvt_i32_f32", NAN_BITS), 0);
  cr_assert_eq(op2("cvt_i32_f32", F(3e9f)), 0x7FFFFFFFu);
  cr_assert_eq(op2("cvt_i32_f32", F(-3e9f)), 0x80000000u);
  cr_assert_eq(op2("cvt_i32_f32", F(-1.9f)), (uint32_t)-1);
  cr_assert_eq(op2("cvt_i32_f32", F(2147483648.0f)), 0x7FFFFFFFu);
  cr_assert_eq(op2("cvt_i32_f32", F(-2147483648.0f)), 0x80000000u);
  cr_assert_eq(op2("cvt_u32_f32", F(-1.0f)), 0);
  cr_assert_eq(op2("cvt_u32_f32", F(5e9f)), 0xFFFFFFFFu);
  cr_assert_eq(op2("cvt_u32_f32", NAN_BITS), 0);
  cr_assert_eq(op2("cvt_u32_f32", F(3.7f)), 3);
  cr_assert_eq(op2("cvt_u32_f32", F(INFINITY)), 0xFFFFFFFFu);
  cr_assert_eq(op2("cvt_f32_u32", 0xFFFFFFFFu), F(4294967296.0f));
  cr_assert_eq(op2("cvt_f32_i32", (uint32_t)-1), F(-1.0f));
  cr_assert_eq(op2("cvt_f32_i32", 16777217u), F(16777216.0f)); /* nearest even */
}

/* ---- moves, special registers, documentation dialect ---------------------------------- */

Test(alu_moves, special_registers_of_a_3d_workgroup) {
  const char *text = ".kernel t\n.registers 24\n"
                     "    mov_sr r0, sr_thread_id_x\n    mov_sr r1, sr_thread_id_y\n"
                     "    mov_sr r2, sr_thread_id_z\n    mov_sr r3, sr_wave_id\n"
                     "    mov_sr r4, sr_lane_id\n    mov_sr r5, sr_workgroup_id_x\n"
                     "    mov_sr r6, sr_workgroup_id_y\n    mov_sr r7, sr_workgroup_id_z\n"
                     "    mov_sr r8, sr_workgroup_size_x\n    mov_sr r9, sr_workgroup_size_y\n"
                     "    mov_sr r10, sr_workgroup_size_z\n    mov_sr r11, sr_grid_size_x\n"
                     "    mov_sr r12, sr_grid_size_y\n    mov_sr r13, sr_grid_size_z\n"
                     "    mov_sr r14, sr_wave_width\n    mov_sr r15, sr_num_waves\n"
                     "    mov_sr r16, sr_mma_supported\n    mov_sr r17, sr_mma_k\n"
                     "    mov r18, sr_lane_id\n    mov_imm r19, 0xDEADBEEF\n    halt\n.end\n";
  wave_launch_config cfg = iu_config(2, 0);
  cfg.grid[1] = 3;
  cfg.workgroup[0] = 4;
  cfg.workgroup[1] = 3;
  cfg.workgroup[2] = 2;
  cfg.wave_width = 8;
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  cr_assert_eq(wave_machine_num_waves(r->machine), 3);
  /* thread 19 = wave 2, lane 3: x = 19 % 4 = 3, y = (19 / 4) % 3 = 1, z = 19 / 12 = 1 */
  uint32_t expect[20] = {3, 1, 1, 2, 3, 1, 2, 0, 4, 3, 2, 2, 3, 1, 8, 3, 1, 4, 3, 0xDEADBEEFu};
  for (uint32_t i = 0; i < 20; i++)
    cr_assert_eq(iu_reg(r, 19, i), expect[i], "r%u", i);
  /* the padding lanes 24..31 never ran */
  cr_assert_eq(wave_machine_lane_state(r->machine, 5, 23), WAVE_LANE_FINISHED);
  cr_assert_eq(wave_machine_lane_state(r->machine, 5, 24), WAVE_LANE_UNUSED);
  iu_free(r);
}

/* Built without the parser: mov from sr_* reads the special register (the assembler emits
 * mov_sr), while an sr_* in another GPR slot reads the GPR of the same number. */
Test(alu_moves, special_registers_in_gpr_slots) {
  wave_module *m = wave_module_create("built");
  wave_kernel *k = wave_kernel_create(m, "k");
  wave_node *b = wave_block_create(m);
  wave_node_list_append(wave_region_body(wave_kernel_first_region(k)), b);
  tu_add(m, b, WAVE_OP_MOV_IMM, 2, (wave_operand[]){wave_gpr(4), wave_imm(99)});
  tu_add(m, b, WAVE_OP_MOV, 2, (wave_operand[]){wave_gpr(5), wave_sreg(4)});      /* lane id */
  tu_add(m, b, WAVE_OP_IADD, 3, (wave_operand[]){wave_gpr(6), wave_sreg(4), wave_imm(1)}); /* r4 */
  tu_add(m, b, WAVE_OP_HALT, 0, NULL);
  wave_launch_config cfg = iu_config(1, 4);
  wave_machine *mach = wave_simulate(k, &cfg, NULL);
  cr_assert_eq(wave_machine_status(mach), WAVE_RUN_OK);
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t v;
    cr_assert(wave_machine_read_gpr(mach, 0, t, 5, &v));
    cr_assert_eq(v, t);
    cr_assert(wave_machine_read_gpr(mach, 0, t, 6, &v));
    cr_assert_eq(v, 100);
  }
  wave_machine_destroy(mach);
  wave_module_destroy(m);
}

Test(alu_moves, docs_dialect_immediates_and_predicate_logic) {
  const char *text = ".kernel t\n.registers 16\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    iadd r2, r1, 100\n"         /* immediate in a GPR slot */
                     "    shl r3, r1, 2\n"
                     "    icmp_ge p1, r1, 2\n"
                     "    icmp_lt p2, r1, 6\n"
                     "    and p3, p1, p2\n"           /* PAND */
                     "    or p0, p1, p2\n"            /* POR (always true here) */
                     "    select r4, p3, 1, 0\n"
                     "    xor p3, p1, p2\n"           /* PXOR */
                     "    select r5, p3, 1, 0\n"
                     "    not p3, p1\n"               /* PNOT */
                     "    select r6, p3, 1, 0\n"
                     "    select r7, p0, 1, 0\n"
                     "    ucmp_gt p2, r1, 0xFFFFFFFE\n"
                     "    select r8, p2, 1, 0\n"
                     "    ucmp_ne p2, r1, 3\n"
                     "    select r9, p2, 1, 0\n"
                     "    ucmp_ge p2, r1, 7\n"
                     "    select r10, p2, 1, 0\n"
                     "    ucmp_eq p2, r1, 5\n"
                     "    select r11, p2, 1, 0\n"
                     "    halt\n.end\n";
  wave_launch_config cfg = iu_wave_config(8, 8);
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  for (uint32_t t = 0; t < 8; t++) {
    bool p1 = t >= 2, p2 = t < 6;
    cr_assert_eq(iu_reg(r, t, 2), t + 100);
    cr_assert_eq(iu_reg(r, t, 3), t << 2);
    cr_assert_eq(iu_reg(r, t, 4), (uint32_t)(p1 && p2), "and, lane %u", t);
    cr_assert_eq(iu_reg(r, t, 5), (uint32_t)(p1 != p2), "xor, lane %u", t);
    cr_assert_eq(iu_reg(r, t, 6), (uint32_t)!p1, "not, lane %u", t);
    IU_EXPECT_REGS(r, t, {7, 1}, {8, 0}, {9, (uint32_t)(t != 3)}, {10, (uint32_t)(t >= 7)},
                   {11, (uint32_t)(t == 5)});
  }
  iu_free(r);
}

Test(alu_moves, guards_narrow_one_instruction) {
  const char *text = ".kernel t\n.registers 8\n"
                     "    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 1\n"
                     "    and r3, r1, r2\n"
                     "    icmp_ne p1, r3, 0\n"      /* odd lanes */
                     "    mov_imm r4, 7\n"
                     "    @p1 mov_imm r4, 9\n"
                     "    @!p1 iadd r4, r4, r2\n"
                     "    @p1 icmp_eq p2, r1, r1\n"  /* writes p2 only in odd lanes */
                     "    @p0 mov_imm r5, 3\n"
                     "    halt\n.end\n";
  wave_launch_config cfg = iu_config(1, 8);
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  for (uint32_t t = 0; t < 8; t++) {
    cr_assert_eq(iu_reg(r, t, 4), t & 1 ? 9u : 8u);
    cr_assert_eq(iu_pred(r, t, 2), (t & 1) != 0);
    cr_assert_eq(iu_reg(r, t, 5), 3, "the parser reads @p0 as no guard, as every tool does");
  }
  iu_free(r);
}

/* ---- memory ---------------------------------------------------------------------- */

static iu_result *run_mem(const char *code, size_t mem_size) {
  char text[4096];
  snprintf(text, sizeof text, ".kernel t\n.registers 24\n.local_memory 64\n%s\n    halt\n.end\n",
           code);
  static uint8_t init[32];
  for (int i = 0; i < 32; i++)
    init[i] = (uint8_t)(i + 1);
  wave_launch_config cfg = iu_config(1, 1);
  cfg.device_memory_size = mem_size;
  cfg.memory_init = init;
  cfg.memory_init_size = sizeof init;
  return iu_run(text, &cfg);
}

Test(alu_mem, device_loads_are_little_endian_and_unaligned) {
  const char *code = "    mov_imm r1, 1\n"
                     "    device_load_u8 r2, r1\n"
                     "    device_load_u16 r3, r1\n"
                     "    device_load_u32 r4, r1\n"
                     "    device_load_u64 r5, r1\n"
                     "    device_load_u128 r8, r1\n"
                     "    mov_imm r12, 3\n"
                     "    device_load_u32 r12, r12\n"; /* rd = address register */
  iu_result *r = iu_ok_or_fail(run_mem(code, 4096));
  IU_EXPECT_REGS(r, 0, {2, 0x02}, {3, 0x0302}, {4, 0x05040302u}, {5, 0x05040302u}, {6, 0x09080706u},
                 {8, 0x05040302u}, {9, 0x09080706u}, {10, 0x0D0C0B0Au}, {11, 0x11100F0Eu},
                 {12, 0x07060504u});
  iu_free(r);
}

Test(alu_mem, stores_write_only_their_width) {
  const char *code = "    mov_imm r1, 0x100\n    mov_imm r2, 0x12345678\n"
                     "    mov_imm r3, 0x9ABCDEF0\n    mov_imm r4, 0x0BADF00D\n"
                     "    mov_imm r5, 0xCAFEBABE\n"
                     "    device_store_u8 r1, r2\n"
                     "    mov_imm r6, 0x104\n    device_store_u16 r6, r2\n"
                     "    mov_imm r6, 0x109\n    device_store_u32 r6, r2\n"
                     "    mov_imm r6, 0x110\n    device_store_u64 r6, r2\n"
                     "    mov_imm r6, 0x120\n    device_store_u128 r6, r2\n";
  iu_result *r = iu_ok_or_fail(run_mem(code, 4096));
  IU_EXPECT_WORDS(r, {0x100, 0x78}, {0x104, 0x5678}, {0x108, 0x34567800u}, {0x10C, 0x12},
                 {0x110, 0x12345678u}, {0x114, 0x9ABCDEF0u}, {0x118, 0}, {0x120, 0x12345678u},
                 {0x124, 0x9ABCDEF0u}, {0x128, 0x0BADF00Du}, {0x12C, 0xCAFEBABEu});
  iu_free(r);
}

Test(alu_mem, local_memory_round_trip) {
  const char *code = "    mov_imm r1, 8\n    mov_imm r2, 0x11223344\n    mov_imm r3, 0x55667788\n"
                     "    local_store_u64 r1, r2\n"
                     "    local_load_u8 r10, r1\n"
                     "    local_load_u16 r11, r1\n"
                     "    mov_imm r4, 11\n    local_load_u32 r12, r4\n"
                     "    local_load_u64 r13, r1\n"
                     "    mov_imm r4, 60\n    local_store_u16 r4, r3\n"
                     "    local_load_u32 r15, r4\n";
  iu_result *r = iu_ok_or_fail(run_mem(code, 4096));
  IU_EXPECT_REGS(r, 0, {10, 0x44}, {11, 0x3344}, {12, 0x66778811u}, {13, 0x11223344u},
                 {14, 0x55667788u}, {15, 0x7788u});
  iu_free(r);
}

Test(alu_mem, out_of_bounds_accesses_are_errors) {
  iu_result *r = run_mem("    mov_imm r1, 4094\n    device_load_u32 r2, r1\n", 4096);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_OUT_OF_BOUNDS);
  cr_assert_not_null(strstr(iu_error_message(r), "device"), "%s", iu_error_message(r));
  cr_assert_eq(wave_machine_error(r->machine)->loc.line, 5);
  iu_free(r);
  r = run_mem("    mov_imm r1, 4092\n    device_load_u32 r2, r1\n", 4096);
  cr_assert(iu_ok(r), "the last word is in range: %s", iu_error_message(r));
  iu_free(r);
  r = run_mem("    mov_imm r1, 60\n    local_store_u64 r1, r1\n", 4096);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_OUT_OF_BOUNDS);
  cr_assert_not_null(strstr(iu_error_message(r), "local"), "%s", iu_error_message(r));
  iu_free(r);
  r = run_mem("    mov_imm r1, 0xFFFFFFFF\n    device_store_u8 r1, r1\n", 4096);
  iu_free_expecting(r, WAVE_ERR_OUT_OF_BOUNDS);
}

/* ---- atomics --------------------------------------------------------------------- */

static iu_result *run_lanes(const char *code, uint32_t lanes) {
  char text[4096];
  snprintf(text, sizeof text,
           ".kernel t\n.registers 16\n.local_memory 64\n"
           "    mov_sr r1, sr_lane_id\n    mov_imm r15, 1\n    iadd r2, r1, r15\n"
           "%s\n    halt\n.end\n",
           code);
  wave_launch_config cfg = iu_config(1, lanes);
  cfg.device_memory_size = 4096;
  return iu_run(text, &cfg);
}

Test(alu_atomic, lanes_apply_one_at_a_time_in_order) {
  /* lane l adds l + 1 to the word at 0x40: lanes see 0, 1, 3, 6 */
  const char *code = "    mov_imm r3, 0x40\n    atomic_add r4, r3, r2, .device\n"
                     "    mov_imm r5, 0\n    local_atomic_add r6, r5, r2\n"
                     "    local_load_u32 r7, r5\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 4));
  uint32_t olds[4] = {0, 1, 3, 6};
  for (uint32_t t = 0; t < 4; t++) {
    IU_EXPECT_REGS(r, t, {4, olds[t]}, {6, olds[t]}, {7, 10});
  }
  cr_assert_eq(iu_u32(r, 0x40), 10);
  iu_free(r);
}

Test(alu_atomic, min_max_are_unsigned_and_others_wrap) {
  const char *code = "    mov_imm r3, 0x40\n    mov_imm r4, 0xFFFFFFFF\n"
                     "    device_store_u32 r3, r4\n"      /* 0x40 = 0xFFFFFFFF */
                     "    atomic_min r5, r3, r2, .device\n"
                     "    mov_imm r6, 0x44\n"
                     "    atomic_max r7, r6, r4, .device\n"
                     "    mov_imm r6, 0x48\n"
                     "    atomic_sub r7, r6, r2, .device\n"
                     "    mov_imm r6, 0x4C\n"
                     "    atomic_or r7, r6, r2, .device\n"
                     "    mov_imm r6, 0x50\n"
                     "    atomic_xor r7, r6, r2, .device\n"
                     "    mov_imm r6, 0x54\n"
                     "    atomic_exchange r8, r6, r2, .device\n"
                     "    mov_imm r6, 0x58\n"
                     "    atomic_and r7, r6, r2, .device\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 3));
  cr_assert_eq(iu_u32(r, 0x40), 1);
  cr_assert_eq(iu_reg(r, 0, 5), 0xFFFFFFFFu);
  cr_assert_eq(iu_reg(r, 1, 5), 1);
  IU_EXPECT_WORDS(r, {0x44, 0xFFFFFFFFu}, {0x48, (uint32_t)-6}, {0x4C, 3}, {0x50, 1 ^ 2 ^ 3},
                 {0x54, 3});
  cr_assert_eq(iu_reg(r, 2, 8), 2);
  cr_assert_eq(iu_u32(r, 0x58), 0);
  iu_free(r);
}

Test(alu_atomic, compare_and_swap_uses_the_documented_order) {
  /* mem = 5; every lane tries cas(expected 5, desired 100 + lane): only lane 0 wins */
  const char *code = "    mov_imm r3, 0x40\n    mov_imm r4, 5\n    device_store_u32 r3, r4\n"
                     "    iadd r5, r1, 100\n"
                     "    atomic_cas r6, r3, r4, r5, .device\n"
                     "    mov_imm r7, 4\n    local_store_u32 r7, r4\n"
                     "    local_atomic_cas r8, r7, r4, r5\n"
                     "    local_load_u32 r9, r7\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 3));
  cr_assert_eq(iu_u32(r, 0x40), 100);
  cr_assert_eq(iu_reg(r, 0, 6), 5);
  cr_assert_eq(iu_reg(r, 1, 6), 100);
  IU_EXPECT_REGS(r, 2, {6, 100}, {8, 100}, {9, 100});
  iu_free(r);
}

Test(alu_atomic, r0_or_omitted_destination_returns_nothing) {
  const char *code = "    mov_imm r0, 1234\n    mov_imm r3, 0x40\n"
                     "    atomic_add r0, r3, r2, .device\n"
                     "    atomic_add r3, r2, .device\n"
                     "    mov_imm r4, 0x20\n    local_atomic_add r4, r2\n"
                     "    local_load_u32 r5, r4\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 2));
  cr_assert_eq(iu_reg(r, 0, 0), 1234);
  cr_assert_eq(iu_reg(r, 1, 0), 1234);
  cr_assert_eq(iu_reg(r, 0, 3), 0x40);
  cr_assert_eq(iu_u32(r, 0x40), 6);
  cr_assert_eq(iu_reg(r, 0, 5), 3);
  iu_free(r);
}

Test(alu_atomic, out_of_bounds_atomic_changes_nothing) {
  iu_result *r = run_lanes(
      "    mov_imm r3, 4092\n    iadd r3, r3, r1\n    atomic_add r4, r3, r2, .device\n", 2);
  cr_assert_eq(iu_error_kind(r), WAVE_ERR_OUT_OF_BOUNDS);
  cr_assert_eq(wave_machine_error(r->machine)->lanes, 0x2);
  cr_assert_eq(iu_u32(r, 4092), 0, "lane 0's add must not have happened");
  iu_free(r);
}

/* ---- wave operations ------------------------------------------------------------ */

Test(alu_wave, shuffles_read_inactive_sources_and_zero_out_of_range) {
  const char *code = "    mov_imm r15, 10\n    imul r3, r1, r15\n"  /* r3 = 10 * lane */
                     "    mov_imm r4, 1\n    and r5, r1, r4\n    icmp_eq p1, r5, 0\n"
                     "    mov_imm r6, 0xAAAA\n    mov r7, r6\n    mov r8, r6\n    mov r9, r6\n"
                     "    mov r10, r6\n"
                     "    if p1\n"                             /* even lanes only */
                     "        iadd r11, r1, 1\n"
                     "        wave_shuffle r6, r3, r11\n"      /* from the odd lane above */
                     "        wave_shuffle_up r7, r3, r4\n"
                     "        mov_imm r12, 3\n"
                     "        wave_shuffle_down r8, r3, r12\n"
                     "        wave_shuffle_xor r9, r3, r4\n"
                     "        mov_imm r13, 40\n"
                     "        wave_shuffle r10, r3, r13\n"     /* lane 40 >= W */
                     "    endif\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 8));
  for (uint32_t t = 0; t < 8; t++) {
    if (t & 1) {
      cr_assert_eq(iu_reg(r, t, 6), 0xAAAA, "inactive lanes are not written");
      continue;
    }
    cr_assert_eq(iu_reg(r, t, 6), 10 * (t + 1));
    cr_assert_eq(iu_reg(r, t, 7), t == 0 ? 0 : 10 * (t - 1));
    /* W is 32: lanes 8..31 exist (inactive, r3 = 0 there); only >= 32 would be out of range */
    IU_EXPECT_REGS(r, t, {8, t + 3 < 8 ? 10 * (t + 3) : 0}, {9, 10 * (t ^ 1)}, {10, 0});
  }
  iu_free(r);
}

Test(alu_wave, shuffle_down_past_the_wave_is_zero) {
  wave_launch_config cfg = iu_wave_config(8, 8);
  const char *text = ".kernel t\n.registers 8\n    mov_sr r1, sr_lane_id\n    iadd r2, r1, 1\n"
                     "    mov_imm r3, 2\n    wave_shuffle_down r4, r2, r3\n"
                     "    wave_shuffle_up r5, r2, r3\n    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  for (uint32_t t = 0; t < 8; t++) {
    cr_assert_eq(iu_reg(r, t, 4), t + 2 < 8 ? t + 3 : 0);
    cr_assert_eq(iu_reg(r, t, 5), t >= 2 ? t - 1 : 0);
  }
  iu_free(r);
}

Test(alu_wave, broadcast_ballot_any_all) {
  const char *code = "    mov_imm r15, 7\n    imul r3, r1, r15\n"    /* r3 = 7 * lane */
                     "    icmp_ge p1, r1, 2\n"                      /* lanes 2.. */
                     "    mov_imm r4, 1\n    and r5, r1, r4\n    icmp_eq p2, r5, 0\n" /* even */
                     "    iadd r6, r1, 3\n"                         /* rb = lane + 3 */
                     "    if p1\n"
                     "        wave_broadcast r7, r3, r6\n"          /* lowest active: 2 -> 5 */
                     "        wave_ballot r8, p2\n"
                     "        wave_any p3, p2\n"
                     "        wave_all p0, p2\n"
                     "    endif\n"
                     "    wave_all p1, p1\n"                        /* lanes 0, 1 say no */
                     "    icmp_eq p2, r1, r1\n"
                     "    wave_all p2, p2\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 6));
  for (uint32_t t = 2; t < 6; t++) {
    cr_assert_eq(iu_reg(r, t, 7), 35);
    cr_assert_eq(iu_reg(r, t, 8), 0x14); /* lanes 2 and 4 */
    cr_assert(iu_pred(r, t, 3));
    cr_assert_not(iu_pred(r, t, 0));
  }
  cr_assert_eq(iu_reg(r, 0, 7), 0);
  cr_assert_not(iu_pred(r, 0, 1));
  cr_assert(iu_pred(r, 0, 2));
  iu_free(r);
}

Test(alu_wave, ballot_keeps_bits_0_to_31_in_a_64_wide_wave) {
  wave_launch_config cfg = iu_wave_config(64, 64);
  const char *text = ".kernel t\n.registers 8\n    mov_sr r1, sr_lane_id\n"
                     "    mov_imm r2, 30\n    icmp_ge p1, r1, r2\n    wave_ballot r3, p1\n"
                     "    halt\n.end\n";
  iu_result *r = iu_ok_or_fail(iu_run(text, &cfg));
  cr_assert_eq(iu_reg(r, 0, 3), 0xC0000000u);
  cr_assert_eq(iu_reg(r, 63, 3), 0xC0000000u);
  iu_free(r);
}

Test(alu_wave, scans_and_reductions_over_active_lanes) {
  const char *code =
      "    mov_imm r4, 1\n    and r5, r1, r4\n    icmp_eq p1, r5, 0\n"
      "    mov_imm r6, 0xFFFFFFFF\n    icmp_eq p2, r1, 4\n    select r7, p2, r6, r2\n"
      "    if p1\n"                      /* lanes 0, 2, 4, 6 */
      "        wave_prefix_sum r8, r2\n" /* values 1, 3, 5, 7 */
      "        wave_reduce_add r9, r2\n"
      "        wave_reduce_min r10, r7\n" /* 1, 3, 0xFFFFFFFF, 7 */
      "        wave_reduce_max r11, r7\n"
      "        wave_prefix_sum r2, r2\n" /* rd = ra */
      "    endif\n";
  iu_result *r = iu_ok_or_fail(run_lanes(code, 8));
  uint32_t prefix[8] = {0, 0, 1, 0, 4, 0, 9, 0};
  for (uint32_t t = 0; t < 8; t += 2) {
    cr_assert_eq(iu_reg(r, t, 8), prefix[t], "lane %u", t);
    cr_assert_eq(iu_reg(r, t, 2), prefix[t], "lane %u", t);
    IU_EXPECT_REGS(r, t, {9, 16}, {10, 1}, {11, 0xFFFFFFFFu});
  }
  cr_assert_eq(iu_reg(r, 1, 9), 0);
  cr_assert_eq(iu_reg(r, 1, 2), 2);
  iu_free(r);
}

Test(alu_wave, reductions_wrap_and_a_guard_selects_participants) {
  const char *code = "    mov_imm r3, 0x80000000\n"
                     "    wave_reduce_add r4, r3\n"           /* 4 * 2^31 wraps to 0 */
                     "    icmp_lt p1, r1, 2\n"
                     "    @p1 wave_reduce_add r5, r2\n";       /* lanes 0, 1: 1 + 2 */
  iu_result *r = iu_ok_or_fail(run_lanes(code, 4));
  cr_assert_eq(iu_reg(r, 0, 4), 0);
  cr_assert_eq(iu_reg(r, 1, 5), 3);
  cr_assert_eq(iu_reg(r, 3, 5), 0);
  iu_free(r);
}

/* ---- MMA ------------------------------------------------------------------------ */

Test(alu_mma, per_lane_tiles_from_local_memory) {
  /* A = 2 * identity at local 0 (stride 16), B[i][j] = 4i + j at local 64 (stride 16);
   * C starts at zero, C += A*B twice -> 4 * B, stored at 128 with stride 32 */
  char code[4096];
  size_t n = 0;
  n += (size_t)snprintf(code + n, sizeof code - n, "    mov_imm r10, 0\n");
  for (int i = 0; i < 4; i++) {
    n += (size_t)snprintf(code + n, sizeof code - n,
                          "    mov_imm r11, %d\n    mov_imm r12, 0x40000000\n"
                          "    local_store_u32 r11, r12\n",
                          i * 16 + i * 4);
    for (int j = 0; j < 4; j++)
      n += (size_t)snprintf(
          code + n, sizeof code - n,
          "    mov_imm r11, %d\n    mov_imm r12, %u\n    local_store_u32 r11, r12\n",
          64 + i * 16 + j * 4, iu_bits((float)(4 * i + j)));
  }
  snprintf(code + n, sizeof code - n,
           "    mov_imm r13, 16\n    mov_imm r14, 64\n    mov_imm r15, 128\n    mov_imm r9, 32\n"
           "    mma_load_a r1, r10, r13\n    mma_load_b r2, r14, r13\n"
           "    mma_compute r1, r2, r3\n    mma_compute r1, r2, r3\n"
           "    mma_store_c r15, r9, r3\n"
           "    mma_store_c r10, r13, r7\n"); /* never computed: zeros over A */
  char text[8192];
  snprintf(text, sizeof text, ".kernel t\n.registers 16\n.local_memory 512\n%s    halt\n.end\n",
           code);
  iu_result *r = iu_ok_or_fail(iu_run(text, NULL));
  size_t size;
  const uint8_t *local = wave_machine_local_memory(r->machine, &size);
  cr_assert_eq(size, 512);
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      float c;
      memcpy(&c, local + 128 + i * 32 + j * 4, 4);
      cr_assert_eq(c, 4.0f * (float)(4 * i + j), "C[%d][%d]", i, j);
      float a;
      memcpy(&a, local + i * 16 + j * 4, 4);
      cr_assert_eq(a, 0.0f);
    }
  }
  iu_free(r);
}
