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

#include "error.h"
#include "threads.h"
#include "world.h"

enum { STATE_FORMAT = 4, HEADER_BYTES = 32, NODE_BYTES = 6 * 8 + 2 * 4, CONTACT_BYTES = 4 + 7 * 8 + 2 };
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

static uint64_t cloth_fingerprint(const cloth *c)
{
    uint64_t h = STATE_HASH_START;
    size_t n = (size_t)c->vertex_count;
    h = state_hash(h, c->rest_positions, 3 * n * sizeof(double));
    h = state_hash(h, c->mass, n * sizeof(double));
    h = state_hash(h, c->rest, (size_t)c->triangle_count * sizeof *c->rest); /* from the UVs */
    h = state_hash(h, c->triangles, 3 * (size_t)c->triangle_count * sizeof(int32_t));
    h = state_hash(h, c->pins, (size_t)c->pin_count * sizeof(int32_t));
    const cloth_material *m = &c->material;
    STATE_HASH(h, m->k_stretch), STATE_HASH(h, m->k_shear), STATE_HASH(h, m->k_bend);
    STATE_HASH(h, m->damping), STATE_HASH(h, m->air_drag);
    uint8_t self = c->self_collision;
    STATE_HASH(h, c->thickness), STATE_HASH(h, c->friction), STATE_HASH(h, self), STATE_HASH(h, c->self_thickness);
    return h;
}

static uint64_t collider_fingerprint(const collider *k)
{
    uint64_t h = STATE_HASH_START;
    h = state_hash(h, k->triangles, 3 * (size_t)k->triangle_count * sizeof(int32_t));
    STATE_HASH(h, k->thickness), STATE_HASH(h, k->friction), STATE_HASH(h, k->body);
    if (k->local) h = state_hash(h, k->local, 3 * (size_t)k->vertex_count * sizeof(double));
    return h;
}

static uint64_t body_fingerprint(const rigid_body *b)
{
    uint64_t h = STATE_HASH_START;
    int32_t shape = (int32_t)b->shape;
    STATE_HASH(h, b->type), STATE_HASH(h, shape), STATE_HASH(h, b->radius), STATE_HASH(h, b->mass);
    STATE_HASH(h, b->inertia), STATE_HASH(h, b->friction), STATE_HASH(h, b->restitution);
    STATE_HASH(h, b->linear_damping), STATE_HASH(h, b->angular_damping);
    STATE_HASH(h, b->x_start), STATE_HASH(h, b->q_start);
    return h;
}

/* --- writing ------------------------------------------------------------------------------ */

static void write_tree(state_writer *out, const bvh *t)
{
    int32_t node_count = t->built ? t->node_count : -1, prim_count = t->built ? t->prim_count : -1;
    STATE_PUT(out, node_count), STATE_PUT(out, prim_count), STATE_PUT(out, t->built_area);
    for (int32_t i = 0; i < node_count; i++) {
        const bvh_node *node = &t->nodes[i];
        STATE_PUT(out, node->box.lo), STATE_PUT(out, node->box.hi);
        STATE_PUT(out, node->count), STATE_PUT(out, node->index);
    }
    if (prim_count > 0) state_put(out, t->prims, 4 * (size_t)prim_count);
}

static void write_cloth(state_writer *out, const cloth *c)
{
    size_t n = (size_t)c->vertex_count;
    uint64_t fingerprint = cloth_fingerprint(c);
    STATE_PUT(out, c->vertex_count), STATE_PUT(out, c->triangle_count), STATE_PUT(out, c->pin_count);
    STATE_PUT(out, fingerprint);
    state_put(out, c->x, 3 * n * sizeof(double));
    state_put(out, c->v, 3 * n * sizeof(double));
    state_put(out, c->accel, 3 * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        const vertex_contact *vc = &c->contacts[i];
        STATE_PUT(out, vc->collider), STATE_PUT(out, vc->normal), STATE_PUT(out, vc->normal_force);
        STATE_PUT(out, vc->slide_direction), STATE_PUT(out, vc->sticking), STATE_PUT(out, vc->released);
    }
    state_put(out, c->collided, n);
    state_put(out, c->pin_from, 3 * (size_t)c->pin_count * sizeof(double));
    state_put(out, c->pin_to, 3 * (size_t)c->pin_count * sizeof(double));
    STATE_PUT(out, c->pin_time_from), STATE_PUT(out, c->pin_time_to);
    /* which preconditioner the next solve takes (cg.h): part of how the bake goes on */
    STATE_PUT(out, c->cg.jacobi_iterations), STATE_PUT(out, c->cg.multigrid_iterations);
    STATE_PUT(out, c->cg.solves_since_probe);
}

