/* SimBake physics library: the whole public API.
 *
 * Conventions, for every function below unless it says otherwise:
 * - Units are SI: metres, kilograms, seconds, radians. Arrays are flat and row-major, their
 *   shape given in the comment (`vertex_count x 3`).
 * - The caller owns every buffer it passes: the library reads input arrays during the call
 *   (definitions are copied, never kept) and writes output buffers of the size stated.
 * - A function that can fail returns an sb_result. On failure sb_last_error() gives a readable
 *   message and the world is as it was before the call (sb_world_step_to: as it was after
 *   its last internal step that succeeded). NULL pointers, counts that do not match, NaN, Inf
 *   and out-of-range values, enum values included, are refused, never trusted. No function
 *   aborts or exits.
 * - A world is used by one thread at a time; different worlds may be used at once from
 *   different threads (the library has no global state but sb_last_error's, per thread). */
#ifndef SIMBAKE_H
#define SIMBAKE_H

#include <stdint.h>

#if defined(_WIN32)
#define SB_API __declspec(dllexport)
#else
#define SB_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Versions and errors ================================================================ */

#define SB_VERSION_MAJOR 0
#define SB_VERSION_MINOR 9
#define SB_VERSION_PATCH 0
/* The minor version changes with every change of the API or of a public struct's layout: a
 * binding works with the major.minor it was written for (the add-on refuses any other). */
#define SB_VERSION (SB_VERSION_MAJOR * 10000 + SB_VERSION_MINOR * 100 + SB_VERSION_PATCH)

typedef enum sb_result {
    SB_OK = 0,
    SB_ERROR_INVALID_ARGUMENT = 1, /* NULL pointer, bad count, NaN/Inf, value out of range */
    SB_ERROR_INVALID_MESH = 2,     /* empty mesh, index out of range, unusable geometry */
    SB_ERROR_OUT_OF_MEMORY = 3,
    SB_ERROR_NOT_FOUND = 4,        /* no object with that id in the world; no struct of that name */
    SB_ERROR_SOLVER = 5            /* a step could not be completed: see sb_world_get_failure */
} sb_result;

/* The library's SB_VERSION, and the same as text ("major.minor.patch"), a static string. */
SB_API int32_t sb_version(void);
SB_API const char *sb_version_string(void);

/* The message of the last call made by this thread that failed ("" if none has): a buffer of
 * the library's, valid until this thread's next failing call. Successful calls leave it. */
SB_API const char *sb_last_error(void);
/* The name of a result code ("SB_ERROR_INVALID_MESH"; "SB_ERROR_UNKNOWN" for a value that is
 * none of them), a static string. */
SB_API const char *sb_result_name(sb_result result);

/* ==== Worlds ============================================================================== */

/* A world holds cloths, colliders and rigid bodies and steps them together. Opaque. */
typedef struct sb_world sb_world;

/* Ids of the objects in a world. Each kind is numbered apart: `index` is the order in which
 * the objects of that kind were added to their world, from 0. Objects are never removed, so
 * an id stays valid as long as its world. Each id is a struct of its own, passed by value, so
 * that a cloth id given where a body id belongs does not compile. A binding mirrors each as a
 * struct of one int32 (the add-on: a ctypes Structure with one c_int32 field). */
typedef struct sb_cloth_id { int32_t index; } sb_cloth_id;
typedef struct sb_collider_id { int32_t index; } sb_collider_id;
typedef struct sb_body_id { int32_t index; } sb_body_id;

typedef enum sb_integrator {
    SB_INTEGRATOR_IMPLICIT_EULER = 0, /* the production solver (Baraff-Witkin); the only one
                                         with colliders, rigid bodies and self collision */
    SB_INTEGRATOR_EXPLICIT_EULER = 1, /* explicit, with step-doubling error control: tests */
    SB_INTEGRATOR_MIDPOINT = 2,       /* and comparison only */
    SB_INTEGRATOR_RK4 = 3
} sb_integrator;

