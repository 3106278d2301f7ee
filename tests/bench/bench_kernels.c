/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The corpus of the optimization benchmark (bench_kernels.h): per kernel the launch, the input
 * generator and the reference implementation, in the order of the table at the end.
 *
 * Each reference computes what the kernel's header comment says, in plain C and not by
 * transcribing the kernel: gcd by remainders, lower_bound by a linear scan, the sort by qsort,
 * crc32 through a lookup table. Floating-point results are compared bit for bit, so where the
 * kernel fixes an order of f32 operations (a sum, a fused multiply-add) the reference performs
 * the same operations in the same order; ISO C (-std=c11) does not contract a*b+c, and fmaf is
 * the only fused operation, as in the interpreter.
 */
#include "bench_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL32 0xDEADBEEFu

uint32_t bk_hash(uint32_t seed, uint32_t i) {
  uint32_t x = i * 0x9E3779B9u + seed * 0x632BE5ABu;
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

/* ---- memory access, little-endian whatever the host ----------------------------------------- */

static uint32_t rd32(const uint8_t *mem, size_t off) {
  const uint8_t *p = mem + off;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *mem, size_t off, uint32_t v) {
  for (int i = 0; i < 4; i++)
    mem[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static float bits_f32(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static uint32_t f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static float rdf(const uint8_t *mem, size_t off) { return bits_f32(rd32(mem, off)); }
static void wrf(uint8_t *mem, size_t off, float f) { wr32(mem, off, f32_bits(f)); }

/* `count` u32 words from `off` on. */
static void fill32(uint8_t *mem, size_t off, size_t count, uint32_t v) {
  for (size_t i = 0; i < count; i++)
    wr32(mem, off + 4 * i, v);
}

/* A signed value in [-range/2, range/2] from the hash, as the inputs' `hash % range - range/2`. */
static int32_t centred(uint32_t seed, uint32_t i, uint32_t range) {
  return (int32_t)(bk_hash(seed, i) % range) - (int32_t)(range / 2);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Sorts `count` u32 words at off. */
static void sort32(uint8_t *mem, size_t off, size_t count) {
  uint32_t *v = malloc(count * sizeof *v + 1);
  if (!v)
    return;
  for (size_t i = 0; i < count; i++)
    v[i] = rd32(mem, off + 4 * i);
  qsort(v, count, sizeof *v, cmp_u32);
  for (size_t i = 0; i < count; i++)
    wr32(mem, off + 4 * i, v[i]);
  free(v);
}

/* ---- relu ------------------------------------------------------------------------------------ */

enum { RELU_X = 0x0000, RELU_Y = 0x1000, RELU_LEN = 1024, RELU_N = 1000 };
#define RELU_SCALE 0x3FC00000u /* 1.5 */
#define RELU_BIAS 0xBE800000u  /* -0.25 */

static void relu_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < RELU_LEN; i++)
    wrf(mem, RELU_X + 4 * i, (float)centred(salt + 1, i, 2001) / 100.0f);
  fill32(mem, RELU_Y, RELU_LEN, SENTINEL32);
}

static void relu_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < RELU_N; i++) {
    float v = fmaf(rdf(mem, RELU_X + 4 * i), bits_f32(RELU_SCALE), bits_f32(RELU_BIAS));
    wrf(mem, RELU_Y + 4 * i, v < 0.0f ? 0.0f : v);
  }
}

/* ---- clamp_pixels ---------------------------------------------------------------------------- */

enum { CLAMP_IN = 0x000, CLAMP_OUT = 0x200, CLAMP_LEN = 512, CLAMP_CONTRAST = 384,
       CLAMP_BRIGHTNESS = -20 };

static void clamp_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < CLAMP_LEN; i++) {
    mem[CLAMP_IN + i] = (uint8_t)bk_hash(salt + 2, i);
    mem[CLAMP_OUT + i] = 0xEE;
  }
}

/* Arithmetic shift right of a negative value, which C leaves to the implementation. */
static int32_t sar(int32_t v, unsigned n) { return v >= 0 ? v >> n : -1 - ((-1 - v) >> n); }

static void clamp_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < CLAMP_LEN; i++) {
    int32_t v =
        sar(((int32_t)mem[CLAMP_IN + i] - 128) * CLAMP_CONTRAST, 8) + 128 + CLAMP_BRIGHTNESS;
    mem[CLAMP_OUT + i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

/* ---- leaky_relu ------------------------------------------------------------------------------ */

enum { LEAKY_X = 0x0000, LEAKY_Y = 0x1800, LEAKY_LEN = 1536, LEAKY_N = 1500 };
#define LEAKY_ALPHA 0x3C23D70Au /* 0.01 */

static void leaky_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < LEAKY_LEN; i++)
    wrf(mem, LEAKY_X + 4 * i, (float)centred(salt + 3, i, 2001) / 64.0f);
  fill32(mem, LEAKY_Y, LEAKY_LEN, SENTINEL32);
}

static void leaky_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < LEAKY_N; i++) {
    float x = rdf(mem, LEAKY_X + 4 * i);
    wrf(mem, LEAKY_Y + 4 * i, x > 0.0f ? x : x * bits_f32(LEAKY_ALPHA));
  }
}

/* ---- threshold ------------------------------------------------------------------------------- */

enum { THRESH_PIXELS = 0x0000, THRESH_OUT = 0x0800, THRESH_LEN = 512, THRESH_T = 100 };

static void threshold_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < THRESH_LEN; i++) {
    wr32(mem, THRESH_PIXELS + 4 * i, bk_hash(salt + 4, i));
    mem[THRESH_OUT + i] = 0x7F;
  }
}

static void threshold_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < THRESH_LEN; i++) {
    const uint8_t *rgba = mem + THRESH_PIXELS + 4 * i;
    uint32_t grey = (77u * rgba[0] + 150u * rgba[1] + 29u * rgba[2]) >> 8;
    mem[THRESH_OUT + i] = grey >= THRESH_T ? 255 : 0;
  }
}