static void write_collider(state_writer *out, const collider *k)
{
    uint64_t fingerprint = collider_fingerprint(k);
    STATE_PUT(out, k->vertex_count), STATE_PUT(out, k->triangle_count), STATE_PUT(out, fingerprint);
    state_put(out, k->from, 3 * (size_t)k->vertex_count * sizeof(double));
    state_put(out, k->to, 3 * (size_t)k->vertex_count * sizeof(double));
    STATE_PUT(out, k->time_from), STATE_PUT(out, k->time_to);
    write_tree(out, &k->tree);
}

static void write_body(state_writer *out, const rigid_body *b)
{
    uint64_t fingerprint = body_fingerprint(b);
    STATE_PUT(out, fingerprint);
    STATE_PUT(out, b->x), STATE_PUT(out, b->q), STATE_PUT(out, b->P), STATE_PUT(out, b->L);
    STATE_PUT(out, b->R), STATE_PUT(out, b->inv_inertia_world), STATE_PUT(out, b->v), STATE_PUT(out, b->w);
    STATE_PUT(out, b->x_from), STATE_PUT(out, b->x_to), STATE_PUT(out, b->q_from), STATE_PUT(out, b->q_to);
    STATE_PUT(out, b->time_from), STATE_PUT(out, b->time_to);
    STATE_PUT(out, b->contact_force), STATE_PUT(out, b->contacts);
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
    STATE_PUT(out, w->cloth_count), STATE_PUT(out, w->collider_count), STATE_PUT(out, w->body_count);
    STATE_PUT(out, fingerprint);
    STATE_PUT(out, w->time), STATE_PUT(out, w->preferred_step), STATE_PUT(out, w->accepted_in_row);
    write_stats(out, &w->stats);
    for (int32_t i = 0; i < w->cloth_count; i++) write_cloth(out, w->cloths[i]);
    for (int32_t i = 0; i < w->collider_count; i++) write_collider(out, w->colliders[i]);
    for (int32_t i = 0; i < w->body_count; i++) write_body(out, w->bodies[i]);
    rigid_state_write(w, out);
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

static bool damaged(state_reader *in, const char *what)
{
    return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: %s", what);
}

/* n finite doubles, at most `limit` in size, into dst: checked in the CHECK pass, copied
 * when applying (into the world) or always (`always`: into the caller's own variables). */
static bool doubles(state_reader *in, double *dst, size_t n, bool always, double limit, const char *what)
{
    const uint8_t *bytes = state_span(in, n * sizeof(double));
    if (!bytes) return damaged(in, what);
    if (in->pass == PASS_CHECK)
        for (size_t i = 0; i < n; i++) {
            double value;
            memcpy(&value, bytes + i * sizeof value, sizeof value);
            if (!(fabs(value) <= limit)) return damaged(in, what);
        }
    if ((always || in->pass == PASS_APPLY) && n > 0) memcpy(dst, bytes, n * sizeof(double));
    return true;
}

static bool read_doubles(state_reader *in, double *dst, size_t n, const char *what)
{
    return doubles(in, dst, n, false, DBL_MAX, what);
}

/* Positions, as every entry point bounds them. */
static bool read_positions(state_reader *in, double *dst, size_t n, const char *what)
{
    return doubles(in, dst, n, false, MAX_COORDINATE, what);
}

/* A local variable made of doubles (double, vec3, quat). */
#define TAKE_VALUES(in, var, what) doubles((in), (double *)&(var), sizeof(var) / sizeof(double), true, DBL_MAX, (what))

/* Whether saved nodes form a tree as bvh_build lays one out: in preorder (each inner node's left
 * child right after it, its right child after the left subtree), every node reached once,
 * the leaves covering the primitives in order, no deeper than BVH_MAX_DEPTH (the fixed stacks
 * of the traversals rely on it). */
static const char *check_nodes(const uint8_t *bytes, int32_t node_count, int32_t prim_count)
{
    if (node_count == 0) return prim_count == 0 ? NULL : "a collision tree has no nodes";
    struct { int32_t node, depth; } stack[BVH_MAX_DEPTH + 2];
    int top = 0;
    int32_t next_node = 0, next_prim = 0;
    stack[top++].node = 0, stack[0].depth = 0;
    while (top > 0) {
        int32_t id = stack[--top].node, depth = stack[top].depth;
        if (id != next_node++) return "a collision tree's nodes are not in the order of a tree";
        const uint8_t *node = bytes + (size_t)NODE_BYTES * (size_t)id;
        double box[6];
        int32_t count, index;
        memcpy(box, node, sizeof box), memcpy(&count, node + 48, 4), memcpy(&index, node + 52, 4);
        for (int k = 0; k < 6; k++)
            if (isnan(box[k])) return "a collision tree's box is not a number";
        if (count > 0) {
            if (index != next_prim || count > prim_count - next_prim)
                return "a collision tree's leaves do not cover its mesh's triangles in order";
            next_prim += count;
        } else if (count < 0 || index <= id + 1 || index >= node_count) {
            return "a collision tree's node points outside the tree";
        } else if (depth >= BVH_MAX_DEPTH) {
            return "a collision tree is deeper than any tree SimBake builds";
        } else {
            stack[top].node = index, stack[top++].depth = depth + 1;
            stack[top].node = id + 1, stack[top++].depth = depth + 1;
        }
    }
    if (next_node != node_count || next_prim != prim_count) return "a collision tree does not fit its mesh";
    return NULL;
}

static bool read_tree(state_reader *in, bvh *t, const aabb *boxes, int32_t primitives)
{
    int32_t node_count = 0, prim_count = 0;
    double built_area = 0.0;
    const uint8_t *nodes = NULL, *prims = NULL;
    bool present = STATE_TAKE(in, node_count) && STATE_TAKE(in, prim_count) && STATE_TAKE(in, built_area) &&
                   node_count >= 0;
    if (in->pass == PASS_CHECK) {
        if (node_count == -1 && prim_count == -1) return true;
        if (!present || prim_count != primitives || node_count > 2 * prim_count + 1 || isnan(built_area) ||
            !(nodes = state_span(in, NODE_BYTES * (uint64_t)node_count)) ||
            !(prims = state_span(in, 4 * (uint64_t)prim_count)))
            return damaged(in, "a collision tree does not fit its mesh");
        const char *wrong = check_nodes(nodes, node_count, prim_count);
        if (wrong) return damaged(in, wrong);
        return state_check_permutation(in, prims, prim_count, "a tree's primitives are not a permutation");
    }
    if (!present) { /* no tree saved: the world had not built it yet */
        if (in->pass == PASS_APPLY) t->built = false, t->node_count = t->prim_count = 0, t->built_area = 0.0;
        return true;
    }
    nodes = state_span(in, NODE_BYTES * (uint64_t)node_count);
    prims = state_span(in, 4 * (uint64_t)prim_count);
    if (in->pass == PASS_RESERVE) { /* room only: a load refused later leaves the tree as it was */
        if (!bvh_reserve(t, primitives)) return STATE_FAIL(in, SB_ERROR_OUT_OF_MEMORY, "out of memory loading a saved state");
        return true;
    }
    for (int32_t i = 0; i < node_count; i++, nodes += NODE_BYTES) {
        bvh_node *node = &t->nodes[i];
        memcpy(&node->box.lo, nodes, 24), memcpy(&node->box.hi, nodes + 24, 24);
        memcpy(&node->count, nodes + 48, 4), memcpy(&node->index, nodes + 52, 4);
    }
    if (prim_count > 0) memcpy(t->prims, prims, 4 * (size_t)prim_count);
    t->node_count = node_count, t->prim_count = prim_count, t->built_area = built_area, t->boxes = boxes;
    t->built = true;
    bvh_set_last(t);
    return true;
}

static bool read_cloth(state_reader *in, cloth *c, int32_t index, int32_t collider_count)
{
    int32_t vertices = 0, triangles = 0, pins = 0;
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, vertices) || !STATE_TAKE(in, triangles) || !STATE_TAKE(in, pins) || !STATE_TAKE(in, fingerprint))
        return damaged(in, "it ends inside a cloth");
    if (in->pass == PASS_CHECK) {
        if (vertices != c->vertex_count || triangles != c->triangle_count || pins != c->pin_count)
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: cloth %d has %d "
                             "vertices, %d triangles and %d pins here, %d, %d and %d in the state", (int)index,
                             (int)c->vertex_count, (int)c->triangle_count, (int)c->pin_count, (int)vertices,
                             (int)triangles, (int)pins);
        if (fingerprint != cloth_fingerprint(c))
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: cloth %d's rest "
                             "shape, masses, pins or material differ from the state's (the rest shape "
                             "includes the warp and weft its UVs give)", (int)index);
    }
    size_t n = (size_t)vertices;
    if (!read_positions(in, c->x, 3 * n, "cloth positions") || !read_doubles(in, c->v, 3 * n, "cloth velocities") ||
        !read_doubles(in, c->accel, 3 * n, "cloth accelerations"))
        return false;
    const uint8_t *contacts = state_span(in, CONTACT_BYTES * (uint64_t)n), *collided = state_span(in, n);
    if (!contacts || !collided) return damaged(in, "it ends inside a cloth's contacts");
    for (size_t i = 0; i < n; i++, contacts += CONTACT_BYTES) {
        vertex_contact vc;
        memcpy(&vc.collider, contacts, 4), memcpy(&vc.normal, contacts + 4, 24);
        memcpy(&vc.normal_force, contacts + 28, 8), memcpy(&vc.slide_direction, contacts + 36, 24);
        vc.sticking = contacts[60], vc.released = contacts[61];
        if (in->pass == PASS_CHECK &&
            (vc.collider < -1 || vc.collider >= collider_count || vc.sticking > 1 || vc.released > 1 ||
             !v3_isfinite(vc.normal) || !isfinite(vc.normal_force) || !v3_isfinite(vc.slide_direction) ||
             collided[i] > 1))
            return damaged(in, "a cloth vertex's contact");
        if (in->pass == PASS_APPLY) c->contacts[i] = vc;
    }
    if (in->pass == PASS_APPLY) memcpy(c->collided, collided, n);
    if (!read_doubles(in, c->pin_from, 3 * (size_t)pins, "pin targets") ||
        !read_doubles(in, c->pin_to, 3 * (size_t)pins, "pin targets") ||
        !read_doubles(in, &c->pin_time_from, 1, "pin times") || !read_doubles(in, &c->pin_time_to, 1, "pin times"))
        return false;
    int32_t jacobi = 0, multigrid = 0, since_probe = 0;
    if (!STATE_TAKE(in, jacobi) || !STATE_TAKE(in, multigrid) || !STATE_TAKE(in, since_probe))
        return damaged(in, "it ends inside a cloth's solver counts");
    if (in->pass == PASS_CHECK &&
        (jacobi < -1 || multigrid < -1 || since_probe < 0 || since_probe >= CG_MULTIGRID_PROBE_EVERY))
        return damaged(in, "a cloth's solver counts");
    if (in->pass == PASS_APPLY)
        c->cg.jacobi_iterations = jacobi, c->cg.multigrid_iterations = multigrid, c->cg.solves_since_probe = since_probe;
    return true;
}

