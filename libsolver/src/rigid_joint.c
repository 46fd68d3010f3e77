/* Joints: the definition checked and fixed in the bodies' frames, the six coordinates of a
 * joint, its velocity rows and its position-correction rows, and its part of a saved state. */
#include "rigid_joint.h"

#include <math.h>
#include <string.h>

#include "api_error.h"

#define PI 3.14159265358979323846

static const char *const AXIS_NAMES[JOINT_AXES] = {"x translation", "y translation", "z translation",
                                                   "x rotation", "y rotation", "z rotation"};

/* Which coordinates each type leaves free (the rest are locked at 0). */
static bool type_frees(sb_joint_type type, int axis)
{
    switch (type) {
    case SB_JOINT_FIXED: return false;
    case SB_JOINT_POINT: return axis >= 3;
    case SB_JOINT_HINGE: return axis == 5;
    case SB_JOINT_SLIDER: return axis == 0;
    case SB_JOINT_PISTON: return axis == 0 || axis == 3;
    case SB_JOINT_GENERIC: return true;
    }
    return false;
}

static bool refuse(const char *message, int axis)
{
    error_set(SB_ERROR_INVALID_ARGUMENT, message, AXIS_NAMES[axis]);
    return false;
}

bool rigid_joint_init(rigid_joint *j, const sb_joint_def *def, const rigid_body *a, const rigid_body *b)
{
    int32_t type = (int32_t)def->type; /* an enum field holds whatever int32 a binding wrote there */
    if (type < SB_JOINT_FIXED || type > SB_JOINT_GENERIC) {
        error_set(SB_ERROR_INVALID_ARGUMENT, "unknown joint type %d", (int)type);
        return false;
    }
    if (!all_finite(def->pivot, 3) || fabs(def->pivot[0]) > MAX_COORDINATE || fabs(def->pivot[1]) > MAX_COORDINATE ||
        fabs(def->pivot[2]) > MAX_COORDINATE) {
        error_set(SB_ERROR_INVALID_ARGUMENT, "joint pivot must be finite and within 1e7 m");
        return false;
    }
    quat frame = {def->rotation[0], def->rotation[1], def->rotation[2], def->rotation[3]};
    double norm = sqrt(frame.w * frame.w + frame.x * frame.x + frame.y * frame.y + frame.z * frame.z);
    if (!all_finite(def->rotation, 4) || !(norm > 1e-9)) {
        error_set(SB_ERROR_INVALID_ARGUMENT, "joint rotation must be a finite, non-zero quaternion (w, x, y, z)");
        return false;
    }
    frame = q_normalize(frame);
    if (def->breakable && (!(def->breaking_threshold > 0.0) || !isfinite(def->breaking_threshold))) {
        error_set(SB_ERROR_INVALID_ARGUMENT, "breaking_threshold must be positive and finite, got %g",
                  def->breaking_threshold);
        return false;
    }
    if (def->breakable && (!(def->breaking_step > 0.0) || !isfinite(def->breaking_step))) {
        error_set(SB_ERROR_INVALID_ARGUMENT, "breaking_step must be positive and finite, got %g", def->breaking_step);
        return false;
    }
    *j = (rigid_joint){.b = -1, .disable_collisions = def->disable_collisions != 0,
                       .breakable = def->breakable != 0, .broken_time = -1.0};
    for (int k = 0; k < JOINT_AXES; k++) {
        j->mode[k] = AXIS_LOCKED;
        if (!type_frees((sb_joint_type)type, k)) continue;
        j->mode[k] = AXIS_FREE;
        if (def->use_motor[k]) {
            if (!isfinite(def->motor_velocity[k])) return refuse("the motor of the %s: velocity not finite", k);
            if (!(def->motor_max_force[k] >= 0.0) || !isfinite(def->motor_max_force[k]))
                return refuse("the motor of the %s: motor_max_force must be zero or positive and finite", k);
            j->motor[k] = true, j->motor_velocity[k] = def->motor_velocity[k], j->motor_force[k] = def->motor_max_force[k];
        }
        if (def->use_spring[k]) {
            double stiffness = def->spring_stiffness[k], damping = def->spring_damping[k];
            if (!(stiffness >= 0.0) || !isfinite(stiffness) || !(damping >= 0.0) || !isfinite(damping))
                return refuse("the spring of the %s: stiffness and damping must be zero or positive and finite", k);
            j->spring[k] = stiffness > 0.0 || damping > 0.0, j->stiffness[k] = stiffness, j->damping[k] = damping;
        }
        if (!def->use_limit[k]) continue;
        double lo = def->lower[k], hi = def->upper[k];
        if (!isfinite(lo) || !isfinite(hi)) return refuse("joint limits of the %s must be finite", k);
        if (lo > hi) return refuse("joint limits of the %s: lower is above upper", k);
        if (k >= 3 && (lo < -PI || hi > PI)) return refuse("joint limits of the %s must be within [-pi, pi]", k);
        if (k < 3 && (fabs(lo) > MAX_COORDINATE || fabs(hi) > MAX_COORDINATE))
            return refuse("joint limits of the %s must be within 1e7 m", k);
        j->mode[k] = lo == hi ? AXIS_LOCKED : AXIS_LIMITED;
        j->lower[k] = lo, j->upper[k] = hi;
    }
    if (j->breakable) j->break_force = def->breaking_threshold / def->breaking_step;
    vec3 pivot = v3_load(def->pivot);
    j->local_a = m3_tmul_v(a->state.R, v3_sub(pivot, a->state.x));
    j->frame_a = q_normalize(q_mul(q_conj(a->state.q), frame));
    j->local_b = b ? m3_tmul_v(b->state.R, v3_sub(pivot, b->state.x)) : pivot;
    j->frame_b = b ? q_normalize(q_mul(q_conj(b->state.q), frame)) : frame;
    return true;
}

