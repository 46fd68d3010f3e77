/* SimBake physics library: the whole public API.
 *
 * Units are SI: metres, kilograms, seconds, radians. Arrays are flat, row-major,
 * with their shape given in the comment (`vertex_count x 3`). Output buffers are
 * owned by the caller. Every function that can fail returns an sb_result; on
 * failure sb_last_error() gives a readable message (per calling thread) and the
 * world is left as it was before the call (sb_world_step_to: as it was after the
 * last internal step that succeeded). No function aborts or exits. */
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

#define SB_VERSION_MAJOR 0
#define SB_VERSION_MINOR 8
#define SB_VERSION_PATCH 0
/* The add-on refuses a library whose sb_version() differs in major or minor. */
#define SB_VERSION (SB_VERSION_MAJOR * 10000 + SB_VERSION_MINOR * 100 + SB_VERSION_PATCH)

typedef enum sb_result {
    SB_OK = 0,
    SB_ERROR_INVALID_ARGUMENT = 1, /* null pointer, bad count, NaN/Inf, value out of range */
    SB_ERROR_INVALID_MESH = 2,     /* empty mesh, index out of range, unusable geometry */
    SB_ERROR_OUT_OF_MEMORY = 3,
    SB_ERROR_NOT_FOUND = 4,        /* unknown cloth id */
    SB_ERROR_SOLVER = 5            /* a step could not be completed (see message) */
} sb_result;

typedef enum sb_integrator {
    SB_INTEGRATOR_IMPLICIT_EULER = 0, /* the production solver (Baraff-Witkin) */
    SB_INTEGRATOR_EXPLICIT_EULER = 1, /* explicit ones: tests and comparison */
    SB_INTEGRATOR_MIDPOINT = 2,
    SB_INTEGRATOR_RK4 = 3
} sb_integrator;

/* Library version as SB_VERSION encodes it, and as text ("0.1.0"). */
SB_API int32_t sb_version(void);
SB_API const char *sb_version_string(void);

/* Message of the last failed call made by this thread ("" if none). */
SB_API const char *sb_last_error(void);
/* Short name of a result code ("SB_ERROR_INVALID_MESH"). */
SB_API const char *sb_result_name(sb_result result);

typedef enum sb_body_type {
    SB_BODY_DYNAMIC = 0,   /* moved by the simulation */
    SB_BODY_KINEMATIC = 1, /* moved by the caller (animated), pushes dynamic bodies */
    SB_BODY_STATIC = 2     /* never moves */
} sb_body_type;

typedef enum sb_shape {
    SB_SHAPE_SPHERE = 0,
    SB_SHAPE_BOX = 1,
    SB_SHAPE_CONVEX_HULL = 2, /* of the vertices */
    SB_SHAPE_MESH = 3         /* the triangles themselves: kinematic and static bodies only */
} sb_shape;

typedef struct sb_world sb_world;

/* Ids of the objects in a world, one type per kind so that swapped arguments do not compile;
 * passed by value. `index` is the order in which objects of that kind were added, from 0. */
typedef struct sb_cloth_id { int32_t index; } sb_cloth_id;
typedef struct sb_collider_id { int32_t index; } sb_collider_id;
typedef struct sb_body_id { int32_t index; } sb_body_id;

typedef struct sb_world_def {
    double gravity[3];          /* m/s^2, default (0, 0, -9.81) */
    sb_integrator integrator;
    double max_step;            /* largest internal step, s (default 1/24) */
    double min_step;            /* a step that must shrink below this fails (default 1e-6 s) */
    int32_t grow_after;         /* steps accepted in a row before the step doubles again (4) */
    double max_strain_change;   /* implicit: reject a step changing any triangle's stretch by more (0.25) */
    double cg_tolerance;        /* implicit: relative residual of the conjugate gradient (1e-3) */
    int32_t cg_max_iterations;  /* implicit: iteration cap per step (1000) */
    double error_tolerance;     /* explicit: step-doubling error per step, m (1e-4) */
    double rigid_max_step;      /* largest step of rigid bodies, s (default 1/240) */
    int32_t rigid_iterations;   /* Gauss-Seidel sweeps for contact groups not pivoted (10) */
    double contact_margin;      /* rigid contacts are tracked this far apart, m (0.005) */
    double max_speed;           /* m/s: a cloth vertex or body faster than this means the energy
                                   blew up; the step is retried smaller, then fails (1000) */
    int32_t threads;            /* OpenMP threads of this world's calls, 0..1024; 0 (default):
                                   OpenMP's own number (OMP_NUM_THREADS or the cores) */
} sb_world_def;