/* ---- collatz --------------------------------------------------------------------------------- */

enum { COLLATZ_STEPS = 0x0000, COLLATZ_LEN = 512, COLLATZ_START = 1, COLLATZ_CAP = 1000 };

static void collatz_init(uint8_t *mem, uint32_t salt) {
  (void)salt; /* no generated inputs */
  fill32(mem, COLLATZ_STEPS, COLLATZ_LEN, SENTINEL32);
}

static void collatz_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < COLLATZ_LEN; i++) {
    uint32_t n = COLLATZ_START + i, steps = 0;
    for (; n != 1 && steps < COLLATZ_CAP; steps++)
      n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    wr32(mem, COLLATZ_STEPS + 4 * i, steps);
  }
}

/* ---- gcd ------------------------------------------------------------------------------------- */

enum { GCD_A = 0x000, GCD_B = 0x400, GCD_OUT = 0x800, GCD_LEN = 256 };

static void gcd_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < GCD_LEN; i++) {
    uint32_t f = 1 + bk_hash(salt + 5, i) % 8;
    wr32(mem, GCD_A + 4 * i, f * (1 + bk_hash(salt + 6, i) % 40));
    wr32(mem, GCD_B + 4 * i, f * (1 + bk_hash(salt + 7, i) % 40));
  }
  fill32(mem, GCD_OUT, GCD_LEN, SENTINEL32);
}

static void gcd_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < GCD_LEN; i++) {
    uint32_t a = rd32(mem, GCD_A + 4 * i), b = rd32(mem, GCD_B + 4 * i);
    while (b != 0) {
      uint32_t r = a % b;
      a = b;
      b = r;
    }
    wr32(mem, GCD_OUT + 4 * i, a);
  }
}

/* ---- crc32 ----------------------------------------------------------------------------------- */

enum { CRC_RECORDS = 0x000, CRC_OUT = 0x800, CRC_COUNT = 128, CRC_RECORD = 16 };

static void crc_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t j = 0; j < CRC_COUNT * CRC_RECORD; j++)
    mem[CRC_RECORDS + j] = (uint8_t)bk_hash(salt + 8, j);
  fill32(mem, CRC_OUT, CRC_COUNT, SENTINEL32);
}

static void crc_reference(uint8_t *mem) {
  uint32_t table[256];
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++)
      c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  for (uint32_t i = 0; i < CRC_COUNT; i++) {
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t j = 0; j < CRC_RECORD; j++)
      crc = table[(crc ^ mem[CRC_RECORDS + CRC_RECORD * i + j]) & 0xFF] ^ (crc >> 8);
    wr32(mem, CRC_OUT + 4 * i, ~crc);
  }
}

/* ---- binary_search --------------------------------------------------------------------------- */

enum { BS_KEYS = 0x0000, BS_N = 1024, BS_Q = 0x1000, BS_IDX = 0x1400, BS_QUERIES = 256 };

static void bsearch_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t j = 0; j < BS_N; j++)
    wr32(mem, BS_KEYS + 4 * j, 3 * j + bk_hash(salt + 9, j) % 3);
  for (uint32_t i = 0; i < BS_QUERIES; i++)
    wr32(mem, BS_Q + 4 * i, bk_hash(salt + 10, i) % 3100);
  fill32(mem, BS_IDX, BS_QUERIES, SENTINEL32);
}

static void bsearch_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < BS_QUERIES; i++) {
    uint32_t q = rd32(mem, BS_Q + 4 * i), j = 0;
    while (j < BS_N && rd32(mem, BS_KEYS + 4 * j) < q)
      j++;
    wr32(mem, BS_IDX + 4 * i, j);
  }
}

/* ---- bitonic_sort ---------------------------------------------------------------------------- */

enum { BITONIC_KEYS = 0x0000, BITONIC_OUT = 0x0800, BITONIC_LEN = 512, BITONIC_BLOCK = 256 };

static void bitonic_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < BITONIC_LEN; i++)
    wr32(mem, BITONIC_KEYS + 4 * i, bk_hash(salt + 11, i));
  fill32(mem, BITONIC_OUT, BITONIC_LEN, SENTINEL32);
}

static void bitonic_reference(uint8_t *mem) {
  memcpy(mem + BITONIC_OUT, mem + BITONIC_KEYS, 4 * BITONIC_LEN);
  for (uint32_t b = 0; b < BITONIC_LEN; b += BITONIC_BLOCK)
    sort32(mem, BITONIC_OUT + 4 * b, BITONIC_BLOCK);
}

/* ---- stencil --------------------------------------------------------------------------------- */

enum { STENCIL_IN = 0x0000, STENCIL_OUT = 0x1000, STENCIL_W = 32, STENCIL_H = 32 };

static void stencil_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < STENCIL_W * STENCIL_H; i++)
    wrf(mem, STENCIL_IN + 4 * i, (float)(bk_hash(salt + 12, i) % 1000) / 8.0f);
  fill32(mem, STENCIL_OUT, STENCIL_W * STENCIL_H, SENTINEL32);
}

static float stencil_at(const uint8_t *mem, int x, int y) {
  x = x < 0 ? 0 : x >= STENCIL_W ? STENCIL_W - 1 : x;
  y = y < 0 ? 0 : y >= STENCIL_H ? STENCIL_H - 1 : y;
  return rdf(mem, STENCIL_IN + 4 * (size_t)(y * STENCIL_W + x));
}

static void stencil_reference(uint8_t *mem) {
  for (int y = 0; y < STENCIL_H; y++) {
    for (int x = 0; x < STENCIL_W; x++) {
      float sum = stencil_at(mem, x - 1, y) + stencil_at(mem, x + 1, y);
      sum = sum + stencil_at(mem, x, y - 1);
      sum = sum + stencil_at(mem, x, y + 1);
      float out = stencil_at(mem, x, y) * 0.5f + sum * 0.125f;
      wrf(mem, STENCIL_OUT + 4 * (size_t)(y * STENCIL_W + x), out);
    }
  }
}

