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
#define SB_VERSION_MINOR 17
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
                                   0: OpenMP's own number, OMP_NUM_THREADS or the cores,
                                   fewer while other processes keep the cores busy (0) */
    double rigid_time_scale;    /* (0, 100]: rigid bodies live this many seconds per second of the
                                   world (Blender's Rigid Body World Speed): a step of h moves them
                                   as h x this would, in substeps of at most rigid_max_step of
                                   their own time; kinematic bodies keep to the world's clock (their
                                   targets' times), cloth is not affected (1) */
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
    /* Pressure of a gas inside a closed cloth (Blender's Pressure): with V the volume its
     * triangles enclose, each vertex is pushed by p(V) ∂V/∂x_i, where
     *   p(V) = pressure + pressure_scale (V_target / V - 1)
     * The second term is Boyle's law: the excess pressure of a gas that filled V_target at
     * pressure_scale, the pressure outside. V_target / V - 1 is capped at 200 + |pressure| /
     * pressure_scale, as Blender caps it, which only an all but collapsed (or inverted) volume
     * reaches. Triangles wound counter-clockwise seen from outside enclose a positive volume.
     * Both 0: no pressure. */
    double pressure;            /* Pa, pushing outward; may be negative (0) */
    double pressure_scale;      /* Pa, 0 or positive (0) */
    double pressure_target_volume; /* m^3; 0: the volume of the rest shape (0) */
    const double *pressure_weights; /* optional, vertex_count values in [0, 1]: a triangle counts
                                   with its corners' mean weight, not at all if one corner is 0,
                                   in V and in the force (Blender's pressure vertex group). NULL:
                                   all 1 */
    const double *goal_stiffness; /* optional, vertex_count values, N/m, each 0 or more: a spring
                                   of this stiffness pulls the vertex toward its goal g, which is
                                   its position in `positions` until sb_cloth_set_goal_targets
                                   moves it: f = -k (x - g) - goal_damping (v - dg/dt); 0: no
                                   goal; a pinned vertex's is ignored. NULL: none (Blender's soft
                                   pins: pin weights below 1 with Pin Stiffness) */
    double goal_damping;        /* N·s/m: damping of every goal spring, on the velocity relative
                                   to the goal (0) */
    /* Extra springs between vertex pairs, e.g. Blender's sewing: loose edges of rest length 0
     * that pull two panels together, their force limited. A spring of rest length L and length
     * l pulls with k (l - L) along itself, k = tension stiffness where l > L, compression
     * stiffness where l < L, its tension at most spring_max_force; damped with
     * k_d = damping * k along itself. */
    int32_t spring_count;       /* (0) */
    const int32_t *springs;     /* spring_count x 2 vertex indices, two different vertices */
    const double *spring_rest_lengths; /* optional, spring_count, m (>= 0); NULL: the ends' distance
                                   in `positions` (times the shrink of their ends, as triangles) */
    double spring_tension_stiffness; /* N/m (1000) */
    double spring_compression_stiffness; /* N/m; negative: spring_tension_stiffness (-1) */
    double spring_max_force;    /* N: a spring pulls with at most this; 0: no limit (0; Blender's
                                   Max Sewing Force) */
    /* Internal springs (Blender 2.83+): when the cloth is created, a ray is cast from each vertex
     * inward, against its normal (the angle-weighted mean of its triangles' normals, outward by
     * the triangles' winding), turned by internal_spring_max_diversion in a direction fixed per
     * vertex; the first triangle it meets, within internal_spring_max_length, gives a spring to
     * that triangle's corner nearest the hit point, at the rest distance, unless the triangle has
     * the vertex itself (or, with the normal check, faces the ray). Each vertex pair once. */
    int32_t internal_springs;   /* nonzero: build them (0) */
    double internal_spring_max_length; /* m; 0: any length (0) */
    double internal_spring_max_diversion; /* rad, 0..pi/2: the ray leaves the inward normal by
                                   this angle (pi/4, Blender's default) */
    int32_t internal_spring_normal_check; /* nonzero: only to triangles whose normal points along
                                   the ray (the inside of the opposite wall) (0) */
    double internal_tension_stiffness; /* N/m (1000) */
    double internal_compression_stiffness; /* N/m (1000) */
    const double *internal_vertex_stiffness; /* optional, vertex_count x 2 (tension, compression),
                                   N/m: a spring takes the mean of its two ends' (Blender's
                                   internal springs vertex group); NULL: the two values above */
    /* Stiffness that varies over the cloth (Blender's stiffness vertex groups): optional,
     * vertex_count factors, zero or positive, on the stiffnesses above. A triangle's stretch,
     * compression and shear take its three corners' mean factor; a bending hinge takes the mean
     * of its edge's two ends (as each of Blender's springs takes its two ends' mean). Damping
     * follows, k_d = damping × the scaled k. NULL: 1 everywhere. */
    const double *stretch_scale;      /* on stretch_stiffness, and on compression_stiffness
                                         unless compression_scale is given */
    const double *compression_scale;  /* on compression_stiffness; NULL: stretch_scale's */
    const double *shear_scale;        /* on shear_stiffness */
    const double *bend_scale;         /* on bend_stiffness */
    double self_friction;       /* Coulomb coefficient between two parts of this cloth (self
                                   collision); negative: friction × friction, the product any
                                   contact takes (-1) */
    /* Parts of the cloth left out of collisions, as Blender's collision vertex groups leave
     * them: optional, vertex_count values 0 or 1. A triangle whose three corners are all 1 is
     * left out, and so is a vertex or an edge whose triangles are all left out (a vertex set to
     * 1 still collides through a triangle with a corner at 0). NULL: none left out. */
    const uint8_t *self_collision_off;   /* from self collision (both sides of a pair within the
                                            cloth); other cloths still meet them */
    const uint8_t *object_collision_off; /* from colliders (sb_cloth_set_colliders chooses which
                                            colliders the rest meets) */
    /* Strain limiting (Wang, O'Brien & Ramamoorthi 2010; ARCSim): at the end of every step each
     * triangle's in-plane deformation ∂x/∂u (its two singular values σ, the stretch along its
     * principal directions) is projected into [1 - max_compression, 1 + max_stretch], moving
     * its corners by mass (pins never), and each moved vertex's velocity changes by its
     * displacement / step. Since |F e| <= σ_max |e|, every edge then lies within
     * [1 - max_compression, 1 + max_stretch] x its rest length, however fast the cloth lands.
     * Collisions come first: where the collision response holds a vertex (on a collider, or
     * squeezed between two) the limit may be left unmet in that step, never the other way
     * round (libsolver/src/cloth_strain_limit.h). 0: that side is not limited. */
    double max_stretch;         /* fraction, 0 or in (0, 10] (0.1: 10%, as real woven cloth) */
    double max_compression;     /* fraction, 0 or in (0, 1) (0.1; woven cloth buckles out of its
                                   plane rather than compressing in it) */
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
    int32_t springs;            /* extra springs, as given (spring_count) */
    int32_t internal_springs;   /* internal springs found */
} sb_cloth_info;

