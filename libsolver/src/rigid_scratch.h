/* The rigid step's memory, shared by the system (rigid_system.c: advancing, undoing,
 * saving) and one substep (rigid_step.c). All of it is scratch but the broad phase's order
 * and the warm-start cache, which the next step reads and a saved state keeps. */
#ifndef SB_RIGID_SCRATCH_H
#define SB_RIGID_SCRATCH_H

#include "rigid_broadphase.h"
#include "rigid_contact_rows.h"
#include "rigid_narrowphase.h"
#include "rigid_system.h"

/* Impulses of a contact kept for warm starting the next step. */
typedef struct cached_contact {
    int32_t a, b;
    vec3 local;    /* the point in a's body frame */
    double normal; /* normal force, N */
    vec3 friction; /* friction force, world, N */
    bool exact;    /* its island was solved by pivoting */
} cached_contact;

typedef struct order_key { int32_t island, manifold, point; } order_key;

/* One contact point of the step; rows 3i..3i+2 (normal, two frictions) belong to it. */
typedef struct contact_entry {
    int32_t a, b, island;
    vec3 point, normal;
    double separation, approach, restitution;
    bool was_inexact; /* it was there the step before, its island not solved by pivoting */
    bool exact;       /* its island was solved by pivoting */
} contact_entry;

/* A joint in the step: its island and its rows in joint_rows (in island order). */
typedef struct joint_entry {
    int32_t joint, island, row_begin, row_count;
    bool exact; /* its island's velocities were solved by pivoting */
} joint_entry;

struct rigid_scratch {
    int32_t capacity;
    vec3 *x_saved, *p_saved, *l_saved; /* at the start of the advance: undo, carried colliders */
    quat *q_saved;
    double *still_saved;    /* and their sleep: still times, groups */
    int32_t *group_saved;
    vec3 *v, *w, *v_start, *v_forced, *pv, *pw;
    double *inv_mass, *bounce_at;
    mat3 *inv_inertia;
    aabb *bounds;
    int32_t *parent;        /* union-find over the bodies: the islands (union_find.h) */
    broadphase bp;
    narrow_scratch *narrow; /* one per thread */
    int32_t narrow_count;
    int32_t (*pairs)[2];    /* of the broad phase, in its order */
    int32_t pair_count, pair_capacity;
    rigid_manifold *manifolds;
    int32_t manifold_count, manifold_capacity;
    order_key *keys; /* sorting the contact points into islands */
    int32_t *island_first; /* per body + 1: where its island's contacts start (counting sort) */
    int32_t key_capacity;
    contact_entry *contacts; /* in island order */
    int32_t contact_count, contact_capacity;
    contact_row *rows, *extra;    /* 3 per contact; bounce or correction rows */
    int32_t *extra_contact;
    int32_t row_capacity, extra_capacity, extra_contact_capacity;
    cached_contact *cache, *next_cache;
    int32_t cache_count, cache_capacity, next_capacity;
    row_solver solver;
    joint_entry *joint_entries; /* live joints with a dynamic end, by island */
    int32_t joint_entry_count, joint_entry_capacity;
    contact_row *joint_rows, *island_rows; /* an island's contact rows then its joint rows */
    int32_t *joint_slots;       /* each joint row's slot in its joint's force[] */
    int32_t joint_row_count, joint_row_capacity, joint_slot_capacity, island_row_capacity;
    uint64_t *apart;            /* body pairs (a << 32 | b, a < b) that do not collide: sorted */
    int32_t apart_count, apart_capacity;
    int32_t (*sleep_pairs)[2]; /* sleeping bodies whose bounds overlap (rigid_sleep.h) */
    int32_t sleep_pair_count, sleep_pair_capacity;
    uint8_t *woken;            /* per body: woken this step (rigid_sleep.c's scratch) */
    bool out_of_memory;
};

/* Room for `bodies` bodies in the per-body arrays. */
bool rigid_scratch_reserve(rigid_scratch *s, int32_t bodies);
void rigid_scratch_free(rigid_scratch *s);

/* Joints in the substep (rigid_step_joints.c). Before the broad phase: the pairs joints keep
 * apart (want_pair asks rigid_joints_apart); with the contacts' islands: joined bodies are
 * one island; after the contact rows: the joints' rows by island, prepared; after the solve:
 * their forces kept and the joints that broke; after integrating: the drift moved away. False
 * when out of memory. */
bool rigid_joints_filter(const rigid_system *sys, rigid_scratch *s);
bool rigid_joints_apart(const rigid_scratch *s, int32_t a, int32_t b);
void rigid_joints_unite(const rigid_system *sys, rigid_scratch *s);
bool rigid_joints_build_rows(const rigid_system *sys, rigid_scratch *s, const velocity_view *view, double h);
void rigid_joints_remember(rigid_system *sys, rigid_scratch *s, double end, double h);
bool rigid_joints_correct(rigid_system *sys, rigid_scratch *s, double h);

/* One substep of every body over the world's [t, t + span], of length h in the bodies' own
 * time (h = span x the world's rigid_time_scale; kinematic bodies follow the world's clock);
 * false when out of memory, the bodies then part way. */
bool rigid_substep(rigid_system *sys, double t, double span, double h);

#endif
