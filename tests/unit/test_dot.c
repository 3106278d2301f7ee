/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libwaveopt-dot: for every kernel of tests/corpus and tests/bench/kernels the graph is built,
 * written as DOT, read back with cgraph's own parser, and its blocks and edges are checked
 * against counts taken here straight from the region tree (the rules of libwaveopt/dot/
 * blocks.c, recounted without it): how many blocks, how many edges of each kind, which of
 * them carry the divergent colour.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "waveopt/dot.h"
#include "waveopt/interp.h"
#include "waveopt/profile.h"
#include "waveopt/uniformity.h"

enum { THEN, ELSE, FALL, BACK, BREAK, CONTINUE, RECONVERGE, KINDS };
static const char *const kind_names[KINDS] = {"then",  "else",     "fall",      "back",
                                              "break", "continue", "reconverge"};

typedef struct counts {
  size_t blocks, divergent_blocks;
  size_t edges[KINDS], divergent_edges[KINDS];
} counts;

static bool region_falls_through(const wave_region *r) {
  const wave_node *n = wave_node_list_last(wave_region_body(r));
  if (!n || wave_node_kind_of(n) != WAVE_NODE_BLOCK || !wave_block_last(n))
    return true;
  const wave_instr *i = wave_block_last(n);
  return !((wave_instr_op(i) == WAVE_OP_HALT || wave_instr_op(i) == WAVE_OP_RETURN) &&
           wave_instr_guard(i) == WAVE_NO_GUARD);
}

/* What the graph must hold, from the region tree and the uniformity verdicts alone. */
static counts expected_counts(const wave_kernel *k, const wave_uniformity *u) {
  counts c = {0};
  for (const wave_region *r = wave_kernel_first_region(k); r; r = wave_region_next(r)) {
    c.blocks++;   /* its entry */
    if (wave_region_next(r) && region_falls_through(r))
      c.edges[FALL]++;
    size_t open_divergent = 0;   /* divergent ifs and loops around the walk's position */
    wave_const_walker w;
    wave_const_walk_init(&w, wave_region_body(r));
    while (wave_const_walk_next(&w)) {
      const wave_node *n = w.node;
      bool outer = open_divergent > 0;
      bool div = w.event != WAVE_WALK_BLOCK && wave_uniformity_node_divergent(u, n);
      switch (w.event) {
      case WAVE_WALK_BLOCK:
        for (const wave_instr *i = wave_block_first(n); i; i = wave_instr_next(i)) {
          if (wave_instr_op(i) != WAVE_OP_BREAK && wave_instr_op(i) != WAVE_OP_CONTINUE)
            continue;
          int kind = wave_instr_op(i) == WAVE_OP_BREAK ? BREAK : CONTINUE;
          c.edges[kind]++;
          c.divergent_edges[kind] += wave_uniformity_branch_divergent(u, i);
          if (wave_instr_next(i)) {
            c.blocks++;
            c.divergent_blocks += outer;
            c.edges[FALL]++;
          }
        }
        break;
      case WAVE_WALK_IF: {
        bool has_else = wave_if_has_else(n) || wave_node_list_first(wave_if_else(n));
        c.blocks += 2 + has_else;   /* then, else, endif */
        c.divergent_blocks += (outer || div) * (1 + has_else);
        c.edges[THEN]++;
        c.edges[ELSE]++;
        c.edges[RECONVERGE] += 1 + has_else;
        c.divergent_edges[THEN] += div;
        c.divergent_edges[ELSE] += div;
        c.divergent_edges[RECONVERGE] += div * (1 + has_else);
        open_divergent += div;
        break;
      }
      case WAVE_WALK_ENDIF:
        open_divergent -= div;
        c.divergent_blocks += open_divergent > 0;   /* the endif block, outside the if */
        break;
      case WAVE_WALK_LOOP:
        c.blocks += 2;   /* its first block and its exit */
        c.divergent_blocks += outer || div;
        c.edges[FALL]++;
        c.edges[BACK]++;
        c.edges[RECONVERGE]++;
        c.divergent_edges[BACK] += div;
        c.divergent_edges[RECONVERGE] += div;
        open_divergent += div;
        break;
      case WAVE_WALK_ENDLOOP:
        open_divergent -= div;
        c.divergent_blocks += open_divergent > 0;
        break;
      case WAVE_WALK_ELSE:
        break;
      }
    }
  }
  return c;
}

