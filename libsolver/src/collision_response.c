#include "collision_response.h"

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_strain_limit.h"
#include "collision_ccd.h"
#include "collision_scratch.h"
#include "api_error.h"
#include "collision_geometry.h"
#include "grow.h"
#include "union_find.h"
#include "untangle.h"
#include "wall_clock.h"

enum { IMPULSE_ROUNDS = 8, ZONE_ROUNDS = 64 };

/* Bits of the pre-pass at the start of a pass, per pair. */
enum { PAIR_FLAGGED = 1, PAIR_IN_REACH = 2 };

void collision_scratch_free(collision_scratch *s)
{
    if (!s) return;
    free(s->x0), free(s->x1), free(s->v1), free(s->inv_mass), free(s->zone), free(s->members), free(s->moved), free(s->recheck);
    free(s->reacting), free(s->pushed_by);
    free(s->objects);
    pairs_free(s);
    free(s);
}

static bool reserve(collision_scratch *s, int32_t vertices, int32_t objects)
{
    if (vertices > s->vertex_capacity) {
        free(s->x0), free(s->x1), free(s->v1), free(s->inv_mass), free(s->zone), free(s->members), free(s->moved), free(s->recheck);
        free(s->reacting), free(s->pushed_by);
        size_t n = (size_t)vertices;
        s->reacting = malloc(n * sizeof *s->reacting);
        s->pushed_by = malloc(n * sizeof *s->pushed_by);
        s->moved = malloc(n * sizeof *s->moved);
        s->recheck = malloc(n * sizeof *s->recheck);
        s->x0 = malloc(n * sizeof *s->x0);
        s->x1 = malloc(n * sizeof *s->x1);
        s->v1 = malloc(n * sizeof *s->v1);
        s->inv_mass = malloc(n * sizeof *s->inv_mass);
        s->zone = malloc(n * sizeof *s->zone);
        s->members = malloc(n * sizeof *s->members);
        s->vertex_capacity = vertices;
        if (!s->x0 || !s->x1 || !s->v1 || !s->inv_mass || !s->zone || !s->members || !s->moved || !s->recheck ||
            !s->reacting || !s->pushed_by) {
            s->vertex_capacity = 0;
            return false;
        }
    }
    if (objects > s->object_capacity) {
        free(s->objects);
        s->objects = malloc((size_t)objects * sizeof *s->objects);
        s->object_capacity = s->objects ? objects : 0;
        if (!s->objects) return false;
    }
    return true;
}

/* Makes the candidate pairs hold every pair that can matter on the paths now; false when
 * out of memory (then the scratch says so too, for callers that stop early). */
static bool current_pairs(collision_scratch *s, collision_report *report)
{
    double start = wall_seconds();
    if (!pairs_valid(s) && !pairs_refresh(s)) s->out_of_memory = true;
    report->pairs_seconds += wall_seconds() - start;
    return !s->out_of_memory;
}

/* --- impulses --------------------------------------------------------------------------- */
/* A pair's relative motion is Σ w_i u_i over its four vertices; a change J of it is spread as
 * Δu_i = w_i (1/m_i) J / Σ w_j² (1/m_j), which changes Σ w_i u_i by exactly J. */

static double pair_inverse_mass(const collision_scratch *s, const int32_t v[4], const double w[4])
{
    double denom = 0.0;
    for (int i = 0; i < 4; i++) denom += w[i] * w[i] * s->inv_mass[v[i]];
    return denom;
}

/* Moves the end positions apart by `separation` along n (no velocity added). */
static void separate_positions(collision_scratch *s, const int32_t v[4], const double w[4], vec3 n, double separation)
{
    double denom = pair_inverse_mass(s, v, w);
    if (!(denom > 0.0) || !(separation > 0.0)) return;
    for (int i = 0; i < 4; i++)
        s->x1[v[i]] = v3_madd(s->x1[v[i]], n, separation * w[i] * s->inv_mass[v[i]] / denom);
}

/* A contact of the response between four weighted vertices (a pair of features): its normal
 * and the impulses it carries, a 3D Coulomb cone. Not the rigid step's contact_row, a scalar
 * row of a complementarity problem between two bodies: the two meet only in two-way coupling. */
typedef struct vertex_impulse {
    int32_t v[4];
    double w[4];
    vec3 n;
    double inv_mass; /* Σ w_i² / m_i */
    double mu;
    double normal;   /* accumulated normal impulse (per unit of pair mass), >= 0 */
    vec3 friction;   /* accumulated tangential impulse */
} vertex_impulse;

static vec3 relative_velocity(const collision_scratch *s, const vertex_impulse *r)
{
    vec3 rel = v3(0, 0, 0);
    for (int i = 0; i < 4; i++) rel = v3_madd(rel, s->v1[r->v[i]], r->w[i]);
    return rel;
}

/* The change in the pair's relative velocity spread over its vertices. Two-way coupling: the
 * cloth's vertices gain momentum change Σ w_i / inv_mass (over those of finite mass); a collider
 * whose body feels the cloth takes the opposite at its features' point. */
static void apply_velocity(collision_scratch *s, const vertex_impulse *r, vec3 change)
{
    double cloth_weight = 0.0, collider_weight = 0.0;
    vec3 point = v3(0, 0, 0);
    int32_t reacting = -1;
    for (int i = 0; i < 4; i++) {
        int32_t v = r->v[i];
        s->v1[v] = v3_madd(s->v1[v], change, r->w[i] * s->inv_mass[v] / r->inv_mass);
        if (s->inv_mass[v] > 0.0) cloth_weight += r->w[i];
        if (s->reacting[v] >= 0) {
            reacting = s->reacting[v];
            collider_weight += fabs(r->w[i]);
            point = v3_madd(point, s->x1[v], fabs(r->w[i]));
        }
    }
    if (reacting < 0 || !(collider_weight > 0.0)) return;
    for (int i = 0; i < 4; i++)
        if (s->inv_mass[r->v[i]] > 0.0) s->pushed_by[r->v[i]] = reacting;
    collider_react(s->colliders[reacting], v3_scale(change, -cloth_weight / r->inv_mass),
                       v3_scale(point, 1.0 / collider_weight));
}

