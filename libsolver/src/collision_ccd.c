#include "collision_ccd.h"

#include <float.h>
#include <math.h>

#include "collision_bvh.h"
#include "collision_geometry.h"

typedef double (*distance_fn)(const vec3 x[4], double w[4], vec3 *normal);

double vertex_face_distance(const vec3 x[4], double w[4], vec3 *normal)
{
    double bary[3];
    vec3 q = closest_point_triangle(x[0], x[1], x[2], x[3], bary);
    w[0] = 1.0, w[1] = -bary[0], w[2] = -bary[1], w[3] = -bary[2];
    vec3 d = v3_sub(x[0], q);
    double len = v3_len(d);
    if (len > 0.0) {
        *normal = v3_scale(d, 1.0 / len);
    } else {
        vec3 n = v3_cross(v3_sub(x[2], x[1]), v3_sub(x[3], x[1]));
        double nl = v3_len(n);
        *normal = nl > 0.0 ? v3_scale(n, 1.0 / nl) : v3(0, 0, 1);
    }
    return len;
}

double edge_edge_distance(const vec3 x[4], double w[4], vec3 *normal)
{
    double s, u;
    double d2 = closest_points_segments(x[0], x[1], x[2], x[3], &s, &u);
    w[0] = 1.0 - s, w[1] = s, w[2] = -(1.0 - u), w[3] = -u;
    vec3 d = v3_sub(v3_madd(x[0], v3_sub(x[1], x[0]), s), v3_madd(x[2], v3_sub(x[3], x[2]), u));
    double len = sqrt(d2);
    if (len > 0.0) {
        *normal = v3_scale(d, 1.0 / len);
    } else {
        vec3 n = v3_cross(v3_sub(x[1], x[0]), v3_sub(x[3], x[2]));
        double nl = v3_len(n);
        *normal = nl > 0.0 ? v3_scale(n, 1.0 / nl) : v3(0, 0, 1);
    }
    return len;
}

static void lerp4(const vec3 x0[4], const vec3 x1[4], double t, vec3 out[4])
{
    for (int i = 0; i < 4; i++) out[i] = v3_madd(x0[i], v3_sub(x1[i], x0[i]), t);
}

/* The three vectors whose triple product vanishes when the four points are coplanar:
 * vertex-face (b - a, c - a, p - a); edge-edge (x1 - x0, x3 - x2, x2 - x0). */
static void spanning_vectors(const vec3 x[4], bool edge_edge, vec3 *a, vec3 *b, vec3 *c)
{
    if (edge_edge) {
        *a = v3_sub(x[1], x[0]), *b = v3_sub(x[3], x[2]), *c = v3_sub(x[2], x[0]);
    } else {
        *a = v3_sub(x[2], x[1]), *b = v3_sub(x[3], x[1]), *c = v3_sub(x[0], x[1]);
    }
}

typedef struct cubic { double k[4]; } cubic; /* k0 + k1 t + k2 t² + k3 t³ */

static double cubic_at(const cubic *c, double t) { return ((c->k[3] * t + c->k[2]) * t + c->k[1]) * t + c->k[0]; }

static cubic coplanarity_cubic(const vec3 x0[4], const vec3 x1[4], bool edge_edge)
{
    vec3 a0, b0, c0, a1, b1, c1;
    spanning_vectors(x0, edge_edge, &a0, &b0, &c0);
    spanning_vectors(x1, edge_edge, &a1, &b1, &c1);
    vec3 da = v3_sub(a1, a0), db = v3_sub(b1, b0), dc = v3_sub(c1, c0);
    /* (a0 + t da) × (b0 + t db) · (c0 + t dc) */
    vec3 n0 = v3_cross(a0, b0), n1 = v3_add(v3_cross(a0, db), v3_cross(da, b0)), n2 = v3_cross(da, db);
    return (cubic){{v3_dot(n0, c0), v3_dot(n0, dc) + v3_dot(n1, c0), v3_dot(n1, dc) + v3_dot(n2, c0),
                    v3_dot(n2, dc)}};
}

/* Whether the two features stay further apart than tol for all t in [lo, hi]: their boxes
 * over the interval (of the corners at lo and hi: the paths are straight) do not come
 * within tol. */
static bool apart_over(const vec3 x0[4], const vec3 x1[4], int split, double lo, double hi, double tol)
{
    vec3 a[4], b[4];
    lerp4(x0, x1, lo, a);
    lerp4(x0, x1, hi, b);
    return !point_boxes_within(a, b, split, tol);
}

