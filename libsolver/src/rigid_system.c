/* The rigid bodies as a system: adding them, advancing them over a step of the world in
 * substeps (rigid_step.c), undoing that step, and the memory the next step reads in a saved
 * state. A step that fails leaves every body where it was. */
#include "rigid_system.h"

#include <stdlib.h>
#include <string.h>

#include "api_error.h"
#include "grow.h"
#include "rigid_scratch.h"

void rigid_system_init(rigid_system *sys, rigid_settings settings)
{
    *sys = (rigid_system){.settings = settings};
}

void rigid_system_free(rigid_system *sys)
{
    for (int32_t i = 0; i < sys->body_count; i++) rigid_body_destroy(sys->bodies[i]);
    free(sys->bodies), free(sys->joints), free(sys->joints_saved);
    rigid_scratch_free(sys->scratch);
    *sys = (rigid_system){.settings = sys->settings};
}

sb_result rigid_system_add_body(rigid_system *sys, const sb_body_def *def, double time, int32_t *out_body)
{
    if (!grow((void **)&sys->bodies, &sys->body_capacity, sys->body_count + 1, sizeof *sys->bodies))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a body");
    rigid_body *b = NULL;
    sb_result r = rigid_body_create(def, time, &b);
    if (r != SB_OK) return r;
    if (b->state.sleep_group != SLEEP_AWAKE) b->state.sleep_group = sys->body_count; /* a group of its own */
    sys->bodies[sys->body_count] = b;
    *out_body = sys->body_count++;
    return SB_OK;
}

sb_result rigid_system_add_joint(rigid_system *sys, const sb_joint_def *def, int32_t *out_joint)
{
    int32_t a = def->body_a.index, b = def->body_b.index;
    if (a < 0 || a >= sys->body_count)
        return error_set(a == -1 ? SB_ERROR_INVALID_ARGUMENT : SB_ERROR_NOT_FOUND, a == -1 ?
                         "joint body_a is the world: give the world as body_b" : "joint body_a: no body with id %d "
                         "(the world has %d)", (int)a, (int)sys->body_count);
    if (b < -1 || b >= sys->body_count)
        return error_set(SB_ERROR_NOT_FOUND, "joint body_b: no body with id %d (the world has %d; -1 is the world)",
                         (int)b, (int)sys->body_count);
    if (a == b) return error_set(SB_ERROR_INVALID_ARGUMENT, "joint joins body %d to itself", (int)a);
    rigid_joint j;
    if (!rigid_joint_init(&j, def, sys->bodies[a], b >= 0 ? sys->bodies[b] : NULL)) return SB_ERROR_INVALID_ARGUMENT;
    j.a = a, j.b = b;
    if (!grow((void **)&sys->joints, &sys->joint_capacity, sys->joint_count + 1, sizeof *sys->joints))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a joint");
    sys->joints[sys->joint_count] = j;
    *out_joint = sys->joint_count++;
    return SB_OK;
}

/* --- advancing ------------------------------------------------------------------------------ */

/* Bodies back where they were at the start of rigid_system_advance. */
static void rollback(rigid_system *sys)
{
    const rigid_scratch *s = sys->scratch;
    if (!s) return;
    for (int32_t i = 0; i < sys->body_count; i++) {
        rigid_body *b = sys->bodies[i];
        b->state.x = s->x_saved[i], b->state.q = s->q_saved[i], b->state.P = s->p_saved[i], b->state.L = s->l_saved[i];
        b->state.still_time = s->still_saved[i], b->state.sleep_group = s->group_saved[i];
        rigid_body_update_derived(b);
    }
    if (sys->joint_count > 0) memcpy(sys->joints, sys->joints_saved, (size_t)sys->joint_count * sizeof *sys->joints);
}

