/* One substep of the rigid bodies (course notes, "Rigid Body Simulation" and "Collision and
 * Contact"; Baraff 1989 §8; Baraff 1994):
 *   1. forces: gravity and damping change the momenta P, L;
 *   2. contacts: sort and sweep, then contact points between shapes, grouped into islands;
 *   3. resting contact: per island, the velocity-level complementarity problem with Coulomb
 *      friction (bounds ±μ λn, the first friction axis along the sliding direction), where a
 *      gap may close within the step but no further (speculative contact);
 *   4. collisions: contacts that closed faster than gravity alone would make them bounce, all
 *      at once (simultaneous model): v⁺ >= -e v⁻ per contact (e: product of restitutions);
 *   5. integration: free flight exactly (x += h (v0 + v1)/2 under gravity), orientation by
 *      RK4 from L; a bounce starts at the moment of contact within the step;
 *   6. drift: overlaps left by round-off are removed by pseudo-velocities that move bodies
 *      without giving them velocity (no energy is added).
 * Joints (rigid_step_joints.c) add their rows to their island's problem (joined bodies are one
 * island), hold through the bounces, and their drift is projected away after step 6.
 * Islands small enough are solved exactly by pivoting, larger ones by Gauss-Seidel. Pivoting
 * is tried on an island only where it is likely to end within its budget: few rows, or none of
 * its contacts left to Gauss-Seidel the step before (a resting stack, new contacts); elsewhere
 * (a pile settling, where it almost never ends) only every PIVOT_RETRY-th substep. */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rigid_scratch.h"
#include "rigid_sleep.h"
#include "threads.h"
#include "union_find.h"

enum { DIRECT_MAX = 120, DIRECT_ALWAYS = 24, PIVOT_RETRY = 16, CORRECTION_SWEEPS = 10 };
/* Islands with joints are pivoted up to more rows: equality rows need no pivots (one
 * factorisation), and Gauss-Seidel converges slowly along chains (a 50-link chain drifts
 * millimetres with it, femtometres pivoted). */
enum { JOINT_DIRECT_MAX = 240 };
#define CORRECTION_RATE 0.2 /* fraction of an overlap removed per step */
#define CORRECTION_SLOP 0.05 /* overlap left alone, as a fraction of the contact margin */

void rigid_scratch_free(rigid_scratch *s)
{
    if (!s) return;
    free(s->x_saved), free(s->p_saved), free(s->l_saved), free(s->q_saved);
    free(s->v), free(s->w), free(s->v_start), free(s->v_forced), free(s->pv), free(s->pw);
    free(s->inv_mass), free(s->bounce_at), free(s->inv_inertia), free(s->bounds), free(s->parent);
    broadphase_free(&s->bp);
    for (int32_t i = 0; i < s->narrow_count; i++) narrow_scratch_free(&s->narrow[i]);
    free(s->narrow), free(s->pairs);
    free(s->manifolds), free(s->keys), free(s->island_first), free(s->contacts), free(s->rows), free(s->extra), free(s->extra_contact);
    free(s->cache), free(s->next_cache);
    free(s->joint_entries), free(s->joint_rows), free(s->island_rows), free(s->joint_slots), free(s->apart);
    free(s->sleep_pairs), free(s->woken), free(s->still_saved), free(s->group_saved);
    row_solver_free(&s->solver);
    free(s);
}

