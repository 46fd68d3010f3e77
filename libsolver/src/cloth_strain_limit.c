#include "cloth_strain_limit.h"

#include "cloth_pin_reach.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sweeps before the projection gives up on a step (its report says what is left). A landing at
 * 20 m/s, whose solve stretches the contact ring by some 100%, takes a few dozen. */
enum { MAX_SWEEPS = 400, PARALLEL_ELEMENTS = 2048 };

#define HEAVY STRAIN_HEAVY_FACTOR

typedef struct limits {
    double lo, hi; /* bounds on σ: 0 and +inf where a side is not limited */
} limits;

static limits limits_of(const cloth_model *m)
{
    return (limits){m->max_compression > 0.0 ? 1.0 - m->max_compression : 0.0,
                    m->max_stretch > 0.0 ? 1.0 + m->max_stretch : INFINITY};
}

/* The deformation F = [w_u w_v] = ∂x/∂u of triangle t at x, and its singular values from
 * FᵀF = [[a, b], [b, d]]:  σ² = (a + d)/2 ± sqrt(((a - d)/2)² + b²). */
typedef struct deformation {
    vec3 wu, wv;
    double a, b, d, s1, s2; /* s1 >= s2 >= 0 */
} deformation;

static deformation deformation_of(const cloth *c, int32_t t, const double *x)
{
    const int32_t *tri = &c->model.triangles[3 * (size_t)t];
    const tri_rest *r = &c->model.rest[t];
    deformation f = {.wu = v3(0, 0, 0), .wv = v3(0, 0, 0)};
    for (int k = 0; k < 3; k++) {
        vec3 p = v3_load(&x[3 * (size_t)tri[k]]);
        f.wu = v3_madd(f.wu, p, r->cu[k]);
        f.wv = v3_madd(f.wv, p, r->cv[k]);
    }
    f.a = v3_dot(f.wu, f.wu), f.b = v3_dot(f.wu, f.wv), f.d = v3_dot(f.wv, f.wv);
    double mean = 0.5 * (f.a + f.d), radius = hypot(0.5 * (f.a - f.d), f.b);
    f.s1 = sqrt(mean + radius);
    f.s2 = sqrt(fmax(mean - radius, 0.0));
    return f;
}

/* Relative excess of σ over the limits: σ_max / hi - 1 or 1 - σ_min / lo, whichever is larger. */
static double excess_of(const deformation *f, limits l)
{
    double over = f->s1 / l.hi - 1.0, under = l.lo > 0.0 ? 1.0 - f->s2 / l.lo : 0.0;
    return fmax(0.0, fmax(over, under));
}

/* A projected triangle lands this fraction of its limit inside it (10% stretch: at 9.99%), so
 * the small moves its neighbours' projections make later do not take it out again, and the
 * sweeps end after a few rounds instead of closing in on the limit geometrically. */
#define STRAIN_MARGIN 1e-3

static double clamp(double s, limits l)
{
    double lo = l.lo > 0.0 ? l.lo + STRAIN_MARGIN * (1.0 - l.lo) : 0.0, hi = 1.0 + (1.0 - STRAIN_MARGIN) * (l.hi - 1.0);
    return fmin(fmax(s, lo), hi);
}

/* A pinch: pins, or vertices a collider holds (heavy), and a one-way body that does not give
 * (it moves as if the cloth were not there) can stretch a triangle beyond its limit in a way no
 * projection undoes; each step it then moved the free vertices between them by the same
 * distance whatever the step's length, and changed their velocity by that distance / h: a box
 * that pushed a pinned sheet 0.5 m down drove them at 0.74 m / h (2.8e3 m/s at h = 8e-5 s; the
 * step halved, the speed doubled, down to min_step: tests/c/test_pinch.c). So in a step
 * world_step.c finds to be a pinch (scratch.strain_recovers: the projection would have changed
 * a velocity by more than PINCH_SPEED), an element that starts the step beyond a limit is
 * brought back towards it at most at STRAIN_RECOVERY_RATE
 * (strain per second): what the step adds to its strain is taken away, the rest over the next
 * steps, the velocity change bounded by the rate times its size. Elements that start the step
 * within STRAIN_HELD_EXCESS of their limits are projected into them as before: a stalled sweep
 * leaves far less (the drape: below 1e-5; the pinch: over 100%). The limit is what gives way in
 * a pinch: the step counts in sb_world_stats.strain_violations.
 * Elements with a vertex in a tangle (a region the untangling's last analysis found crossed,
 * or a vertex it pulls: untangle.h) are projected into their limits as before, however far
 * beyond them they start: there the excess is the untangling's doing (a pulled vertex leads its
 * neighbours like a pin), not a pinch, and the projection's full pull is what brings the
 * neighbours through with it; a bounded rate there left the hostile fold's tangle larger.
 * Where a body feels the cloth as well (issue 32): it takes at most what stops it from the
 * limit's pull (two_way_coupling.h), so it gives way no more than a one-way body once it rests
 * in the cloth, and such steps are pinches too. */
