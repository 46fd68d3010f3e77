/* A cloth in a saved world (world_state.c): its state written whole, and the fingerprint of its
 * model that a state must match to be loaded into it.
 *
 * The static assertions below fail when a field is added to cloth_state or cloth_model: the
 * writer, the reader and the fingerprint here are then to be extended before the sizes are
 * updated, so no field is saved (or left out) by oversight. */
#include <math.h>

#include "cloth_state.h"

enum { CONTACT_BYTES = 4 + 7 * 8 + 2 };

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(cloth_state) == 120, "a cloth_state field was added: save it in cloth_state_write/read");
_Static_assert(sizeof(cloth_model) == 824, "a cloth_model field was added: fingerprint it in cloth_model_hash "
                                           "if the definition gives it");
#endif

/* The values the definition gives (rest shape, UV frames, masses, pins, material, collision
 * settings, goal springs); the rest of the model (hinges, topology, element tables) is computed from them. */
uint64_t cloth_model_hash(const cloth_model *m)
{
    uint64_t h = STATE_HASH_START;
    size_t n = (size_t)m->vertex_count;
    h = state_hash(h, m->rest_positions, 3 * n * sizeof(double));
    h = state_hash(h, m->mass, n * sizeof(double));
    h = state_hash(h, m->rest, (size_t)m->triangle_count * sizeof *m->rest); /* from the UVs */
    h = state_hash(h, m->triangles, 3 * (size_t)m->triangle_count * sizeof(int32_t));
    h = state_hash(h, m->pins, (size_t)m->pin_count * sizeof(int32_t));
    const cloth_material *k = &m->material;
    STATE_HASH(h, k->k_stretch), STATE_HASH(h, k->k_shear), STATE_HASH(h, k->k_bend), STATE_HASH(h, k->k_compress);
    STATE_HASH(h, k->damping), STATE_HASH(h, k->air_drag);
    uint8_t self = m->self_collision;
    STATE_HASH(h, m->thickness), STATE_HASH(h, m->friction), STATE_HASH(h, self), STATE_HASH(h, m->self_thickness);
    STATE_HASH(h, m->gravity_scale);
    const cloth_pressure *pr = &m->pressure;
    if (pr->on) { /* without pressure the fingerprint stays what it was */
        STATE_HASH(h, pr->pressure), STATE_HASH(h, pr->scale), STATE_HASH(h, pr->target_volume);
        if (pr->triangle_weight) h = state_hash(h, pr->triangle_weight, (size_t)m->triangle_count * sizeof(double));
    }
    h = state_hash(h, m->goals, (size_t)m->goal_count * sizeof(int32_t));
    h = state_hash(h, m->goal_stiffness, (size_t)m->goal_count * sizeof(double));
    STATE_HASH(h, m->goal_damping);
    /* hashed only when there are any, so a cloth without keeps its fingerprint of before */
    const spring_set *sp = &m->springs;
    if (sp->count > 0) {
        size_t n_springs = (size_t)sp->count;
        STATE_HASH(h, sp->given), STATE_HASH(h, sp->internal);
        h = state_hash(h, sp->pairs, 2 * n_springs * sizeof(int32_t));
        h = state_hash(h, sp->rest, n_springs * sizeof(double));
        h = state_hash(h, sp->stiffness, 2 * n_springs * sizeof(double));
        h = state_hash(h, sp->max_force, n_springs * sizeof(double));
    }
    /* strands (strands.c) only: a cloth of triangles keeps its fingerprint of before */
    if (m->strands) {
        uint8_t strands = 1;
        STATE_HASH(h, strands);
        h = state_hash(h, m->angles, 3 * (size_t)m->angle_count * sizeof(int32_t));
        h = state_hash(h, m->angle_stiffness, (size_t)m->angle_count * sizeof(double));
        h = state_hash(h, m->angle_rest, (size_t)m->angle_count * sizeof(double));
    }
    /* what is not given leaves the fingerprint as it was */
    size_t triangles = (size_t)m->triangle_count;
    const double *scales[4] = {m->triangle_stretch_scale, m->triangle_compression_scale, m->triangle_shear_scale,
                               m->hinge_bend_scale};
    for (uint8_t which = 0; which < 4; which++)
        if (scales[which]) {
            STATE_HASH(h, which);
            h = state_hash(h, scales[which], (which == 3 ? (size_t)m->hinge_count : triangles) * sizeof(double));
        }
    if (m->self_friction != m->friction * m->friction) STATE_HASH(h, m->self_friction);
    if (m->left_out.triangle) {
        h = state_hash(h, m->left_out.vertex, (size_t)m->vertex_count);
        h = state_hash(h, m->left_out.triangle, triangles);
    }
    /* pins carried by a body (sb_cloth_attach_pins_to_body): the body and the pins in its frame */
    if (m->pin_local) {
        STATE_HASH(h, m->pin_body);
        h = state_hash(h, m->pin_local, 3 * (size_t)m->pin_count * sizeof(double));
    }
    /* only with a limit, so a cloth without keeps its fingerprint of before */
    if (m->max_stretch > 0.0 || m->max_compression > 0.0)
        STATE_HASH(h, m->max_stretch), STATE_HASH(h, m->max_compression);
    if (m->meets_collider_count >= 0) {
        STATE_HASH(h, m->meets_collider_count);
        h = state_hash(h, m->meets_collider, (size_t)m->meets_collider_count);
    }
    return h;
}