/* A world's settings; sb_default_world_def() gives the defaults in brackets. */
typedef struct sb_world_def {
    double gravity[3];          /* m/s^2 (0, 0, -9.81) */
    sb_integrator integrator;   /* (SB_INTEGRATOR_IMPLICIT_EULER) */
    double max_step;            /* largest internal step, s (1/24) */
    double min_step;            /* a step that must shrink below this fails, s (1e-6) */
    int32_t grow_after;         /* steps accepted in a row before the step doubles again (4) */
    double max_strain_change;   /* implicit: reject a step changing any triangle's stretch by
                                   more (0.25) */
    double cg_tolerance;        /* implicit: relative residual of the conjugate gradient (1e-3) */
    int32_t cg_max_iterations;  /* implicit: iteration cap per step (1000) */
    double error_tolerance;     /* explicit: step-doubling error per step, m (1e-4) */
    double rigid_max_step;      /* largest step of rigid bodies, s (1/240) */
    int32_t rigid_iterations;   /* Gauss-Seidel sweeps for contact groups not pivoted (10) */
    double contact_margin;      /* rigid contacts are tracked this far apart, m (0.005) */
    double max_speed;           /* m/s: a cloth vertex or body faster than this means the energy
                                   blew up; the step is retried smaller, then fails (1000) */
    int32_t threads;            /* OpenMP threads of this world's calls, 0..1024 (see Threads);
                                   0: OpenMP's own number, OMP_NUM_THREADS or the cores (0) */
} sb_world_def;

SB_API sb_world_def sb_default_world_def(void);

/* Creates an empty world at time 0 from `def` (copied) into *out_world, which the caller
 * frees with sb_world_destroy; on failure *out_world is NULL. Errors: INVALID_ARGUMENT (a
 * NULL pointer, a setting out of range), OUT_OF_MEMORY. */
SB_API sb_result sb_world_create(const sb_world_def *def, sb_world **out_world);
/* Frees the world and everything in it; NULL is fine. */
SB_API void sb_world_destroy(sb_world *world);

/* ==== Cloth =============================================================================== */

/* A cloth: a triangle mesh in its rest shape, in world space. sb_default_cloth_def() gives
 * the defaults in brackets and no mesh. */
typedef struct sb_cloth_def {
    int32_t vertex_count;
    const double *positions;    /* vertex_count x 3, rest and initial positions */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3 vertex indices */
    const double *uvs;          /* optional, triangle_count x 3 x 2 per-corner UVs: +u is the
                                   warp, +v the weft direction; NULL derives a frame from world +X */
    double density;             /* kg/m^2 of rest area (0.15) */
    double stretch_stiffness;   /* N/m: energy ½ k A (|w_u|-1)², same for weft (2000) */
    double compression_stiffness; /* N/m: the same energy where |w_u| < 1 (or |w_v|): against
                                   compression; negative: stretch_stiffness (-1) */
    double shear_stiffness;     /* N/m: energy ½ k A (w_u·w_v)² (200) */
    double bend_stiffness;      /* N·m: energy ½ k (3|e|²/(A1+A2)) (θ-θ0)² per edge (1e-5) */
    double damping;             /* s: each condition is damped with k_d = damping * k (0.01) */
    double air_drag;            /* kg/(m² s): drag force -air_drag * area * v (0.1) */
    int32_t pin_count;          /* (0) */
    const int32_t *pins;        /* pin_count vertex indices held at their targets */
    double thickness;           /* m: half-thickness; cloth keeps this far from colliders (plus
                                   theirs) and from other cloth (plus its) (0.005) */
    double friction;            /* Coulomb coefficient; a contact uses the product with the
                                   other object's (0.5) */
    int32_t self_collision;     /* nonzero: the cloth never passes through itself (0);
                                   different cloths never pass through each other */
    double self_thickness;      /* m: two parts of this cloth keep twice this apart (self
                                   collision); 0: the same as thickness (0) */
    double gravity_scale;       /* the world's gravity times this pulls on the cloth (1; Blender's
                                   Field Weights → Gravity) */
    const double *shrink;       /* optional, vertex_count values in (-1, 1): the rest shape around
                                   each vertex is smaller than `positions` by this fraction (0.1:
                                   10% smaller; negative: larger); each triangle's rest shape is
                                   scaled by 1 minus its corners' mean; masses stay those of the
                                   given shape. NULL: none (Blender's Shrinking Factor) */
} sb_cloth_def;