#define STRAIN_RECOVERY_RATE 24.0 /* 1/s: an excess of up to 100% gone within a frame of 1/24 s */
#define STRAIN_HELD_EXCESS 0.05   /* relative excess over a limit at the step's start */

/* Whether any of the n vertices v of an element is in a tangle (see above). */
static bool in_tangle(const cloth *c, const int32_t *v, int n)
{
    const int32_t *tangle = c->scratch.tangle;
    const uint8_t *pulled = c->scratch.untangling;
    for (int k = 0; k < n; k++)
        if ((tangle && tangle[v[k]] >= 0) || (pulled && pulled[v[k]])) return true;
    return false;
}

/* The limits an element that measured σ from start_lo to start_hi at the step's start is held to
 * over a step of h. */
static limits recovering(limits l, double start_lo, double start_hi, double h)
{
    double back = STRAIN_RECOVERY_RATE * h;
    return (limits){l.lo > 0.0 ? fmin(l.lo, start_lo + back) : 0.0, fmax(l.hi, start_hi - back)};
}

/* Projects triangle t: F = σ1 U1 V1ᵀ + σ2 U2 V2ᵀ becomes F' with the σ clamped, the corners'
 * offsets from corner 0 are F' d_k, d_k the rest edges (columns of [[cu1, cv1], [cu2, cv2]]⁻¹,
 * as w = [x1-x0 x2-x0] of that matrix), and the triangle is placed where its corners move
 * least by mass: the mass-weighted centre kept, or, with an immovable corner, that corner.
 * Returns the excess it found, 0 where it cannot help (two corners immovable: the third can
 * only go between their targets; or a triangle collapsed to a point); *moved set where it
 * placed the corners anew. */
static double project_triangle(cloth *c, int32_t t, limits l, double h, bool *moved)
{
    cloth_model *m = &c->model;
    deformation f = deformation_of(c, t, c->scratch.x_new);
    double excess = excess_of(&f, l);
    if (excess <= STRAIN_SLACK) return excess;
    const int32_t *tri = &m->triangles[3 * (size_t)t];
    deformation start = deformation_of(c, t, c->state.x);
    if (c->scratch.strain_recovers && excess_of(&start, l) > STRAIN_HELD_EXCESS && !in_tangle(c, tri, 3)) {
        l = recovering(l, start.s2, start.s1, h);
        if ((excess = excess_of(&f, l)) <= STRAIN_SLACK) return excess;
    }
    const uint8_t *held = c->scratch.held;
    int fixed = (held[tri[0]] == STRAIN_FIXED) + (held[tri[1]] == STRAIN_FIXED) + (held[tri[2]] == STRAIN_FIXED);
    if (!(f.s1 > 0.0) || fixed >= 2) return 0.0;

    /* V: eigenvectors of FᵀF, at angle θ = atan2(2b, a - d)/2 and θ + π/2; U_i = F V_i / σ_i */
    double theta = 0.5 * atan2(2.0 * f.b, f.a - f.d), cs = cos(theta), sn = sin(theta);
    vec3 u1 = v3_scale(v3_add(v3_scale(f.wu, cs), v3_scale(f.wv, sn)), 1.0 / f.s1);
    vec3 u2;
    if (f.s2 > 1e-9 * f.s1) {
        u2 = v3_scale(v3_add(v3_scale(f.wu, -sn), v3_scale(f.wv, cs)), 1.0 / f.s2);
    } else {
        /* collapsed onto a line: open it again in the plane the triangle had at the step's start */
        const double *x0 = c->state.x;
        vec3 p0 = v3_load(&x0[3 * (size_t)tri[0]]);
        vec3 n = v3_cross(v3_sub(v3_load(&x0[3 * (size_t)tri[1]]), p0), v3_sub(v3_load(&x0[3 * (size_t)tri[2]]), p0));
        u2 = v3_cross(n, u1);
        double len = v3_len(u2);
        if (!(len > 0.0)) return 0.0;
        u2 = v3_scale(u2, 1.0 / len);
    }
    double s1 = clamp(f.s1, l), s2 = clamp(f.s2, l);
    /* F' α = U1 s1 (V1·α) + U2 s2 (V2·α) for a rest vector α = (du, dv) */
    double du[3], dv[3];
    tri_rest_corners(&m->rest[t], du, dv);
    vec3 p[3], x[3];
    for (int k = 0; k < 3; k++) {
        double along1 = cs * du[k] + sn * dv[k], along2 = -sn * du[k] + cs * dv[k];
        p[k] = v3_add(v3_scale(u1, s1 * along1), v3_scale(u2, s2 * along2));
        x[k] = v3_load(&c->scratch.x_new[3 * (size_t)tri[k]]);
    }
    /* translation: x'_k = centre + p_k, the centre weighted by mass (heavy corners by
     * HEAVY x mass; with an immovable corner, the immovable ones alone) */
    vec3 centre = v3(0, 0, 0);
    double weight = 0.0;
    bool any_fixed = held[tri[0]] == STRAIN_FIXED || held[tri[1]] == STRAIN_FIXED || held[tri[2]] == STRAIN_FIXED;
    for (int k = 0; k < 3; k++) {
        uint8_t kind = held[tri[k]];
        double wk = any_fixed ? (kind == STRAIN_FIXED) : m->mass[tri[k]] * (kind == STRAIN_HEAVY ? HEAVY : 1.0);
        centre = v3_madd(centre, v3_sub(x[k], p[k]), wk);
        weight += wk;
    }
    centre = v3_scale(centre, 1.0 / weight);
    *moved = true;
    for (int k = 0; k < 3; k++) {
        if (held[tri[k]] == STRAIN_FIXED) continue;
        vec3 shift = v3_sub(v3_add(centre, p[k]), x[k]);
        size_t at = 3 * (size_t)tri[k];
        v3_store(&c->scratch.x_new[at], v3_add(x[k], shift));
        v3_store(&c->scratch.v_new[at], v3_madd(v3_load(&c->scratch.v_new[at]), shift, 1.0 / h));
    }
    return excess;
}

