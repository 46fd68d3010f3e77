/* Mass properties of closed meshes against analytic values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_mass_properties.h"
#include "testutil.h"

static double frobenius(mat3 a)
{
    double s = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s += a.m[i][j] * a.m[i][j];
    return sqrt(s);
}

static double relative_difference(mat3 a, mat3 b) { return frobenius(m3_add(a, m3_scale(b, -1.0))) / frobenius(b); }

/* Rotates and moves mesh vertices: p -> R p + t. */
static void place(solid_mesh *m, mat3 r, vec3 t)
{
    for (int32_t i = 0; i < m->vertex_count; i++)
        v3_store(&m->positions[3 * i], v3_add(m3_mul_v(r, v3_load(&m->positions[3 * i])), t));
}

static mat3 box_inertia(double a, double b, double c, double mass)
{
    return (mat3){{{mass * (b * b + c * c) / 12, 0, 0}, {0, mass * (a * a + c * c) / 12, 0}, {0, 0, mass * (a * a + b * b) / 12}}};
}

Test(mass, box_matches_analytic_inertia)
{
    double half[3] = {0.35, 1.1, 0.2}, center[3] = {0, 0, 0};
    solid_mesh box = box_mesh(half, center);
    mat3 r = q_to_m3(q_normalize((quat){0.8, 0.3, -0.4, 0.2}));
    vec3 t = v3(1.5, -2.0, 30.0);
    place(&box, r, t);
    mass_properties mp;
    cr_assert(mesh_mass_properties(box.positions, box.vertex_count, box.triangles, box.triangle_count, &mp));
    double volume = 8 * half[0] * half[1] * half[2];
    cr_assert_float_eq(mp.volume, volume, 1e-9 * volume);
    cr_assert_lt(v3_len(v3_sub(mp.center, t)), 1e-9 * v3_len(t));
    /* per unit density, rotated into the world */
    mat3 expected = m3_mul(m3_mul(r, box_inertia(2 * half[0], 2 * half[1], 2 * half[2], volume)), m3_transpose(r));
    double err = relative_difference(mp.inertia, expected);
    cr_assert_lt(err, 1e-9, "box inertia off by %g relative", err);
    solid_mesh_free(&box);
}

/* An L-shaped prism: the L {[0,2]x[0,1]} ∪ {[0,1]x[1,3]} extruded to height h. */
Test(mass, l_shaped_solid_matches_analytic_inertia)
{
    const double h = 0.5;
    double outline[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 3}, {0, 3}};
    int32_t caps[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
    solid_mesh m = {12, 4 * 2 + 6 * 2, malloc(sizeof(double) * 36), malloc(sizeof(int32_t) * 60)};
    for (int i = 0; i < 6; i++)
        for (int z = 0; z < 2; z++) {
            double *p = &m.positions[3 * (6 * z + i)];
            p[0] = outline[i][0], p[1] = outline[i][1], p[2] = z * h;
        }
    int32_t k = 0;
    for (int f = 0; f < 4; f++) { /* bottom faces down, top faces up */
        int32_t down[3] = {caps[f][0], caps[f][2], caps[f][1]}, up[3] = {6 + caps[f][0], 6 + caps[f][1], 6 + caps[f][2]};
        memcpy(&m.triangles[k], down, sizeof down), k += 3;
        memcpy(&m.triangles[k], up, sizeof up), k += 3;
    }
    for (int i = 0; i < 6; i++) { /* walls, outward for a counter-clockwise outline */
        int32_t a = i, b = (i + 1) % 6;
        int32_t wall[6] = {a, b, 6 + b, a, 6 + b, 6 + a};
        memcpy(&m.triangles[k], wall, sizeof wall), k += 6;
    }
    cr_assert(mesh_is_closed(m.triangles, m.triangle_count, m.vertex_count));
    mat3 r = q_to_m3(q_normalize((quat){0.3, -0.5, 0.7, 0.1}));
    vec3 t = v3(-3.0, 4.0, 1.0);
    place(&m, r, t);
    mass_properties mp;
    cr_assert(mesh_mass_properties(m.positions, m.vertex_count, m.triangles, m.triangle_count, &mp));
    /* two boxes by the parallel axis theorem, per unit density */
    double va = 2 * 1 * h, vb = 1 * 2 * h, volume = va + vb;
    vec3 ca = v3(1.0, 0.5, h / 2), cb = v3(0.5, 2.0, h / 2);
    vec3 c = v3_scale(v3_add(v3_scale(ca, va), v3_scale(cb, vb)), 1.0 / volume);
    mat3 local = m3_zero();
    struct { double v; vec3 center; mat3 own; } parts[2] = {{va, ca, box_inertia(2, 1, h, va)}, {vb, cb, box_inertia(1, 2, h, vb)}};
    for (int p = 0; p < 2; p++) {
        vec3 d = v3_sub(parts[p].center, c);
        mat3 shift = m3_scale(m3_add(m3_scale(m3_identity(), v3_dot(d, d)), m3_scale(m3_outer(d, d), -1.0)), parts[p].v);
        local = m3_add(local, m3_add(parts[p].own, shift));
    }
    mat3 expected = m3_mul(m3_mul(r, local), m3_transpose(r));
    cr_assert_float_eq(mp.volume, volume, 1e-9 * volume);
    cr_assert_lt(v3_len(v3_sub(mp.center, v3_add(m3_mul_v(r, c), t))), 1e-9 * v3_len(t));
    double err = relative_difference(mp.inertia, expected);
    cr_assert_lt(err, 1e-9, "L-shape inertia off by %g relative", err);
    /* an inward-wound copy is the same solid */
    for (int32_t i = 0; i < m.triangle_count; i++) {
        int32_t tmp = m.triangles[3 * i + 1];
        m.triangles[3 * i + 1] = m.triangles[3 * i + 2], m.triangles[3 * i + 2] = tmp;
    }
    mass_properties flipped;
    cr_assert(mesh_mass_properties(m.positions, m.vertex_count, m.triangles, m.triangle_count, &flipped));
    cr_assert_float_eq(flipped.volume, volume, 1e-9 * volume);
    solid_mesh_free(&m);
}

