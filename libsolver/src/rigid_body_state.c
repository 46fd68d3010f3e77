/* A rigid body in a saved world (world_state.c): its state written whole, and the fingerprint of
 * its model that a state must match to be loaded into it. */
#include <math.h>

#include "rigid_body_state.h"

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
uint64_t rigid_body_model_hash(const rigid_body_model *m)
{
    uint64_t h = STATE_HASH_START;
    int32_t type = m->type, shape = (int32_t)m->shape;
    STATE_HASH(h, type), STATE_HASH(h, shape), STATE_HASH(h, m->radius);
    h = polytope_fingerprint(h, &m->hull);
    STATE_HASH(h, m->segment), STATE_HASH(h, m->segment_radius);
    STATE_HASH(h, m->mesh_vertex_count), STATE_HASH(h, m->mesh_triangle_count);
    h = state_hash(h, m->mesh_vertices, 3 * (size_t)m->mesh_vertex_count * sizeof *m->mesh_vertices);
    h = state_hash(h, m->mesh_triangles, 3 * (size_t)m->mesh_triangle_count * sizeof *m->mesh_triangles);
    STATE_HASH(h, m->part_count);
    for (int32_t i = 0; i < m->part_count; i++) {
        const rigid_part *p = &m->parts[i];
        int32_t part_shape = (int32_t)p->shape;
        STATE_HASH(h, part_shape), STATE_HASH(h, p->center), STATE_HASH(h, p->radius), STATE_HASH(h, p->segment);
        h = polytope_fingerprint(h, &p->hull);
    }
    STATE_HASH(h, m->mass), STATE_HASH(h, m->inv_mass), STATE_HASH(h, m->inertia), STATE_HASH(h, m->inv_inertia);
    STATE_HASH(h, m->friction), STATE_HASH(h, m->restitution);
    STATE_HASH(h, m->linear_damping), STATE_HASH(h, m->angular_damping);
    STATE_HASH(h, m->x_start), STATE_HASH(h, m->q_start);
    int32_t deactivation = m->use_deactivation;
    STATE_HASH(h, m->collision_groups), STATE_HASH(h, deactivation);
    STATE_HASH(h, m->sleep_linear), STATE_HASH(h, m->sleep_angular), STATE_HASH(h, m->sleep_time);
    return h;
}

/* A body's state is saved whole, every field in its order (write_body_state, read_body_state):
 * 56 doubles and the contact count, the still time and the sleep group, then the struct's
 * padding. A field added to it fails here until those two take it too. */
_Static_assert(sizeof(rigid_body_state) == 57 * sizeof(double) + 4 * sizeof(int32_t),
               "rigid_body_state has a field write_body_state and read_body_state do not save");

static void write_body_state(state_writer *out, const rigid_body_state *s)
{
    STATE_PUT(out, s->x), STATE_PUT(out, s->q), STATE_PUT(out, s->P), STATE_PUT(out, s->L);
    STATE_PUT(out, s->R), STATE_PUT(out, s->inv_inertia_world), STATE_PUT(out, s->v), STATE_PUT(out, s->w);
    STATE_PUT(out, s->x_from), STATE_PUT(out, s->x_to), STATE_PUT(out, s->q_from), STATE_PUT(out, s->q_to);
    STATE_PUT(out, s->time_from), STATE_PUT(out, s->time_to);
    STATE_PUT(out, s->contact_force), STATE_PUT(out, s->contacts);
    STATE_PUT(out, s->still_time), STATE_PUT(out, s->sleep_group);
}

void rigid_body_state_write(const rigid_body *b, state_writer *out)
{
    uint64_t fingerprint = rigid_body_model_hash(&b->model);
    STATE_PUT(out, fingerprint);
    write_body_state(out, &b->state);
}

static bool unit(quat q) { return fabs(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0) < 1e-6; }

/* Into *s, checked in the CHECK pass; the caller applies it. */
static bool read_body_state(state_reader *in, rigid_body_state *s, int32_t body_count)
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
    if (!STATE_TAKE(in, s->contacts) || !STATE_TAKE_VALUES(in, s->still_time, "body still time") ||
        !STATE_TAKE(in, s->sleep_group))
        return in->result != SB_OK || state_damaged(in, "it ends inside a body");
    if (in->pass == PASS_CHECK && !(s->still_time >= 0.0 && s->sleep_group >= SLEEP_AWAKE && s->sleep_group < body_count))
        return state_damaged(in, "a body's sleep (still time, group)");
    if (in->pass == PASS_CHECK && !(v3_len(s->x) <= MAX_COORDINATE))
        return state_damaged(in, "a body lies beyond the largest coordinate");
    if (in->pass == PASS_CHECK && (!unit(s->q) || !unit(s->q_from) || !unit(s->q_to) || s->contacts < 0))
        return state_damaged(in, "a body's orientation is not a unit quaternion");
    return true;
}

bool rigid_body_state_read(rigid_body *b, int32_t index, int32_t body_count, state_reader *in)
{
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, fingerprint)) return state_damaged(in, "it ends inside a body");
    if (in->pass == PASS_CHECK && fingerprint != rigid_body_model_hash(&b->model))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: body %d's shape, "
                         "mass, material or starting pose differ from the state's", (int)index);
    rigid_body_state saved = b->state;
    if (!read_body_state(in, &saved, body_count)) return false;
    if (in->pass == PASS_CHECK && saved.sleep_group != SLEEP_AWAKE && b->model.type != SB_BODY_DYNAMIC)
        return state_damaged(in, "a body that cannot sleep is asleep");
    /* the derived R, I⁻¹, v, ω as they were: a kinematic body's v, ω come from its path */
    if (in->pass == PASS_APPLY) b->state = saved;
    return true;
}
