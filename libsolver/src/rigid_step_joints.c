/* The joints' part of a rigid substep (rigid_step.c): which pairs they keep from colliding,
 * the islands they join, their rows, their forces and breaking, and the drift correction.
 *
 * Drift: the velocity rows keep every locked coordinate's rate at zero over the step, but the
 * bodies turn and move along straight lines, so c drifts by O(h²) per step. After the step the
 * bodies are moved back, c + h J pv = target, by pseudo-velocities pv that change positions and
 * not velocities (as overlaps are, rigid_step.c): no energy is given, and the joint holds to
 * round-off plus what the linearised projections leave, O(drift²) after each.
 *
 * Only in islands whose velocities were solved exactly (by pivoting). Where Gauss-Seidel left
 * them inexact (a long chain: rigid_step.c's JOINT_DIRECT_MAX), a projection by Gauss-Seidel
 * too moved the ends back only near each joint, the velocities went on pulling the island
 * apart, and a 100-link chain stretched by metres in 2 s; left to the warm-started velocity
 * rows alone it stretches by centimetres and holds. */
#include <string.h>

#include "grow.h"
#include "rigid_scratch.h"
#include "union_find.h"

enum { CORRECTION_DIRECT_MAX = 240, CORRECTION_SWEEPS = 20, CORRECTION_PASSES = 3 };
#define CORRECTION_TOLERANCE 1e-9 /* m or rad: drift left alone */

/* A dynamic body awake: asleep, a body is held still like a static one (rigid_sleep.h). */
static bool is_dynamic(const rigid_system *sys, int32_t body)
{
    return body >= 0 && rigid_body_awake(sys->bodies[body]);
}

/* A joint that takes part in the step: holding, with a body the step moves. */
static bool joint_live(const rigid_system *sys, const rigid_joint *j)
{
    return !j->broken && (is_dynamic(sys, j->a) || is_dynamic(sys, j->b));
}

static uint64_t pair_key(int32_t a, int32_t b)
{
    return a < b ? (uint64_t)a << 32 | (uint64_t)b : (uint64_t)b << 32 | (uint64_t)a;
}