/* ---- decision_tree --------------------------------------------------------------------------- */

enum { TREE_SAMPLES = 0x0000, TREE_CLASSES = 0x0800, TREE_LEN = 512, TREE_N = 500,
       TREE_LEAVES = 64 };

static void tree_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < TREE_LEN; i++)
    wr32(mem, TREE_SAMPLES + 4 * i, bk_hash(salt + 18, i));
  fill32(mem, TREE_CLASSES, TREE_LEN, SENTINEL32);
}

static void tree_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < TREE_N; i++) {
    uint32_t sample = rd32(mem, TREE_SAMPLES + 4 * i), k = 1;
    while (k < TREE_LEAVES) {
      uint32_t feature = (sample >> (8 * ((5 * k + (k >> 3)) % 4))) & 0xFF;
      k = feature < (53 * k + 17) % 200 + 28 ? 2 * k : 2 * k + 1;
    }
    wr32(mem, TREE_CLASSES + 4 * i, (k - TREE_LEAVES) * 7 + 3);
  }
}

/* ---- prefix_sum ------------------------------------------------------------------------------ */

enum { SCAN_IN = 0x0000, SCAN_OUT = 0x1000, SCAN_LEN = 1024, SCAN_BLOCK = 256 };

static void scan_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < SCAN_LEN; i++)
    wr32(mem, SCAN_IN + 4 * i, bk_hash(salt + 13, i) % 1000);
  fill32(mem, SCAN_OUT, SCAN_LEN, SENTINEL32);
}

static void scan_reference(uint8_t *mem) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < SCAN_LEN; i++) {
    sum = (i % SCAN_BLOCK == 0 ? 0 : sum) + rd32(mem, SCAN_IN + 4 * i);
    wr32(mem, SCAN_OUT + 4 * i, sum);
  }
}

/* ---- nbody_cutoff ---------------------------------------------------------------------------- */

enum { NBODY_BODIES = 0x0000, NBODY_ACC = 0x1000, NBODY_N = 256 };
#define NBODY_CUT2 0x41100000u /* 9.0 */
#define NBODY_EPS2 0x3C23D70Au /* 0.01 */

static void nbody_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < NBODY_N; i++) {
    for (uint32_t c = 0; c < 3; c++)
      wrf(mem, NBODY_BODIES + 16 * i + 4 * c,
          (float)(bk_hash(salt + 14 + c, i) % 1000) / 100.0f - 5.0f);
    wrf(mem, NBODY_BODIES + 16 * i + 12, (float)(1 + bk_hash(salt + 17, i) % 4));
  }
  fill32(mem, NBODY_ACC, 4 * NBODY_N, SENTINEL32);
}

static void nbody_reference(uint8_t *mem) {
  const float cut2 = bits_f32(NBODY_CUT2), eps2 = bits_f32(NBODY_EPS2);
  for (uint32_t i = 0; i < NBODY_N; i++) {
    float acc[3] = {0.0f, 0.0f, 0.0f}, pi[3];
    for (int c = 0; c < 3; c++)
      pi[c] = rdf(mem, NBODY_BODIES + 16 * i + 4 * (size_t)c);
    for (uint32_t j = 0; j < NBODY_N; j++) {
      float d[3];
      for (int c = 0; c < 3; c++)
        d[c] = rdf(mem, NBODY_BODIES + 16 * j + 4 * (size_t)c) - pi[c];
      float r2 = fmaf(d[0], d[0], eps2);
      r2 = fmaf(d[1], d[1], r2);
      r2 = fmaf(d[2], d[2], r2);
      if (!(r2 < cut2))
        continue;
      float inv = 1.0f / sqrtf(r2);
      float s = inv * inv;
      s = s * inv;
      s = s * rdf(mem, NBODY_BODIES + 16 * j + 12);
      for (int c = 0; c < 3; c++)
        acc[c] = fmaf(d[c], s, acc[c]);
    }
    for (int c = 0; c < 3; c++)
      wrf(mem, NBODY_ACC + 16 * i + 4 * (size_t)c, acc[c]);
  }
}

/* ---- mandelbrot and julia -------------------------------------------------------------------- */

enum { FRACTAL_COUNTS = 0x0000, FRACTAL_PIXELS = 1024, MANDEL_MAX = 64, JULIA_MAX = 100 };

static void fractal_init(uint8_t *mem, uint32_t salt) {
  (void)salt; /* no generated inputs */
  fill32(mem, FRACTAL_COUNTS, FRACTAL_PIXELS, SENTINEL32);
}

static void mandelbrot_reference(uint8_t *mem) {
  for (uint32_t p = 0; p < FRACTAL_PIXELS; p++) {
    float cx = (float)(p & 31) * 0.09375f + -2.0f, cy = (float)(p >> 5) * 0.078125f + -1.25f;
    float zx = 0.0f, zy = 0.0f;
    uint32_t n = MANDEL_MAX;
    for (uint32_t i = 0; i < MANDEL_MAX; i++) {
      float zx2 = zx * zx, zy2 = zy * zy;
      if (zx2 + zy2 > 4.0f) {
        n = i;
        break;
      }
      float t = zx * zy;
      zy = (t + t) + cy;
      zx = (zx2 - zy2) + cx;
    }
    wr32(mem, FRACTAL_COUNTS + 4 * p, n);
  }
}

static void julia_reference(uint8_t *mem) {
  for (uint32_t p = 0; p < FRACTAL_PIXELS; p++) {
    float zx = (float)(p & 31) * 0.09375f + -1.5f, zy = (float)(p >> 5) * 0.09375f + -1.5f;
    uint32_t n = 0;
    for (;;) {
      float zx2 = zx * zx, zy2 = zy * zy;
      if (zx2 + zy2 > 4.0f || n >= JULIA_MAX)
        break;
      float t = zx * zy;
      zy = (t + t) + 0.156f;
      zx = (zx2 - zy2) + -0.8f;
      n++;
    }
    wr32(mem, FRACTAL_COUNTS + 4 * p, n);
  }
}

