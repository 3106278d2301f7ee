/* SPDX-License-Identifier: Apache-2.0 */
/* wavesim: runs one kernel of a WAVE file in libwaveopt's reference interpreter, with the
 * upstream emulator's options (wave-emu) for loading and dumping device memory. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool_util.h"
#include "waveopt/interp.h"
#include "waveopt/profile.h"

static const char usage[] =
    "usage: wavesim [options] kernel.wave|-\n"
    "\n"
    "Parses and verifies a WAVE file, then runs one of its kernels in the reference SIMT\n"
    "interpreter (the intended semantics of the spec, not the upstream emulator's bugs).\n"
    "\n"
    "launch:\n"
    "  --kernel NAME             the kernel to run (default: the first one)\n"
    "  --grid X,Y,Z              workgroups in x, y, z (default 1,1,1)\n"
    "  --workgroup X,Y,Z         threads per workgroup (default: .workgroup_size, else 32,1,1)\n"
    "  --wave-width W            lanes per wave, 8..64 (default 32)\n"
    "  --device-memory BYTES     device memory size (default 1048576)\n"
    "  --local-memory BYTES      local memory per workgroup (default: .local_memory, else 16384)\n"
    "  --mode=simt|thread        SIMT waves (default) or every thread on its own\n"
    "  --max-instructions N      wave-instruction budget, 0 = unlimited (default 10000000)\n"
    "  --max-depth N             divergence-stack frames allowed, 0 = unlimited (default)\n"
    "  --emulator-fallbacks      idiv/imod by zero give 0 (as wave-emu) instead of an error\n"
    "  --no-deadlock-check       on budget exhaustion, do not rerun thread by thread\n"
    "inputs:\n"
    "  --set-reg R:V             preset register rR to V (decimal or 0x hex) in every lane\n"
    "  --arg OFF:FILE            load FILE into device memory at byte offset OFF\n"
    "  --fill-zero[=OFF:TYPE:N]  zero N 4-byte words at OFF (bare: all of device memory)\n"
    "  --fill-iota[=OFF:TYPE:N[:SCALE]]  words i*SCALE at OFF, TYPE u32 or f32 (bare: all of\n"
    "                            device memory as u32 0, 1, 2, ...)\n"
    "outputs (standard output holds only the dumped values):\n"
    "  --dump-memory S:E         hex dump of device memory bytes [S, E)\n"
    "  --dump-u32 OFF:N          N words as unsigned decimals, one a line\n"
    "  --dump-f32 OFF:N          N f32 values, one a line, formatted as wave-emu prints them\n"
    "  --dump-f16 OFF:N, --dump-bf16 OFF:N   N 16-bit floats, likewise\n"
    "  --stats                   counters to standard error\n"
    "  --json                    counters as JSON (standard output when nothing is dumped,\n"
    "                            else standard error)\n"
    "  --trace                   every issued instruction, its line and lanes, to standard error\n"
    "  --profile=FILE            the divergence profile (docs/profile.md) as JSON to FILE (- for\n"
    "                            standard output): per line and per branch issues, lanes, splits\n"
    "  --annotate                the kernel's source with every line's issues and SIMD\n"
    "                            efficiency, the hottest divergent lines marked '>>' (standard\n"
    "                            output when nothing is dumped, else standard error)\n"
    "  -w                        suppress warnings\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 the launch finished, 1 input or run errors, 2 usage errors\n";

enum { MAX_ITEMS = 64 };

typedef enum item_kind {
  ITEM_ARG, ITEM_FILL_ZERO, ITEM_FILL_IOTA,
  ITEM_DUMP_MEMORY, ITEM_DUMP_U32, ITEM_DUMP_F32, ITEM_DUMP_F16, ITEM_DUMP_BF16,
} item_kind;

/* A memory load or dump, applied in command-line order. */
typedef struct item {
  item_kind kind;
  uint64_t a, b;        /* offset and count (or start and end) */
  bool whole;           /* a bare --fill-*: all of device memory */
  bool is_float;        /* --fill-iota TYPE f32 */
  float scale;
  const char *file;
} item;