/* Sorted candidate times: roots of the cubic in [0, 1] and its turning points there. A root
 * is dropped as soon as its bracket shows the features too far apart to touch in it (a
 * vertex crossing the plane of a face outside it): it could not be a contact, and the
 * bisection to 1e-15 is most of the cost of a test. */
static int cubic_candidates(const cubic *c, const vec3 x0[4], const vec3 x1[4], int split, double tol,
                            double out[6])
{
    double bounds[4] = {0.0, 0.0, 0.0, 1.0};
    int nb = 1;
    /* turning points: roots of k1 + 2 k2 t + 3 k3 t² */
    double qa = 3.0 * c->k[3], qb = 2.0 * c->k[2], qc = c->k[1];
    double turning[2];
    int nt = 0;
    if (fabs(qa) > 1e-300) {
        double disc = qb * qb - 4.0 * qa * qc;
        if (disc >= 0.0) {
            double sq = sqrt(disc), q = -0.5 * (qb + copysign(sq, qb));
            double r1 = q / qa, r2 = q != 0.0 ? qc / q : r1;
            turning[nt++] = fmin(r1, r2);
            turning[nt++] = fmax(r1, r2);
        }
    } else if (fabs(qb) > 1e-300) {
        turning[nt++] = -qc / qb;
    }
    for (int i = 0; i < nt; i++)
        if (turning[i] > 0.0 && turning[i] < 1.0) bounds[nb++] = turning[i];
    bounds[nb++] = 1.0;
    int n = 0;
    for (int i = 0; i + 1 < nb; i++) {
        double lo = bounds[i], hi = bounds[i + 1];
        double flo = cubic_at(c, lo), fhi = cubic_at(c, hi);
        if (i > 0) out[n++] = lo; /* a turning point: maybe a graze */
        if ((flo < 0.0) == (fhi < 0.0) && flo != 0.0 && fhi != 0.0) continue;
        /* monotone with a sign change: bisect */
        bool apart = false;
        for (int it = 0; it < 60 && hi - lo > 1e-15; it++) {
            if (it % 8 == 0 && (apart = apart_over(x0, x1, split, lo, hi, tol))) break;
            double mid = 0.5 * (lo + hi), fm = cubic_at(c, mid);
            if ((fm < 0.0) == (flo < 0.0) && fm != 0.0) lo = mid, flo = fm;
            else hi = mid;
        }
        if (!apart) out[n++] = 0.5 * (lo + hi);
    }
    /* sort (at most 5 entries) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            double tmp = out[j];
            out[j] = out[j - 1], out[j - 1] = tmp;
        }
    return n;
}

static bool approaching(const vec3 x0[4], const vec3 x1[4], const double w[4], vec3 normal)
{
    vec3 v = v3(0, 0, 0);
    for (int i = 0; i < 4; i++) v = v3_madd(v, v3_sub(x1[i], x0[i]), w[i]);
    return v3_dot(v, normal) < 0.0;
}

/* Earliest t in [lo, hi] with distance <= tol, given distance(lo) > tol >= distance(hi). */
static double first_contact(const vec3 x0[4], const vec3 x1[4], distance_fn dist, double tol,
                            double lo, double hi)
{
    for (int it = 0; it < 50 && hi - lo > 1e-14; it++) {
        double mid = 0.5 * (lo + hi), w[4];
        vec3 x[4], n;
        lerp4(x0, x1, mid, x);
        if (dist(x, w, &n) <= tol) hi = mid;
        else lo = mid;
    }
    return hi;
}

/* For primitives that stay coplanar or parallel: search the distance itself. Between samples
 * the distance changes by at most `reach` (twice the largest relative motion per sample), so
 * only dips that could come within the tolerance are refined. */
static bool sampled_search(const vec3 x0[4], const vec3 x1[4], distance_fn dist, double tol, double motion,
                           double *t_hit)
{
    enum { SAMPLES = 64 };
    double d[SAMPLES + 1], w[4], reach = 2.0 * motion / SAMPLES;
    vec3 x[4], n;
    for (int k = 0; k <= SAMPLES; k++) {
        lerp4(x0, x1, (double)k / SAMPLES, x);
        d[k] = dist(x, w, &n);
        if (d[k] <= tol) {
            *t_hit = k == 0 ? 0.0 : first_contact(x0, x1, dist, tol, (k - 1.0) / SAMPLES, (double)k / SAMPLES);
            return true;
        }
        /* a dip between samples: golden-section search for the minimum around sample k-1 */
        if (k >= 2 && d[k - 1] <= d[k - 2] && d[k - 1] <= d[k] && d[k - 1] - reach <= tol) {
            double lo = (k - 2.0) / SAMPLES, hi = (double)k / SAMPLES, g = 0.5 * (sqrt(5.0) - 1.0);
            for (int it = 0; it < 60 && hi - lo > 1e-14; it++) {
                double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo), w1[4], w2[4];
                vec3 y1[4], y2[4];
                lerp4(x0, x1, m1, y1);
                lerp4(x0, x1, m2, y2);
                double f1 = dist(y1, w1, &n), f2 = dist(y2, w2, &n);
                if (f1 <= tol) {
                    *t_hit = first_contact(x0, x1, dist, tol, (k - 2.0) / SAMPLES, m1);
                    return true;
                }
                if (f1 < f2) hi = m2;
                else lo = m1;
            }
        }
    }
    return false;
}

