/* A rigid body (course notes, "Rigid Body Simulation"): state x, q, P, L of its principal
 * frame at the centre of mass, constant mass properties in that frame, and a shape in it.
 * Its model is what the definition fixes, its state what stepping changes and the next step
 * reads: a saved world holds the states, and each body's fingerprint hashes its model. */
#ifndef SB_RIGID_BODY_H
#define SB_RIGID_BODY_H

#include "collision_bvh.h"
#include "rigid_polytope.h"
#include "simbake.h"

/* sleep_group of a body awake; a body asleep holds the index of a body of its group (all of
 * which wake together): one that starts asleep, its own (rigid_sleep.h). */
enum { SLEEP_AWAKE = -1 };

typedef enum shape_kind {
    SHAPE_SPHERE, SHAPE_POLYTOPE, SHAPE_MESH, SHAPE_COMPOUND, SHAPE_CAPSULE, SHAPE_CYLINDER, SHAPE_CONE
} shape_kind;

/* A compound body's convex part in the body frame: a sphere (centre, radius), a capsule (the
 * points within radius of a segment), a cylinder or cone (radius, its axis in segment, its
 * circumscribed polytope in hull) or a polytope. */
typedef struct rigid_part {
    shape_kind shape;           /* SHAPE_SPHERE, _CAPSULE, _CYLINDER, _CONE or _POLYTOPE */
    vec3 center;                /* sphere and capsule centre */
    double radius;              /* sphere, capsule, cylinder and cone radius */
    vec3 segment[2];            /* capsule: its core segment's ends; cylinder, cone: base and top centre */
    polytope hull;              /* SHAPE_POLYTOPE; cylinder and cone: the circumscribed polytope */
    /* where a placed copy of the hull starts in the narrow phase's arrays (rigid_narrowphase.c):
     * vertices, normals (faces, then 2 per edge), offsets */
    int32_t first_vertex, first_normal, first_offset;
} rigid_part;

/* Fixed when the body is added. world_state.c's body_fingerprint hashes every field: one added here
 * goes there too. */
typedef struct rigid_body_model {
    int type;                   /* sb_body_type */
    shape_kind shape;
    double radius;              /* sphere; for any shape, the body's reach from its centre */
    polytope hull;              /* SHAPE_POLYTOPE, body frame; SHAPE_CYLINDER and SHAPE_CONE: the
                                   circumscribed prism or pyramid (rigid_round_solid.h) */
    vec3 segment[2];            /* SHAPE_CAPSULE, body frame: its core segment's ends; SHAPE_CYLINDER
                                   and SHAPE_CONE: its axis, base centre then top centre or apex */
    double segment_radius;      /* SHAPE_CAPSULE, SHAPE_CYLINDER, SHAPE_CONE: its radius */
    int32_t mesh_vertex_count, mesh_triangle_count;
    double *mesh_vertices;      /* SHAPE_MESH, body frame */
    int32_t *mesh_triangles;
    aabb *mesh_boxes;           /* of the triangles, body frame: the tree's leaves */
    bvh mesh_tree;
    int32_t part_count;         /* SHAPE_COMPOUND */
    rigid_part *parts;
    int32_t placed_vertices, placed_normals, placed_offsets; /* the parts' totals of the above */

    double mass, inv_mass;
    vec3 inertia, inv_inertia;  /* principal moments, body frame */
    double friction, restitution, linear_damping, angular_damping;
    uint32_t collision_groups;  /* collides with bodies sharing a bit */
    bool use_deactivation;      /* dynamic bodies only */
    double sleep_linear, sleep_angular, sleep_time; /* m/s, rad/s, s */
    int32_t feels_cloth;        /* sb_body_def.feels_cloth: two-way coupling with cloth */

    vec3 x_start;               /* pose when added, for the displacement transform */
    quat q_start;
} rigid_body_model;

/* Changed by stepping and read by the next step: a saved state holds every field, in this
 * order (world_state.c: write_body_state, read_body_state). */
typedef struct rigid_body_state {
    vec3 x;                     /* centre of mass (world) */
    quat q;                     /* body frame -> world */
    vec3 P, L;                  /* linear and angular momentum (world) */
    mat3 R, inv_inertia_world;  /* derived from q */
    vec3 v, w;                  /* derived: velocity and angular velocity */

    vec3 x_from, x_to;          /* kinematic motion between two poses */
    quat q_from, q_to;
    double time_from, time_to;

    vec3 contact_force;         /* Σ contact impulses / h of the last step */
    int32_t contacts;

    double still_time;          /* s below both deactivation speeds, in a row */
    int32_t sleep_group;        /* SLEEP_AWAKE, or the group it fell asleep with (rigid_sleep.h) */
} rigid_body_state;

typedef struct rigid_body {
    rigid_body_model model;
    rigid_body_state state;
} rigid_body;

sb_result rigid_body_create(const sb_body_def *def, double time, rigid_body **out);
void rigid_body_destroy(rigid_body *b);

/* R, I⁻¹ in world and v, ω from x, q, P, L. */
void rigid_body_update_derived(rigid_body *b);
/* ω = R I_b⁻¹ Rᵀ L for orientation q. */
vec3 rigid_body_angular_velocity(const rigid_body *b, quat q);
/* L = R I_b Rᵀ ω at the body's orientation now. */
vec3 rigid_body_angular_momentum(const rigid_body *b, vec3 w);
/* Turns q over a step h at the angular velocity L gives (RK4 on q̇ = ½ ω q: L is constant
 * without torque, so the angular momentum is exact and the energy nearly so). */
quat rigid_body_turn(const rigid_body *b, quat q, double h);
/* Pose of a kinematic body at time t. */
void rigid_body_kinematic_pose(const rigid_body *b, double t, vec3 *x, quat *q);
/* A dynamic body not asleep: the step moves it. */
static inline bool rigid_body_awake(const rigid_body *b)
{
    return b->model.type == SB_BODY_DYNAMIC && b->state.sleep_group == SLEEP_AWAKE;
}
/* World-space bounds of the shape at the current pose, grown by `margin`. */
aabb rigid_body_bounds(const rigid_body *b, double margin);

#endif
