/* Contacts of convex polytopes (a mesh triangle is one): the separating-axis test over face
 * normals and the edge pairs whose Gauss-map arcs cross (Gregorius), the incident face clipped
 * against the reference face and reduced to four points; a sphere against a polytope. */
#include <string.h>

#include "collision_geometry.h"
#include "rigid_capsule.h"

enum { POLYGON_MAX = 256 };

/* --- separating axes ---------------------------------------------------------------------- */

/* Largest separation of B from the planes of A's faces. Stops at the first face that
 * separates them by more than `margin` (the pair is apart whichever face is the largest), and
 * leaves a face's vertices once they are no farther than the best face (it cannot be chosen). */
double poly_face_query(const world_poly *a, const world_poly *b, double margin, int32_t *face)
{
    double best = -INFINITY;
    for (int32_t f = 0; f < a->face_count; f++) {
        double sep = INFINITY;
        for (int32_t i = 0; i < b->vertex_count && sep > best; i++) {
            double d = v3_dot(a->n[f], b->v[i]) - a->o[f];
            sep = d < sep ? d : sep; /* fmin without its NaN handling: a call in the hottest loop */
        }
        if (sep > best) best = sep, *face = f;
        if (best > margin) return best;
    }
    return best;
}

/* The arcs a-b and c-d on the Gauss map cross (Gregorius, "The Separating Axis Test"): the
 * two edges then bound a face of the Minkowski difference. */
static bool minkowski_face(vec3 a, vec3 b, vec3 c, vec3 d)
{
    vec3 bxa = v3_cross(b, a), dxc = v3_cross(d, c);
    double cba = v3_dot(c, bxa), dba = v3_dot(d, bxa), adc = v3_dot(a, dxc), bdc = v3_dot(b, dxc);
    return cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
}

enum { EDGE_ARCS_MAX = 64, FACE_SIDES_MAX = 64 };

/* Edges a (from pa along da) and b (from pb along db) measured along their cross product,
 * turned away from A's centre: false where they are nearly parallel (a face axis covers them). */
static inline bool edge_pair_separation(vec3 pa, vec3 da, double length_a, vec3 pb, vec3 db, double length_b,
                                        vec3 center_a, vec3 *axis, double *separation)
{
    vec3 n = v3_cross(da, db);
    double len = v3_len(n);
    if (len < 1e-9 * length_a * length_b) return false;
    n = v3_scale(n, 1.0 / len);
    if (v3_dot(n, v3_sub(pa, center_a)) < 0.0) n = v3_scale(n, -1.0);
    *axis = n, *separation = v3_dot(n, v3_sub(pb, pa));
    return true;
}

/* The edges of box t (a bitmask) along u_k whose Gauss arcs hold a direction m at right angles
 * to u_k: those joining the faces of the other two pairs on m's side of each, either face of a
 * pair when m is within `tol` of its plane (the arc's end: round-off decides there). */
static uint32_t box_arcs(const box_topology *t, const vec3 u[3], int k, vec3 m, double tol)
{
    int k1 = k == 0 ? 1 : 0, k2 = k == 2 ? 1 : 2;
    double d1 = v3_dot(m, u[k1]), d2 = v3_dot(m, u[k2]);
    uint32_t mask = 0;
    for (int s = 0; s < 2; s++)
        for (int r = 0; r < 2; r++)
            if ((s == 0 ? d1 >= -tol : d1 <= tol) && (r == 0 ? d2 >= -tol : d2 <= tol))
                mask |= 1u << t->edge[k][s][r];
    return mask;
}

/* The edge pairs of two boxes worth the exact test: for each of the 9 pairs of edge
 * directions the two arcs' great circles meet at ±m (m = u_a x u_b), which lies on one arc of
 * each box. Where that is clear (m well inside both arcs) the pair is a Minkowski face and its
 * separation along ±m is |m·(c_b - c_a)| minus both boxes' radii along m (Gottschalk's OBB
 * test): only those within round-off of the largest are kept. Where it is not (m near an
 * arc's end, or directions within 0.06 degrees: round-off decides there) every pair that may
 * cross is kept. mask[i]: B's edges to try with A's edge i (poly_edge_query's own test
 * decides); false: edges all but parallel, for the general loop. */
