#include "cloth_springs.h"

#include <stdlib.h>
#include <string.h>

#include "api_error.h"
#include "collision_bvh.h"
#include "collision_geometry.h"

vec3 spring_force(vec3 xi, vec3 xj, vec3 vi, vec3 vj, double rest, double k_tension, double k_compression,
                  double max_force, double damping, bool definite, mat3 *K, mat3 *D)
{
    vec3 d = v3_sub(xj, xi);
    double l = v3_len(d);
    double stretch = l - rest, k = stretch >= 0.0 ? k_tension : k_compression;
    bool limited = max_force > 0.0 && k * stretch > max_force;
    vec3 f = v3(0, 0, 0);
    mat3 stiffness = m3_zero(), along = m3_zero();
    if (!(l > 0.0)) {
        /* both ends at one point: a spring of rest length 0 is at rest there (½ k l² is smooth,
         * K = -k I); one of positive rest length has no direction to push in */
        if (rest == 0.0) stiffness = m3_scale(m3_identity(), -k);
    } else {
        vec3 u = v3_scale(d, 1.0 / l);
        along = m3_outer(u, u);
        mat3 across = m3_add(m3_identity(), m3_scale(along, -1.0));
        if (limited) {
            /* f = -F u: the limited force's own Jacobian, -F ∂u/∂x_j = -(F / l) (I - u uᵀ).
             * It has no part along the spring (the force no longer grows with the length) and is
             * negative semi-definite, so the system stays positive definite; Blender keeps the
             * unlimited spring's Jacobian, which makes its implicit step overshoot the limit. */
            f = v3_scale(u, -max_force);
            stiffness = m3_scale(across, -max_force / l);
        } else if (rest == 0.0) {
            f = v3_scale(d, -k); /* the general form below with l - L = l, exactly */
            stiffness = m3_scale(m3_identity(), -k);
        } else {
            f = v3_scale(u, -k * stretch);
            double transverse = stretch / l;
            if (definite && transverse < 0.0) transverse = 0.0;
            stiffness = m3_scale(m3_add(along, m3_scale(across, transverse)), -k);
        }
        f = v3_madd(f, u, -damping * k * v3_dot(u, v3_sub(vj, vi)));
    }
    if (K) *K = stiffness;
    if (D) *D = m3_scale(along, -damping * k);
    return f;
}

sb_result springs_validate(const sb_cloth_def *d)
{
    if (d->spring_count < 0 || (d->spring_count > 0 && !d->springs))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "spring_count is %d but springs is %s", (int)d->spring_count,
                         d->springs ? "set" : "NULL");
    for (int32_t s = 0; s < d->spring_count; s++) {
        int32_t a = d->springs[2 * (size_t)s], b = d->springs[2 * (size_t)s + 1];
        if (a < 0 || a >= d->vertex_count || b < 0 || b >= d->vertex_count)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "spring %d joins vertices %d and %d, outside 0..%d", (int)s,
                             (int)a, (int)b, (int)d->vertex_count - 1);
        if (a == b)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "spring %d joins vertex %d with itself", (int)s, (int)a);
        if (d->spring_rest_lengths && !(d->spring_rest_lengths[s] >= 0.0 && isfinite(d->spring_rest_lengths[s])))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "spring %d has rest length %g; it must be finite and zero "
                             "or positive", (int)s, d->spring_rest_lengths[s]);
    }
    struct { const char *name; double value; } params[] = {
        {"spring_tension_stiffness", d->spring_tension_stiffness},
        /* negative and finite: the default, the tension stiffness */
        {"spring_compression_stiffness", isfinite(d->spring_compression_stiffness) &&
                                             d->spring_compression_stiffness < 0.0 ? 0.0
                                                                                   : d->spring_compression_stiffness},
        {"spring_max_force", d->spring_max_force},
        {"internal_spring_max_length", d->internal_spring_max_length},
        {"internal_tension_stiffness", d->internal_tension_stiffness},
        {"internal_compression_stiffness", d->internal_compression_stiffness},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (!isfinite(params[i].value) || params[i].value < 0.0)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %s must be zero or positive, got %g", params[i].name,
                             params[i].value);
    if (!(d->internal_spring_max_diversion >= 0.0 && d->internal_spring_max_diversion <= 0.5 * SPRING_PI))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth internal_spring_max_diversion must lie in 0..pi/2 "
                         "rad, got %g", d->internal_spring_max_diversion);
    if (d->internal_springs && d->internal_vertex_stiffness)
        for (int32_t i = 0; i < 2 * d->vertex_count; i++)
            if (!(d->internal_vertex_stiffness[i] >= 0.0 && isfinite(d->internal_vertex_stiffness[i])))
                return error_set(SB_ERROR_INVALID_ARGUMENT, "internal %s stiffness of vertex %d is %g; it must be "
                                 "finite and zero or positive", i % 2 ? "compression" : "tension", (int)(i / 2),
                                 d->internal_vertex_stiffness[i]);
    return SB_OK;
}

