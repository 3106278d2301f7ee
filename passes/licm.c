/* SPDX-License-Identifier: Apache-2.0 */
/*
 * licm: hoists the constants a loop loads in every iteration out of it (LLVM's loop-invariant
 * code motion, for the one kind of code it pays most for in WAVE: mov_imm and mov_sr, whose
 * operands cannot change).
 *
 *                                    mov_imm r8, 1
 *   loop                             loop
 *     mov_imm r8, 1          ->        icmp_eq p0, r6, r8
 *     icmp_eq p0, r6, r8               break p0
 *     break p0                         ...
 *     ...                            endloop
 *   endloop
 *
 * A constant `mov_imm rX, imm` (or `mov_sr rX, sr`: special registers are constant per lane,
 * docs/language.md "Special registers") leaves the loop when
 *   - it is unguarded and lies in the loop's own body, not in an if or loop inside it, so every
 *     lane that gets there in an iteration runs it;
 *   - nothing else in the loop writes rX (pair and quad halves included, docs/language.md
 *     "Implicit register pairs and quads"; a call writes every register, "Calls"): from its
 *     first run on, rX holds the constant for the rest of the loop;
 *   - nothing in the loop reads rX before it: the first iteration read the old value there;
 *   - and either no break, continue or return comes before it in the body, so that every lane
 *     entering the loop runs it in the first iteration (a body always runs once, "Loops"), or
 *     the only way around it is a break or continue and rX is dead after the loop (liveness,
 *     and read in no other lane anywhere: a shuffle reads inactive lanes' registers). A return
 *     before it refuses: the lane takes rX back to the caller.
 * The hoisted instruction runs right before the loop, with the lanes that enter it (the mask
 * at a loop is the mask its first iteration starts with), so it runs for exactly the lanes
 * that would have run it, minus none that could see the difference. It cannot trap and is not
 * convergent (wave_instr_can_speculate); nothing is added, no guard, register or nesting.
 *
 * Loops are judged in one walk of the kernel's layout (ir/layout.h: the registers every
 * instruction reads and writes come decoded, shared with the analyses and the passes after)
 * with a frame per open loop (no recursion; a loop's facts join its parent's when it ends), and
 * rewritten after it, so one run hoists a constant one loop out; the -O2 fixpoint carries it
 * further. One liveness result serves the run: a hoist moves a write of rX earlier and reads
 * nothing, so rX only becomes live inside the loop it left, where no later question is asked
 * about rX, and nothing becomes live elsewhere (the stale-liveness rule of xform/xform.h).
 *
 * It refuses, with a missed remark naming the constant and the loop: rX written elsewhere in
 * the loop, read before the constant, or possibly left unwritten by a lane that exits the loop
 * before it while rX is still read after the loop.
 */
#include <stdint.h>

#include "ir/code.h"
#include "pm/builtin.h"
#include "support/grow.h"
#include "waveopt/edit.h"
#include "waveopt/instr.h"
#include "waveopt/liveness.h"
#include "xform/xform.h"

/* What one open loop has met so far, in text order. */
typedef struct frame {
  wave_node *loop;
  wave_regset read;           /* read somewhere in the body so far */
  wave_regset written;        /* written at least once */
  wave_regset written_twice;  /* written more than once */
  bool exit_seen;             /* a break or continue of this loop, or a return, so far */
  bool return_seen;
  size_t first_candidate;     /* its candidates are candidates[first_candidate..] */
} frame;

typedef struct candidate {
  wave_instr *instr;
  bool read_before, exit_before, return_before;
} candidate;

typedef struct hoist {
  wave_instr *instr;
  wave_node *loop;
} hoist;

typedef struct licm {
  wave_pass_context *ctx;
  wave_analysis_manager *am;
  wave_kernel *kernel;
  const wave_allocator *allocator; /* the module's, for the arrays below */
  const wave_liveness *lv;        /* asked for at the first constant after an early exit */
  wave_regset other_lanes;        /* with lv */
  frame *frames;
  size_t num_frames, frames_cap;
  candidate *candidates;
  size_t num_candidates, candidates_cap;
  hoist *hoists;
  size_t num_hoists, hoists_cap;
  bool out_of_memory;
} licm;

