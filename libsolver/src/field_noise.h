/* Smooth, deterministic noise for force fields: value noise on an integer lattice whose
 * values come from a hash of the lattice point and a seed, blended with a quintic fade so
 * the noise and its first two derivatives are continuous. Our own, not Blender's: only its
 * character (smooth, in [-1, 1], a few octaves) is meant to match. */
#ifndef SB_FIELD_NOISE_H
#define SB_FIELD_NOISE_H

#include <stdint.h>

#include "math3.h"

/* Value noise at (x, y, z) in [-1, 1], one lattice cell per unit; the same seed and point
 * give the same bits on every machine with IEEE doubles. */
double noise_value3(double x, double y, double z, uint32_t seed);
/* A noise vector in [-1, 1]³ at p (lattice units): each component two octaves of
 * value noise (½ the amplitude at twice the frequency) with a seed of its own. */
vec3 noise_turbulence3(vec3 p, uint32_t seed);
/* A smooth scalar in [-1, 1] over time, one lattice cell per `period` seconds. */
double noise_in_time(double t, double period, uint32_t seed);

#endif