/* ---- ray_sphere ------------------------------------------------------------------------------ */

enum { RAY_SPHERES = 0x0000, RAY_COUNT = 3, RAY_DEPTH = 0x0100, RAY_IDS = 0x1100,
       RAY_PIXELS = 1024 };

static const float ray_spheres[RAY_COUNT][4] = {
    {0.0f, 0.0f, 0.25f, 1.0f}, {1.5f, -1.0f, 4.0f, 1.44f}, {-1.25f, 1.0f, 2.5f, 0.81f}};

static void ray_init(uint8_t *mem, uint32_t salt) {
  (void)salt; /* no generated inputs */
  for (size_t s = 0; s < RAY_COUNT; s++)
    for (size_t c = 0; c < 4; c++)
      wrf(mem, RAY_SPHERES + 16 * s + 4 * c, ray_spheres[s][c]);
  fill32(mem, RAY_DEPTH, RAY_PIXELS, SENTINEL32);
  fill32(mem, RAY_IDS, RAY_PIXELS, SENTINEL32);
}

static void ray_reference(uint8_t *mem) {
  const float d[3] = {0.125f, 0.0625f, 1.0f}, eps = 0.001f;
  float a = d[0] * d[0];
  a = fmaf(d[1], d[1], a);
  a = fmaf(d[2], d[2], a);
  const float inv_a = 1.0f / a;
  for (uint32_t p = 0; p < RAY_PIXELS; p++) {
    const float o[3] = {(float)((int32_t)(p & 31) - 16) * 0.125f,
                        (float)((int32_t)(p >> 5) - 16) * 0.125f, 0.0f};
    if (fmaf(o[1], o[1], o[0] * o[0]) > 4.0f)
      continue;
    float best = INFINITY;
    uint32_t id = 0xFFFFFFFFu;
    for (uint32_t s = 0; s < RAY_COUNT; s++) {
      float w[3], hb, cc;
      for (int c = 0; c < 3; c++)
        w[c] = o[c] - rdf(mem, RAY_SPHERES + 16 * s + 4 * (size_t)c);
      hb = w[0] * d[0];
      cc = w[0] * w[0];
      for (int c = 1; c < 3; c++) {
        hb = fmaf(w[c], d[c], hb);
        cc = fmaf(w[c], w[c], cc);
      }
      cc = cc - rdf(mem, RAY_SPHERES + 16 * s + 12);
      float disc = hb * hb - a * cc;
      if (!(disc >= 0.0f))
        continue;
      float q = sqrtf(disc);
      float t0 = (-hb - q) * inv_a, t1 = (-hb + q) * inv_a;
      if (t0 < eps)
        t0 = t1;
      if (t0 > eps && t0 < best) {
        best = t0;
        id = s;
      }
    }
    wrf(mem, RAY_DEPTH + 4 * p, id == 0xFFFFFFFFu ? -1.0f : best);
    wr32(mem, RAY_IDS + 4 * p, id);
  }
}

/* ---- axpy_2d --------------------------------------------------------------------------------- */

enum { AXPY_X = 0x0000, AXPY_Y = 0x2000, AXPY_Z = 0x4000, AXPY_COLS = 50, AXPY_ROWS = 40 };
#define AXPY_A 0x3F400000u /* 0.75 */

static void axpy_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < AXPY_COLS * AXPY_ROWS; i++) {
    wrf(mem, AXPY_X + 4 * i, (float)(bk_hash(salt + 19, i) % 512) / 16.0f);
    wrf(mem, AXPY_Y + 4 * i, (float)(bk_hash(salt + 20, i) % 512) / 32.0f - 8.0f);
  }
  fill32(mem, AXPY_Z, AXPY_COLS * AXPY_ROWS, SENTINEL32);
}

static void axpy_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < AXPY_COLS * AXPY_ROWS; i++)
    wrf(mem, AXPY_Z + 4 * i,
        fmaf(bits_f32(AXPY_A), rdf(mem, AXPY_X + 4 * i), rdf(mem, AXPY_Y + 4 * i)));
}

/* ---- histogram ------------------------------------------------------------------------------- */

enum { HIST_DATA = 0x0000, HIST_WORDS = 2000, HIST_BINS = 0x2000 };

static void hist_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < 4 * HIST_WORDS; i++)
    mem[HIST_DATA + i] = (uint8_t)(bk_hash(salt + 21, i) & bk_hash(salt + 22, i));
}

static void hist_reference(uint8_t *mem) {
  for (uint32_t i = 0; i < 4 * HIST_WORDS; i++) {
    size_t bin = HIST_BINS + 4 * (size_t)mem[HIST_DATA + i];
    wr32(mem, bin, rd32(mem, bin) + 1);
  }
}

/* ---- spmv_csr -------------------------------------------------------------------------------- */

enum { SPMV_ROW_PTR = 0x0000, SPMV_COL = 0x0800, SPMV_VAL = 0x5400, SPMV_X = 0xA000,
       SPMV_Y = 0xA800, SPMV_ROWS = 300, SPMV_MAX_ROW = 16 };

static void spmv_init(uint8_t *mem, uint32_t salt) {
  uint32_t k = 0;
  for (uint32_t r = 0; r < SPMV_ROWS; r++) {
    wr32(mem, SPMV_ROW_PTR + 4 * r, k);
    for (uint32_t len = bk_hash(salt + 23, r) % (SPMV_MAX_ROW + 1); len > 0; len--, k++) {
      wr32(mem, SPMV_COL + 4 * k, bk_hash(salt + 24, k) % SPMV_ROWS);
      wrf(mem, SPMV_VAL + 4 * k, (float)centred(salt + 25, k, 200) / 16.0f);
    }
  }
  wr32(mem, SPMV_ROW_PTR + 4 * SPMV_ROWS, k);
  for (uint32_t c = 0; c < SPMV_ROWS; c++)
    wrf(mem, SPMV_X + 4 * c, (float)(bk_hash(salt + 26, c) % 100) / 32.0f);
  fill32(mem, SPMV_Y, SPMV_ROWS, SENTINEL32);
}

