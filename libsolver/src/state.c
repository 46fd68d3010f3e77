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
 * world, each cloth, collider and body, and the rigid step's memory, in native byte order. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_state.h"
#include "collider_state.h"
#include "error.h"
#include "world.h"

enum { STATE_FORMAT = 4, HEADER_BYTES = 32 };
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
    return h;
}

static uint64_t polytope_fingerprint(uint64_t h, const polytope *p)
{
    STATE_HASH(h, p->vertex_count), STATE_HASH(h, p->face_count), STATE_HASH(h, p->edge_count);
    h = state_hash(h, p->vertices, (size_t)p->vertex_count * sizeof *p->vertices);
    if (p->face_count > 0) {
        h = state_hash(h, p->face_first, ((size_t)p->face_count + 1) * sizeof *p->face_first);
        h = state_hash(h, p->face_loops, (size_t)p->face_first[p->face_count] * sizeof *p->face_loops);
    }
    h = state_hash(h, p->normals, (size_t)p->face_count * sizeof *p->normals);
    h = state_hash(h, p->offsets, (size_t)p->face_count * sizeof *p->offsets);
    h = state_hash(h, p->edges, 2 * (size_t)p->edge_count * sizeof *p->edges);
    h = state_hash(h, p->edge_faces, 2 * (size_t)p->edge_count * sizeof *p->edge_faces);
    STATE_HASH(h, p->radius);
    return h;
}

/* Every field of the body's model, in its order, arrays by what they hold (pointers and
 * padding never enter): nothing is chosen by hand. Only the mesh's boxes and tree are left
 * out, built as they are from its vertices and triangles. */
static uint64_t body_fingerprint(const rigid_body *b)
{
    uint64_t h = STATE_HASH_START;
    const rigid_body_model *m = &b->model;
    int32_t type = m->type, shape = (int32_t)m->shape;
    STATE_HASH(h, type), STATE_HASH(h, shape), STATE_HASH(h, m->radius);
    h = polytope_fingerprint(h, &m->hull);
    STATE_HASH(h, m->mesh_vertex_count), STATE_HASH(h, m->mesh_triangle_count);
    h = state_hash(h, m->mesh_vertices, 3 * (size_t)m->mesh_vertex_count * sizeof *m->mesh_vertices);
    h = state_hash(h, m->mesh_triangles, 3 * (size_t)m->mesh_triangle_count * sizeof *m->mesh_triangles);
    STATE_HASH(h, m->mass), STATE_HASH(h, m->inv_mass), STATE_HASH(h, m->inertia), STATE_HASH(h, m->inv_inertia);
    STATE_HASH(h, m->friction), STATE_HASH(h, m->restitution);
    STATE_HASH(h, m->linear_damping), STATE_HASH(h, m->angular_damping);
    STATE_HASH(h, m->x_start), STATE_HASH(h, m->q_start);
    return h;
}

/* --- writing ------------------------------------------------------------------------------ */

/* A body's state is saved whole, every field in its order (write_body_state, read_body_state):
 * 56 doubles and the contact count, then the struct's padding. A field added to it fails here
 * until those two take it too. */
_Static_assert(sizeof(rigid_body_state) == 56 * sizeof(double) + 2 * sizeof(int32_t),
               "rigid_body_state has a field write_body_state and read_body_state do not save");

static void write_body_state(state_writer *out, const rigid_body_state *s)
{
    STATE_PUT(out, s->x), STATE_PUT(out, s->q), STATE_PUT(out, s->P), STATE_PUT(out, s->L);
    STATE_PUT(out, s->R), STATE_PUT(out, s->inv_inertia_world), STATE_PUT(out, s->v), STATE_PUT(out, s->w);
    STATE_PUT(out, s->x_from), STATE_PUT(out, s->x_to), STATE_PUT(out, s->q_from), STATE_PUT(out, s->q_to);
    STATE_PUT(out, s->time_from), STATE_PUT(out, s->time_to);
    STATE_PUT(out, s->contact_force), STATE_PUT(out, s->contacts);
}

static void write_body(state_writer *out, const rigid_body *b)
{
    uint64_t fingerprint = body_fingerprint(b);
    STATE_PUT(out, fingerprint);
    write_body_state(out, &b->state);
}