static bool is_constant(const wave_layout_item *item) {
  return item->guard == WAVE_NO_GUARD &&
         (item->op == WAVE_OP_MOV_IMM || item->op == WAVE_OP_MOV_SR ||
          (item->op == WAVE_OP_MOV &&
           wave_instr_operand(wave_layout_instr(item), 1).kind == WAVE_OPERAND_SREG));
}

static void note_instr(licm *l, const wave_layout *layout, const wave_layout_item *item,
                       bool top_level) {
  frame *f = &l->frames[l->num_frames - 1];
  if (top_level && is_constant(item)) {
    if (!wave_grow(l->allocator, (void **)&l->candidates, &l->candidates_cap, l->num_candidates + 1,
                   sizeof(*l->candidates))) {
      l->out_of_memory = true;
      return;
    }
    wave_instr *in = (wave_instr *)wave_layout_instr(item);
    unsigned r = WAVE_REG_GPR(wave_instr_operand(in, 0).value);
    l->candidates[l->num_candidates++] =
        (candidate){in, wave_regset_test(f->read, r), f->exit_seen, f->return_seen};
  }
  wave_regset_add_list(&f->read, wave_layout_uses(layout, item), item->num_uses);
  if (wave_opcode_has(item->op, WAVE_F_CALL)) {
    wave_regset defs = wave_xform_may_write(wave_layout_instr(item));
    f->written_twice =
        wave_regset_union(f->written_twice, wave_regset_intersect(f->written, defs));
    f->written = wave_regset_union(f->written, defs);
  } else {
    /* The common case a register at a time: whole-set operations cost five words each. */
    const uint16_t *defs = wave_layout_defs(layout, item);
    for (unsigned i = 0; i < item->num_defs; i++) {
      if (wave_regset_test(f->written, defs[i]))
        wave_regset_set(&f->written_twice, defs[i]);
      wave_regset_set(&f->written, defs[i]);
    }
  }
  if (item->op == WAVE_OP_BREAK || item->op == WAVE_OP_CONTINUE || item->op == WAVE_OP_RETURN)
    f->exit_seen = true;
  if (item->op == WAVE_OP_RETURN)
    f->return_seen = true;
}

/* Why the candidate stays in its loop, or NULL when it may leave. */
static const char *why_kept(licm *l, const frame *f, const candidate *c) {
  unsigned r = WAVE_REG_GPR(wave_instr_operand(c->instr, 0).value);
  if (wave_regset_test(f->written_twice, r))
    return "is written elsewhere in the loop";
  if (c->read_before)
    return "is read before it in the loop";
  if (c->return_before)
    return "may go back to a caller unwritten by a return before it";
  if (!c->exit_before)
    return NULL;
  if (!l->lv && (l->lv = wave_analysis_get(l->am, l->kernel, WAVE_ANALYSIS_LIVENESS)) != NULL)
    l->other_lanes = wave_liveness_other_lanes(l->lv);
  if (!l->lv)
    return "is read after the loop as far as anyone knows: no liveness";
  wave_regset after = wave_liveness_at(l->lv, wave_cursor_after_node(f->loop));
  if (wave_regset_test(after, r) || wave_regset_test(l->other_lanes, r))
    return "may be left unwritten by a lane that exits before it, and is read after the loop";
  return NULL;
}