/* A strand's segment s (strands.c: the springs are the segments) as stretch |x_j - x_i| / L,
 * its one σ; its direction at x, or at the step's start where it has collapsed to a point. */
static double segment_stretch(const cloth *c, int32_t s, const double *x, vec3 *direction)
{
    const spring_set *sp = &c->model.springs;
    int32_t i = sp->pairs[2 * (size_t)s], j = sp->pairs[2 * (size_t)s + 1];
    vec3 d = v3_sub(v3_load(&x[3 * (size_t)j]), v3_load(&x[3 * (size_t)i]));
    double len = v3_len(d);
    if (direction) {
        vec3 start = v3_sub(v3_load(&c->state.x[3 * (size_t)j]), v3_load(&c->state.x[3 * (size_t)i]));
        double start_len = v3_len(start);
        *direction = len > 0.0 ? v3_scale(d, 1.0 / len) : start_len > 0.0 ? v3_scale(start, 1.0 / start_len) : d;
    }
    return len / sp->rest[s];
}

static double segment_excess(double s, limits l)
{
    return fmax(0.0, fmax(s / l.hi - 1.0, l.lo > 0.0 ? 1.0 - s / l.lo : 0.0));
}

/* Projects segment s to the clamped length along its direction n: the shortfall or surplus
 * Δ = (|d| - L σ') n is shared by inverse mass, x_i += w_i / (w_i + w_j) Δ and x_j -= w_j /
 * (w_i + w_j) Δ (w = 1 / m, 1 / (HEAVY m) for heavy vertices, 0 for immovable ones), which
 * keeps the pair's centre of mass where neither is heavy or fixed. Returns the excess it found,
 * 0 where it cannot help (both ends immovable, or no direction to move along). */
