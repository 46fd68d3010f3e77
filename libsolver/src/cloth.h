/* A cloth: its model (what the definition fixes), its state (what stepping changes) and its
 * scratch (what a step may throw away), apart, as MuJoCo keeps mjModel and mjData. */
#ifndef SB_CLOTH_H
#define SB_CLOTH_H

#include <stdint.h>

#include "linalg_bsr.h"
#include "collision_bvh.h"
#include "linalg_cg.h"
#include "cloth_energy.h"
#include "cloth_colouring.h"
#include "cloth_springs.h"
#include "simbake.h"
#include "collision_rest_neighbours.h"
#include "mesh_topology.h"
#include "cloth_pressure.h"

typedef struct cloth_material {
    double k_stretch, k_shear, k_bend; /* N/m, N/m, N·m */
    double k_compress;                 /* N/m: the stretch conditions' stiffness below rest length */
    double damping;                    /* s: k_d = damping * k for every condition */
    double air_drag;                   /* kg/(m² s) */
} cloth_material;

/* Per feature, the LEFT_OUT_OF_* bits: a triangle has the bits all its corners were given, a
 * vertex or an edge the bits all its triangles have (a vertex in none, its own). All NULL when
 * the definition leaves nothing out. */
typedef struct left_out {
    uint8_t *vertex;   /* vertex_count */
    uint8_t *edge;     /* topo.edge_count */
    uint8_t *triangle; /* triangle_count */
} left_out;

/* A cloth vertex held on a collider's surface (Baraff & Witkin's contact filters). */
typedef struct vertex_contact {
    int32_t collider;       /* -1: not in contact */
    vec3 normal;            /* unit, from the collider's surface to the vertex */
    double normal_force;    /* from the last solve, N (>= 0) */
    vec3 slide_direction;   /* unit direction of sliding relative to the collider */
    uint8_t sticking;       /* static friction: moves with the collider */
    uint8_t released;       /* the surface pulled last step: left free for this one */
} vertex_contact;

/* What the definition fixes: topology, rest shape, masses, material, which vertices are
 * pinned, and what is derived from them once (hinges, neighbours at rest, colours).
 * Never changed by a step; its values are the cloth's fingerprint in a saved state. */
typedef struct cloth_model {
    int32_t vertex_count;
    double *rest_positions; /* vertex_count x 3, as created */
    double *mass;           /* vertex_count, kg (area x density, lumped) */
    double *vertex_area;    /* vertex_count, m² (a third of each adjacent triangle) */

    int32_t triangle_count; /* triangles with area only */
    int32_t *triangles;     /* triangle_count x 3 */
    tri_rest *rest;         /* triangle_count: rest frames (from the UVs where given) */

    int32_t hinge_count;
    int32_t *hinges;             /* hinge_count x 4: edge x0-x1, wings x2 and x3 */
    double *hinge_weight;        /* 3|e|²/(A1+A2) at rest, so bending is mesh-independent */
    double *hinge_rest_angle;

    spring_set springs;          /* extra springs: the given ones, then the internal ones */

    cloth_material material;
    /* the stiffness factors of each element (sb_cloth_def's *_scale), NULL where not given */
    double *triangle_stretch_scale, *triangle_compression_scale, *triangle_shear_scale; /* triangle_count */
    double *hinge_bend_scale;    /* hinge_count */
    double thickness, friction;
    double self_friction;        /* Coulomb coefficient of contacts within this cloth */
    left_out left_out;           /* features left out of collisions */
    /* the colliders this cloth meets (sb_cloth_set_colliders): collider k is met when
     * meets_collider_count < 0 (every one), or k < meets_collider_count and meets_collider[k] */
    int32_t meets_collider_count;
    uint8_t *meets_collider;
    double self_thickness;       /* half the distance kept between two parts of this cloth */
    double gravity_scale;        /* of the world's gravity, on this cloth */
    cloth_pressure pressure;     /* of a gas inside (cloth_pressure.h) */
    bool self_collision;
    double max_stretch, max_compression; /* strain limits, fractions (0: that side free) */
    topology topo;               /* edges and feature ownership of the kept triangles */
    rest_neighbours near_at_rest; /* with self collision: features within 1.5 x twice the self
                                     thickness in the rest shape (never pushed apart) */
    int32_t pin_count;
    int32_t *pins;
    uint8_t *pinned;             /* vertex_count: 1 for pinned vertices */
    /* sb_cloth_attach_pins_to_body: the body carrying the pins, and the pins in its frame
     * (pin_count x 3); NULL: the caller moves them (sb_cloth_set_pin_targets) */
    int32_t pin_body;
    double *pin_local;
    int32_t goal_count;          /* unpinned vertices with a goal spring */
    int32_t *goals;              /* goal_count vertex indices, ascending */
    double *goal_stiffness;      /* goal_count, N/m */
    double goal_damping;         /* N·s/m, on every goal spring */

    colouring triangle_colours, hinge_colours, spring_colours; /* assembly in parallel, colour by colour */
    sb_cloth_info info;

    /* Strands (strands.c: a cloth without triangles whose springs are the strands' segments)
     * bend at each interior vertex (strand_bend.h); a cloth of triangles has none. */
    bool strands;                /* built from an sb_strand_def */
    int32_t angle_count;
    int32_t *angles;             /* angle_count x 3: the vertex before, at and after the turn */
    double *angle_stiffness;     /* angle_count: EI / l̄, N·m */
    double *angle_rest;          /* angle_count: θ0 of the rest shape, rad */
    colouring angle_colours;
} cloth_model;

