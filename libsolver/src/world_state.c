/* Saving and loading a world's state, for bakes that stop and resume.
 *
 * A state holds what changes while the world steps (positions, velocities, contacts, the
 * step size controller, the colliders' trees, the rigid warm starts), never what the
 * definitions give: it is loaded into a world built again from the same definitions, and
 * each object's fingerprint of those definitions must match. A collider's tree is saved
 * because when it is rebuilt depends on its history, and its shape orders the contact
 * queries (the first of equally near faces wins). A cloth's tree is not: the collision
 * pairs it finds come in an order of their own (collision_pairs.c).
 *
 * Layout: a header (magic, byte order, format, payload size, payload checksum), then the
 * world, each cloth, collider and body, the rigid step's memory, each force field's path, and
 * the joints (their count, the fingerprint of their definitions, each one's broken flag, time
 * and warm start), then the untangling (untangle_state.c), in native byte order. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_state.h"
#include "collider_state.h"
#include "field_state.h"
#include "api_error.h"
#include "rigid_body_state.h"
#include "threads.h"
#include "untangle_state.h"
#include "world.h"

enum { STATE_FORMAT = 10, HEADER_BYTES = 32 };
static const char STATE_MAGIC[8] = "SBSTATE";
static const uint32_t BYTE_ORDER_MARK = 0x01020304u;

/* --- fingerprints of the definitions ----------------------------------------------------- */

static uint64_t world_fingerprint(const sb_world *w)
{
    const sb_world_def *d = &w->def;
    uint64_t h = STATE_HASH_START;
    h = state_hash(h, d->gravity, sizeof d->gravity);
    STATE_HASH(h, d->integrator), STATE_HASH(h, d->max_step), STATE_HASH(h, d->min_step);
    STATE_HASH(h, d->grow_after), STATE_HASH(h, d->max_strain_change), STATE_HASH(h, d->cg_tolerance);
    STATE_HASH(h, d->cg_max_iterations), STATE_HASH(h, d->error_tolerance), STATE_HASH(h, d->rigid_max_step);
    STATE_HASH(h, d->rigid_iterations), STATE_HASH(h, d->contact_margin), STATE_HASH(h, d->max_speed);
    STATE_HASH(h, d->rigid_time_scale);
    return h;
}

static uint64_t joints_fingerprint(const rigid_system *r)
{
    uint64_t h = STATE_HASH_START;
    for (int32_t i = 0; i < r->joint_count; i++) h = rigid_joint_hash(h, &r->joints[i]);
    return h;
}

/* --- writing ------------------------------------------------------------------------------ */

static void write_stats(state_writer *out, const sb_world_stats *s)
{
    STATE_PUT(out, s->time), STATE_PUT(out, s->steps), STATE_PUT(out, s->rejected_steps);
    STATE_PUT(out, s->cg_iterations), STATE_PUT(out, s->last_cg_iterations), STATE_PUT(out, s->last_step);
    STATE_PUT(out, s->last_contacts), STATE_PUT(out, s->collisions), STATE_PUT(out, s->impact_zones);
    STATE_PUT(out, s->rigid_pair_tests), STATE_PUT(out, s->rigid_body_moves);
}

static void write_payload(state_writer *out, const sb_world *w)
{
    uint64_t fingerprint = world_fingerprint(w);
    STATE_PUT(out, w->cloth_count), STATE_PUT(out, w->collider_count), STATE_PUT(out, w->rigid.body_count);
    STATE_PUT(out, fingerprint);
    STATE_PUT(out, w->time), STATE_PUT(out, w->preferred_step), STATE_PUT(out, w->accepted_in_row);
    write_stats(out, &w->stats);
    for (int32_t i = 0; i < w->cloth_count; i++) cloth_state_write(w->cloths[i], out);
    for (int32_t i = 0; i < w->collider_count; i++) collider_state_write(w->colliders[i], out);
    for (int32_t i = 0; i < w->rigid.body_count; i++) rigid_body_state_write(w->rigid.bodies[i], out);
    rigid_system_state_write(&w->rigid, out);
    STATE_PUT(out, w->field_count);
    for (int32_t i = 0; i < w->field_count; i++) field_state_write(w->fields[i], out);
    uint64_t joints = joints_fingerprint(&w->rigid);
    STATE_PUT(out, w->rigid.joint_count), STATE_PUT(out, joints);
    for (int32_t i = 0; i < w->rigid.joint_count; i++) rigid_joint_state_write(&w->rigid.joints[i], out);
    untangle_state_write(&w->untangle, out);
}

