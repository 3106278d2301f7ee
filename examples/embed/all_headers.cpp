// SPDX-License-Identifier: Apache-2.0
// Every public header of libwaveopt and libwaveopt-dot in one C++ translation unit, compiled
// with -Wall -Wextra -Werror -pedantic by tests/install/run-install.sh against the installed
// copy (pkg-config waveopt-dot): a compiler written in C++ must be able to include them as
// they are. main parses, verifies and draws a kernel, so the link against both installed
// libraries is exercised too: it prints the graph's DOT text and exits 0, or 1 on a failure.
#include <waveopt/alloc.h>
#include <waveopt/api.h>
#include <waveopt/barriers.h>
#include <waveopt/deadlock.h>
#include <waveopt/depth.h>
#include <waveopt/diag.h>
#include <waveopt/dot.h>
#include <waveopt/edit.h>
#include <waveopt/gen.h>
#include <waveopt/instr.h>
#include <waveopt/interp.h>
#include <waveopt/ir.h>
#include <waveopt/liveness.h>
#include <waveopt/pass.h>
#include <waveopt/profile.h>
#include <waveopt/regset.h>
#include <waveopt/target.h>
#include <waveopt/uniformity.h>
#include <waveopt/waveopt.h>

#include <cstdio>
#include <cstring>

int main() {
  wave_diags diags;
  wave_diags_init(&diags);
  const char text[] = ".kernel k\n    halt\n.end\n";
  wave_module *module = wave_parse_string(text, std::strlen(text), "cxx.wave", &diags);
  bool ok = module && wave_verify_module(module, &diags);
  Agraph_t *graph = ok ? wave_dot_build(wave_module_first_kernel(module), NULL, &diags) : NULL;
  ok = graph && wave_dot_write(graph, WAVE_DOT_FORMAT_DOT, NULL, stdout, &diags) == 0;
  if (graph)
    agclose(graph);
  std::printf("C++: libwaveopt %s: %s\n", wave_version(),
              ok ? "parsed, verified, drawn" : "FAILED");
  wave_module_destroy(module);
  wave_diags_free(&diags);
  return ok ? 0 : 1;
}