/* Inelastic contacts on the end velocities, solved together by projected Gauss-Seidel: no
 * pair approaches along its normal, with accumulated normal impulses >= 0 (contacts that
 * share vertices do not overshoot), and Coulomb friction within mu times each. A single
 * row is exact after one sweep: an impulse changes its pair's velocity by exactly itself. */
static void stop_approaches(collision_scratch *s, vertex_impulse *rows, int32_t count, int sweeps)
{
    for (int sweep = 0; sweep < sweeps; sweep++)
        for (int32_t k = 0; k < count; k++) {
            vertex_impulse *r = &rows[k];
            vec3 rel = relative_velocity(s, r);
            double vn = v3_dot(rel, r->n);
            double normal = fmax(0.0, r->normal - vn);
            apply_velocity(s, r, v3_scale(r->n, normal - r->normal));
            r->normal = normal;
            rel = relative_velocity(s, r);
            vec3 vt = v3_madd(rel, r->n, -v3_dot(rel, r->n));
            vec3 friction = v3_sub(r->friction, vt);
            double limit = r->mu * r->normal, len = v3_len(friction);
            if (len > limit) friction = v3_scale(friction, len > 0.0 ? limit / len : 0.0);
            apply_velocity(s, r, v3_sub(friction, r->friction));
            r->friction = friction;
        }
}

static bool make_impulse(const collision_scratch *s, const int32_t v[4], const double w[4], vec3 n, double mu,
                     vertex_impulse *row)
{
    *row = (vertex_impulse){{v[0], v[1], v[2], v[3]}, {w[0], w[1], w[2], w[3]}, n, 0.0, mu, 0.0, v3(0, 0, 0)};
    row->inv_mass = pair_inverse_mass(s, v, w);
    return row->inv_mass > 0.0;
}

static double pair_distance(const collision_scratch *s, const feature_pair *p)
{
    const object_ref *a = &s->objects[p->objects[0]], *b = &s->objects[p->objects[1]];
    return a == b ? 2.0 * a->self_thickness : a->thickness + b->thickness;
}

static double pair_friction(const collision_scratch *s, const feature_pair *p)
{
    const object_ref *a = &s->objects[p->objects[0]], *b = &s->objects[p->objects[1]];
    return a == b ? a->self_friction : a->friction * b->friction;
}

static void positions_of(const vec3 *x, const feature_pair *p, vec3 out[4])
{
    for (int i = 0; i < 4; i++) out[i] = x[p->v[i]];
}

/* Whether the pair's features end closer than their contact distance (and were not so at
 * rest); dist, w, n of their closest points. */
/* Whether the pair is between a region pulled through a tangle and that tangle (untangle.h). */
static bool untangling(const collision_scratch *s, const feature_pair *p)
{
    return s->untangle && s->untangle->active && untangle_skips(s->untangle, p->v, p->edge_edge ? 2 : 1);
}

static bool too_close(const collision_scratch *s, const feature_pair *p, double *dist, double w[4], vec3 *n)
{
    if (!p->proximity) return false; /* a cloth vertex on a collider face: the contact filters hold it */
    if (untangling(s, p)) return false;
    double d = pair_distance(s, p);
    vec3 x[4];
    positions_of(s->x1, p, x);
    *dist = p->edge_edge ? edge_edge_distance(x, w, n) : vertex_face_distance(x, w, n);
    return *dist < d;
}

static bool reserve_flags(collision_scratch *s)
{
    if (!grow((void **)&s->flagged, &s->flagged_capacity, s->pair_count, sizeof *s->flagged)) {
        s->out_of_memory = true;
        return false;
    }
    return true;
}

/* Whether the boxes of the pair's two features, over the points given, come within `gap`;
 * `to` NULL: at `from` alone. */
static inline __attribute__((always_inline)) bool features_within(const feature_pair *p, const vec3 *from,
                                                                   const vec3 *to, double gap)
{
    vec3 a[4], b[4];
    positions_of(from, p, a);
    if (to) positions_of(to, p, b);
    return point_boxes_within(a, to ? b : NULL, p->edge_edge ? 2 : 1, gap);
}

/* The passes below move vertices pair by pair, each pair seeing what the ones before it did.
 * Most pairs are far from anything, so each pass first tests every pair in parallel on the
 * positions at its start, then walks the pairs in order, testing again only the pairs it
 * flagged or whose vertices an earlier pair moved: the same result as the plain walk, for any
 * number of threads. A pass looks only at the pairs within reach at its start (their boxes
 * within the contact distance): every set of candidates valid now holds those, so the result
 * does not depend on when the candidates were gathered. */

/* The rows of the proximity pass's pairs, one per pair however often it is pushed. */
typedef struct proximity_rows {
    vertex_impulse *rows;
    int32_t count, capacity;
} proximity_rows;

static void forget_rows_of_pairs(collision_scratch *s)
{
    for (int32_t k = 0; k < s->pair_count; k++) s->row_of[k] = -1;
}

