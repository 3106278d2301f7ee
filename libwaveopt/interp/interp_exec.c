/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-path semantics of every non-control instruction (the instruction sections of
 * docs/language.md), applied to a whole wave at once: each case loops over the lanes of the mask
 * on register rows. Control flow, scheduling and the lanes' fate (halt, barriers, calls) live in
 * interp.c / interp_thread.c.
 *
 * Nothing here writes before it has checked: memory instructions validate every lane's
 * address first, so a faulting instruction leaves memory and registers untouched.
 */
#include <math.h>
#include <string.h>

#include "interp/interp_exec.h"
#include "interp/interp_float.h"

static inline uint64_t full_mask(uint32_t width) {
  return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static inline unsigned lowest_lane(uint64_t m) {
#if defined(__GNUC__)
  return (unsigned)__builtin_ctzll(m);
#else
  unsigned n = 0;
  while (!(m & 1)) {
    m >>= 1;
    n++;
  }
  return n;
#endif
}

/* Runs the body with `l` bound to each lane of the mask in ascending order; a full mask takes
 * a plain counted loop instead of scanning bits. */
#define FOR_LANES(mask, width, ...)                                                           \
  do {                                                                                        \
    uint64_t m_ = (mask);                                                                     \
    if (m_ == full_mask(width)) {                                                             \
      for (uint32_t l = 0; l < (width); l++) {                                                \
        __VA_ARGS__;                                                                          \
      }                                                                                       \
    } else {                                                                                  \
      while (m_) {                                                                            \
        uint32_t l = lowest_lane(m_);                                                         \
        m_ &= m_ - 1;                                                                         \
        __VA_ARGS__;                                                                          \
      }                                                                                       \
    }                                                                                         \
  } while (0)

/* rd = the expression per lane, of x (UNARY), x, y (BINARY) or x, y, z (TERNARY) read from
 * the source rows; `rows` binds the rows and `load` one lane of them. */
#define LANEWISE(rows, load, ...)                                                             \
  do {                                                                                        \
    uint32_t *d = w->row[in->d];                                                              \
    rows;                                                                                     \
    FOR_LANES(mask, w->width, {                                                               \
      load;                                                                                   \
      d[l] = (__VA_ARGS__);                                                                   \
    });                                                                                       \
  } while (0)

#define UNARY(...) LANEWISE(const uint32_t *a = w->row[in->s[0]], uint32_t x = a[l], __VA_ARGS__)

#define BINARY(...)                                                                           \
  LANEWISE(const uint32_t *a = w->row[in->s[0]]; const uint32_t *b = w->row[in->s[1]],        \
           uint32_t x = a[l]; uint32_t y = b[l], __VA_ARGS__)

#define TERNARY(...)                                                                          \
  LANEWISE(const uint32_t *a = w->row[in->s[0]]; const uint32_t *b = w->row[in->s[1]];        \
           const uint32_t *c = w->row[in->s[2]],                                              \
           uint32_t x = a[l]; uint32_t y = b[l]; uint32_t z = c[l], __VA_ARGS__)

/* pd = the condition on x, y in the lanes of the mask; other lanes keep their bit */
#define COMPARE(...)                                                                         \
  do {                                                                                        \
    const uint32_t *a = w->row[in->s[0]], *b = w->row[in->s[1]];                              \
    uint64_t bits_ = 0;                                                                       \
    FOR_LANES(mask, w->width, {                                                               \
      uint32_t x = a[l], y = b[l];                                                            \
      bits_ |= (uint64_t)(__VA_ARGS__) << l;                                                  \
    });                                                                                       \
    w->pred[in->pd] = (w->pred[in->pd] & ~mask) | bits_;                                      \
  } while (0)

#define F(v) interp_f32(v)
#define B(v) interp_bits(v)
#define S(v) ((int32_t)(v))

static inline uint64_t pred_value(const interp_wave *w, const interp_instr *in, int i) {
  uint64_t p = w->pred[in->ps[i]];
  return in->ps_neg[i] ? ~p : p;
}

/* Which NaN an f32 operation returns is pinned down here rather than left to the host's
 * instruction selection (x86 returns the NaN of whichever register the compiler made the
 * destination): the first NaN operand in operand order, made quiet; an invalid operation on
 * operands that are not NaN (0 * inf, inf - inf, sqrt of a negative) gives x86's default NaN.
 * Both match what the upstream emulator computes on x86. `r` is the host's result. */
#define F32_QUIET_BIT 0x00400000u
#define F32_DEFAULT_NAN 0xFFC00000u

static bool is_nan_bits(uint32_t v) { return (v & 0x7FFFFFFFu) > 0x7F800000u; }

static uint32_t f32_nan3(uint32_t r, uint32_t x, uint32_t y, uint32_t z, unsigned n) {
  if (!is_nan_bits(r))
    return r;
  if (is_nan_bits(x))
    return x | F32_QUIET_BIT;
  if (n > 1 && is_nan_bits(y))
    return y | F32_QUIET_BIT;
  if (n > 2 && is_nan_bits(z))
    return z | F32_QUIET_BIT;
  return F32_DEFAULT_NAN;
}
#define F32_NAN1(r, x) f32_nan3((r), (x), 0, 0, 1)
#define F32_NAN2(r, x, y) f32_nan3((r), (x), (y), 0, 2)
#define F32_NAN3(r, x, y, z) f32_nan3((r), (x), (y), (z), 3)

static uint32_t fdiv(uint32_t x, uint32_t y) {
  float b = F(y);
  /* Division by either zero gives +inf whatever the dividend, NaN included
   * (docs/language.md "Floating point"). */
  return b == 0.0f ? 0x7F800000u : F32_NAN2(B(F(x) / b), x, y);
}

static uint32_t idiv(uint32_t x, uint32_t y) {
  if (y == 0)
    return 0;
  if (x == 0x80000000u && y == 0xFFFFFFFFu)
    return x;
  return (uint32_t)(S(x) / S(y));
}

static uint32_t imod(uint32_t x, uint32_t y) {
  if (y == 0 || (x == 0x80000000u && y == 0xFFFFFFFFu))
    return 0;
  return (uint32_t)(S(x) % S(y));
}

static uint32_t bitfind(uint32_t x) {
  if (x == 0)
    return 0xFFFFFFFFu;
  uint32_t n = 0;
  while (!(x & 0x80000000u)) {
    x <<= 1;
    n++;
  }
  return n;
}

static uint32_t bitcount(uint32_t x) {
  uint32_t n = 0;
  for (; x; x &= x - 1)
    n++;
  return n;
}

static uint32_t bitrev(uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i++, x >>= 1)
    r = (r << 1) | (x & 1);
  return r;
}

