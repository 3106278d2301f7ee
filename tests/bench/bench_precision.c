/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make bench: how precise the divergence analyses are. Generated kernels run in the SIMT
 * interpreter at several wave widths, with the observe hook watching every issued statement,
 * and what they did is set against what the analyses claim.
 *
 * Uniformity. An if, break or continue is dynamically uniform when no execution of it, at any
 * width, found its predicate differing between the lanes it ran for. Among those, the share
 * wave_uniformity_node_divergent / wave_uniformity_branch_divergent call uniform is the
 * precision. A branch that did split but is called uniform would be a soundness bug: counted
 * apart.
 *
 * Liveness. At the point after an instruction, a register of a lane that goes on is
 * dynamically dead when the lane's next access to it is a write, or there is none. Per lane
 * and register the run remembers `since`, the wave step of the last access: the points the
 * lane passed from then on all hold the same value, which is live there exactly when the next
 * access is a read. So only reads cost work: a read walks the wave's trace back to the
 * earliest `since` of the lanes reading (once for all of them) and marks those points live;
 * everything never marked is dead. A write just moves `since`. Registers are counted both per
 * (instruction, register) pair, dead when dead at every execution by every lane at every
 * width, and per dynamic occurrence (lane, executed instruction, register). Only registers
 * the kernel names are counted: the others are trivially dead everywhere. Shuffles and
 * broadcasts read other lanes' registers, inactive lanes' too (docs/language.md "Wave
 * operations"): they count as reads in every lane of the wave, which can only make the
 * dynamic answer "live" more often. A point liveness calls dead where the value is read later
 * would be a soundness bug: counted apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "waveopt/edit.h"
#include "waveopt/gen.h"
#include "waveopt/instr.h"
#include "waveopt/interp.h"
#include "waveopt/liveness.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

enum { DEFAULT_SEEDS = 300, KERNEL_SIZE = 150 };
static const uint32_t widths[] = {8, 16, 32, 64};

typedef struct tally {
  uint64_t branches_uniform, branches_proven, branches_unsound;
  uint64_t pairs_dead, pairs_proven, pairs_unsound;
  uint64_t occ_total, occ_live, occ_claimed, occ_unsound;
} tally;

/* One kernel, indexed like the interpreter's flattened program, summed over all widths. */
typedef struct kernel_facts {
  size_t size;                /* program entries */
  unsigned num_regs;          /* tracked: GPRs below .registers, then p0..p3 */
  const wave_instr **instrs;  /* per entry, as the machine's program has it */
  const wave_node **ifs;      /* the if node of an IF entry */
  bool *branch_ran, *branch_split;
  bool *named;                /* [reg]: some instruction or if of the kernel names it */
  bool *point_ran;            /* an instruction some lane went on from */
  bool *claimed_dead;         /* [index * num_regs + reg]: liveness calls it dead after */
  bool *live;                 /* [index * num_regs + reg]: read later by some lane */
  unsigned *claimed_named;    /* per index: named registers claimed dead */
  unsigned num_named;
} kernel_facts;

/* A wave's history in the workgroup running now. */
typedef struct wave_track {
  uint32_t *point;            /* per step: program index of the instruction */
  uint64_t *active;           /* per step: the lanes that went on from it */
  size_t len, cap;
  uint32_t *since;            /* [lane * num_regs + reg]: step of the last access */
} wave_track;

typedef struct watch {
  kernel_facts *k;
  tally *t;
  wave_track *waves;
  uint32_t num_waves, width, workgroup[3];
  bool failed;
} watch;

/* Tracked index <-> register (WAVE_REG_GPR / WAVE_REG_PRED). */
static unsigned reg_index(const kernel_facts *k, unsigned reg) {
  return reg > WAVE_MAX_GPR ? k->num_regs - WAVE_NUM_PREDS + (reg - WAVE_REG_PRED(0)) : reg;
}

static unsigned tracked_reg(const kernel_facts *k, unsigned r) {
  unsigned gprs = k->num_regs - WAVE_NUM_PREDS;
  return r < gprs ? WAVE_REG_GPR(r) : WAVE_REG_PRED(r - gprs);
}

static unsigned popcount(uint64_t m) { return (unsigned)__builtin_popcountll(m); }

/* Lanes `lanes` read tracked register r at step len: the points since each one's last access
 * held a value that is read, so it was live there. */
static void read_reg(watch *w, wave_track *tr, uint64_t lanes, unsigned r) {
  kernel_facts *k = w->k;
  uint32_t order[64], since[64];
  unsigned n = 0;
  for (uint64_t m = lanes; m; m &= m - 1) {
    unsigned lane = (unsigned)__builtin_ctzll(m);
    uint32_t s = tr->since[lane * k->num_regs + r];
    tr->since[lane * k->num_regs + r] = (uint32_t)tr->len;
    unsigned i = n++;
    for (; i > 0 && since[i - 1] > s; i--) {
      since[i] = since[i - 1];
      order[i] = order[i - 1];
    }
    since[i] = s;
    order[i] = lane;
  }
  if (n == 0)
    return;
  /* Walking back, a lane stops covering the trace once the walk passes its `since`. */
  uint64_t covering = lanes;
  unsigned left = n;
  for (size_t t = tr->len; t-- > since[0];) {
    while (left > 0 && since[left - 1] > t)
      covering &= ~((uint64_t)1 << order[--left]);
    uint64_t m = covering & tr->active[t];
    if (!m)
      continue;
    size_t at = (size_t)tr->point[t] * k->num_regs + r;
    k->live[at] = true;
    w->t->occ_live += popcount(m);
    if (k->claimed_dead[at])
      w->t->occ_unsound += popcount(m);
  }
}

static void read_set(watch *w, wave_track *tr, uint64_t lanes, wave_regset s) {
  for (unsigned r = 0; r < w->k->num_regs; r++) {
    if (wave_regset_test(s, tracked_reg(w->k, r)))
      read_reg(w, tr, lanes, r);
  }
}

static void note_branch(watch *w, const wave_observe *o, unsigned pred) {
  w->k->branch_ran[o->index] = true;
  uint64_t set = 0;
  for (uint64_t m = o->mask; m; m &= m - 1) {
    unsigned lane = (unsigned)__builtin_ctzll(m);
    set |= (uint64_t)wave_observe_read_pred(o, lane, pred) << lane;
  }
  if (set && set != o->mask)
    w->k->branch_split[o->index] = true;
}

static bool is_cross_lane(wave_opcode op) {
  return op == WAVE_OP_WAVE_SHUFFLE || op == WAVE_OP_WAVE_SHUFFLE_UP ||
         op == WAVE_OP_WAVE_SHUFFLE_DOWN || op == WAVE_OP_WAVE_SHUFFLE_XOR ||
         op == WAVE_OP_WAVE_BROADCAST;
}

static bool grow_trace(wave_track *tr) {
  if (tr->len < tr->cap)
    return true;
  size_t cap = tr->cap ? tr->cap * 2 : 1024;
  uint32_t *point = realloc(tr->point, cap * sizeof(*point));
  if (point)
    tr->point = point;
  uint64_t *active = realloc(tr->active, cap * sizeof(*active));
  if (active)
    tr->active = active;
  if (!point || !active)
    return false;
  tr->cap = cap;
  return true;
}

static void observe(void *ctx, const wave_observe *o) {
  watch *w = ctx;
  kernel_facts *k = w->k;
  if (w->failed)
    return;
  /* Workgroups run one after another: a new one starts every wave afresh. */
  if (memcmp(o->workgroup, w->workgroup, sizeof(w->workgroup)) != 0) {
    memcpy(w->workgroup, o->workgroup, sizeof(w->workgroup));
    for (uint32_t i = 0; i < w->num_waves; i++) {
      w->waves[i].len = 0;
      memset(w->waves[i].since, 0, sizeof(uint32_t) * 64 * k->num_regs);
    }
  }
  wave_track *tr = &w->waves[o->wave];
  if (!o->instr) {
    if (k->ifs[o->index]) {
      unsigned pred = (unsigned)wave_if_cond(k->ifs[o->index]).value;
      note_branch(w, o, pred);
      read_reg(w, tr, o->mask, reg_index(k, WAVE_REG_PRED(pred)));
    }
    return;
  }
  const wave_instr *in = o->instr;
  if (wave_instr_op(in) == WAVE_OP_BREAK || wave_instr_op(in) == WAVE_OP_CONTINUE)
    note_branch(w, o, (unsigned)wave_instr_operand(in, 0).value);
  /* Lanes the guard turns off read the guard and nothing else. */
  wave_regset uses, defs;
  wave_instr_operand_reads(in, &uses);
  wave_instr_defs(in, &defs);
  if (wave_instr_guard(in) != WAVE_NO_GUARD)
    read_reg(w, tr, o->mask | o->active, reg_index(k, WAVE_REG_PRED(wave_instr_guard(in))));
  if (is_cross_lane(wave_instr_op(in))) {
    wave_regset shared = wave_regset_empty();
    wave_regset_set(&shared, WAVE_REG_GPR(wave_instr_src(in, 0).value));
    uint64_t all = w->width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w->width) - 1;
    read_set(w, tr, all, shared);
    uses = wave_regset_subtract(uses, shared);
  }
  read_set(w, tr, o->mask, uses);
  for (unsigned r = 0; r < k->num_regs; r++) {
    if (!wave_regset_test(defs, tracked_reg(k, r)))
      continue;
    for (uint64_t m = o->mask; m; m &= m - 1)
      tr->since[(unsigned)__builtin_ctzll(m) * k->num_regs + r] = (uint32_t)tr->len;
  }
  if (!o->active)
    return;
  if (!grow_trace(tr)) {
    w->failed = true;
    return;
  }
  tr->point[tr->len] = (uint32_t)o->index;
  tr->active[tr->len++] = o->active;
  k->point_ran[o->index] = true;
  w->t->occ_total += (uint64_t)popcount(o->active) * k->num_named;
  w->t->occ_claimed += (uint64_t)popcount(o->active) * k->claimed_named[o->index];
}

