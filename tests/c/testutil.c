#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

bool test_quick(void)
{
    const char *value = getenv("SIMBAKE_TEST_QUICK");
    return value && value[0] && strcmp(value, "0") != 0;
}

double rng_uniform(test_rng *rng, double lo, double hi)
{
    /* xorshift64* */
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    uint64_t r = x * 2685821657736338717ull;
    return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

grid_mesh grid_mesh_make(int32_t n, double size, double height)
{
    grid_mesh m = {.n = n, .vertex_count = n * n, .triangle_count = 2 * (n - 1) * (n - 1)};
    m.positions = malloc(sizeof(double) * 3 * (size_t)m.vertex_count);
    m.triangles = malloc(sizeof(int32_t) * 3 * (size_t)m.triangle_count);
    double spacing = size / (n - 1);
    for (int32_t j = 0; j < n; j++)
        for (int32_t i = 0; i < n; i++) {
            double *p = &m.positions[3 * (j * n + i)];
            p[0] = -0.5 * size + i * spacing;
            p[1] = -0.5 * size + j * spacing;
            p[2] = height;
        }
    int32_t t = 0;
    for (int32_t j = 0; j + 1 < n; j++)
        for (int32_t i = 0; i + 1 < n; i++) {
            int32_t a = j * n + i, b = a + 1, c = a + n, d = c + 1;
            /* alternate the diagonal so the mesh has no preferred shear direction */
            if ((i + j) % 2 == 0) {
                int32_t tri[6] = {a, b, d, a, d, c};
                for (int k = 0; k < 6; k++) m.triangles[3 * t + k] = tri[k];
            } else {
                int32_t tri[6] = {a, b, c, b, d, c};
                for (int k = 0; k < 6; k++) m.triangles[3 * t + k] = tri[k];
            }
            t += 2;
        }
    return m;
}

void grid_mesh_free(grid_mesh *mesh)
{
    free(mesh->positions);
    free(mesh->triangles);
    mesh->positions = NULL;
    mesh->triangles = NULL;
}

double grid_max_edge_strain(const grid_mesh *mesh, const double *x)
{
    double shortest, longest;
    grid_edge_ratios(mesh, x, &shortest, &longest);
    return fmax(1.0 - shortest, longest - 1.0);
}

void grid_edge_ratios(const grid_mesh *mesh, const double *x, double *shortest, double *longest)
{
    *shortest = INFINITY, *longest = 0.0;
    for (int32_t t = 0; t < mesh->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = mesh->triangles[3 * t + k], b = mesh->triangles[3 * t + (k + 1) % 3];
            double rest = 0.0, now = 0.0;
            for (int c = 0; c < 3; c++) {
                double dr = mesh->positions[3 * a + c] - mesh->positions[3 * b + c];
                double dn = x[3 * a + c] - x[3 * b + c];
                rest += dr * dr, now += dn * dn;
            }
            double ratio = sqrt(now / rest);
            *shortest = fmin(*shortest, ratio), *longest = fmax(*longest, ratio);
        }
}

static solid_mesh solid_alloc(int32_t vertices, int32_t triangles)
{
    solid_mesh m = {vertices, triangles, malloc(sizeof(double) * 3 * (size_t)vertices),
                    malloc(sizeof(int32_t) * 3 * (size_t)triangles)};
    return m;
}

solid_mesh sphere_mesh(double radius, int32_t rings, int32_t segments, const double center[3])
{
    /* poles plus (rings - 1) rings of `segments` vertices */
    solid_mesh m = solid_alloc(2 + (rings - 1) * segments, 2 * segments * (rings - 1));
    double *p = m.positions;
    p[0] = center[0], p[1] = center[1], p[2] = center[2] + radius;
    for (int32_t r = 1; r < rings; r++)
        for (int32_t s = 0; s < segments; s++) {
            double theta = PI * r / rings, phi = 2 * PI * s / segments;
            double *q = &p[3 * (1 + (r - 1) * segments + s)];
            q[0] = center[0] + radius * sin(theta) * cos(phi);
            q[1] = center[1] + radius * sin(theta) * sin(phi);
            q[2] = center[2] + radius * cos(theta);
        }
    int32_t south = 1 + (rings - 1) * segments;
    double *q = &p[3 * south];
    q[0] = center[0], q[1] = center[1], q[2] = center[2] - radius;
    int32_t t = 0;
    for (int32_t s = 0; s < segments; s++) {
        int32_t a = 1 + s, b = 1 + (s + 1) % segments;
        int32_t tri[3] = {0, a, b};
        for (int k = 0; k < 3; k++) m.triangles[3 * t + k] = tri[k];
        t++;
        int32_t c = 1 + (rings - 2) * segments + s, d = 1 + (rings - 2) * segments + (s + 1) % segments;
        int32_t bottom[3] = {south, d, c};
        for (int k = 0; k < 3; k++) m.triangles[3 * t + k] = bottom[k];
        t++;
    }
    for (int32_t r = 1; r + 1 < rings; r++)
        for (int32_t s = 0; s < segments; s++) {
            int32_t a = 1 + (r - 1) * segments + s, b = 1 + (r - 1) * segments + (s + 1) % segments;
            int32_t c = a + segments, d = b + segments;
            int32_t quad[6] = {a, c, d, a, d, b};
            for (int k = 0; k < 6; k++) m.triangles[3 * t + k] = quad[k];
            t += 2;
        }
    m.triangle_count = t;
    return m;
}

solid_mesh box_mesh(const double half[3], const double center[3])
{
    solid_mesh m = solid_alloc(8, 12);
    for (int32_t i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) m.positions[3 * i + k] = center[k] + ((i >> k) & 1 ? half[k] : -half[k]);
    /* faces as outward-wound quads over the corner bits (x = 1, y = 2, z = 4) */
    static const int32_t quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; f++) {
        int32_t tri[6] = {quads[f][0], quads[f][1], quads[f][2], quads[f][0], quads[f][2], quads[f][3]};
        for (int k = 0; k < 6; k++) m.triangles[6 * f + k] = tri[k];
    }
    return m;
}

