#include "rigid_mass_properties.h"

#include <lapacke.h>
#include <stdlib.h>

typedef struct directed_edge { int32_t from, to; } directed_edge;

static int compare_edges(const void *pa, const void *pb)
{
    const directed_edge *a = pa, *b = pb;
    if (a->from != b->from) return (a->from > b->from) - (a->from < b->from);
    return (a->to > b->to) - (a->to < b->to);
}

bool mesh_is_closed(const int32_t *triangles, int32_t triangle_count, int32_t vertex_count)
{
    if (triangle_count < 4) return false;
    size_t count = 3 * (size_t)triangle_count;
    directed_edge *edges = malloc(count * sizeof *edges);
    if (!edges) return false;
    for (size_t t = 0; t < (size_t)triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = triangles[3 * t + (size_t)k], b = triangles[3 * t + (size_t)(k + 1) % 3];
            if (a < 0 || a >= vertex_count || a == b) {
                free(edges);
                return false;
            }
            edges[3 * t + (size_t)k] = (directed_edge){a, b};
        }
    qsort(edges, count, sizeof *edges, compare_edges);
    bool closed = true;
    for (size_t i = 0; i < count && closed; i++) {
        /* no directed edge twice, and each has its reverse */
        if (i + 1 < count && edges[i].from == edges[i + 1].from && edges[i].to == edges[i + 1].to) closed = false;
        directed_edge reverse = {edges[i].to, edges[i].from};
        if (!bsearch(&reverse, edges, count, sizeof *edges, compare_edges)) closed = false;
    }
    free(edges);
    return closed;
}

/* Per-coordinate sums over a triangle's corners (Eberly): f1 = Σw, f2 = Σ of degree-2
 * monomials, f3 = degree 3, g_i = f2 + w_i (f1 + w_i). */
static void subexpressions(double w0, double w1, double w2, double *f1, double *f2, double *f3,
                           double *g0, double *g1, double *g2)
{
    double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
    *f1 = t0 + w2;
    *f2 = t2 + w2 * *f1;
    *f3 = w0 * t1 + w1 * t2 + w2 * *f2;
    *g0 = *f2 + w0 * (*f1 + w0);
    *g1 = *f2 + w1 * (*f1 + w1);
    *g2 = *f2 + w2 * (*f1 + w2);
}

bool mesh_mass_properties(const double *vertices, int32_t vertex_count, const int32_t *triangles,
                          int32_t triangle_count, mass_properties *out)
{
    if (vertex_count <= 0 || triangle_count <= 0) return false;
    /* integrate about the first vertex: small coordinates keep round-off small */
    vec3 origin = v3_load(vertices);
    /* ∫1, ∫x, ∫y, ∫z, ∫x², ∫y², ∫z², ∫xy, ∫yz, ∫zx */
    double integral[10] = {0};
    for (int32_t t = 0; t < triangle_count; t++) {
        vec3 p[3];
        for (int k = 0; k < 3; k++) p[k] = v3_sub(v3_load(&vertices[3 * (size_t)triangles[3 * t + k]]), origin);
        vec3 d = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
        double f1x, f2x, f3x, g0x, g1x, g2x, f1y, f2y, f3y, g0y, g1y, g2y, f1z, f2z, f3z, g0z, g1z, g2z;
        subexpressions(p[0].x, p[1].x, p[2].x, &f1x, &f2x, &f3x, &g0x, &g1x, &g2x);
        subexpressions(p[0].y, p[1].y, p[2].y, &f1y, &f2y, &f3y, &g0y, &g1y, &g2y);
        subexpressions(p[0].z, p[1].z, p[2].z, &f1z, &f2z, &f3z, &g0z, &g1z, &g2z);
        integral[0] += d.x * f1x;
        integral[1] += d.x * f2x;
        integral[2] += d.y * f2y;
        integral[3] += d.z * f2z;
        integral[4] += d.x * f3x;
        integral[5] += d.y * f3y;
        integral[6] += d.z * f3z;
        integral[7] += d.x * (p[0].y * g0x + p[1].y * g1x + p[2].y * g2x);
        integral[8] += d.y * (p[0].z * g0y + p[1].z * g1y + p[2].z * g2y);
        integral[9] += d.z * (p[0].x * g0z + p[1].x * g1z + p[2].x * g2z);
    }
    static const double scale[10] = {1.0 / 6, 1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 60,
                                     1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120};
    for (int i = 0; i < 10; i++) integral[i] *= scale[i];
    if (integral[0] < 0.0) /* wound inward: the same solid */
        for (int i = 0; i < 10; i++) integral[i] = -integral[i];
    double volume = integral[0];
    if (!(volume > 0.0) || !isfinite(volume)) return false;
    vec3 c = v3(integral[1] / volume, integral[2] / volume, integral[3] / volume);
    /* second moments about the centre, then the inertia tensor */
    double xx = integral[4] - volume * c.x * c.x, yy = integral[5] - volume * c.y * c.y;
    double zz = integral[6] - volume * c.z * c.z, xy = integral[7] - volume * c.x * c.y;
    double yz = integral[8] - volume * c.y * c.z, zx = integral[9] - volume * c.z * c.x;
    out->volume = volume;
    out->center = v3_add(c, origin);
    out->inertia = (mat3){{{yy + zz, -xy, -zx}, {-xy, zz + xx, -yz}, {-zx, -yz, xx + yy}}};
    return true;
}