static void end_loop(licm *l) {
  frame f = l->frames[--l->num_frames];
  wave_loc loop_at = wave_node_origin(f.loop, WAVE_LINE_LOOP).loc;
  for (size_t i = f.first_candidate; i < l->num_candidates; i++) {
    const candidate *c = &l->candidates[i];
    wave_loc at = wave_instr_loc(c->instr);
    const char *mnemonic = wave_opcode_get(wave_instr_op(c->instr))->mnemonic;
    unsigned r = wave_instr_operand(c->instr, 0).value;
    const char *why = why_kept(l, &f, c);
    if (why) {
      wave_remark_missed(l->ctx, "constant-kept", at,
                         "%s at %u:%u not hoisted out of the loop at %u:%u: r%u %s", mnemonic,
                         at.line, at.col, loop_at.line, loop_at.col, r, why);
      continue;
    }
    if (!wave_grow(l->allocator, (void **)&l->hoists, &l->hoists_cap, l->num_hoists + 1,
                   sizeof(*l->hoists))) {
      l->out_of_memory = true;
      return;
    }
    l->hoists[l->num_hoists++] = (hoist){c->instr, f.loop};
    wave_pass_stat_add(l->ctx, "constants-hoisted", "Number of constants hoisted out of loops",
                       1);
    wave_remark_passed(l->ctx, "constant-hoisted", at,
                       "%s at %u:%u hoisted out of the loop at %u:%u: r%u holds it in every "
                       "iteration",
                       mnemonic, at.line, at.col, loop_at.line, loop_at.col, r);
  }
  l->num_candidates = f.first_candidate;
  if (l->num_frames == 0)
    return;
  /* The inner loop's facts are the parent's too, except its breaks and continues, which leave
   * only the inner loop. */
  frame *p = &l->frames[l->num_frames - 1];
  p->read = wave_regset_union(p->read, f.read);
  p->written_twice = wave_regset_union(
      p->written_twice, wave_regset_union(f.written_twice, wave_regset_intersect(p->written,
                                                                                 f.written)));
  p->written = wave_regset_union(p->written, f.written);
  p->return_seen |= f.return_seen;
  p->exit_seen |= f.return_seen;
}

/* The kernel's layout in text order, every region's loops closed before the region ends. */
static void walk(licm *l, const wave_layout *layout) {
  bool top_level = false;
  for (size_t i = 0; i < layout->num_items && !l->out_of_memory; i++) {
    const wave_layout_item *item = &layout->items[i];
    if (item->kind == WAVE_LAYOUT_LOOP) {
      if (!wave_grow(l->allocator, (void **)&l->frames, &l->frames_cap, l->num_frames + 1,
                     sizeof(*l->frames))) {
        l->out_of_memory = true;
        return;
      }
      l->frames[l->num_frames++] = (frame){.loop = (wave_node *)wave_layout_node(item),
                                           .first_candidate = l->num_candidates};
    } else if (item->kind == WAVE_LAYOUT_ENDLOOP) {
      end_loop(l);
    } else if (item->kind == WAVE_LAYOUT_BLOCK && l->num_frames == 0) {
      i += item->count;   /* outside every loop: nothing to judge */
    } else if (item->kind == WAVE_LAYOUT_BLOCK) {
      const wave_node *loop = l->frames[l->num_frames - 1].loop;
      top_level = wave_node_list_of(wave_layout_node(item)) == wave_loop_body(loop);
    } else if (item->kind == WAVE_LAYOUT_INSTR) {
      note_instr(l, layout, item, top_level);
    }
  }
}

static wave_pass_result run(wave_kernel *kernel, wave_analysis_manager *am,
                            wave_pass_context *ctx) {
  licm l = {.ctx = ctx,
            .am = am,
            .kernel = kernel,
            .allocator = wave_module_allocator(wave_kernel_module(kernel))};
  const wave_layout *layout = wave_analysis_manager_layout(am, kernel);
  if (layout)
    walk(&l, layout);
  else
    l.out_of_memory = true;
  if (!l.out_of_memory) {
    /* A copy goes in first, so that running out of memory leaves the constant where it was. */
    for (size_t i = 0; i < l.num_hoists; i++) {
      wave_instr *copy = wave_instr_clone(wave_kernel_module(kernel), l.hoists[i].instr);
      if (!copy || !wave_instr_insert(wave_kernel_module(kernel),
                                      wave_cursor_before_node(l.hoists[i].loop), copy)) {
        l.out_of_memory = true;
        break;
      }
      wave_instr_remove(l.hoists[i].instr);
    }
  }
  bool changed = l.num_hoists > 0;
  if (changed)
    wave_normalize_kernel(kernel);
  wave_mem_free(l.allocator, l.frames);
  wave_mem_free(l.allocator, l.candidates);
  wave_mem_free(l.allocator, l.hoists);
  if (l.out_of_memory)
    return wave_pass_fail(ctx, wave_kernel_loc(kernel), "out of memory in licm");
  return wave_pass_done(changed, WAVE_PRESERVE_NONE);
}

const wave_pass_info wave_pass_licm = {
    .name = "licm",
    .help = "hoist the constants (mov_imm, mov_sr) a loop loads in every iteration out of it",
    .run = run,
};