/* Blender scales a spring's rest length by the geometric mean of its ends' 1 - shrink. */
static double shrink_factor(const sb_cloth_def *def, int32_t a, int32_t b)
{
    return def->shrink ? sqrt((1.0 - def->shrink[a]) * (1.0 - def->shrink[b])) : 1.0;
}

static vec3 position(const sb_cloth_def *def, int32_t i) { return v3_load(&def->positions[3 * (size_t)i]); }

/* Outward vertex normals: each triangle's unit normal (by its winding) weighted by its angle at
 * the vertex, as Blender's vertex normals are (for a flat polygon the angles of its triangles at
 * a corner add up to the polygon's, so triangulating it changes nothing). */
static void vertex_normals(const sb_cloth_def *def, const int32_t *tris, int32_t tri_count, vec3 *normals)
{
    for (int32_t i = 0; i < def->vertex_count; i++) normals[i] = v3(0, 0, 0);
    for (int32_t t = 0; t < tri_count; t++) {
        const int32_t *tri = &tris[3 * (size_t)t];
        vec3 p[3] = {position(def, tri[0]), position(def, tri[1]), position(def, tri[2])};
        vec3 n = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
        double len = v3_len(n);
        if (!(len > 0.0)) continue;
        n = v3_scale(n, 1.0 / len);
        for (int k = 0; k < 3; k++) {
            vec3 e1 = v3_sub(p[(k + 1) % 3], p[k]), e2 = v3_sub(p[(k + 2) % 3], p[k]);
            double angle = atan2(v3_len(v3_cross(e1, e2)), v3_dot(e1, e2));
            normals[tri[k]] = v3_madd(normals[tri[k]], n, angle);
        }
    }
}

/* A unit direction fixed by the vertex index (splitmix64): Blender draws its rays' deviations
 * from a random generator seeded with 0, which no other program reproduces; a hash keeps ours
 * the same on every run and thread count. */
static vec3 vertex_random_direction(int32_t i)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull;
    double c[3];
    for (int k = 0; k < 3; k++) {
        z += 0x9E3779B97F4A7C15ull;
        uint64_t r = z;
        r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ull;
        r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
        r ^= r >> 31;
        c[k] = 0.5 - (double)(r >> 11) * 0x1.0p-53; /* as Blender's 0.5 - rng, in (-0.5, 0.5] */
    }
    vec3 v = v3(c[0], c[1], c[2]);
    double len = v3_len(v);
    return len > 0.0 ? v3_scale(v, 1.0 / len) : v3(1, 0, 0);
}

typedef struct ray_cast {
    const sb_cloth_def *def;
    const int32_t *tris;
    vec3 origin, dir;
    int32_t hit;   /* nearest triangle met so far, -1: none */
    double distance; /* along the ray to it */
} ray_cast;

/* Möller–Trumbore: the ray meets triangle t at origin + s dir with s in (0, t_max]. */
static double ray_triangle(void *ctx, int32_t t, double t_max)
{
    ray_cast *rc = ctx;
    const int32_t *tri = &rc->tris[3 * (size_t)t];
    double dist = ray_crosses_triangle(rc->origin, rc->dir, position(rc->def, tri[0]), position(rc->def, tri[1]),
                               position(rc->def, tri[2]));
    if (!(dist > 0.0) || dist > t_max) return t_max;
    rc->hit = t, rc->distance = dist;
    return dist;
}