static void spmv_reference(uint8_t *mem) {
  for (uint32_t r = 0; r < SPMV_ROWS; r++) {
    float sum = 0.0f;
    for (uint32_t k = rd32(mem, SPMV_ROW_PTR + 4 * r); k < rd32(mem, SPMV_ROW_PTR + 4 * r + 4); k++)
      sum =
          fmaf(rdf(mem, SPMV_VAL + 4 * k), rdf(mem, SPMV_X + 4 * rd32(mem, SPMV_COL + 4 * k)), sum);
    wrf(mem, SPMV_Y + 4 * r, sum);
  }
}

/* ---- string_search --------------------------------------------------------------------------- */

enum { SEARCH_TEXT = 0x0000, SEARCH_N = 2048, SEARCH_PATTERN = 0x0800, SEARCH_M = 4,
       SEARCH_FLAGS = 0x0900, SEARCH_COUNT = 0x1100 };

static void search_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < SEARCH_N; i++) {
    mem[SEARCH_TEXT + i] = (uint8_t)('a' + bk_hash(salt + 27, i) % 4);
    mem[SEARCH_FLAGS + i] = 0xEE;
  }
  memcpy(mem + SEARCH_PATTERN, "abca", SEARCH_M);
}

static void search_reference(uint8_t *mem) {
  uint32_t count = 0;
  for (uint32_t i = 0; i + SEARCH_M <= SEARCH_N; i++) {
    bool match = memcmp(mem + SEARCH_TEXT + i, mem + SEARCH_PATTERN, SEARCH_M) == 0;
    mem[SEARCH_FLAGS + i] = match;
    count += match;
  }
  wr32(mem, SEARCH_COUNT, count);
}

/* ---- bfs_frontier ---------------------------------------------------------------------------- */

enum { BFS_ROW_PTR = 0x0000, BFS_ADJ = 0x0900, BFS_LEVEL = 0x4000, BFS_FRONTIER = 0x4800,
       BFS_PARAMS = 0x5000, BFS_NEXT = 0x5100, BFS_V = 512, BFS_MAX_DEGREE = 6,
       BFS_DEPTH = 5 /* the frontier's level; the kernel's r6 is BFS_DEPTH + 1 */ };
#define BFS_UNVISITED 0xFFFFFFFFu

static void bfs_init(uint8_t *mem, uint32_t salt) {
  uint32_t k = 0;
  for (uint32_t v = 0; v < BFS_V; v++) {
    wr32(mem, BFS_ROW_PTR + 4 * v, k);
    for (uint32_t deg = 1 + bk_hash(salt + 28, v) % BFS_MAX_DEGREE; deg > 0; deg--, k++)
      wr32(mem, BFS_ADJ + 4 * k, bk_hash(salt + 29, k) % BFS_V);
  }
  wr32(mem, BFS_ROW_PTR + 4 * BFS_V, k);
  /* Levels 0 .. BFS_DEPTH from vertex 0, one sweep over all vertices per level. */
  fill32(mem, BFS_LEVEL, BFS_V, BFS_UNVISITED);
  wr32(mem, BFS_LEVEL, 0);
  for (uint32_t level = 0; level < BFS_DEPTH; level++)
    for (uint32_t v = 0; v < BFS_V; v++)
      if (rd32(mem, BFS_LEVEL + 4 * v) == level)
        for (uint32_t e = rd32(mem, BFS_ROW_PTR + 4 * v); e < rd32(mem, BFS_ROW_PTR + 4 * v + 4);
             e++) {
          size_t u = BFS_LEVEL + 4 * (size_t)rd32(mem, BFS_ADJ + 4 * e);
          if (rd32(mem, u) == BFS_UNVISITED)
            wr32(mem, u, level + 1);
        }
  uint32_t frontier = 0;
  for (uint32_t v = 0; v < BFS_V; v++)
    if (rd32(mem, BFS_LEVEL + 4 * v) == BFS_DEPTH)
      wr32(mem, BFS_FRONTIER + 4 * frontier++, v);
  wr32(mem, BFS_PARAMS, frontier);
  fill32(mem, BFS_NEXT, BFS_V, SENTINEL32);
}

static void bfs_reference(uint8_t *mem) {
  uint32_t next = 0;
  for (uint32_t f = 0; f < rd32(mem, BFS_PARAMS); f++) {
    uint32_t v = rd32(mem, BFS_FRONTIER + 4 * f);
    for (uint32_t e = rd32(mem, BFS_ROW_PTR + 4 * v); e < rd32(mem, BFS_ROW_PTR + 4 * v + 4); e++) {
      uint32_t u = rd32(mem, BFS_ADJ + 4 * e);
      if (rd32(mem, BFS_LEVEL + 4 * u) == BFS_UNVISITED) {
        wr32(mem, BFS_LEVEL + 4 * u, BFS_DEPTH + 1);
        wr32(mem, BFS_NEXT + 4 * next++, u);
      }
    }
  }
  wr32(mem, BFS_PARAMS + 4, next);
}

static void bfs_canonical(uint8_t *mem) {
  uint32_t n = rd32(mem, BFS_PARAMS + 4);
  sort32(mem, BFS_NEXT, n < BFS_V ? n : BFS_V);
}

/* ---- softmax --------------------------------------------------------------------------------- */

enum { SOFTMAX_IN = 0x0000, SOFTMAX_OUT = 0x2000, SOFTMAX_ROWS = 8, SOFTMAX_COLS = 256,
       SOFTMAX_LANES = 32 };
#define SOFTMAX_LOG2E 0x3FB8AA3Bu

static void softmax_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < SOFTMAX_ROWS * SOFTMAX_COLS; i++)
    wrf(mem, SOFTMAX_IN + 4 * i, (float)centred(salt + 30, i, 2001) / 128.0f);
  fill32(mem, SOFTMAX_OUT, SOFTMAX_ROWS * SOFTMAX_COLS, SENTINEL32);
}