typedef struct options {
  const char *input;
  const char *kernel;
  wave_launch_config config;
  wave_reg_value presets[WAVE_MAX_GPR + 1];
  item items[MAX_ITEMS];
  size_t num_items;
  const char *profile;
  bool stats, json, trace, annotate, no_warnings, dumps;
} options;

/* ---- number parsing ------------------------------------------------------------------- */

/* Parses "A:B" (numbers) into a and b. */
static bool parse_pair(const char *s, uint64_t *a, uint64_t *b) {
  const char *e;
  return tool_parse_u64(s, &e, UINT64_MAX, a) && *e == ':' &&
         tool_parse_u64(e + 1, &e, UINT64_MAX, b) && *e == '\0';
}

/* Parses "X[,Y[,Z]]" into dims (missing ones are 1). */
static bool parse_dims(const char *s, uint32_t dims[3]) {
  for (int i = 0; i < 3; i++) {
    uint64_t v = 1;
    const char *e = s;
    if (s && (!tool_parse_u64(s, &e, UINT32_MAX, &v) || v == 0 || (*e && *e != ',')))
      return false;
    dims[i] = (uint32_t)v;
    s = s && *e == ',' ? e + 1 : NULL;
  }
  return s == NULL;
}

/* --set-reg R:V with R as "5" or "r5" and V unsigned, 0x hex, or negative decimal. */
static bool parse_set_reg(const char *s, wave_reg_value *out) {
  const char *e;
  uint64_t reg, v;
  if (*s == 'r')
    s++;
  if (!tool_parse_u64(s, &e, WAVE_MAX_GPR, &reg) || *e != ':')
    return false;
  bool negative = e[1] == '-';
  if (!tool_parse_u64(e + 1 + negative, &e, negative ? 0x80000000u : UINT32_MAX, &v) || *e)
    return false;
  out->reg = (uint32_t)reg;
  out->value = negative ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
  return true;
}

/* OFF:TYPE:COUNT[:SCALE] of the upstream --fill-zero / --fill-iota. */
static bool parse_fill(const char *s, item *it, bool allow_scale) {
  const char *e;
  if (!tool_parse_u64(s, &e, UINT64_MAX, &it->a) || *e != ':')
    return false;
  s = e + 1;
  if (strncmp(s, "u32:", 4) == 0 || strncmp(s, "i32:", 4) == 0)
    it->is_float = false;
  else if (strncmp(s, "f32:", 4) == 0)
    it->is_float = true;
  else
    return false;
  if (!tool_parse_u64(s + 4, &e, UINT64_MAX / 4, &it->b))
    return false;
  it->scale = 1.0f;
  if (*e == ':' && allow_scale) {
    char *fe;
    it->scale = strtof(e + 1, &fe);
    return *fe == '\0' && fe != e + 1;
  }
  return *e == '\0';
}

/* ---- arguments ------------------------------------------------------------------------ */

static bool is_option(const char *a, const char *name) {
  return a[0] == '-' && strcmp(a + (a[1] == '-' ? 2 : 1), name) == 0;
}

static int add_item(options *opt, item it) {
  if (opt->num_items == MAX_ITEMS)
    return tool_usage_error("wavesim", "too many memory options (at most %s)", "64");
  opt->items[opt->num_items++] = it;
  if (it.kind >= ITEM_DUMP_MEMORY)
    opt->dumps = true;
  return -1;
}

static int parse_dump(options *opt, item_kind kind, const char *name, const char *v) {
  item it = {0};
  it.kind = kind;
  if (!parse_pair(v, &it.a, &it.b))
    return tool_usage_error("wavesim", "bad value for --%s (expected OFFSET:COUNT, or START:END)",
                            name);
  if (kind == ITEM_DUMP_MEMORY && it.b <= it.a)
    return tool_usage_error("wavesim", "--dump-memory %s: END must be greater than START", v);
  return add_item(opt, it);
}