static uint32_t bfe(uint32_t x, uint32_t off, uint32_t wid) {
  uint32_t o = off & 31, n = wid & 31;
  return n == 0 ? 0 : (x >> o) & ((1u << n) - 1);
}

static uint32_t bfi(uint32_t base, uint32_t ins, uint32_t off, uint32_t wid) {
  uint32_t o = off & 31, n = wid & 31;
  if (n == 0)
    return base;
  uint32_t m = ((1u << n) - 1) << o;
  return (base & ~m) | ((ins << o) & m);
}

/* minNum/maxNum: a NaN operand, signalling or quiet, is ignored; the host's fminf would
 * return NaN for a signalling one. Two NaNs follow the rule of f32_nan3. */
static uint32_t fminmax(uint32_t x, uint32_t y, bool max) {
  if (is_nan_bits(x) || is_nan_bits(y))
    return is_nan_bits(x) ? (is_nan_bits(y) ? x | F32_QUIET_BIT : y) : x;
  return B(max ? fmaxf(F(x), F(y)) : fminf(F(x), F(y)));
}

/* ---- faults --------------------------------------------------------------------------- */

static bool fault_at(interp_fault *f, wave_error_kind kind, uint64_t lanes) {
  f->kind = kind;
  f->lanes = lanes;
  return false;
}

/* Lanes of `mask` whose divisor is zero (idiv/imod), which is undefined behaviour. */
static bool check_divisor(const interp_instr *in, interp_wave *w, uint64_t mask,
                          const interp_mem *mem, interp_fault *f) {
  if (mem->emulator_fallbacks)
    return true;
  const uint32_t *b = w->row[in->s[1]];
  uint64_t bad = 0;
  FOR_LANES(mask, w->width, { bad |= (uint64_t)(b[l] == 0) << l; });
  return bad ? fault_at(f, WAVE_ERR_DIV_ZERO, bad) : true;
}

static bool check_clamp(const interp_instr *in, interp_wave *w, uint64_t mask, bool is_float,
                        interp_fault *f) {
  const uint32_t *lo = w->row[in->s[1]], *hi = w->row[in->s[2]];
  uint64_t bad = 0;
  FOR_LANES(mask, w->width, {
    bool wrong = is_float ? !(F(lo[l]) <= F(hi[l])) : S(lo[l]) > S(hi[l]);
    bad |= (uint64_t)wrong << l;
  });
  return bad ? fault_at(f, WAVE_ERR_BAD_CLAMP, bad) : true;
}