SB_API sb_cloth_def sb_default_cloth_def(void);

/* Adds a cloth at the world's current time, at rest, its pins held where they are; its id
 * goes to *out_cloth. Errors: INVALID_ARGUMENT (a NULL pointer, a material value out of range,
 * bad pins, a goal stiffness or goal_damping negative or not finite, bad springs (an index out
 * of range, a vertex with itself, a rest length negative or not finite), self collision with
 * an explicit integrator, more vertices in the world's cloths and colliders together than one
 * world holds), INVALID_MESH (empty, an index out of range,
 * non-finite positions or UVs, no triangle with area), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_cloth(sb_world *world, const sb_cloth_def *def, sb_cloth_id *out_cloth);
/* Copies what the library made of the cloth's mesh into *out_info. Errors: NOT_FOUND,
 * INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_cloth_get_info(const sb_world *world, sb_cloth_id cloth, sb_cloth_info *out_info);

/* What starts tangled: the pairs of triangles that intersect (exactly; triangles that only
 * touch at the vertices or edges they share do not count) between the cloth and `other` at
 * their current positions. `other` the cloth itself: its own pairs, counted only when it
 * collides with itself (sb_cloth_def.self_collision; otherwise it passes through itself
 * freely and 0). The bake pulls such tangles apart over its first steps, where the cloth
 * collides with itself (docs/robustness.md). Errors: NOT_FOUND, INVALID_ARGUMENT (NULL),
 * OUT_OF_MEMORY. */
SB_API sb_result sb_cloth_count_intersections(const sb_world *world, sb_cloth_id cloth, sb_cloth_id other,
                                              int64_t *out_pairs);
/* The same between the cloth and a collider: 0 when the cloth does not meet it
 * (sb_cloth_set_colliders). A cloth's vertices inside a closed collider are pulled out. */
SB_API sb_result sb_cloth_count_collider_intersections(const sb_world *world, sb_cloth_id cloth,
                                                       sb_collider_id collider, int64_t *out_pairs);