solid_mesh plane_mesh(double size, double tilt)
{
    solid_mesh m = solid_alloc(4, 2);
    double corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; i++) {
        double x = 0.5 * size * corners[i][0], y = 0.5 * size * corners[i][1];
        m.positions[3 * i] = x;
        m.positions[3 * i + 1] = y * cos(tilt);
        m.positions[3 * i + 2] = y * sin(tilt);
    }
    int32_t tris[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) m.triangles[k] = tris[k];
    return m;
}

sb_collider_def solid_collider_def(const solid_mesh *mesh)
{
    sb_collider_def def = sb_default_collider_def();
    def.vertex_count = mesh->vertex_count, def.positions = mesh->positions;
    def.triangle_count = mesh->triangle_count, def.triangles = mesh->triangles;
    return def;
}

void solid_mesh_free(solid_mesh *mesh)
{
    free(mesh->positions);
    free(mesh->triangles);
    mesh->positions = NULL;
    mesh->triangles = NULL;
}

double convex_signed_distance(const solid_mesh *m, const double p[3])
{
    double best = -INFINITY;
    for (int32_t t = 0; t < m->triangle_count; t++) {
        const double *a = &m->positions[3 * m->triangles[3 * t]], *b = &m->positions[3 * m->triangles[3 * t + 1]];
        const double *c = &m->positions[3 * m->triangles[3 * t + 2]];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len == 0) continue;
        double d = (n[0] * (p[0] - a[0]) + n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / len;
        if (d > best) best = d;
    }
    return best;
}