/* Checks that every lane's access [addr + offset, addr + offset + bytes) lies in the image;
 * `stride_row` (or NULL) adds a per-lane row stride for MMA tiles spanning `rows` rows. */
static bool check_span(const uint32_t *addr, const uint32_t *stride_row, uint32_t rows,
                       uint32_t bytes, uint64_t mask, uint32_t width, size_t size, bool local,
                       interp_fault *f) {
  uint64_t bad = 0;
  uint64_t first = 0;
  FOR_LANES(mask, width, {
    uint64_t lo = addr[l];
    uint64_t last_row = stride_row ? (uint64_t)stride_row[l] * (rows - 1) : 0;
    if (lo + last_row + bytes > size) {
      if (!bad)
        first = lo;
      bad |= 1ull << l;
    }
  });
  if (!bad)
    return true;
  f->address = first;
  f->bytes = bytes;
  f->local = local;
  return fault_at(f, WAVE_ERR_OUT_OF_BOUNDS, bad);
}

static inline uint32_t load_le(const uint8_t *p, uint32_t bytes) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < bytes; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static inline void store_le(uint8_t *p, uint32_t v, uint32_t bytes) {
  for (uint32_t i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* Constant widths let the compiler turn the byte loops into single moves. */
static inline uint32_t load32(const uint8_t *p) { return load_le(p, 4); }
static inline void store32(uint8_t *p, uint32_t v) { store_le(p, v, 4); }

/* Loads 1, 2 or 4 bytes into rd, or 8 / 16 bytes into rd, rd+1, ... */
static bool load(const interp_instr *in, interp_wave *w, uint64_t mask, const uint8_t *base,
                 size_t size, bool local, uint32_t bytes, interp_fault *f) {
  const uint32_t *a = w->row[in->s[0]];
  if (!check_span(a, NULL, 1, bytes, mask, w->width, size, local, f))
    return false;
  uint32_t *d = w->row[in->d];
  switch (bytes) {
  case 1: FOR_LANES(mask, w->width, { d[l] = base[a[l]]; }); break;
  case 2: FOR_LANES(mask, w->width, { d[l] = load_le(base + a[l], 2); }); break;
  case 4: FOR_LANES(mask, w->width, { d[l] = load32(base + a[l]); }); break;
  default:
    /* each lane reads its address before writing: rd..rd+3 may hold it */
    FOR_LANES(mask, w->width, {
      const uint8_t *p = base + a[l];
      uint32_t v[4];
      for (uint32_t k = 0; k < bytes / 4; k++)
        v[k] = load32(p + 4 * k);
      for (uint32_t k = 0; k < bytes / 4; k++)
        w->row[in->d + k][l] = v[k];
    });
    break;
  }
  return true;
}

/* Lane order decides which store wins when lanes share an address. */
static bool store(const interp_instr *in, interp_wave *w, uint64_t mask, uint8_t *base,
                  size_t size, bool local, uint32_t bytes, interp_fault *f) {
  const uint32_t *a = w->row[in->s[0]], *v = w->row[in->s[1]];
  if (!check_span(a, NULL, 1, bytes, mask, w->width, size, local, f))
    return false;
  switch (bytes) {
  case 1: FOR_LANES(mask, w->width, { base[a[l]] = (uint8_t)v[l]; }); break;
  case 2: FOR_LANES(mask, w->width, { store_le(base + a[l], v[l], 2); }); break;
  case 4: FOR_LANES(mask, w->width, { store32(base + a[l], v[l]); }); break;
  default:
    FOR_LANES(mask, w->width, {
      for (uint32_t k = 0; k < bytes / 4; k++)
        store32(base + a[l] + 4 * k, w->row[in->s[1] + k][l]);
    });
    break;
  }
  return true;
}

static uint32_t atomic_new(uint16_t op, uint32_t old, uint32_t v, uint32_t desired) {
  switch (op) {
  case WAVE_OP_LOCAL_ATOMIC_ADD: case WAVE_OP_ATOMIC_ADD: return old + v;
  case WAVE_OP_LOCAL_ATOMIC_SUB: case WAVE_OP_ATOMIC_SUB: return old - v;
  case WAVE_OP_LOCAL_ATOMIC_MIN: case WAVE_OP_ATOMIC_MIN: return v < old ? v : old;
  case WAVE_OP_LOCAL_ATOMIC_MAX: case WAVE_OP_ATOMIC_MAX: return v > old ? v : old;
  case WAVE_OP_LOCAL_ATOMIC_AND: case WAVE_OP_ATOMIC_AND: return old & v;
  case WAVE_OP_LOCAL_ATOMIC_OR: case WAVE_OP_ATOMIC_OR: return old | v;
  case WAVE_OP_LOCAL_ATOMIC_XOR: case WAVE_OP_ATOMIC_XOR: return old ^ v;
  case WAVE_OP_LOCAL_ATOMIC_EXCHANGE: case WAVE_OP_ATOMIC_EXCHANGE: return v;
  default: /* CAS in the documented order: compare with rb, store rc */
    return old == v ? desired : old;
  }
}

/* One lane at a time in ascending lane order, so lanes sharing an address see each other. */
static bool atomic(const interp_instr *in, interp_wave *w, uint64_t mask, uint8_t *base,
                   size_t size, bool local, interp_fault *f) {
  const uint32_t *a = w->row[in->s[0]], *v = w->row[in->s[1]];
  bool cas = in->op == WAVE_OP_ATOMIC_CAS || in->op == WAVE_OP_LOCAL_ATOMIC_CAS;
  const uint32_t *desired = cas ? w->row[in->s[2]] : v;
  if (!check_span(a, NULL, 1, 4, mask, w->width, size, local, f))
    return false;
  uint32_t old[WAVE_MAX_WAVE_WIDTH];
  FOR_LANES(mask, w->width, {
    uint8_t *p = base + a[l];
    old[l] = load32(p);
    store32(p, atomic_new(in->op, old[l], v[l], desired[l]));
  });
  if (in->d != INTERP_NO_REG) {
    uint32_t *d = w->row[in->d];
    FOR_LANES(mask, w->width, { d[l] = old[l]; });
  }
  return true;
}

/* ---- wave operations ------------------------------------------------------------------ */

static void shuffle(const interp_instr *in, interp_wave *w, uint64_t mask) {
  const uint32_t *a = w->row[in->s[0]], *b = w->row[in->s[1]];
  uint64_t width = w->width;
  uint32_t out[WAVE_MAX_WAVE_WIDTH];
  FOR_LANES(mask, w->width, {
    uint64_t src;
    switch (in->op) {
    case WAVE_OP_WAVE_SHUFFLE: src = b[l]; break;
    case WAVE_OP_WAVE_SHUFFLE_UP: src = b[l] > l ? width : l - b[l]; break;
    case WAVE_OP_WAVE_SHUFFLE_DOWN: src = (uint64_t)l + b[l]; break;
    default: src = l ^ b[l]; break;
    }
    /* The source lane's register is read even when that lane is inactive. */
    out[l] = src < width ? a[src] : 0;
  });
  uint32_t *d = w->row[in->d];
  FOR_LANES(mask, w->width, { d[l] = out[l]; });
}

static void wave_op(const interp_instr *in, interp_wave *w, uint64_t mask) {
  uint32_t *d = in->d == INTERP_NO_REG ? NULL : w->row[in->d];
  const uint32_t *a = in->s[0] == INTERP_NO_REG ? NULL : w->row[in->s[0]];
  switch (in->op) {
  case WAVE_OP_WAVE_SHUFFLE: case WAVE_OP_WAVE_SHUFFLE_UP: case WAVE_OP_WAVE_SHUFFLE_DOWN:
  case WAVE_OP_WAVE_SHUFFLE_XOR:
    shuffle(in, w, mask);
    return;
  case WAVE_OP_WAVE_BROADCAST: {
    if (!mask)
      return;
    uint64_t src = w->row[in->s[1]][lowest_lane(mask)];
    uint32_t v = src < w->width ? a[src] : 0;
    FOR_LANES(mask, w->width, { d[l] = v; });
    return;
  }
  case WAVE_OP_WAVE_BALLOT: {
    uint32_t bits = (uint32_t)(mask & pred_value(w, in, 0));
    FOR_LANES(mask, w->width, { d[l] = bits; });
    return;
  }
  case WAVE_OP_WAVE_ANY:
  case WAVE_OP_WAVE_ALL: {
    uint64_t p = pred_value(w, in, 0);
    bool r = in->op == WAVE_OP_WAVE_ANY ? (mask & p) != 0 : (mask & ~p) == 0;
    w->pred[in->pd] = r ? w->pred[in->pd] | mask : w->pred[in->pd] & ~mask;
    return;
  }
  case WAVE_OP_WAVE_PREFIX_SUM: {
    uint32_t sum = 0;
    FOR_LANES(mask, w->width, {
      uint32_t x = a[l];
      d[l] = sum;
      sum += x;
    });
    return;
  }
  default: { /* reductions: u32 sum, unsigned min / max */
    uint32_t r = in->op == WAVE_OP_WAVE_REDUCE_MIN ? 0xFFFFFFFFu : 0;
    FOR_LANES(mask, w->width, {
      uint32_t x = a[l];
      r = in->op == WAVE_OP_WAVE_REDUCE_ADD   ? r + x
          : in->op == WAVE_OP_WAVE_REDUCE_MIN ? (x < r ? x : r)
                                              : (x > r ? x : r);
    });
    FOR_LANES(mask, w->width, { d[l] = r; });
    return;
  }
  }
}

/* ---- MMA (per-lane 4x4 f32 tiles) -------------------------------------------------------- */

enum { BANK_A, BANK_B, BANK_C, NUM_BANKS };

static float *fragment(interp_wave *w, uint32_t slot, int bank, uint32_t lane) {
  return w->frags + (((size_t)slot * NUM_BANKS + (size_t)bank) * w->width + lane) * INTERP_MMA_TILE;
}

static bool mma(const interp_instr *in, interp_wave *w, uint64_t mask, interp_mem *mem,
                interp_fault *f) {
  uint32_t row_bytes = INTERP_MMA_DIM * 4;
  if (in->op == WAVE_OP_MMA_COMPUTE) {
    FOR_LANES(mask, w->width, {
      const float *A = fragment(w, in->frag[0], BANK_A, l);
      const float *Bm = fragment(w, in->frag[1], BANK_B, l);
      float *C = fragment(w, in->frag[2], BANK_C, l);
      for (int i = 0; i < INTERP_MMA_DIM; i++) {
        for (int j = 0; j < INTERP_MMA_DIM; j++) {
          float acc = C[i * INTERP_MMA_DIM + j];
          for (int k = 0; k < INTERP_MMA_DIM; k++)
            acc += A[i * INTERP_MMA_DIM + k] * Bm[k * INTERP_MMA_DIM + j];
          C[i * INTERP_MMA_DIM + j] = acc;
        }
      }
    });
    return true;
  }
  const uint32_t *addr = w->row[in->s[0]], *stride = w->row[in->s[1]];
  if (!check_span(addr, stride, INTERP_MMA_DIM, row_bytes, mask, w->width, mem->local_size,
                  true, f))
    return false;
  bool store_c = in->op == WAVE_OP_MMA_STORE_C;
  int bank = in->op == WAVE_OP_MMA_LOAD_A ? BANK_A : in->op == WAVE_OP_MMA_LOAD_B ? BANK_B : BANK_C;
  FOR_LANES(mask, w->width, {
    float *tile = fragment(w, in->frag[0], bank, l);
    for (uint32_t i = 0; i < INTERP_MMA_DIM; i++) {
      uint8_t *p = mem->local + addr[l] + (uint64_t)stride[l] * i;
      for (uint32_t k = 0; k < INTERP_MMA_DIM; k++) {
        if (store_c)
          store32(p + 4 * k, B(tile[i * INTERP_MMA_DIM + k]));
        else
          tile[i * INTERP_MMA_DIM + k] = F(load32(p + 4 * k));
      }
    }
  });
  return true;
}

/* ---- dispatch ------------------------------------------------------------------------- */

bool interp_exec(const interp_instr *in, interp_wave *w, uint64_t mask, interp_mem *mem,
                 interp_fault *f) {
  if (!mask)
    return true;
  switch (in->op) {
  /* integer */
  case WAVE_OP_IADD: BINARY(x + y); break;
  case WAVE_OP_ISUB: BINARY(x - y); break;
  case WAVE_OP_IMUL: BINARY(x * y); break;
  case WAVE_OP_IMUL_HI: BINARY((uint32_t)(((uint64_t)x * y) >> 32)); break;
  case WAVE_OP_IMAD: TERNARY(x * y + z); break;
  case WAVE_OP_IDIV:
    if (!check_divisor(in, w, mask, mem, f))
      return false;
    BINARY(idiv(x, y));
    break;
  case WAVE_OP_IMOD:
    if (!check_divisor(in, w, mask, mem, f))
      return false;
    BINARY(imod(x, y));
    break;
  case WAVE_OP_INEG: UNARY(0u - x); break;
  case WAVE_OP_IABS: UNARY(S(x) < 0 ? 0u - x : x); break;
  case WAVE_OP_IMIN: BINARY(S(x) < S(y) ? x : y); break;
  case WAVE_OP_IMAX: BINARY(S(x) > S(y) ? x : y); break;
  case WAVE_OP_ICLAMP:
    if (!check_clamp(in, w, mask, false, f))
      return false;
    TERNARY(S(x) < S(y) ? y : S(x) > S(z) ? z : x);
    break;
  /* bitwise */
  case WAVE_OP_AND: BINARY(x & y); break;
  case WAVE_OP_OR: BINARY(x | y); break;
  case WAVE_OP_XOR: BINARY(x ^ y); break;
  case WAVE_OP_NOT: UNARY(~x); break;
  case WAVE_OP_SHL: BINARY(x << (y & 31)); break;
  case WAVE_OP_SHR: BINARY(x >> (y & 31)); break;
  case WAVE_OP_SAR: BINARY((uint32_t)(S(x) < 0 ? ~(~x >> (y & 31)) : x >> (y & 31))); break;
  case WAVE_OP_BITCOUNT: UNARY(bitcount(x)); break;
  case WAVE_OP_BITFIND: UNARY(bitfind(x)); break;
  case WAVE_OP_BITREV: UNARY(bitrev(x)); break;
  case WAVE_OP_BFE: TERNARY(bfe(x, y, z)); break;
  case WAVE_OP_BFI: {
    uint32_t *d = w->row[in->d];
    const uint32_t *a = w->row[in->s[0]], *b = w->row[in->s[1]], *c = w->row[in->s[2]],
                   *e = w->row[in->s[3]];
    FOR_LANES(mask, w->width, { d[l] = bfi(a[l], b[l], c[l], e[l]); });
    break;
  }
  /* f32 */
  case WAVE_OP_FADD: BINARY(F32_NAN2(B(F(x) + F(y)), x, y)); break;
  case WAVE_OP_FSUB: BINARY(F32_NAN2(B(F(x) - F(y)), x, y)); break;
  case WAVE_OP_FMUL: BINARY(F32_NAN2(B(F(x) * F(y)), x, y)); break;
  case WAVE_OP_FMA: TERNARY(F32_NAN3(B(fmaf(F(x), F(y), F(z))), x, y, z)); break;
  case WAVE_OP_FDIV: BINARY(fdiv(x, y)); break;
  case WAVE_OP_FNEG: UNARY(x ^ 0x80000000u); break;
  case WAVE_OP_FABS: UNARY(x & 0x7FFFFFFFu); break;
  case WAVE_OP_FMIN: BINARY(fminmax(x, y, false)); break;
  case WAVE_OP_FMAX: BINARY(fminmax(x, y, true)); break;
  case WAVE_OP_FCLAMP:
    if (!check_clamp(in, w, mask, true, f))
      return false;
    TERNARY(isnan(F(x)) ? x : F(x) < F(y) ? y : F(x) > F(z) ? z : x);
    break;
  case WAVE_OP_FSQRT: case WAVE_OP_FRSQRT: case WAVE_OP_FRCP: case WAVE_OP_FFLOOR:
  case WAVE_OP_FCEIL: case WAVE_OP_FROUND: case WAVE_OP_FTRUNC: case WAVE_OP_FFRACT:
  case WAVE_OP_FSAT: case WAVE_OP_FSIN: case WAVE_OP_FCOS: case WAVE_OP_FEXP2:
  case WAVE_OP_FLOG2:
  case WAVE_OP_CVT_F32_I32: case WAVE_OP_CVT_F32_U32: case WAVE_OP_CVT_I32_F32:
  case WAVE_OP_CVT_U32_F32: case WAVE_OP_CVT_F32_F16: case WAVE_OP_CVT_F16_F32:
  case WAVE_OP_CVT_F32_BF16: case WAVE_OP_CVT_BF16_F32:
    UNARY(interp_f32_unary(in->op, x));
    break;
  /* f16 / bf16 */
  case WAVE_OP_HADD: case WAVE_OP_HSUB: case WAVE_OP_HMUL: case WAVE_OP_HADD2:
  case WAVE_OP_HMUL2: case WAVE_OP_BADD: case WAVE_OP_BSUB: case WAVE_OP_BMUL:
  case WAVE_OP_BADD2: case WAVE_OP_BMUL2:
    BINARY(interp_half_op(in->op, x, y, 0));
    break;
  case WAVE_OP_HMA: case WAVE_OP_HMA2: case WAVE_OP_BMA: case WAVE_OP_BMA2:
    TERNARY(interp_half_op(in->op, x, y, z));
    break;
  /* f64 pairs; cvt between f32 and f64 */
  case WAVE_OP_DADD: case WAVE_OP_DSUB: case WAVE_OP_DMUL: case WAVE_OP_DMA:
  case WAVE_OP_DDIV: case WAVE_OP_DSQRT: case WAVE_OP_CVT_F32_F64: {
    uint32_t *d0 = w->row[in->d];
    uint32_t *d1 = in->op == WAVE_OP_CVT_F32_F64 ? NULL : w->row[in->d + 1];
    FOR_LANES(mask, w->width, {
      uint32_t av[2], bv[2] = {0, 0}, cv[2] = {0, 0}, hi;
      for (int k = 0; k < 2; k++) {
        av[k] = w->row[in->s[0] + k][l];
        if (in->s[1] != INTERP_NO_REG)
          bv[k] = w->row[in->s[1] + k][l];
        if (in->s[2] != INTERP_NO_REG)
          cv[k] = w->row[in->s[2] + k][l];
      }
      d0[l] = interp_f64_op(in->op, av, bv, cv, &hi);
      if (d1)
        d1[l] = hi;
    });
    break;
  }
  case WAVE_OP_CVT_F64_F32: {
    uint32_t *d0 = w->row[in->d], *d1 = w->row[in->d + 1];
    const uint32_t *a = w->row[in->s[0]];
    FOR_LANES(mask, w->width, {
      uint64_t bits = interp_f64_bits((double)F(a[l]));
      d0[l] = (uint32_t)bits;
      d1[l] = (uint32_t)(bits >> 32);
    });
    break;
  }
  /* compare and select (with the documentation dialect's extra compares) */
  case WAVE_OP_ICMP_EQ: case WAVE_OP_UCMP_EQ: COMPARE(x == y); break;
  case WAVE_OP_ICMP_NE: case WAVE_OP_UCMP_NE: COMPARE(x != y); break;
  case WAVE_OP_ICMP_LT: COMPARE(S(x) < S(y)); break;
  case WAVE_OP_ICMP_LE: COMPARE(S(x) <= S(y)); break;
  case WAVE_OP_ICMP_GT: COMPARE(S(x) > S(y)); break;
  case WAVE_OP_ICMP_GE: COMPARE(S(x) >= S(y)); break;
  case WAVE_OP_UCMP_LT: COMPARE(x < y); break;
  case WAVE_OP_UCMP_LE: COMPARE(x <= y); break;
  case WAVE_OP_UCMP_GT: COMPARE(x > y); break;
  case WAVE_OP_UCMP_GE: COMPARE(x >= y); break;
  case WAVE_OP_FCMP_EQ: COMPARE(F(x) == F(y)); break;
  case WAVE_OP_FCMP_NE: COMPARE(!(F(x) == F(y))); break;
  case WAVE_OP_FCMP_LT: COMPARE(F(x) < F(y)); break;
  case WAVE_OP_FCMP_LE: COMPARE(F(x) <= F(y)); break;
  case WAVE_OP_FCMP_GT: COMPARE(F(x) > F(y)); break;
  case WAVE_OP_FCMP_GE: COMPARE(F(x) >= F(y)); break;
  case WAVE_OP_FCMP_ORD: COMPARE(!isnan(F(x)) && !isnan(F(y))); break;
  case WAVE_OP_FCMP_UNORD: COMPARE(isnan(F(x)) || isnan(F(y))); break;
  case WAVE_OP_SELECT: {
    uint64_t p = pred_value(w, in, 0);
    BINARY((p >> l) & 1 ? x : y);
    break;
  }
  /* documentation-dialect predicate logic */
  case WAVE_OP_PAND: case WAVE_OP_POR: case WAVE_OP_PXOR: case WAVE_OP_PNOT: {
    uint64_t p = pred_value(w, in, 0);
    uint64_t q = in->op == WAVE_OP_PNOT ? 0 : pred_value(w, in, 1);
    uint64_t r = in->op == WAVE_OP_PAND ? p & q
                 : in->op == WAVE_OP_POR ? p | q
                 : in->op == WAVE_OP_PXOR ? p ^ q
                                         : ~p;
    w->pred[in->pd] = (w->pred[in->pd] & ~mask) | (r & mask);
    break;
  }
  /* moves: mov_imm and mov_sr read constant / special-register rows */
  case WAVE_OP_MOV: case WAVE_OP_MOV_IMM: case WAVE_OP_MOV_SR: UNARY(x); break;
  /* memory */
#define LOCAL(access, bytes) return access(in, w, mask, mem->local, mem->local_size, true, bytes, f)
#define DEVICE(access, bytes) \
  return access(in, w, mask, mem->device, mem->device_size, false, bytes, f)
  case WAVE_OP_LOCAL_LOAD_U8: LOCAL(load, 1);
  case WAVE_OP_LOCAL_LOAD_U16: LOCAL(load, 2);
  case WAVE_OP_LOCAL_LOAD_U32: LOCAL(load, 4);
  case WAVE_OP_LOCAL_LOAD_U64: LOCAL(load, 8);
  case WAVE_OP_LOCAL_STORE_U8: LOCAL(store, 1);
  case WAVE_OP_LOCAL_STORE_U16: LOCAL(store, 2);
  case WAVE_OP_LOCAL_STORE_U32: LOCAL(store, 4);
  case WAVE_OP_LOCAL_STORE_U64: LOCAL(store, 8);
  case WAVE_OP_DEVICE_LOAD_U8: DEVICE(load, 1);
  case WAVE_OP_DEVICE_LOAD_U16: DEVICE(load, 2);
  case WAVE_OP_DEVICE_LOAD_U32: DEVICE(load, 4);
  case WAVE_OP_DEVICE_LOAD_U64: DEVICE(load, 8);
  case WAVE_OP_DEVICE_LOAD_U128: DEVICE(load, 16);
  case WAVE_OP_DEVICE_STORE_U8: DEVICE(store, 1);
  case WAVE_OP_DEVICE_STORE_U16: DEVICE(store, 2);
  case WAVE_OP_DEVICE_STORE_U32: DEVICE(store, 4);
  case WAVE_OP_DEVICE_STORE_U64: DEVICE(store, 8);
  case WAVE_OP_DEVICE_STORE_U128: DEVICE(store, 16);
#undef LOCAL
#undef DEVICE
  default:
    break;
  }
  if (wave_opcode_table[in->op].category == WAVE_CAT_ATOMIC) {
    bool local = wave_opcode_has((wave_opcode)in->op, WAVE_F_LOCAL_MEM);
    return local ? atomic(in, w, mask, mem->local, mem->local_size, true, f)
                 : atomic(in, w, mask, mem->device, mem->device_size, false, f);
  }
  if (wave_opcode_table[in->op].category == WAVE_CAT_WAVE) {
    if (mem->thread_mode)
      return fault_at(f, WAVE_ERR_WAVE_OP_IN_THREAD, mask);
    wave_op(in, w, mask);
    return true;
  }
  if (wave_opcode_table[in->op].category == WAVE_CAT_MMA)
    return mma(in, w, mask, mem, f);
  return true; /* fences, wait, nop */
}

/* ---- register files ------------------------------------------------------------------- */

uint32_t **interp_const_rows_create(const interp_program *prog, uint32_t width) {
  /* one block: the row pointers, then the rows they point to */
  size_t n = prog->num_consts;
  uint32_t **rows = wave_mem_alloc(prog->allocator, n * (sizeof *rows + width * sizeof **rows));
  if (!rows)
    return NULL;
  uint32_t *data = (uint32_t *)(rows + n);
  for (size_t i = 0; i < n; i++) {
    rows[i] = data + i * width;
    for (uint32_t l = 0; l < width; l++)
      rows[i][l] = prog->consts[i];
  }
  return rows;
}

bool interp_wave_alloc(interp_wave *w, const interp_program *prog, uint32_t width,
                       uint32_t **const_rows) {
  memset(w, 0, sizeof *w);
  w->width = width;
  w->allocator = prog->allocator;
  size_t own = (size_t)prog->const_row; /* GPR and special-register rows */
  size_t rows = own + prog->num_consts;
  w->row = wave_mem_alloc(w->allocator, rows * sizeof *w->row);
  w->storage = wave_mem_calloc(w->allocator, own * width, sizeof *w->storage);
  size_t frag_floats = (size_t)prog->num_frags * NUM_BANKS * width * INTERP_MMA_TILE;
  w->frags = frag_floats ? wave_mem_calloc(w->allocator, frag_floats, sizeof *w->frags) : NULL;
  if (!w->row || !w->storage || (frag_floats && !w->frags)) {
    interp_wave_free(w);
    return false;
  }
  for (size_t r = 0; r < own; r++)
    w->row[r] = w->storage + r * width;
  for (size_t r = 0; r < prog->num_consts; r++)
    w->row[own + r] = const_rows[r];
  return true;
}

void interp_wave_free(interp_wave *w) {
  wave_mem_free(w->allocator, w->row);
  wave_mem_free(w->allocator, w->storage);
  wave_mem_free(w->allocator, w->frags);
  memset(w, 0, sizeof *w);
}

void interp_wave_reset(interp_wave *w, const interp_program *prog) {
  memset(w->storage, 0, (size_t)prog->num_gprs * w->width * sizeof *w->storage);
  memset(w->pred, 0, sizeof w->pred);
  if (w->frags)
    memset(w->frags, 0,
           (size_t)prog->num_frags * NUM_BANKS * w->width * INTERP_MMA_TILE * sizeof *w->frags);
}