/* The cloth's vertices inside a closed collider now (odd crossings of a ray from the vertex;
 * the collider where sb_cloth_count_collider_intersections takes it): a cloth wholly inside
 * one crosses none of its triangles and counts no pair, but is tangled all the same, and the
 * bake pulls it out. 0 when the cloth does not meet the collider or the collider is not closed
 * (every edge of two triangles: it has no inside). Errors: NOT_FOUND, INVALID_ARGUMENT (NULL),
 * OUT_OF_MEMORY. */
SB_API sb_result sb_cloth_count_vertices_inside_collider(const sb_world *world, sb_cloth_id cloth,
                                                         sb_collider_id collider, int64_t *out_vertices);

/* Pinned vertices move in a straight line from where they are now to `positions` (pin_count
 * x 3, in the order of sb_cloth_def.pins), arriving at `time`; after that they stay. Errors:
 * NOT_FOUND, INVALID_ARGUMENT (the pins follow a body, pin_count is not the cloth's, NULL
 * positions, a non-finite target, `time` not finite or not after the world's time). */
SB_API sb_result sb_cloth_set_pin_targets(sb_world *world, sb_cloth_id cloth, double time,
                                          const double *positions, int32_t pin_count);
/* From now on the cloth's (or strands') pins are carried by the rigid body: each pin's position
 * now (where its target path puts it at the world's time) stays fixed in the body's frame, and
 * over every step the pins move in a straight line from the body's points at the step's start
 * to its points at the step's end, landing on them exactly. A dynamic body whose feels_cloth is 1
 * takes the pins' pull on the cloth, equal and opposite, in the cloth's implicit solve (its joints'
 * locked axes held in that solve too); otherwise
 * (feels_cloth 0, kinematic, asleep) one way: the body moves the pins and does not feel them.
 * Part of the model, like
 * sb_collider_follow_body: a world rebuilt to load a saved state attaches the pins again at
 * the same point of its building (the state's fingerprint covers the body and the pins in its
 * frame). Errors: NOT_FOUND (either id), INVALID_ARGUMENT (the cloth has no pins, or they
 * already follow a body; sb_cloth_set_pin_targets is then refused), OUT_OF_MEMORY. */
SB_API sb_result sb_cloth_attach_pins_to_body(sb_world *world, sb_cloth_id cloth, sb_body_id body);
/* The goals of the cloth's goal springs (sb_cloth_def.goal_stiffness) move in a straight line
 * from where they are now to `positions` (vertex_count x 3, every vertex's; those without a
 * goal are not read beyond the checks), arriving at `time`; after that they stay. Errors:
 * NOT_FOUND, INVALID_ARGUMENT (vertex_count is not the cloth's, NULL positions, a position not
 * finite or beyond 1e7 m, `time` not finite or not after the world's time). */
SB_API sb_result sb_cloth_set_goal_targets(sb_world *world, sb_cloth_id cloth, double time,
                                           const double *positions, int32_t vertex_count);

/* Which colliders the cloth meets (Blender's Object Collisions switch and Collision
 * Collection). By default it meets every collider of its world, those added later too. From
 * this call on it meets only the `count` colliders listed (count 0: none; colliders added later:
 * not met), or with colliders NULL and count SB_ALL_COLLIDERS every collider again. Contacts
 * already held on a collider no longer met are let go at the next step. The set is part of the
 * cloth's definition in a saved state: a world built again makes the same call before loading
 * it. Errors: NOT_FOUND (the cloth, or a listed collider), INVALID_ARGUMENT (count below
 * SB_ALL_COLLIDERS, colliders NULL with count > 0 or not NULL with SB_ALL_COLLIDERS, a collider
 * listed twice), OUT_OF_MEMORY. */
#define SB_ALL_COLLIDERS (-1)
SB_API sb_result sb_cloth_set_colliders(sb_world *world, sb_cloth_id cloth, const sb_collider_id *colliders,
                                        int32_t count);

/* Copy the cloth's vertex positions (m) or velocities (m/s) now into `out`, vertex_count x 3;
 * vertex_count must be the cloth's. Errors: NOT_FOUND, INVALID_ARGUMENT (NULL, wrong count). */
SB_API sb_result sb_cloth_get_positions(const sb_world *world, sb_cloth_id cloth, double *out,
                                        int32_t vertex_count);
SB_API sb_result sb_cloth_get_velocities(const sb_world *world, sb_cloth_id cloth, double *out,
                                         int32_t vertex_count);