static bool box_edge_candidates(const world_poly *a, const world_poly *b, uint32_t mask[12])
{
    vec3 ua[3], ub[3], ca = v3(0, 0, 0), cb = v3(0, 0, 0);
    double ha[3], hb[3], size = 0.0;
    for (int k = 0; k < 3; k++) {
        ua[k] = a->n[a->box->face[k]], ub[k] = b->n[b->box->face[k]];
        /* o = n·c + h on a face, -n·c + h on its back */
        ha[k] = 0.5 * (a->o[a->box->face[k]] + a->o[a->box->back[k]]);
        hb[k] = 0.5 * (b->o[b->box->face[k]] + b->o[b->box->back[k]]);
        ca = v3_madd(ca, ua[k], 0.5 * (a->o[a->box->face[k]] - a->o[a->box->back[k]]));
        cb = v3_madd(cb, ub[k], 0.5 * (b->o[b->box->face[k]] - b->o[b->box->back[k]]));
        size += ha[k] + hb[k];
    }
    vec3 t = v3_sub(cb, ca);
    size += fabs(t.x) + fabs(t.y) + fabs(t.z);
    vec3 m[9];
    double sep[9][2], tol[9], best = -INFINITY;
    bool clear[9];
    for (int p = 0; p < 9; p++) {
        int ka = p / 3, kb = p % 3, a1 = ka == 0 ? 1 : 0, a2 = ka == 2 ? 1 : 2, b1 = kb == 0 ? 1 : 0, b2 = kb == 2 ? 1 : 2;
        m[p] = v3_cross(ua[ka], ub[kb]);
        /* near parallel (|m| < 1e-6, under 0.2 seconds of arc: boxes stacked square) any pair
         * may cross; the general loop tests them faster */
        double len = v3_len(m[p]);
        if (len < 1e-6) return false;
        /* the Gauss test's own numbers are these four dots (the frames are orthonormal) */
        tol[p] = 1e-8 * len;
        double da1 = v3_dot(m[p], ua[a1]), da2 = v3_dot(m[p], ua[a2]), db1 = v3_dot(m[p], ub[b1]), db2 = v3_dot(m[p], ub[b2]);
        clear[p] = len >= 1e-3 && fabs(da1) > tol[p] && fabs(da2) > tol[p] && fabs(db1) > tol[p] && fabs(db2) > tol[p];
        if (!clear[p]) continue;
        double r = ha[a1] * fabs(da1) + ha[a2] * fabs(da2) + hb[b1] * fabs(db1) + hb[b2] * fabs(db2), d = v3_dot(m[p], t);
        sep[p][0] = (d - r) / len, sep[p][1] = (-d - r) / len;
        double larger = sep[p][0] > sep[p][1] ? sep[p][0] : sep[p][1];
        if (larger > best) best = larger;
    }
    double keep = best - 1e-9 * size; /* round-off of either measure is far below this */
    memset(mask, 0, 12 * sizeof *mask);
    for (int p = 0; p < 9; p++) {
        int ka = p / 3, kb = p % 3;
        for (int sign = 0; sign < 2; sign++) {
            if (clear[p] && sep[p][sign] < keep) continue;
            vec3 ms = sign ? v3_scale(m[p], -1.0) : m[p];
            /* A's arc holds ms; B's arcs are its faces' normals turned round: they hold -ms */
            uint32_t on_a = box_arcs(a->box, ua, ka, ms, tol[p]), on_b = box_arcs(b->box, ub, kb, v3_scale(ms, -1.0), tol[p]);
            for (int i = 0; i < 12; i++)
                if (on_a & (1u << i)) mask[i] |= on_b;
        }
    }
    return true;
}

/* poly_edge_query of two boxes: the pairs box_edge_candidates leaves (one or two of 144 where
 * the boxes are turned), each tested and measured with the very expressions of the general
 * loop, in its order: the same result to the bit (but for which axis shows the boxes apart). */
