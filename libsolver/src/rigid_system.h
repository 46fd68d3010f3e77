/* The rigid bodies of a world as a system of their own: the settings they step by, the
 * bodies, and the step's scratch. It knows nothing of the world around it: the world moves
 * the colliders bodies carry by asking for their poses (rigid_system_step_poses). */
#ifndef SB_RIGID_SYSTEM_H
#define SB_RIGID_SYSTEM_H

#include "rigid_body.h"
#include "rigid_joint.h"
#include "simbake.h"
#include "state_io.h"

/* What the bodies take from the world's definition (sb_world_def), fixed with it. */
typedef struct rigid_settings {
    vec3 gravity;
    double max_step;       /* rigid_max_step: the longest substep */
    int32_t iterations;    /* rigid_iterations: Gauss-Seidel sweeps of the contacts */
    double contact_margin; /* contacts are found this far apart */
    double max_speed;      /* a body faster than this fails the step */
    double time_scale;     /* rigid_time_scale: the bodies' seconds per second of the world */
} rigid_settings;

/* The step's memory (rigid_scratch.h): most of it scratch, but the broad phase's order and
 * the warm-start impulses are read by the next step, and saved with the bodies. */
typedef struct rigid_scratch rigid_scratch;

typedef struct rigid_system {
    rigid_settings settings;
    rigid_body **bodies;
    int32_t body_count, body_capacity;
    rigid_joint *joints;
    int32_t joint_count, joint_capacity;
    rigid_joint *joints_saved; /* as they were at the start of the advance: undo */
    int32_t joints_saved_capacity;
    rigid_scratch *scratch; /* NULL until the first step with bodies, or a state that has one */
    int64_t pair_tests, body_moves; /* over the last advance: narrow-phase pairs, bodies moved */
} rigid_system;

void rigid_system_init(rigid_system *s, rigid_settings settings);
/* Frees the bodies and the scratch (not s itself). */
void rigid_system_free(rigid_system *s);
/* A body from its definition, starting at `time`: its id in *out_body. */
sb_result rigid_system_add_body(rigid_system *s, const sb_body_def *def, double time, int32_t *out_body);

/* A joint from its definition between bodies as they are now: its id in *out_joint. */
sb_result rigid_system_add_joint(rigid_system *s, const sb_joint_def *def, int32_t *out_joint);

/* The bodies over [t, t + h] in substeps of at most settings.max_step. On failure they are
 * back at t and *failure says why (not touched on success). */
sb_result rigid_system_advance(rigid_system *s, double t, double h, sb_failure *failure);
/* Bodies (and joints) back where the last rigid_system_advance found them. */
void rigid_system_undo_advance(rigid_system *s);
/* Body `body`'s pose at the start (x0, q0) and the end (x1, q1) of the last advance, which
 * succeeded. */
void rigid_system_step_poses(const rigid_system *s, int32_t body, vec3 *x0, quat *q0, vec3 *x1, quat *q1);
/* Body `body`'s velocity at the start of the last advance, which succeeded. */
vec3 rigid_system_start_velocity(const rigid_system *s, int32_t body);

/* The step's memory of the last one (the broad phase's order, warm-start impulses) in a
 * saved state (world_state.c saves the bodies' states); reading runs once per state_pass, false
 * with the error set. */
void rigid_system_state_write(const rigid_system *s, state_writer *out);
bool rigid_system_state_read(rigid_system *s, state_reader *in);

#endif