/* The candidates for the positions now; a new list (*fresh) forgets which rows its pairs had. */
static bool proximity_pairs(collision_scratch *s, collision_report *report, bool *fresh)
{
    if (pairs_valid(s)) return true;
    *fresh = true;
    if (!current_pairs(s, report)) return false;
    if (!grow((void **)&s->row_of, &s->row_of_capacity, s->pair_count, sizeof *s->row_of)) return false;
    forget_rows_of_pairs(s);
    return true;
}

/* One walk: every pair closer than its contact distance pushed apart (positions only), and
 * given (or given again) its row; its vertices marked in s->recheck. Pairs within reach but
 * no longer too close are left alone. After the first walk (`again`), the pre-pass tests only
 * the pairs with a vertex marked in s->moved (moved since the last pre-pass, by the walk or
 * the strain sweep): the others' bits still hold. False when out of memory. */
static bool proximity_walk(collision_scratch *s, proximity_rows *out, bool again, int32_t *pushed,
                           int32_t *pushed_self)
{
    if (!reserve_flags(s)) return false;
    /* after the first walk, the pairs that can be within reach (near_list) */
    int32_t count = again ? s->near_count : s->pair_count;
    const int32_t *list = again ? s->near : NULL;
#pragma omp parallel for schedule(dynamic, 1024) if (count > 4096)
    for (int32_t j = 0; j < count; j++) {
        int32_t k = list ? list[j] : j;
        const feature_pair *p = &s->pairs[k];
        if (again && !any_marked(s->moved, p)) continue;
        double dist, w[4];
        vec3 n;
        uint8_t bits = 0;
        if (p->proximity && features_within(p, s->x1, NULL, pair_distance(s, p)))
            bits = PAIR_IN_REACH | (too_close(s, p, &dist, w, &n) ? PAIR_FLAGGED : 0);
        s->flagged[k] = bits;
    }
    memset(s->moved, 0, (size_t)s->vertex_count);
    for (int32_t j = 0; j < count; j++) {
        int32_t k = list ? list[j] : j;
        const feature_pair *p = &s->pairs[k];
        if (!(s->flagged[k] & PAIR_IN_REACH)) continue;
        if (!(s->flagged[k] & PAIR_FLAGGED) && !any_marked(s->moved, p)) continue; /* moved: test again */
        double d = pair_distance(s, p), dist, w[4];
        vec3 n;
        if (!too_close(s, p, &dist, w, &n)) continue;
        /* the side that counts is the one they started on (the start is free of crossings):
         * a pair that ends on the other side has crossed, and is left to continuous detection */
        vec3 y[4];
        positions_of(s->x0, p, y);
        if (dist < 1e-9 * d) {
            double w0[4];
            if (p->edge_edge) edge_edge_distance(y, w0, &n);
            else vertex_face_distance(y, w0, &n);
        }
        double start_side = 0.0;
        for (int i = 0; i < 4; i++) start_side += w[i] * v3_dot(y[i], n);
        if (start_side < 0.0) continue;
        separate_positions(s, p->v, w, n, d - dist);
        for (int i = 0; i < 4; i++) s->moved[p->v[i]] = s->recheck[p->v[i]] = 1;
        (*pushed)++;
        /* a fold's layers, not strands pushed off each other (see proximity_pass) */
        if (p->objects[0] == p->objects[1] && !object_is_strands(&s->objects[p->objects[0]])) (*pushed_self)++;
        vertex_impulse row;
        if (!make_impulse(s, p->v, w, n, pair_friction(s, p), &row)) continue;
        if (s->row_of[k] >= 0) {
            out->rows[s->row_of[k]] = row; /* its latest normal */
            continue;
        }
        if (!grow((void **)&out->rows, &out->capacity, out->count + 1, sizeof *out->rows)) return false;
        out->rows[out->count] = row;
        s->row_of[k] = out->count++;
    }
    return true;
}

/* Lists, in order, the proximity pairs whose boxes are within twice their contact distance d:
 * while no vertex moves more than d / 2 (near_slack, the least d), a pair left out stays out of
 * reach, so walks over the list do what walks over every pair would. False when out of memory. */
static bool list_near_pairs(collision_scratch *s)
{
    if (!grow((void **)&s->listed_at, &s->listed_capacity, s->vertex_count, sizeof *s->listed_at)) return false;
    memcpy(s->listed_at, s->x1, (size_t)s->vertex_count * sizeof *s->x1);
    s->near_count = 0;
    s->near_slack = INFINITY;
    for (int32_t k = 0; k < s->pair_count; k++) {
        const feature_pair *p = &s->pairs[k];
        if (!p->proximity) continue;
        double d = pair_distance(s, p);
        s->near_slack = fmin(s->near_slack, 0.5 * d);
        if (!features_within(p, s->x1, NULL, 2.0 * d)) continue;
        double w[4];
        vec3 n, x[4];
        positions_of(s->x1, p, x);
        if ((p->edge_edge ? edge_edge_distance(x, w, &n) : vertex_face_distance(x, w, &n)) > 2.0 * d) continue;
        if (!grow((void **)&s->near, &s->near_capacity, s->near_count + 1, sizeof *s->near)) return false;
        s->near[s->near_count++] = k;
    }
    return true;
}

/* Whether a vertex strayed more than near_slack from where the near pairs were listed. */
static bool strayed_from_list(const collision_scratch *s)
{
    double slack2 = s->near_slack * s->near_slack;
    for (int32_t v = 0; v < s->vertex_count; v++)
        if (v3_len2(v3_sub(s->x1[v], s->listed_at[v])) > slack2) return true;
    return false;
}

/* The response's end positions and velocities of the cloths that limit their strain into
 * their x_new and v_new (to_cloth), or back, marking in s->moved the vertices that moved. */