/* The cloth's kinetic energy now, ½ Σ m v², J. Errors: NOT_FOUND, INVALID_ARGUMENT (NULL). */
SB_API sb_result sb_cloth_get_kinetic_energy(const sb_world *world, sb_cloth_id cloth, double *out);

/* ==== Strands ==============================================================================
 *
 * Hair, ropes and cables as polylines (Kass, "Cloth and Fur Energy Functions", Hair Model):
 * each segment a stretch spring, each interior vertex an angular spring on its turning angle θ
 * (the angle between its two segments), E = ½ k (θ - θ0)², θ0 from the rest shape, so a strand
 * given curled keeps its curl. Both stiffnesses are per unit length, as a beam's EA and EI
 * are: a segment of rest length L is a spring of EA / L and a vertex whose segments average l̄
 * bends with EI / l̄, so the same material hangs the same however finely it is sampled.
 * There is no twist (Kass' model has none): θ is the turning only, nothing holds the plane of
 * a bend, so a curl keeps its turning per length but may rotate about the strand.
 *
 * Strands step in the same implicit solve as cloth and are one: sb_world_add_strands gives a
 * cloth id, and every sb_cloth_* function that takes one works on them (positions, velocities,
 * kinetic energy, pin targets, the colliders met, field weights; sb_cloth_get_info counts the
 * vertices and gives the total mass, with the strands' total length in rest_area). Vertices
 * meet colliders as cloth vertices do, held at `thickness` plus the collider's, and each free
 * vertex's path over a step is swept against the colliders' triangles (where they are at the
 * step's end), so a falling strand does not pass through them; each segment's motion is swept
 * against the colliders' sharp edges (faces meeting at more than 30°, or open edges), so an
 * edge does not cut between two vertices either. Strands never pass through
 * each other (with self_collision: of this definition too, segment against segment, a
 * strand's own segments that share no vertex included) nor through cloth of the same world
 * (its vertices against the cloth's faces, its segments against the cloth's edges): the
 * cloth's collision response (proximity pushes, continuous edge-edge detection, impact zones)
 * keeps every segment `thickness` plus the other's (two strands of one definition: twice
 * `thickness`) from the other, and no segment crosses another within any step. Not handled:
 * a collider's face moving fast through a strand's vertex within one step.
 * Fields push per metre of strand (where on cloth they push per m²); wind drags across each
 * segment, with the part of w (Force fields: WIND) normal to it, as air crossing a thin
 * cylinder does. */
typedef struct sb_strand_def {
    const double *positions;             /* vertex_count x 3, m: the rest shape */
    const int32_t *strand_vertex_counts; /* strand_count: strand k is the next count (>= 2) vertices */
    const int32_t *pins;                 /* pin_count vertex indices (roots), held like cloth pins */
    int32_t vertex_count;                /* the sum of strand_vertex_counts */
    int32_t strand_count;
    int32_t pin_count;
    double mass_per_length;   /* kg/m (> 0), lumped: each vertex half of each of its segments */
    double stretch_stiffness; /* N (EA): a segment of rest length L is a spring of EA / L */
    double bend_stiffness;    /* N·m² (EI): at an interior vertex k = EI / l̄ on θ (0: limp) */
    double damping;           /* s: each spring's damping is damping × its stiffness */
    double air_drag;          /* kg/(m·s): a vertex feels -air_drag × its length × v */
    double thickness;         /* m: distance kept from colliders' surfaces */
    double friction;          /* Coulomb coefficient with colliders (times theirs) */
    double gravity_scale;     /* of the world's gravity */
    /* Strain limits, as cloth's (sb_cloth_def): at the end of every step each segment's length
     * is projected into [1 - max_compression, 1 + max_stretch] x its rest length, its two ends
     * moved by inverse mass (pins never), Gauss-Seidel over the segments, and each moved
     * vertex's velocity changes by its displacement / step. The stiff segments of a strand
     * stretch far more in one large implicit step than the material would (a 1 m rope released
     * horizontally, one step of 1/24 s a frame: one segment by 44%, the whole by 3.3% over
     * 2 s); the limit takes that out (with 0.005: every segment and the whole within 0.5%).
     * Collisions come first, as for cloth. 0: that side is not limited. The default, 10% as
     * cloth's, catches the gross stretch at no cost measurable in bench/strands.c; a tight
     * limit costs more where strands rest on a collider, whose response and the projection
     * take turns (bench_strands, 500 hairs on a head: 51 ms of CPU a frame unlimited, 54 with
     * 10%, 142 with 0.5% stretch; with 0.5% compression too, twice the steps as well). */
    double max_stretch;       /* fraction, 0 or in (0, 10] (0.1) */
    double max_compression;   /* fraction, 0 or in (0, 1) (0.1: a strand buckles rather than
                                 shortening along itself) */
    /* Nonzero: the strands of this definition never pass through each other or themselves,
     * two segments kept twice `thickness` apart (1; strands of different definitions and
     * cloth are always kept apart). Segments closer than that in the rest shape (hairs rooted
     * side by side, the turns of a tight curl) are only kept from crossing. It costs where
     * many strands lie close: bench_strands' 500 hairs, see README.md's Strands. */
    int32_t self_collision;
} sb_strand_def;