static double box_edge_query(const world_poly *a, const world_poly *b, const uint32_t try_b[12], double margin,
                             int32_t *edge_a, int32_t *edge_b, vec3 *axis_out)
{
    double best = -INFINITY;
    for (int32_t i = 0; i < 12; i++) {
        if (!try_b[i]) continue;
        vec3 pa = a->v[a->edges[2 * i]], qa = a->v[a->edges[2 * i + 1]], da = v3_sub(qa, pa);
        vec3 na = a->edge_normals[2 * i], nb = a->edge_normals[2 * i + 1];
        vec3 bxa = v3_cross(nb, na);
        double length_a = v3_len(da);
        for (int32_t j = 0; j < 12; j++) {
            if (!(try_b[i] & (1u << j))) continue;
            double cba = v3_dot(v3_scale(b->n[b->edge_faces[2 * j]], -1.0), bxa);
            double dba = v3_dot(v3_scale(b->n[b->edge_faces[2 * j + 1]], -1.0), bxa);
            if (!(cba * dba < 0.0)) continue;
            vec3 arc_dxc = v3_cross(v3_scale(b->edge_normals[2 * j + 1], -1.0), v3_scale(b->edge_normals[2 * j], -1.0));
            double adc = v3_dot(na, arc_dxc), bdc = v3_dot(nb, arc_dxc);
            if (!(adc * bdc < 0.0 && cba * bdc > 0.0)) continue;
            vec3 pb = b->v[b->edges[2 * j]], db = v3_sub(b->v[b->edges[2 * j + 1]], pb), axis;
            double sep;
            if (!edge_pair_separation(pa, da, length_a, pb, db, v3_len(db), a->center, &axis, &sep)) continue;
            if (sep > best) best = sep, *edge_a = i, *edge_b = j, *axis_out = axis;
            if (best > margin) return best;
        }
    }
    return best;
}

/* Largest separation along the cross products of A's and B's edges that bound a face of the
 * Minkowski difference; stops once one separates them by more than `margin`. */
double poly_edge_query(const world_poly *a, const world_poly *b, double margin, int32_t *edge_a, int32_t *edge_b,
                       vec3 *axis_out)
{
    uint32_t try_b[12];
    if (a->box && b->box && box_edge_candidates(a, b, try_b))
        return box_edge_query(a, b, try_b, margin, edge_a, edge_b, axis_out);
    /* B's arcs (its faces' normals turned round) and their cross products, once per pair
     * rather than once per edge of A: the same numbers minkowski_face would compute */
    vec3 arc_c[EDGE_ARCS_MAX], arc_d[EDGE_ARCS_MAX], arc_dxc[EDGE_ARCS_MAX];
    double length_b[EDGE_ARCS_MAX]; /* and B's edges' lengths */
    bool cached = b->edge_count <= EDGE_ARCS_MAX;
    for (int32_t j = 0; cached && j < b->edge_count; j++) {
        arc_c[j] = v3_scale(b->edge_normals[2 * j], -1.0), arc_d[j] = v3_scale(b->edge_normals[2 * j + 1], -1.0);
        arc_dxc[j] = v3_cross(arc_d[j], arc_c[j]);
        length_b[j] = v3_len(v3_sub(b->v[b->edges[2 * j + 1]], b->v[b->edges[2 * j]]));
    }
    /* each arc of B ends at one of its faces' normals (turned round): the side of A's arc's
     * plane each face is on, once per face rather than twice per edge */
    double side[FACE_SIDES_MAX];
    bool by_face = cached && b->edge_faces && b->face_count <= FACE_SIDES_MAX;
    double best = -INFINITY;
    for (int32_t i = 0; i < a->edge_count; i++) {
        vec3 pa = a->v[a->edges[2 * i]], qa = a->v[a->edges[2 * i + 1]], da = v3_sub(qa, pa);
        vec3 na = a->edge_normals[2 * i], nb = a->edge_normals[2 * i + 1];
        vec3 bxa = v3_cross(nb, na);
        double length_a = v3_len(da);
        for (int32_t f = 0; by_face && f < b->face_count; f++) side[f] = v3_dot(v3_scale(b->n[f], -1.0), bxa);
        for (int32_t j = 0; j < b->edge_count; j++) {
            if (cached) { /* minkowski_face(na, nb, arc_c[j], arc_d[j]), its cross products reused */
                double cba = by_face ? side[b->edge_faces[2 * j]] : v3_dot(arc_c[j], bxa);
                double dba = by_face ? side[b->edge_faces[2 * j + 1]] : v3_dot(arc_d[j], bxa);
                if (!(cba * dba < 0.0)) continue;
                double adc = v3_dot(na, arc_dxc[j]), bdc = v3_dot(nb, arc_dxc[j]);
                if (!(adc * bdc < 0.0 && cba * bdc > 0.0)) continue;
            } else {
                vec3 nc = v3_scale(b->edge_normals[2 * j], -1.0), nd = v3_scale(b->edge_normals[2 * j + 1], -1.0);
                if (!minkowski_face(na, nb, nc, nd)) continue;
            }
            vec3 pb = b->v[b->edges[2 * j]], db = v3_sub(b->v[b->edges[2 * j + 1]], pb), axis;
            double sep;
            if (!edge_pair_separation(pa, da, length_a, pb, db, cached ? length_b[j] : v3_len(db), a->center, &axis,
                                      &sep))
                continue;
            if (sep > best) best = sep, *edge_a = i, *edge_b = j, *axis_out = axis;
            if (best > margin) return best;
        }
    }
    return best;
}