static void exchange_limited(collision_scratch *s, cloth *const *cloths, int32_t cloth_count, bool to_cloth)
{
    for (int32_t i = 0; i < cloth_count; i++) {
        cloth *c = cloths[i];
        if (!strain_limit_on(&c->model)) continue;
        for (int32_t v = 0, at = s->objects[i].first; v < c->model.vertex_count; v++, at++) {
            double *x = &c->scratch.x_new[3 * (size_t)v], *u = &c->scratch.v_new[3 * (size_t)v];
            if (to_cloth) {
                v3_store(x, s->x1[at]), v3_store(u, s->v1[at]);
                continue;
            }
            vec3 moved_to = v3_load(x);
            if (v3_len2(v3_sub(moved_to, s->x1[at])) > 0.0) s->moved[at] = 1;
            s->x1[at] = moved_to, s->v1[at] = v3_load(u);
        }
    }
}

/* One sweep of every cloth's strain limits on the response's positions, the vertices the
 * pass pushed made heavy (cloth_strain_limit.h); the largest excess found. */
static double strain_sweep(collision_scratch *s, cloth *const *cloths, int32_t cloth_count, double h)
{
    exchange_limited(s, cloths, cloth_count, true);
    double worst = 0.0;
    for (int32_t i = 0; i < cloth_count; i++) {
        cloth *c = cloths[i];
        if (!strain_limit_on(&c->model)) continue;
        uint8_t *held = c->scratch.held;
        for (int32_t v = 0, at = s->objects[i].first; v < c->model.vertex_count; v++, at++)
            if (c->model.pinned[v]) held[v] = STRAIN_FIXED;
            else if (s->recheck[at] && held[v] == STRAIN_FREE) held[v] = STRAIN_HEAVY;
        worst = fmax(worst, strain_limit_sweep(c, h));
    }
    exchange_limited(s, cloths, cloth_count, false);
    return worst;
}

/* Walks of the proximity pass until no pair is too close; with cloths that limit their strain,
 * each walk that pushed a pair is followed by a sweep of their projection
 * (cloth_strain_limit.h). Pushed apart, a fold's layers stretch the triangles round them,
 * whose projection pulls them together again: whole passes and whole projections in turn
 * closed in on a state that keeps both by a fifth of the excess per round (the 64² drape of
 * Blender's default cloth with self collision: some 40 rounds, each with continuous
 * detection, where 8 were allowed: 61 of 92 steps ended beyond the limit); walk and sweep in
 * turn need about as many walks, each a fraction of the cost. It ends on a walk that pushed
 * nothing or a sweep that moved nothing, so on positions within the limits with every pair
 * apart as the last walk left it. Where both cannot hold (pins that twist a tube and draw its
 * ends together squeeze its layers) the excess stalls: it ends when STALL_WALKS walks have
 * not halved it, or after LIMIT_WALKS, on a sweep, pairs maybe closer than their contact
 * distance (never crossed: the detection after the pass sees to that). Then the pushed pairs
 * stop approaching (with friction). */
enum { LIMIT_WALKS = 200, STALL_WALKS = 16 };
#define STALL_RATIO 0.5

static int32_t proximity_pass(collision_scratch *s, cloth *const *cloths, int32_t cloth_count, double h,
                              collision_report *report)
{
    proximity_rows rows = {0};
    double checkpoint = INFINITY;
    bool limits = false;
    for (int32_t i = 0; i < cloth_count; i++) limits |= strain_limit_on(&cloths[i]->model);
    memset(s->recheck, 0, (size_t)s->vertex_count);
    if (grow((void **)&s->row_of, &s->row_of_capacity, s->pair_count, sizeof *s->row_of)) {
        forget_rows_of_pairs(s);
        for (int32_t walk = 0; walk < LIMIT_WALKS; walk++) {
            bool fresh = walk == 0;
            int32_t pushed = 0, pushed_self = 0;
            if (!proximity_pairs(s, report, &fresh) ||
                (walk > 0 && (walk == 1 || fresh || strayed_from_list(s)) && !list_near_pairs(s)) ||
                !proximity_walk(s, &rows, !fresh, &pushed, &pushed_self)) {
                s->out_of_memory = true;
                break;
            }
            /* no pair of a cloth with itself pushed: what the limits still lack is not a fold's
             * layers pushed apart, and the rounds after the pass see to it as they did before
             * walks and sweeps took turns (a cloth lying on a table pushed by its pairs with the
             * table every step: sweeping the whole cloth after each walk doubled the
             * tablecloth sample's bake). Strands pushed off each other count as none: a pushed
             * segment stretches its neighbours little, and walks and sweeps in turn took
             * bench_strands' 500 hairs, self collision on, from 660 to 1260 ms of CPU a frame
             * (tests/c/test_strand_collision.c passes either way) */
            if (!limits || pushed_self == 0) break;
            double excess = strain_sweep(s, cloths, cloth_count, h);
            if (excess <= STRAIN_SLACK) break;
            if (walk % STALL_WALKS == 0) {
                if (walk > 0 && excess > STALL_RATIO * checkpoint) {
                    break;
                }
                checkpoint = excess;
            }
        }
    } else {
        s->out_of_memory = true;
    }
    stop_approaches(s, rows.rows, rows.count, 8);
    free(rows.rows);
    return rows.count;
}

static double detect_tolerance(const collision_scratch *s, const feature_pair *p)
{
    return detection_tolerance(pair_distance(s, p));
}