/* mass_per_length 0.01 kg/m, stretch_stiffness 1e4 N, bend_stiffness 1e-4 N·m², damping 0.01 s,
 * air_drag 0, thickness 0.005 m, friction 0.5, gravity_scale 1, max_stretch and max_compression
 * 0.1, self_collision 1, the rest NULL/0. */
SB_API sb_strand_def sb_default_strand_def(void);

/* Adds strands at the world's current time, at rest, their pins held where they are; their
 * cloth id goes to *out_strands. Errors: INVALID_ARGUMENT (a NULL pointer, mass_per_length not
 * positive, a stiffness, damping, air_drag, thickness or friction negative or not finite,
 * gravity_scale not finite, max_stretch or max_compression out of range, bad pins, more vertices than one world
 * holds), INVALID_MESH (fewer than 2 vertices in a strand, counts that do not add up to
 * vertex_count, non-finite or too distant positions, a segment of length 0), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_strands(sb_world *world, const sb_strand_def *def, sb_cloth_id *out_strands);

/* ==== Force fields ========================================================================
 *
 * Fields push on the world's cloths as Blender's force fields do (Wind, Force, Vortex,
 * Turbulence, Drag, Harmonic). Every field acts per unit area of cloth: on a vertex it gives
 * (force per m²) x the vertex's rest area (a third of its triangles'), and wind presses on
 * each triangle along its current normal. With these definitions, for a field at a point x
 * (o the field's position, a its unit axis, r = x - o):
 *   d  = P r, the field's vector to x: P = I (SB_FIELD_POINT), a aᵀ (SB_FIELD_PLANE: from the
 *        plane through o across a) or I - a aᵀ (SB_FIELD_LINE: from the line through o along
 *        a; a Vortex of shape PLANE takes this one too, as Blender's does);
 *   fo = falloff x the cloth's weight (sb_cloth_set_field_weight), where with
 *        g(q) = 0 beyond max (when used), 1 within min (when used), else (1 + q - min)^-power:
 *        SB_FALLOFF_SPHERE: g(|d|); SB_FALLOFF_TUBE: g(|a·r|) x g_radial(|r - (a·r) a|);
 *        and 0 on the side of the plane through o across a that `side` leaves out;
 *   s  = strength + noise x n(t), n a smooth seeded noise in [-1, 1] over time (0.1 s scale);
 *   v  = the cloth's velocity there.
 * Force per m² of cloth, by type (flow adds -fo flow v to Force, Vortex and Turbulence):
 *   WIND        pressure on each triangle, p = w·n̂ with w = fo (s a - flow v) (N/m²), spread
 *               over its corners as a linear pressure integrates: corner i gets
 *               A (p_1 + p_2 + p_3 + p_i)/12 n̂ (A the triangle's current area, n̂ its normal).
 *               A triangle edge-on to the wind feels only the flow term. On strands, per
 *               metre: the part of w normal to each segment, P w (P = I - t̂ t̂ᵀ, t̂ along the
 *               segment, the flow term with the segment's mean fo): flow (s/flow a - v) is drag
 *               on a cylinder, a coefficient per metre times the normal part of the relative
 *               velocity. End i of a segment of current length ℓ gets ℓ P (2 w_i + w_j)/6.
 *   FORCE       fo s d/|d| (N/m²): away from the field for s > 0
 *   VORTEX      fo s |d| (a x d)/|a x d| (N/m² from N/m³ x m): around the axis, right-handed
 *   TURBULENCE  fo s N(q / noise_size) (N/m²), N a smooth seeded noise vector in [-1, 1]³,
 *               q = x (global_coordinates) or r + a
 *   DRAG        -fo (linear_drag + quadratic_drag |v|) v
 *   HARMONIC    -fo s d (|d| - rest_length)/|d| - damping v (s in N/m³), where fo is not 0
 * The velocity terms (flow, drag, harmonic damping) and the harmonic pull enter the implicit
 * solve with their derivatives; the others are explicit (see cloth_fields.c). */

