#include "rigid_contact_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One body's part of J_i M⁻¹ J_jᵀ: row j's angular part already carries I⁻¹ (its turn). */
static double body_term(const velocity_view *view, int32_t body, vec3 lin_i, vec3 ang_i, vec3 lin_j, vec3 turn_j)
{
    return view->inv_mass[body] * v3_dot(lin_i, lin_j) + v3_dot(ang_i, turn_j);
}

void rows_prepare(contact_row *rows, int32_t count, const velocity_view *view)
{
    for (int32_t i = 0; i < count; i++) {
        contact_row *r = &rows[i];
        r->turn_a = m3_mul_v(view->inv_inertia[r->a], r->ang_a);
        r->turn_b = m3_mul_v(view->inv_inertia[r->b], r->ang_b);
        r->inv_mass = body_term(view, r->a, r->lin, r->ang_a, r->lin, r->turn_a) +
                      body_term(view, r->b, r->lin, r->ang_b, r->lin, r->turn_b);
    }
}

/* Inline in Gauss-Seidel's inner loop, where the calls cost a quarter of its time. */
static inline double velocity_along(const contact_row *r, const velocity_view *view)
{
    return v3_dot(r->lin, v3_sub(view->v[r->a], view->v[r->b])) + v3_dot(r->ang_a, view->w[r->a]) -
           v3_dot(r->ang_b, view->w[r->b]);
}

static inline void apply_impulse(const contact_row *r, velocity_view *view, double impulse)
{
    if (view->inv_mass[r->a] > 0.0) {
        view->v[r->a] = v3_madd(view->v[r->a], r->lin, impulse * view->inv_mass[r->a]);
        view->w[r->a] = v3_madd(view->w[r->a], r->turn_a, impulse);
    }
    if (view->inv_mass[r->b] > 0.0) {
        view->v[r->b] = v3_madd(view->v[r->b], r->lin, -impulse * view->inv_mass[r->b]);
        view->w[r->b] = v3_madd(view->w[r->b], r->turn_b, -impulse);
    }
}

double row_velocity(const contact_row *r, const velocity_view *view) { return velocity_along(r, view); }

void row_apply(const contact_row *r, velocity_view *view, double impulse) { apply_impulse(r, view, impulse); }

/* Entry (i, j) of J M⁻¹ Jᵀ: the bodies the two rows share. */
static double coupling(const contact_row *ri, const contact_row *rj, const velocity_view *view)
{
    double s = 0.0;
    if (ri->a == rj->a) s += body_term(view, ri->a, ri->lin, ri->ang_a, rj->lin, rj->turn_a);
    if (ri->a == rj->b) s -= body_term(view, ri->a, ri->lin, ri->ang_a, rj->lin, rj->turn_b);
    if (ri->b == rj->a) s -= body_term(view, ri->b, ri->lin, ri->ang_b, rj->lin, rj->turn_a);
    if (ri->b == rj->b) s += body_term(view, ri->b, ri->lin, ri->ang_b, rj->lin, rj->turn_b);
    return s;
}

static bool reserve(row_solver *s, int32_t n)
{
    if (n <= s->capacity) return true;
    lcp *p = &s->problem;
    free(p->a), free(p->b), free(p->lo), free(p->hi), free(p->normal_of), free(p->mu), free(s->x), free(s->state);
    free(s->run_start), free(s->row_first), free(s->row_last);
    size_t m = (size_t)n;
    p->a = malloc(m * m * sizeof *p->a);
    p->b = malloc(m * sizeof *p->b), p->lo = malloc(m * sizeof *p->lo), p->hi = malloc(m * sizeof *p->hi);
    p->normal_of = malloc(m * sizeof *p->normal_of), p->mu = malloc(m * sizeof *p->mu);
    s->x = malloc(m * sizeof *s->x), s->state = malloc(m * sizeof *s->state);
    s->run_start = malloc((m + 1) * sizeof *s->run_start);
    s->row_first = malloc(m * sizeof *s->row_first), s->row_last = malloc(m * sizeof *s->row_last);
    s->capacity = (p->a && p->b && p->lo && p->hi && p->normal_of && p->mu && s->x && s->state && s->run_start &&
                   s->row_first && s->row_last)
                      ? n
                      : 0;
    return s->capacity > 0;
}

