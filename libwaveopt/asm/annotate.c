/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The annotated listing (asm/annotate.h). It walks the region tree with the const walker, so a
 * kernel nested 100 000 deep prints without recursion, and caps the indentation as the
 * canonical printer does, which keeps the output linear in the size of the kernel.
 */
#include "asm/annotate.h"

#include <stdio.h>
#include <string.h>

#include "ir/code.h"

enum { MAX_INDENT = 16, VERDICT_SIZE = 2048 };

typedef struct listing {
  wave_write_fn write;
  void *ctx;
  int failed;
  char verdict[VERDICT_SIZE];
} listing;

static void emit(listing *l, const char *s) {
  if (!l->failed)
    l->failed = l->write(l->ctx, s, strlen(s));
}

static void line(listing *l, unsigned depth, const char *text, wave_src src, const char *verdict) {
  for (unsigned i = 0; i <= depth && i < MAX_INDENT; i++)
    emit(l, "    ");
  emit(l, text);
  if (src.comment) {
    emit(l, " ");
    emit(l, src.comment);
  }
  if (verdict) {
    emit(l, " ; ");
    emit(l, verdict);
  }
  emit(l, "\n");
}

static const char *node_verdict(listing *l, const wave_annotator *a, const wave_node *node) {
  return a->node ? a->node(a->ctx, node, l->verdict, sizeof(l->verdict)) : NULL;
}

int wave_print_annotated(const wave_kernel *kernel, const wave_annotator *a, wave_write_fn write,
                         void *ctx) {
  listing l = {.write = write, .ctx = ctx};
  char text[256];
  emit(&l, ".kernel ");
  emit(&l, kernel->name);
  emit(&l, "\n");
  for (const wave_region *r = kernel->first_region; r && !l.failed; r = r->next) {
    if (r->label) {
      emit(&l, r->label);
      emit(&l, ":\n");
    }
    wave_const_walker w;
    wave_const_walk_init(&w, &r->body);
    while (!l.failed && wave_const_walk_next(&w)) {
      const wave_node *n = w.node;
      switch (w.event) {
      case WAVE_WALK_BLOCK:
        for (const wave_instr *i = wave_block_first(n); i && !l.failed; i = wave_instr_next(i)) {
          wave_format_instr(i, text, sizeof(text));
          line(&l, w.depth, text, wave_instr_origin(i),
               a->instr(a->ctx, i, l.verdict, sizeof(l.verdict)));
        }
        break;
      case WAVE_WALK_IF:
        snprintf(text, sizeof(text), "if %sp%u", wave_if_cond(n).negated ? "!" : "",
                 (unsigned)wave_if_cond(n).value);
        line(&l, w.depth, text, wave_node_origin(n, WAVE_LINE_IF), node_verdict(&l, a, n));
        break;
      case WAVE_WALK_ELSE:
        if (wave_if_has_else(n) || wave_node_list_first(wave_if_else(n)))
          line(&l, w.depth, "else", wave_node_origin(n, WAVE_LINE_ELSE), NULL);
        break;
      case WAVE_WALK_ENDIF:
        line(&l, w.depth, "endif", wave_node_origin(n, WAVE_LINE_ENDIF), NULL);
        break;
      case WAVE_WALK_LOOP:
        line(&l, w.depth, "loop", wave_node_origin(n, WAVE_LINE_LOOP), node_verdict(&l, a, n));
        break;
      case WAVE_WALK_ENDLOOP:
        line(&l, w.depth, "endloop", wave_node_origin(n, WAVE_LINE_ENDLOOP), NULL);
        break;
      }
    }
  }
  emit(&l, ".end\n");
  return l.failed;
}