/* Returns -1 to go on, or the exit status to stop with. */
static int parse_args(int argc, char **argv, options *opt) {
  static const struct {
    const char *name;
    item_kind kind;
  } dumps[] = {{"dump-memory", ITEM_DUMP_MEMORY}, {"dump-u32", ITEM_DUMP_U32},
               {"dump-f32", ITEM_DUMP_F32},       {"dump-f16", ITEM_DUMP_F16},
               {"dump-bf16", ITEM_DUMP_BF16}};
  const char *v;
  uint64_t n;
  const char *e;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int status = -1;
    bool matched = false;
    for (size_t d = 0; d < sizeof dumps / sizeof *dumps && !matched; d++) {
      if ((v = tool_option_arg(argc, argv, &i, dumps[d].name, NULL))) {
        matched = true;
        status = parse_dump(opt, dumps[d].kind, dumps[d].name, v);
      }
    }
    if (matched) {
      if (status >= 0)
        return status;
      continue;
    }
    if (is_option(a, "help") || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (is_option(a, "version")) {
      printf("wavesim (libwaveopt) %s\n", wave_version());
      return 0;
    } else if ((v = tool_option_arg(argc, argv, &i, "kernel", NULL))) {
      opt->kernel = v;
    } else if ((v = tool_option_arg(argc, argv, &i, "grid", NULL))) {
      if (!parse_dims(v, opt->config.grid))
        return tool_usage_error("wavesim", "bad --grid '%s' (expected X,Y,Z, each at least 1)", v);
    } else if ((v = tool_option_arg(argc, argv, &i, "workgroup", NULL))) {
      if (!parse_dims(v, opt->config.workgroup))
        return tool_usage_error("wavesim", "bad --workgroup '%s' (expected X,Y,Z, each at least 1)",
                                v);
    } else if ((v = tool_option_arg(argc, argv, &i, "wave-width", NULL))) {
      if (!tool_parse_u64(v, &e, WAVE_MAX_WAVE_WIDTH, &n) || *e || n < WAVE_MIN_WAVE_WIDTH)
        return tool_usage_error("wavesim", "bad --wave-width '%s' (expected 8..64)", v);
      opt->config.wave_width = (uint32_t)n;
    } else if ((v = tool_option_arg(argc, argv, &i, "device-memory", NULL))) {
      if (!tool_parse_u64(v, &e, (uint64_t)1 << 32, &n) || *e || n == 0)
        return tool_usage_error("wavesim",
                                "bad --device-memory '%s' (expected 1..4294967296 bytes)", v);
      opt->config.device_memory_size = (size_t)n;
    } else if ((v = tool_option_arg(argc, argv, &i, "local-memory", NULL))) {
      if (!tool_parse_u64(v, &e, UINT32_MAX, &n) || *e || n == 0)
        return tool_usage_error("wavesim", "bad --local-memory '%s'", v);
      opt->config.local_memory_size = (uint32_t)n;
    } else if ((v = tool_option_arg(argc, argv, &i, "mode", NULL))) {
      if (strcmp(v, "simt") == 0)
        opt->config.mode = WAVE_MODE_SIMT;
      else if (strcmp(v, "thread") == 0)
        opt->config.mode = WAVE_MODE_THREAD;
      else
        return tool_usage_error("wavesim", "unknown mode '%s' (expected simt or thread)", v);
    } else if ((v = tool_option_arg(argc, argv, &i, "max-instructions", NULL))) {
      if (!tool_parse_u64(v, &e, UINT64_MAX, &n) || *e)
        return tool_usage_error("wavesim", "bad --max-instructions '%s'", v);
      opt->config.max_steps = n ? n : UINT64_MAX / WAVE_MAX_WAVE_WIDTH;
    } else if ((v = tool_option_arg(argc, argv, &i, "max-depth", NULL))) {
      if (!tool_parse_u64(v, &e, UINT32_MAX, &n) || *e)
        return tool_usage_error("wavesim", "bad --max-depth '%s'", v);
      opt->config.max_depth = (uint32_t)n;
    } else if ((v = tool_option_arg(argc, argv, &i, "set-reg", NULL))) {
      wave_reg_value *p = &opt->presets[opt->config.num_presets];
      if (opt->config.num_presets > WAVE_MAX_GPR || !parse_set_reg(v, p))
        return tool_usage_error("wavesim", "bad --set-reg '%s' (expected R:V, R in 0..254)", v);
      opt->config.num_presets++;
    } else if ((v = tool_option_arg(argc, argv, &i, "arg", NULL))) {
      item it = {ITEM_ARG, 0, 0, false, false, 0.0f, NULL};
      const char *colon = strchr(v, ':');
      if (!colon || !tool_parse_u64(v, &e, UINT64_MAX, &it.a) || e != colon || !colon[1])
        return tool_usage_error("wavesim", "bad --arg '%s' (expected OFFSET:FILE)", v);
      it.file = colon + 1;
      if ((status = add_item(opt, it)) >= 0)
        return status;
    } else if (is_option(a, "fill-zero") || is_option(a, "fill-iota") ||
               (v = tool_option_value(a, "fill-zero")) || (v = tool_option_value(a, "fill-iota"))) {
      bool iota = strstr(a, "iota") != NULL;
      item it = {iota ? ITEM_FILL_IOTA : ITEM_FILL_ZERO, 0, 0, true, false, 1.0f, NULL};
      /* the upstream spelling puts the spec in the next argument */
      if (!v && i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9' &&
          strchr(argv[i + 1], ':'))
        v = argv[++i];
      if (v) {
        it.whole = false;
        if (!parse_fill(v, &it, iota))
          return tool_usage_error("wavesim",
                                  "bad memory fill '%s' (expected OFFSET:TYPE:COUNT[:SCALE])", v);
      }
      if ((status = add_item(opt, it)) >= 0)
        return status;
    } else if (is_option(a, "emulator-fallbacks")) {
      opt->config.emulator_fallbacks = true;
    } else if (is_option(a, "no-deadlock-check")) {
      opt->config.no_deadlock_check = true;
    } else if (is_option(a, "stats")) {
      opt->stats = true;
    } else if (is_option(a, "json")) {
      opt->json = true;
    } else if (is_option(a, "trace")) {
      opt->trace = true;
    } else if ((v = tool_option_arg(argc, argv, &i, "profile", ""))) {
      if (!*v)
        return tool_usage_error("wavesim", "--profile needs a file name (- for standard output)");
      opt->profile = v;
    } else if (is_option(a, "annotate")) {
      opt->annotate = true;
    } else if (strcmp(a, "-w") == 0) {
      opt->no_warnings = true;
    } else if ((status = tool_take_input("wavesim", a, &opt->input,
                                         "unknown option or missing value: '%s'")) >= 0) {
      return status;
    }
  }
  if (!opt->input)
    return tool_usage_error("wavesim", "no input file");
  return -1;
}

