#include "rigid_round_solid.h"

#include "collision_geometry.h"

#define PI 3.14159265358979323846

enum { RIM_SAMPLES = 16, PROFILE_MAX = 4 };

/* A unit vector across the unit vector u. */
static vec3 across_of(vec3 u)
{
    vec3 pick = fabs(u.x) < 0.6 ? v3(1, 0, 0) : (fabs(u.y) < 0.6 ? v3(0, 1, 0) : v3(0, 0, 1));
    vec3 c = v3_cross(u, pick);
    return v3_scale(c, 1.0 / v3_len(c));
}

bool rigid_round_solid_proxy(bool cone, vec3 base, vec3 top, double radius, polytope *out)
{
    vec3 axis = v3_sub(top, base);
    vec3 u = v3_scale(axis, 1.0 / v3_len(axis)), e1 = across_of(u), e2 = v3_cross(u, e1);
    /* corners at r / cos(π/N): the sides touch the circle at their middles */
    double corner = radius / cos(PI / PROXY_SIDES);
    vec3 points[2 * PROXY_SIDES];
    int32_t count = 0;
    for (int ring = 0; ring < (cone ? 1 : 2); ring++)
        for (int k = 0; k < PROXY_SIDES; k++) {
            double angle = 2.0 * PI * k / PROXY_SIDES;
            vec3 at = ring == 0 ? base : top;
            points[count++] = v3_add(at, v3_add(v3_scale(e1, corner * cos(angle)), v3_scale(e2, corner * sin(angle))));
        }
    if (cone) points[count++] = top;
    return polytope_from_points(points, count, out);
}

round_solid round_solid_placed(bool cone, vec3 x, mat3 r, vec3 base, vec3 top, double radius, world_poly proxy)
{
    vec3 d = v3_sub(top, base);
    double height = v3_len(d);
    vec3 u = v3_scale(d, 1.0 / height);
    proxy.center = v3_add(x, m3_mul_v(r, v3_madd(base, u, 0.5 * height)));
    return (round_solid){.cone = cone, .base = v3_add(x, m3_mul_v(r, base)), .axis = m3_mul_v(r, u),
                         .across = m3_mul_v(r, across_of(u)), .height = height, .radius = radius, .proxy = proxy};
}

void round_solid_mass_properties(bool cone, vec3 base, vec3 top, double radius, mass_properties *out)
{
    vec3 d = v3_sub(top, base);
    double h = v3_len(d), r2 = radius * radius;
    vec3 u = v3_scale(d, 1.0 / h);
    double volume, along, across;
    if (cone) {
        volume = PI * r2 * h / 3.0;
        along = 0.3 * volume * r2;
        across = volume * (3.0 * r2 / 20.0 + 3.0 * h * h / 80.0);
        out->center = v3_madd(base, u, 0.25 * h);
    } else {
        volume = PI * r2 * h;
        along = 0.5 * volume * r2;
        across = volume * (3.0 * r2 + h * h) / 12.0;
        out->center = v3_madd(base, u, 0.5 * h);
    }
    double uv[3] = {u.x, u.y, u.z};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) out->inertia.m[i][k] = (i == k ? across : 0.0) + (along - across) * uv[i] * uv[k];
    out->volume = volume;
}

/* The section's corners (ρ, t), counter-clockwise; the last edge (back to the first) runs
 * along the axis and is not surface. */
static int32_t profile(const round_solid *s, double rho[PROFILE_MAX], double t[PROFILE_MAX])
{
    rho[0] = 0.0, t[0] = 0.0, rho[1] = s->radius, t[1] = 0.0;
    if (s->cone) {
        rho[2] = 0.0, t[2] = s->height;
        return 3;
    }
    rho[2] = s->radius, t[2] = s->height, rho[3] = 0.0, t[3] = s->height;
    return 4;
}

/* p's height above the base, distance from the axis and direction away from it. */
static void cylindrical(const round_solid *s, vec3 p, double *t, double *rho, vec3 *e)
{
    vec3 q = v3_sub(p, s->base);
    *t = v3_dot(q, s->axis);
    vec3 radial = v3_madd(q, s->axis, -*t);
    *rho = v3_len(radial);
    *e = *rho > 1e-12 * (s->radius + s->height) ? v3_scale(radial, 1.0 / *rho) : s->across;
}