/* --- contact manifolds ------------------------------------------------------------------------ */

static double triangle_area(vec3 a, vec3 b, vec3 c, vec3 n) { return v3_dot(v3_cross(v3_sub(b, a), v3_sub(c, a)), n); }

/* Keeps at most four points: the deepest, the one farthest from it, and the two that span
 * the largest area with them (Gregorius' contact reduction). */
int32_t reduce_four(rigid_contact *c, int32_t count, vec3 normal)
{
    if (count <= 4) return count;
    int32_t pick[4] = {0, -1, -1, -1}, picked = 1;
    for (int32_t i = 1; i < count; i++)
        if (c[i].separation < c[pick[0]].separation) pick[0] = i;
    double best = 0.0; /* strictly positive: points that coincide add nothing */
    for (int32_t i = 0; i < count; i++) {
        double d = v3_len2(v3_sub(c[i].point, c[pick[0]].point));
        if (d > best) best = d, pick[1] = i;
    }
    double side = 1.0;
    if (pick[1] >= 0) {
        picked = 2, best = 0.0;
        for (int32_t i = 0; i < count; i++) {
            double area = triangle_area(c[pick[0]].point, c[pick[1]].point, c[i].point, normal);
            if (fabs(area) > best) best = fabs(area), pick[2] = i, side = area >= 0.0 ? 1.0 : -1.0;
        }
    }
    if (pick[2] >= 0) {
        picked = 3, best = 0.0;
        for (int32_t i = 0; i < count; i++) {
            /* most outside the triangle picked so far */
            double worst = fmin(fmin(side * triangle_area(c[pick[0]].point, c[pick[1]].point, c[i].point, normal),
                                     side * triangle_area(c[pick[1]].point, c[pick[2]].point, c[i].point, normal)),
                                side * triangle_area(c[pick[2]].point, c[pick[0]].point, c[i].point, normal));
            if (worst < best) best = worst, pick[3] = i;
        }
        if (pick[3] >= 0) picked = 4;
    }
    rigid_contact kept[4];
    for (int k = 0; k < picked; k++) kept[k] = c[pick[k]];
    memcpy(c, kept, (size_t)picked * sizeof *c);
    return picked;
}

/* Clips the incident face of `inc` against the reference face of `ref`; the normal points
 * from B to A, and contact points lie on B. */
int32_t poly_face_contact(const world_poly *ref, int32_t face, const world_poly *inc, bool ref_is_b, double margin,
                          rigid_contact *out)
{
    vec3 nr = ref->n[face];
    int32_t inc_face = 0;
    double lowest = INFINITY;
    for (int32_t f = 0; f < inc->face_count; f++) {
        double d = v3_dot(inc->n[f], nr);
        if (d < lowest) lowest = d, inc_face = f;
    }
    vec3 poly[POLYGON_MAX], clipped[POLYGON_MAX];
    int32_t count = 0;
    for (int32_t k = inc->face_first[inc_face]; k < inc->face_first[inc_face + 1] && count < POLYGON_MAX; k++)
        poly[count++] = inc->v[inc->face_loops[k]];
    int32_t first = ref->face_first[face], size = ref->face_first[face + 1] - first;
    for (int32_t k = 0; k < size && count > 0; k++) {
        vec3 p0 = ref->v[ref->face_loops[first + k]], p1 = ref->v[ref->face_loops[first + (k + 1) % size]];
        vec3 side = v3_cross(v3_sub(p1, p0), nr); /* outward from the face's edge */
        int32_t kept = 0;
        for (int32_t i = 0; i < count; i++) { /* Sutherland-Hodgman */
            vec3 a = poly[i], b = poly[(i + 1) % count];
            double da = v3_dot(side, v3_sub(a, p0)), db = v3_dot(side, v3_sub(b, p0));
            if (da <= 0.0 && kept < POLYGON_MAX) clipped[kept++] = a;
            if (((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0)) && kept < POLYGON_MAX)
                clipped[kept++] = v3_madd(a, v3_sub(b, a), da / (da - db));
        }
        memcpy(poly, clipped, (size_t)kept * sizeof *poly);
        count = kept;
    }
    rigid_contact found[POLYGON_MAX];
    int32_t n = 0;
    for (int32_t i = 0; i < count; i++) {
        double depth = v3_dot(nr, poly[i]) - ref->o[face];
        if (depth > margin) continue;
        found[n].point = ref_is_b ? v3_madd(poly[i], nr, -depth) : poly[i];
        found[n].normal = ref_is_b ? nr : v3_scale(nr, -1.0);
        found[n].separation = depth;
        n++;
    }
    n = reduce_four(found, n, nr);
    memcpy(out, found, (size_t)n * sizeof *out);
    return n;
}

