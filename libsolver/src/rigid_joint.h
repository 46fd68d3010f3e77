/* Joints between rigid bodies (Baraff 1989 §7 "Additional Constraints"; course notes,
 * "Constrained Dynamics"): six coordinates of body b's copy of the joint frame in body a's,
 * each locked, limited or free. A locked coordinate c is an equality row J v = ċ = 0 solved
 * with the island's contacts; a limit a one-sided row like a contact's normal; what drift the
 * step leaves (c ≠ 0 after the bodies turned) is projected away by moving the bodies without
 * giving them velocity (rigid_joint_correction_rows), so the joint adds no energy. */
#ifndef SB_RIGID_JOINT_H
#define SB_RIGID_JOINT_H

#include <stdbool.h>

#include "rigid_body.h"
#include "rigid_contact_rows.h"
#include "simbake.h"
#include "state_io.h"

/* Row slots of a joint (for warm starts): per axis a locked row or two limits (2 k, 2 k + 1),
 * a motor (MOTOR_SLOT + k), a spring (SPRING_SLOT + k). */
enum { JOINT_AXES = 6, MOTOR_SLOT = 2 * JOINT_AXES, SPRING_SLOT = 3 * JOINT_AXES, JOINT_SLOTS = 4 * JOINT_AXES };
typedef enum axis_mode { AXIS_FREE, AXIS_LOCKED, AXIS_LIMITED } axis_mode;

/* What the definition fixes (hashed into the state's fingerprint), then what stepping
 * changes (saved in a state). */
typedef struct rigid_joint {
    int32_t a, b;             /* bodies; b = -1: the world */
    vec3 local_a, local_b;    /* the pivot in a's body frame, in b's (the world's: world) */
    quat frame_a, frame_b;    /* the joint's axes in each body's frame */
    uint8_t mode[JOINT_AXES]; /* axis_mode */
    double lower[JOINT_AXES], upper[JOINT_AXES]; /* locked: lower = upper = the target */
    bool motor[JOINT_AXES], spring[JOINT_AXES];  /* on free or limited axes only */
    double motor_velocity[JOINT_AXES], motor_force[JOINT_AXES];
    double stiffness[JOINT_AXES], damping[JOINT_AXES];
    bool disable_collisions, breakable;
    double break_force;       /* N: a row's impulse over a step h breaks it at break_force h */

    bool broken;
    double broken_time;       /* s; -1 while it holds */
    double force[JOINT_SLOTS]; /* each row's impulse / h of the last substep: warm start, N */
} rigid_joint;

/* A joint from its definition, with bodies a and b (NULL: the world) as they are now; false
 * with the error set when the definition is refused (bodies are checked by the caller). */
bool rigid_joint_init(rigid_joint *j, const sb_joint_def *def, const rigid_body *a, const rigid_body *b);

/* The pose of each end of the joint: the world slot `world` stands for the world. */
typedef struct joint_ends {
    vec3 xa, xb;        /* centres of mass (the world: 0) */
    vec3 pa, pb;        /* the pivot on each */
    quat fa, fb;        /* the frame on each, world */
} joint_ends;

joint_ends rigid_joint_ends(const rigid_joint *j, const rigid_body *a, const rigid_body *b);
/* The six coordinates of b's frame in a's. */
void rigid_joint_coordinates(const joint_ends *e, double c[JOINT_AXES]);

/* The velocity rows of the joint for a substep of length h into rows (at most JOINT_SLOTS),
 * each row's slot into slots; body indices a_index, b_index (the world's
 * slot for the world). Returns the count. Rows are warm-started from the last substep. */
int32_t rigid_joint_rows(const rigid_joint *j, const joint_ends *e, int32_t a_index, int32_t b_index, double h,
                         contact_row *rows, int32_t *slots);
/* Rows of pseudo-velocities that move the ends back onto the joint within a step of length h:
 * every locked coordinate, and the limits that are passed. Returns the count. */
int32_t rigid_joint_correction_rows(const rigid_joint *j, const joint_ends *e, int32_t a_index, int32_t b_index,
                                    double h, contact_row *rows);

/* The definition's fingerprint (world_state.c), and the joint's state in a saved world. */
uint64_t rigid_joint_hash(uint64_t h, const rigid_joint *j);
void rigid_joint_state_write(const rigid_joint *j, state_writer *out);
bool rigid_joint_state_read(rigid_joint *j, int32_t index, state_reader *in);

#endif