static bool is_legend(void *obj) {
  return strncmp(agnameof(obj), "legend_", 7) == 0;
}

/* The counts of a graph read back from its DOT text, checking each object's colour against
 * its class on the way. */
static counts read_counts(Agraph_t *g, const char *what) {
  counts c = {0};
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
    if (is_legend(n))
      continue;
    c.blocks++;
    const char *div = agget(n, "wavediv");
    cr_assert(div && (!strcmp(div, "divergent") || !strcmp(div, "uniform")), "%s: %s", what,
              agnameof(n));
    bool d = !strcmp(div, "divergent");
    c.divergent_blocks += d;
    cr_assert_str_eq(agget(n, "fillcolor"), d ? "#fde0dd" : "#deebf7", "%s: %s", what,
                     agnameof(n));
    cr_assert(aghtmlstr(agget(n, "label")), "%s: %s has no HTML label", what, agnameof(n));
    for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
      const char *kind = agget(e, "wavekind");
      int k = 0;
      while (k < KINDS && strcmp(kind, kind_names[k]) != 0)
        k++;
      cr_assert_lt(k, KINDS, "%s: edge of unknown kind '%s'", what, kind);
      c.edges[k]++;
      const char *color = agget(e, "color");
      if (k == FALL) {
        cr_assert_str_eq(color, "black", "%s", what);
        continue;
      }
      bool ed = !strcmp(agget(e, "wavediv"), "divergent");
      c.divergent_edges[k] += ed;
      cr_assert_str_eq(color, ed ? "#d62728" : "#1f77b4", "%s: %s edge", what, kind);
    }
  }
  return c;
}

static char *write_text(Agraph_t *g, wave_dot_format format, const char *what) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_not_null(out);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_dot_renderer *renderer = NULL;
  if (format != WAVE_DOT_FORMAT_DOT)
    renderer = wave_dot_renderer_create(&diags);
  int rc = wave_dot_write(g, format, renderer, out, &diags);
  wave_dot_renderer_destroy(renderer);
  tu_log_diags(&diags);
  cr_assert_eq(rc, 0, "%s: writing failed", what);
  cr_assert_eq(diags.count, 0, "%s", what);
  wave_diags_free(&diags);
  fclose(out);
  return text;
}

static void check_kernel(const wave_kernel *k, const char *file) {
  char what[256];
  snprintf(what, sizeof(what), "%s: kernel %s", file, wave_kernel_name(k));
  wave_diags diags;
  wave_diags_init(&diags);
  Agraph_t *g = wave_dot_build(k, NULL, &diags);
  tu_log_diags(&diags);
  cr_assert_not_null(g, "%s: no graph", what);
  cr_assert_eq(diags.count, 0, "%s", what);
  wave_diags_free(&diags);
  char *text = write_text(g, WAVE_DOT_FORMAT_DOT, what);
  agclose(g);

  Agraph_t *back = agmemread(text);
  cr_assert_not_null(back, "%s: cgraph cannot read what was written", what);
  cr_assert_str_eq(agnameof(back), wave_kernel_name(k));
  counts got = read_counts(back, what);
  agclose(back);
  free(text);

  wave_uniformity *u = wave_uniformity_compute(k, NULL);
  cr_assert_not_null(u);
  counts want = expected_counts(k, u);
  wave_uniformity_destroy(u);
  cr_assert_eq(got.blocks, want.blocks, "%s: blocks", what);
  cr_assert_eq(got.divergent_blocks, want.divergent_blocks, "%s: divergent blocks", what);
  for (int kind = 0; kind < KINDS; kind++) {
    cr_assert_eq(got.edges[kind], want.edges[kind], "%s: %s edges", what, kind_names[kind]);
    cr_assert_eq(got.divergent_edges[kind], want.divergent_edges[kind],
                 "%s: divergent %s edges", what, kind_names[kind]);
  }
}