static void facts_free(kernel_facts *k) {
  free(k->instrs);
  free(k->ifs);
  free(k->branch_ran);
  free(k->branch_split);
  free(k->named);
  free(k->point_ran);
  free(k->claimed_dead);
  free(k->live);
  free(k->claimed_named);
}

static void name_regs(kernel_facts *k, wave_regset s) {
  for (unsigned r = 0; r < k->num_regs; r++) {
    if (wave_regset_test(s, tracked_reg(k, r)))
      k->named[r] = true;
  }
}

/* Ties the machine's program to the kernel: the same walk the interpreter flattens with, an
 * else entry only where the else-list has code (waveopt/interp.h). */
static bool facts_init(kernel_facts *k, const wave_kernel *kernel, const wave_machine *m,
                       const wave_liveness *lv) {
  memset(k, 0, sizeof(*k));
  k->size = wave_machine_program_size(m);
  k->num_regs = wave_kernel_registers(kernel) + WAVE_NUM_PREDS;
  size_t cells = k->size * k->num_regs;
  k->instrs = calloc(k->size, sizeof(*k->instrs));
  k->ifs = calloc(k->size, sizeof(*k->ifs));
  k->branch_ran = calloc(k->size, 1);
  k->branch_split = calloc(k->size, 1);
  k->named = calloc(k->num_regs, 1);
  k->point_ran = calloc(k->size, 1);
  k->claimed_dead = calloc(cells, 1);
  k->live = calloc(cells, 1);
  k->claimed_named = calloc(k->size, sizeof(unsigned));
  if (!k->instrs || !k->ifs || !k->branch_ran || !k->branch_split || !k->named || !k->point_ran ||
      !k->claimed_dead || !k->live || !k->claimed_named)
    return false;
  size_t index = 0;
  wave_foreach_region(region, kernel) {
    wave_const_walker walk;
    wave_const_walk_init(&walk, wave_region_body(region));
    while (wave_const_walk_next(&walk)) {
      wave_opcode op = WAVE_OP_NOP;
      switch (walk.event) {
      case WAVE_WALK_BLOCK:
        wave_foreach_instr(instr, walk.node) {
          if (index >= k->size || wave_machine_program_entry(m, index)->instr != instr)
            return false;
          wave_regset uses, defs;
          wave_instr_uses(instr, &uses);
          wave_instr_defs(instr, &defs);
          name_regs(k, wave_regset_union(uses, defs));
          k->instrs[index++] = instr;
        }
        continue;
      case WAVE_WALK_IF: {
        op = WAVE_OP_IF;
        wave_regset s = wave_regset_empty();
        wave_regset_set(&s, WAVE_REG_PRED(wave_if_cond(walk.node).value));
        name_regs(k, s);
        if (index < k->size)
          k->ifs[index] = walk.node;
        break;
      }
      case WAVE_WALK_ELSE:
        if (wave_node_list_is_empty(wave_if_else(walk.node)))
          continue;
        op = WAVE_OP_ELSE;
        break;
      case WAVE_WALK_ENDIF: op = WAVE_OP_ENDIF; break;
      case WAVE_WALK_LOOP: op = WAVE_OP_LOOP; break;
      case WAVE_WALK_ENDLOOP: op = WAVE_OP_ENDLOOP; break;
      }
      if (index >= k->size || wave_machine_program_entry(m, index)->op != op)
        return false;
      index++;
    }
  }
  for (unsigned r = 0; r < k->num_regs; r++)
    k->num_named += k->named[r];
  for (size_t i = 0; i < k->size; i++) {
    if (!k->instrs[i])
      continue;
    wave_regset out = wave_liveness_out(lv, k->instrs[i]);
    for (unsigned r = 0; r < k->num_regs; r++) {
      bool dead = !wave_regset_test(out, tracked_reg(k, r));
      k->claimed_dead[i * k->num_regs + r] = dead;
      k->claimed_named[i] += dead && k->named[r];
    }
  }
  return true;
}