/* The butterfly of 32 lanes: after it every lane holds the same combination, built pairwise
 * level by level (offsets 16, 8, 4, 2, 1), each lane combining its own value with its
 * partner's. */
static void butterfly(float v[SOFTMAX_LANES], bool sum) {
  for (unsigned off = SOFTMAX_LANES / 2; off > 0; off /= 2) {
    float next[SOFTMAX_LANES];
    for (unsigned l = 0; l < SOFTMAX_LANES; l++)
      next[l] = sum ? v[l] + v[l ^ off] : fmaxf(v[l], v[l ^ off]);
    memcpy(v, next, sizeof next);
  }
}

static void softmax_reference(uint8_t *mem) {
  const float log2e = bits_f32(SOFTMAX_LOG2E);
  for (uint32_t r = 0; r < SOFTMAX_ROWS; r++) {
    size_t in = SOFTMAX_IN + 4 * (size_t)r * SOFTMAX_COLS;
    size_t out = SOFTMAX_OUT + 4 * (size_t)r * SOFTMAX_COLS;
    float m[SOFTMAX_LANES], s[SOFTMAX_LANES];
    for (uint32_t l = 0; l < SOFTMAX_LANES; l++) {
      m[l] = -INFINITY;
      for (uint32_t c = l; c < SOFTMAX_COLS; c += SOFTMAX_LANES)
        m[l] = fmaxf(m[l], rdf(mem, in + 4 * c));
    }
    butterfly(m, false);
    for (uint32_t l = 0; l < SOFTMAX_LANES; l++) {
      s[l] = 0.0f;
      for (uint32_t c = l; c < SOFTMAX_COLS; c += SOFTMAX_LANES)
        s[l] = s[l] + exp2f((rdf(mem, in + 4 * c) - m[l]) * log2e);
    }
    butterfly(s, true);
    for (uint32_t c = 0; c < SOFTMAX_COLS; c++) {
      uint32_t l = c % SOFTMAX_LANES;
      wrf(mem, out + 4 * c, exp2f((rdf(mem, in + 4 * c) - m[l]) * log2e) * (1.0f / s[l]));
    }
  }
}

/* ---- dot_product ----------------------------------------------------------------------------- */

enum { DOT_A = 0x0000, DOT_B = 0x4000, DOT_RESULT = 0x8000, DOT_N = 4000 };

static void dot_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < DOT_N; i++) {
    wr32(mem, DOT_A + 4 * i, bk_hash(salt + 31, i));
    wr32(mem, DOT_B + 4 * i, bk_hash(salt + 32, i));
  }
}

static void dot_reference(uint8_t *mem) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < DOT_N; i++)
    sum += rd32(mem, DOT_A + 4 * i) * rd32(mem, DOT_B + 4 * i);
  wr32(mem, DOT_RESULT, sum);
}

/* ---- gemv ------------------------------------------------------------------------------------ */

enum { GEMV_A = 0x0000, GEMV_X = 0xC000, GEMV_Y = 0xC200, GEMV_ROWS = 128, GEMV_COLS = 96 };

static void gemv_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < GEMV_ROWS * GEMV_COLS; i++)
    wrf(mem, GEMV_A + 4 * i, (float)(bk_hash(salt + 33, i) % 64) / 16.0f - 2.0f);
  for (uint32_t j = 0; j < GEMV_COLS; j++)
    wrf(mem, GEMV_X + 4 * j, (float)(bk_hash(salt + 34, j) % 32) / 8.0f);
  fill32(mem, GEMV_Y, GEMV_ROWS, SENTINEL32);
}

static void gemv_reference(uint8_t *mem) {
  for (uint32_t r = 0; r < GEMV_ROWS; r++) {
    float sum = 0.0f;
    for (uint32_t j = 0; j < GEMV_COLS; j++)
      sum = fmaf(rdf(mem, GEMV_A + 4 * (r * GEMV_COLS + j)), rdf(mem, GEMV_X + 4 * j), sum);
    wrf(mem, GEMV_Y + 4 * r, sum);
  }
}

/* ---- transpose ------------------------------------------------------------------------------- */

enum { TRANSPOSE_IN = 0x0000, TRANSPOSE_OUT = 0x2000, TRANSPOSE_ROWS = 40, TRANSPOSE_COLS = 48 };

static void transpose_init(uint8_t *mem, uint32_t salt) {
  for (uint32_t i = 0; i < TRANSPOSE_ROWS * TRANSPOSE_COLS; i++)
    wr32(mem, TRANSPOSE_IN + 4 * i, bk_hash(salt + 35, i));
  fill32(mem, TRANSPOSE_OUT, TRANSPOSE_ROWS * TRANSPOSE_COLS, SENTINEL32);
}

static void transpose_reference(uint8_t *mem) {
  for (uint32_t r = 0; r < TRANSPOSE_ROWS; r++)
    for (uint32_t c = 0; c < TRANSPOSE_COLS; c++)
      wr32(mem, TRANSPOSE_OUT + 4 * (c * TRANSPOSE_ROWS + r),
           rd32(mem, TRANSPOSE_IN + 4 * (r * TRANSPOSE_COLS + c)));
}

/* ---- the table ------------------------------------------------------------------------------- */

#define PRESETS(...)                                                                               \
  .presets = {__VA_ARGS__},                                                                        \
  .num_presets = sizeof((wave_reg_value[]){__VA_ARGS__}) / sizeof(wave_reg_value)