double round_solid_distance(const round_solid *s, vec3 p, vec3 *nearest, vec3 *outward)
{
    double rho[PROFILE_MAX], t[PROFILE_MAX], pt, pr;
    vec3 e;
    int32_t n = profile(s, rho, t);
    cylindrical(s, p, &pt, &pr, &e);
    /* in the section: inside all surface edges, or the nearest point of them */
    double deepest = -INFINITY, closest = INFINITY, near_r = 0.0, near_t = 0.0, nr = 0.0, nt = 0.0;
    for (int32_t k = 0; k + 1 < n; k++) {
        double dr = rho[k + 1] - rho[k], dt = t[k + 1] - t[k], len = sqrt(dr * dr + dt * dt);
        double out_r = dt / len, out_t = -dr / len; /* outward normal of a counter-clockwise edge */
        double side = out_r * (pr - rho[k]) + out_t * (pt - t[k]);
        if (side > deepest) deepest = side, nr = out_r, nt = out_t;
        double along = fmin(1.0, fmax(0.0, ((pr - rho[k]) * dr + (pt - t[k]) * dt) / (len * len)));
        double cr = rho[k] + along * dr, ct = t[k] + along * dt;
        double d2 = (pr - cr) * (pr - cr) + (pt - ct) * (pt - ct);
        if (d2 < closest) closest = d2, near_r = cr, near_t = ct;
    }
    double distance;
    if (deepest <= 0.0) { /* inside: out through the nearest edge */
        distance = deepest;
        near_r = pr - deepest * nr, near_t = pt - deepest * nt;
    } else {
        distance = sqrt(closest);
        if (distance > 0.0) nr = (pr - near_r) / distance, nt = (pt - near_t) / distance;
    }
    *nearest = v3_add(s->base, v3_add(v3_scale(s->axis, near_t), v3_scale(e, near_r)));
    *outward = v3_add(v3_scale(e, nr), v3_scale(s->axis, nt));
    return distance;
}

/* The solid's point farthest along d. */
static vec3 support(const round_solid *s, vec3 d)
{
    double rho[PROFILE_MAX], t[PROFILE_MAX];
    int32_t n = profile(s, rho, t);
    double a = v3_dot(d, s->axis);
    vec3 radial = v3_madd(d, s->axis, -a);
    double rd = v3_len(radial);
    vec3 e = rd > 1e-12 * v3_len(d) ? v3_scale(radial, 1.0 / rd) : s->across;
    int32_t best = 0;
    for (int32_t k = 1; k < n; k++)
        if (rho[k] * rd + t[k] * a > rho[best] * rd + t[best] * a) best = k;
    return v3_add(s->base, v3_add(v3_scale(s->axis, t[best]), v3_scale(e, rho[best])));
}

/* Whether x lies over face f's polygon. */
static bool over_face(const world_poly *p, int32_t f, vec3 x)
{
    int32_t first = p->face_first[f], size = p->face_first[f + 1] - first;
    for (int32_t k = 0; k < size; k++) {
        vec3 p0 = p->v[p->face_loops[first + k]], p1 = p->v[p->face_loops[first + (k + 1) % size]];
        if (v3_dot(v3_cross(v3_sub(p1, p0), p->n[f]), v3_sub(x, p0)) > 0.0) return false;
    }
    return true;
}

/* The solid against the plane of b's face f: each rim's deepest point, points round a rim lying
 * level with the face (a cap on it), and a cone's apex, where they lie over the face within the
 * margin. */