static void launch_config(const wave_gen_launch *g, uint32_t width, wave_reg_value *presets,
                          wave_launch_config *config) {
  wave_launch_config_init(config);
  memcpy(config->grid, g->grid, sizeof(config->grid));
  memcpy(config->workgroup, g->workgroup, sizeof(config->workgroup));
  config->device_memory_size = g->device_memory_size;
  config->wave_width = width;
  for (unsigned i = 0; i < g->num_args; i++)
    presets[i] = (wave_reg_value){g->args[i].reg, g->args[i].base};
  config->presets = presets;
  config->num_presets = g->num_args;
}

/* Loaded values differ between lanes, as real inputs do: zeroed memory would make every
 * load-dependent branch look uniform at run time, which no analysis can know. */
static void fill_memory(wave_machine *m) {
  size_t size;
  uint8_t *mem = wave_machine_device_memory(m, &size);
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    mem[i] = (uint8_t)x;
  }
}

/* Runs the kernel once at `width` under the watch; false when it could not. */
static bool watch_run(kernel_facts *k, tally *t, const wave_kernel *kernel,
                      const wave_gen_launch *g, uint32_t width, const wave_liveness *lv,
                      bool first) {
  watch w = {.k = k, .t = t, .width = width};
  wave_reg_value presets[WAVE_GEN_MAX_ARGS];
  wave_launch_config config;
  launch_config(g, width, presets, &config);
  config.observe = observe;
  config.observe_ctx = &w;
  wave_machine *m = wave_machine_create(kernel, &config, NULL);
  bool ok = m && wave_machine_status(m) == WAVE_RUN_NOT_RUN &&
            (!first || facts_init(k, kernel, m, lv));
  if (ok)
    fill_memory(m);
  if (ok) {
    w.num_waves = wave_machine_num_waves(m);
    memset(w.workgroup, 0xff, sizeof(w.workgroup));
    w.waves = calloc(w.num_waves, sizeof(*w.waves));
    ok = w.waves != NULL;
    for (uint32_t i = 0; ok && i < w.num_waves; i++)
      ok = (w.waves[i].since = calloc(64 * (size_t)k->num_regs, sizeof(uint32_t))) != NULL;
  }
  ok = ok && wave_machine_run(m, NULL) == WAVE_RUN_OK && !w.failed;
  for (uint32_t i = 0; w.waves && i < w.num_waves; i++) {
    free(w.waves[i].point);
    free(w.waves[i].active);
    free(w.waves[i].since);
  }
  free(w.waves);
  wave_machine_destroy(m);
  return ok;
}