static size_t check_directory(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  size_t kernels = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 5, ".wave") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    wave_diags diags;
    wave_diags_init(&diags);
    wave_module *m = wave_parse_file(path, &diags);
    cr_assert(m && wave_verify_module(m, &diags), "%s does not verify", path);
    wave_diags_free(&diags);
    for (const wave_kernel *k = wave_module_first_kernel(m); k; k = wave_kernel_next(k), kernels++)
      check_kernel(k, e->d_name);
    wave_module_destroy(m);
  }
  closedir(d);
  return kernels;
}

Test(dot, corpus_graphs_match_the_region_tree) {
  cr_assert_gt(check_directory(TU_CORPUS_DIR), 0);
}

Test(dot, bench_kernel_graphs_match_the_region_tree) {
  cr_assert_gt(check_directory(WAVE_SRCDIR "/tests/bench/kernels"), 0);
}

/* Each kind of construct once, hand-counted: the counts are not only self-consistent. */
Test(dot, small_kernel_by_hand) {
  wave_module *m = tu_parse_ok(".kernel k\n"
                               "  mov_sr r1, sr_thread_id_x\n"
                               "  icmp_lt p1, r1, r0\n"
                               "  if p1\n"
                               "    mov_imm r2, 1\n"
                               "  endif\n"
                               "  loop\n"
                               "    break p1\n"
                               "    mov_imm r3, 1\n"
                               "  endloop\n"
                               "  halt\n"
                               ".end\n",
                               "k.wave", false);
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), NULL, &(wave_diags){0});
  cr_assert_not_null(g);
  char *text = write_text(g, WAVE_DOT_FORMAT_DOT, "k");
  agclose(g);
  Agraph_t *back = agmemread(text);
  counts c = read_counts(back, "k");
  /* entry, then, endif, loop, split after the break, exit */
  cr_assert_eq(c.blocks, 6);
  cr_assert_eq(c.divergent_blocks, 3);   /* the then block, and the loop's two (its break) */
  cr_assert_eq(c.edges[THEN], 1);
  cr_assert_eq(c.edges[ELSE], 1);
  cr_assert_eq(c.edges[RECONVERGE], 2);
  cr_assert_eq(c.edges[FALL], 2);
  cr_assert_eq(c.edges[BACK], 1);
  cr_assert_eq(c.edges[BREAK], 1);
  cr_assert_eq(c.divergent_edges[BREAK], 1);
  agclose(back);
  free(text);
  wave_module_destroy(m);
}

/* cgraph lists subgraphs by id. With ids in the order objects are made (dot/ids.c) the
 * subroutines' boxes come in region order and a second drawing is the same text; with
 * graphviz's default ids, the addresses of their names, they came in whatever order malloc gave
 * (1 chance in 720 of the region order for six). */
Test(dot, subgraphs_come_in_the_order_they_are_made) {
  char source[512];
  size_t len = (size_t)snprintf(source, sizeof(source), ".kernel k\n    call s1\n    halt\n");
  for (int i = 1; i <= 6; i++)
    len += (size_t)snprintf(source + len, sizeof(source) - len,
                            "s%d:\n    mov_imm r%d, %d\n    return\n", i, i, i);
  snprintf(source + len, sizeof(source) - len, ".end\n");
  wave_module *m = tu_parse_ok(source, "subs.wave", false);
  char *texts[2];
  for (int round = 0; round < 2; round++) {
    Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), NULL, &(wave_diags){0});
    cr_assert_not_null(g);
    texts[round] = write_text(g, WAVE_DOT_FORMAT_DOT, "subs");
    agclose(g);
  }
  cr_assert_str_eq(texts[0], texts[1]);
  const char *at = texts[0];
  for (int i = 1; i <= 6; i++) {
    char name[40];
    snprintf(name, sizeof(name), "subgraph cluster_region%d {", i);
    const char *found = strstr(texts[0], name);
    cr_assert(found && found > at, "%s is not after the box before it", name);
    at = found;
  }
  free(texts[0]);
  free(texts[1]);
  wave_module_destroy(m);
}