static void write_stats(state_writer *out, const sb_world_stats *s)
{
    STATE_PUT(out, s->time), STATE_PUT(out, s->steps), STATE_PUT(out, s->rejected_steps);
    STATE_PUT(out, s->cg_iterations), STATE_PUT(out, s->last_cg_iterations), STATE_PUT(out, s->last_step);
    STATE_PUT(out, s->last_contacts), STATE_PUT(out, s->collisions), STATE_PUT(out, s->impact_zones);
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
    for (int32_t i = 0; i < w->rigid.body_count; i++) write_body(out, w->rigid.bodies[i]);
    rigid_system_state_write(&w->rigid, out);
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

static bool unit(quat q) { return fabs(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0) < 1e-6; }

/* Into *s, checked in the CHECK pass; the caller applies it. */
static bool read_body_state(state_reader *in, rigid_body_state *s)
{
    bool ok = STATE_TAKE_VALUES(in, s->x, "body pose") && STATE_TAKE_VALUES(in, s->q, "body pose") &&
              STATE_TAKE_VALUES(in, s->P, "body momentum") && STATE_TAKE_VALUES(in, s->L, "body momentum") &&
              STATE_TAKE_VALUES(in, s->R, "body pose") && STATE_TAKE_VALUES(in, s->inv_inertia_world, "body inertia") &&
              STATE_TAKE_VALUES(in, s->v, "body velocity") && STATE_TAKE_VALUES(in, s->w, "body velocity") &&
              STATE_TAKE_VALUES(in, s->x_from, "body path") && STATE_TAKE_VALUES(in, s->x_to, "body path") &&
              STATE_TAKE_VALUES(in, s->q_from, "body path") && STATE_TAKE_VALUES(in, s->q_to, "body path") &&
              STATE_TAKE_VALUES(in, s->time_from, "body path") && STATE_TAKE_VALUES(in, s->time_to, "body path") &&
              STATE_TAKE_VALUES(in, s->contact_force, "body contact force");
    if (!ok) return false;
    if (!STATE_TAKE(in, s->contacts)) return state_damaged(in, "it ends inside a body");
    if (in->pass == PASS_CHECK && !(v3_len(s->x) <= MAX_COORDINATE))
        return state_damaged(in, "a body lies beyond the largest coordinate");
    if (in->pass == PASS_CHECK && (!unit(s->q) || !unit(s->q_from) || !unit(s->q_to) || s->contacts < 0))
        return state_damaged(in, "a body's orientation is not a unit quaternion");
    return true;
}

static bool read_body(state_reader *in, rigid_body *b, int32_t index)
{
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, fingerprint)) return state_damaged(in, "it ends inside a body");
    if (in->pass == PASS_CHECK && fingerprint != body_fingerprint(b))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: body %d's shape, "
                         "mass, material or starting pose differ from the state's", (int)index);
    rigid_body_state saved = b->state;
    if (!read_body_state(in, &saved)) return false;
    /* the derived R, I⁻¹, v, ω as they were: a kinematic body's v, ω come from its path */
    if (in->pass == PASS_APPLY) b->state = saved;
    return true;
}

static bool read_stats(state_reader *in, sb_world_stats *s)
{
    sb_world_stats saved = *s;
    if (!STATE_TAKE_VALUES(in, saved.time, "statistics") || !STATE_TAKE(in, saved.steps) ||
        !STATE_TAKE(in, saved.rejected_steps) || !STATE_TAKE(in, saved.cg_iterations) ||
        !STATE_TAKE(in, saved.last_cg_iterations) || !STATE_TAKE_VALUES(in, saved.last_step, "statistics") ||
        !STATE_TAKE(in, saved.last_contacts) || !STATE_TAKE(in, saved.collisions) || !STATE_TAKE(in, saved.impact_zones))
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
        if (!read_body(in, w->rigid.bodies[i], i)) return false;
    if (!rigid_system_state_read(&w->rigid, in)) return false;
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
    for (state_pass pass = PASS_CHECK; pass <= PASS_APPLY; pass++) {
        state_reader in = {bytes + HEADER_BYTES, bytes + size, pass, SB_OK};
        if (!read_payload(&in, world)) return in.result;
    }
    world->failure = (sb_failure){0};
    return SB_OK;
}
