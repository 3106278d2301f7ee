/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "waveopt/ir.h"

const wave_opcode_info wave_opcode_table[WAVE_OP_COUNT] = {
#define WAVE_OP(id, mnemonic, shape, category, flags, enc_op, enc_mod, size) \
  {mnemonic, shape, WAVE_CAT_##category, (flags), enc_op, enc_mod, size,            \
   (sizeof(shape) - 1) / 2},
#include "waveopt/opcodes.def"
#undef WAVE_OP
};

/* The pseudo entries must follow every real one: the printer and the lookup rely on it. */
_Static_assert(WAVE_OP_PAND == WAVE_NUM_REAL_OPCODES, "real mnemonics come first in opcodes.def");

const char *const wave_sreg_names[WAVE_NUM_SREGS] = {
    "sr_thread_id_x",      "sr_thread_id_y",      "sr_thread_id_z",     "sr_wave_id",
    "sr_lane_id",          "sr_workgroup_id_x",   "sr_workgroup_id_y",  "sr_workgroup_id_z",
    "sr_workgroup_size_x", "sr_workgroup_size_y", "sr_workgroup_size_z", "sr_grid_size_x",
    "sr_grid_size_y",      "sr_grid_size_z",      "sr_wave_width",      "sr_num_waves",
    "sr_mma_supported",    "sr_mma_m",            "sr_mma_n",           "sr_mma_k",
};

const char *const wave_scope_names[4] = {"wave", "workgroup", "device", "system"};

const char *wave_slot_kind_noun(char kind) {
  switch (kind) {
  case 'q': case 'p': return "predicate register";
  case 's': return "special register";
  case 'i': return "immediate";
  case 'l': return "label";
  case 'c': return "scope specifier";
  case 'f': return "register naming an MMA fragment";
  default: return "register";
  }
}

static bool name_is(wave_opcode op, const char *name, size_t len) {
  const char *m = wave_opcode_table[op].mnemonic;
  return strncmp(m, name, len) == 0 && m[len] == '\0';
}

bool wave_opcode_lookup(const char *name, size_t len, wave_opcode *out) {
  for (int op = 0; op < WAVE_OP_COUNT; op++) {
    if (name_is((wave_opcode)op, name, len)) {
      *out = (wave_opcode)op;
      return true;
    }
  }
  return false;
}

enum { INDEX_SIZE = 512 };
_Static_assert(WAVE_OP_COUNT * 2 < INDEX_SIZE, "opcode index must stay sparse");

static unsigned index_slot(const char *name, size_t len) {
  return wave_hash_name(name, len) & (INDEX_SIZE - 1);
}

void wave_opcode_index_init(wave_opcode_index *index) {
  for (unsigned i = 0; i < INDEX_SIZE; i++)
    index->slots[i] = -1;
  /* Real mnemonics go in first, so a pseudo form sharing a name ("and") is never found. */
  for (int op = 0; op < WAVE_OP_COUNT; op++) {
    const char *m = wave_opcode_table[op].mnemonic;
    size_t len = strlen(m);
    unsigned h = index_slot(m, len);
    bool present = false;
    while (index->slots[h] >= 0 && !present) {
      present = name_is((wave_opcode)index->slots[h], m, len);
      h = (h + 1) & (INDEX_SIZE - 1);
    }
    if (!present)
      index->slots[h] = (int16_t)op;
  }
}

bool wave_opcode_index_find(const wave_opcode_index *index, const char *name, size_t len,
                            wave_opcode *out) {
  for (unsigned h = index_slot(name, len); index->slots[h] >= 0; h = (h + 1) & (INDEX_SIZE - 1)) {
    if (name_is((wave_opcode)index->slots[h], name, len)) {
      *out = (wave_opcode)index->slots[h];
      return true;
    }
  }
  return false;
}

bool wave_opcode_accepts_docs_immediate(wave_opcode op, unsigned slot) {
  if (wave_opcode_slot_kind(op, slot) != 'u' || wave_opcode_slot_width(op, slot) != 1)
    return false;
  switch (wave_opcode_table[op].category) {
  case WAVE_CAT_INT: case WAVE_CAT_BIT: case WAVE_CAT_F32: case WAVE_CAT_F16:
  case WAVE_CAT_BF16: case WAVE_CAT_CMP: case WAVE_CAT_SELECT: case WAVE_CAT_CVT:
  case WAVE_CAT_MOVE:
    return true;
  default:
    return false;
  }
}
