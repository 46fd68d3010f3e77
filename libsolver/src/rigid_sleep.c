/* Sleeping islands: the rules are in rigid_sleep.h. */
#include "rigid_sleep.h"

#include <string.h>

#include "grow.h"
#include "union_find.h"

bool rigid_sleep_note_pair(rigid_scratch *s, int32_t a, int32_t b)
{
    if (!grow((void **)&s->sleep_pairs, &s->sleep_pair_capacity, s->sleep_pair_count + 1, sizeof *s->sleep_pairs))
        return false;
    s->sleep_pairs[s->sleep_pair_count][0] = a, s->sleep_pairs[s->sleep_pair_count++][1] = b;
    return true;
}

static bool asleep(const rigid_system *sys, int32_t i)
{
    return i >= 0 && sys->bodies[i]->state.sleep_group != SLEEP_AWAKE;
}

/* Wakes others: an awake dynamic body, or a kinematic one moving this step. */
static bool wakes(const rigid_system *sys, const rigid_scratch *s, int32_t i)
{
    if (i < 0) return false; /* the world */
    const rigid_body *b = sys->bodies[i];
    if (b->model.type == SB_BODY_KINEMATIC) return v3_len2(s->v[i]) > 0.0 || v3_len2(s->w[i]) > 0.0;
    return rigid_body_awake(b);
}

enum { WOKEN = 1, ACTIVATED = 2 };

/* ACTIVATED when body i is kinematic: Bullet's btSimulationIslandManager::buildIslands calls
 * activate() on what a moving kinematic body touches (a zero timer); dynamic bodies only join
 * islands, and a sleeping body in an island with an active one only wants deactivation. */
static unsigned char activated_by(const rigid_system *sys, int32_t i)
{
    return i >= 0 && sys->bodies[i]->model.type == SB_BODY_KINEMATIC ? ACTIVATED : 0;
}

int32_t rigid_sleep_wake(rigid_system *sys, rigid_scratch *s)
{
    int32_t n = sys->body_count, seeds = 0;
    memset(s->woken, 0, (size_t)n);
    /* the narrow phase tests a sleeping body only against bodies that wake it */
    for (int32_t m = 0; m < s->manifold_count; m++) {
        const rigid_manifold *mf = &s->manifolds[m];
        if (asleep(sys, mf->a)) s->woken[mf->a] |= WOKEN | activated_by(sys, mf->b), seeds++;
        if (asleep(sys, mf->b)) s->woken[mf->b] |= WOKEN | activated_by(sys, mf->a), seeds++;
    }
    for (int32_t i = 0; i < sys->joint_count; i++) {
        const rigid_joint *j = &sys->joints[i];
        if (j->broken) continue;
        if (asleep(sys, j->a) && wakes(sys, s, j->b)) s->woken[j->a] |= WOKEN | activated_by(sys, j->b), seeds++;
        if (asleep(sys, j->b) && wakes(sys, s, j->a)) s->woken[j->b] |= WOKEN | activated_by(sys, j->a), seeds++;
    }
    if (seeds == 0) return 0; /* s->parent keeps the step's islands */
    /* sleeping bodies joined by group, by overlapping bounds and by joints: one set each */
    union_find_reset(s->parent, n);
    for (int32_t i = 0; i < n; i++)
        if (asleep(sys, i)) union_find_unite(s->parent, i, sys->bodies[i]->state.sleep_group);
    for (int32_t p = 0; p < s->sleep_pair_count; p++) union_find_unite(s->parent, s->sleep_pairs[p][0], s->sleep_pairs[p][1]);
    for (int32_t i = 0; i < sys->joint_count; i++) {
        const rigid_joint *j = &sys->joints[i];
        if (!j->broken && asleep(sys, j->a) && asleep(sys, j->b)) union_find_unite(s->parent, j->a, j->b);
    }
    for (int32_t i = 0; i < n; i++)
        if (s->woken[i]) s->woken[union_find_root(s->parent, i)] |= WOKEN;
    int32_t count = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!asleep(sys, i) || !s->woken[union_find_root(s->parent, i)]) continue;
        rigid_body *b = sys->bodies[i];
        /* Bullet: activate() (a kinematic body) gives ACTIVE_TAG and a zero timer; a woken island
         * gives WANTS_DEACTIVATION, ready until the body moves faster than its thresholds */
        b->state.still_time = (s->woken[i] & ACTIVATED) ? 0.0 : b->model.sleep_time;
        b->state.sleep_group = SLEEP_AWAKE;
        s->woken[i] = WOKEN;
        count++;
    }
    return count; /* a flagged root is asleep, in its own set: woken with it */
}

/* Slow enough, long enough. */
static bool ready(const rigid_body *b)
{
    const rigid_body_model *m = &b->model;
    return m->use_deactivation && b->state.still_time >= m->sleep_time;
}

void rigid_sleep_update(rigid_system *sys, rigid_scratch *s, double h)
{
    int32_t n = sys->body_count;
    bool any = false;
    for (int32_t i = 0; i < n; i++) {
        rigid_body *b = sys->bodies[i];
        if (!rigid_body_awake(b) || !b->model.use_deactivation) continue;
        double lin = b->model.sleep_linear, ang = b->model.sleep_angular;
        bool slow = v3_len2(b->state.v) < lin * lin && v3_len2(b->state.w) < ang * ang;
        b->state.still_time = slow ? b->state.still_time + h : 0.0;
        any = any || ready(b);
    }
    if (!any) return;
    /* s->parent: this step's islands (find_contacts); woken marks islands not all ready */
    memset(s->woken, 0, (size_t)n);
    for (int32_t i = 0; i < n; i++)
        if (rigid_body_awake(sys->bodies[i]) && !ready(sys->bodies[i])) s->woken[union_find_root(s->parent, i)] = 1;
    for (int32_t i = 0; i < n; i++) {
        rigid_body *b = sys->bodies[i];
        int32_t root = union_find_root(s->parent, i);
        if (!rigid_body_awake(b) || s->woken[root]) continue;
        b->state.sleep_group = root;
        b->state.P = b->state.L = v3(0, 0, 0);
        rigid_body_update_derived(b);
    }
    memset(s->woken, 0, (size_t)n);
}

int32_t rigid_sleep_count(const rigid_system *sys)
{
    int32_t count = 0;
    for (int32_t i = 0; i < sys->body_count; i++) count += asleep(sys, i);
    return count;
}