joint_ends rigid_joint_ends(const rigid_joint *j, const rigid_body *a, const rigid_body *b)
{
    joint_ends e = {.xa = a->state.x, .pa = v3_add(a->state.x, m3_mul_v(a->state.R, j->local_a)),
                    .fa = q_mul(a->state.q, j->frame_a)};
    if (b) e.xb = b->state.x, e.pb = v3_add(b->state.x, m3_mul_v(b->state.R, j->local_b)), e.fb = q_mul(b->state.q, j->frame_b);
    else e.xb = v3(0, 0, 0), e.pb = j->local_b, e.fb = j->frame_b;
    return e;
}

void rigid_joint_coordinates(const joint_ends *e, double c[JOINT_AXES])
{
    /* translations: b's pivot from a's, along a's axes; rotations: the rotation vector of b's
       frame in a's (each component the angle about an axis when the others are 0) */
    vec3 local = q_rotate(q_conj(e->fa), v3_sub(e->pb, e->pa));
    vec3 turn = q_to_rotation_vector(q_normalize(q_mul(q_conj(e->fa), e->fb)));
    c[0] = local.x, c[1] = local.y, c[2] = local.z;
    c[3] = turn.x, c[4] = turn.y, c[5] = turn.z;
}

/* The row whose velocity J v is the rate of coordinate k (negated for an upper limit):
 * translation (pb - pa)·e with e turning with a: ċ = e·(v_b(pb) - v_a(pb)), so a's lever
 * reaches to b's pivot; rotation: ċ = e·(ω_b - ω_a). */
static contact_row axis_row(const joint_ends *e, int k, int32_t a, int32_t b, double sign)
{
    vec3 unit = k % 3 == 0 ? v3(1, 0, 0) : (k % 3 == 1 ? v3(0, 1, 0) : v3(0, 0, 1));
    vec3 axis = v3_scale(q_rotate(e->fa, unit), sign);
    contact_row r = {.a = a, .b = b, .hi = INFINITY, .lo = -INFINITY, .warm = true};
    if (k < 3) {
        r.lin = v3_scale(axis, -1.0);
        r.ang_a = v3_cross(v3_sub(e->pb, e->xa), r.lin);
        r.ang_b = v3_cross(v3_sub(e->pb, e->xb), r.lin);
    } else {
        r.ang_a = r.ang_b = v3_scale(axis, -1.0);
    }
    return r;
}