/* The contact of a's edge ea and b's edge eb, apart by `separation` along `axis` (from A to
 * B): at the closest points, on b's edge. */
rigid_contact poly_edge_contact(const world_poly *a, int32_t ea, const world_poly *b, int32_t eb, vec3 axis,
                                double separation)
{
    vec3 p0 = a->v[a->edges[2 * ea]], p1 = a->v[a->edges[2 * ea + 1]];
    vec3 q0 = b->v[b->edges[2 * eb]], q1 = b->v[b->edges[2 * eb + 1]];
    double s, t;
    closest_points_segments(p0, p1, q0, q1, &s, &t);
    return (rigid_contact){v3_madd(q0, v3_sub(q1, q0), t), v3_scale(axis, -1.0), separation};
}

/* Separating-axis test of two polytopes; contacts (normal from B to A) into out[]. */
int32_t collide_polys(const world_poly *a, const world_poly *b, double margin, rigid_contact *out)
{
    int32_t fa = -1, fb = -1, ea = -1, eb = -1;
    double sa = poly_face_query(a, b, margin, &fa);
    if (sa > margin) return 0;
    double sb = poly_face_query(b, a, margin, &fb);
    if (sb > margin) return 0;
    vec3 axis = v3(0, 0, 0);
    double se = poly_edge_query(a, b, margin, &ea, &eb, &axis);
    if (se > margin) return 0;
    /* prefer faces, they give whole manifolds, and A's face to B's: the other must be clearly
     * better (relative tolerances as in Gregorius' SAT; nearly parallel edges give an axis
     * close to a face normal whose separation differs from the face's by round-off) */
    const double edge_relative = 0.9, face_relative = 0.98, absolute = 0.1 * margin;
    if (ea >= 0 && se > edge_relative * fmax(sa, sb) + absolute) {
        out[0] = poly_edge_contact(a, ea, b, eb, axis, se);
        return 1;
    }
    if (sb > face_relative * sa + absolute) return poly_face_contact(b, fb, a, true, margin, out);
    return poly_face_contact(a, fa, b, false, margin, out);
}

/* A sphere (centre c, radius r) against a polytope; normal from the polytope to the sphere. */
int32_t sphere_poly(vec3 c, double r, const world_poly *p, double margin, rigid_contact *out)
{
    int32_t face = 0;
    double deepest = -INFINITY;
    for (int32_t f = 0; f < p->face_count; f++) {
        double d = v3_dot(p->n[f], c) - p->o[f];
        if (d > deepest) deepest = d, face = f;
    }
    if (deepest > r + margin) return 0;
    bool inside_loop = true; /* does c project into the nearest face's polygon? */
    int32_t first = p->face_first[face], size = p->face_first[face + 1] - first;
    for (int32_t k = 0; k < size && inside_loop; k++) {
        vec3 p0 = p->v[p->face_loops[first + k]], p1 = p->v[p->face_loops[first + (k + 1) % size]];
        inside_loop = v3_dot(v3_cross(v3_sub(p1, p0), p->n[face]), v3_sub(c, p0)) <= 0.0;
    }
    if (deepest <= 0.0 || (inside_loop && p->face_count > 1)) {
        out->normal = p->n[face];
        out->point = v3_madd(c, p->n[face], -deepest);
        out->separation = deepest - r;
        return 1;
    }
    /* outside: the nearest point of the boundary */
    double best = INFINITY;
    vec3 nearest = c;
    if (inside_loop) best = deepest * deepest, nearest = v3_madd(c, p->n[face], -deepest);
    for (int32_t e = 0; e < p->edge_count; e++) {
        double s, t;
        vec3 q0 = p->v[p->edges[2 * e]], q1 = p->v[p->edges[2 * e + 1]];
        double d2 = closest_points_segments(c, c, q0, q1, &s, &t);
        if (d2 < best) best = d2, nearest = v3_madd(q0, v3_sub(q1, q0), t);
    }
    double d = sqrt(best);
    if (d > r + margin) return 0;
    out->normal = d > 0.0 ? v3_scale(v3_sub(c, nearest), 1.0 / d) : p->n[face];
    out->point = nearest;
    out->separation = d - r;
    return 1;
}