bool rigid_scratch_reserve(rigid_scratch *s, int32_t n)
{
    if (n <= s->capacity) return true;
    vec3 **vectors[] = {&s->x_saved, &s->p_saved, &s->l_saved, &s->v, &s->w, &s->v_start, &s->v_forced, &s->pv, &s->pw};
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        free(*vectors[i]);
        if (!(*vectors[i] = malloc((size_t)n * sizeof(vec3)))) return false;
    }
    free(s->q_saved), free(s->inv_mass), free(s->bounce_at), free(s->inv_inertia), free(s->bounds), free(s->parent);
    free(s->woken), free(s->still_saved), free(s->group_saved), free(s->island_first);
    s->woken = malloc((size_t)n);
    s->island_first = malloc(((size_t)n + 1) * sizeof *s->island_first);
    s->still_saved = malloc((size_t)n * sizeof *s->still_saved);
    s->group_saved = malloc((size_t)n * sizeof *s->group_saved);
    s->q_saved = malloc((size_t)n * sizeof *s->q_saved);
    s->inv_mass = malloc((size_t)n * sizeof *s->inv_mass);
    s->bounce_at = malloc((size_t)n * sizeof *s->bounce_at);
    s->inv_inertia = malloc((size_t)n * sizeof *s->inv_inertia);
    s->bounds = malloc((size_t)n * sizeof *s->bounds);
    s->parent = malloc((size_t)n * sizeof *s->parent);
    if (!s->q_saved || !s->inv_mass || !s->bounce_at || !s->inv_inertia || !s->bounds || !s->parent || !s->woken ||
        !s->still_saved || !s->group_saved || !s->island_first)
        return false;
    s->capacity = n;
    return true;
}

/* --- forces, kinematic motion, bounds ---------------------------------------------------- */

/* Body i's velocities for the step of length h that ends at world time `end` (a kinematic body
 * is there then): a sleeping body stands still, like a static one. */
static void load_body(rigid_system *sys, rigid_scratch *s, int32_t i, double end, double h)
{
    vec3 g = sys->settings.gravity;
    {
        rigid_body *b = sys->bodies[i];
        s->bounce_at[i] = -1.0;
        if (rigid_body_awake(b)) {
            s->v_start[i] = b->state.v;
            b->state.P = v3_scale(v3_madd(b->state.P, g, h * b->model.mass), pow(1.0 - b->model.linear_damping, h));
            b->state.L = v3_scale(b->state.L, pow(1.0 - b->model.angular_damping, h));
            rigid_body_update_derived(b);
            s->v[i] = s->v_forced[i] = b->state.v;
            s->w[i] = b->state.w;
            s->inv_mass[i] = b->model.inv_mass;
            s->inv_inertia[i] = b->state.inv_inertia_world;
        } else {
            s->inv_mass[i] = 0.0;
            s->inv_inertia[i] = m3_zero();
            s->v[i] = s->w[i] = v3(0, 0, 0);
            if (b->model.type == SB_BODY_KINEMATIC) { /* the velocity that takes it to its next pose */
                vec3 x1;
                quat q1;
                rigid_body_kinematic_pose(b, end, &x1, &q1);
                s->v[i] = v3_scale(v3_sub(x1, b->state.x), 1.0 / h);
                s->w[i] = v3_scale(q_to_rotation_vector(q_mul(q1, q_conj(b->state.q))), 1.0 / h);
            }
            s->v_forced[i] = s->v[i];
        }
        double sweep = h * (v3_len(s->v[i]) + v3_len(s->w[i]) * b->model.radius);
        s->bounds[i] = rigid_body_bounds(b, sys->settings.contact_margin + sweep);
    }
}

static void load_velocities(rigid_system *sys, rigid_scratch *s, double end, double h)
{
    for (int32_t i = 0; i < sys->body_count; i++) load_body(sys, s, i, end, h);
    int32_t world = sys->body_count; /* the world's slot: the far end of joints to it */
    s->v[world] = s->w[world] = s->v_forced[world] = v3(0, 0, 0);
    s->inv_mass[world] = 0.0, s->inv_inertia[world] = m3_zero();
}

/* --- contacts --------------------------------------------------------------------------------- */

typedef struct pair_context {
    const rigid_system *sys;
    rigid_scratch *s;
} pair_context;

/* A kinematic body that moves this step. */
static bool moving(const rigid_scratch *s, const rigid_body *b, int32_t i)
{
    return b->model.type == SB_BODY_KINEMATIC && (v3_len2(s->v[i]) > 0.0 || v3_len2(s->w[i]) > 0.0);
}

/* Tested for contact: bodies in a common collision group, not kept apart by a joint, one of
 * them awake and dynamic, or one asleep and the other a kinematic body that moves (to wake
 * it). Two sleeping bodies are only noted, for waking (rigid_sleep.h). */