static int compare_pairs(const void *a, const void *b)
{
    const int32_t *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Blender's find_internal_spring_target_vertex, vertex by vertex: pairs (lower index first) of
 * the vertices whose ray finds a target, sorted with repeats removed, into *out_pairs. */
static bool find_internal_pairs(const sb_cloth_def *def, const int32_t *tris, int32_t tri_count, int32_t **out_pairs,
                                int32_t *out_count)
{
    int32_t nv = def->vertex_count;
    *out_pairs = NULL, *out_count = 0;
    vec3 *normals = malloc((size_t)nv * sizeof *normals);
    aabb *boxes = malloc(((size_t)tri_count + 1) * sizeof *boxes);
    int32_t *pairs = malloc(2 * ((size_t)nv + 1) * sizeof *pairs);
    bvh tree = {0};
    bool ok = normals && boxes && pairs;
    aabb all = aabb_empty();
    for (int32_t t = 0; ok && t < tri_count; t++) {
        boxes[t] = aabb_empty();
        for (int k = 0; k < 3; k++) boxes[t] = aabb_add_point(boxes[t], position(def, tris[3 * (size_t)t + k]));
        all = aabb_union(all, boxes[t]);
    }
    ok = ok && bvh_build(&tree, boxes, tri_count);
    int32_t count = 0;
    if (ok) {
        vertex_normals(def, tris, tri_count, normals);
        /* Blender nudges the ray's start by FLT_EPSILON so that it does not meet its own
         * vertex; ours by as much relative to the mesh's size */
        double nudge = 1.2e-7 * fmax(v3_len(v3_sub(all.hi, all.lo)), 1e-300);
        double max_length = def->internal_spring_max_length > 0.0 ? def->internal_spring_max_length : INFINITY;
        double deviation = sin(def->internal_spring_max_diversion);
        for (int32_t i = 0; i < nv; i++) {
            double len = v3_len(normals[i]);
            if (!(len > 0.0)) continue; /* in no triangle with area */
            vec3 dir = v3_scale(normals[i], -1.0 / len);
            if (deviation > 0.0) dir = v3_madd(dir, vertex_random_direction(i), deviation);
            double dir_len = v3_len(dir);
            if (!(dir_len > 0.0)) continue;
            dir = v3_scale(dir, 1.0 / dir_len);
            ray_cast rc = {def, tris, v3_madd(position(def, i), dir, nudge), dir, -1, 0.0};
            bvh_ray(&tree, rc.origin, dir, max_length, ray_triangle, &rc);
            if (rc.hit < 0) continue;
            const int32_t *tri = &tris[3 * (size_t)rc.hit];
            vec3 a = position(def, tri[0]), b = position(def, tri[1]), c = position(def, tri[2]);
            if (def->internal_spring_normal_check && v3_dot(v3_cross(v3_sub(b, a), v3_sub(c, a)), dir) < 0.0)
                continue; /* the outside of a wall, facing the ray */
            if (tri[0] == i || tri[1] == i || tri[2] == i) continue; /* met its own triangles */
            /* the corner nearest the hit point (Blender compares the vertex's distance to the hit
             * point, the same for all three corners, so it takes the triangle's first corner;
             * its comment and variable names say the nearest corner was meant) */
            vec3 hit = v3_madd(rc.origin, dir, rc.distance);
            int32_t target = tri[0];
            double best = v3_len2(v3_sub(a, hit));
            for (int k = 1; k < 3; k++) {
                double d2 = v3_len2(v3_sub(position(def, tri[k]), hit));
                if (d2 < best) best = d2, target = tri[k];
            }
            pairs[2 * (size_t)count] = i < target ? i : target;
            pairs[2 * (size_t)count + 1] = i < target ? target : i;
            count++;
        }
        qsort(pairs, (size_t)count, 2 * sizeof *pairs, compare_pairs);
        int32_t kept = 0;
        for (int32_t s = 0; s < count; s++)
            if (kept == 0 || compare_pairs(&pairs[2 * (size_t)s], &pairs[2 * (size_t)(kept - 1)]) != 0) {
                pairs[2 * (size_t)kept] = pairs[2 * (size_t)s], pairs[2 * (size_t)kept + 1] = pairs[2 * (size_t)s + 1];
                kept++;
            }
        count = kept;
    }
    bvh_free(&tree);
    free(normals), free(boxes);
    if (!ok) {
        free(pairs);
        return false;
    }
    *out_pairs = pairs, *out_count = count;
    return true;
}

void springs_free(spring_set *s)
{
    free(s->pairs), free(s->rest), free(s->stiffness), free(s->max_force);
    *s = (spring_set){0};
}

bool springs_build(const sb_cloth_def *def, const int32_t *triangles, int32_t triangle_count, spring_set *out)
{
    *out = (spring_set){0};
    int32_t *internal = NULL, internal_count = 0;
    if (def->internal_springs && !find_internal_pairs(def, triangles, triangle_count, &internal, &internal_count))
        return false;
    int32_t given = def->spring_count, count = given + internal_count;
    out->count = count, out->given = given, out->internal = internal_count;
    out->pairs = malloc(2 * ((size_t)count + 1) * sizeof *out->pairs);
    out->rest = malloc(((size_t)count + 1) * sizeof *out->rest);
    out->stiffness = malloc(2 * ((size_t)count + 1) * sizeof *out->stiffness);
    out->max_force = malloc(((size_t)count + 1) * sizeof *out->max_force);
    if (!out->pairs || !out->rest || !out->stiffness || !out->max_force) {
        free(internal);
        springs_free(out);
        return false;
    }
    double compression = def->spring_compression_stiffness < 0.0 ? def->spring_tension_stiffness
                                                                  : def->spring_compression_stiffness;
    for (int32_t s = 0; s < count; s++) {
        const int32_t *pair = s < given ? &def->springs[2 * (size_t)s] : &internal[2 * (size_t)(s - given)];
        int32_t a = pair[0], b = pair[1];
        out->pairs[2 * (size_t)s] = a, out->pairs[2 * (size_t)s + 1] = b;
        double distance = v3_len(v3_sub(position(def, b), position(def, a))) * shrink_factor(def, a, b);
        if (s < given) {
            out->rest[s] = def->spring_rest_lengths ? def->spring_rest_lengths[s] : distance;
            out->stiffness[2 * (size_t)s] = def->spring_tension_stiffness;
            out->stiffness[2 * (size_t)s + 1] = compression;
            out->max_force[s] = def->spring_max_force;
        } else {
            const double *w = def->internal_vertex_stiffness;
            out->rest[s] = distance;
            for (int k = 0; k < 2; k++)
                out->stiffness[2 * (size_t)s + k] =
                    w ? 0.5 * (w[2 * (size_t)a + k] + w[2 * (size_t)b + k])
                      : (k == 0 ? def->internal_tension_stiffness : def->internal_compression_stiffness);
            out->max_force[s] = 0.0;
        }
    }
    free(internal);
    return true;
}