/* What the library made of a cloth's mesh. */
typedef struct sb_cloth_info {
    int32_t vertex_count;
    int32_t triangle_count;     /* as given */
    int32_t degenerate_triangles; /* zero-area triangles: skipped (no forces) */
    int32_t bend_edges;         /* interior edges with a bending hinge */
    int32_t nonmanifold_edges;  /* edges with more than two triangles: not bent */
    double total_mass;          /* kg */
    double rest_area;           /* m^2 */
} sb_cloth_info;

SB_API sb_cloth_def sb_default_cloth_def(void);

/* Adds a cloth at the world's current time, at rest, its pins held where they are; its id
 * goes to *out_cloth. Errors: INVALID_ARGUMENT (a NULL pointer, a material value out of range,
 * bad pins, self collision with an explicit integrator, more vertices in the world's cloths
 * and colliders together than one world holds), INVALID_MESH (empty, an index out of range,
 * non-finite positions or UVs, no triangle with area), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_cloth(sb_world *world, const sb_cloth_def *def, sb_cloth_id *out_cloth);
/* Copies what the library made of the cloth's mesh into *out_info. Errors: NOT_FOUND,
 * INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_cloth_get_info(const sb_world *world, sb_cloth_id cloth, sb_cloth_info *out_info);

/* Pinned vertices move in a straight line from where they are now to `positions` (pin_count
 * x 3, in the order of sb_cloth_def.pins), arriving at `time`; after that they stay. Errors:
 * NOT_FOUND, INVALID_ARGUMENT (pin_count is not the cloth's, NULL positions, a non-finite
 * target, `time` not finite or not after the world's time). */
SB_API sb_result sb_cloth_set_pin_targets(sb_world *world, sb_cloth_id cloth, double time,
                                          const double *positions, int32_t pin_count);

/* Copy the cloth's vertex positions (m) or velocities (m/s) now into `out`, vertex_count x 3;
 * vertex_count must be the cloth's. Errors: NOT_FOUND, INVALID_ARGUMENT (NULL, wrong count). */
SB_API sb_result sb_cloth_get_positions(const sb_world *world, sb_cloth_id cloth, double *out,
                                        int32_t vertex_count);
SB_API sb_result sb_cloth_get_velocities(const sb_world *world, sb_cloth_id cloth, double *out,
                                         int32_t vertex_count);
/* The cloth's kinetic energy now, ½ Σ m v², J. Errors: NOT_FOUND, INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_cloth_get_kinetic_energy(const sb_world *world, sb_cloth_id cloth, double *out);

/* ==== Colliders =========================================================================== */

/* A collider: a triangle mesh the cloth cannot pass through, moved by the caller or carried
 * by a rigid body. sb_default_collider_def() gives the defaults in brackets and no mesh. */
typedef struct sb_collider_def {
    int32_t vertex_count;
    const double *positions;    /* vertex_count x 3, world positions now */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3 */
    double thickness;           /* m: added to the cloth's thickness at contacts (0.002) */
    double friction;            /* Coulomb coefficient (1) */
} sb_collider_def;

SB_API sb_collider_def sb_default_collider_def(void);