static bool want_pair(void *ctx, int32_t a, int32_t b)
{
    pair_context *pc = ctx;
    const rigid_body *ba = pc->sys->bodies[a], *bb = pc->sys->bodies[b];
    if (!(ba->model.collision_groups & bb->model.collision_groups)) return false;
    if (pc->s->apart_count > 0 && rigid_joints_apart(pc->s, a, b)) return false;
    if (rigid_body_awake(ba) || rigid_body_awake(bb)) return true;
    bool sleep_a = ba->state.sleep_group != SLEEP_AWAKE, sleep_b = bb->state.sleep_group != SLEEP_AWAKE;
    if (sleep_a && sleep_b) {
        if (!rigid_sleep_note_pair(pc->s, a, b)) pc->s->out_of_memory = true;
        return false;
    }
    return (sleep_a && moving(pc->s, bb, b)) || (sleep_b && moving(pc->s, ba, a));
}

static void report_pair(void *ctx, int32_t a, int32_t b)
{
    rigid_scratch *s = ((pair_context *)ctx)->s;
    if (!grow((void **)&s->pairs, &s->pair_capacity, s->pair_count + 1, sizeof *s->pairs)) {
        s->out_of_memory = true;
        return;
    }
    s->pairs[s->pair_count][0] = a, s->pairs[s->pair_count++][1] = b;
}

/* Manifolds of the broad phase's pairs, in parallel (each pair into its own slot), then
 * those that touch packed in pair order: the same whatever the thread count. */
static bool collide_pairs(const rigid_system *sys, rigid_scratch *s, double h)
{
    int32_t threads = thread_count();
    if (threads > s->narrow_count) {
        narrow_scratch *more = realloc(s->narrow, (size_t)threads * sizeof *more);
        if (!more) return false;
        memset(more + s->narrow_count, 0, (size_t)(threads - s->narrow_count) * sizeof *more);
        s->narrow = more, s->narrow_count = threads;
    }
    if (!grow((void **)&s->manifolds, &s->manifold_capacity, s->pair_count, sizeof *s->manifolds)) return false;
    for (int32_t i = 0; i < s->narrow_count; i++) narrow_scratch_forget(&s->narrow[i]);
    bool failed = false;
#pragma omp parallel for schedule(dynamic, 32) reduction(|| : failed) if (s->pair_count > 256)
    for (int32_t i = 0; i < s->pair_count; i++) {
        int32_t a = s->pairs[i][0], b = s->pairs[i][1];
        const rigid_body *ba = sys->bodies[a], *bb = sys->bodies[b];
        /* as far as the pair can close within the step, plus the contact margin */
        double closing_speed = v3_len(v3_sub(s->v[a], s->v[b])) + v3_len(s->w[a]) * ba->model.radius +
                               v3_len(s->w[b]) * bb->model.radius;
        double reach = sys->settings.contact_margin + h * closing_speed;
        rigid_manifold *m = &s->manifolds[i];
        if (!collide_bodies(ba, bb, reach, &s->narrow[thread_index()], m)) {
            failed = true, m->count = 0;
            continue;
        }
        m->a = m->swapped ? b : a;
        m->b = m->swapped ? a : b;
    }
    /* the points in use only: a manifold holds MANIFOLD_MAX of them, a pair of boxes 4 */
    s->manifold_count = 0;
    for (int32_t i = 0; i < s->pair_count; i++) {
        const rigid_manifold *from = &s->manifolds[i];
        if (from->count == 0) continue;
        rigid_manifold *to = &s->manifolds[s->manifold_count++];
        if (to == from) continue;
        to->a = from->a, to->b = from->b, to->swapped = from->swapped, to->count = from->count;
        memcpy(to->points, from->points, (size_t)from->count * sizeof *from->points);
    }
    return !failed;
}