/* What a step changes and the next one reads: all of it goes into a saved state. */
typedef struct cloth_state {
    double *x, *v;               /* vertex_count x 3 */
    double *accel;               /* vertex_count x 3: Δv/h of the last accepted step */
    vertex_contact *contacts;    /* vertex_count */
    uint8_t *collided;           /* vertex_count: moved by the collision response this step */
    double *pin_from, *pin_to;   /* pin_count x 3: straight path between two times */
    double pin_time_from, pin_time_to;
    double *goal_from, *goal_to; /* goal_count x 3: the goals' straight path between two times */
    double goal_time_from, goal_time_to;
    cg_history cg;               /* which preconditioner the next solve takes */
} cloth_state;

/* What a step may throw away: rebuilt or overwritten before it is read (the matrix's pattern
 * and where each element's blocks sit in it are built once, with the matrix). */
typedef struct cloth_scratch {
    aabb *boxes;                 /* triangle_count: swept boxes of the current step */
    bvh tree;                    /* over boxes; the pairs it finds are sorted (collision_pairs.c) */
    uint8_t *filter_kind;        /* vertex_count: FILTER_* of the current step */
    uint8_t *held;               /* vertex_count: not moved by the strain limit's projection */
    double *filter_proj;         /* vertex_count x 9: S_i of FILTER_PROJECT vertices */
    double *target_velocity;     /* vertex_count x 3: prescribed velocity of constrained parts */
    double *target_offset;       /* vertex_count x 3: extra displacement of constrained parts */
    double *external_force;      /* vertex_count x 3: friction and other forces given per step */
    int32_t *pushed_by;          /* vertex_count: the collider whose body feels the cloth that
                                    last pushed it in this step's response, or -1 */
    double *v_before_limit;      /* vertex_count x 3: v_new before a strain projection (two-way
                                    coupling: what held vertices took, two_way_coupling.c) */
    double *x_before_limit;      /* vertex_count x 3: x_new before the solve's strain projection
                                    (a pinch projected again: world_step.c) */
    vertex_contact *contacts_start; /* vertex_count: the state's contacts before this attempt */
    int32_t *strain_moved_at;    /* vertex_count: the strain projection's sweep marks
                                    (cloth_strain_limit.c), allocated at its first use; */
    int32_t *strain_seen_at;     /* triangle_count   NULL: not yet, or out of memory then */
    double *strain_excess;       /* triangle_count */
    double *pin_reach;           /* vertex_count: shortest rest path to a pin (cloth_pin_reach.h), */
    int32_t *reach_pin;          /* vertex_count   and that pin; NULL until first used */
    bsr system;                  /* the implicit step's matrix (its pattern built once) */
    int32_t *triangle_blocks;    /* triangle_count x 9: the system's block of each vertex pair */
    int32_t *hinge_blocks;       /* hinge_count x 16 */
    int32_t *spring_blocks;      /* springs.count x 4 */
    int32_t *angle_blocks;       /* angle_count x 9 */
    double *force, *rhs, *dv, *z, *x_new, *v_new, *correction; /* vertex_count x 3 each */
    double *pressure_gradient;   /* vertex_count x 3 with pressure: ∇V of the current system */
    double pressure_sigma;       /* the system is system + σ ∇V ∇Vᵀ (σ = -h² p', 0 without pressure) */
    cg_workspace cg;
    const uint8_t *untangling;   /* vertex_count: pulled through a tangle this step (untangle.h), NULL: none */
    const int32_t *tangle;       /* vertex_count: the tangle its region is in at the last analysis,
                                    -1: none (untangle.h); NULL: the scene was found untangled */
    bool strain_recovers;        /* this step is a pinch: elements that start beyond the strain
                                    limit come back at a bounded rate (cloth_strain_limit.c,
                                    world_step.c) */
    bool pinch_speed_cap;        /* this step is a pinch, where a body feels the cloth or not: the
                                    projection leaves no vertex faster than PINCH_SPEED or than it
                                    was (cloth_strain_limit.c) */
} cloth_scratch;

