/* Quality of a baked cloth, the same measure for every solver: how deep the cloth is inside
 * the colliders, how many triangle pairs intersect (cloth with itself and with the colliders,
 * exact test), and the largest edge strain against the rest mesh.
 *
 *     build/bench/bench_cloth_quality MESH.bin        (written by cloth_vs_blender.py)
 *
 * MESH.bin, little-endian: "SBQ1", int32 cloth vertices V, cloth triangles T, collider
 * vertices S, collider triangles U; V x 3 doubles rest, V x 3 doubles final, T x 3 int32,
 * S x 3 doubles, U x 3 int32 (U may be 0: a flag in the wind). Each connected piece of the
 * collider mesh (the drape's sphere; the tablecloth's table top, legs and falling bodies) is
 * taken as convex, and depth inside it is measured against its mesh (the least distance below
 * its face planes), so a faceted collider is judged as the solver saw it; a flat piece (a
 * floor plane) has no inside and is skipped there. Output: one JSON object (with the piece the
 * deepest point is in, -1 for none, and how many cloth vertices are inside some piece). */
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

/* Deepest point of `points` inside the convex piece made of `faces` (indices into `hull`), 0
 * when all are outside or the piece is flat. */
static double deepest_inside(const double *points, int32_t count, const double *hull, const int32_t *faces,
                             int32_t face_count, int32_t *inside)
{
    double centre[3] = {0, 0, 0}; /* mean of the corners: inside a closed convex piece */
    for (int32_t f = 0; f < face_count; f++)
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) centre[k] += hull[3 * faces[3 * f + c] + k] / (3.0 * face_count);
    double (*planes)[4] = malloc(sizeof(double[4]) * (size_t)face_count + 1);
    int32_t plane_count = 0;
    double thickest = 0.0; /* the centre's largest distance from a face plane: 0 for a flat piece */
    for (int32_t f = 0; f < face_count; f++) {
        const double *a = &hull[3 * faces[3 * f]], *b = &hull[3 * faces[3 * f + 1]], *c = &hull[3 * faces[3 * f + 2]];
        double u[3], v[3], n[3];
        for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k];
        n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 1e-15)) continue; /* the poles' degenerate slivers */
        double offset = (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / len;
        double side = (n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2]) / len - offset;
        thickest = fmax(thickest, fabs(side));
        double sign = side < 0 ? 1.0 : -1.0; /* outward */
        for (int k = 0; k < 3; k++) planes[plane_count][k] = sign * n[k] / len;
        planes[plane_count++][3] = sign * offset;
    }
    double deepest = 0.0;
    for (int32_t i = 0; i < count && thickest > 1e-9; i++) {
        const double *p = &points[3 * i];
        double depth = INFINITY;
        for (int32_t f = 0; f < plane_count && depth > 0; f++)
            depth = fmin(depth, planes[f][3] - (planes[f][0] * p[0] + planes[f][1] * p[1] + planes[f][2] * p[2]));
        if (depth > deepest) deepest = depth;
        *inside += depth > 0;
    }
    free(planes);
    return deepest;
}

static int32_t root(int32_t *parent, int32_t i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* Where the cloth is inside the colliders: the deepest point, the piece it is in (counted in
 * the order of the pieces' first triangles, the order the dump writes them: for the tablecloth,
 * table top, legs, then the bodies) and how many cloth vertices are inside some piece. */
typedef struct penetration {
    double deepest;
    int32_t piece, vertices_inside;
} penetration;

/* The deepest point of `points` inside any connected piece of the collider mesh, each piece
 * taken as convex (pieces found by union-find over the triangles' corners). */
static penetration deepest_inside_pieces(const double *points, int32_t count, const double *hull,
                                         int32_t hull_vertices, const int32_t *faces, int32_t face_count)
{
    int32_t *parent = malloc(sizeof(int32_t) * (size_t)hull_vertices + 1);
    int32_t *piece_faces = malloc(sizeof(int32_t) * 3 * (size_t)face_count + 1);
    char *done = calloc((size_t)hull_vertices + 1, 1);
    for (int32_t i = 0; i < hull_vertices; i++) parent[i] = i;
    for (int32_t f = 0; f < face_count; f++)
        for (int c = 1; c < 3; c++) parent[root(parent, faces[3 * f + c])] = root(parent, faces[3 * f]);
    penetration result = {.deepest = 0.0, .piece = -1, .vertices_inside = 0};
    for (int32_t f = 0, index = 0; f < face_count; f++) {
        int32_t piece = root(parent, faces[3 * f]);
        if (done[piece]) continue;
        done[piece] = 1;
        int32_t n = 0;
        for (int32_t g = f; g < face_count; g++)
            if (root(parent, faces[3 * g]) == piece) memcpy(&piece_faces[3 * n++], &faces[3 * g], 3 * sizeof(int32_t));
        double depth = deepest_inside(points, count, hull, piece_faces, n, &result.vertices_inside);
        if (depth > result.deepest) result.deepest = depth, result.piece = index;
        index++;
    }
    free(parent), free(piece_faces), free(done);
    return result;
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

    /* the final cloth and the colliders in a world of their own, for the exact intersection count */
    sb_world_def wd = sb_default_world_def();
    sb_world *w = NULL;
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = nv, cd.positions = final, cd.triangle_count = nt, cd.triangles = tris;
    sb_collider_def kd = sb_default_collider_def();
    kd.vertex_count = sv, kd.positions = sphere, kd.triangle_count = st, kd.triangles = sphere_tris;
    sb_cloth_id cloth_id;
    sb_collider_id collider_id;
    if (sb_world_create(&wd, &w) || sb_world_add_cloth(w, &cd, &cloth_id) ||
        (st > 0 && sb_world_add_collider(w, &kd, &collider_id))) {
        fprintf(stderr, "%s\n", sb_last_error());
        return 1;
    }
    int32_t colliders = st > 0 ? 1 : 0;
    if (colliders) collider_prepare_step(w->colliders[0], 0.0, 1.0 / 24.0);
    int64_t self = count_intersections(w->cloths, 1, NULL, 0, true);
    int64_t all = count_intersections(w->cloths, 1, w->colliders, colliders, true);
    penetration inside = deepest_inside_pieces(final, nv, sphere, sv, sphere_tris, st);
    printf("{\"penetration_m\": %.6g, \"penetration_piece\": %d, \"vertices_inside\": %d, "
           "\"intersecting_pairs\": %lld, \"self_intersecting_pairs\": %lld, \"max_strain\": %.6g}\n",
           inside.deepest, (int)inside.piece, (int)inside.vertices_inside, (long long)all, (long long)self, strain);
    sb_world_destroy(w);
    free(rest), free(final), free(tris), free(sphere), free(sphere_tris);
    return 0;
}
