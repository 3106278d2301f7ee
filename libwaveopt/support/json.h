/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small JSON reader (RFC 8259) for the files the library reads back, profiles first. The
 * whole text becomes a tree in an arena; containers are opened and closed on an explicit
 * stack, so nesting depth costs heap, never C stack, and is bounded by WAVE_JSON_MAX_DEPTH.
 * Numbers keep their double value and, when written as a non-negative integer that fits, their
 * exact uint64_t value (counts above 2^53 stay exact). Strings are decoded (escapes, surrogate
 * pairs) to UTF-8; a \u0000 is refused, so every string is a C string. Duplicate keys are
 * kept; wave_json_member finds the first.
 */
#ifndef WAVE_JSON_H
#define WAVE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/arena.h"

/* Internal: kept out of the shared library's interface. */

#define WAVE_JSON_MAX_DEPTH 10000

typedef enum wave_json_type {
  WAVE_JSON_NULL,
  WAVE_JSON_FALSE,
  WAVE_JSON_TRUE,
  WAVE_JSON_NUMBER,
  WAVE_JSON_STRING,
  WAVE_JSON_ARRAY,
  WAVE_JSON_OBJECT,
} wave_json_type;

typedef struct wave_json wave_json;
struct wave_json {
  wave_json_type type;
  uint32_t line, col;       /* where the value starts, from 1 */
  const char *key;          /* the member name inside an object, else NULL */
  const char *string;       /* STRING */
  double number;            /* NUMBER (may be infinite for huge exponents) */
  bool is_count;            /* NUMBER written as a non-negative integer below 2^64 */
  uint64_t count;           /* its exact value */
  wave_json *first, *last;  /* ARRAY, OBJECT: the elements or members in order */
  wave_json *next;
  size_t size;              /* ARRAY, OBJECT: how many */
};

typedef struct wave_json_error {
  uint32_t line, col;
  char message[96];
} wave_json_error;

/* The value `text` holds (nothing but white space around it), allocated in `arena`; NULL with
 * *error filled in when the text is not JSON or memory ran out. */
wave_json *wave_json_parse(const char *text, size_t len, wave_arena *arena, wave_json_error *error);

/* The first member named `key` of an object; NULL when there is none or obj is no object. */
const wave_json *wave_json_member(const wave_json *obj, const char *key);

#endif