/* Comments hold anything: markup, quotes, bytes that are not UTF-8, control characters. */
Test(dot, labels_escape_whatever_comments_hold) {
  wave_module *m = tu_parse_ok(".kernel k\n"
                               "  mov_imm r1, 1 ; <b>&amp; \"x\" ]> \xff\xfe \x01 done\n"
                               "  halt\n"
                               ".end\n",
                               "k.wave", false);
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), NULL, &(wave_diags){0});
  char *text = write_text(g, WAVE_DOT_FORMAT_DOT, "k");
  agclose(g);
  cr_assert(strstr(text, "; &lt;b&gt;&amp;amp; &quot;x&quot; ]&gt; &#xFFFD;&#xFFFD; &#xFFFD; "
                         "done"),
            "%s", text);
  Agraph_t *back = agmemread(text);
  cr_assert_not_null(back);
  agclose(back);
  free(text);
  wave_module_destroy(m);
}

Test(dot, renders_svg_through_gvc) {
  wave_module *m = tu_parse_ok(TU_AXPY_TEXT, "axpy.wave", false);
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), NULL, &(wave_diags){0});
  char *svg = write_text(g, WAVE_DOT_FORMAT_SVG, "axpy");
  cr_assert(strstr(svg, "<svg"), "%.200s", svg);
  free(svg);
  agclose(g);
  wave_module_destroy(m);
}

/* What graphviz says goes into the caller's diags, never to stderr, and fails the call; a
 * caller's attribute (a malformed HTML label) is what makes it speak here. stderr is pointed
 * at a file for the call only (not Criterion's redirection, whose pipe is closed by the time
 * LeakSanitizer reports at exit). */
Test(dot, graphviz_errors_become_diagnostics) {
  wave_module *m = tu_parse_ok(TU_AXPY_TEXT, "axpy.wave", false);
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), NULL, &(wave_diags){0});
  cr_assert_not_null(g);
  char *bad = agstrdup_html(g, "<TABLE><TR><TD>unclosed");
  agsafeset(agfstnode(g), "label", bad, "");
  agstrfree(g, bad);
  wave_diags diags;
  wave_diags_init(&diags);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  FILE *err = tmpfile();
  cr_assert(out && err);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  cr_assert(saved >= 0 && dup2(fileno(err), STDERR_FILENO) >= 0);
  wave_dot_renderer *renderer = wave_dot_renderer_create(&diags);
  int rc = renderer ? wave_dot_write(g, WAVE_DOT_FORMAT_SVG, renderer, out, &diags) : 0;
  wave_dot_renderer_destroy(renderer);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  cr_assert_not_null(renderer);
  cr_assert_eq(rc, -1);
  cr_assert_eq(ftell(err), 0, "graphviz wrote to stderr");
  fclose(err);
  fclose(out);
  free(text);
  cr_assert_gt(diags.num_errors, 0);
  cr_assert(strncmp(diags.items[0].message, "graphviz: ", 10) == 0, "%s",
            diags.items[0].message);
  cr_assert(!strchr(diags.items[0].message, '\n'));
  wave_diags_free(&diags);
  agclose(g);
  wave_module_destroy(m);
}

Test(dot, file_stems) {
  char buf[WAVE_DOT_STEM_MAX + 1];
  cr_assert_eq(wave_dot_file_stem("a.b/c d", buf, sizeof(buf)), 7);
  cr_assert_str_eq(buf, "a_b_c_d");
  cr_assert_eq(wave_dot_file_stem("", buf, sizeof(buf)), 1);
  cr_assert_str_eq(buf, "_");
  char long_name[300];
  memset(long_name, 'x', sizeof(long_name) - 1);
  long_name[sizeof(long_name) - 1] = '\0';
  cr_assert_eq(wave_dot_file_stem(long_name, buf, sizeof(buf)), WAVE_DOT_STEM_MAX);
  cr_assert_eq(strlen(buf), WAVE_DOT_STEM_MAX);
  wave_dot_format f;
  cr_assert(wave_dot_format_parse("svg", &f) && f == WAVE_DOT_FORMAT_SVG);
  cr_assert(!wave_dot_format_parse("gif", &f));
}