static int compare_keys(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

bool rigid_joints_filter(const rigid_system *sys, rigid_scratch *s)
{
    s->apart_count = 0;
    for (int32_t i = 0; i < sys->joint_count; i++) {
        const rigid_joint *j = &sys->joints[i];
        if (j->broken || !j->disable_collisions || j->b < 0) continue;
        if (!grow((void **)&s->apart, &s->apart_capacity, s->apart_count + 1, sizeof *s->apart)) return false;
        s->apart[s->apart_count++] = pair_key(j->a, j->b);
    }
    if (s->apart_count > 1) qsort(s->apart, (size_t)s->apart_count, sizeof *s->apart, compare_keys);
    return true;
}

bool rigid_joints_apart(const rigid_scratch *s, int32_t a, int32_t b)
{
    uint64_t key = pair_key(a, b);
    int32_t lo = 0, hi = s->apart_count;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (s->apart[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < s->apart_count && s->apart[lo] == key;
}

void rigid_joints_unite(const rigid_system *sys, rigid_scratch *s)
{
    for (int32_t i = 0; i < sys->joint_count; i++) {
        const rigid_joint *j = &sys->joints[i];
        if (!j->broken && is_dynamic(sys, j->a) && is_dynamic(sys, j->b)) union_find_unite(s->parent, j->a, j->b);
    }
}

static int compare_entries(const void *pa, const void *pb)
{
    const joint_entry *a = pa, *b = pb;
    if (a->island != b->island) return (a->island > b->island) - (a->island < b->island);
    return (a->joint > b->joint) - (a->joint < b->joint);
}

static joint_ends ends_of(const rigid_system *sys, const rigid_joint *j)
{
    return rigid_joint_ends(j, sys->bodies[j->a], j->b >= 0 ? sys->bodies[j->b] : NULL);
}

bool rigid_joints_build_rows(const rigid_system *sys, rigid_scratch *s, const velocity_view *view, double h)
{
    s->joint_entry_count = s->joint_row_count = 0;
    if (!grow((void **)&s->joint_entries, &s->joint_entry_capacity, sys->joint_count, sizeof *s->joint_entries))
        return false;
    for (int32_t i = 0; i < sys->joint_count; i++) {
        const rigid_joint *j = &sys->joints[i];
        if (!joint_live(sys, j)) continue;
        int32_t dynamic = is_dynamic(sys, j->a) ? j->a : j->b;
        s->joint_entries[s->joint_entry_count++] = (joint_entry){i, union_find_root(s->parent, dynamic), 0, 0, false};
    }
    if (s->joint_entry_count > 1)
        qsort(s->joint_entries, (size_t)s->joint_entry_count, sizeof *s->joint_entries, compare_entries);
    int32_t most = JOINT_SLOTS * s->joint_entry_count, contact_rows = 3 * s->contact_count;
    if (!grow((void **)&s->joint_rows, &s->joint_row_capacity, most, sizeof *s->joint_rows) ||
        !grow((void **)&s->joint_slots, &s->joint_slot_capacity, most, sizeof *s->joint_slots) ||
        !grow((void **)&s->island_rows, &s->island_row_capacity, contact_rows + most, sizeof *s->island_rows) ||
        !grow((void **)&s->extra, &s->extra_capacity, s->contact_count + most, sizeof *s->extra) ||
        !grow((void **)&s->extra_contact, &s->extra_contact_capacity, s->contact_count + most,
              sizeof *s->extra_contact))
        return false;
    int32_t world = sys->body_count; /* the world's slot in the velocity arrays */
    for (int32_t e = 0; e < s->joint_entry_count; e++) {
        joint_entry *entry = &s->joint_entries[e];
        const rigid_joint *j = &sys->joints[entry->joint];
        joint_ends ends = ends_of(sys, j);
        entry->row_begin = s->joint_row_count;
        entry->row_count = rigid_joint_rows(j, &ends, j->a, j->b >= 0 ? j->b : world, h,
                                            &s->joint_rows[s->joint_row_count], &s->joint_slots[s->joint_row_count]);
        s->joint_row_count += entry->row_count;
    }
    rows_prepare(s->joint_rows, s->joint_row_count, view);
    return true;
}

void rigid_joints_remember(rigid_system *sys, rigid_scratch *s, double end, double h)
{
    for (int32_t e = 0; e < s->joint_entry_count; e++) {
        const joint_entry *entry = &s->joint_entries[e];
        rigid_joint *j = &sys->joints[entry->joint];
        memset(j->force, 0, sizeof j->force);
        double largest = 0.0;
        for (int32_t r = entry->row_begin; r < entry->row_begin + entry->row_count; r++) {
            double lambda = s->joint_rows[r].lambda;
            j->force[s->joint_slots[r]] = lambda / h;
            largest = fmax(largest, fabs(lambda));
        }
        /* Bullet's rule, per row: |impulse| >= threshold breaks it; here per unit of time */
        if (j->breakable && largest >= j->break_force * h) {
            j->broken = true, j->broken_time = end;
            memset(j->force, 0, sizeof j->force);
        }
    }
}

/* One projection of every island's joints: false when out of memory; *largest the largest
 * distance (m, or rad) a coordinate was off. */
static bool correct_once(rigid_system *sys, rigid_scratch *s, double h, double *largest)
{
    int32_t world = sys->body_count;
    for (int32_t i = 0; i <= world; i++) s->pv[i] = s->pw[i] = v3(0, 0, 0);
    velocity_view pseudo = {s->pv, s->pw, s->inv_mass, s->inv_inertia};
    *largest = 0.0;
    for (int32_t begin = 0; begin < s->joint_entry_count;) {
        int32_t end = begin, n = 0;
        for (; end < s->joint_entry_count && s->joint_entries[end].island == s->joint_entries[begin].island; end++) {
            const rigid_joint *j = &sys->joints[s->joint_entries[end].joint];
            if (j->broken || !s->joint_entries[end].exact) continue; /* broken this step; inexact */
            joint_ends ends = ends_of(sys, j);
            n += rigid_joint_correction_rows(j, &ends, j->a, j->b >= 0 ? j->b : world, h, &s->joint_rows[n]);
        }
        begin = end;
        for (int32_t r = 0; r < n; r++) *largest = fmax(*largest, fabs(s->joint_rows[r].bias) * h);
        if (n == 0) continue;
        rows_prepare(s->joint_rows, n, &pseudo);
        if (rows_solve(&s->solver, s->joint_rows, n, &pseudo, CORRECTION_DIRECT_MAX, CORRECTION_SWEEPS, false) == -2)
            return false;
    }
    for (int32_t i = 0; i < sys->body_count; i++) {
        rigid_body *b = sys->bodies[i];
        if (!rigid_body_awake(b) || (v3_len2(s->pv[i]) == 0.0 && v3_len2(s->pw[i]) == 0.0)) continue;
        b->state.x = v3_madd(b->state.x, s->pv[i], h);
        b->state.q = q_normalize(q_mul(q_from_rotation_vector(v3_scale(s->pw[i], h)), b->state.q));
        rigid_body_update_derived(b);
    }
    return true;
}

bool rigid_joints_correct(rigid_system *sys, rigid_scratch *s, double h)
{
    /* the projection is linearised: again while what it leaves is above CORRECTION_TOLERANCE */
    double largest = INFINITY;
    for (int pass = 0; pass < CORRECTION_PASSES && largest > CORRECTION_TOLERANCE; pass++)
        if (!correct_once(sys, s, h, &largest)) return false;
    return true;
}