/* Adds a collider at the world's current time, standing still; its id goes to *out_collider.
 * Errors: INVALID_ARGUMENT (a NULL pointer, thickness or friction negative or not finite, an
 * explicit integrator, more vertices than one world holds), INVALID_MESH (empty, an index out
 * of range, a position not finite or beyond 1e7 m), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_collider(sb_world *world, const sb_collider_def *def,
                                       sb_collider_id *out_collider);
/* Each collider vertex moves in a straight line from where it is now to `positions`
 * (vertex_count x 3), arriving at `time`; after that it stays. Errors: NOT_FOUND,
 * INVALID_ARGUMENT (the collider follows a body, vertex_count is not the collider's, NULL, a
 * position not finite or beyond 1e7 m, `time` not finite or not after the world's time). */
SB_API sb_result sb_collider_set_positions(sb_world *world, sb_collider_id collider, double time,
                                           const double *positions, int32_t vertex_count);
/* From now on the collider is carried by the rigid body: its positions now stay fixed in
 * the body's frame and follow the body's motion within every step. The coupling is one
 * way: the cloth meets the body, the body does not feel the cloth. Errors: NOT_FOUND (either
 * id), INVALID_ARGUMENT (the collider already follows a body), OUT_OF_MEMORY. */
SB_API sb_result sb_collider_follow_body(sb_world *world, sb_collider_id collider, sb_body_id body);

/* ==== Rigid bodies ======================================================================== */

typedef enum sb_body_type {
    SB_BODY_DYNAMIC = 0,   /* moved by the simulation */
    SB_BODY_KINEMATIC = 1, /* moved by the caller (sb_body_set_target), pushes dynamic bodies */
    SB_BODY_STATIC = 2     /* never moves */
} sb_body_type;

typedef enum sb_shape {
    SB_SHAPE_SPHERE = 0,      /* center and radius */
    SB_SHAPE_BOX = 1,         /* center, half_extents and rotation */
    SB_SHAPE_CONVEX_HULL = 2, /* of the vertices (at least 4) */
    SB_SHAPE_MESH = 3         /* the triangles themselves: kinematic and static bodies only */
} sb_shape;

/* A rigid body, described in world space as it is at the world's current time.
 * sb_default_body_def() gives the defaults in brackets and no geometry. */
typedef struct sb_body_def {
    sb_body_type type;          /* (SB_BODY_DYNAMIC) */
    sb_shape shape;             /* (SB_SHAPE_CONVEX_HULL) */
    int32_t vertex_count;
    const double *vertices;     /* vertex_count x 3: hull points, mesh; mass properties when closed */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3: a closed mesh gives the mass distribution */
    double center[3];           /* sphere and box centre */
    double radius;              /* sphere, m */
    double half_extents[3];     /* box, m */
    double rotation[4];         /* box orientation (w, x, y, z) ((1, 0, 0, 0)) */
    double mass;                /* kg, dynamic bodies (1) */
    double friction;            /* a contact uses the product of both bodies' values (0.5) */
    double restitution;         /* bounciness 0..1, product of both bodies' values (0) */
    double linear_velocity[3];  /* m/s, world, at the start */
    double angular_velocity[3]; /* rad/s, world, at the start */
    double linear_damping;      /* fraction of velocity lost per second, 0..1 (0) */
    double angular_damping;     /* fraction of angular velocity lost per second, 0..1 (0) */
} sb_body_def;

/* A body now. */
typedef struct sb_body_state {
    double position[3];         /* centre of mass, m */
    double orientation[4];      /* of the principal frame (w, x, y, z) */
    double linear_velocity[3], angular_velocity[3];
    double linear_momentum[3], angular_momentum[3]; /* world, about the centre of mass */
    double kinetic_energy;      /* J (0 for kinematic and static bodies) */
    double mass;                /* kg (0 for kinematic and static bodies) */
    double contact_force[3];    /* sum of contact forces on the body over the last step, N */
    int32_t contacts;           /* contact points touching it in the last step */
} sb_body_state;

SB_API sb_body_def sb_default_body_def(void);