solid_mesh icosphere_mesh(double radius, int level)
{
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                          {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    int32_t faces[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                            {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                            {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    int32_t nv = 12, nt = 20;
    int32_t max_v = 12, max_t = 20;
    for (int l = 0; l < level; l++) max_t *= 4, max_v += max_t / 2;
    solid_mesh m = solid_alloc(max_v, max_t);
    memcpy(m.positions, base, sizeof base);
    memcpy(m.triangles, faces, sizeof faces);
    for (int l = 0; l < level; l++) {
        /* split every edge at its midpoint (a midpoint is shared by the edge's two triangles) */
        int32_t n0 = nv; /* the table is over this level's old vertices */
        int32_t *mid = malloc(sizeof(int32_t) * (size_t)n0 * (size_t)n0);
        for (size_t i = 0; i < (size_t)n0 * (size_t)n0; i++) mid[i] = -1;
        int32_t *next = malloc(sizeof(int32_t) * 12 * (size_t)nt), k = 0;
        for (int32_t f = 0; f < nt; f++) {
            int32_t v[3] = {m.triangles[3 * f], m.triangles[3 * f + 1], m.triangles[3 * f + 2]}, c[3];
            for (int e = 0; e < 3; e++) {
                int32_t a = v[e], b = v[(e + 1) % 3], lo = a < b ? a : b, hi = a < b ? b : a;
                if (mid[lo * n0 + hi] < 0) {
                    for (int d = 0; d < 3; d++) m.positions[3 * nv + d] = 0.5 * (m.positions[3 * a + d] + m.positions[3 * b + d]);
                    mid[lo * n0 + hi] = nv++;
                }
                c[e] = mid[lo * n0 + hi];
            }
            int32_t quad[12] = {v[0], c[0], c[2], v[1], c[1], c[0], v[2], c[2], c[1], c[0], c[1], c[2]};
            memcpy(&next[k], quad, sizeof quad);
            k += 12;
        }
        free(mid);
        nt *= 4;
        memcpy(m.triangles, next, sizeof(int32_t) * 3 * (size_t)nt);
        free(next);
    }
    for (int32_t i = 0; i < nv; i++) {
        double *p = &m.positions[3 * i], len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        for (int d = 0; d < 3; d++) p[d] *= radius / len;
    }
    m.vertex_count = nv, m.triangle_count = nt;
    return m;
}

static double length3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Corners of a box of half-extent `half` whose displacement since it was added is m, having
 * been added axis-aligned at `center`. */
void box_corners(const double m[16], const double center[3], double half, double out[8][3])
{
    for (int c = 0; c < 8; c++) {
        double p[3] = {center[0] + (c & 1 ? half : -half), center[1] + (c & 2 ? half : -half),
                       center[2] + (c & 4 ? half : -half)};
        for (int r = 0; r < 3; r++) out[c][r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
    }
}

/* Penetration depth of two boxes (corners as box_corners): the least overlap of their
 * projections over the 15 separating axes; 0 when apart. */
double box_overlap(double a[8][3], double b[8][3])
{
    double axes[15][3];
    int count = 0;
    double ea[3][3], eb[3][3];
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++) ea[k][r] = a[1 << k][r] - a[0][r], eb[k][r] = b[1 << k][r] - b[0][r];
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < 3; r++) axes[count][r] = ea[k][r];
        count++;
        for (int r = 0; r < 3; r++) axes[count][r] = eb[k][r];
        count++;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double *c = axes[count];
            c[0] = ea[i][1] * eb[j][2] - ea[i][2] * eb[j][1];
            c[1] = ea[i][2] * eb[j][0] - ea[i][0] * eb[j][2];
            c[2] = ea[i][0] * eb[j][1] - ea[i][1] * eb[j][0];
            if (length3(c) > 1e-9) count++;
        }
    double least = INFINITY;
    for (int k = 0; k < count; k++) {
        double n = length3(axes[k]), lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
        for (int c = 0; c < 8; c++) {
            double pa = (a[c][0] * axes[k][0] + a[c][1] * axes[k][1] + a[c][2] * axes[k][2]) / n;
            double pb = (b[c][0] * axes[k][0] + b[c][1] * axes[k][1] + b[c][2] * axes[k][2]) / n;
            lo_a = fmin(lo_a, pa), hi_a = fmax(hi_a, pa), lo_b = fmin(lo_b, pb), hi_b = fmax(hi_b, pb);
        }
        least = fmin(least, fmin(hi_a - lo_b, hi_b - lo_a));
        if (least <= 0) return 0;
    }
    return least;
}

sb_cloth_def grid_cloth_def(const grid_mesh *mesh)
{
    sb_cloth_def d = sb_default_cloth_def();
    d.vertex_count = mesh->vertex_count, d.positions = mesh->positions;
    d.triangle_count = mesh->triangle_count, d.triangles = mesh->triangles;
    return d;
}

const double TABLE_HALF[3] = {1.0, 1.0, 0.05};

bool add_table(sb_world *w, solid_mesh *mesh, double *collider_thickness)
{
    const double center[3] = {0.0, 0.0, -TABLE_HALF[2]};
    sb_body_def body = sb_default_body_def();
    body.type = SB_BODY_STATIC, body.shape = SB_SHAPE_BOX;
    memcpy(body.half_extents, TABLE_HALF, sizeof body.half_extents);
    memcpy(body.center, center, sizeof center);
    sb_body_id body_id;
    *mesh = box_mesh(TABLE_HALF, center);
    sb_collider_def collider = solid_collider_def(mesh);
    *collider_thickness = collider.thickness;
    sb_collider_id collider_id;
    return sb_world_add_body(w, &body, &body_id) == SB_OK && sb_world_add_collider(w, &collider, &collider_id) == SB_OK;
}

sb_world *world_with_table(solid_mesh *table, double *reach)
{
    sb_world_def wd = sb_default_world_def();
    sb_world *w;
    if (sb_world_create(&wd, &w) != SB_OK) return NULL;
    double table_thickness;
    if (!add_table(w, table, &table_thickness)) {
        sb_world_destroy(w);
        return NULL;
    }
    *reach = sb_default_cloth_def().thickness + table_thickness;
    return w;
}

addon_hammock addon_hammock_make(int32_t n, const double half[3], double drop)
{
    addon_hammock h = {.sheet = grid_mesh_make(n, 1.2, 0.0)};
    h.cloth = grid_cloth_def(&h.sheet);
    h.cloth.density = 0.15, h.cloth.stretch_stiffness = 2000.0, h.cloth.shear_stiffness = 200.0;
    h.cloth.bend_stiffness = 1e-5, h.cloth.damping = 0.01, h.cloth.air_drag = 0.1, h.cloth.thickness = 0.005;
    h.cloth.friction = 0.5, h.cloth.max_stretch = 0.0, h.cloth.max_compression = 0.0;
    h.pins = malloc(2 * (size_t)n * sizeof *h.pins);
    for (int32_t j = 0; h.pins && j < n; j++) h.pins[2 * j] = j * n, h.pins[2 * j + 1] = j * n + n - 1;
    h.cloth.pin_count = 2 * n, h.cloth.pins = h.pins;
    h.box = sb_default_body_def();
    h.box.shape = SB_SHAPE_BOX, h.box.mass = 5.0, h.box.feels_cloth = 1, h.box.friction = 0.5;
    memcpy(h.box.half_extents, half, sizeof h.box.half_extents);
    h.box.center[0] = h.box.center[1] = 0.0, h.box.center[2] = half[2] + drop;
    return h;
}

bool addon_hammock_add(sb_world *w, addon_hammock *h)
{
    sb_cloth_id cloth_id;
    if (sb_world_add_cloth(w, &h->cloth, &cloth_id) != SB_OK || sb_world_add_body(w, &h->box, &h->body) != SB_OK)
        return false;
    h->mesh = box_mesh(h->box.half_extents, h->box.center);
    sb_collider_def def = solid_collider_def(&h->mesh);
    def.friction = 0.5;
    sb_collider_id id;
    return sb_world_add_collider(w, &def, &id) == SB_OK && sb_collider_follow_body(w, id, h->body) == SB_OK;
}

void addon_hammock_free(addon_hammock *h)
{
    grid_mesh_free(&h->sheet);
    solid_mesh_free(&h->mesh);
    free(h->pins);
}
