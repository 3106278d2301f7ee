#ifndef WAVEOPT_INTERP_H
#define WAVEOPT_INTERP_H
#endif