const bk_kernel bk_kernels[] = {
    {"relu", true, 8, {8, 1, 1}, {128, 1, 1}, 0x2000,
     PRESETS({0, RELU_X}, {1, RELU_Y}, {2, RELU_N}, {3, RELU_SCALE}, {4, RELU_BIAS}),
     relu_init, relu_reference, NULL},
    {"clamp_pixels", true, 8, {2, 1, 1}, {256, 1, 1}, 0x400,
     PRESETS({0, CLAMP_IN}, {1, CLAMP_OUT}, {2, CLAMP_CONTRAST}, {3, (uint32_t)CLAMP_BRIGHTNESS}),
     clamp_init, clamp_reference, NULL},
    {"leaky_relu", true, 8, {4, 1, 1}, {64, 1, 1}, 0x3000,
     PRESETS({0, LEAKY_X}, {1, LEAKY_Y}, {2, LEAKY_N}, {3, LEAKY_ALPHA}),
     leaky_init, leaky_reference, NULL},
    {"threshold", true, 8, {4, 1, 1}, {128, 1, 1}, 0xA00,
     PRESETS({0, THRESH_PIXELS}, {1, THRESH_OUT}, {2, THRESH_T}),
     threshold_init, threshold_reference, NULL},
    {"collatz", true, 8, {4, 1, 1}, {128, 1, 1}, 0x800,
     PRESETS({0, COLLATZ_STEPS}, {1, COLLATZ_START}),
     collatz_init, collatz_reference, NULL},
    {"gcd", true, 8, {2, 1, 1}, {128, 1, 1}, 0xC00,
     PRESETS({0, GCD_A}, {1, GCD_B}, {2, GCD_OUT}),
     gcd_init, gcd_reference, NULL},
    {"crc32", true, 8, {2, 1, 1}, {64, 1, 1}, 0xA00,
     PRESETS({0, CRC_RECORDS}, {1, CRC_OUT}),
     crc_init, crc_reference, NULL},
    {"binary_search", true, 8, {2, 1, 1}, {128, 1, 1}, 0x1800,
     PRESETS({0, BS_KEYS}, {1, BS_N}, {2, BS_Q}, {3, BS_IDX}),
     bsearch_init, bsearch_reference, NULL},
    {"bitonic_sort", true, 8, {2, 1, 1}, {256, 1, 1}, 0x1000,
     PRESETS({0, BITONIC_KEYS}, {1, BITONIC_OUT}),
     bitonic_init, bitonic_reference, NULL},
    {"stencil", true, 8, {2, 2, 1}, {16, 16, 1}, 0x2000,
     PRESETS({0, STENCIL_IN}, {1, STENCIL_OUT}, {2, STENCIL_W}, {3, STENCIL_H}),
     stencil_init, stencil_reference, NULL},
    {"decision_tree", true, 8, {4, 1, 1}, {128, 1, 1}, 0x1000,
     PRESETS({0, TREE_SAMPLES}, {1, TREE_CLASSES}, {2, TREE_N}),
     tree_init, tree_reference, NULL},
    {"prefix_sum", true, 8, {4, 1, 1}, {256, 1, 1}, 0x2000,
     PRESETS({0, SCAN_IN}, {1, SCAN_OUT}),
     scan_init, scan_reference, NULL},
    {"nbody_cutoff", true, 8, {4, 1, 1}, {64, 1, 1}, 0x2000,
     PRESETS({0, NBODY_BODIES}, {1, NBODY_ACC}, {2, NBODY_N}, {3, NBODY_CUT2}, {4, NBODY_EPS2}),
     nbody_init, nbody_reference, NULL},
    {"mandelbrot", true, 8, {16, 1, 1}, {64, 1, 1}, 0x1000,
     PRESETS({0, FRACTAL_COUNTS}, {1, MANDEL_MAX}),
     fractal_init, mandelbrot_reference, NULL},
    {"ray_sphere", true, 8, {16, 1, 1}, {64, 1, 1}, 0x2100,
     PRESETS({0, RAY_SPHERES}, {1, RAY_COUNT}, {2, RAY_DEPTH}, {3, RAY_IDS}),
     ray_init, ray_reference, NULL},
    {"julia", false, 8, {16, 1, 1}, {64, 1, 1}, 0x1000,
     PRESETS({0, FRACTAL_COUNTS}, {1, JULIA_MAX}),
     fractal_init, julia_reference, NULL},
    {"axpy_2d", false, 8, {4, 3, 1}, {16, 16, 1}, 0x6000,
     PRESETS({0, AXPY_X}, {1, AXPY_Y}, {2, AXPY_Z}, {3, AXPY_COLS}, {4, AXPY_ROWS}, {5, AXPY_A}),
     axpy_init, axpy_reference, NULL},
    {"histogram", false, 8, {2, 1, 1}, {256, 1, 1}, 0x2400,
     PRESETS({0, HIST_DATA}, {1, HIST_WORDS}, {2, HIST_BINS}),
     hist_init, hist_reference, NULL},
    {"spmv_csr", false, 8, {3, 1, 1}, {128, 1, 1}, 0xB000,
     PRESETS({0, SPMV_ROW_PTR}, {1, SPMV_COL}, {2, SPMV_VAL}, {3, SPMV_X}, {4, SPMV_Y},
             {5, SPMV_ROWS}),
     spmv_init, spmv_reference, NULL},
    {"string_search", false, 8, {16, 1, 1}, {128, 1, 1}, 0x1200,
     PRESETS({0, SEARCH_TEXT}, {1, SEARCH_N}, {2, SEARCH_PATTERN}, {3, SEARCH_M},
             {4, SEARCH_FLAGS}, {5, SEARCH_COUNT}),
     search_init, search_reference, NULL},
    {"bfs_frontier", false, 8, {4, 1, 1}, {64, 1, 1}, 0x6000,
     PRESETS({0, BFS_ROW_PTR}, {1, BFS_ADJ}, {2, BFS_LEVEL}, {3, BFS_FRONTIER}, {4, BFS_PARAMS},
             {5, BFS_NEXT}, {6, BFS_DEPTH + 1}),
     bfs_init, bfs_reference, bfs_canonical},
    {"softmax", false, 32, {4, 1, 1}, {64, 1, 1}, 0x4000,
     PRESETS({0, SOFTMAX_IN}, {1, SOFTMAX_OUT}),
     softmax_init, softmax_reference, NULL},
    {"dot_product", false, 8, {4, 1, 1}, {128, 1, 1}, 0x8100,
     PRESETS({0, DOT_A}, {1, DOT_B}, {2, DOT_N}, {3, DOT_RESULT}),
     dot_init, dot_reference, NULL},
    {"gemv", false, 8, {2, 1, 1}, {64, 1, 1}, 0xC400,
     PRESETS({0, GEMV_A}, {1, GEMV_X}, {2, GEMV_Y}, {3, GEMV_ROWS}, {4, GEMV_COLS}),
     gemv_init, gemv_reference, NULL},
    {"transpose", false, 8, {3, 3, 1}, {16, 16, 1}, 0x4000,
     PRESETS({0, TRANSPOSE_IN}, {1, TRANSPOSE_OUT}, {2, TRANSPOSE_ROWS}, {3, TRANSPOSE_COLS}),
     transpose_init, transpose_reference, NULL},
};
const size_t bk_num_kernels = sizeof bk_kernels / sizeof bk_kernels[0];