/* Contact points of the step, grouped by island (connected dynamic bodies), in a fixed order. */
static bool find_contacts(const rigid_system *sys, rigid_scratch *s, double h)
{
    s->pair_count = s->sleep_pair_count = 0;
    s->out_of_memory = false;
    pair_context pc = {sys, s};
    if (!broadphase_pairs(&s->bp, s->bounds, sys->body_count, want_pair, report_pair, &pc) || s->out_of_memory ||
        !collide_pairs(sys, s, h))
        return false;
    int32_t count = 0;
    union_find_reset(s->parent, sys->body_count);
    for (int32_t m = 0; m < s->manifold_count; m++) {
        const rigid_manifold *mf = &s->manifolds[m];
        count += mf->count;
        if (rigid_body_awake(sys->bodies[mf->a]) && rigid_body_awake(sys->bodies[mf->b]))
            union_find_unite(s->parent, mf->a, mf->b);
    }
    rigid_joints_unite(sys, s); /* joined bodies are one island */
    if (!grow((void **)&s->contacts, &s->contact_capacity, count, sizeof *s->contacts) ||
        !grow((void **)&s->rows, &s->row_capacity, 3 * count, sizeof *s->rows) ||
        !grow((void **)&s->extra, &s->extra_capacity, count, sizeof *s->extra) ||
        !grow((void **)&s->extra_contact, &s->extra_contact_capacity, count, sizeof *s->extra_contact) ||
        !grow((void **)&s->keys, &s->key_capacity, count, sizeof *s->keys))
        return false;
    order_key *keys = s->keys;
    int32_t k = 0;
    for (int32_t m = 0; m < s->manifold_count; m++) {
        const rigid_manifold *mf = &s->manifolds[m];
        int32_t dynamic = rigid_body_awake(sys->bodies[mf->a]) ? mf->a : mf->b;
        for (int32_t p = 0; p < mf->count; p++) keys[k++] = (order_key){union_find_root(s->parent, dynamic), m, p};
    }
    /* ordered by (island, manifold, point): the keys come in (manifold, point) order, so a
     * counting sort by island (stable) gives that order in linear time (qsort took 5% of a
     * settling pile's substep) */
    int32_t *first = s->island_first, bodies = sys->body_count;
    memset(first, 0, ((size_t)bodies + 1) * sizeof *first);
    for (int32_t i = 0; i < count; i++) first[keys[i].island + 1]++;
    for (int32_t b = 0; b < bodies; b++) first[b + 1] += first[b];
    for (int32_t i = 0; i < count; i++) {
        const rigid_manifold *mf = &s->manifolds[keys[i].manifold];
        const rigid_contact *c = &mf->points[keys[i].point];
        double restitution = sys->bodies[mf->a]->model.restitution * sys->bodies[mf->b]->model.restitution;
        s->contacts[first[keys[i].island]++] = (contact_entry){mf->a, mf->b, keys[i].island, c->point, c->normal,
                                                              c->separation, 0.0, restitution, false, false};
    }
    s->contact_count = count;
    return true;
}

static int compare_cache(const void *pa, const void *pb)
{
    const cached_contact *a = pa, *b = pb;
    if (a->a != b->a) return (a->a > b->a) - (a->a < b->a);
    return (a->b > b->b) - (a->b < b->b);
}