SB_API sb_result sb_world_get_state_size(const sb_world *world, uint64_t *out_size)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (!out_size) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_size is NULL");
    state_writer counter = {NULL, 0};
    write_payload(&counter, world);
    *out_size = HEADER_BYTES + counter.size;
    return SB_OK;
}

SB_API sb_result sb_world_save_state(const sb_world *world, void *buffer, uint64_t size)
{
    uint64_t needed = 0;
    sb_result r = sb_world_get_state_size(world, &needed);
    if (r != SB_OK) return r;
    if (!buffer) return error_set(SB_ERROR_INVALID_ARGUMENT, "state buffer is NULL");
    if (size != needed)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "state buffer holds %llu bytes; the state needs %llu "
                         "(sb_world_get_state_size)", (unsigned long long)size, (unsigned long long)needed);
    uint8_t *bytes = buffer;
    state_writer payload = {bytes + HEADER_BYTES, 0};
    write_payload(&payload, world);
    uint64_t checksum = state_hash(STATE_HASH_START, bytes + HEADER_BYTES, payload.size);
    uint32_t format = STATE_FORMAT;
    state_writer header = {bytes, 0};
    state_put(&header, STATE_MAGIC, sizeof STATE_MAGIC);
    STATE_PUT(&header, BYTE_ORDER_MARK), STATE_PUT(&header, format);
    STATE_PUT(&header, payload.size), STATE_PUT(&header, checksum);
    return SB_OK;
}

/* --- reading ------------------------------------------------------------------------------ */

static bool read_stats(state_reader *in, sb_world_stats *s)
{
    sb_world_stats saved = *s;
    if (!STATE_TAKE_VALUES(in, saved.time, "statistics") || !STATE_TAKE(in, saved.steps) ||
        !STATE_TAKE(in, saved.rejected_steps) || !STATE_TAKE(in, saved.cg_iterations) ||
        !STATE_TAKE(in, saved.last_cg_iterations) || !STATE_TAKE_VALUES(in, saved.last_step, "statistics") ||
        !STATE_TAKE(in, saved.last_contacts) || !STATE_TAKE(in, saved.collisions) || !STATE_TAKE(in, saved.impact_zones) ||
        !STATE_TAKE(in, saved.rigid_pair_tests) || !STATE_TAKE(in, saved.rigid_body_moves))
        return in->result != SB_OK || state_damaged(in, "it ends inside the statistics");
    if (in->pass == PASS_APPLY) *s = saved;
    return true;
}