static double project_segment(cloth *c, int32_t s, limits l, double h)
{
    cloth_model *m = &c->model;
    vec3 n;
    double stretch = segment_stretch(c, s, c->scratch.x_new, &n), excess = segment_excess(stretch, l);
    if (excess <= STRAIN_SLACK) return excess;
    const int32_t ends[2] = {m->springs.pairs[2 * (size_t)s], m->springs.pairs[2 * (size_t)s + 1]};
    double start = segment_stretch(c, s, c->state.x, NULL);
    if (c->scratch.strain_recovers && segment_excess(start, l) > STRAIN_HELD_EXCESS && !in_tangle(c, ends, 2)) {
        l = recovering(l, start, start, h);
        if ((excess = segment_excess(stretch, l)) <= STRAIN_SLACK) return excess;
    }
    double w[2];
    for (int e = 0; e < 2; e++) {
        uint8_t kind = c->scratch.held[ends[e]];
        w[e] = kind == STRAIN_FIXED ? 0.0 : 1.0 / (m->mass[ends[e]] * (kind == STRAIN_HEAVY ? HEAVY : 1.0));
    }
    if (!(w[0] + w[1] > 0.0) || !(v3_len2(n) > 0.0)) return 0.0;
    vec3 surplus = v3_scale(n, (stretch - clamp(stretch, l)) * m->springs.rest[s]);
    for (int e = 0; e < 2; e++) {
        vec3 shift = v3_scale(surplus, (e == 0 ? 1.0 : -1.0) * w[e] / (w[0] + w[1]));
        size_t at = 3 * (size_t)ends[e];
        v3_store(&c->scratch.x_new[at], v3_add(v3_load(&c->scratch.x_new[at]), shift));
        v3_store(&c->scratch.v_new[at], v3_madd(v3_load(&c->scratch.v_new[at]), shift, 1.0 / h));
    }
    return excess;
}

/* What a sweep projects: a cloth's triangles, or a strand's segments. */
static const colouring *elements_of(const cloth *c)
{
    return c->model.strands ? &c->model.spring_colours : &c->model.triangle_colours;
}

/* Which triangles a projection's sweeps must look at again. A triangle's projection depends
 * only on its corners' x_new (the start, the held marks and the limits stay put over a
 * strain_limit_project), so one whose corners have not moved since it was last looked at would
 * find the same excess and move nothing: the sweep counts that excess and skips it. Where the
 * sweeps stall on stretch spread over the cloth (issue 30's flag blown into a crumple: 400
 * sweeps, each moving a few hundred of its 3906 triangles), most triangles are skipped; the
 * result is the same, bit for bit. */
typedef struct sweep_marks {
    int32_t sweep;      /* the sweep now, from 1 */
    int32_t *moved_at;  /* per vertex: the last sweep that placed it anew (0: none) */
    int32_t *seen_at;   /* per triangle: the last sweep that looked at it (0: none) */
    double *excess;     /* per triangle: the excess it found then */
} sweep_marks;

static double project_marked(cloth *c, int32_t t, limits l, double h, sweep_marks *marks)
{
    const int32_t *tri = &c->model.triangles[3 * (size_t)t];
    int32_t seen = marks->seen_at[t];
    if (seen > 0 && marks->moved_at[tri[0]] < seen && marks->moved_at[tri[1]] < seen && marks->moved_at[tri[2]] < seen)
        return marks->excess[t];
    bool moved = false;
    double excess = project_triangle(c, t, l, h, &moved);
    for (int k = 0; moved && k < 3; k++) marks->moved_at[tri[k]] = marks->sweep;
    marks->seen_at[t] = marks->sweep, marks->excess[t] = excess;
    return excess;
}

/* One group of consecutive elements, in order; the largest excess found. */
static double project_group(cloth *c, int32_t g, limits l, double h, sweep_marks *marks)
{
    const colouring *cc = elements_of(c);
    bool strands = c->model.strands;
    double worst = 0.0;
    for (int32_t t = g * cc->group_size, end = colouring_group_end(cc, g); t < end; t++)
        worst = fmax(worst, strands ? project_segment(c, t, l, h)
                            : marks ? project_marked(c, t, l, h, marks)
                                    : project_triangle(c, t, l, h, &(bool){false}));
    return worst;
}

/* One Gauss-Seidel sweep, colour by colour: the groups of a colour share no vertex, so they
 * project in parallel, and each vertex sees the same sequence of moves on any thread count
 * (the marks too: a group writes only its own triangles' and corners'). */
static double sweep(cloth *c, limits l, double h, sweep_marks *marks)
{
    if (!strain_limit_on(&c->model)) return 0.0;
    const colouring *cc = elements_of(c);
    double worst = 0.0;
#pragma omp parallel if (cc->element_count > PARALLEL_ELEMENTS) reduction(max : worst)
    for (int32_t k = 0; k < cc->colour_count; k++) {
        if (cc->last_serial && k + 1 == cc->colour_count) {
#pragma omp single
            for (int32_t g = cc->start[k]; g < cc->start[k + 1]; g++)
                worst = fmax(worst, project_group(c, cc->groups[g], l, h, marks));
        } else {
#pragma omp for schedule(dynamic, cc->chunk)
            for (int32_t g = cc->start[k]; g < cc->start[k + 1]; g++)
                worst = fmax(worst, project_group(c, cc->groups[g], l, h, marks));
        }
    }
    return worst;
}