/* ---- compiling and running ------------------------------------------------------------------- */

char *bk_path(const char *dir, const bk_kernel *k) {
  size_t n = strlen(dir) + strlen(k->name) + sizeof "/.wave";
  char *path = malloc(n);
  if (path)
    snprintf(path, n, "%s/%s.wave", dir, k->name);
  return path;
}

wave_module *bk_compile(const wave_pass_registry *registry, const char *path, const char *pipeline,
                        uint32_t max_registers, const wave_profile *profile, wave_diags *diags) {
  wave_module *m = wave_parse_file(path, diags);
  if (!m || !wave_verify_module(m, diags)) {
    wave_module_destroy(m);
    return NULL;
  }
  if (!pipeline)
    return m;
  wave_pipeline *p = wave_pipeline_parse(registry, pipeline, diags);
  wave_pipeline_options options = {0};
  options.verify_each = true;
  options.opt_bisect_limit = -1;
  options.max_registers = max_registers;
  options.profile = profile;
  wave_pipeline_result result = {0};
  bool ok = p && wave_pipeline_run(p, m, &options, &result, diags);
  wave_pipeline_result_free(&result);
  wave_pipeline_destroy(p);
  if (!ok) {
    wave_module_destroy(m);
    return NULL;
  }
  return m;
}

/* The first 32-bit word where a and b differ, described in why. */
static void describe_mismatch(const uint8_t *got, const uint8_t *want, size_t size, char *why,
                              size_t why_size) {
  size_t off = 0, words = 0;
  while (off < size && memcmp(got + off, want + off, 4) == 0)
    off += 4;
  for (size_t o = off; o < size; o += 4)
    words += memcmp(got + o, want + o, 4) != 0;
  snprintf(why, why_size,
           "device memory differs from the C reference in %zu words; first at 0x%04zx: 0x%08x, "
           "expected 0x%08x",
           words, off, rd32(got, off), rd32(want, off));
}

/* Runs `kernel` with k's launch at wave width `width` on the initial image; NULL when memory
 * ran out. */
static wave_machine *launch(const bk_kernel *k, const wave_kernel *kernel, uint32_t width,
                            const uint8_t *image) {
  wave_launch_config config;
  wave_launch_config_init(&config);
  memcpy(config.grid, k->grid, sizeof config.grid);
  memcpy(config.workgroup, k->workgroup, sizeof config.workgroup);
  config.wave_width = width;
  config.max_steps = BK_MAX_STEPS;
  config.device_memory_size = k->memory_size;
  config.presets = k->presets;
  config.num_presets = k->num_presets;
  config.memory_init = image;
  config.memory_init_size = k->memory_size;
  return wave_simulate(kernel, &config, NULL);
}

char *bk_profile(const bk_kernel *k, const wave_kernel *kernel, uint32_t width, uint32_t salt,
                 const char *source) {
  uint8_t *image = calloc(1, k->memory_size);
  wave_machine *m = image ? (k->init(image, salt), launch(k, kernel, width, image)) : NULL;
  char *json = m && wave_machine_status(m) == WAVE_RUN_OK ? wave_profile_write(m, source) : NULL;
  wave_machine_destroy(m);
  free(image);
  return json;
}

bool bk_run(const bk_kernel *k, const wave_kernel *kernel, uint32_t width, bk_measure *out,
            char *why, size_t why_size) {
  uint8_t *image = calloc(1, k->memory_size), *expected = calloc(1, k->memory_size);
  wave_machine *m = NULL;
  bool ok = false;
  snprintf(why, why_size, "out of memory");
  if (!image || !expected)
    goto done;
  k->init(image, 0);
  memcpy(expected, image, k->memory_size);
  k->reference(expected);
  m = launch(k, kernel, width, image);
  if (!m)
    goto done;
  if (wave_machine_status(m) != WAVE_RUN_OK) {
    const wave_run_error *e = wave_machine_error(m);
    snprintf(why, why_size, "the run failed: %s", e && e->message ? e->message : "unknown error");
    goto done;
  }
  size_t size = 0;
  uint8_t *mem = wave_machine_device_memory(m, &size);
  if (size != k->memory_size) {
    snprintf(why, why_size, "device memory has %zu bytes, not %zu", size, k->memory_size);
    goto done;
  }
  if (k->canonical) {
    k->canonical(mem);
    k->canonical(expected);
  }
  if (memcmp(mem, expected, size) != 0) {
    describe_mismatch(mem, expected, size, why, why_size);
    goto done;
  }
  const wave_counters *c = wave_machine_counters(m);
  out->issued = c->issued;
  out->simd_efficiency = wave_counters_simd_efficiency(c, wave_machine_wave_width(m));
  out->max_depth = c->max_depth;
  out->static_instrs = wave_machine_program_size(m) - 1;
  out->divergent_ifs = c->divergent_ifs;
  out->emu_walks = c->steps + c->emu_walked;
  ok = true;
  why[0] = '\0';
done:
  wave_machine_destroy(m);
  free(image);
  free(expected);
  return ok;
}