void row_solver_free(row_solver *s)
{
    lcp *p = &s->problem;
    free(p->a), free(p->b), free(p->lo), free(p->hi), free(p->normal_of), free(p->mu), free(s->x), free(s->state);
    free(s->run_start), free(s->row_first), free(s->row_last);
    lcp_workspace_free(&s->workspace);
    memset(s, 0, sizeof *s);
}

/* A body whose inverse mass and inertia are zero (static, kinematic, asleep, the world) adds
 * an exact ±0 to coupling()'s sum for finite rows, and that never changes the sum: it starts
 * at +0.0 and cannot become -0.0 (only -0.0 + -0.0 is -0.0 when rounding to nearest). */
static bool moves(const velocity_view *view, int32_t body)
{
    if (view->inv_mass[body] != 0.0) return true;
    const mat3 *m = &view->inv_inertia[body];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (m->m[r][c] != 0.0) return true;
    return false;
}

/* The dense A = J M⁻¹ Jᵀ (+ the springs' compliance on its diagonal): zero but where two rows
 * share a body that moves. Rows come in runs on the same two bodies (the 3 rows of each of a
 * pair's contacts, a joint's rows), so the runs are compared, not the rows: the tower's 120
 * rows are 10 runs, whose 55 pairs replace 7260 pairs of rows. Every entry set goes through
 * coupling(), so A is the same to the bit as from every pair of rows. Each row's span of
 * columns that may be nonzero (the runs it couples with, and its own diagonal when soft) goes
 * to the pivoting, which would otherwise scan A for it. */
static void build_matrix(row_solver *s, const contact_row *rows, int32_t count, const velocity_view *view)
{
    double *a = s->problem.a;
    memset(a, 0, (size_t)count * (size_t)count * sizeof *a);
    int32_t *run = s->run_start, runs = 0; /* run k: rows [run[k], run[k + 1]) */
    for (int32_t i = 0; i < count; i++)
        if (i == 0 || rows[i].a != rows[i - 1].a || rows[i].b != rows[i - 1].b) run[runs++] = i;
    run[runs] = count;
    int *first = s->row_first, *last = s->row_last; /* run g's span at its first row, run[g] */
    for (int32_t g = 0; g < runs; g++) first[run[g]] = count, last[run[g]] = -1;
    for (int32_t g = 0; g < runs; g++) {
        int32_t a0 = rows[run[g]].a, b0 = rows[run[g]].b;
        bool a_moves = moves(view, a0), b_moves = moves(view, b0);
        for (int32_t h = g; h < runs; h++) {
            int32_t c = rows[run[h]].a, d = rows[run[h]].b;
            if (!(a_moves && (a0 == c || a0 == d)) && !(b_moves && (b0 == c || b0 == d))) continue;
            /* h >= g: g's span reaches run h's last row, h's starts at g's first at the latest */
            if (first[run[g]] > run[h]) first[run[g]] = run[h];
            last[run[g]] = run[h + 1] - 1;
            if (first[run[h]] > run[g]) first[run[h]] = run[g];
            if (last[run[h]] < run[g + 1] - 1) last[run[h]] = run[g + 1] - 1;
            for (int32_t i = run[g]; i < run[g + 1]; i++)
                for (int32_t j = h == g ? i : run[h]; j < run[h + 1]; j++)
                    a[(size_t)i * count + j] = a[(size_t)j * count + i] = coupling(&rows[i], &rows[j], view);
        }
    }
    for (int32_t g = runs - 1; g >= 0; g--) /* spread each run's span over its rows */
        for (int32_t i = run[g + 1] - 1; i >= run[g]; i--) first[i] = first[run[g]], last[i] = last[run[g]];
    for (int32_t i = 0; i < count; i++)
        if (rows[i].soft > 0.0) {
            a[(size_t)i * count + i] += rows[i].soft;
            if (first[i] > i) first[i] = i;
            if (last[i] < i) last[i] = i;
        }
    s->problem.row_first = first, s->problem.row_last = last;
}

static void apply_warm_start(const contact_row *rows, int32_t count, velocity_view *view)
{
    for (int32_t i = 0; i < count; i++) apply_impulse(&rows[i], view, rows[i].lambda);
}