sb_result rigid_system_advance(rigid_system *sys, double t, double h, sb_failure *failure)
{
    if (sys->body_count == 0) return SB_OK;
    if (!sys->scratch && !(sys->scratch = calloc(1, sizeof *sys->scratch)))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory for rigid bodies");
    rigid_scratch *s = sys->scratch;
    /* one more slot: the world, the other end of joints to it */
    if (!rigid_scratch_reserve(s, sys->body_count + 1) ||
        !grow((void **)&sys->joints_saved, &sys->joints_saved_capacity, sys->joint_count, sizeof *sys->joints))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory for rigid bodies");
    if (sys->joint_count > 0) memcpy(sys->joints_saved, sys->joints, (size_t)sys->joint_count * sizeof *sys->joints);
    for (int32_t i = 0; i < sys->body_count; i++) {
        const rigid_body *b = sys->bodies[i];
        s->x_saved[i] = b->state.x, s->q_saved[i] = b->state.q, s->p_saved[i] = b->state.P, s->l_saved[i] = b->state.L;
        s->still_saved[i] = b->state.still_time, s->group_saved[i] = b->state.sleep_group;
    }
    /* at most about a million: sb_world_create bounds max_step / rigid_max_step */
    /* the bodies' own time runs time_scale times as fast as the world's */
    double own = h * sys->settings.time_scale;
    int32_t substeps = (int32_t)fmax(1.0, ceil(own / sys->settings.max_step - 1e-9));
    sys->pair_tests = sys->body_moves = 0;
    double hs = h / substeps, own_step = own / substeps;
    for (int32_t k = 0; k < substeps; k++)
        if (!rigid_substep(sys, t + k * hs, hs, own_step)) {
            rollback(sys);
            *failure = (sb_failure){.kind = SB_FAILURE_OUT_OF_MEMORY, .time = t};
            return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory in the rigid-body step at t = %g s", t + k * hs);
        }
    double max_speed = sys->settings.max_speed;
    for (int32_t i = 0; i < sys->body_count; i++) {
        const rigid_body *b = sys->bodies[i];
        const rigid_body_state *st = &b->state;
        if (!v3_isfinite(st->x) || !v3_isfinite(st->P) || !v3_isfinite(st->L) || !isfinite(st->q.w)) {
            rollback(sys);
            *failure = (sb_failure){.kind = SB_FAILURE_NOT_FINITE, .object_kind = SB_OBJECT_BODY, .object = i,
                                    .time = t, .step = h};
            return error_set(SB_ERROR_SOLVER, "body %d: its motion became non-finite at t = %g s; check the "
                             "body's mass, size and velocities for extreme values", (int)i, t + h);
        }
        double speed = v3_len(st->P) * b->model.inv_mass;
        if (speed > max_speed) {
            rollback(sys);
            *failure = (sb_failure){.kind = SB_FAILURE_SPEED, .object_kind = SB_OBJECT_BODY, .object = i,
                                    .time = t, .step = h, .speed = speed};
            return error_set(SB_ERROR_SOLVER, "body %d: its speed reached %.3g m/s, above max_speed (%g m/s), "
                             "at t = %g s: the energy blew up; check its initial velocity and the animated "
                             "objects that push it", (int)i, speed, max_speed, t + h);
        }
    }
    return SB_OK;
}

void rigid_system_undo_advance(rigid_system *sys)
{
    /* the warm-start cache keeps the undone step's impulses: only a starting guess */
    rollback(sys);
}

void rigid_system_step_poses(const rigid_system *sys, int32_t body, vec3 *x0, quat *q0, vec3 *x1, quat *q1)
{
    const rigid_scratch *s = sys->scratch; /* made by the advance, which had bodies */
    *x0 = s->x_saved[body], *q0 = s->q_saved[body];
    *x1 = sys->bodies[body]->state.x, *q1 = sys->bodies[body]->state.q;
}

vec3 rigid_system_start_velocity(const rigid_system *sys, int32_t body)
{
    return v3_scale(sys->scratch->p_saved[body], sys->bodies[body]->model.inv_mass);
}

/* --- saved state: what the next step reads from the last ---------------------------------- */