bool mass_properties_combine(const mass_properties *parts, int32_t count, mass_properties *out)
{
    double volume = 0.0;
    vec3 moment = v3(0, 0, 0);
    for (int32_t i = 0; i < count; i++) {
        volume += parts[i].volume;
        moment = v3_madd(moment, parts[i].center, parts[i].volume);
    }
    if (!(volume > 0.0) || !isfinite(volume)) return false;
    vec3 c = v3_scale(moment, 1.0 / volume);
    mat3 inertia = {{{0}}};
    for (int32_t i = 0; i < count; i++) {
        vec3 d = v3_sub(parts[i].center, c);
        double dd = v3_dot(d, d), dv[3] = {d.x, d.y, d.z};
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++)
                inertia.m[r][k] += parts[i].inertia.m[r][k] + parts[i].volume * ((r == k ? dd : 0.0) - dv[r] * dv[k]);
    }
    out->volume = volume;
    out->center = c;
    out->inertia = inertia;
    return true;
}

void capsule_mass_properties(vec3 a, vec3 b, double r, mass_properties *out)
{
    const double pi = 3.14159265358979323846;
    vec3 d = v3_sub(b, a);
    double h = v3_len(d);
    vec3 u = h > 0.0 ? v3_scale(d, 1.0 / h) : v3(0, 0, 1);
    double cylinder = pi * r * r * h, spheres = 4.0 / 3.0 * pi * r * r * r;
    double along = cylinder * r * r / 2.0 + spheres * 2.0 * r * r / 5.0;
    double across = cylinder * (r * r / 4.0 + h * h / 12.0) + spheres * (2.0 * r * r / 5.0 + h * h / 4.0 + 3.0 * h * r / 8.0);
    double uv[3] = {u.x, u.y, u.z};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) out->inertia.m[i][k] = (i == k ? across : 0.0) + (along - across) * uv[i] * uv[k];
    out->volume = cylinder + spheres;
    out->center = v3_scale(v3_add(a, b), 0.5);
}

bool principal_axes(mat3 inertia, vec3 *moments, mat3 *axes)
{
    double a[9], w[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) a[3 * i + j] = inertia.m[i][j];
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', 3, a, 3, w) != 0) return false;
    *moments = v3(w[0], w[1], w[2]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) axes->m[i][j] = a[3 * i + j]; /* eigenvectors are columns */
    if (m3_det(*axes) < 0.0)
        for (int i = 0; i < 3; i++) axes->m[i][2] = -axes->m[i][2];
    return true;
}
