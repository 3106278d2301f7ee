/* SPDX-License-Identifier: Apache-2.0 */
#include "tool_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tool_print_diags(const wave_diags *diags, tool_diag_format format) {
  bool color = format == TOOL_DIAGS_TEXT && isatty(STDERR_FILENO) && !getenv("NO_COLOR");
  for (size_t i = 0; i < diags->count; i++) {
    char *text = format == TOOL_DIAGS_JSON ? wave_diag_format_json(&diags->items[i])
                                           : wave_diag_format_text(&diags->items[i], color);
    if (text) {
      fputs(text, stderr);
      if (format == TOOL_DIAGS_JSON)
        fputc('\n', stderr);
      free(text);
    }
  }
  if (diags->truncated && format == TOOL_DIAGS_TEXT)
    fprintf(stderr, "note: too many errors; later ones are not shown\n");
  if (diags->out_of_memory)
    fprintf(stderr, "note: out of memory while recording diagnostics\n");
}

static FILE *open_input(const char *path) {
  return strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
}

/* Closes what open_input opened and says why reading failed, when it did (err, or no stream:
 * errno). */
static void close_input(const char *tool, const char *path, FILE *in, int err) {
  if (!in)
    err = errno;
  else if (in != stdin)
    fclose(in);
  if (!in || err)
    fprintf(stderr, "%s: error: cannot read '%s': %s\n", tool, path,
            err ? strerror(err) : "read failed");
}

char *tool_read_input(const char *tool, const char *path, size_t *len) {
  FILE *in = open_input(path);
  int err = 0;
  char *text = in ? wave_read_stream(in, len, &err) : NULL;
  close_input(tool, path, in, err);
  return text;
}

wave_module *tool_parse_input(const char *tool, const char *path, wave_diags *diags) {
  FILE *in = open_input(path);
  int err = 0;
  const char *name = in == stdin ? "<stdin>" : path;
  wave_module *module = in ? wave_parse_stream(in, name, diags, &err) : NULL;
  close_input(tool, path, in, err);
  return module;
}

/* Output in large writes: a million-instruction kernel prints some forty megabytes, which in
 * stdio's default blocks is ten thousand system calls. */
static void buffer_output(FILE *out) { setvbuf(out, NULL, _IOFBF, (size_t)1 << 18); }

static int write_in_place(const char *tool, const char *path, int (*emit)(FILE *out, void *ctx),
                          void *ctx) {
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "%s: error: cannot write '%s': %s\n", tool, path, strerror(errno));
    return -1;
  }
  buffer_output(out);
  int rc = emit(out, ctx);
  if (fclose(out) != 0)
    rc = -1;
  if (rc != 0)
    fprintf(stderr, "%s: error: cannot write '%s': %s\n", tool, path, strerror(errno));
  return rc;
}

int tool_write_output(const char *tool, const char *path, int (*emit)(FILE *out, void *ctx),
                      void *ctx) {
  if (!path || strcmp(path, "-") == 0) {
    if (emit(stdout, ctx) != 0 || fflush(stdout) != 0) {
      fprintf(stderr, "%s: error: cannot write output: %s\n", tool, strerror(errno));
      return -1;
    }
    return 0;
  }
  /* Writing beside the file and renaming keeps a failed run from leaving half a file, but
   * renaming over a device or a pipe (-o /dev/null) would replace it with a plain file:
   * anything that is not a regular file is written in place. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return write_in_place(tool, path, emit, ctx);
  size_t n = strlen(path);
  char *tmp = malloc(n + sizeof(".tmpXXXXXX"));
  if (!tmp) {
    fprintf(stderr, "%s: error: out of memory\n", tool);
    return -1;
  }
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
  int fd = mkstemp(tmp);
  FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!out) {
    fprintf(stderr, "%s: error: cannot create '%s': %s\n", tool, path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    free(tmp);
    return -1;
  }
  buffer_output(out);
  /* mkstemp creates 0600; an output file should get the usual umask-derived mode. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  int rc = emit(out, ctx);
  int saved = errno;
  if (fclose(out) != 0 && rc == 0) {
    rc = -1;
    saved = errno;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    rc = -1;
    saved = errno;
  }
  if (rc != 0) {
    fprintf(stderr, "%s: error: cannot write '%s': %s\n", tool, path,
            saved ? strerror(saved) : "output failed");
    unlink(tmp);
  }
  free(tmp);
  return rc;
}

const char *tool_option_value(const char *arg, const char *name) {
  if (arg[0] != '-')
    return NULL;
  arg += arg[1] == '-' ? 2 : 1;
  while (*name == '-')
    name++;
  size_t n = strlen(name);
  return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

const char *tool_option_arg(int argc, char **argv, int *i, const char *name, const char *missing) {
  const char *a = argv[*i];
  const char *v = tool_option_value(a, name);
  if (v)
    return v;
  if (a[0] != '-' || strcmp(a + (a[1] == '-' ? 2 : 1), name) != 0)
    return NULL;
  return *i + 1 < argc ? argv[++*i] : missing;
}

int tool_usage_error(const char *tool, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: error: ", tool);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", tool);
  va_end(ap);
  return 2;
}

int tool_take_input(const char *tool, const char *arg, const char **input,
                    const char *unknown_fmt) {
  if (arg[0] == '-' && arg[1] != '\0')
    return tool_usage_error(tool, unknown_fmt, arg);
  if (*input)
    return tool_usage_error(tool, "more than one input file ('%s')", arg);
  *input = arg;
  return -1;
}

bool tool_parse_u64(const char *s, const char **end, uint64_t max, uint64_t *out) {
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (!*s || !strchr(base == 16 ? "0123456789abcdefABCDEF" : "0123456789", *s))
    return false;
  errno = 0;
  char *e;
  unsigned long long v = strtoull(s, &e, base);
  if (errno || v > max)
    return false;
  *out = v;
  *end = e;
  return true;
}