void cloth_state_write(const cloth *c, state_writer *out)
{
    const cloth_model *m = &c->model;
    const cloth_state *s = &c->state;
    size_t n = (size_t)m->vertex_count, pins = (size_t)m->pin_count;
    uint64_t fingerprint = cloth_model_hash(m);
    STATE_PUT(out, m->vertex_count), STATE_PUT(out, m->triangle_count), STATE_PUT(out, m->pin_count);
    STATE_PUT(out, fingerprint);
    state_put(out, s->x, 3 * n * sizeof(double));
    state_put(out, s->v, 3 * n * sizeof(double));
    state_put(out, s->accel, 3 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        const vertex_contact *vc = &s->contacts[i];
        STATE_PUT(out, vc->collider), STATE_PUT(out, vc->normal), STATE_PUT(out, vc->normal_force);
        STATE_PUT(out, vc->slide_direction), STATE_PUT(out, vc->sticking), STATE_PUT(out, vc->released);
    }
    state_put(out, s->collided, n);
    state_put(out, s->pin_from, 3 * pins * sizeof(double));
    state_put(out, s->pin_to, 3 * pins * sizeof(double));
    STATE_PUT(out, s->pin_time_from), STATE_PUT(out, s->pin_time_to);
    state_put(out, s->goal_from, 3 * (size_t)m->goal_count * sizeof(double));
    state_put(out, s->goal_to, 3 * (size_t)m->goal_count * sizeof(double));
    STATE_PUT(out, s->goal_time_from), STATE_PUT(out, s->goal_time_to);
    STATE_PUT(out, s->cg.jacobi_iterations), STATE_PUT(out, s->cg.multigrid_iterations);
    STATE_PUT(out, s->cg.solves_since_probe);
}

