#include "field_noise.h"

#include <math.h>

/* splitmix64's finaliser: every input bit changes about half the output bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The lattice value at (i, j, k): uniform in [-1, 1]. */
static double lattice(int64_t i, int64_t j, int64_t k, uint32_t seed)
{
    uint64_t h = mix64((uint64_t)seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
    h = mix64(h ^ (uint64_t)j * 0xc2b2ae3d27d4eb4fULL);
    h = mix64(h ^ (uint64_t)k * 0x165667b19e3779f9ULL);
    return (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0; /* 53 bits onto [-1, 1) */
}

/* 6s⁵ - 15s⁴ + 10s³: 0 and 1 at the ends with zero first and second derivatives there. */
static double fade(double s) { return s * s * s * (s * (s * 6.0 - 15.0) + 10.0); }

static double lerp(double a, double b, double s) { return a + (b - a) * s; }

double noise_value3(double x, double y, double z, uint32_t seed)
{
    /* The lattice indices are int64: converting a NaN, an infinity or a value beyond the
     * int64 range is undefined behaviour. A cloth's trial positions can be NaN in a step that
     * blew up (and is then rejected), and a turbulence field divides by noise_size (1e-6 m at
     * least), so such points do reach here: they get no noise. 2^62 keeps i + 1 in range. */
    const double limit = 4611686018427387904.0; /* 2^62 */
    if (!(fabs(x) < limit && fabs(y) < limit && fabs(z) < limit)) return 0.0;
    double fx = floor(x), fy = floor(y), fz = floor(z);
    int64_t i = (int64_t)fx, j = (int64_t)fy, k = (int64_t)fz;
    double sx = fade(x - fx), sy = fade(y - fy), sz = fade(z - fz);
    double c[2][2];
    for (int b = 0; b < 2; b++)
        for (int a = 0; a < 2; a++)
            c[b][a] = lerp(lattice(i, j + a, k + b, seed), lattice(i + 1, j + a, k + b, seed), sx);
    return lerp(lerp(c[0][0], c[0][1], sy), lerp(c[1][0], c[1][1], sy), sz);
}

static double two_octaves(vec3 p, uint32_t seed)
{
    double coarse = noise_value3(p.x, p.y, p.z, seed);
    double fine = noise_value3(2.0 * p.x, 2.0 * p.y, 2.0 * p.z, seed ^ 0x5bd1e995u);
    return (coarse + 0.5 * fine) / 1.5; /* stays in [-1, 1] */
}

vec3 noise_turbulence3(vec3 p, uint32_t seed)
{
    return v3(two_octaves(p, seed), two_octaves(p, seed + 0x68e31da4u), two_octaves(p, seed + 0xb5297a4du));
}

double noise_in_time(double t, double period, uint32_t seed)
{
    return noise_value3(t / period, 0.5, 0.5, seed ^ 0x1b873593u);
}
