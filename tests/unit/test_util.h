/* Helpers shared by the Criterion unit tests. */
#ifndef WAVE_TEST_UTIL_H
#define WAVE_TEST_UTIL_H

#include "waveopt/waveopt.h"

#endif
