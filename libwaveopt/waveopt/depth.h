/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Divergence-stack depth: how many frames a wave of the kernel may hold at once.
 *
 * Every open `if` and `loop` holds one frame whether it diverges or not (docs/language.md
 * "Active mask and divergence stack", "Machine limits"), and a `call` keeps the caller's frames
 * below the subroutine's (docs/language.md "Calls"), so a call made with d frames open into a
 * subroutine that opens s reaches d + s. The *static* depth counts every if and loop; the
 * *divergent* depth counts only those that can split the wave: an if whose predicate may
 * differ between the active lanes, a loop that lanes may leave at different iterations (the
 * uniformity analysis decides, waveopt/uniformity.h). A recursion that opens a frame before it
 * calls itself again grows the stack on every lap: that depth is unbounded. The rules are in
 * analysis/divergence_depth.c.
 *
 * Within the pass manager the result is the `depth` analysis, computed from the cached
 * uniformity result; outside it, compute one directly.
 */
#ifndef WAVEOPT_DEPTH_H
#define WAVEOPT_DEPTH_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/ir.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wave_depth wave_depth;

/* Which frames count. */
typedef enum wave_depth_kind {
  WAVE_DEPTH_STATIC,      /* every if and loop */
  WAVE_DEPTH_DIVERGENT,   /* the divergent ifs and loops only */
} wave_depth_kind;

/* What the depth queries answer for a depth without bound. */
#define WAVE_DEPTH_UNBOUNDED UINT32_MAX

/* The result for `kernel`, or NULL when memory ran out. `uniformity` must be a result for the
 * same kernel; NULL counts every if and loop as divergent. The result describes the kernel as
 * it is now: any edit makes it stale. */
WAVE_API wave_depth *wave_depth_compute(const wave_kernel *kernel,
                                        const wave_uniformity *uniformity);
WAVE_API void wave_depth_destroy(wave_depth *depth);

/* The most frames of the kind a wave of the kernel may hold at once, over every path the
 * kernel can run from its entry (subroutines it never calls or falls into do not count);
 * WAVE_DEPTH_UNBOUNDED when a recursion deepens the stack on every lap. */
WAVE_API uint32_t wave_depth_max(const wave_depth *depth, wave_depth_kind kind);
WAVE_API bool wave_depth_unbounded(const wave_depth *depth, wave_depth_kind kind);

/* The frames of the kind a wave may hold while node's own frame is open (node an if or a
 * loop), at the deepest the kernel can reach it: its region's deepest entry plus the frames
 * around it and its own. A region the kernel never enters counts from 0. A node the result
 * does not know, or one inside a recursion that deepens without bound, answers
 * WAVE_DEPTH_UNBOUNDED, which keeps a pass that must not deepen nesting safe. */
WAVE_API uint32_t wave_depth_at(const wave_depth *depth, wave_depth_kind kind,
                                const wave_node *node);

/* One link of the way to the deepest point: an if or a loop that holds a frame there, or a
 * call through which the way goes on in the subroutine. Exactly one of the two is set. */
typedef struct wave_depth_step {
  const wave_node *node;
  const wave_instr *call;
} wave_depth_step;

/* The way from the kernel's entry to a deepest point, outermost first: the ifs and loops of
 * the kind that are open there and the calls between them. When the depth is unbounded,
 * steps[cycle, length) is a recursion that comes back to where it started with more frames
 * open, repeating without end; otherwise cycle == length. */
typedef struct wave_depth_path {
  const wave_depth_step *steps;   /* owned by the result */
  size_t length;
  size_t cycle;
} wave_depth_path;

WAVE_API wave_depth_path wave_depth_deepest(const wave_depth *depth, wave_depth_kind kind);

/* One line per kind, as `print<depth>` writes it:
 *   NAME: static depth N, divergent depth M      (N or M "unbounded")
 *   ; static: if (line 4) > call f (line 6) > loop (line 12)
 *   ; divergent: if (line 4)
 * "(none)" stands for an empty way; a recursion is written "[ ... ] repeats without end".
 * Returns 0, or non-zero when write failed. */
WAVE_API int wave_depth_print(const wave_depth *depth, const wave_kernel *kernel,
                              wave_write_fn write, void *ctx);

/* A way as `print<depth>` writes it after "; static: ": "if (line 4) > call f (line 6)", or
 * "(none)". With max_steps 0 every step is written. Otherwise a way of more than max_steps
 * steps keeps its first and last max_steps / 2 (and the step where a recursion starts, with
 * its "["), and each run of steps left out is counted in their place: "> ... 120 more ... >".
 * Returns 0, or non-zero when write failed. */
WAVE_API int wave_depth_path_print(wave_depth_path path, size_t max_steps, wave_write_fn write,
                                   void *ctx);

/* Whether two results for the same kernel give the same answers. */
WAVE_API bool wave_depth_equal(const wave_depth *a, const wave_depth *b);

#ifdef __cplusplus
}
#endif

#endif