/* 100 000 nested ifs: the blocks are cut with a heap stack, not the C stack. */
Test(dot, deep_nest_builds, .timeout = 120) {
  enum { DEPTH = 100000 };
  size_t size = DEPTH * 16 + 64;
  char *text = malloc(size);
  cr_assert_not_null(text);
  char *p = text;
  p += sprintf(p, ".kernel deep\n");
  for (int i = 0; i < DEPTH; i++)
    p += sprintf(p, "if p1\n");
  p += sprintf(p, "mov_imm r1, 1\n");
  for (int i = 0; i < DEPTH; i++)
    p += sprintf(p, "endif\n");
  sprintf(p, "halt\n.end\n");
  wave_module *m = tu_parse_ok(text, "deep.wave", false);
  free(text);
  wave_diags diags;
  wave_diags_init(&diags);
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), NULL, &diags);
  tu_log_diags(&diags);
  cr_assert_not_null(g);
  int legend = 0;
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
    legend += is_legend(n);
  cr_assert_eq(agnnodes(g) - legend, 1 + 2 * DEPTH);
  agclose(g);
  wave_diags_free(&diags);
  wave_module_destroy(m);
}

/* A profiled kernel, two waves of 32 lanes: an if that splits (a quarter of the lanes), a loop
 * whose lanes leave at different iterations, and an if the analysis calls divergent that no lane
 * takes. */
static const char profiled_text[] = ".kernel k\n"
                                    ".workgroup_size 64\n"
                                    "  mov_sr r1, sr_thread_id_x\n"
                                    "  mov_imm r2, 3\n"
                                    "  and r3, r1, r2\n"
                                    "  mov_imm r4, 0\n"
                                    "  icmp_eq p1, r3, r4\n"
                                    "  if p1\n"                  /* 8: splits */
                                    "    iadd r5, r1, r1\n"
                                    "  else\n"
                                    "    isub r5, r1, r1\n"
                                    "  endif\n"
                                    "  mov_imm r7, 0\n"
                                    "  mov_imm r8, 1\n"
                                    "  loop\n"                   /* 15: t & 3 iterations */
                                    "    icmp_ge p3, r7, r3\n"
                                    "    break p3\n"
                                    "    iadd r7, r7, r8\n"
                                    "  endloop\n"
                                    "  mov_imm r6, 100\n"
                                    "  icmp_gt p2, r1, r6\n"
                                    "  if p2\n"                  /* 22: never splits */
                                    "    iadd r5, r5, r5\n"
                                    "  endif\n"
                                    "  halt\n"
                                    ".end\n";

/* The heat steps of docs/dot.md. */
static const char *expected_fill(uint64_t issued, double efficiency) {
  if (!issued)
    return "#eeeeee";
  return efficiency < 0.25 ? "#f4a3a3" : efficiency < 0.5 ? "#f9c98f"
         : efficiency < 0.75 ? "#fbeb9a" : efficiency < 1.0 ? "#d9efa8" : "#a9dba0";
}

/* Each block's fill and waveeff, read back, against the efficiency computed here from the
 * profile's counts of the lines its label lists (each line once; else lines issue with the
 * then-side's lanes and are left out); and the never-split marking on the block of line 22. */