static bool ccd(const vec3 x0[4], const vec3 x1[4], double tol, bool edge_edge, ccd_hit *hit)
{
    distance_fn dist = edge_edge ? edge_edge_distance : vertex_face_distance;
    double scale = 0.0, motion = 0.0;
    vec3 shift0 = v3_sub(x1[0], x0[0]);
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) {
            scale = fmax(scale, fabs(v3_comp(v3_sub(x0[i], x0[0]), k)));
            scale = fmax(scale, fabs(v3_comp(v3_sub(x1[i], x0[0]), k)));
        }
        motion = fmax(motion, v3_len(v3_sub(v3_sub(x1[i], x0[i]), shift0)));
    }
    if (!(scale > 0.0) || !isfinite(scale)) return false;
    /* moving together (or not at all): the distance stays what it was */
    if (motion == 0.0) return false;

    double t_hit = -1.0, w[4];
    vec3 x[4], n;
    /* already in contact and closing in */
    if (dist(x0, w, &n) <= tol && approaching(x0, x1, w, n)) t_hit = 0.0;

    cubic c = coplanarity_cubic(x0, x1, edge_edge);
    double kmax = fmax(fmax(fabs(c.k[0]), fabs(c.k[1])), fmax(fabs(c.k[2]), fabs(c.k[3])));
    if (t_hit < 0.0 && kmax <= 1e-9 * scale * scale * scale) {
        /* coplanar or parallel throughout: the cubic says nothing */
        double t;
        if (sampled_search(x0, x1, dist, tol, motion, &t)) t_hit = t;
    } else if (t_hit < 0.0) {
        double times[6];
        int count = cubic_candidates(&c, x0, x1, edge_edge ? 2 : 1, tol, times);
        for (int i = 0; i < count && t_hit < 0.0; i++) {
            lerp4(x0, x1, times[i], x);
            if (dist(x, w, &n) <= tol) t_hit = times[i];
        }
        if (t_hit < 0.0) { /* ending in contact */
            if (dist(x1, w, &n) <= tol) t_hit = 1.0;
        }
    }
    if (t_hit < 0.0) return false;

    lerp4(x0, x1, t_hit, x);
    hit->t = t_hit;
    hit->distance = dist(x, hit->w, &hit->normal);
    /* at contact the closest-point direction is unreliable: use the plane's normal, turned
     * towards the side the first primitive started on */
    vec3 a, b, cvec;
    spanning_vectors(x, edge_edge, &a, &b, &cvec);
    vec3 plane = v3_cross(a, b);
    double plen = v3_len(plane);
    if (plen > 1e-12 * scale * scale) {
        plane = v3_scale(plane, 1.0 / plen);
        double side = edge_edge ? -cubic_at(&c, 0.0) : cubic_at(&c, 0.0);
        if (side == 0.0) {
            double w0[4];
            vec3 n0;
            dist(x0, w0, &n0);
            side = v3_dot(n0, plane);
            if (side == 0.0) side = approaching(x0, x1, hit->w, plane) ? 1.0 : -1.0;
        }
        hit->normal = side >= 0.0 ? plane : v3_scale(plane, -1.0);
    }
    return true;
}

bool ccd_vertex_face(const vec3 x0[4], const vec3 x1[4], double tolerance, ccd_hit *hit)
{
    return ccd(x0, x1, tolerance, false, hit);
}

bool ccd_edge_edge(const vec3 x0[4], const vec3 x1[4], double tolerance, ccd_hit *hit)
{
    return ccd(x0, x1, tolerance, true, hit);
}
