/* SPDX-License-Identifier: Apache-2.0 */
/*
 * WAVE_API marks what the shared library exports. The library is compiled with
 * -fvisibility=hidden, so everything else (the lexer, the arena, the interpreter's internals)
 * stays private to it and calls between its own files bind directly.
 */
#ifndef WAVEOPT_API_H
#define WAVEOPT_API_H

#if defined(__GNUC__)
#define WAVE_API __attribute__((visibility("default")))
#else
#define WAVE_API
#endif

#endif