void rigid_system_state_write(const rigid_system *sys, state_writer *out)
{
    const rigid_scratch *s = sys->scratch;
    int32_t order_count = s ? s->bp.count : 0, cache_count = s ? s->cache_count : 0;
    STATE_PUT(out, order_count);
    for (int32_t i = 0; i < order_count; i++) STATE_PUT(out, s->bp.order[i]);
    STATE_PUT(out, cache_count);
    for (int32_t i = 0; i < cache_count; i++) {
        const cached_contact *c = &s->cache[i];
        uint8_t exact = c->exact;
        STATE_PUT(out, c->a), STATE_PUT(out, c->b);
        STATE_PUT(out, c->local), STATE_PUT(out, c->normal), STATE_PUT(out, c->friction);
        STATE_PUT(out, exact);
    }
}

enum { CACHED_CONTACT_BYTES = 2 * 4 + 7 * 8 + 1 };

static bool check_cache(state_reader *in, const uint8_t *bytes, int32_t count, int32_t body_count)
{
    int32_t last_a = -1, last_b = -1;
    for (int32_t i = 0; i < count; i++, bytes += CACHED_CONTACT_BYTES) {
        int32_t a, b;
        double values[7];
        memcpy(&a, bytes, 4), memcpy(&b, bytes + 4, 4), memcpy(values, bytes + 8, sizeof values);
        bool finite = true;
        for (int k = 0; k < 7; k++) finite = finite && isfinite(values[k]);
        bool sorted = a > last_a || (a == last_a && b >= last_b);
        if (a < 0 || b < 0 || a >= body_count || b >= body_count || !finite || !sorted || bytes[8 + 56] > 1) {
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: warm-start contact %d", (int)i);
        }
        last_a = a, last_b = b;
    }
    return true;
}

bool rigid_system_state_read(rigid_system *sys, state_reader *in)
{
    int32_t order_count = 0, cache_count = 0;
    const uint8_t *order = NULL, *cache = NULL;
    bool ok = STATE_TAKE(in, order_count) && order_count >= 0 && order_count <= sys->body_count &&
              (order = state_span(in, 4 * (uint64_t)order_count)) && STATE_TAKE(in, cache_count) &&
              cache_count >= 0 && (cache = state_span(in, CACHED_CONTACT_BYTES * (uint64_t)cache_count));
    if (in->pass == PASS_CHECK) {
        if (!ok) return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: its rigid-body contacts");
        return state_check_permutation(in, order, order_count, "the broad phase's order is not a permutation") &&
               check_cache(in, cache, cache_count, sys->body_count);
    }
    if (in->pass == PASS_RESERVE) {
        if (order_count == 0 && cache_count == 0) return true;
        if ((!sys->scratch && !(sys->scratch = calloc(1, sizeof *sys->scratch))) ||
            !grow((void **)&sys->scratch->bp.order, &sys->scratch->bp.capacity, order_count, sizeof(int32_t)) ||
            !grow((void **)&sys->scratch->cache, &sys->scratch->cache_capacity, cache_count, sizeof(cached_contact)))
            return STATE_FAIL(in, SB_ERROR_OUT_OF_MEMORY, "out of memory loading a saved state");
        return true;
    }
    rigid_scratch *s = sys->scratch;
    if (!s) return true; /* nothing saved, and a fresh world has nothing either */
    s->bp.count = order_count;
    if (order_count > 0) memcpy(s->bp.order, order, 4 * (size_t)order_count);
    s->cache_count = cache_count;
    for (int32_t i = 0; i < cache_count; i++, cache += CACHED_CONTACT_BYTES) {
        cached_contact *c = &s->cache[i];
        memcpy(&c->a, cache, 4), memcpy(&c->b, cache + 4, 4);
        memcpy(&c->local, cache + 8, 24), memcpy(&c->normal, cache + 32, 8), memcpy(&c->friction, cache + 40, 24);
        c->exact = cache[64] != 0;
    }
    return true;
}
