/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Moving the comments of removed lines (xform/comments.h). The new text is built in the
 * module's arena, like every string of the tree, and replaces the target's whole-line comments
 * only once it is complete, so that running out of memory leaves the tree as it was.
 */
#include "xform/comments.h"

#include <string.h>

wave_src *wave_xform_line_after(wave_node *node) {
  wave_node *next = node->next;
  if (next && next->kind == WAVE_NODE_BLOCK)
    return &next->u.block.first->src;
  if (next)
    return next->kind == WAVE_NODE_IF ? &next->u.if_.if_src : &next->u.loop.loop_src;
  wave_node *parent = wave_node_parent(node);
  if (parent && parent->kind == WAVE_NODE_LOOP)
    return &parent->u.loop.endloop_src;
  if (parent && node->list == &parent->u.if_.then_body && parent->u.if_.has_else)
    return &parent->u.if_.else_src;
  if (parent)
    return &parent->u.if_.endif_src;
  wave_region *region = wave_node_region(node);
  return region->next ? &region->next->label_src : &region->kernel->end_src;
}

/* Appends `text` as whole-line comments to the buffer of `*len` bytes. */
static void add_lines(char *buf, size_t *len, const char *text) {
  if (!text || !text[0])
    return;
  size_t n = strlen(text);
  if (*len)
    buf[(*len)++] = '\n';
  memcpy(buf + *len, text, n);
  *len += n;
}

bool wave_xform_move_comments(wave_module *module, const wave_src *from, size_t count,
                              wave_src *to) {
  size_t size = to->leading ? strlen(to->leading) + 1 : 1;
  for (size_t i = 0; i < count; i++) {
    size += from[i].leading ? strlen(from[i].leading) + 1 : 0;
    size += from[i].comment ? strlen(from[i].comment) + 1 : 0;
  }
  char *buf = wave_module_alloc(module, size);
  if (!buf)
    return false;
  size_t len = 0;
  for (size_t i = 0; i < count; i++) {
    add_lines(buf, &len, from[i].leading);
    add_lines(buf, &len, from[i].comment);
  }
  add_lines(buf, &len, to->leading);
  buf[len] = '\0';
  to->leading = len ? buf : NULL;
  return true;
}