/* Adds a rigid body at the world's current time; its id goes to *out_body. Errors:
 * INVALID_ARGUMENT (a NULL pointer, an unknown type or shape, a dynamic mesh, a value out of
 * range, an explicit integrator), INVALID_MESH (vertices or triangles unusable for the shape,
 * sizes beyond 1e7 m), SOLVER (no principal axes of inertia), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_body(sb_world *world, const sb_body_def *def, sb_body_id *out_body);
/* Kinematic bodies: moves (in a straight line, turning at a constant rate) to the pose that
 * `transform` (4x4 row-major, rigid) gives it relative to its pose when added, arriving at
 * `time`. Errors: NOT_FOUND, INVALID_ARGUMENT (not kinematic, NULL, not a rigid transform,
 * `time` not finite or not after the world's time). */
SB_API sb_result sb_body_set_target(sb_world *world, sb_body_id body, double time,
                                    const double transform[16]);
/* The rigid motion since the body was added into `out`: a point p of it then is at M p now
 * (4x4 row-major). An object's world matrix now is M times its matrix then. Errors:
 * NOT_FOUND, INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_body_get_transform(const sb_world *world, sb_body_id body, double out[16]);
/* The body's state now into *out. Errors: NOT_FOUND, INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_body_get_state(const sb_world *world, sb_body_id body, sb_body_state *out);
/* sb_body_get_transform of every body, in id order: body_count x 16 values, body_count being
 * the number of bodies in the world. Errors: INVALID_ARGUMENT (NULL, another count). */
SB_API sb_result sb_world_get_body_transforms(const sb_world *world, double *out, int32_t body_count);

/* ==== Joints ============================================================================== */

/* A joint holds two bodies, or a body and the world, together (Baraff 1989 §7: each locked
 * axis is an equality row, each limit a one-sided row, in the same complementarity problem as
 * the contacts of the bodies' island; bodies joined are one island). An island of up to 240
 * rows (a joint has up to 6, a contact 3) is solved exactly: velocities obey its joints, and
 * what round-off and the turning of the bodies leave apart is moved back at the end of the
 * step by moving the bodies, not by giving them velocity, so the joint adds no energy. A
 * larger island is solved by rigid_iterations Gauss-Seidel sweeps, warm-started: its joints
 * give a little (a 120-link chain swinging opens by about a centimetre).
 *
 * The joint's frame: a pivot point and three axes, given in world space as the bodies are now
 * and fixed from then on in each body's frame (and the world's). The six coordinates of a
 * joint are those of b's copy of the frame in a's: 0..2 the translation along a's x, y, z
 * axes (m), 3..5 the rotation about them (rad, the components of the rotation vector). Each
 * is locked (held at 0), free, or limited to [lower, upper]. */
typedef struct sb_joint_id { int32_t index; } sb_joint_id;

typedef enum sb_joint_type {
    SB_JOINT_FIXED = 0,   /* all six locked: the bodies move as one */
    SB_JOINT_POINT = 1,   /* translations locked, rotations free (a ball joint) */
    SB_JOINT_HINGE = 2,   /* all but the rotation about z locked (limits: axis 5) */
    SB_JOINT_SLIDER = 3,  /* all but the translation along x locked (limits: axis 0) */
    SB_JOINT_PISTON = 4,  /* all but translation along and rotation about x locked (axes 0, 3) */
    SB_JOINT_GENERIC = 5  /* every axis free, or limited where use_limit says (lower == upper
                             locks it there) */
} sb_joint_type;