/* The last step's contact of (a, b) nearest to `local` (a's frame), if close enough. */
static const cached_contact *find_cached(const rigid_scratch *s, int32_t a, int32_t b, vec3 local, double tolerance)
{
    cached_contact key = {.a = a, .b = b};
    int32_t lo = 0, hi = s->cache_count;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (compare_cache(&s->cache[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    const cached_contact *best = NULL;
    double best_d = tolerance * tolerance;
    for (int32_t i = lo; i < s->cache_count && s->cache[i].a == a && s->cache[i].b == b; i++) {
        double d = v3_len2(v3_sub(s->cache[i].local, local));
        if (d < best_d) best_d = d, best = &s->cache[i];
    }
    return best;
}

static vec3 any_perpendicular(vec3 n)
{
    vec3 axis = fabs(n.x) < 0.57 ? v3(1, 0, 0) : (fabs(n.y) < 0.57 ? v3(0, 1, 0) : v3(0, 0, 1));
    vec3 t = v3_cross(n, axis);
    return v3_scale(t, 1.0 / v3_len(t));
}

/* Rows 3i..3i+2 of contact i: its normal and two friction directions, the first along the
 * sliding (so sliding meets exactly μ λn), warm-started from the last step. */
static void build_rows(const rigid_system *sys, rigid_scratch *s, int32_t i, double h)
{
    contact_entry *c = &s->contacts[i];
    const rigid_body *a = sys->bodies[c->a], *b = sys->bodies[c->b];
    vec3 ra = v3_sub(c->point, a->state.x), rb = v3_sub(c->point, b->state.x);
    vec3 rel = v3_sub(v3_add(s->v[c->a], v3_cross(s->w[c->a], ra)), v3_add(s->v[c->b], v3_cross(s->w[c->b], rb)));
    c->approach = v3_dot(rel, c->normal);
    vec3 slide = v3_madd(rel, c->normal, -c->approach);
    double slide_len = v3_len(slide);
    vec3 t1 = slide_len > 1e-9 ? v3_scale(slide, 1.0 / slide_len) : any_perpendicular(c->normal);
    vec3 dirs[3] = {c->normal, t1, v3_cross(c->normal, t1)};
    const cached_contact *cached =
        find_cached(s, c->a, c->b, m3_tmul_v(a->state.R, ra), 0.05 * fmax(a->model.radius, 1e-3));
    for (int k = 0; k < 3; k++) {
        contact_row *r = &s->rows[3 * i + k];
        *r = (contact_row){.a = c->a, .b = c->b, .lin = dirs[k], .ang_a = v3_cross(ra, dirs[k]),
                           .ang_b = v3_cross(rb, dirs[k]), .lo = k == 0 ? 0.0 : -INFINITY, .hi = INFINITY,
                           .normal_back = k, .mu = a->model.friction * b->model.friction};
        if (k == 0) r->bias = fmax(c->separation, 0.0) / h; /* may close the gap, no further */
        if (cached) r->lambda = h * (k == 0 ? cached->normal : v3_dot(cached->friction, dirs[k]));
        r->warm = cached != NULL;
    }
    c->was_inexact = cached && !cached->exact;
}

/* Bounces of an island's contacts [begin, end) that closed fast this step, all at once, with
 * its joint rows [joint_begin, joint_end) held (their impulses added to the joints'). */
static bool bounce(const rigid_system *sys, rigid_scratch *s, velocity_view *view, int32_t begin, int32_t end, double h,
                   int32_t direct_max, int32_t joint_begin, int32_t joint_end)
{
    double threshold = 2.0 * h * v3_len(sys->settings.gravity) + 1e-3;
    int32_t n = 0;
    bool any = false;
    for (int32_t i = begin; i < end; i++) {
        const contact_entry *c = &s->contacts[i];
        if (!(s->rows[3 * i].lambda > 0.0)) continue; /* did not touch this step */
        bool colliding = c->restitution > 0.0 && c->approach < -threshold;
        any = any || colliding;
        contact_row r = s->rows[3 * i];
        r.bias = colliding ? c->restitution * c->approach : 0.0; /* J v >= -e v⁻ */
        r.lambda = 0.0;
        s->extra[n] = r;
        s->extra_contact[n++] = i;
    }
    if (!any) return true; /* the rows are copies, prepared already */
    int32_t contact_extras = n;
    for (int32_t i = joint_begin; i < joint_end; i++) {
        contact_row r = s->joint_rows[i];
        if (s->joint_slots[i] >= MOTOR_SLOT) continue;         /* motors and springs push in time */
        if (r.lo > -INFINITY && !(r.lambda > 0.0)) continue; /* a limit not touched */
        r.bias = 0.0, r.lambda = 0.0;
        s->extra[n] = r;
        s->extra_contact[n++] = i;
    }
    if (rows_solve(&s->solver, s->extra, n, view, direct_max, sys->settings.iterations, false) == -2) return false;
    for (int32_t k = contact_extras; k < n; k++) s->joint_rows[s->extra_contact[k]].lambda += s->extra[k].lambda;
    for (int32_t k = 0; k < contact_extras; k++) {
        const contact_entry *c = &s->contacts[s->extra_contact[k]];
        if (!(s->extra[k].lambda > 0.0) || !(c->restitution > 0.0 && c->approach < -threshold)) continue;
        s->rows[3 * s->extra_contact[k]].lambda += s->extra[k].lambda; /* in the force statistics */
        /* the part of the step before the bodies met */
        double before = fmin(fmax(fmax(c->separation, 0.0) / (-c->approach * h), 0.0), 1.0);
        int32_t bodies[2] = {c->a, c->b};
        for (int j = 0; j < 2; j++)
            if (s->inv_mass[bodies[j]] > 0.0)
                s->bounce_at[bodies[j]] = s->bounce_at[bodies[j]] < 0.0 ? before : fmin(s->bounce_at[bodies[j]], before);
    }
    return true;
}

/* Contact forces for the statistics, and the impulses for the next step's warm start. */
/* One stable counting-sort pass of from[0, count) into to, by body a (by_a) or b. */
static void count_pass(const cached_contact *from, cached_contact *to, int32_t count, int32_t *first, int32_t bodies,
                       bool by_a)
{
    memset(first, 0, ((size_t)bodies + 1) * sizeof *first);
    for (int32_t i = 0; i < count; i++) first[(by_a ? from[i].a : from[i].b) + 1]++;
    for (int32_t k = 0; k < bodies; k++) first[k + 1] += first[k];
    for (int32_t i = 0; i < count; i++) to[first[by_a ? from[i].a : from[i].b]++] = from[i];
}

/* next_cache[0, count) sorted by (a, b) for find_cached, contacts of one pair in the order
 * remember() gave them: by b, then stably by a (two linear passes; glibc's qsort, a stable
 * merge sort, gave the same order in 2.4% of a wall's substeps). The old cache, no longer
 * read, is the buffer between the passes. */
static bool sort_cache(rigid_scratch *s, int32_t bodies, int32_t count)
{
    if (count <= 1) return true;
    if (!grow((void **)&s->cache, &s->cache_capacity, count, sizeof *s->cache)) return false;
    count_pass(s->next_cache, s->cache, count, s->island_first, bodies, false);
    count_pass(s->cache, s->next_cache, count, s->island_first, bodies, true);
    return true;
}

static bool remember(rigid_system *sys, rigid_scratch *s, double h)
{
    for (int32_t i = 0; i < sys->body_count; i++) {
        sys->bodies[i]->state.contact_force = v3(0, 0, 0);
        sys->bodies[i]->state.contacts = 0;
    }
    int32_t kept = 0; /* warm starts of sleeping bodies' contacts, for when they wake */
    for (int32_t i = 0; i < s->cache_count; i++)
        kept += sys->bodies[s->cache[i].a]->state.sleep_group != SLEEP_AWAKE ||
                sys->bodies[s->cache[i].b]->state.sleep_group != SLEEP_AWAKE;
    if (!grow((void **)&s->next_cache, &s->next_capacity, s->contact_count + kept, sizeof *s->next_cache)) return false;
    for (int32_t i = 0; i < s->contact_count; i++) {
        const contact_entry *c = &s->contacts[i];
        const contact_row *r = &s->rows[3 * i];
        vec3 force = v3_scale(v3_add(v3_add(v3_scale(r[0].lin, r[0].lambda), v3_scale(r[1].lin, r[1].lambda)),
                                     v3_scale(r[2].lin, r[2].lambda)), 1.0 / h);
        rigid_body *a = sys->bodies[c->a], *b = sys->bodies[c->b];
        a->state.contact_force = v3_add(a->state.contact_force, force);
        b->state.contact_force = v3_sub(b->state.contact_force, force);
        if (r[0].lambda > 0.0) a->state.contacts++, b->state.contacts++;
        s->next_cache[i] = (cached_contact){c->a, c->b, m3_tmul_v(a->state.R, v3_sub(c->point, a->state.x)),
                                            r[0].lambda / h,
                                            v3_scale(v3_add(v3_scale(r[1].lin, r[1].lambda), v3_scale(r[2].lin, r[2].lambda)), 1.0 / h),
                                            c->exact};
    }
    int32_t count = s->contact_count;
    for (int32_t i = 0; i < s->cache_count && kept > 0; i++)
        if (sys->bodies[s->cache[i].a]->state.sleep_group != SLEEP_AWAKE ||
            sys->bodies[s->cache[i].b]->state.sleep_group != SLEEP_AWAKE)
            s->next_cache[count++] = s->cache[i];
    if (!sort_cache(s, sys->body_count, count)) return false;
    cached_contact *swap = s->cache;
    s->cache = s->next_cache, s->next_cache = swap;
    int32_t capacity = s->cache_capacity;
    s->cache_capacity = s->next_capacity, s->next_capacity = capacity;
    s->cache_count = count;
    return true;
}

static void integrate(rigid_system *sys, rigid_scratch *s, double end, double h)
{
    for (int32_t i = 0; i < sys->body_count; i++) {
        rigid_body *b = sys->bodies[i];
        if (b->model.type == SB_BODY_KINEMATIC) {
            rigid_body_kinematic_pose(b, end, &b->state.x, &b->state.q);
            rigid_body_update_derived(b);
            b->state.v = s->v[i], b->state.w = s->w[i]; /* of the step it took */
            continue;
        }
        if (!rigid_body_awake(b)) continue;
        sys->body_moves++;
        vec3 v1 = s->v[i];
        bool free_flight = v3_len2(v3_sub(v1, s->v_forced[i])) == 0.0 && v3_len2(v3_sub(s->w[i], b->state.w)) == 0.0;
        b->state.P = v3_scale(v1, b->model.mass);
        b->state.L = rigid_body_angular_momentum(b, s->w[i]);
        if (free_flight) { /* exact under constant forces */
            b->state.x = v3_add(b->state.x, v3_scale(v3_add(s->v_start[i], v1), 0.5 * h));
        } else if (s->bounce_at[i] > 0.0) { /* up to the contact at the old velocity, then away */
            double before = s->bounce_at[i];
            vec3 mean_v = v3_add(v3_scale(s->v_forced[i], before), v3_scale(v1, 1.0 - before));
            b->state.x = v3_add(b->state.x, v3_scale(mean_v, h));
        } else {
            b->state.x = v3_madd(b->state.x, v1, h);
        }
        b->state.q = rigid_body_turn(b, b->state.q, h);
        rigid_body_update_derived(b);
    }
}

/* Pushes apart what still overlaps by more than the slop, with pseudo-velocities that move
 * the bodies but are not kept as velocity. */
static bool correct_overlaps(rigid_system *sys, rigid_scratch *s, double h)
{
    double slop = CORRECTION_SLOP * sys->settings.contact_margin;
    int32_t n = 0;
    for (int32_t i = 0; i < sys->body_count; i++) s->pv[i] = s->pw[i] = v3(0, 0, 0);
    velocity_view final_view = {s->v, s->w, s->inv_mass, s->inv_inertia};
    for (int32_t i = 0; i < s->contact_count; i++) {
        /* the gap at the end of the step, from the gap at its start and the final velocities */
        double gap = s->contacts[i].separation + h * row_velocity(&s->rows[3 * i], &final_view);
        if (gap >= -slop) continue;
        contact_row r = s->rows[3 * i];
        r.bias = CORRECTION_RATE * (gap + slop) / h;
        r.lambda = 0.0;
        s->extra[n++] = r;
    }
    if (n == 0) return true;
    velocity_view pseudo = {s->pv, s->pw, s->inv_mass, s->inv_inertia}; /* rows prepared for these masses */
    if (rows_solve(&s->solver, s->extra, n, &pseudo, 0, CORRECTION_SWEEPS, false) == -2) return false;
    for (int32_t i = 0; i < sys->body_count; i++) {
        rigid_body *b = sys->bodies[i];
        if (!rigid_body_awake(b)) continue;
        b->state.x = v3_madd(b->state.x, s->pv[i], h);
        b->state.q = q_normalize(q_mul(q_from_rotation_vector(v3_scale(s->pw[i], h)), b->state.q));
        rigid_body_update_derived(b);
    }
    return true;
}

/* The island's contacts [begin, end) and joints [joint, joint_end) as one problem: pivoting
 * where it is small or was solved exactly before, Gauss-Seidel otherwise; then its bounces. */
static bool solve_island(const rigid_system *sys, rigid_scratch *s, velocity_view *view, int32_t begin, int32_t end,
                         int32_t joint, int32_t joint_end, double h, bool retry)
{
    int32_t contact_rows = 3 * (end - begin), joint_begin = 0, joint_rows = 0;
    if (joint < joint_end) {
        const joint_entry *last = &s->joint_entries[joint_end - 1];
        joint_begin = s->joint_entries[joint].row_begin;
        joint_rows = last->row_begin + last->row_count - joint_begin;
    }
    bool resting = true, exact_start = true; /* exact_start: every contact solved exactly last substep */
    for (int32_t i = begin; i < end; i++) {
        resting = resting && !s->contacts[i].was_inexact;
        exact_start = exact_start && s->rows[3 * i].warm && !s->contacts[i].was_inexact;
    }
    int32_t count = contact_rows + joint_rows;
    int32_t direct_max = resting || retry || count <= DIRECT_ALWAYS ? (joint_rows > 0 ? JOINT_DIRECT_MAX : DIRECT_MAX) : 0;
    contact_row *rows = contact_rows > 0 ? &s->rows[3 * begin] : NULL; /* NULL: no contacts allocated yet */
    if (joint_rows > 0) { /* contact rows first: a friction row finds its normal as before */
        rows = s->island_rows;
        /* an island of joints alone has no contact rows, and s->rows may be NULL then */
        if (contact_rows > 0) memcpy(rows, &s->rows[3 * begin], (size_t)contact_rows * sizeof *rows);
        memcpy(rows + contact_rows, &s->joint_rows[joint_begin], (size_t)joint_rows * sizeof *rows);
    }
    /* joints' rows: warm, but not known to be exact; islands with them keep their sweeps */
    int32_t pivots = rows_solve(&s->solver, rows, count, view, direct_max, sys->settings.iterations,
                                exact_start && joint_rows == 0 && end > begin);
    if (pivots == -2) return false;
    if (joint_rows > 0) {
        if (contact_rows > 0) memcpy(&s->rows[3 * begin], rows, (size_t)contact_rows * sizeof *rows);
        memcpy(&s->joint_rows[joint_begin], rows + contact_rows, (size_t)joint_rows * sizeof *rows);
    }
    for (int32_t i = begin; i < end; i++) s->contacts[i].exact = pivots >= 0;
    for (int32_t e = joint; e < joint_end; e++) s->joint_entries[e].exact = pivots >= 0;
    return bounce(sys, s, view, begin, end, h, direct_max, joint_begin, joint_begin + joint_rows);
}

bool rigid_substep(rigid_system *sys, double t, double span, double h)
{
    rigid_scratch *s = sys->scratch;
    double t_end = t + span;
    load_velocities(sys, s, t_end, h);
    if (!rigid_joints_filter(sys, s)) return false;
    for (;;) { /* again with the bodies that wake, until none does */
        if (!find_contacts(sys, s, h)) return false;
        sys->pair_tests += s->pair_count;
        if (rigid_sleep_wake(sys, s) == 0) break;
        for (int32_t i = 0; i < sys->body_count; i++)
            if (s->woken[i]) load_body(sys, s, i, t_end, h);
    }
    velocity_view view = {s->v, s->w, s->inv_mass, s->inv_inertia};
    for (int32_t i = 0; i < s->contact_count; i++) build_rows(sys, s, i, h);
    rows_prepare(s->rows, 3 * s->contact_count, &view);
    if (!rigid_joints_build_rows(sys, s, &view, h)) return false;
    bool retry = llround(t / span) % PIVOT_RETRY == 0;
    /* islands in the order of their roots, each with its contacts and its joints */
    for (int32_t begin = 0, joint = 0; begin < s->contact_count || joint < s->joint_entry_count;) {
        int32_t island = begin < s->contact_count ? s->contacts[begin].island : INT32_MAX;
        if (joint < s->joint_entry_count && s->joint_entries[joint].island < island)
            island = s->joint_entries[joint].island;
        int32_t end = begin, joint_end = joint;
        while (end < s->contact_count && s->contacts[end].island == island) end++;
        while (joint_end < s->joint_entry_count && s->joint_entries[joint_end].island == island) joint_end++;
        if (!solve_island(sys, s, &view, begin, end, joint, joint_end, h, retry)) return false;
        begin = end, joint = joint_end;
    }
    if (!remember(sys, s, h)) return false;
    rigid_joints_remember(sys, s, t_end, h);
    integrate(sys, s, t_end, h);
    if (!correct_overlaps(sys, s, h) || !rigid_joints_correct(sys, s, h)) return false;
    rigid_sleep_update(sys, s, h);
    return true;
}

