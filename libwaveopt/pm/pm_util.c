/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass manager's "unknown name" message for a misspelt pass, analysis or option, with the
 * suggestion of support/text.h when one is close.
 */
#include "pm/pm_internal.h"

char *wave_pm_unknown(const char *what, const wave_suggest *s) {
  const char *close = wave_suggestion(s);
  if (close)
    return wave_format("unknown %s '%.*s'; did you mean '%s'?", what, (int)s->len, s->name,
                          close);
  return wave_format("unknown %s '%.*s'", what, (int)s->len, s->name);
}