/* A joint's definition; sb_default_joint_def() gives the defaults in brackets. */
typedef struct sb_joint_def {
    sb_joint_type type;         /* (SB_JOINT_POINT) */
    sb_body_id body_a;          /* ({0}) */
    sb_body_id body_b;          /* another body, or index -1: the world ({-1}) */
    double pivot[3];            /* the frame's origin, world, now, m ((0, 0, 0)) */
    double rotation[4];         /* the frame's axes, world, now (w, x, y, z); normalised
                                   ((1, 0, 0, 0)) */
    int32_t use_limit[6];       /* per coordinate (see above): nonzero keeps it within
                                   [lower, upper]; read for the coordinates the type leaves free
                                   (0) */
    double lower[6], upper[6];  /* m for 0..2, rad within [-pi, pi] for 3..5; lower <= upper (0) */
    int32_t use_motor[6];       /* nonzero: a motor drives the coordinate's rate towards
                                   motor_velocity, pushing with at most motor_max_force; read for
                                   the coordinates the type leaves free (0) */
    double motor_velocity[6];   /* m/s or rad/s (0) */
    double motor_max_force[6];  /* N or N·m, >= 0 (0) */
    int32_t use_spring[6];      /* nonzero: a damped spring pulls the coordinate back to 0 (where
                                   it was when the joint was added): force -k c - d ċ, taken
                                   implicitly (stable at any stiffness); read for the coordinates
                                   the type leaves free (0) */
    double spring_stiffness[6]; /* k: N/m or N·m/rad, >= 0 (0) */
    double spring_damping[6];   /* d: N·s/m or N·m·s/rad, >= 0 (0) */
    int32_t disable_collisions; /* nonzero: the two bodies do not collide while the joint holds (1) */
    int32_t breakable;          /* nonzero: the joint breaks, for good, when one of its rows
                                   carries breaking_threshold (0) */
    double breaking_threshold;  /* N·s, > 0: the impulse a row may carry over a step of
                                   breaking_step (Blender's and Bullet's threshold, per solver
                                   step); a joint breaks at the force threshold / step, whatever
                                   the library's own step (10) */
    double breaking_step;       /* s, > 0: the step the threshold is measured over (1/240:
                                   Blender's 10 substeps a frame at 24 fps) */
} sb_joint_def;

SB_API sb_joint_def sb_default_joint_def(void);

/* Adds a joint at the world's current time between the bodies as they are now; its id goes to
 * *out_joint. Errors: NOT_FOUND (a body id), INVALID_ARGUMENT (NULL, an unknown type, body_a
 * the world or both the same body, a pivot or rotation not finite, a zero rotation, a limit
 * not finite, lower above upper or an angle beyond pi, a motor or spring value not finite or
 * negative, a threshold or step not positive and finite), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_joint(sb_world *world, const sb_joint_def *def, sb_joint_id *out_joint);
/* Whether the joint has broken (*out_broken 1 or 0) and when (*out_time, s: the end of the step
 * that broke it; -1 if it holds). Either output may be NULL. Errors: NOT_FOUND,
 * INVALID_ARGUMENT (NULL world). */
SB_API sb_result sb_joint_get_broken(const sb_world *world, sb_joint_id joint, int32_t *out_broken,
                                     double *out_time);
/* The joints broken so far, in id order: at most `capacity` ids into out_joints and their
 * times into out_times (either may be NULL), their number (even beyond capacity) into
 * *out_count. Errors: INVALID_ARGUMENT (NULL world or out_count, capacity < 0). */
SB_API sb_result sb_world_get_broken_joints(const sb_world *world, sb_joint_id *out_joints, double *out_times,
                                            int32_t capacity, int32_t *out_count);

/* ==== Stepping ============================================================================ */

/* A world's figures so far. */
typedef struct sb_world_stats {
    double time;                /* s, simulated so far */
    int64_t steps;              /* accepted steps */
    int64_t rejected_steps;     /* steps retried with half the size */
    int64_t cg_iterations;      /* total conjugate-gradient iterations */
    int32_t last_cg_iterations; /* in the last accepted step */
    double last_step;           /* size of the last accepted step, s */
    int32_t last_contacts;      /* cloth vertices held on colliders in the last step */
    int64_t collisions;         /* continuous collisions resolved by impulses */
    int64_t impact_zones;       /* steps that needed rigid impact zones (the failsafe) */
} sb_world_stats;