double strain_limit_sweep(cloth *c, double h) { return sweep(c, limits_of(&c->model), h, NULL); }

double strain_limit_excess(const cloth *c, const double *x)
{
    limits l = limits_of(&c->model);
    double worst = 0.0;
    for (int32_t s = 0; c->model.strands && s < c->model.springs.count; s++)
        worst = fmax(worst, segment_excess(segment_stretch(c, s, x, NULL), l));
    for (int32_t t = 0; t < c->model.triangle_count; t++) {
        deformation f = deformation_of(c, t, x);
        worst = fmax(worst, excess_of(&f, l));
    }
    return worst;
}

/* In a pinch the projection's moves are undone step after step by what holds the cloth (the
 * response pushing the vertices it moved into a body back out), and the velocity each move gave
 * (its length / h) is left behind: 1.2e3 m/s on free vertices of the add-on's strain-limited
 * hammock whose box feels the cloth (tests/c/test_hammock_squeeze.c). So in a pinch step the
 * projection leaves no vertex faster than PINCH_SPEED or than it was before it. */
static void cap_pinch_speeds(cloth *c)
{
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t at = 3 * (size_t)i;
        vec3 v = v3_load(&c->scratch.v_new[at]);
        double most = fmax(PINCH_SPEED, v3_len(v3_load(&c->scratch.v_before_limit[at]))), speed = v3_len(v);
        if (speed > most) v3_store(&c->scratch.v_new[at], v3_scale(v, most / speed));
    }
}

/* The marks of a projection, cleared, in the cloth's scratch: allocated at the first projection
 * and kept (a cloth's counts never change); false for strands or without memory, where every
 * sweep looks at every triangle: the same result (the allocation is tried again next time). */
static bool marks_of(cloth *c, sweep_marks *marks)
{
    if (c->model.strands) return false;
    cloth_scratch *s = &c->scratch;
    size_t vertices = (size_t)c->model.vertex_count, triangles = (size_t)c->model.triangle_count;
    if (!s->strain_moved_at) s->strain_moved_at = malloc(vertices * sizeof *s->strain_moved_at);
    if (!s->strain_seen_at) s->strain_seen_at = malloc(triangles * sizeof *s->strain_seen_at);
    if (!s->strain_excess) s->strain_excess = malloc(triangles * sizeof *s->strain_excess);
    if (!s->strain_moved_at || !s->strain_seen_at || !s->strain_excess) return false;
    memset(s->strain_moved_at, 0, vertices * sizeof *s->strain_moved_at);
    memset(s->strain_seen_at, 0, triangles * sizeof *s->strain_seen_at);
    *marks = (sweep_marks){.moved_at = s->strain_moved_at, .seen_at = s->strain_seen_at, .excess = s->strain_excess};
    return true;
}

strain_limit_report strain_limit_project(cloth *c, double h)
{
    strain_limit_report report = {0};
    if (!strain_limit_on(&c->model)) return report;
    limits l = limits_of(&c->model);
    double worst = INFINITY;
    bool pinch = c->scratch.pinch_speed_cap;
    if (pinch) memcpy(c->scratch.v_before_limit, c->scratch.v_new, 3 * (size_t)c->model.vertex_count * sizeof(double));
    /* the stretch spread from the pins out taken out first (cloth_pin_reach.h); in a pinch the
     * cloth is brought back at a bounded rate (above), never all at once from the pins */
    if (c->model.max_stretch > 0.0 && !c->scratch.strain_recovers && !pinch)
        report.moved = pin_reach_project(c, 1.0 + (1.0 - STRAIN_MARGIN) * c->model.max_stretch, h) > 0;
    sweep_marks marks = {0};
    bool tracked = marks_of(c, &marks);
    while (report.sweeps < MAX_SWEEPS && worst > STRAIN_SLACK) {
        marks.sweep = report.sweeps + 1;
        worst = sweep(c, l, h, tracked ? &marks : NULL);
        report.moved |= report.sweeps++ == 0 && worst > STRAIN_SLACK;
    }
    if (pinch) cap_pinch_speeds(c);
    report.worst_excess = strain_limit_excess(c, c->scratch.x_new);
    return report;
}