/* Sets what the kernel did at every width against what the analyses say. */
static void judge(const kernel_facts *k, const wave_uniformity *u, tally *t) {
  for (size_t i = 0; i < k->size; i++) {
    if (k->branch_ran[i]) {
      bool divergent = k->ifs[i] ? wave_uniformity_node_divergent(u, k->ifs[i])
                                 : wave_uniformity_branch_divergent(u, k->instrs[i]);
      t->branches_uniform += !k->branch_split[i];
      t->branches_proven += !k->branch_split[i] && !divergent;
      t->branches_unsound += k->branch_split[i] && !divergent;
    }
    if (!k->point_ran[i])
      continue;
    for (unsigned r = 0; r < k->num_regs; r++) {
      size_t at = i * k->num_regs + r;
      if (!k->named[r])
        continue;
      t->pairs_dead += !k->live[at];
      t->pairs_proven += !k->live[at] && k->claimed_dead[at];
      t->pairs_unsound += k->live[at] && k->claimed_dead[at];
    }
  }
}

/* One generated kernel at every width; false when it could not be generated or run. */
static bool measure(uint64_t seed, tally *t) {
  wave_gen_options o;
  wave_gen_options_init(&o);
  o.seed = seed;
  o.size = KERNEL_SIZE;
  wave_gen_launch g;
  wave_diags diags;
  wave_diags_init(&diags);
  wave_module *mod = wave_generate(&o, &g, &diags);
  wave_diags_free(&diags);
  wave_kernel *kernel = mod ? wave_module_first_kernel(mod) : NULL;
  wave_liveness *lv = kernel ? wave_liveness_compute(kernel) : NULL;
  wave_uniformity *u = kernel ? wave_uniformity_compute(kernel, NULL) : NULL;
  kernel_facts k;
  memset(&k, 0, sizeof(k));
  bool ok = lv && u;
  for (size_t i = 0; ok && i < sizeof(widths) / sizeof(widths[0]); i++)
    ok = watch_run(&k, t, kernel, &g, widths[i], lv, i == 0);
  if (ok)
    judge(&k, u, t);
  facts_free(&k);
  wave_uniformity_destroy(u);
  wave_liveness_destroy(lv);
  wave_module_destroy(mod);
  return ok;
}

