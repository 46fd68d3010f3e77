/* A collider in a saved world (world_state.c): its path and tree, and the fingerprint of its
 * model. The static assertions fail when a field is added to collider_state or
 * collider_model, so the writer, the reader and the fingerprint are revisited first. */
#include "collider_state.h"

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(collider_state) == 104, "a collider_state field was added: save it in collider_state_write/read");
_Static_assert(sizeof(collider_model) == 128, "a collider_model field was added: fingerprint it in "
                                              "collider_model_hash if the definition gives it");
#endif

/* The values the definition gives and the body it follows (with its vertices in that body's
 * frame); the topology and the sharp features are computed from them. The positions are
 * state: they are the collider's path. */
uint64_t collider_model_hash(const collider_model *m)
{
    uint64_t h = STATE_HASH_START;
    h = state_hash(h, m->triangles, 3 * (size_t)m->triangle_count * sizeof(int32_t));
    STATE_HASH(h, m->thickness), STATE_HASH(h, m->friction), STATE_HASH(h, m->body);
    if (m->local) h = state_hash(h, m->local, 3 * (size_t)m->vertex_count * sizeof(double));
    return h;
}

void collider_state_write(const collider *k, state_writer *out)
{
    const collider_model *m = &k->model;
    const collider_state *s = &k->state;
    uint64_t fingerprint = collider_model_hash(m);
    STATE_PUT(out, m->vertex_count), STATE_PUT(out, m->triangle_count), STATE_PUT(out, fingerprint);
    state_put(out, s->from, 3 * (size_t)m->vertex_count * sizeof(double));
    state_put(out, s->to, 3 * (size_t)m->vertex_count * sizeof(double));
    STATE_PUT(out, s->time_from), STATE_PUT(out, s->time_to);
    state_write_tree(out, &s->tree);
}

bool collider_state_read(collider *k, int32_t index, state_reader *in)
{
    const collider_model *m = &k->model;
    collider_state *s = &k->state;
    int32_t vertices = 0, triangles = 0;
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, vertices) || !STATE_TAKE(in, triangles) || !STATE_TAKE(in, fingerprint))
        return state_damaged(in, "it ends inside a collider");
    if (in->pass == PASS_CHECK && (vertices != m->vertex_count || triangles != m->triangle_count ||
                                   fingerprint != collider_model_hash(m)))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: collider %d's mesh, "
                         "thickness, friction or body differ from the state's", (int)index);
    size_t n = 3 * (size_t)vertices;
    return state_read_positions(in, s->from, n, "collider positions") &&
           state_read_positions(in, s->to, n, "collider positions") &&
           state_read_doubles(in, &s->time_from, 1, "collider times") &&
           state_read_doubles(in, &s->time_to, 1, "collider times") &&
           state_read_tree(in, &s->tree, k->scratch.boxes, m->triangle_count);
}
