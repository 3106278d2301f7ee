/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make bench: compile time and memory against the upstream assembler (the dense-IR issue's
 * figures). Three kernels of 1M instructions, as files: bench_pipeline's (control flow 8 deep,
 * loads, stores, atomics), a random one whose values are all stored at the end, and the same
 * random one with nothing stored (every instruction dead). For each, `waveopt -O0` and
 * `waveopt -O2` and, where WAVE_TOOLCHAIN names the upstream tools, `wave-asm` read the file;
 * the CPU time (user + system) and the peak RSS of each process are the median of three runs
 * (wait4's rusage, so nothing in this process counts). The same at 100k instructions gives the
 * growth from 100k to 1M. Then the fixpoint: the rounds -O2's fixpoints take on each kernel,
 * and how many of 2000 wavegen kernels settle before the cap. Prints figures beside the
 * targets; asserts nothing about time.
 */
#define _DEFAULT_SOURCE   /* wait4: the child's rusage alone */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_text.h"
#include "waveopt/gen.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

enum { RUNS = 3, TOOLS = 3, KERNELS = 3 };

typedef struct usage {
  double cpu;      /* seconds, user + system */
  double rss_mb;   /* peak resident set */
} usage;

/* Runs argv to completion; false when it could not run or failed. */
static bool measure_once(char *const argv[], usage *out) {
  pid_t pid = fork();
  if (pid == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return false;
  out->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
             (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  out->rss_mb = ru.ru_maxrss / 1024.0;
  return true;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The medians of RUNS runs, each figure apart. */
static bool measure(char *const argv[], usage *out) {
  double cpu[RUNS], rss[RUNS];
  for (int i = 0; i < RUNS; i++) {
    usage u;
    if (!measure_once(argv, &u)) {
      fprintf(stderr, "bench_compile: %s failed\n", argv[0]);
      return false;
    }
    cpu[i] = u.cpu;
    rss[i] = u.rss_mb;
  }
  qsort(cpu, RUNS, sizeof(double), by_value);
  qsort(rss, RUNS, sizeof(double), by_value);
  out->cpu = cpu[RUNS / 2];
  out->rss_mb = rss[RUNS / 2];
  return true;
}

static bool write_file(const text *t, char *path) {
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f && fwrite(t->data, 1, t->len, f) == t->len;
  if (f)
    ok = fclose(f) == 0 && ok;
  else if (fd >= 0)
    close(fd);
  return ok;
}

static text make(unsigned kernel, long count) {
  return kernel == 0 ? bench_make_kernel(count) : bench_make_random(count, kernel == 1, 1);
}

/* The tools' figures on one kernel: [0] waveopt -O0, [1] -O2, [2] wave-asm (cpu < 0: none). */
static bool measure_kernel(const char *waveopt, const char *assembler, const text *t,
                           usage figures[TOOLS]) {
  char path[] = "/tmp/wave-bench-compile-XXXXXX", binary[] = "/tmp/wave-bench-wbin-XXXXXX";
  if (!write_file(t, path))
    return false;
  int fd = mkstemp(binary);
  if (fd >= 0)
    close(fd);
  char *o0[] = {(char *)waveopt, "-O0", "-w", path, "-o", "/dev/null", NULL};
  char *o2[] = {(char *)waveopt, "-O2", "-w", path, "-o", "/dev/null", NULL};
  char *asm_[] = {(char *)assembler, path, "-o", binary, NULL};
  bool ok = measure(o0, &figures[0]) && measure(o2, &figures[1]);
  figures[2].cpu = -1;
  if (ok && assembler)
    ok = measure(asm_, &figures[2]);
  unlink(path);
  unlink(binary);
  return ok;
}

/* -O2's fixpoint rounds and capped fixpoints on one module (the "fixpoint" statistics). */
static bool fixpoint_rounds(wave_pass_registry *registry, wave_module *m, uint64_t *rounds,
                            uint64_t *at_limit) {
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_pipeline *p = wave_pipeline_parse(registry, wave_pipeline_for_level(2), &diags);
  wave_pipeline_options options = {0};
  wave_pipeline_result result = {0};
  bool ok = p && m && wave_verify_module(m, &diags) &&
            wave_pipeline_run(p, m, &options, &result, &diags);
  *rounds = *at_limit = 0;
  for (size_t i = 0; ok && i < result.num_stats; i++) {
    if (strcmp(result.stats[i].pass, "fixpoint") != 0)
      continue;
    if (strcmp(result.stats[i].name, "rounds") == 0)
      *rounds = result.stats[i].value;
    else if (strcmp(result.stats[i].name, "at-limit") == 0)
      *at_limit = result.stats[i].value;
  }
  wave_pipeline_result_free(&result);
  wave_pipeline_destroy(p);
  wave_diags_free(&diags);
  return ok;
}

static const char *const kernel_names[KERNELS] = {"bench_pipeline's", "random, stored",
                                                  "random, dead"};

/* `--write-kernels DIR`: the three 1M kernels as DIR/pipeline.wave, stored.wave, dead.wave, for
 * measuring by hand and for tests/compare-builds.sh. */
static int write_kernels(const char *dir) {
  static const char *const files[KERNELS] = {"pipeline.wave", "stored.wave", "dead.wave"};
  for (unsigned k = 0; k < KERNELS; k++) {
    char path[4096];
    text t = make(k, 1000000);
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    FILE *f = fopen(path, "w");
    bool ok = f && fwrite(t.data, 1, t.len, f) == t.len;
    if (f)
      ok = fclose(f) == 0 && ok;
    free(t.data);
    if (!ok) {
      fprintf(stderr, "bench_compile: cannot write %s\n", path);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-kernels") == 0)
    return write_kernels(argv[2]);
  const char *waveopt = argc > 1 ? argv[1] : "tools/waveopt";
  const char *toolchain = getenv("WAVE_TOOLCHAIN");
  char assembler[4096];
  bool have_asm = toolchain && *toolchain &&
                  snprintf(assembler, sizeof assembler, "%s/wave-asm", toolchain) <
                      (int)sizeof assembler &&
                  access(assembler, X_OK) == 0;
  printf("libwaveopt %s: compile time and memory, median of %d processes, CPU user + system\n",
         wave_version(), RUNS);
  if (!have_asm)
    printf("(WAVE_TOOLCHAIN does not name the upstream tools: no wave-asm, no ratios)\n");
  printf("%-17s %6s %9s %9s %8s %9s %9s %8s %9s\n", "kernel (1M)", "MB", "-O0 s", "-O0 MB",
         "x input", "-O2 s", "-O2 MB", "x input", "wave-asm");
  wave_pass_registry *registry = wave_pass_registry_create();
  if (!registry)
    return 1;
  for (unsigned k = 0; k < KERNELS; k++) {
    text big = make(k, 1000000), small = make(k, 100000);
    usage at_1m[TOOLS], at_100k[TOOLS];
    if (!measure_kernel(waveopt, have_asm ? assembler : NULL, &big, at_1m) ||
        !measure_kernel(waveopt, NULL, &small, at_100k))
      return 1;
    double input_mb = big.len / (1024.0 * 1024.0);
    printf("%-17s %6.1f %9.2f %9.0f %8.1f %9.2f %9.0f %8.1f", kernel_names[k], input_mb,
           at_1m[0].cpu, at_1m[0].rss_mb, at_1m[0].rss_mb / input_mb, at_1m[1].cpu,
           at_1m[1].rss_mb, at_1m[1].rss_mb / input_mb);
    if (have_asm)
      printf(" %8.2fs  -O0 %.2fx, -O2 %.2fx of wave-asm (targets 0.15x, 0.4x)\n", at_1m[2].cpu,
             at_1m[0].cpu / at_1m[2].cpu, at_1m[1].cpu / at_1m[2].cpu);
    else
      printf("        -\n");
    printf("%-17s 100k -> 1M: -O0 time %.1fx, memory %.1fx; -O2 time %.1fx, memory %.1fx "
           "(target <= 11x)\n",
           "", at_1m[0].cpu / at_100k[0].cpu, at_1m[0].rss_mb / at_100k[0].rss_mb,
           at_1m[1].cpu / at_100k[1].cpu, at_1m[1].rss_mb / at_100k[1].rss_mb);
    wave_diags diags;
    wave_diags_init(&diags);
    wave_module *m = wave_parse_string(big.data, big.len, "bench.wave", &diags);
    uint64_t rounds, at_limit;
    if (!fixpoint_rounds(registry, m, &rounds, &at_limit))
      return 1;
    printf("%-17s -O2 fixpoint rounds: %llu%s\n", "", (unsigned long long)rounds,
           at_limit ? " (stopped at the cap, still changing)" : "");
    wave_module_destroy(m);
    wave_diags_free(&diags);
    free(big.data);
    free(small.data);
  }
  unsigned settled = 0, total = 2000;
  uint64_t most = 0;
  for (unsigned seed = 0; seed < total; seed++) {
    wave_gen_options o;
    wave_gen_options_init(&o);
    o.seed = seed;
    wave_gen_launch launch;
    wave_diags diags;
    wave_diags_init(&diags);
    wave_module *m = wave_generate(&o, &launch, &diags);
    uint64_t rounds, at_limit;
    if (!fixpoint_rounds(registry, m, &rounds, &at_limit))
      return 1;
    settled += !at_limit;
    most = rounds > most ? rounds : most;
    wave_module_destroy(m);
    wave_diags_free(&diags);
  }
  printf("wavegen kernels whose -O2 fixpoints settle before the cap: %u of %u (target 99%%); "
         "most rounds %llu\n", settled, total, (unsigned long long)most);
  wave_pass_registry_destroy(registry);
  return 0;
}