static bool read_collider(state_reader *in, collider *k, int32_t index)
{
    int32_t vertices = 0, triangles = 0;
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, vertices) || !STATE_TAKE(in, triangles) || !STATE_TAKE(in, fingerprint))
        return damaged(in, "it ends inside a collider");
    if (in->pass == PASS_CHECK && (vertices != k->vertex_count || triangles != k->triangle_count ||
                                   fingerprint != collider_fingerprint(k)))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: collider %d's mesh, "
                         "thickness, friction or body differ from the state's", (int)index);
    size_t n = 3 * (size_t)vertices;
    return read_positions(in, k->from, n, "collider positions") && read_positions(in, k->to, n, "collider positions") &&
           read_doubles(in, &k->time_from, 1, "collider times") && read_doubles(in, &k->time_to, 1, "collider times") &&
           read_tree(in, &k->tree, k->boxes, k->triangle_count);
}

static bool unit(quat q) { return fabs(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0) < 1e-6; }

static bool read_body(state_reader *in, rigid_body *b, int32_t index)
{
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, fingerprint)) return damaged(in, "it ends inside a body");
    if (in->pass == PASS_CHECK && fingerprint != body_fingerprint(b))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: body %d's shape, "
                         "mass, material or starting pose differ from the state's", (int)index);
    rigid_body saved = *b;
    bool ok = TAKE_VALUES(in, saved.x, "body pose") && TAKE_VALUES(in, saved.q, "body pose") &&
              TAKE_VALUES(in, saved.P, "body momentum") && TAKE_VALUES(in, saved.L, "body momentum") &&
              TAKE_VALUES(in, saved.R, "body pose") && TAKE_VALUES(in, saved.inv_inertia_world, "body inertia") &&
              TAKE_VALUES(in, saved.v, "body velocity") && TAKE_VALUES(in, saved.w, "body velocity") &&
              TAKE_VALUES(in, saved.x_from, "body path") && TAKE_VALUES(in, saved.x_to, "body path") &&
              TAKE_VALUES(in, saved.q_from, "body path") && TAKE_VALUES(in, saved.q_to, "body path") &&
              TAKE_VALUES(in, saved.time_from, "body path") && TAKE_VALUES(in, saved.time_to, "body path") &&
              TAKE_VALUES(in, saved.contact_force, "body contact force");
    if (!ok) return false;
    if (!STATE_TAKE(in, saved.contacts)) return damaged(in, "it ends inside a body");
    if (in->pass == PASS_CHECK && !(v3_len(saved.x) <= MAX_COORDINATE))
        return damaged(in, "a body lies beyond the largest coordinate");
    if (in->pass == PASS_CHECK && (!unit(saved.q) || !unit(saved.q_from) || !unit(saved.q_to) || saved.contacts < 0))
        return damaged(in, "a body's orientation is not a unit quaternion");
    if (in->pass != PASS_APPLY) return true;
    /* the derived R, I⁻¹, v, ω as they were: a kinematic body's v, ω come from its path */
    b->x = saved.x, b->q = saved.q, b->P = saved.P, b->L = saved.L;
    b->R = saved.R, b->inv_inertia_world = saved.inv_inertia_world, b->v = saved.v, b->w = saved.w;
    b->x_from = saved.x_from, b->x_to = saved.x_to, b->q_from = saved.q_from, b->q_to = saved.q_to;
    b->time_from = saved.time_from, b->time_to = saved.time_to;
    b->contact_force = saved.contact_force, b->contacts = saved.contacts;
    return true;
}