typedef struct sb_field_id { int32_t index; } sb_field_id;

typedef enum sb_field_type {
    SB_FIELD_WIND = 0,
    SB_FIELD_FORCE = 1,
    SB_FIELD_VORTEX = 2,
    SB_FIELD_TURBULENCE = 3,
    SB_FIELD_DRAG = 4,
    SB_FIELD_HARMONIC = 5
} sb_field_type;

typedef enum sb_field_shape {
    SB_FIELD_POINT = 0,         /* from the field's position */
    SB_FIELD_LINE = 1,          /* from the line through it along the axis */
    SB_FIELD_PLANE = 2          /* from the plane through it across the axis */
} sb_field_shape;

typedef enum sb_falloff_shape {
    SB_FALLOFF_SPHERE = 0,      /* by the distance |d| */
    SB_FALLOFF_TUBE = 1         /* by the distance along the axis, times by the radius from it */
} sb_falloff_shape;

typedef enum sb_field_side {
    SB_FIELD_BOTH_SIDES = 0,
    SB_FIELD_POSITIVE_SIDE = 1, /* only where a·r >= 0 */
    SB_FIELD_NEGATIVE_SIDE = 2  /* only where a·r <= 0 */
} sb_field_side;

/* A field as it is at the world's current time; sb_default_field_def() gives the defaults in
 * brackets. Units per type are in the section's comment above. */
typedef struct sb_field_def {
    sb_field_type type;         /* (SB_FIELD_WIND) */
    sb_field_shape shape;       /* (SB_FIELD_POINT) */
    double position[3];         /* o, m ((0, 0, 0)) */
    double axis[3];             /* a, the field object's z axis: any length above 1e-12, normalised
                                   ((0, 0, 1)) */
    double strength;            /* s (1) */
    double flow;                /* kg/(m² s), >= 0: air carried along (0) */
    double noise;               /* amplitude of the strength's noise over time, same unit, >= 0 (0) */
    int32_t seed;               /* of the strength's and the turbulence's noise (0) */
    sb_falloff_shape falloff;   /* (SB_FALLOFF_SPHERE) */
    sb_field_side side;         /* (SB_FIELD_BOTH_SIDES) */
    double falloff_power;       /* >= 0 (0: no falloff) */
    int32_t use_min_distance;   /* nonzero: full strength within min_distance (0) */
    double min_distance;        /* m, >= 0 (0) */
    int32_t use_max_distance;   /* nonzero: nothing beyond max_distance (0) */
    double max_distance;        /* m, >= 0 (0) */
    double radial_power;        /* tube: the same, across the axis (0) */
    int32_t use_min_radius;     /* (0) */
    double min_radius;          /* m (0) */
    int32_t use_max_radius;     /* (0) */
    double max_radius;          /* m (0) */
    double noise_size;          /* turbulence: m per noise cell, >= 1e-6 (1) */
    int32_t global_coordinates; /* turbulence: noise fixed in the world, not moving with the
                                   field (0) */
    double rest_length;         /* harmonic: m, >= 0 (0) */
    double damping;             /* harmonic: kg/(m² s), >= 0 (0) */
    double linear_drag;         /* drag: kg/(m² s), >= 0 (0) */
    double quadratic_drag;      /* drag: kg/m³, >= 0 (0) */
} sb_field_def;

SB_API sb_field_def sb_default_field_def(void);

/* Adds a field at the world's current time, standing still; its id goes to *out_field. Every
 * cloth feels it with weight 1 until sb_cloth_set_field_weight says otherwise. Errors:
 * INVALID_ARGUMENT (NULL, an unknown type, shape, falloff or side, a value not finite or out
 * of range, an axis of length 0), OUT_OF_MEMORY. */
SB_API sb_result sb_world_add_field(sb_world *world, const sb_field_def *def, sb_field_id *out_field);
/* The field moves in a straight line from where it is now to `position`, its axis turns
 * (linearly, normalised) to `axis` and its strength changes linearly to `strength`, arriving
 * at `time`; after that they stay. Call it once per frame to follow an animated field.
 * Errors: NOT_FOUND, INVALID_ARGUMENT (NULL, not finite, position beyond 1e7 m, an axis of
 * length 0, `time` not finite or not after the world's time). */
SB_API sb_result sb_field_set_target(sb_world *world, sb_field_id field, double time, const double position[3],
                                     const double axis[3], double strength);