static double percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int main(int argc, char **argv) {
  unsigned long seeds = bench_seed_count(argc, argv, DEFAULT_SEEDS);
  if (seeds == 0)
    return 2;
  tally t = {0};
  double t0 = bench_now();
  for (uint64_t seed = 1; seed <= seeds; seed++)
    if (!measure(seed, &t)) {
      fprintf(stderr, "bench_precision: generated kernel %llu failed to run\n",
              (unsigned long long)seed);
      return 1;
    }
  printf("libwaveopt %s: analysis precision on %lu generated kernels (seeds 1..%lu, size %d),"
         " each run at wave widths 8, 16, 32, 64\n",
         wave_version(), seeds, seeds, KERNEL_SIZE);
  printf("uniform branches proven uniform: %llu/%llu (%.1f%%)"
         "  [ifs, breaks, continues never split at run time]\n",
         (unsigned long long)t.branches_proven, (unsigned long long)t.branches_uniform,
         percent(t.branches_proven, t.branches_uniform));
  printf("dead registers proven dead, per (instruction, register): %llu/%llu (%.1f%%)"
         "  [dead after every execution of the instruction]\n",
         (unsigned long long)t.pairs_proven, (unsigned long long)t.pairs_dead,
         percent(t.pairs_proven, t.pairs_dead));
  uint64_t occ_dead = t.occ_total - t.occ_live, occ_proven = t.occ_claimed - t.occ_unsound;
  printf("dead registers proven dead, per dynamic occurrence: %llu/%llu (%.1f%%)"
         "  [lane x executed instruction x register]\n",
         (unsigned long long)occ_proven, (unsigned long long)occ_dead,
         percent(occ_proven, occ_dead));
  printf("unsound claims: %llu split branches called uniform, %llu (instruction, register)"
         " and %llu occurrences called dead but read later\n",
         (unsigned long long)t.branches_unsound, (unsigned long long)t.pairs_unsound,
         (unsigned long long)t.occ_unsound);
  printf("time: %.2f s\n", bench_now() - t0);
  return t.branches_unsound || t.pairs_unsound || t.occ_unsound ? 1 : 0;
}
