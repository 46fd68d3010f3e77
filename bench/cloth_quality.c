/* Quality of a baked drape, the same measure for every solver: how deep the cloth is inside
 * the sphere, how many triangle pairs intersect (cloth with itself and with the sphere, exact
 * test), and the largest edge strain against the rest mesh.
 *
 *     build/bench/bench_cloth_quality MESH.bin        (written by cloth_vs_blender.py)
 *
 * MESH.bin, little-endian: "SBQ1", int32 cloth vertices V, cloth triangles T, sphere
 * vertices S, sphere triangles U; V x 3 doubles rest, V x 3 doubles final, T x 3 int32,
 * S x 3 doubles, U x 3 int32. Depth inside the sphere is measured against its mesh (it is
 * convex: the least distance below its face planes), so a faceted collider is judged as
 * the solver saw it. Output: one JSON object. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_scene.h"
#include "collision_response.h"
#include "intersections.h"
#include "simbake.h"
#include "world.h"

static void *read_block(FILE *f, size_t count, size_t size)
{
    void *p = malloc(count * size + 1);
    if (!p || fread(p, size, count, f) != count) {
        fprintf(stderr, "truncated mesh file\n");
        exit(1);
    }
    return p;
}

/* Deepest point of `points` inside the convex mesh, 0 when all are outside. */
static double deepest_inside(const double *points, int32_t count, const double *hull, int32_t hull_vertices,
                             const int32_t *faces, int32_t face_count)
{
    double centre[3] = {0, 0, 0};
    for (int32_t i = 0; i < hull_vertices; i++)
        for (int k = 0; k < 3; k++) centre[k] += hull[3 * i + k] / hull_vertices;
    double (*planes)[4] = malloc(sizeof(double[4]) * (size_t)face_count);
    int32_t plane_count = 0;
    for (int32_t f = 0; f < face_count; f++) {
        const double *a = &hull[3 * faces[3 * f]], *b = &hull[3 * faces[3 * f + 1]], *c = &hull[3 * faces[3 * f + 2]];
        double u[3], v[3], n[3];
        for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k];
        n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 1e-15)) continue; /* the poles' degenerate slivers */
        double offset = (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / len;
        double side = (n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2]) / len - offset;
        double sign = side < 0 ? 1.0 : -1.0; /* outward */
        for (int k = 0; k < 3; k++) planes[plane_count][k] = sign * n[k] / len;
        planes[plane_count++][3] = sign * offset;
    }
    double deepest = 0.0;
    for (int32_t i = 0; i < count; i++) {
        const double *p = &points[3 * i];
        double depth = INFINITY;
        for (int32_t f = 0; f < plane_count && depth > 0; f++)
            depth = fmin(depth, planes[f][3] - (planes[f][0] * p[0] + planes[f][1] * p[1] + planes[f][2] * p[2]));
        if (depth > deepest) deepest = depth;
    }
    free(planes);
    return deepest;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    char magic[4];
    int32_t counts[4];
    if (!f || fread(magic, 1, 4, f) != 4 || memcmp(magic, "SBQ1", 4) != 0 || fread(counts, 4, 4, f) != 4) {
        fprintf(stderr, "usage: bench_cloth_quality MESH.bin (a file written by cloth_vs_blender.py)\n");
        return 2;
    }
    int32_t nv = counts[0], nt = counts[1], sv = counts[2], st = counts[3];
    double *rest = read_block(f, 3 * (size_t)nv, sizeof(double));
    double *final = read_block(f, 3 * (size_t)nv, sizeof(double));
    int32_t *tris = read_block(f, 3 * (size_t)nt, sizeof(int32_t));
    double *sphere = read_block(f, 3 * (size_t)sv, sizeof(double));
    int32_t *sphere_tris = read_block(f, 3 * (size_t)st, sizeof(int32_t));
    fclose(f);

    double strain = max_edge_strain(rest, final, tris, nt);

    /* the final cloth and the sphere in a world of their own, for the exact intersection count */
    sb_world_def wd = sb_default_world_def();
    sb_world *w = NULL;
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = nv, cd.positions = final, cd.triangle_count = nt, cd.triangles = tris;
    sb_collider_def kd = sb_default_collider_def();
    kd.vertex_count = sv, kd.positions = sphere, kd.triangle_count = st, kd.triangles = sphere_tris;
    sb_cloth_id cloth_id;
    sb_collider_id collider_id;
    if (sb_world_create(&wd, &w) || sb_world_add_cloth(w, &cd, &cloth_id) || sb_world_add_collider(w, &kd, &collider_id)) {
        fprintf(stderr, "%s\n", sb_last_error());
        return 1;
    }
    collider_prepare_step(w->colliders[0], 0.0, 1.0 / 24.0);
    int64_t self = count_intersections(w->cloths, 1, NULL, 0, true);
    int64_t all = count_intersections(w->cloths, 1, w->colliders, 1, true);
    printf("{\"penetration_m\": %.6g, \"intersecting_pairs\": %lld, \"self_intersecting_pairs\": %lld, "
           "\"max_strain\": %.6g}\n",
           deepest_inside(final, nv, sphere, sv, sphere_tris, st), (long long)all, (long long)self, strain);
    sb_world_destroy(w);
    free(rest), free(final), free(tris), free(sphere), free(sphere_tris);
    return 0;
}