Test(mass, icosphere_approaches_the_sphere)
{
    const double r = 0.7;
    double previous = INFINITY;
    for (int level = 0; level <= 5; level++) {
        solid_mesh s = icosphere_mesh(r, level);
        cr_assert(mesh_is_closed(s.triangles, s.triangle_count, s.vertex_count), "level %d not closed", level);
        mass_properties mp;
        cr_assert(mesh_mass_properties(s.positions, s.vertex_count, s.triangles, s.triangle_count, &mp));
        double volume = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
        double expected = 0.4 * volume * r * r; /* 2/5 m r², per unit density */
        double err = fabs(mp.inertia.m[0][0] / expected - 1) + fabs(mp.inertia.m[1][1] / expected - 1) +
                     fabs(mp.inertia.m[2][2] / expected - 1);
        cr_assert_lt(err, previous, "level %d: error %g did not shrink from %g", level, err, previous);
        previous = err;
        solid_mesh_free(&s);
    }
    cr_assert_lt(previous, 3e-3, "a 5-level icosphere is still %g off", previous);
}

Test(mass, principal_axes_of_a_rotated_box)
{
    mat3 r = q_to_m3(q_normalize((quat){0.9, 0.1, 0.3, -0.2}));
    mat3 inertia = m3_mul(m3_mul(r, box_inertia(1.0, 2.0, 3.0, 6.0)), m3_transpose(r));
    vec3 moments;
    mat3 axes;
    cr_assert(principal_axes(inertia, &moments, &axes));
    mat3 local = box_inertia(1.0, 2.0, 3.0, 6.0);
    cr_assert_float_eq(moments.x, local.m[2][2], 1e-12);
    cr_assert_float_eq(moments.z, local.m[0][0], 1e-12);
    cr_assert_float_eq(m3_det(axes), 1.0, 1e-12);
    /* Aᵀ I A is diagonal */
    mat3 d = m3_mul(m3_mul(m3_transpose(axes), inertia), axes);
    cr_assert_lt(fabs(d.m[0][1]) + fabs(d.m[0][2]) + fabs(d.m[1][2]), 1e-12);
}

Test(mass, open_and_broken_meshes_are_not_closed)
{
    grid_mesh g = grid_mesh_make(4, 1.0, 0.0);
    cr_assert_not(mesh_is_closed(g.triangles, g.triangle_count, g.vertex_count));
    double half[3] = {1, 1, 1}, center[3] = {0, 0, 0};
    solid_mesh box = box_mesh(half, center);
    cr_assert(mesh_is_closed(box.triangles, box.triangle_count, box.vertex_count));
    box.triangles[4] = box.triangles[5]; /* a degenerate triangle */
    cr_assert_not(mesh_is_closed(box.triangles, box.triangle_count, box.vertex_count));
    grid_mesh_free(&g);
    solid_mesh_free(&box);
}