static bool detect(const collision_scratch *s, const feature_pair *p, ccd_hit *hit)
{
    if (untangling(s, p)) return false;
    double tol = detect_tolerance(s, p);
    /* the two features' swept boxes must meet before the exact test is worth running */
    if (!features_within(p, s->x0, s->x1, tol)) return false;
    vec3 x0[4], x1[4];
    positions_of(s->x0, p, x0);
    positions_of(s->x1, p, x1);
    /* Parts of a cloth moving together (falling, resting) keep their distance: with δ_i each
     * vertex's displacement less the pair's mean, the distance changes by at most 2 max|δ_i|
     * over the step, so a pair starting further apart than that plus the tolerance cannot
     * meet. (Flat cloth makes the exact test search its whole interval.) */
    vec3 mean = v3(0, 0, 0);
    for (int i = 0; i < 4; i++) mean = v3_add(mean, v3_sub(x1[i], x0[i]));
    mean = v3_scale(mean, 0.25);
    double drift = 0.0;
    for (int i = 0; i < 4; i++) drift = fmax(drift, v3_len(v3_sub(v3_sub(x1[i], x0[i]), mean)));
    if (2.0 * drift < pair_distance(s, p)) {
        double w[4];
        vec3 n;
        double start = p->edge_edge ? edge_edge_distance(x0, w, &n) : vertex_face_distance(x0, w, &n);
        if (start > tol + 2.0 * drift) return false;
    }
    return p->edge_edge ? ccd_edge_edge(x0, x1, tol, hit) : ccd_vertex_face(x0, x1, tol, hit);
}

/* One round of continuous detection with an impulse for each collision; returns how many.
 * The impulse bends the pair's straight paths apart so that they end a tenth of their
 * contact distance apart; their end velocities only stop approaching (inelastic). */
static int32_t impulse_round(collision_scratch *s, int32_t vertex_count, bool first_round)
{
    int32_t hits = 0;
    /* after the first round, only pairs near what the last round moved can have changed */
    uint8_t *moved_before = s->recheck;
    for (int32_t v = 0; v < vertex_count; v++) moved_before[v] = first_round || s->moved[v], s->moved[v] = 0;
    if (!reserve_flags(s)) return 0;
#pragma omp parallel for schedule(dynamic, 1024) if (s->pair_count > 4096)
    for (int32_t k = 0; k < s->pair_count; k++) {
        const feature_pair *p = &s->pairs[k];
        ccd_hit hit;
        uint8_t bits = 0;
        if (any_marked(moved_before, p) && features_within(p, s->x0, s->x1, detect_tolerance(s, p)))
            bits = PAIR_IN_REACH | (detect(s, p, &hit) ? PAIR_FLAGGED : 0);
        s->flagged[k] = bits;
    }
    for (int32_t k = 0; k < s->pair_count; k++) {
        const feature_pair *p = &s->pairs[k];
        if (!(s->flagged[k] & PAIR_IN_REACH)) continue; /* nor moved before: cannot have changed */
        if (!(s->flagged[k] & PAIR_FLAGGED) && !any_marked(s->moved, p)) continue; /* moved: test again */
        ccd_hit hit;
        if (!detect(s, p, &hit)) continue;
        hits++;
        for (int i = 0; i < 4; i++) s->moved[p->v[i]] = 1;
        double d = pair_distance(s, p), target = fmax(0.1 * d, 1e-6);
        double end_separation = 0.0;
        for (int i = 0; i < 4; i++) end_separation += hit.w[i] * v3_dot(s->x1[p->v[i]], hit.normal);
        /* paths that met but end apart (a glancing, turning contact) still get bent apart */
        separate_positions(s, p->v, hit.w, hit.normal, end_separation < target ? target - end_separation : target);
        vertex_impulse row;
        if (make_impulse(s, p->v, hit.w, hit.normal, pair_friction(s, p), &row)) stop_approaches(s, &row, 1, 1);
    }
    return hits;
}

/* --- rigid impact zones ------------------------------------------------------------------ */

/* Best rigid transform taking anchors' start positions to their end positions (Kabsch):
 * x -> R (x - c0) + c1. */
static void fit_rigid(const collision_scratch *s, const int32_t *anchors, int32_t count, mat3 *r, vec3 *c0, vec3 *c1)
{
    *c0 = *c1 = v3(0, 0, 0);
    for (int32_t i = 0; i < count; i++) {
        *c0 = v3_add(*c0, s->x0[anchors[i]]);
        *c1 = v3_add(*c1, s->x1[anchors[i]]);
    }
    *c0 = v3_scale(*c0, 1.0 / count), *c1 = v3_scale(*c1, 1.0 / count);
    *r = m3_identity();
    if (count < 2) return;
    double hm[9] = {0}, sv[3], u[9], vt[9], superb[2];
    for (int32_t i = 0; i < count; i++) {
        vec3 p = v3_sub(s->x0[anchors[i]], *c0), q = v3_sub(s->x1[anchors[i]], *c1);
        mat3 o = m3_outer(p, q);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) hm[3 * a + b] += o.m[a][b];
    }
    if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', 3, 3, hm, 3, sv, u, 3, vt, 3, superb) != 0) return;
    /* R = V diag(1, 1, d) Uᵀ with d fixing a reflection */
    mat3 rot;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double sum = 0.0;
            for (int k = 0; k < 3; k++) sum += vt[3 * k + a] * u[3 * b + k];
            rot.m[a][b] = sum;
        }
    if (m3_det(rot) < 0.0)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) rot.m[a][b] -= 2.0 * vt[3 * 2 + a] * u[3 * b + 2];
    *r = rot;
}