int32_t rigid_joint_rows(const rigid_joint *j, const joint_ends *e, int32_t a_index, int32_t b_index, double h,
                         contact_row *rows, int32_t *slots)
{
    double c[JOINT_AXES];
    rigid_joint_coordinates(e, c);
    int32_t n = 0;
    for (int k = 0; k < JOINT_AXES; k++) {
        if (j->mode[k] == AXIS_LOCKED) { /* ċ = 0: the step keeps it; drift is the correction's */
            rows[n] = axis_row(e, k, a_index, b_index, 1.0);
            rows[n].lambda = h * j->force[2 * k];
            slots[n++] = 2 * k;
            continue;
        }
        /* a limit as a contact: the gap may close within the step, no further */
        for (int side = 0; side < 2 && j->mode[k] == AXIS_LIMITED; side++) {
            double gap = side == 0 ? c[k] - j->lower[k] : j->upper[k] - c[k];
            rows[n] = axis_row(e, k, a_index, b_index, side == 0 ? 1.0 : -1.0);
            rows[n].lo = 0.0;
            rows[n].bias = fmax(gap, 0.0) / h;
            rows[n].lambda = h * j->force[2 * k + side];
            slots[n++] = 2 * k + side;
        }
        if (j->motor[k]) { /* ċ = target while |impulse| <= force h */
            rows[n] = axis_row(e, k, a_index, b_index, 1.0);
            rows[n].bias = -j->motor_velocity[k];
            rows[n].lo = -j->motor_force[k] * h, rows[n].hi = j->motor_force[k] * h;
            rows[n].lambda = h * j->force[MOTOR_SLOT + k];
            slots[n++] = MOTOR_SLOT + k;
        }
        if (j->spring[k]) {
            /* backward Euler: λ = -h (k (c + h ċ⁺) + d ċ⁺), i.e. ċ⁺ + k c / (h k + d) + λ / (h (h k + d)) = 0 */
            double resist = h * j->stiffness[k] + j->damping[k];
            rows[n] = axis_row(e, k, a_index, b_index, 1.0);
            rows[n].bias = j->stiffness[k] * c[k] / resist;
            rows[n].soft = 1.0 / (h * resist);
            rows[n].lambda = h * j->force[SPRING_SLOT + k];
            slots[n++] = SPRING_SLOT + k;
        }
    }
    return n;
}

int32_t rigid_joint_correction_rows(const rigid_joint *j, const joint_ends *e, int32_t a_index, int32_t b_index,
                                    double h, contact_row *rows)
{
    double c[JOINT_AXES];
    rigid_joint_coordinates(e, c);
    int32_t n = 0;
    for (int k = 0; k < JOINT_AXES; k++) {
        /* c + h J pv = target: w = J pv + (c - target) / h = 0 (or >= 0 for a limit passed) */
        if (j->mode[k] == AXIS_LOCKED) {
            rows[n] = axis_row(e, k, a_index, b_index, 1.0);
            rows[n++].bias = (c[k] - j->lower[k]) / h;
        } else if (j->mode[k] == AXIS_LIMITED && (c[k] < j->lower[k] || c[k] > j->upper[k])) {
            bool below = c[k] < j->lower[k];
            rows[n] = axis_row(e, k, a_index, b_index, below ? 1.0 : -1.0);
            rows[n].lo = 0.0;
            rows[n++].bias = (below ? c[k] - j->lower[k] : j->upper[k] - c[k]) / h;
        }
    }
    return n;
}

/* --- saved state ------------------------------------------------------------------------------ */

uint64_t rigid_joint_hash(uint64_t h, const rigid_joint *j)
{
    uint8_t flags[2] = {j->disable_collisions, j->breakable};
    STATE_HASH(h, j->a), STATE_HASH(h, j->b), STATE_HASH(h, j->local_a), STATE_HASH(h, j->local_b);
    STATE_HASH(h, j->frame_a), STATE_HASH(h, j->frame_b), STATE_HASH(h, j->mode);
    STATE_HASH(h, j->lower), STATE_HASH(h, j->upper), STATE_HASH(h, flags), STATE_HASH(h, j->break_force);
    uint8_t drives[2 * JOINT_AXES];
    for (int k = 0; k < JOINT_AXES; k++) drives[k] = j->motor[k], drives[JOINT_AXES + k] = j->spring[k];
    STATE_HASH(h, drives), STATE_HASH(h, j->motor_velocity), STATE_HASH(h, j->motor_force);
    STATE_HASH(h, j->stiffness), STATE_HASH(h, j->damping);
    return h;
}

void rigid_joint_state_write(const rigid_joint *j, state_writer *out)
{
    uint8_t broken = j->broken;
    STATE_PUT(out, broken), STATE_PUT(out, j->broken_time), STATE_PUT(out, j->force);
}

bool rigid_joint_state_read(rigid_joint *j, int32_t index, state_reader *in)
{
    uint8_t broken = 0;
    double when = 0.0, force[JOINT_SLOTS];
    if (!STATE_TAKE(in, broken) || !STATE_TAKE(in, when) || !STATE_TAKE(in, force))
        return state_damaged(in, "it ends inside a joint");
    if (in->pass == PASS_CHECK) {
        bool ok = broken <= 1 && isfinite(when) && (broken ? when >= 0.0 : when == -1.0) && all_finite(force, JOINT_SLOTS);
        if (!ok) return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: joint %d", (int)index);
    }
    if (in->pass == PASS_APPLY) {
        j->broken = broken != 0, j->broken_time = when;
        memcpy(j->force, force, sizeof force);
    }
    return true;
}
