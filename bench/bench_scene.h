/* Scenes shared by the benchmarks: a UV sphere, a square grid, power-law fits, and the
 * largest edge strain of a cloth against its rest mesh. */
#ifndef SB_BENCH_SCENE_H
#define SB_BENCH_SCENE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static inline void sphere(double radius, int rings, int segments, double **pos, int32_t **tris, int32_t *nv, int32_t *nt)
{
    *nv = 2 + (rings - 1) * segments;
    *nt = 2 * segments * (rings - 1);
    *pos = malloc(sizeof(double) * 3 * (size_t)*nv);
    *tris = malloc(sizeof(int32_t) * 3 * (size_t)*nt);
    double *p = *pos;
    p[0] = 0, p[1] = 0, p[2] = radius;
    for (int r = 1; r < rings; r++)
        for (int s = 0; s < segments; s++) {
            double th = PI * r / rings, ph = 2 * PI * s / segments;
            double *q = &p[3 * (1 + (r - 1) * segments + s)];
            q[0] = radius * sin(th) * cos(ph), q[1] = radius * sin(th) * sin(ph), q[2] = radius * cos(th);
        }
    int32_t south = *nv - 1, t = 0;
    p[3 * south] = 0, p[3 * south + 1] = 0, p[3 * south + 2] = -radius;
    for (int s = 0; s < segments; s++) {
        int32_t a = 1 + s, b = 1 + (s + 1) % segments;
        int32_t c = 1 + (rings - 2) * segments + s, d = 1 + (rings - 2) * segments + (s + 1) % segments;
        int32_t v[6] = {0, a, b, south, d, c};
        memcpy(&(*tris)[3 * t], v, sizeof v);
        t += 2;
    }
    for (int r = 1; r + 1 < rings; r++)
        for (int s = 0; s < segments; s++) {
            int32_t a = 1 + (r - 1) * segments + s, b = 1 + (r - 1) * segments + (s + 1) % segments;
            int32_t v[6] = {a, a + segments, b + segments, a, b + segments, b};
            memcpy(&(*tris)[3 * t], v, sizeof v);
            t += 2;
        }
}

/* least-squares slope of y against x */
static inline double slope(const double *x, const double *y, int count)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < count; i++) mx += x[i] / count, my += y[i] / count;
    for (int i = 0; i < count; i++) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    return sxy / sxx;
}

/* An n x n grid of side `size` centred at (0, 0, height), two triangles per square. */
static inline void grid(int n, double size, double height, double **pos, int32_t **tris, int32_t *nv, int32_t *nt)
{
    *nv = n * n, *nt = 2 * (n - 1) * (n - 1);
    *pos = malloc(sizeof(double) * 3 * (size_t)*nv);
    *tris = malloc(sizeof(int32_t) * 3 * (size_t)*nt);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double *p = &(*pos)[3 * ((size_t)j * n + i)];
            p[0] = size * ((double)i / (n - 1) - 0.5), p[1] = size * ((double)j / (n - 1) - 0.5), p[2] = height;
        }
    size_t k = 0;
    for (int j = 0; j + 1 < n; j++)
        for (int i = 0; i + 1 < n; i++) {
            int32_t a = j * n + i, v[6] = {a, a + 1, a + n + 1, a, a + n + 1, a + n};
            memcpy(&(*tris)[k], v, sizeof v);
            k += 6;
        }
}

static inline double edge_length(const double *x, int32_t a, int32_t b)
{
    double d0 = x[3 * a] - x[3 * b], d1 = x[3 * a + 1] - x[3 * b + 1], d2 = x[3 * a + 2] - x[3 * b + 2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* Largest |length / rest length - 1| over the triangles' edges (edges of zero rest length
 * left out). */
static inline double max_edge_strain(const double *rest, const double *x, const int32_t *tris, int32_t nt)
{
    double worst = 0.0;
    for (int32_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            double l0 = edge_length(rest, a, b);
            if (l0 > 0) worst = fmax(worst, fabs(edge_length(x, a, b) / l0 - 1.0));
        }
    return worst;
}

#endif