/* The object (s->objects, in the order of their vertices) vertex v belongs to. */
static int32_t object_of(const collision_scratch *s, int32_t v)
{
    int32_t k = 0;
    while (k + 1 < s->object_count && s->objects[k + 1].first <= v) k++;
    return k;
}

/* A zone anchored on several objects (a sheet squeezed between a falling box and the floor),
 * in a step world_step.c found to be a pinch (zone_pinched below):
 * no rigid motion follows them all, and the best fit of both (the box's vertices moving down,
 * the floor's still) satisfied neither: the step was accepted with the zone through the floor
 * (26 mm with a 21² sheet, tests/c/test_pinch.c), and the floor's contacts then kept it on
 * that side. So the object whose anchors move least over the step wins (the still floor, the
 * pins of a sheet a collider sweeps through) and the zone follows it alone; the others give
 * way, passing into the zone by what they move over the step, as they do where impact zones
 * cannot stop them anyway, and the collisions left count in the report as before. Objects
 * that move as little as the least (two still colliders) are all kept. Keeps the anchors that
 * win, in order (the members are in vertex order, so an object's anchors are consecutive);
 * returns how many. */
static int32_t least_moving_anchors(const collision_scratch *s, int32_t *anchors, int32_t count)
{
    double least = INFINITY;
    int32_t first_object = object_of(s, anchors[0]);
    bool several = false;
    for (int32_t i = 0; i < count;) {
        int32_t k = object_of(s, anchors[i]);
        several |= k != first_object;
        double moved = 0.0;
        for (; i < count && object_of(s, anchors[i]) == k; i++)
            moved = fmax(moved, v3_len(v3_sub(s->x1[anchors[i]], s->x0[anchors[i]])));
        least = fmin(least, moved);
    }
    if (!several) return count;
    /* round-off of positions a metre from the origin: what "as little" means */
    double tie = least + 1e-12;
    int32_t kept = 0;
    for (int32_t i = 0; i < count;) {
        int32_t k = object_of(s, anchors[i]), begin = i;
        double moved = 0.0;
        for (; i < count && object_of(s, anchors[i]) == k; i++)
            moved = fmax(moved, v3_len(v3_sub(s->x1[anchors[i]], s->x0[anchors[i]])));
        if (moved <= tie)
            for (int32_t j = begin; j < i; j++) anchors[kept++] = anchors[j];
    }
    return kept;
}

/* Whether a free member of the zone is of a cloth whose step is a pinch (world_step.c): only
 * there do zones follow the least moving of their objects; elsewhere (the tablecloth's bodies
 * landing on the cloth over the table) the best fit of all anchors keeps more of the cloth out
 * of every object (with the rule everywhere, the tablecloth sample ended 62 mm inside a body). */
static bool zone_pinched(const collision_scratch *s, const int32_t *members, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        if (s->inv_mass[members[i]] > 0.0 && s->objects[object_of(s, members[i])].pinched) return true;
    return false;
}

/* Moves one zone rigidly: with the fitted motion of its anchors (pinned and collider
 * vertices; on several objects, those of the one that moves least: least_moving_anchors) if it
 * has any; otherwise with the linear and angular momentum its vertices
 * carry, or, as the last resort, not at all (where they started, free of intersections). */
static void move_zone_rigidly(collision_scratch *s, const int32_t *members, int32_t count, double h,
                              bool last_resort, int32_t *anchors)
{
    int32_t anchor_count = 0;
    double mass = 0.0;
    vec3 cm = v3(0, 0, 0), momentum = v3(0, 0, 0);
    for (int32_t i = 0; i < count; i++) {
        int32_t v = members[i];
        if (s->inv_mass[v] == 0.0) {
            anchors[anchor_count++] = v;
            continue;
        }
        double m = 1.0 / s->inv_mass[v];
        mass += m;
        cm = v3_madd(cm, s->x0[v], m);
        momentum = v3_madd(momentum, v3_sub(s->x1[v], s->x0[v]), m / h);
    }
    if (mass == 0.0) return;
    if (anchor_count > 0) {
        mat3 r;
        vec3 c0, c1;
        if (zone_pinched(s, members, count)) anchor_count = least_moving_anchors(s, anchors, anchor_count);
        fit_rigid(s, anchors, anchor_count, &r, &c0, &c1);
        for (int32_t i = 0; i < count; i++) {
            int32_t v = members[i];
            if (s->inv_mass[v] == 0.0) continue;
            s->x1[v] = v3_add(c1, m3_mul_v(r, v3_sub(s->x0[v], c0)));
            s->v1[v] = v3_scale(v3_sub(s->x1[v], s->x0[v]), 1.0 / h);
        }
        return;
    }
    if (last_resort) {
        for (int32_t i = 0; i < count; i++) {
            s->x1[members[i]] = s->x0[members[i]];
            s->v1[members[i]] = v3(0, 0, 0);
        }
        return;
    }
    cm = v3_scale(cm, 1.0 / mass);
    vec3 vcm = v3_scale(momentum, 1.0 / mass), angular = v3(0, 0, 0);
    mat3 inertia = m3_zero();
    for (int32_t i = 0; i < count; i++) {
        int32_t v = members[i];
        double m = 1.0 / s->inv_mass[v];
        vec3 r = v3_sub(s->x0[v], cm), vel = v3_sub(v3_scale(v3_sub(s->x1[v], s->x0[v]), 1.0 / h), vcm);
        angular = v3_madd(angular, v3_cross(r, vel), m);
        inertia = m3_add(inertia, m3_scale(m3_add(m3_scale(m3_identity(), v3_dot(r, r)), m3_scale(m3_outer(r, r), -1.0)), m));
    }
    /* a zone along a line has no inertia about it: regularise */
    double trace = inertia.m[0][0] + inertia.m[1][1] + inertia.m[2][2];
    mat3 inverse;
    vec3 omega = v3(0, 0, 0);
    if (trace > 0.0 && m3_inverse(m3_add(inertia, m3_scale(m3_identity(), 1e-9 * trace)), &inverse))
        omega = m3_mul_v(inverse, angular);
    mat3 turn = q_to_m3(q_from_rotation_vector(v3_scale(omega, h)));
    for (int32_t i = 0; i < count; i++) {
        int32_t v = members[i];
        vec3 r = m3_mul_v(turn, v3_sub(s->x0[v], cm));
        s->x1[v] = v3_add(v3_madd(cm, vcm, h), r);
        s->v1[v] = v3_add(vcm, v3_cross(omega, r));
    }
}