/* A cloth: a triangle mesh in its rest shape, in world space. */
typedef struct sb_cloth_def {
    int32_t vertex_count;
    const double *positions;    /* vertex_count x 3, rest and initial positions */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3 vertex indices */
    const double *uvs;          /* optional, triangle_count x 3 x 2 per-corner UVs: +u is the
                                   warp, +v the weft direction; NULL derives a frame from world +X */
    double density;             /* kg/m^2 of rest area (default 0.15) */
    double stretch_stiffness;   /* N/m: energy ½ k A (|w_u|-1)², same for weft (default 2000) */
    double shear_stiffness;     /* N/m: energy ½ k A (w_u·w_v)² (default 200) */
    double bend_stiffness;      /* N·m: energy ½ k (3|e|²/(A1+A2)) (θ-θ0)² per edge (1e-5) */
    double damping;             /* s: each condition is damped with k_d = damping * k (0.01) */
    double air_drag;            /* kg/(m² s): drag force -air_drag * area * v (0.1) */
    int32_t pin_count;
    const int32_t *pins;        /* pin_count vertex indices held at their targets */
    double thickness;           /* m: half-thickness; cloth keeps this far from colliders (plus
                                   theirs) and from other cloth (plus its) (default 0.005) */
    double friction;            /* Coulomb coefficient; a contact uses the product with the
                                   other object's (default 0.5) */
    int32_t self_collision;     /* nonzero: the cloth never passes through itself (default 0);
                                   different cloths never pass through each other */
    double self_thickness;      /* m: two parts of this cloth keep twice this apart (self
                                   collision); 0 (default): the same as thickness */
} sb_cloth_def;

/* A collider: a triangle mesh the cloth cannot pass through, moved by the caller. */
typedef struct sb_collider_def {
    int32_t vertex_count;
    const double *positions;    /* vertex_count x 3, world positions now */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3 */
    double thickness;           /* m: added to the cloth's thickness at contacts (default 0.002) */
    double friction;            /* Coulomb coefficient (default 1) */
} sb_collider_def;

/* A rigid body, described in world space as it is at the world's current time. */
typedef struct sb_body_def {
    sb_body_type type;
    sb_shape shape;
    int32_t vertex_count;
    const double *vertices;     /* vertex_count x 3: hull points, mesh; mass properties when closed */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3: a closed mesh gives the mass distribution */
    double center[3];           /* sphere and box centre */
    double radius;              /* sphere, m */
    double half_extents[3];     /* box, m */
    double rotation[4];         /* box orientation (w, x, y, z) */
    double mass;                /* kg, dynamic bodies (default 1) */
    double friction;            /* a contact uses the product of both bodies' values (0.5) */
    double restitution;         /* bounciness 0..1, product of both bodies' values (0) */
    double linear_velocity[3];  /* m/s, world, at the start */
    double angular_velocity[3]; /* rad/s, world, at the start */
    double linear_damping;      /* fraction of velocity lost per second (0) */
    double angular_damping;     /* fraction of angular velocity lost per second (0) */
} sb_body_def;