static int32_t against_face(const round_solid *s, const world_poly *b, int32_t f, double margin, rigid_contact *out)
{
    vec3 n = b->n[f];
    double rho[PROFILE_MAX], t[PROFILE_MAX];
    int32_t corners = profile(s, rho, t);
    vec3 down = v3_scale(n, -1.0), radial = v3_madd(down, s->axis, -v3_dot(down, s->axis));
    double rd = v3_len(radial);
    vec3 deep = rd > 1e-9 ? v3_scale(radial, 1.0 / rd) : s->across, other = v3_cross(s->axis, s->across);
    rigid_contact found[PROFILE_MAX * (RIM_SAMPLES + 1)];
    int32_t count = 0;
    for (int32_t k = 0; k < corners; k++) {
        if (rho[k] == 0.0 && !(s->cone && k == 2)) continue; /* a cap's centre: never deeper than its rim */
        vec3 centre = v3_madd(s->base, s->axis, t[k]);
        /* points round the rim only where it lies within the margin of level with the face (its
         * height varies by 2 ρ sin tilt round it, sin tilt = rd): elsewhere its deepest point is
         * its one contact, and points beside it would only hold a rolling rim back */
        int samples = rho[k] > 0.0 && rho[k] * rd <= margin ? RIM_SAMPLES : 0;
        for (int j = 0; j <= samples; j++) {
            double angle = 2.0 * PI * (j - 1) / RIM_SAMPLES;
            vec3 dir = j == 0 ? deep : v3_add(v3_scale(s->across, cos(angle)), v3_scale(other, sin(angle)));
            vec3 x = v3_madd(centre, dir, rho[k]);
            double sep = v3_dot(n, x) - b->o[f];
            if (sep > margin || !over_face(b, f, x)) continue;
            found[count++] = (rigid_contact){v3_madd(x, n, -sep), n, sep};
        }
    }
    count = reduce_four(found, count, n);
    for (int32_t i = 0; i < count; i++) out[i] = found[i];
    return count;
}

/* Contacts found on the proxy (points on b) measured again from the true surface. */
static int32_t remeasure(const round_solid *s, rigid_contact *c, int32_t count, double margin)
{
    int32_t kept = 0;
    for (int32_t i = 0; i < count; i++) {
        vec3 nearest, outward;
        double d = round_solid_distance(s, c[i].point, &nearest, &outward);
        if (d > margin) continue;
        c[kept++] = (rigid_contact){c[i].point, v3_scale(outward, -1.0), d};
    }
    return kept;
}

int32_t round_solid_poly(const round_solid *s, const world_poly *b, double margin, rigid_contact *out)
{
    const world_poly *a = &s->proxy;
    /* b's faces against the true solid */
    int32_t fb = -1;
    double sb = -INFINITY;
    for (int32_t f = 0; f < b->face_count; f++) {
        double sep = v3_dot(b->n[f], support(s, v3_scale(b->n[f], -1.0))) - b->o[f];
        if (sep > sb) sb = sep, fb = f;
        if (sb > margin) return 0;
    }
    /* the proxy's faces and edges against b (the proxy holds the solid: apart is apart) */
    int32_t fa = -1, ea = -1, eb = -1;
    double sa = poly_face_query(a, b, margin, &fa);
    if (sa > margin) return 0;
    vec3 axis = v3(0, 0, 0);
    double se = poly_edge_query(a, b, margin, &ea, &eb, &axis);
    if (se > margin) return 0;
    /* as collide_polys, faces preferred; here b's face (exact) on a tie */
    const double edge_relative = 0.9, face_relative = 0.98, absolute = 0.1 * margin;
    if (ea >= 0 && se > edge_relative * fmax(sa, sb) + absolute) {
        out[0] = poly_edge_contact(a, ea, b, eb, axis, se);
        return remeasure(s, out, 1, margin);
    }
    if (sa > face_relative * sb + absolute) {
        int32_t n = poly_face_contact(a, fa, b, false, margin, out);
        bool cap = fabs(v3_dot(a->n[fa], s->axis)) > 0.999; /* flat: the proxy's cap is the solid's */
        return cap ? n : remeasure(s, out, n, margin);
    }
    int32_t n = against_face(s, b, fb, margin, out);
    if (n > 0) return n;
    /* nothing of the solid over that face (it meets the face's edge): the proxy's contacts */
    n = collide_polys(a, b, margin, out);
    return remeasure(s, out, n, margin);
}