/* Why the last sb_world_step_to failed, for callers that explain it in their own words
 * (sb_last_error() has the library's). */
typedef enum sb_failure_kind {
    SB_FAILURE_NONE = 0,        /* the last step_to succeeded */
    SB_FAILURE_CG = 1,          /* the conjugate gradient stayed far from its tolerance */
    SB_FAILURE_STRAIN = 2,      /* even the smallest step stretched triangles too far */
    SB_FAILURE_NOT_FINITE = 3,  /* NaN or Inf in the state */
    SB_FAILURE_SPEED = 4,       /* faster than max_speed: the energy blew up */
    SB_FAILURE_OUT_OF_MEMORY = 5,
    SB_FAILURE_TOLERANCE = 6    /* an explicit integrator's error stayed above error_tolerance */
} sb_failure_kind;

/* Which kind of object sb_failure.object indexes. */
typedef enum sb_object_kind {
    SB_OBJECT_NONE = 0,         /* none: the failure is the world's */
    SB_OBJECT_CLOTH = 1,        /* object is an sb_cloth_id's index */
    SB_OBJECT_BODY = 2          /* object is an sb_body_id's index */
} sb_object_kind;

typedef struct sb_failure {
    sb_failure_kind kind;
    sb_object_kind object_kind; /* of the object in trouble */
    int32_t object;             /* its index (as in its id), of the kind object_kind says */
    int32_t cg_iterations;      /* of the last try */
    double time;                /* s: the step that failed started here (the world is there) */
    double step;                /* s: size of the last step tried */
    double cg_residual;         /* relative, of the last try */
    double strain_change;       /* largest change of a triangle's stretch in the last try */
    double speed;               /* m/s: fastest vertex or body in the last try */
} sb_failure;

/* Advances the world to `time` (>= now) in as many internal steps as needed: in each, the
 * rigid bodies first, then the cloths against the colliders where the bodies took them.
 * Errors: INVALID_ARGUMENT (NULL, `time` not finite or before now), SOLVER (a step failed
 * even at min_step), OUT_OF_MEMORY; sb_world_get_failure says what and where. On failure the
 * world is as it was after its last internal step that succeeded, at sb_failure.time. */
SB_API sb_result sb_world_step_to(sb_world *world, double time);
/* The world's time, s (0 for NULL). */
SB_API double sb_world_get_time(const sb_world *world);
/* What went wrong in the last sb_world_step_to into *out_failure (kind SB_FAILURE_NONE if it
 * succeeded, or if none was made since the world was made or its state loaded). Errors:
 * INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_world_get_failure(const sb_world *world, sb_failure *out_failure);
/* The world's figures so far into *out_stats. Errors: INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_world_get_stats(const sb_world *world, sb_world_stats *out_stats);

/* ==== Saved states ======================================================================== */

/* Resumable bakes. A world's state is everything that changes as it steps (time, positions,
 * velocities, contacts, step size, collision trees, warm starts, statistics, which joints broke
 * and when) and the pin,
 * collider and kinematic body targets: a world built again from the same definitions, added
 * in the same order, and given this state goes on bit for bit as the saved one would have
 * (on any number of threads: see Threads). The state is bytes in this machine's byte order,
 * checksummed, owned by the caller. */

/* The size in bytes of the world's state now into *out_size. Errors: INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_world_get_state_size(const sb_world *world, uint64_t *out_size);
/* Writes the state into `buffer` of exactly sb_world_get_state_size bytes. Errors:
 * INVALID_ARGUMENT (NULL, another size). */
SB_API sb_result sb_world_save_state(const sb_world *world, void *buffer, uint64_t size);
/* Sets the world to a saved state, clearing its last failure. Errors: INVALID_ARGUMENT (NULL;
 * a state that is damaged, of another format or byte order, or saved from a world with other
 * definitions: the message says which object differs), OUT_OF_MEMORY. */