/* ---- memory ------------------------------------------------------------------------------ */

static bool in_range(uint64_t offset, uint64_t bytes, size_t size, const char *what) {
  if (offset <= size && bytes <= size - offset)
    return true;
  fprintf(stderr, "wavesim: error: %s: bytes [%" PRIu64 ", %" PRIu64
          ") are outside device memory (%zu bytes)\n",
          what, offset, offset + bytes, size);
  return false;
}

static void store_word(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++)
    p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t load_word(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool load_file(uint8_t *mem, size_t size, const item *it) {
  size_t len = 0;
  char *data = tool_read_input("wavesim", it->file, &len);
  if (!data)
    return false;
  bool ok = in_range(it->a, len, size, it->file);
  if (ok)
    memcpy(mem + it->a, data, len);
  free(data);
  return ok;
}

static bool fill(uint8_t *mem, size_t size, const item *it) {
  uint64_t offset = it->whole ? 0 : it->a;
  uint64_t words = it->whole ? size / 4 : it->b;
  if (!in_range(offset, words * 4, size,
                it->kind == ITEM_FILL_IOTA ? "--fill-iota" : "--fill-zero"))
    return false;
  for (uint64_t i = 0; i < words; i++) {
    uint32_t v = 0;
    if (it->kind == ITEM_FILL_IOTA) {
      float f = (float)i * it->scale;
      memcpy(&v, &f, sizeof v);
      if (!it->is_float)
        v = (uint32_t)((double)i * it->scale);
    }
    store_word(mem + offset + 4 * i, v);
  }
  return true;
}

/* ---- dumps ------------------------------------------------------------------------------- */

/* Formats f as Rust's `{:?}` does (how wave-emu prints): shortest round-trip digits, a ".0"
 * on integral values, exponent notation below 1e-4 and from 1e16 on. */
static void format_float(float f, char *out, size_t size) {
  if (isnan(f)) {
    snprintf(out, size, "NaN");
    return;
  }
  if (isinf(f)) {
    snprintf(out, size, f < 0 ? "-inf" : "inf");
    return;
  }
  if (f == 0.0f) {
    snprintf(out, size, signbit(f) ? "-0.0" : "0.0");
    return;
  }
  char sci[32];
  for (int p = 1; p <= 9; p++) {
    snprintf(sci, sizeof sci, "%.*e", p - 1, (double)f);
    if (strtof(sci, NULL) == f)
      break;
  }
  /* sci = [-]d[.ddd]e[+-]XX */
  const char *s = sci;
  bool negative = *s == '-';
  s += negative;
  char digits[16];
  size_t nd = 0;
  for (; *s != 'e'; s++) {
    if (*s != '.')
      digits[nd++] = *s;
  }
  digits[nd] = '\0';
  int exp = atoi(s + 1);
  while (nd > 1 && digits[nd - 1] == '0')
    digits[--nd] = '\0';
  char *o = out;
  size_t left = size;
#define EMIT(...)                                                                             \
  do {                                                                                        \
    int k_ = snprintf(o, left, __VA_ARGS__);                                                  \
    if (k_ > 0 && (size_t)k_ < left) {                                                        \
      o += k_;                                                                                \
      left -= (size_t)k_;                                                                     \
    }                                                                                         \
  } while (0)
  if (negative)
    EMIT("-");
  float mag = fabsf(f);
  if (mag >= 1e-4f && mag < 1e16f) {
    if (exp >= 0) {
      for (int i = 0; i <= exp; i++)
        EMIT("%c", (size_t)i < nd ? digits[i] : '0');
      EMIT(".");
      if ((size_t)exp + 1 < nd)
        EMIT("%s", digits + exp + 1);
      else
        EMIT("0");
    } else {
      EMIT("0.");
      for (int i = 0; i < -exp - 1; i++)
        EMIT("0");
      EMIT("%s", digits);
    }
  } else {
    EMIT("%c", digits[0]);
    if (nd > 1)
      EMIT(".%s", digits + 1);
    EMIT("e%d", exp);
  }
#undef EMIT
}

static void hex_dump(const uint8_t *mem, uint64_t start, uint64_t end) {
  printf("Device memory 0x%08" PRIx64 "-0x%08" PRIx64 ":\n", start, end);
  for (uint64_t row = start; row < end; row += 16) {
    uint64_t n = end - row < 16 ? end - row : 16;
    printf("%08" PRIx64 ": ", row);
    for (uint64_t j = 0; j < 16; j++) {
      if (j == 8)
        printf(" ");
      if (j < n)
        printf("%02x ", mem[row + j]);
      else
        printf("   ");
    }
    printf(" |");
    for (uint64_t j = 0; j < n; j++) {
      uint8_t c = mem[row + j];
      putchar(c >= 0x20 && c < 0x7F ? c : '.');
    }
    printf("|\n");
  }
}

static bool dump(const uint8_t *mem, size_t size, const item *it) {
  char text[64];
  if (it->kind == ITEM_DUMP_MEMORY) {
    if (!in_range(it->a, it->b - it->a, size, "--dump-memory"))
      return false;
    hex_dump(mem, it->a, it->b);
    return true;
  }
  uint64_t width = it->kind == ITEM_DUMP_F16 || it->kind == ITEM_DUMP_BF16 ? 2 : 4;
  if (it->b > UINT64_MAX / width || !in_range(it->a, it->b * width, size, "dump"))
    return false;
  for (uint64_t i = 0; i < it->b; i++) {
    const uint8_t *p = mem + it->a + i * width;
    uint32_t w = width == 4 ? load_word(p) : (uint32_t)p[0] | (uint32_t)p[1] << 8;
    float f;
    switch (it->kind) {
    case ITEM_DUMP_U32:
      printf("%" PRIu32 "\n", w);
      continue;
    case ITEM_DUMP_F32:
      memcpy(&f, &w, sizeof f);
      break;
    default:
      f = wave_half_to_float((uint16_t)w, it->kind == ITEM_DUMP_BF16);
      break;
    }
    format_float(f, text, sizeof text);
    printf("%s\n", text);
  }
  return true;
}

/* ---- statistics and tracing ----------------------------------------------------------- */

static void print_stats(const wave_machine *m) {
  const wave_counters *c = wave_machine_counters(m);
  fprintf(stderr,
          "wave-instructions issued: %" PRIu64 "\n"
          "issues with no active lane: %" PRIu64 "\n"
          "lane-instructions: %" PRIu64 "\n"
          "SIMD efficiency: %.1f%%\n"
          "max divergence depth: %" PRIu32 "\n"
          "divergent ifs: %" PRIu64 "\n"
          "divergent loops: %" PRIu64 "\n"
          "mask operations: %" PRIu64 "\n"
          "barriers: %" PRIu64 "\n"
          "steps: %" PRIu64 "\n"
          "wave-emu instructions executed (modelled): %" PRIu64 "\n"
          "wave operations with lanes parked: %" PRIu64 "\n",
          c->issued, c->empty_issues, c->lane_instructions,
          100.0 * wave_counters_simd_efficiency(c, wave_machine_wave_width(m)), c->max_depth,
          c->divergent_ifs, c->divergent_loops, c->mask_ops, c->barriers, c->steps,
          c->steps + c->emu_walked, c->parked_wave_ops);
}

static void trace_issue(void *ctx, const wave_trace_event *e) {
  (void)ctx;
  fprintf(stderr, "trace: line %" PRIu32 " wg %" PRIu32 ",%" PRIu32 ",%" PRIu32 " wave %" PRIu32
          " mask 0x%016" PRIx64 " %s\n",
          e->loc.line, e->workgroup[0], e->workgroup[1], e->workgroup[2], e->wave, e->mask,
          wave_opcode_table[e->op].mnemonic);
}

/* ---- main ----------------------------------------------------------------------------- */

static bool prepare_memory(wave_machine *m, const options *opt) {
  size_t size;
  uint8_t *mem = wave_machine_device_memory(m, &size);
  for (size_t i = 0; i < opt->num_items; i++) {
    const item *it = &opt->items[i];
    bool ok = true;
    if (it->kind == ITEM_ARG)
      ok = load_file(mem, size, it);
    else if (it->kind == ITEM_FILL_ZERO || it->kind == ITEM_FILL_IOTA)
      ok = fill(mem, size, it);
    if (!ok)
      return false;
  }
  return true;
}

static bool write_outputs(wave_machine *m, const options *opt) {
  size_t size;
  const uint8_t *mem = wave_machine_device_memory(m, &size);
  for (size_t i = 0; i < opt->num_items; i++) {
    if (opt->items[i].kind >= ITEM_DUMP_MEMORY && !dump(mem, size, &opt->items[i]))
      return false;
  }
  return true;
}

/* ---- profile and annotated source ----------------------------------------------------- */

enum { HOT_LINES = 5 };

typedef struct annotation {
  const char *text;    /* the source */
  size_t len;
  const wave_profile_kernel *k;
  uint32_t first, last; /* the kernel's lines: .kernel to .end */
} annotation;

/* Lane slots a line left idle: its issues times the wave width, less the lanes that ran. */
static uint64_t idle_slots(const wave_profile_kernel *k, const wave_profile_line *l) {
  return l->issued * wave_profile_wave_width(k) - l->lanes;
}

/* Marks the HOT_LINES lines that idled the most lane slots (divergence's cost), most first. */
static void find_hot(const wave_profile_kernel *k, uint32_t hot[HOT_LINES]) {
  uint64_t idle[HOT_LINES] = {0};
  for (size_t i = 0; i < wave_profile_num_lines(k); i++) {
    const wave_profile_line *l = wave_profile_line_at(k, i);
    uint64_t n = idle_slots(k, l);
    for (int j = 0; j < HOT_LINES && n; j++) {
      if (n > idle[j]) {
        memmove(&idle[j + 1], &idle[j], (HOT_LINES - 1 - j) * sizeof *idle);
        memmove(&hot[j + 1], &hot[j], (HOT_LINES - 1 - j) * sizeof *hot);
        idle[j] = n;
        hot[j] = l->line;
        break;
      }
    }
  }
}

static void print_branch_notes(FILE *out, const wave_profile_kernel *k, uint32_t line) {
  const wave_profile_branch *b = wave_profile_find_branch(k, line, WAVE_PROFILE_IF);
  if (b)
    fprintf(out, "   [split %" PRIu64 "/%" PRIu64 " = %.1f%%]", b->splits, b->runs,
            100.0 * wave_profile_branch_rate(b));
  b = wave_profile_find_branch(k, line, WAVE_PROFILE_LOOP);
  if (b)
    fprintf(out, "   [exits diverged %" PRIu64 "/%" PRIu64 " = %.1f%%]", b->divergent_exits,
            b->runs, 100.0 * wave_profile_branch_rate(b));
}

static int print_annotation(FILE *out, void *ctx) {
  const annotation *a = ctx;
  const wave_profile_kernel *k = a->k;
  const wave_counters *c = wave_profile_totals(k);
  uint32_t hot[HOT_LINES] = {0};
  find_hot(k, hot);
  fprintf(out,
          "; kernel %s, wave width %" PRIu32 ": %" PRIu64 " issues, SIMD efficiency %.1f%%, "
          "%" PRIu64 " divergent ifs, %" PRIu64 " divergent loops\n"
          "; '>>' marks the %d lines that left the most lanes idle\n"
          ";    issues  share    simd  line\n",
          wave_profile_kernel_name(k), wave_profile_wave_width(k), c->issued,
          100.0 * wave_counters_simd_efficiency(c, wave_profile_wave_width(k)), c->divergent_ifs,
          c->divergent_loops, HOT_LINES);
  const char *p = a->text, *end = a->text + a->len;
  for (uint32_t line = 1; p < end && line <= a->last; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
    if (line >= a->first) {
      const wave_profile_line *l = wave_profile_find_line(k, line);
      bool is_hot = false;
      for (int j = 0; j < HOT_LINES; j++)
        is_hot |= l && hot[j] == line;
      if (l)
        fprintf(out, "%2s %8" PRIu64 " %5.1f%% %6.1f%% %5" PRIu32 " | %.*s", is_hot ? ">>" : "",
                l->issued, c->issued ? 100.0 * (double)l->issued / (double)c->issued : 0.0,
                100.0 * wave_profile_line_efficiency(k, l), line, (int)n, p);
      else
        fprintf(out, "%2s %8s %6s %7s %5" PRIu32 " | %.*s", "", "", "", "", line, (int)n, p);
      if (l)
        print_branch_notes(out, k, line);
      fputc('\n', out);
    }
    p = eol ? eol + 1 : end;
  }
  return ferror(out) ? -1 : 0;
}

static int print_profile_text(FILE *out, void *ctx) {
  return fputs(ctx, out) < 0 ? -1 : 0;
}

/* Writes the profile (--profile) and the annotated source (--annotate); false after an
 * error was printed. */
static bool write_profile(const wave_machine *m, const wave_kernel *kernel, const options *opt,
                          const char *source, size_t source_len) {
  const char *name = strcmp(opt->input, "-") == 0 ? "<stdin>" : opt->input;
  char *json = wave_profile_write(m, name);
  if (!json) {
    fprintf(stderr, "wavesim: error: out of memory\n");
    return false;
  }
  bool ok = !opt->profile ||
            tool_write_output("wavesim", opt->profile, print_profile_text, json) == 0;
  if (ok && opt->annotate) {
    /* read back through the library's reader: what people see is what the optimizer reads */
    wave_diags diags;
    wave_diags_init(&diags);
    wave_profile *p = wave_profile_parse(json, strlen(json), "<profile>", &diags);
    const wave_profile_kernel *k = p ? wave_profile_match(p, kernel, &diags) : NULL;
    tool_print_diags(&diags, TOOL_DIAGS_TEXT);
    ok = k != NULL;
    if (!ok && !wave_diags_has_errors(&diags))
      fprintf(stderr, "wavesim: error: out of memory\n");
    if (ok) {
      annotation a = {source, source_len, k, wave_kernel_loc(kernel).line,
                      wave_kernel_origin(kernel, WAVE_KERNEL_LINE_END).loc.line};
      FILE *out = opt->dumps ? stderr : stdout;
      ok = print_annotation(out, &a) == 0;
    }
    wave_profile_destroy(p);
    wave_diags_free(&diags);
  }
  free(json);
  return ok;
}

static void print_json(const wave_machine *m, FILE *out) {
  char *json = wave_machine_counters_json(m);
  if (json) {
    fprintf(out, "%s\n", json);
    free(json);
  } else {
    fprintf(stderr, "wavesim: error: out of memory\n");
  }
}

int main(int argc, char **argv) {
  static options opt;
  wave_launch_config_init(&opt.config);
  opt.config.presets = opt.presets;
  int status = parse_args(argc, argv, &opt);
  if (status >= 0)
    return status;
  if (opt.trace)
    opt.config.trace = trace_issue;

  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = opt.no_warnings;
  size_t source_len = 0;
  char *source = tool_read_input("wavesim", opt.input, &source_len);
  wave_module *module =
      source ? wave_parse_string(source, source_len,
                                 strcmp(opt.input, "-") == 0 ? "<stdin>" : opt.input, &diags)
             : NULL;
  bool ok = module && wave_verify_module(module, &diags) && !wave_diags_has_errors(&diags);
  const wave_kernel *kernel = ok ? wave_module_find_kernel(module, opt.kernel) : NULL;
  if (ok && !kernel) {
    if (opt.kernel)
      fprintf(stderr, "wavesim: error: no kernel '%s' in the input\n", opt.kernel);
    else
      fprintf(stderr, "wavesim: error: the input has no kernel\n");
    ok = false;
  }
  wave_machine *m = ok ? wave_machine_create(kernel, &opt.config, &diags) : NULL;
  if (ok && !m)
    fprintf(stderr, "wavesim: error: out of memory\n");
  ok = ok && m && wave_machine_status(m) == WAVE_RUN_NOT_RUN && prepare_memory(m, &opt);
  bool ran = ok;
  if (ok)
    ok = wave_machine_run(m, &diags) == WAVE_RUN_OK;
  tool_print_diags(&diags, TOOL_DIAGS_TEXT);
  if (ran && opt.stats)
    print_stats(m);
  if (ok)
    ok = write_outputs(m, &opt);
  if (ran && opt.json)
    print_json(m, opt.dumps ? stderr : stdout);
  if (ran && (opt.profile || opt.annotate) && !write_profile(m, kernel, &opt, source, source_len))
    ok = false;
  if (fflush(stdout) != 0) {
    fprintf(stderr, "wavesim: error: cannot write output: %s\n", strerror(errno));
    ok = false;
  }
  wave_machine_destroy(m);
  wave_module_destroy(module);
  free(source);
  wave_diags_free(&diags);
  return ok ? 0 : 1;
}