typedef struct zone_entry { int32_t root, vertex; } zone_entry;

static int compare_zone_entries(const void *pa, const void *pb)
{
    const zone_entry *a = pa, *b = pb;
    if (a->root != b->root) return (a->root > b->root) - (a->root < b->root);
    return (a->vertex > b->vertex) - (a->vertex < b->vertex);
}

/* Rounds of: detect, merge colliding vertices into zones, move every zone rigidly. Only zones
 * move, so after the first round only pairs with a vertex in a zone can have changed; the
 * others are not tested again. The tests run in parallel, the merging in pair order. */
static int32_t impact_zones(collision_scratch *s, int32_t vertex_count, double h, collision_report *report)
{
    union_find_reset(s->zone, vertex_count);
    uint8_t *in_zone = calloc((size_t)vertex_count, sizeof *in_zone);
    zone_entry *entries = malloc((size_t)vertex_count * sizeof *entries);
    int32_t *anchors = malloc((size_t)vertex_count * sizeof *anchors);
    if (!in_zone || !entries || !anchors) {
        free(in_zone), free(entries), free(anchors);
        s->out_of_memory = true;
        return 0;
    }
    int32_t round = 0, hits = 0;
    for (; round <= ZONE_ROUNDS + 1; round++) {
        if (!current_pairs(s, report) || !reserve_flags(s)) break;
        bool first_round = round == 0;
#pragma omp parallel for schedule(dynamic, 1024) if (s->pair_count > 4096)
        for (int32_t k = 0; k < s->pair_count; k++) {
            const feature_pair *p = &s->pairs[k];
            ccd_hit hit;
            s->flagged[k] = (first_round || any_marked(in_zone, p)) && detect(s, p, &hit);
        }
        hits = 0;
        for (int32_t k = 0; k < s->pair_count; k++) {
            if (!s->flagged[k]) continue;
            const feature_pair *p = &s->pairs[k];
            hits++;
            for (int i = 0; i < 4; i++) {
                in_zone[p->v[i]] = 1;
                union_find_unite(s->zone, p->v[0], p->v[i]);
            }
        }
        if (hits == 0 || round == ZONE_ROUNDS + 1) break;
        /* group the members of each zone by root, in a deterministic order */
        int32_t count = 0;
        for (int32_t v = 0; v < vertex_count; v++)
            if (in_zone[v]) entries[count++] = (zone_entry){union_find_root(s->zone, v), v};
        qsort(entries, (size_t)count, sizeof *entries, compare_zone_entries);
        for (int32_t begin = 0; begin < count;) {
            int32_t end = begin;
            while (end < count && entries[end].root == entries[begin].root) {
                s->members[end] = entries[end].vertex;
                end++;
            }
            move_zone_rigidly(s, &s->members[begin], end - begin, h, round == ZONE_ROUNDS, anchors);
            begin = end;
        }
    }
    report->unresolved = hits;
    free(in_zone), free(entries), free(anchors);
    return round;
}

/* --- the whole response ------------------------------------------------------------------ */

/* A landing of 100k vertices in one 1/24 s step went 9269, 3239, 2655, ... 1447 collisions
 * in eight rounds, which the caller then threw away: with zones refused, the rounds stop when
 * impulses_can_finish says they cannot end. */
bool impulses_can_finish(int32_t before, int32_t hits, int32_t done)
{
    if (hits <= 1) return true;
    if (hits >= before) return false;
    return done + log((double)hits) / log((double)before / hits) <= IMPULSE_ROUNDS;
}

/* A cloth's vertices join the response: where the step started, where the solve took them. */
static void gather_cloth(collision_scratch *s, cloth *c, int32_t *next)
{
    const cloth_model *m = &c->model;
    s->objects[s->object_count++] = (object_ref){true, *next, m->triangles, m->triangle_count, &m->topo, m->thickness,
                                                 m->friction, m->self_thickness, m->self_collision, &c->scratch.tree,
                                                 c->scratch.boxes, &m->near_at_rest, NULL, NULL,
                                                 m->self_friction, 0,
                                                 m->left_out.vertex, m->left_out.edge, m->left_out.triangle,
                                                 m->meets_collider, m->meets_collider_count,
                                                 m->strands ? m->springs.pairs : NULL,
                                                 m->strands ? m->springs.count : 0, m->rest_positions,
                                                 c->scratch.strain_recovers};
    for (int32_t v = 0; v < m->vertex_count; v++, (*next)++) {
        s->x0[*next] = v3_load(&c->state.x[3 * (size_t)v]);
        s->x1[*next] = v3_load(&c->scratch.x_new[3 * (size_t)v]);
        s->v1[*next] = v3_load(&c->scratch.v_new[3 * (size_t)v]);
        s->inv_mass[*next] = m->pinned[v] ? 0.0 : 1.0 / m->mass[v];
        s->reacting[*next] = s->pushed_by[*next] = -1;
    }
}

