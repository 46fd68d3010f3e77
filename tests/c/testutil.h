/* Helpers shared by the C tests and benchmarks: a seeded random generator, cloth and solid
 * builders, box overlap. */
#ifndef SB_TESTUTIL_H
#define SB_TESTUTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "simbake.h"

/* True when SIMBAKE_TEST_QUICK is set (and not "0"): scripts/valgrind-tests sets it, so
 * that the few tests that simulate large scenes for long use smaller ones and the suite
 * fits CI's time under Valgrind. Everything else runs at full size. */
bool test_quick(void);

typedef struct test_rng { uint64_t state; } test_rng;

static inline test_rng rng_seed(uint64_t seed) { return (test_rng){seed * 2654435761u + 1}; }
/* uniform in [lo, hi) */
double rng_uniform(test_rng *rng, double lo, double hi);

/* A square grid cloth of n x n vertices and side `size` m in the plane z = height,
 * centred on the origin; vertex (i, j) is index j * n + i (i along x). */
typedef struct grid_mesh {
    int32_t n, vertex_count, triangle_count;
    double *positions;
    int32_t *triangles;
} grid_mesh;

grid_mesh grid_mesh_make(int32_t n, double size, double height);
void grid_mesh_free(grid_mesh *mesh);
/* Largest |edge length / rest length - 1| over the grid's triangle edges at positions x. */
double grid_max_edge_strain(const grid_mesh *mesh, const double *x);
/* Shortest and longest edge of the grid at x, each over its rest length. */
void grid_edge_ratios(const grid_mesh *mesh, const double *x, double *shortest, double *longest);

/* A closed triangle mesh for colliders (outward-facing triangles). */
typedef struct solid_mesh {
    int32_t vertex_count, triangle_count;
    double *positions;
    int32_t *triangles;
} solid_mesh;

/* UV sphere of `rings` x `segments` around `center`. */
solid_mesh sphere_mesh(double radius, int32_t rings, int32_t segments, const double center[3]);
/* Axis-aligned box (12 triangles, sharp edges) of half-extents `half` around `center`. */
solid_mesh box_mesh(const double half[3], const double center[3]);
/* A square of side `size` in the plane z = 0 (2 triangles), then rotated by `tilt` radians
 * about the x axis. */
solid_mesh plane_mesh(double size, double tilt);
void solid_mesh_free(solid_mesh *mesh);
/* A collider definition (library defaults) over the mesh, which must outlive it. */
sb_collider_def solid_collider_def(const solid_mesh *mesh);

/* A static table whose top is z = 0, TABLE_HALF wide and 0.1 m thick: a box body (what bodies
 * meet) and a box collider (what cloth meets). *mesh gets the collider's mesh (the caller frees
 * it), *collider_thickness its contact thickness; false if the world refused either. */
extern const double TABLE_HALF[3];
bool add_table(sb_world *w, solid_mesh *mesh, double *collider_thickness);
/* A world of the library's defaults with add_table's table; *reach is where a cloth of the default
 * thickness lies on it (the cloth's thickness plus the table's). NULL if the world or the table
 * was refused (sb_last_error says why). */
sb_world *world_with_table(solid_mesh *table, double *reach);

/* Issue 32's hammock as the add-on bakes it (the Blender scene of the issue): a 1.2 m grid of n²
 * vertices pinned along x = ±0.6, SimBake's default cloth as the add-on maps it (props.py:
 * 0.15 kg/m², stretch 2000 N/m, shear 200 N/m, bend 1e-5, damping 0.01 s, air drag 0.1, thickness
 * 5 mm, friction 0.5, no strain limit), and a 5 kg box of half extents `half` that feels the
 * cloth, friction 0.5, centred `drop` above it. addon_hammock_make fills in the definitions, for
 * the caller to change; addon_hammock_add adds the cloth, the box and a box collider (friction
 * 0.5) that follows it, where the box's definition puts it; false if the world refused any. */
typedef struct addon_hammock {
    grid_mesh sheet;
    int32_t *pins;       /* 2n: the columns at x = -0.6 and x = +0.6 */
    sb_cloth_def cloth;  /* over sheet and pins */
    sb_body_def box;
    solid_mesh mesh;     /* the box collider's (addon_hammock_add) */
    sb_body_id body;
} addon_hammock;
addon_hammock addon_hammock_make(int32_t n, const double half[3], double drop);
bool addon_hammock_add(sb_world *w, addon_hammock *h);
void addon_hammock_free(addon_hammock *h);
/* Default cloth definition over a grid mesh (positions and triangles filled in). */
sb_cloth_def grid_cloth_def(const grid_mesh *mesh);
/* Icosahedron subdivided `level` times, projected on the sphere (outward triangles). */
solid_mesh icosphere_mesh(double radius, int level);
/* Signed distance to a convex mesh: the largest signed distance to its face planes
 * (exact inside, a lower bound outside). */
double convex_signed_distance(const solid_mesh *mesh, const double p[3]);

/* Corners of a cube of half-extent `half` added axis-aligned at `center`, moved by the
 * displacement m (sb_body_get_transform). */
void box_corners(const double m[16], const double center[3], double half, double out[8][3]);
/* Penetration depth of two boxes (corners as box_corners) by their 15 separating axes; 0
 * when apart. */
double box_overlap(double a[8][3], double b[8][3]);

#endif