static bool read_stats(state_reader *in, sb_world_stats *s)
{
    sb_world_stats saved = *s;
    if (!TAKE_VALUES(in, saved.time, "statistics") || !STATE_TAKE(in, saved.steps) ||
        !STATE_TAKE(in, saved.rejected_steps) || !STATE_TAKE(in, saved.cg_iterations) ||
        !STATE_TAKE(in, saved.last_cg_iterations) || !TAKE_VALUES(in, saved.last_step, "statistics") ||
        !STATE_TAKE(in, saved.last_contacts) || !STATE_TAKE(in, saved.collisions) || !STATE_TAKE(in, saved.impact_zones))
        return in->result != SB_OK || damaged(in, "it ends inside the statistics");
    if (in->pass == PASS_APPLY) *s = saved;
    return true;
}

static bool read_payload(state_reader *in, sb_world *w)
{
    int32_t cloths = 0, colliders = 0, bodies = 0, accepted_in_row = 0;
    uint64_t fingerprint = 0;
    double clock[2];
    if (!STATE_TAKE(in, cloths) || !STATE_TAKE(in, colliders) || !STATE_TAKE(in, bodies) || !STATE_TAKE(in, fingerprint))
        return damaged(in, "it ends inside its header");
    if (in->pass == PASS_CHECK) {
        if (cloths != w->cloth_count || colliders != w->collider_count || bodies != w->body_count)
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: it has %d cloths, "
                             "%d colliders and %d bodies, the state %d, %d and %d", (int)w->cloth_count,
                             (int)w->collider_count, (int)w->body_count, (int)cloths, (int)colliders,
                             (int)bodies);
        if (fingerprint != world_fingerprint(w))
            return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: its settings "
                             "(gravity, steps, tolerances) differ from the state's");
    }
    if (!TAKE_VALUES(in, clock, "the world's clock")) return false;
    if (!STATE_TAKE(in, accepted_in_row)) return damaged(in, "it ends inside the world's clock");
    if (!read_stats(in, &w->stats)) return false;
    if (in->pass == PASS_CHECK && !(clock[1] > 0.0 && accepted_in_row >= 0)) return damaged(in, "the world's step size");
    if (in->pass == PASS_APPLY) w->time = clock[0], w->preferred_step = clock[1], w->accepted_in_row = accepted_in_row;
    for (int32_t i = 0; i < w->cloth_count; i++)
        if (!read_cloth(in, w->cloths[i], i, w->collider_count)) return false;
    for (int32_t i = 0; i < w->collider_count; i++)
        if (!read_collider(in, w->colliders[i], i)) return false;
    for (int32_t i = 0; i < w->body_count; i++)
        if (!read_body(in, w->bodies[i], i)) return false;
    if (!rigid_state_read(w, in)) return false;
    if (in->pass == PASS_CHECK && in->at != in->end) return damaged(in, "bytes left over after its last section");
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
    int32_t caller_threads = threads_enter(world->def.threads);
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