/* A collider's vertices join with infinite mass, moving straight over the step. */
static void gather_collider(collision_scratch *s, collider *k, int32_t index, double h, int32_t *next)
{
    const collider_model *m = &k->model;
    s->objects[s->object_count++] = (object_ref){false, *next, m->triangles, m->triangle_count, &m->topo, m->thickness,
                                                 m->friction, 0.0, false, &k->state.tree, k->scratch.boxes, NULL,
                                                 m->sharp_edge, m->sharp_vertex, 0.0, 0, NULL, NULL, NULL, NULL, -1,
                                                 NULL, 0, NULL, false};
    for (int32_t v = 0; v < m->vertex_count; v++, (*next)++) {
        s->x0[*next] = v3_load(&k->scratch.x0[3 * (size_t)v]);
        s->x1[*next] = v3_load(&k->scratch.x1[3 * (size_t)v]);
        s->v1[*next] = v3_scale(v3_sub(s->x1[*next], s->x0[*next]), 1.0 / h);
        s->inv_mass[*next] = 0.0;
        s->reacting[*next] = k->scratch.pushes_body ? index : -1;
    }
}

/* The response's positions and velocities back into the cloth's step, marking the vertices
 * it moved (and keeping the marks there were with keep_collided). */
static void scatter_cloth(const collision_scratch *s, cloth *c, bool keep_collided, int32_t *next)
{
    for (int32_t v = 0; v < c->model.vertex_count; v++, (*next)++) {
        vec3 before = v3_load(&c->scratch.x_new[3 * (size_t)v]), velocity = v3_load(&c->scratch.v_new[3 * (size_t)v]);
        c->state.collided[v] = (keep_collided && c->state.collided[v]) ||
                               v3_len2(v3_sub(before, s->x1[*next])) > 0.0 ||
                               v3_len2(v3_sub(velocity, s->v1[*next])) > 0.0;
        v3_store(&c->scratch.x_new[3 * (size_t)v], s->x1[*next]);
        v3_store(&c->scratch.v_new[3 * (size_t)v], s->v1[*next]);
        if (s->pushed_by[*next] >= 0) c->scratch.pushed_by[v] = s->pushed_by[*next];
    }
}

/* Proximity, then impulse rounds, then (where allowed) impact zones; false when memory ran
 * out. */
static bool respond(collision_scratch *s, cloth *const *cloths, int32_t cloth_count, int32_t vertices, double h,
                    bool allow_zones, collision_report *report)
{
    if (!current_pairs(s, report)) return false;
    report->proximity = proximity_pass(s, cloths, cloth_count, h, report);
    if (s->out_of_memory) return false;
    int32_t hits = 1;
    for (int32_t round = 0; round < IMPULSE_ROUNDS && hits > 0; round++) {
        if (!current_pairs(s, report)) return false;
        int32_t before = hits;
        hits = impulse_round(s, vertices, round == 0);
        report->impulses += hits;
        if (!allow_zones && round > 0 && !impulses_can_finish(before, hits, round + 1)) break;
    }
    if (hits > 0 && !allow_zones) {
        report->needs_zones = true;
        report->unresolved = hits;
        return true;
    }
    if (hits > 0) report->zone_rounds = impact_zones(s, vertices, h, report);
    return !s->out_of_memory;
}

bool collisions_set_untangle(collision_scratch **scratch, const struct untangle_plan *plan)
{
    if (!*scratch && !(*scratch = calloc(1, sizeof **scratch))) return false;
    (*scratch)->untangle = plan;
    return true;
}

bool collisions_resolve(collision_scratch **scratch, cloth *const *cloths, int32_t cloth_count,
                        collider *const *colliders, int32_t collider_count, double h, bool allow_zones,
                        bool keep_collided, collision_report *report)
{
    memset(report, 0, sizeof *report);
    bool any = collider_count > 0 || cloth_count > 1;
    for (int32_t i = 0; i < cloth_count && !any; i++) any = cloths[i]->model.self_collision;
    if (!any) {
        for (int32_t i = 0; i < cloth_count && !keep_collided; i++)
            memset(cloths[i]->state.collided, 0, (size_t)cloths[i]->model.vertex_count);
        return true;
    }
    if (!*scratch && !(*scratch = calloc(1, sizeof **scratch))) return false;
    collision_scratch *s = *scratch;
    s->out_of_memory = false;
    int64_t vertices = 0; /* the world keeps the sum within int32 (world.c); checked again here */
    for (int32_t i = 0; i < cloth_count; i++) vertices += cloths[i]->model.vertex_count;
    for (int32_t i = 0; i < collider_count; i++) vertices += colliders[i]->model.vertex_count;
    if (vertices > MAX_MESH_COUNT || !reserve(s, (int32_t)vertices, cloth_count + collider_count)) return false;
    s->vertex_count = (int32_t)vertices;

    int32_t next = 0;
    s->object_count = 0;
    s->colliders = colliders;
    for (int32_t i = 0; i < cloth_count; i++) {
        gather_cloth(s, cloths[i], &next);
        s->objects[s->object_count - 1].index = i;
    }
    for (int32_t i = 0; i < collider_count; i++) {
        gather_collider(s, colliders[i], i, h, &next);
        s->objects[s->object_count - 1].index = i;
    }
    if (!respond(s, cloths, cloth_count, (int32_t)vertices, h, allow_zones, report)) return false;
    if (report->needs_zones) return true;
    next = 0;
    for (int32_t i = 0; i < cloth_count; i++) scatter_cloth(s, cloths[i], keep_collided, &next);
    return true;
}
