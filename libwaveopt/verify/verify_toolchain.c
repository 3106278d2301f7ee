/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Warnings (group "toolchain") about programs that are valid WAVE but that the real toolchain
 * runs differently from the spec (docs/toolchain.md "Summary"; docs/language.md "Decisions on open
 * points"): guards that some tool drops, the emulator's break/continue/nesting bugs, calls, the
 * scalar f16 and f32 MMA forms ptxas rejects, directive values beyond the spec's limits, and
 * kernels that can run past their end.
 *
 * "Runs past its end" is decided by one linear reachability walk in spec semantics (halt ends
 * the lanes that execute it): a list stops falling through after an unguarded halt or return
 * at its top level, or after an if whose both sides stop, or after a loop whose own body holds
 * no break. Regions fall through into the next one in source order; a region named by a call
 * is entered whether or not its predecessor falls through.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "ir/code.h"
#include "verify/verify_state.h"

#define TOOLCHAIN_WARN(v, loc, ...) \
  wave_module_report((v)->module, (v)->diags, WAVE_SEV_WARNING, "toolchain", (loc), __VA_ARGS__)

/* The emulator's divergence stack and the spec limits (docs/toolchain.md "Nesting depth",
 * docs/language.md "Machine limits"). */
enum { EMULATOR_MAX_FRAMES = 32, MAX_WORKGROUP_SIZE = 256 };

/* A directive's own location, or the kernel's when the directive was not written. */
static wave_loc directive_loc(const wave_kernel *kernel, wave_kernel_line line) {
  wave_loc loc = wave_kernel_origin(kernel, line).loc;
  return loc.line ? loc : wave_kernel_loc(kernel);
}

void wave_verify_toolchain_kernel_begin(wave_verify *v) {
  const wave_kernel *k = v->kernel;
  const uint32_t wg[3] = {wave_kernel_workgroup_size(k, 0), wave_kernel_workgroup_size(k, 1),
                          wave_kernel_workgroup_size(k, 2)};
  uint64_t threads = (uint64_t)wg[0] * wg[1] * wg[2];
  if (threads > MAX_WORKGROUP_SIZE)
    TOOLCHAIN_WARN(v, directive_loc(k, WAVE_KERNEL_LINE_WORKGROUP_SIZE),
                   ".workgroup_size %u, %u, %u has %" PRIu64 " threads, more than the spec's "
                   "MAX_WORKGROUP_SIZE of %d",
                   wg[0], wg[1], wg[2], threads, MAX_WORKGROUP_SIZE);
  if (wave_kernel_registers(k) > WAVE_MAX_GPR)
    TOOLCHAIN_WARN(v, directive_loc(k, WAVE_KERNEL_LINE_REGISTERS),
                   ".registers %u is more than %d: only r0-r%d can be encoded",
                   wave_kernel_registers(k), WAVE_MAX_GPR, WAVE_MAX_GPR);
}

/* ---- reachability ------------------------------------------------------------------------- */

static bool push_frame(wave_verify *v) {
  if (v->num_frames == v->frame_capacity) {
    size_t capacity = v->frame_capacity ? 2 * v->frame_capacity : 64;
    wave_verify_frame *frames =
        wave_mem_realloc(wave_module_allocator(v->module), v->frames, capacity * sizeof(*frames));
    if (!frames) {
      v->out_of_memory = true;
      return false;
    }
    v->frames = frames;
    v->frame_capacity = capacity;
  }
  wave_verify_frame *f = &v->frames[v->num_frames++];
  f->outer_loop = v->loop_frame;
  f->entry_reachable = v->reachable;
  f->then_reachable = false;
  f->has_break = false;
  return true;
}

void wave_verify_toolchain_region_begin(wave_verify *v) {
  v->num_frames = 0;
  v->loop_frame = WAVE_VERIFY_NONE;
  v->reachable = true;
}

static void warn_nesting(wave_verify *v, const wave_walker *w) {
  if (v->nesting_warned || w->depth < EMULATOR_MAX_FRAMES)
    return;
  v->nesting_warned = true;
  bool is_if = w->event == WAVE_WALK_IF;
  wave_loc loc = is_if ? wave_node_origin(w->node, WAVE_LINE_IF).loc
                       : wave_node_origin(w->node, WAVE_LINE_LOOP).loc;
  TOOLCHAIN_WARN(v, loc, "'%s' opens nesting level %u, deeper than the %d divergence-stack "
                 "frames of the upstream emulator (a runtime error there)",
                 is_if ? "if" : "loop", w->depth + 1, EMULATOR_MAX_FRAMES);
}

void wave_verify_toolchain_event(wave_verify *v, const wave_walker *w) {
  if (w->event == WAVE_WALK_IF || w->event == WAVE_WALK_LOOP)
    warn_nesting(v, w);
  if (v->out_of_memory)
    return;
  wave_verify_frame *top = v->num_frames ? &v->frames[v->num_frames - 1] : NULL;
  switch (w->event) {
  case WAVE_WALK_IF:
    push_frame(v);
    break;
  case WAVE_WALK_ELSE:
    top->then_reachable = v->reachable;
    v->reachable = top->entry_reachable;
    break;
  case WAVE_WALK_ENDIF:
    v->reachable = v->reachable || top->then_reachable;
    v->num_frames--;
    break;
  case WAVE_WALK_LOOP:
    if (push_frame(v))
      v->loop_frame = v->num_frames - 1;
    break;
  case WAVE_WALK_ENDLOOP:
    /* A loop without a break of its own never finishes; lanes only leave it by halting. */
    v->reachable = top->entry_reachable && top->has_break;
    v->loop_frame = top->outer_loop;
    v->num_frames--;
    break;
  case WAVE_WALK_BLOCK:
    break;
  }
}

void wave_verify_toolchain_flow(wave_verify *v, const wave_instr *instr) {
  if (v->out_of_memory)
    return;
  if (wave_instr_op(instr) == WAVE_OP_BREAK && v->loop_frame != WAVE_VERIFY_NONE)
    v->frames[v->loop_frame].has_break = true;
  if ((wave_instr_op(instr) == WAVE_OP_HALT || wave_instr_op(instr) == WAVE_OP_RETURN) &&
      wave_instr_guard(instr) == WAVE_NO_GUARD)
    v->reachable = false;
}

void wave_verify_toolchain_region_end(wave_verify *v) {
  v->falls_through[v->region_index] = v->reachable;
}

void wave_verify_toolchain_kernel_end(wave_verify *v) {
  if (v->out_of_memory)
    return;
  bool reachable = true;
  for (size_t i = 0; i < v->labels.num_regions; i++)
    reachable = (reachable || v->called[i]) && v->falls_through[i];
  if (!reachable)
    return;
  const wave_kernel *k = v->kernel;
  wave_loc loc = wave_kernel_origin(k, WAVE_KERNEL_LINE_END).loc.line
                     ? wave_kernel_origin(k, WAVE_KERNEL_LINE_END).loc
                     : wave_kernel_loc(k);
  TOOLCHAIN_WARN(v, loc,
                 "kernel '%s' can run past its end without 'halt' or 'return' (the "
                 "emulator reports a decode error or runs into the next kernel)",
                 wave_kernel_name(k));
}

/* ---- instructions ------------------------------------------------------------------------- */

static void warn_guard(wave_verify *v, const wave_instr *instr) {
  const wave_opcode_info *info = wave_opcode_get(wave_instr_op(instr));
  wave_loc loc = wave_instr_loc(instr);
  if (wave_instr_guard(instr) == WAVE_NO_GUARD)
    return;
  if (wave_instr_guard(instr) == 0 && !wave_instr_guard_negated(instr))
    TOOLCHAIN_WARN(v, loc, "'@p0' is not a guard: every real tool runs '%s' unguarded (guard "
                   "with p1-p3)", info->mnemonic);
  else if (!(info->flags & WAVE_F_GUARD_OK) && info->category == WAVE_CAT_CONTROL)
    TOOLCHAIN_WARN(v, loc, "guard on '%s' is not honoured: the emulator runs it for the whole "
                   "wave when any lane passes the guard", info->mnemonic);
  else if (!(info->flags & WAVE_F_GUARD_OK))
    TOOLCHAIN_WARN(v, loc, "guard on '%s' is dropped by wave-ptx, which runs it in all lanes "
                   "(guards survive only on ALU work, compares, select, moves and halt)",
                   info->mnemonic);
  else if (wave_instr_guard(instr) == 0)
    TOOLCHAIN_WARN(v, loc, "'@!p0' guard is dropped by wave-ptx (guard with p1-p3)");
}

static void warn_operands(wave_verify *v, const wave_instr *instr) {
  static const char *const half_names[] = {"", "lo", "hi"};
  wave_opcode op = wave_instr_op(instr);
  for (unsigned slot = 0; slot < wave_instr_num_operands(instr); slot++) {
    wave_operand o = wave_instr_operand(instr, slot);
    char kind = wave_opcode_slot_kind(op, slot);
    wave_loc loc = wave_verify_operand_loc(wave_instr_loc(instr), &o);
    bool reg = o.kind == WAVE_OPERAND_GPR || o.kind == WAVE_OPERAND_SREG;
    if (o.kind == WAVE_OPERAND_SREG && !wave_opcode_reads_sreg(op, slot))
      TOOLCHAIN_WARN(v, loc,
                     "special register '%s' outside mov_sr is encoded as register r%u "
                     "(read it with mov_sr first)",
                     wave_sreg_names[o.value], o.value);
    if (reg && o.half != WAVE_HALF_NONE && o.half <= WAVE_HALF_HI)
      TOOLCHAIN_WARN(v, loc,
                     "half register '.%s' is ignored by every tool: the whole register "
                     "is used",
                     half_names[o.half]);
    if (kind == 'o' && reg && o.value == 0)
      TOOLCHAIN_WARN(v, loc, "r0 as an atomic destination means 'no return': the old value is "
                     "not written (omit the destination or use another register)");
  }
}

void wave_verify_toolchain_instr(wave_verify *v, const wave_node *block,
                                 const wave_instr *instr) {
  wave_opcode op = wave_instr_op(instr);
  wave_loc loc = wave_instr_loc(instr);
  warn_guard(v, instr);
  warn_operands(v, instr);
  const wave_node *parent = wave_node_parent(block);
  switch (op) {
  case WAVE_OP_CONTINUE:
    TOOLCHAIN_WARN(v, loc, "'continue' hangs or overflows the control-flow stack on the "
                   "upstream emulator (wrap the rest of the loop body in an 'if' instead)");
    break;
  case WAVE_OP_BREAK:
    if (parent && wave_node_kind_of(parent) == WAVE_NODE_IF)
      TOOLCHAIN_WARN(v, loc, "'break' inside an 'if' is deferred by the upstream emulator: its "
                     "lanes run the rest of the loop body once more (break at the top level of "
                     "the loop body)");
    break;
  case WAVE_OP_CALL:
    TOOLCHAIN_WARN(v, loc, "'call' is rejected by wave-ptx, and the upstream assembler "
                   "miscomputes call targets");
    break;
  case WAVE_OP_ATOMIC_CAS:
  case WAVE_OP_LOCAL_ATOMIC_CAS:
    TOOLCHAIN_WARN(v, loc,
                   "the upstream assembler encodes '%s' as an atomic add: no upstream "
                   "tool runs it as a compare-and-swap",
                   wave_opcode_get(op)->mnemonic);
    break;
  case WAVE_OP_HADD:
  case WAVE_OP_HSUB:
  case WAVE_OP_HMUL:
    TOOLCHAIN_WARN(v, loc, "scalar f16 '%s' is rejected by ptxas in the PTX that wave-ptx "
                   "makes", wave_opcode_get(op)->mnemonic);
    break;
  default:
    if (wave_opcode_get(op)->category == WAVE_CAT_MMA)
      TOOLCHAIN_WARN(v, loc, "f32 MMA '%s' is rejected by ptxas in the PTX that wave-ptx makes",
                     wave_opcode_get(op)->mnemonic);
    break;
  }
}
