#ifndef WAVEOPT_GEN_H
#define WAVEOPT_GEN_H
#endif
