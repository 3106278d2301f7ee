/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make bench: the optimizer on the 1M-instruction kernel of bench_parse.
 *
 * In process, each -O level's pipeline runs on a freshly parsed module with -time-passes
 * timings on; what the manager costs is the pipeline's wall time minus the time spent inside
 * the passes themselves (both figures come from one run, so machine noise cancels). End to
 * end, `waveopt -O0` and `waveopt -O2` read the kernel from a file and write the result, as a
 * user runs them. Prints figures; asserts nothing about time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_text.h"
#include "bench_util.h"
#include "waveopt/pass.h"
#include "waveopt/waveopt.h"

enum { REPEATS = 3 };

typedef struct pipeline_timing {
  double wall, in_passes;
} pipeline_timing;

static int run_level(wave_pass_registry *registry, unsigned level, const text *t,
                     pipeline_timing *out) {
  wave_diags diags;
  wave_diags_init(&diags);
  diags.ignore_warnings = true;
  wave_pipeline *p = wave_pipeline_parse(registry, wave_pipeline_for_level(level), &diags);
  wave_module *m = p ? wave_parse_string(t->data, t->len, "bench.wave", &diags) : NULL;
  bool ok = m && wave_verify_module(m, &diags);
  wave_pipeline_options options = {0};
  options.time_passes = true;
  options.opt_bisect_limit = -1;
  wave_pipeline_result result = {0};
  double t0 = bench_now();
  ok = ok && wave_pipeline_run(p, m, &options, &result, &diags);
  out->wall = bench_now() - t0;
  out->in_passes = 0;
  for (size_t i = 0; i < result.num_timings; i++)
    out->in_passes += result.timings[i].seconds;
  if (!ok)
    fprintf(stderr, "bench_pipeline: -O%u failed (%zu errors)\n", level, diags.num_errors);
  wave_pipeline_result_free(&result);
  wave_module_destroy(m);
  wave_pipeline_destroy(p);
  wave_diags_free(&diags);
  return ok ? 0 : -1;
}

/* Wall time of `waveopt -O<level> path -o /dev/null`, or a negative number on failure. */
static double run_tool(const char *waveopt, unsigned level, const char *path) {
  char flag[8];
  snprintf(flag, sizeof flag, "-O%u", level);
  double t0 = bench_now();
  pid_t pid = fork();
  if (pid == 0) {
    execl(waveopt, waveopt, flag, "-w", path, "-o", "/dev/null", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  return bench_now() - t0;
}

/* Writes the text to f, which may be NULL (failed to open), and closes it. */
static int write_text(const text *t, FILE *f) {
  bool ok = f && fwrite(t->data, 1, t->len, f) == t->len;
  if (f)
    ok = fclose(f) == 0 && ok;
  return ok ? 0 : -1;
}

static int write_temporary(const text *t, char *path) {
  int fd = mkstemp(path);
  if (fd < 0)
    return -1;
  FILE *f = fdopen(fd, "w");
  if (!f)
    close(fd);
  return write_text(t, f);
}

int main(int argc, char **argv) {
  /* `--write-kernel FILE` only writes the kernel, for measuring a build by hand
   * (BENCHMARKS.md "Compile time"). */
  if (argc == 3 && strcmp(argv[1], "--write-kernel") == 0) {
    text kernel = bench_make_kernel(1000000);
    int status = write_text(&kernel, fopen(argv[2], "w"));
    free(kernel.data);
    if (status != 0)
      fprintf(stderr, "bench_pipeline: cannot write %s\n", argv[2]);
    return status != 0;
  }
  const char *waveopt = argc > 1 ? argv[1] : "tools/waveopt";
  printf("libwaveopt %s: optimizer on 1M instructions, best of %d, one core\n", wave_version(),
         REPEATS);
  text large = bench_make_kernel(1000000);
  wave_pass_registry *registry = wave_pass_registry_create();
  if (!registry)
    return 1;
  for (unsigned level = 0; level <= 3; level++) {
    pipeline_timing best = {1e9, 0};
    for (int rep = 0; rep < REPEATS; rep++) {
      pipeline_timing cur;
      if (run_level(registry, level, &large, &cur) != 0)
        return 1;
      if (cur.wall < best.wall)
        best = cur;
    }
    double manager = best.wall - best.in_passes;
    printf("-O%u pipeline  %-34s %7.3f s  in passes %7.3f s  manager %7.3f ms (%.3f%%)\n",
           level, wave_pipeline_for_level(level), best.wall, best.in_passes, manager * 1e3,
           best.in_passes > 0 ? 100.0 * manager / best.in_passes : 0.0);
  }
  wave_pass_registry_destroy(registry);

  char path[] = "/tmp/wave-bench-XXXXXX";
  if (write_temporary(&large, path) != 0) {
    fprintf(stderr, "bench_pipeline: cannot write a temporary file\n");
    return 1;
  }
  double end_to_end[4] = {1e9, 1e9, 1e9, 1e9};
  for (int rep = 0; rep < REPEATS; rep++) {
    for (unsigned level = 0; level <= 2; level += 2) {
      double s = run_tool(waveopt, level, path);
      if (s < 0) {
        fprintf(stderr, "bench_pipeline: %s -O%u %s failed\n", waveopt, level, path);
        unlink(path);
        return 1;
      }
      if (s < end_to_end[level])
        end_to_end[level] = s;
    }
  }
  unlink(path);
  printf("waveopt end to end: -O0 %.3f s, -O2 %.3f s (-O2 / -O0 = %.2f)\n", end_to_end[0],
         end_to_end[2], end_to_end[2] / end_to_end[0]);
  printf("peak RSS: %ld MB\n", bench_peak_rss_kb() / 1024);
  free(large.data);
  return 0;
}