typedef struct sb_body_state {
    double position[3];         /* centre of mass, m */
    double orientation[4];      /* of the principal frame (w, x, y, z) */
    double linear_velocity[3], angular_velocity[3];
    double linear_momentum[3], angular_momentum[3]; /* world, about the centre of mass */
    double kinetic_energy;      /* J */
    double mass;                /* kg (0 for kinematic and static bodies) */
    double contact_force[3];    /* sum of contact forces on the body over the last step, N */
    int32_t contacts;           /* contact points touching it in the last step */
} sb_body_state;

typedef struct sb_cloth_info {
    int32_t vertex_count;
    int32_t triangle_count;     /* as given */
    int32_t degenerate_triangles; /* zero-area triangles: skipped (no forces) */
    int32_t bend_edges;         /* interior edges with a bending hinge */
    int32_t nonmanifold_edges;  /* edges with more than two triangles: not bent */
    double total_mass;          /* kg */
    double rest_area;           /* m^2 */
} sb_cloth_info;

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

typedef enum sb_object_kind {
    SB_OBJECT_NONE = 0,
    SB_OBJECT_CLOTH = 1,
    SB_OBJECT_BODY = 2
} sb_object_kind;

typedef struct sb_failure {
    sb_failure_kind kind;
    sb_object_kind object_kind; /* of the object in trouble */
    int32_t object;             /* its cloth or body id's index, as object_kind says */
    int32_t cg_iterations;      /* of the last try */
    double time;                /* s: the step that failed started here (the world is there) */
    double step;                /* s: size of the last step tried */
    double cg_residual;         /* relative, of the last try */
    double strain_change;       /* largest change of a triangle's stretch in the last try */
    double speed;               /* m/s: fastest vertex or body in the last try */
} sb_failure;

/* The layout of a public struct, named as here ("sb_cloth_def"), for bindings in other
 * languages to check their copies against: its size in bytes and the byte offset of each of
 * its fields, in the order they are declared above (`capacity` entries at most are written
 * to out_offsets; *out_field_count is the number of fields). */
SB_API sb_result sb_struct_layout(const char *struct_name, uint64_t *out_size, uint64_t *out_offsets,
                                  int32_t capacity, int32_t *out_field_count);

SB_API sb_world_def sb_default_world_def(void);
SB_API sb_cloth_def sb_default_cloth_def(void);
SB_API sb_collider_def sb_default_collider_def(void);
SB_API sb_body_def sb_default_body_def(void);

SB_API sb_result sb_world_create(const sb_world_def *def, sb_world **out_world);
SB_API void sb_world_destroy(sb_world *world); /* NULL is fine */

/* Adds a cloth at the world's current time; *out_cloth receives its id. */
SB_API sb_result sb_world_add_cloth(sb_world *world, const sb_cloth_def *def, sb_cloth_id *out_cloth);
SB_API sb_result sb_cloth_get_info(const sb_world *world, sb_cloth_id cloth, sb_cloth_info *out_info);

/* Pinned vertices move in a straight line from where they are now to `positions`
 * (pin_count x 3, in the order of sb_cloth_def.pins), arriving at `time` (> now);
 * after that they stay. */
SB_API sb_result sb_cloth_set_pin_targets(sb_world *world, sb_cloth_id cloth, double time,
                                          const double *positions, int32_t pin_count);

/* Adds a collider at the world's current time; *out_collider receives its id. */
SB_API sb_result sb_world_add_collider(sb_world *world, const sb_collider_def *def, sb_collider_id *out_collider);
/* Each collider vertex moves in a straight line from where it is now to `positions`
 * (vertex_count x 3), arriving at `time` (> now); after that it stays. */
SB_API sb_result sb_collider_set_positions(sb_world *world, sb_collider_id collider, double time,
                                           const double *positions, int32_t vertex_count);

/* From now on the collider is carried by the rigid body: its positions now stay fixed in
 * the body's frame and follow the body's motion within every step. The coupling is one
 * way: the cloth meets the body, the body does not feel the cloth. */
SB_API sb_result sb_collider_follow_body(sb_world *world, sb_collider_id collider, sb_body_id body);