static bool read_contacts(state_reader *in, cloth_state *s, size_t n, int32_t collider_count)
{
    const uint8_t *contacts = state_span(in, CONTACT_BYTES * (uint64_t)n), *collided = state_span(in, n);
    if (!contacts || !collided) return state_damaged(in, "it ends inside a cloth's contacts");
    for (size_t i = 0; i < n; i++, contacts += CONTACT_BYTES) {
        vertex_contact vc;
        memcpy(&vc.collider, contacts, 4), memcpy(&vc.normal, contacts + 4, 24);
        memcpy(&vc.normal_force, contacts + 28, 8), memcpy(&vc.slide_direction, contacts + 36, 24);
        vc.sticking = contacts[60], vc.released = contacts[61];
        if (in->pass == PASS_CHECK &&
            (vc.collider < -1 || vc.collider >= collider_count || vc.sticking > 1 || vc.released > 1 ||
             !v3_isfinite(vc.normal) || !isfinite(vc.normal_force) || !v3_isfinite(vc.slide_direction) ||
             collided[i] > 1))
            return state_damaged(in, "a cloth vertex's contact");
        if (in->pass == PASS_APPLY) s->contacts[i] = vc;
    }
    if (in->pass == PASS_APPLY) memcpy(s->collided, collided, n);
    return true;
}

static bool read_cg_history(state_reader *in, cg_history *history)
{
    cg_history saved;
    if (!STATE_TAKE(in, saved.jacobi_iterations) || !STATE_TAKE(in, saved.multigrid_iterations) ||
        !STATE_TAKE(in, saved.solves_since_probe))
        return state_damaged(in, "it ends inside a cloth's solver counts");
    if (in->pass == PASS_CHECK && (saved.jacobi_iterations < -1 || saved.multigrid_iterations < -1 ||
                                   saved.solves_since_probe < 0 ||
                                   saved.solves_since_probe >= CG_MULTIGRID_PROBE_EVERY))
        return state_damaged(in, "a cloth's solver counts");
    if (in->pass == PASS_APPLY) *history = saved;
    return true;
}

bool cloth_state_read(cloth *c, int32_t index, int32_t collider_count, state_reader *in)
{
    const cloth_model *m = &c->model;
    cloth_state *s = &c->state;
    int32_t vertices = 0, triangles = 0, pins = 0;
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, vertices) || !STATE_TAKE(in, triangles) || !STATE_TAKE(in, pins) || !STATE_TAKE(in, fingerprint))
        return state_damaged(in, "it ends inside a cloth");
    if (in->pass == PASS_CHECK) {
        if (vertices != m->vertex_count || triangles != m->triangle_count || pins != m->pin_count)
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: cloth %d has %d "
                             "vertices, %d triangles and %d pins here, %d, %d and %d in the state", (int)index,
                             (int)m->vertex_count, (int)m->triangle_count, (int)m->pin_count, (int)vertices,
                             (int)triangles, (int)pins);
        if (fingerprint != cloth_model_hash(m))
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: cloth %d's rest "
                             "shape, masses, pins or material (or its goal springs, springs, collision groups, the "
                             "colliders it meets or the body carrying its pins) differ from the state's (the rest "
                             "shape includes the warp and weft its UVs give)", (int)index);
    }
    size_t n = (size_t)vertices;
    return state_read_positions(in, s->x, 3 * n, "cloth positions") &&
           state_read_doubles(in, s->v, 3 * n, "cloth velocities") &&
           state_read_doubles(in, s->accel, 3 * n, "cloth accelerations") &&
           read_contacts(in, s, n, collider_count) &&
           state_read_doubles(in, s->pin_from, 3 * (size_t)pins, "pin targets") &&
           state_read_doubles(in, s->pin_to, 3 * (size_t)pins, "pin targets") &&
           state_read_doubles(in, &s->pin_time_from, 1, "pin times") &&
           state_read_doubles(in, &s->pin_time_to, 1, "pin times") &&
           /* the goals' count is the model's: the fingerprint above includes them */
           state_read_positions(in, s->goal_from, 3 * (size_t)m->goal_count, "goal targets") &&
           state_read_positions(in, s->goal_to, 3 * (size_t)m->goal_count, "goal targets") &&
           state_read_doubles(in, &s->goal_time_from, 1, "goal times") &&
           state_read_doubles(in, &s->goal_time_to, 1, "goal times") && read_cg_history(in, &s->cg);
}