/* Sweeps from the impulses already applied (apply_warm_start). */
static void gauss_seidel(contact_row *rows, int32_t count, velocity_view *view, int32_t sweeps)
{
    for (int32_t sweep = 0; sweep < sweeps; sweep++)
        for (int32_t i = 0; i < count; i++) {
            contact_row *r = &rows[i];
            if (!(r->inv_mass > 0.0)) continue;
            double lo = r->lo, hi = r->hi;
            if (r->normal_back > 0) hi = r->mu * rows[i - r->normal_back].lambda, lo = -hi;
            double lambda = r->soft > 0.0 ? r->lambda - (velocity_along(r, view) + r->bias + r->soft * r->lambda) /
                                                (r->inv_mass + r->soft)
                                          : r->lambda - (velocity_along(r, view) + r->bias) / r->inv_mass;
            lambda = lambda < lo ? lo : (lambda > hi ? hi : lambda);
            apply_impulse(r, view, lambda - r->lambda);
            r->lambda = lambda;
        }
}

/* The pivoting's starting partition from Gauss-Seidel's answer: rows strictly inside their
 * bounds are free, the others held where they are. */
static int8_t guessed_state(const contact_row *rows, int32_t i)
{
    const contact_row *r = &rows[i];
    double lo = r->lo, hi = r->hi;
    if (r->normal_back > 0) hi = r->mu * rows[i - r->normal_back].lambda, lo = -hi;
    double band = 1e-6 * (fabs(hi - lo) < INFINITY ? fabs(hi - lo) : fabs(r->lambda)) + 1e-12;
    if (r->lambda <= lo + band) return LCP_LOWER;
    if (r->lambda >= hi - band) return LCP_UPPER;
    return LCP_FREE;
}

enum { PIVOT_BUDGET = 2 };

int32_t rows_solve(row_solver *s, contact_row *rows, int32_t count, velocity_view *view, int32_t direct_max,
                   int32_t sweeps, bool exact_start)
{
    if (count == 0) return 0;
    if (count > direct_max) {
        apply_warm_start(rows, count, view);
        gauss_seidel(rows, count, view, sweeps);
        return -1;
    }
    if (!reserve(s, count) || !lcp_workspace_reserve(&s->workspace, count)) return -2;
    lcp *p = &s->problem;
    p->n = count;
    for (int32_t i = 0; i < count; i++) p->b[i] = row_velocity(&rows[i], view) + rows[i].bias; /* before impulses */
    /* Gauss-Seidel first: cheap, and its answer has the right partition but for a pivot or
     * two wherever contacts persist (bodies at rest, sliding, stacked with mass ratios it
     * converges slowly for), so the pivoting makes it exact for a factorisation or two. New
     * contacts start pushing and sticking. Where contacts come and go (a pile settling) the
     * pivoting rarely ends within its budget, and Gauss-Seidel's answer stands. */
    /* Started from the last substep's exact answer (a resting stack), the pivoting needs no
     * sweeps: its partition is the one to guess, which Gauss-Seidel would only blur (the
     * tower's 120 rows: 0 pivots either way, the sweeps a third of the island's time). If the
     * pivoting gives up from there, the sweeps and the pivoting from their answer follow, as
     * without the start. */
    apply_warm_start(rows, count, view);
    if (!exact_start) gauss_seidel(rows, count, view, sweeps);
    build_matrix(s, rows, count, view);
    for (int32_t i = 0; i < count; i++) {
        p->lo[i] = rows[i].lo, p->hi[i] = rows[i].hi;
        p->normal_of[i] = rows[i].normal_back > 0 ? i - rows[i].normal_back : -1, p->mu[i] = rows[i].mu;
        int32_t normal = i - rows[i].normal_back;
        s->state[i] = !rows[i].warm ? (p->b[normal] > 0.0 && rows[i].normal_back == 0 ? LCP_LOWER : LCP_FREE)
                                    : guessed_state(rows, i);
    }
    for (int32_t i = 0; i < count; i++) s->x[i] = rows[i].lambda;
    int32_t pivots = 0;
    bool solved = lcp_solve_pivoting(p, s->x, s->state, &s->workspace, PIVOT_BUDGET, &pivots);
    if (!solved && exact_start) { /* the last partition no longer holds: as without the start */
        gauss_seidel(rows, count, view, sweeps);
        for (int32_t i = 0; i < count; i++) s->state[i] = guessed_state(rows, i), s->x[i] = rows[i].lambda;
        solved = lcp_solve_pivoting(p, s->x, s->state, &s->workspace, PIVOT_BUDGET, &pivots);
    }
    if (!solved) return -1;
    for (int32_t i = 0; i < count; i++) {
        row_apply(&rows[i], view, s->x[i] - rows[i].lambda);
        rows[i].lambda = s->x[i];
    }
    return pivots;
}