/* Adds a rigid body at the world's current time; *out_body receives its id. */
SB_API sb_result sb_world_add_body(sb_world *world, const sb_body_def *def, sb_body_id *out_body);
/* Kinematic bodies: moves (in a straight line, turning at a constant rate) to the pose that
 * `transform` (4x4 row-major, rigid) gives it relative to its pose when added, arriving at
 * `time` (> now). */
SB_API sb_result sb_body_set_target(sb_world *world, sb_body_id body, double time, const double transform[16]);
/* The rigid motion since the body was added: a point p of it then is at M p now
 * (4x4 row-major). An object's world matrix now is M times its matrix then. */
SB_API sb_result sb_body_get_transform(const sb_world *world, sb_body_id body, double out[16]);
SB_API sb_result sb_body_get_state(const sb_world *world, sb_body_id body, sb_body_state *out);
/* sb_body_get_transform of every body, in id order: body_count (the world's) x 16 values. */
SB_API sb_result sb_world_get_body_transforms(const sb_world *world, double *out, int32_t body_count);

/* Mass properties of the solid inside a closed triangle mesh at `density` (kg/m³): mass,
 * centre of mass and inertia tensor about it (3x3 row-major, world axes). */
SB_API sb_result sb_mass_properties(const double *vertices, int32_t vertex_count, const int32_t *triangles,
                                    int32_t triangle_count, double density, double *out_mass,
                                    double out_center[3], double out_inertia[9]);

/* Advances the world to `time` (>= now) with as many internal steps as needed. */
SB_API sb_result sb_world_step_to(sb_world *world, double time);
SB_API double sb_world_get_time(const sb_world *world);
/* What went wrong in the last sb_world_step_to (kind SB_FAILURE_NONE if it succeeded). */
SB_API sb_result sb_world_get_failure(const sb_world *world, sb_failure *out_failure);
SB_API sb_result sb_world_get_stats(const sb_world *world, sb_world_stats *out_stats);

/* Resumable bakes. A world's state is everything that changes as it steps (time, positions,
 * velocities, contacts, step size, collision trees, warm starts): a world built again from
 * the same definitions, added in the same order, and given this state goes on exactly as the
 * saved one would have (bit for bit, on any number of threads: see Threads). The state is bytes in
 * this machine's byte order, checksummed. sb_world_save_state needs a buffer of exactly
 * sb_world_get_state_size bytes. sb_world_load_state refuses, changing nothing, a state that
 * is damaged or that was saved from a world with other definitions (the message says which
 * object differs). Pin, collider and kinematic body targets are part of the state. */
SB_API sb_result sb_world_get_state_size(const sb_world *world, uint64_t *out_size);
SB_API sb_result sb_world_save_state(const sb_world *world, void *buffer, uint64_t size);
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

/* Copies vertex_count x 3 values into `out` (vertex_count must match the cloth). */
SB_API sb_result sb_cloth_get_positions(const sb_world *world, sb_cloth_id cloth, double *out,
                                        int32_t vertex_count);
SB_API sb_result sb_cloth_get_velocities(const sb_world *world, sb_cloth_id cloth, double *out,
                                         int32_t vertex_count);
/* Kinetic energy of a cloth, J. */
SB_API sb_result sb_cloth_get_kinetic_energy(const sb_world *world, sb_cloth_id cloth, double *out);

/* out = M * in for `count` points, M a 4x4 row-major affine matrix (last row ignored).
 * `in` and `out` may be the same buffer. Lets callers without numpy move whole
 * meshes between object and world space. */
SB_API sb_result sb_transform_points(const double matrix[16], const double *in, double *out,
                                     int32_t count);
/* Like sb_transform_points, but converts float32 <-> float64 on the way. */
SB_API sb_result sb_transform_points_f32_to_f64(const double matrix[16], const float *in,
                                                double *out, int32_t count);
SB_API sb_result sb_transform_points_f64_to_f32(const double matrix[16], const double *in,
                                                float *out, int32_t count);

#ifdef __cplusplus
}
#endif
#endif /* SIMBAKE_H */