typedef struct cloth {
    cloth_model model;
    cloth_state state;
    cloth_scratch scratch;
} cloth;

/* Validates the definition and builds the cloth at `time` under `gravity`; on failure
 * returns the error (message set) and *out stays NULL. */
sb_result cloth_create(const sb_cloth_def *def, double time, const double gravity[3], cloth **out);
void cloth_destroy(cloth *c);

/* For builders of other kinds of cloth (strands.c): colours elements for parallel assembly,
 * and allocates the state (at rest, at `time`) and scratch of a built model. */
bool cloth_colour_elements(colouring *out, const int32_t *elements, int32_t count, int32_t per, int32_t vertices);
bool cloth_init_dynamics(cloth *c, double time, const double gravity[3]);

/* Target position and velocity of pin p at time t. */
void cloth_pin_state(const cloth *c, int32_t p, double t, double pos[3], double vel[3]);
/* The pins carried by body `body` at pose (x, q) now: keeps their positions at time t in
 * the body's frame; false when out of memory. */
bool cloth_attach_pins(cloth *c, int32_t body, vec3 x, quat q, double t);
/* The pins of a cloth carried by a body over [t, t + h], the body going from pose 0 to pose 1:
 * a straight path between the body's points, so a pin lands exactly on its point at t + h. */
void cloth_carry_pins(cloth *c, vec3 x0, quat q0, vec3 x1, quat q1, double t, double h);
/* Position of goal p (of model.goals) at t1, and its mean velocity over [t0, t1] (t1 > t0) or
 * its velocity at t1 (t1 == t0). */
void cloth_goal_motion(const cloth *c, int32_t p, double t0, double t1, double pos[3], double vel[3]);

double cloth_kinetic_energy(const cloth *c, const double *v);

/* Whether the cloth meets collider k (sb_cloth_set_colliders). */
static inline bool cloth_meets_collider(const cloth_model *m, int32_t k)
{
    return m->meets_collider_count < 0 || (k < m->meets_collider_count && m->meets_collider[k]);
}

/* Whether vertex i is left out of collisions of kind `bits` (LEFT_OUT_OF_*). */
static inline bool cloth_vertex_left_out(const cloth_model *m, int32_t i, uint8_t bits)
{
    return m->left_out.vertex && (m->left_out.vertex[i] & bits);
}

#endif