/* How much the cloth feels the field: its forces times `weight` (1; 0: not at all). Blender's
 * Field Weights: All x the field type's weight, 0 for a field outside the effector
 * collection. Errors: NOT_FOUND (either id), INVALID_ARGUMENT (not finite), OUT_OF_MEMORY. */
SB_API sb_result sb_cloth_set_field_weight(sb_world *world, sb_cloth_id cloth, sb_field_id field, double weight);

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
 * the body's frame and follow the body's motion within every step. The cloth meets the body
 * and, when the body is dynamic and its feels_cloth is 1, the body feels the cloth: each step
 * the impulses the cloth got from the collider (the contacts held in the solve, their
 * friction, the response's impulses) go to the body, equal and opposite, at their points,
 * at the end of the step (a staggered scheme: the body steps first, the cloth meets it where
 * it went, the body takes the cloth's push into its next step). Errors: NOT_FOUND (either
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
    SB_SHAPE_MESH = 3,        /* the triangles themselves: kinematic and static bodies only */
    SB_SHAPE_COMPOUND = 4,    /* the parts (part_count, parts) as one rigid body */
    SB_SHAPE_CAPSULE = 5,     /* center, rotation, radius, and half_extents[2]: half the length of
                                 its core segment, along its own z axis (0: a sphere) */
    SB_SHAPE_CYLINDER = 6,    /* center, rotation, radius, and half_extents[2]: half its height,
                                 along its own z axis (Blender's and Bullet's Cylinder) */
    SB_SHAPE_CONE = 7         /* center, rotation, radius (of its base), and half_extents[2]: half
                                 its height; base at center - half z, apex at center + half z
                                 (Blender's and Bullet's Cone). `center` is halfway up, where
                                 Blender puts the shape's origin; the body's centre of mass
                                 (sb_body_state.position) is a quarter of the height above the base */
} sb_shape;

/* One convex part of a compound body, in world space as the body is now, with the fields of
 * sb_body_def of the same names. The parts' solids at one density give the body's mass
 * distribution (parts that overlap count twice); each part collides on its own.
 * sb_default_body_part() gives the defaults in brackets and no geometry. */
typedef struct sb_body_part {
    sb_shape shape;             /* SB_SHAPE_SPHERE, _BOX, _CONVEX_HULL, _CAPSULE, _CYLINDER or _CONE
                                   (SB_SHAPE_BOX) */
    int32_t vertex_count;
    const double *vertices;     /* vertex_count x 3: hull points */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3: a closed mesh gives the hull's mass distribution */
    double center[3];           /* sphere, box and capsule centre */
    double radius;              /* sphere and capsule, m */
    double half_extents[3];     /* box, m; capsule: [2] */
    double rotation[4];         /* box and capsule orientation (w, x, y, z) ((1, 0, 0, 0)) */
} sb_body_part;

SB_API sb_body_part sb_default_body_part(void);

/* A rigid body, described in world space as it is at the world's current time.
 * sb_default_body_def() gives the defaults in brackets and no geometry. */
typedef struct sb_body_def {
    sb_body_type type;          /* (SB_BODY_DYNAMIC) */
    sb_shape shape;             /* (SB_SHAPE_CONVEX_HULL) */
    int32_t vertex_count;
    const double *vertices;     /* vertex_count x 3: hull points, mesh; mass properties when closed */
    int32_t triangle_count;
    const int32_t *triangles;   /* triangle_count x 3: a closed mesh gives the mass distribution */
    double center[3];           /* sphere, box, capsule, cylinder and cone centre */
    double radius;              /* sphere, capsule, cylinder and cone, m */
    double half_extents[3];     /* box, m; capsule: [2], half its segment's length; cylinder and
                                   cone: [2], half the height */
    double rotation[4];         /* box, capsule, cylinder and cone orientation (w, x, y, z) ((1, 0, 0, 0)) */
    double mass;                /* kg, dynamic bodies (1) */
    double friction;            /* a contact uses the product of both bodies' values (0.5) */
    double restitution;         /* bounciness 0..1, product of both bodies' values (0) */
    double linear_velocity[3];  /* m/s, world, at the start */
    double angular_velocity[3]; /* rad/s, world, at the start */
    double linear_damping;      /* fraction of velocity lost per second, 0..1 (0) */
    double angular_damping;     /* fraction of angular velocity lost per second, 0..1 (0) */
    /* Collision groups (Blender's Collision Collections, bit k for collection k + 1): two bodies
     * collide only if their masks share a bit; 0 collides with no body. The default is Blender's
     * default, collection 1 alone, so bodies left at it all collide (1) */
    uint32_t collision_groups;
    /* Sleeping (Blender's Deactivation, Bullet's rule): a dynamic body whose speed stays below
     * deactivate_linear_velocity and whose angular speed stays below deactivate_angular_velocity
     * for deactivate_time is ready to sleep; an island (bodies joined by contacts and joints)
     * falls asleep when every body in it is ready, and then stands still at no cost per step
     * (its velocities are set to zero). It wakes when an awake dynamic body or a moving
     * kinematic body touches it or acts on it through a joint; bodies asleep whose bounds
     * overlap a woken one's wake with it (as Bullet's islands join by overlapping bounds). As in
     * Bullet, a body that a moving kinematic body touches starts its timer from zero; any other
     * woken body stays ready until it moves faster than the thresholds, so if it stays slow it
     * sleeps again with its island. Kinematic and static bodies never sleep. */
    int32_t use_deactivation;   /* nonzero: the body may sleep (0, as Blender) */
    int32_t start_deactivated;  /* nonzero, with use_deactivation: the body starts asleep and
                                   stays where it is, unmoved by gravity, until woken (0) */
    double deactivate_linear_velocity;  /* m/s, >= 0 (0.4, Blender's) */
    double deactivate_angular_velocity; /* rad/s, >= 0 (0.5, Blender's) */
    double deactivate_time;     /* s, >= 0: below both that long (2, Bullet's gDeactivationTime) */
    int32_t part_count;         /* SB_SHAPE_COMPOUND: 1..4096 parts (0) */
    const sb_body_part *parts;  /* part_count parts (NULL) */
    int32_t feels_cloth;        /* 1: a dynamic body feels the cloth that meets the colliders it
                                   carries (sb_collider_follow_body): two-way coupling, the contact
                                   and friction impulses the cloth gets, equal and opposite, at the
                                   contact points, and the pull of the pins it carries
                                   (sb_cloth_attach_pins_to_body); 0: one way, the body moves as if the cloth were
                                   not there (0: a heavy body rocking on a pinned cloth at its strain
                                   limit can still be thrown off, see README) */
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
    int32_t contacts;           /* contact points touching it in the last step (0 asleep) */
    int32_t sleeping;           /* 1: asleep (see sb_body_def.use_deactivation), 0: awake */
} sb_body_state;

SB_API sb_body_def sb_default_body_def(void);

/* Adds a rigid body at the world's current time; its id goes to *out_body. Errors:
 * INVALID_ARGUMENT (a NULL pointer, an unknown type or shape, a dynamic mesh, a value out of
 * range, an explicit integrator, a compound with no parts, too many or a part of another shape
 * than sphere, box, convex hull, capsule, cylinder and cone, a cylinder or cone without a
 * positive radius and height), INVALID_MESH (vertices or triangles unusable for the
 * shape or a part, sizes beyond 1e7 m), SOLVER (no principal axes of inertia), OUT_OF_MEMORY. */
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
    int64_t strain_violations;  /* steps that ended with a triangle (or a strand's segment)
                                   beyond its strain limit (max_stretch, max_compression) because the collision
                                   response held it there: non-penetration wins */
    int32_t sleeping_bodies;    /* rigid bodies asleep now */
    int64_t rigid_pair_tests;   /* body pairs whose shapes were tested for contact (narrow
                                   phase), over all rigid substeps: sleeping pairs cost none */
    int64_t rigid_body_moves;   /* dynamic bodies moved (integrated), over all rigid substeps:
                                   a sleeping body costs none */
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
 * velocities, contacts, step size, collision trees, warm starts, statistics, which bodies sleep
 * and how long the others have been still, which joints broke and when) and the pin, goal,
 * collider, kinematic body and force field targets: a world built again from the same
 * definitions (field weights and colliders met included), added in the same order, and given
 * this state goes on bit for bit as the saved one would have (on any number of threads: see
 * Threads). The state is bytes in this machine's byte order,
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
 * returning, on every path. With 0 (the default) they use the calling thread's count
 * (OMP_NUM_THREADS, or one per core), or fewer when other processes keep the cores busy: the
 * threads wait for each other many times per step, and OpenMP's waiting threads spin, so a
 * thread that another process keeps off its core stalls the rest (a cloth test took 54 times
 * longer on two threads than on one beside a busy process on two cores). The count is chosen
 * again at most every quarter second, from the CPU time other processes took since (Linux's
 * /proc/stat; elsewhere the caller's count stands; one thread until the first quarter second
 * is measured), and set and given back as above. Other
 * functions run on the calling thread alone. A
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