SB_API sb_result sb_world_load_state(sb_world *world, const void *buffer, uint64_t size);

/* ==== Threads =============================================================================
 * The library shares its loops over vertices, elements, matrix rows and collision pairs
 * among OpenMP threads (small ones run on one). How many a world uses is part of its
 * definition, sb_world_def.threads, so that a world runs alike whoever calls it and leaves the
 * host's own OpenMP setting (Blender's) alone: when threads > 0, sb_world_add_cloth,
 * sb_world_add_collider, sb_world_add_body, sb_world_step_to and sb_world_load_state set the
 * calling thread's OpenMP thread count to it for the call and give the caller's back before
 * returning, on every path. With 0 they use the calling thread's count as it is (the default:
 * OMP_NUM_THREADS, or one per core). Other functions run on the calling thread alone. A
 * library built without OpenMP runs on one thread and checks the count, nothing more.
 *
 * Results do not depend on the thread count: a world steps to the same bits on one thread as
 * on many. Each parallel loop writes every item's result to a place of its own, or reduces
 * them to a maximum, a yes or no, or an integer count, which no order changes. Sums of doubles
 * (the conjugate gradient's dot products, the multigrid's) are taken over chunks whose bounds
 * depend on the sizes alone and added in chunk order. Cloth forces are added colour by
 * colour, each group of elements by one thread in mesh order, so every force and matrix entry
 * takes its terms in an order the mesh fixes. Collision pairs and rigid contacts are kept in
 * the mesh's and the pairs' order, however the work was split. The same bits need the same
 * build of the library (and of LAPACK), the same definitions added in the same order and the
 * same calls; the thread count changes the speed, not the result. */

/* ==== Utilities =========================================================================== */

/* Mass properties of the solid inside a closed triangle mesh at `density` (kg/m³): mass,
 * centre of mass and inertia tensor about it (3x3 row-major, world axes). Errors:
 * INVALID_ARGUMENT (NULL, density not positive), INVALID_MESH (empty, non-finite, an index
 * out of range, not closed, enclosing no volume, mass properties that overflow). */
SB_API sb_result sb_mass_properties(const double *vertices, int32_t vertex_count, const int32_t *triangles,
                                    int32_t triangle_count, double density, double *out_mass,
                                    double out_center[3], double out_inertia[9]);

/* out = M * in for `count` points (x, y, z), M a 4x4 row-major affine matrix (last row
 * ignored). `in` and `out` may be the same buffer. Lets callers without numpy move whole
 * meshes between object and world space. Errors: INVALID_ARGUMENT (NULL, count < 0, M not
 * finite). */
SB_API sb_result sb_transform_points(const double matrix[16], const double *in, double *out,
                                     int32_t count);
/* Like sb_transform_points, converting float32 <-> float64 on the way (computed in float64). */
SB_API sb_result sb_transform_points_f32_to_f64(const double matrix[16], const float *in,
                                                double *out, int32_t count);
SB_API sb_result sb_transform_points_f64_to_f32(const double matrix[16], const double *in,
                                                float *out, int32_t count);

/* ==== Layout for bindings ================================================================= */

/* The layout of a public struct, named as here ("sb_cloth_def"), for bindings in other
 * languages to check their copies against: its size in bytes into *out_size, the byte offset
 * of each of its fields, in the order they are declared above, into out_offsets (`capacity`
 * entries at most are written), and the number of fields into *out_field_count. Every enum
 * field is 4 bytes (an int32 in a binding), every id struct too. Errors: INVALID_ARGUMENT
 * (NULL, capacity < 0, or > 0 with no out_offsets), NOT_FOUND (no public struct of that
 * name). */
SB_API sb_result sb_struct_layout(const char *struct_name, uint64_t *out_size, uint64_t *out_offsets,
                                  int32_t capacity, int32_t *out_field_count);

#ifdef __cplusplus
}
#endif
#endif /* SIMBAKE_H */