static bool read_payload(state_reader *in, sb_world *w)
{
    int32_t cloths = 0, colliders = 0, bodies = 0, accepted_in_row = 0;
    uint64_t fingerprint = 0;
    double clock[2];
    if (!STATE_TAKE(in, cloths) || !STATE_TAKE(in, colliders) || !STATE_TAKE(in, bodies) || !STATE_TAKE(in, fingerprint))
        return state_damaged(in, "it ends inside its header");
    if (in->pass == PASS_CHECK) {
        if (cloths != w->cloth_count || colliders != w->collider_count || bodies != w->rigid.body_count)
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: it has %d cloths, "
                             "%d colliders and %d bodies, the state %d, %d and %d", (int)w->cloth_count,
                             (int)w->collider_count, (int)w->rigid.body_count, (int)cloths, (int)colliders,
                             (int)bodies);
        if (fingerprint != world_fingerprint(w))
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: its settings "
                             "(gravity, steps, tolerances) differ from the state's");
    }
    if (!STATE_TAKE_VALUES(in, clock, "the world's clock")) return false;
    if (!STATE_TAKE(in, accepted_in_row)) return state_damaged(in, "it ends inside the world's clock");
    if (!read_stats(in, &w->stats)) return false;
    if (in->pass == PASS_CHECK && !(clock[1] > 0.0 && accepted_in_row >= 0)) return state_damaged(in, "the world's step size");
    if (in->pass == PASS_APPLY) w->time = clock[0], w->preferred_step = clock[1], w->accepted_in_row = accepted_in_row;
    for (int32_t i = 0; i < w->cloth_count; i++)
        if (!cloth_state_read(w->cloths[i], i, w->collider_count, in)) return false;
    for (int32_t i = 0; i < w->collider_count; i++)
        if (!collider_state_read(w->colliders[i], i, in)) return false;
    for (int32_t i = 0; i < w->rigid.body_count; i++)
        if (!rigid_body_state_read(w->rigid.bodies[i], i, w->rigid.body_count, in)) return false;
    if (!rigid_system_state_read(&w->rigid, in)) return false;
    int32_t fields = 0;
    if (!STATE_TAKE(in, fields)) return state_damaged(in, "it ends before its fields");
    if (in->pass == PASS_CHECK && fields != w->field_count)
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: it has %d force "
                         "fields, the state %d", (int)w->field_count, (int)fields);
    for (int32_t i = 0; i < w->field_count; i++)
        if (!field_state_read(w->fields[i], i, in)) return false;
    int32_t joints = 0;
    uint64_t joint_fingerprint = 0;
    if (!STATE_TAKE(in, joints) || !STATE_TAKE(in, joint_fingerprint)) return state_damaged(in, "it ends before its joints");
    if (in->pass == PASS_CHECK && joints != w->rigid.joint_count)
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: it has %d joints, the "
                          "state %d", (int)w->rigid.joint_count, (int)joints);
    if (in->pass == PASS_CHECK && joint_fingerprint != joints_fingerprint(&w->rigid))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: its joints' "
                          "definitions (bodies, frames, limits, thresholds) differ from the state's");
    for (int32_t i = 0; i < w->rigid.joint_count; i++)
        if (!rigid_joint_state_read(&w->rigid.joints[i], i, in)) return false;
    int64_t vertices = 0;
    for (int32_t i = 0; i < w->cloth_count; i++) vertices += w->cloths[i]->model.vertex_count;
    for (int32_t i = 0; i < w->collider_count; i++) vertices += w->colliders[i]->model.vertex_count;
    if (!untangle_state_read(&w->untangle, w->cloths, w->cloth_count, (int32_t)vertices, in)) return false;
    if (in->pass == PASS_CHECK && in->at != in->end) return state_damaged(in, "bytes left over after its last section");
    return true;
}

SB_API sb_result sb_world_load_state(sb_world *world, const void *buffer, uint64_t size)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (!buffer) return error_set(SB_ERROR_INVALID_ARGUMENT, "state buffer is NULL");
    const uint8_t *bytes = buffer;
    char magic[8];
    uint32_t byte_order = 0, format = 0;
    uint64_t payload_size = 0, checksum = 0;
    state_reader header = {bytes, bytes + (size < HEADER_BYTES ? size : HEADER_BYTES), PASS_CHECK, SB_OK};
    if (!state_take(&header, magic, sizeof magic) || memcmp(magic, STATE_MAGIC, sizeof magic) != 0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "not a SimBake state (its first bytes are wrong)");
    if (!STATE_TAKE(&header, byte_order) || !STATE_TAKE(&header, format) || !STATE_TAKE(&header, payload_size) ||
        !STATE_TAKE(&header, checksum))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: its header is cut short");
    if (byte_order != BYTE_ORDER_MARK)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "saved state comes from a machine of another byte order");
    if (format != STATE_FORMAT)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "saved state has format %u; this library reads format %d",
                         (unsigned)format, STATE_FORMAT);
    if (payload_size != size - HEADER_BYTES)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: %llu bytes, its header says %llu "
                         "(a file cut short?)", (unsigned long long)size,
                         (unsigned long long)(payload_size + HEADER_BYTES));
    if (state_hash(STATE_HASH_START, bytes + HEADER_BYTES, payload_size) != checksum)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: its checksum does not match");
    int32_t caller_threads = world_threads_enter(world);
    sb_result refused = SB_OK;
    bool read = true;
    for (state_pass pass = PASS_CHECK; pass <= PASS_APPLY && read; pass++) {
        state_reader in = {bytes + HEADER_BYTES, bytes + size, pass, SB_OK};
        if (!read_payload(&in, world)) read = false, refused = in.result;
    }
    threads_leave(caller_threads);
    if (!read) return refused;
    world->failure = (sb_failure){0};
    return SB_OK;
}