Test(dot, profile_fills_follow_measured_efficiency) {
  wave_module *m = tu_parse_ok(profiled_text, "k.wave", false);
  wave_launch_config cfg;
  wave_launch_config_init(&cfg);
  wave_machine *machine = wave_simulate(wave_module_first_kernel(m), &cfg, NULL);
  cr_assert_not_null(machine);
  cr_assert_eq(wave_machine_status(machine), WAVE_RUN_OK);
  char *json = wave_profile_write(machine, "k.wave");
  wave_machine_destroy(machine);
  wave_diags diags;
  wave_diags_init(&diags);
  wave_profile *p = wave_profile_parse(json, strlen(json), "k.prof", &diags);
  free(json);
  const wave_profile_kernel *pk =
      p ? wave_profile_match(p, wave_module_first_kernel(m), &diags) : NULL;
  tu_log_diags(&diags);
  cr_assert_not_null(pk);

  wave_dot_options options;
  wave_dot_options_init(&options);
  options.profile = pk;
  Agraph_t *g = wave_dot_build(wave_module_first_kernel(m), &options, &diags);
  cr_assert_not_null(g);
  cr_assert_eq(diags.count, 0);
  char *text = write_text(g, WAVE_DOT_FORMAT_DOT, "k");
  agclose(g);
  Agraph_t *back = agmemread(text);
  cr_assert_not_null(back);

  uint32_t width = wave_profile_wave_width(pk);
  size_t blocks = 0, measured = 0, not_run = 0, never_split = 0, steps = 0;
  const char *fills[16];
  for (Agnode_t *n = agfstnode(back); n; n = agnxtnode(back, n)) {
    if (is_legend(n))
      continue;
    blocks++;
    const char *label = agget(n, "label");
    bool seen[64] = {false};
    bool holds_line_22 = false, holds_line_8 = false;
    uint64_t issued = 0, lanes = 0;
    static const char row[] = "<TR><TD ALIGN=\"LEFT\">";
    for (const char *r = strstr(label, row); r; r = strstr(r + 1, row)) {
      char *end;
      unsigned long line = strtoul(r + strlen(row), &end, 10);
      if (end == r + strlen(row) || line == 0)
        continue;   /* the title, the depth, or a line a pass made */
      cr_assert_lt(line, 64);
      holds_line_22 |= line == 22;
      holds_line_8 |= line == 8;
      if (seen[line] || strncmp(end, "  else", 6) == 0)
        continue;
      seen[line] = true;
      const wave_profile_line *l = wave_profile_find_line(pk, (uint32_t)line);
      cr_assert_not_null(l, "line %lu is not in the profile", line);
      issued += l->issued;
      lanes += l->lanes;
    }
    double efficiency = issued ? (double)lanes / ((double)issued * width) : 0;
    const char *fill = expected_fill(issued, efficiency);
    cr_assert_str_eq(agget(n, "fillcolor"), fill, "%s: %.4f", agnameof(n), efficiency);
    size_t f = 0;
    while (f < steps && strcmp(fills[f], fill) != 0)
      f++;
    if (f == steps && steps < 16)
      fills[steps++] = fill;
    const char *eff = agget(n, "waveeff");
    if (issued) {
      measured++;
      cr_assert_lt(fabs(strtod(eff, NULL) - efficiency), 1e-6, "%s: %s, not %f", agnameof(n),
                   eff, efficiency);
    } else {
      not_run++;
      cr_assert_str_eq(eff, "none");
    }
    /* The divergence class is the border now. */
    const char *div = agget(n, "wavediv");
    if (!agget(n, "wavedeepest") || !*agget(n, "wavedeepest"))
      cr_assert_str_eq(agget(n, "color"), !strcmp(div, "divergent") ? "#d62728" : "#1f77b4",
                       "%s", agnameof(n));
    const char *never = agget(n, "wavenever_split");
    bool marked = never && !strcmp(never, "1");
    cr_assert_eq(marked, holds_line_22, "%s", agnameof(n));
    if (marked) {
      never_split++;
      cr_assert(strstr(agget(n, "style"), "dotted"), "%s", agnameof(n));
      cr_assert(strstr(label, "split 0/2 = 0.0%: <B>never split</B>"), "%s", label);
    }
    if (holds_line_8)
      cr_assert(strstr(label, "split 2/2 = 100.0%"), "%s", label);
    if (strstr(label, "  loop  "))
      cr_assert(strstr(label, "exits diverged 2/2 = 100.0%"), "%s", label);
  }
  /* entry, then, else, endif, loop, split after the break, exit, then of line 22 (never
   * run), endif */
  cr_assert_eq(blocks, 9);
  cr_assert_eq(not_run, 1);
  cr_assert_eq(measured, 8);
  cr_assert_eq(never_split, 1);
  cr_assert_eq(steps, 5, "the kernel shows four heat steps and the not-run grey");
  agclose(back);
  free(text);
  wave_diags_free(&diags);
  wave_profile_destroy(p);
  wave_module_destroy(m);
}
