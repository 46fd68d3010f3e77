/* Time stepping of the world: adaptive implicit Euler (production) or an explicit
 * integrator with step-doubling error control (tests and comparison). */
#include <stdlib.h>
#include <string.h>

#include "cloth_forces.h"
#include "cloth_step.h"
#include "collision_response.h"
#include "cloth_contact.h"
#include "cloth_fields.h"
#include "cloth_strain_limit.h"
#include "api_error.h"
#include "world_ode.h"
#include "strands.h"
#include "strand_collide.h"
#include "two_way_coupling.h"
#include "wall_clock.h"
#include "world.h"

static const char *outcome_reason(step_outcome o)
{
    switch (o) {
    case STEP_TOO_MUCH_STRAIN: return "triangles stretched by more than max_strain_change";
    case STEP_CG_FAILED: return "the conjugate gradient did not converge";
    case STEP_NOT_FINITE: return "the state became non-finite";
    case STEP_TOO_FAST: return "a vertex moved faster than max_speed: the energy blew up";
    case STEP_NEEDS_ZONES: return "collisions that only rigid impact zones would resolve";
    case STEP_STIFF_COUPLING: return "a body too light for the cloth it meets over this step";
    default: return "accepted";
    }
}

static const char *outcome_advice(step_outcome o)
{
    switch (o) {
    case STEP_TOO_MUCH_STRAIN:
        return "something pulls the cloth apart faster than it can stretch: check the motion of pins and "
               "colliders, lower the stiffness, or raise max_strain_change";
    case STEP_CG_FAILED: return "lower the stiffness, raise cg_max_iterations or lower max_step";
    case STEP_TOO_FAST:
        return "lower the stiffness or friction, lower max_step, or check pins and colliders that jump";
    default: return "check the mesh and the settings for extreme values";
    }
}

static sb_failure_kind failure_kind(step_outcome o)
{
    switch (o) {
    case STEP_TOO_MUCH_STRAIN: return SB_FAILURE_STRAIN;
    case STEP_CG_FAILED: return SB_FAILURE_CG;
    case STEP_TOO_FAST: return SB_FAILURE_SPEED;
    default: return SB_FAILURE_NOT_FINITE;
    }
}

static sb_result out_of_memory(sb_world *w, const char *what)
{
    w->failure = (sb_failure){.kind = SB_FAILURE_OUT_OF_MEMORY, .time = w->time};
    return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory %s at t = %g s", what, w->time);
}

/* Colliders carried by bodies move with them over the step the bodies just took. */
static void carry_colliders(sb_world *w, double t, double h)
{
    for (int32_t i = 0; i < w->collider_count; i++) {
        collider *c = w->colliders[i];
        if (c->model.body < 0) continue;
        vec3 x0, x1;
        quat q0, q1;
        rigid_system_step_poses(&w->rigid, c->model.body, &x0, &q0, &x1, &q1);
        collider_follow(c, x0, q0, x1, q1, t, h);
    }
}

/* Pins carried by bodies (sb_cloth_attach_pins_to_body) move with them over the step the
 * bodies just took. */
static void carry_pins(sb_world *w, double t, double h)
{
    for (int32_t i = 0; i < w->cloth_count; i++) {
        cloth *c = w->cloths[i];
        if (!c->model.pin_local) continue;
        vec3 x0, x1;
        quat q0, q1;
        rigid_system_step_poses(&w->rigid, c->model.pin_body, &x0, &q0, &x1, &q1);
        cloth_carry_pins(c, x0, q0, x1, q1, t, h);
    }
}

/* After the coupled solve moved the bodies that feel the cloth: carried pins land on their
 * bodies' new points, with the velocity that takes them there over the step. */
static void replace_carried_pins(sb_world *w, double t, double h)
{
    carry_pins(w, t, h);
    for (int32_t i = 0; i < w->cloth_count; i++) {
        cloth *c = w->cloths[i];
        if (!c->model.pin_local) continue;
        for (int32_t p = 0; p < c->model.pin_count; p++) {
            size_t k = 3 * (size_t)c->model.pins[p];
            double vel[3];
            cloth_pin_state(c, p, t + h, &c->scratch.x_new[k], vel);
            for (int a = 0; a < 3; a++) c->scratch.v_new[k + a] = (c->scratch.x_new[k + a] - c->state.x[k + a]) / h;
        }
    }
}

/* Impact zones are the failsafe of the response, and a harsh one: a zone moves rigidly, held
 * where it began when it touches a still collider, while its neighbours take the solve's
 * paths, so the triangles between them stretch by up to h times their relative speed
 * (docs/solver-tuning.md). A step that needs zones is tried
 * again at half its length, down to this fraction of max_step; shorter steps take the zones. */
enum { ZONE_FREE_STEP_DIVISOR = 8 };

static bool zones_allowed(const sb_world *w, double h)
{
    return h <= w->def.max_step / ZONE_FREE_STEP_DIVISOR || 0.5 * h < w->def.min_step;
}

/* Next step: the preferred one, stretched by up to 1% to land exactly on `end`. */
static double next_step(const sb_world *w, double end, bool *lands)
{
    double remaining = end - w->time;
    *lands = remaining <= 1.01 * w->preferred_step;
    return *lands ? remaining : w->preferred_step;
}

/* The bodies step first and the colliders follow over [t, t + h]: the cloth meets the
 * colliders they carry where the bodies went (so it never passes through them, whatever
 * pushed them), and the bodies that feel the cloth take its push at the end of the step
 * (two_way_coupling.h). */
static sb_result move_colliders(sb_world *w, double h)
{
    sb_result rigid = rigid_system_advance(&w->rigid, w->time, h, &w->failure);
    if (rigid != SB_OK) return rigid;
    carry_colliders(w, w->time, h);
    carry_pins(w, w->time, h);
    coupling_mark_colliders(w);
    if (coupling_first_order_near_cloth(w, h)) carry_colliders(w, w->time, h), carry_pins(w, w->time, h);
    for (int32_t i = 0; i < w->collider_count; i++)
        if (!collider_prepare_step(w->colliders[i], w->time, h)) {
            rigid_system_undo_advance(&w->rigid);
            return out_of_memory(w, "preparing a collider");
        }
    return SB_OK;
}

/* Each cloth's implicit solve in turn, up to the first that fails (its index in *failed,
 * its figures in *report), the bodies that feel the cloth solved with it (coupled_solve.h);
 * false when out of memory. */
static bool solve_cloths(sb_world *w, double h, const implicit_params *params, step_report *report,
                         int32_t *failed, int32_t *iterations, step_outcome *result)
{
    step_outcome outcome = STEP_ACCEPTED;
    coupled_bodies coupling;
    if (!coupling_begin_solves(w, h, &coupling)) return false;
    bool memory = true;
    for (int32_t i = 0; i < w->cloth_count && outcome == STEP_ACCEPTED; i++) {
        implicit_params cloth_params = *params;
        cloth_params.fields = world_fields_on(w, i, w->time + h);
        cloth_params.coupling = &coupling;
        if (!coupled_find_edges(w->cloths[i], &coupling)) {
            coupling_end_solves(&coupling);
            return false;
        }
        /* strands' segments (EA / L on a small mass) make their system far stiffer than cloth's: a
         * residual of 1e-3 leaves their segments stretched by tens of percent, so they solve to
         * STRAND_CG_TOLERANCE at least */
        if (w->cloths[i]->model.strands) cloth_params.cg_tolerance = fmin(params->cg_tolerance, STRAND_CG_TOLERANCE);
        outcome = cloth_implicit_step(w->cloths[i], w->time, h, &cloth_params, report);
        *iterations += report->cg_iterations;
        w->phases.assembly += report->assembly_seconds, w->phases.solve += report->solve_seconds;
        if (outcome != STEP_ACCEPTED) *failed = i;
        else coupling_take_solve(w, w->cloths[i], &coupling);
    }
    w->stats.cg_iterations += *iterations;
    /* the bodies the solves moved: where their new velocities take them, their colliders with them */
    if (outcome == STEP_ACCEPTED && coupling.count > 0) {
        coupling_move_bodies(w, &coupling, h);
        carry_colliders(w, w->time, h);
        replace_carried_pins(w, w->time, h);
        for (int32_t k = 0; k < w->collider_count && memory; k++)
            if (coupling.slot[k] >= 0) memory = collider_prepare_step(w->colliders[k], w->time, h);
    }
    coupling_end_solves(&coupling);
    *result = outcome;
    return memory;
}

/* Every strands object's vertices swept against the colliders (strand_collide.h); how many
 * it stopped. */
static int32_t sweep_strands(sb_world *w)
{
    int32_t stopped = 0;
    for (int32_t i = 0; i < w->cloth_count; i++)
        if (w->cloths[i]->model.strands) stopped += strands_sweep_colliders(w->cloths[i], w->colliders, w->collider_count);
    return stopped;
}

/* Contacts released where the surface pulled, then every collision of the step resolved;
 * false when memory ran out. */
static bool resolve_collisions(sb_world *w, double h, step_outcome *outcome, collision_report *collisions)
{
    for (int32_t i = 0; i < w->cloth_count; i++) contacts_after_solve(w->cloths[i], w->colliders, h);
    /* the strands' vertices stopped on the colliders first (their marks kept through the
     * response: every cloth's cleared here instead), so that the response, which keeps strands
     * and cloth from crossing, sees where the colliders put them */
    for (int32_t i = 0; i < w->cloth_count; i++)
        memset(w->cloths[i]->state.collided, 0, (size_t)w->cloths[i]->model.vertex_count);
    sweep_strands(w);
    double start = wall_seconds();
    /* what the response gives the pushed bodies is set aside too: squeezed between a body and
     * another collider, a vertex pushed out of each in turn credits the body every time
     * (coupled_squeeze.c) */
    coupling_mark_reactions(w);
    bool resolved = collisions_resolve(&w->collision, w->cloths, w->cloth_count, w->colliders, w->collider_count,
                                       h, zones_allowed(w, h), true, collisions);
    coupling_set_aside_reactions(w);
    w->phases.pairs += collisions->pairs_seconds;
    w->phases.response += wall_seconds() - start - collisions->pairs_seconds;
    if (resolved && collisions->needs_zones) *outcome = STEP_NEEDS_ZONES;
    return resolved;
}

/* Strain limits on the solve's result, before the response (cloth_strain_limit.h): pins
 * fixed, sticking contacts heavy. A pinch: pins, or a collider, and a one-way body that does
 * not give (it moves as if the cloth were not there) can stretch the cloth beyond its limit
 * where no placement meets it; the projection then moved the free vertices between them by the
 * same distance whatever the step's length, changing their velocity by that distance / h (0.74 m
 * a step in the add-on's one-way hammock; the world halved the step on the speed, which doubled
 * it, down to min_step: tests/c/test_pinch.c). So where the projection would change a vertex's
 * velocity by more than PINCH_SPEED, the cloth is taken back to the solve's result and
 * projected again with the step marked a pinch: elements that start it beyond their limit come
 * back at a bounded rate and no vertex is left faster than PINCH_SPEED or than it was
 * (cloth_strain_limit.c), and impact zones held by several objects follow the one that moves
 * least (collision_response.c). Where a body feels the cloth too (issue 32): its capped share of
 * the limit's pull (two_way_coupling.c) can stop it but never lift it back, so a box that sank
 * past what the limit allows on its first plunge squeezes the cloth wrapped round it against the
 * pins for good, and the add-on's strain-limited hammock blew up at frame 33 (4.89e3 m/s,
 * tests/c/diag_hammock_squeeze.c). There only the speed cap applies in a pinch, and what this
 * cloth's projection gave the pushed bodies in the first try is dropped with it. Sewing springs
 * pulling panels together make pinch steps too (tests/c/test_springs.c); other ordinary scenes
 * stay below PINCH_SPEED: the tablecloth sample's bodies, pressing the cloth onto the table, made
 * the projection change velocities by at most 11.8 m/s (72 frames), the one-way hammock 52 m/s in
 * the step before its speeds ran away. */

static double projection_speed(const cloth *c, double h)
{
    double most = 0.0;
    for (int32_t v = 0; v < c->model.vertex_count; v++) {
        size_t at = 3 * (size_t)v;
        most = fmax(most, v3_len(v3_sub(v3_load(&c->scratch.x_new[at]), v3_load(&c->scratch.x_before_limit[at]))));
    }
    return most / h;
}

static void limit_solved_strain(sb_world *w, double h)
{
    bool body_gives = coupling_any_body_gives(w);
    for (int32_t i = 0; i < w->cloth_count; i++) {
        cloth *c = w->cloths[i];
        c->scratch.strain_recovers = c->scratch.pinch_speed_cap = false;
        if (!strain_limit_on(&c->model)) continue;
        for (int32_t v = 0; v < c->model.vertex_count; v++)
            c->scratch.held[v] = c->model.pinned[v]                           ? STRAIN_FIXED
                                 : c->scratch.filter_kind[v] == FILTER_FIXED ? STRAIN_HEAVY
                                                                              : STRAIN_FREE;
        size_t bytes = 3 * (size_t)c->model.vertex_count * sizeof(double);
        memcpy(c->scratch.x_before_limit, c->scratch.x_new, bytes);
        /* where a body gives, coupling_strain_limit keeps v_new there itself */
        if (!body_gives) memcpy(c->scratch.v_before_limit, c->scratch.v_new, bytes);
        /* what this cloth's projection gives the pushed bodies is set aside (coupling_push_bodies);
         * in a pinch the first try's share is dropped with its positions */
        coupling_mark_reactions(w);
        coupling_strain_limit(w, c, h);
        if (projection_speed(c, h) > PINCH_SPEED) {
            memcpy(c->scratch.x_new, c->scratch.x_before_limit, bytes);
            memcpy(c->scratch.v_new, c->scratch.v_before_limit, bytes);
            coupling_drop_reactions(w);
            /* with a body that gives, the limit met at once: a bounded recovery kept the cloth
             * stretched, and it threw test_hammock.c's box up past the pins */
            c->scratch.strain_recovers = !body_gives;
            /* one way, the bounded recovery alone: with the cap too, the sewing test's seams
             * (sewing springs pulling panels together make such steps) stayed 1.2 mm open after 1 s */
            c->scratch.pinch_speed_cap = body_gives;
            coupling_strain_limit(w, c, h);
        }
        coupling_set_aside_reactions(w);
    }
}

/* The response's impulses and zones may stretch what the projection limited (a landing at
 * 20 m/s stops the front of the cloth while the rest still moves): while a triangle is beyond
 * its limit, project again, vertices resting on a collider or moved by the response made
 * heavy, and let the response check the paths the projection changed; for at most this many
 * rounds (the landing at 20 m/s takes 8). The response has the last word: where it leaves a
 * triangle beyond its limit, the step counts in stats.strain_violations. (Self collision's
 * proximity pass, which pushes the layers of a fold apart by up to twice the self thickness,
 * is not fought here round by round: inside the response, it and the projection take turns
 * sweep by sweep until both hold; collision_response.c.) */
enum { STRAIN_ROUNDS = 8 };

static double responded_excess(const sb_world *w)
{
    double excess = 0.0;
    for (int32_t i = 0; i < w->cloth_count; i++)
        if (strain_limit_on(&w->cloths[i]->model))
            excess = fmax(excess, strain_limit_excess(w->cloths[i], w->cloths[i]->scratch.x_new));
    return excess;
}

static void project_responded(sb_world *w, double h)
{
    for (int32_t i = 0; i < w->cloth_count; i++) {
        cloth *c = w->cloths[i];
        if (!strain_limit_on(&c->model)) continue;
        for (int32_t v = 0; v < c->model.vertex_count; v++) {
            bool touched = c->state.collided[v] || c->state.contacts[v].collider >= 0 ||
                           c->scratch.filter_kind[v] == FILTER_FIXED;
            /* a vertex pulled through a tangle leads its neighbours, like a pin (untangle.h) */
            bool pulled = c->scratch.untangling && c->scratch.untangling[v];
            c->scratch.held[v] = c->model.pinned[v] || pulled ? STRAIN_FIXED : touched ? STRAIN_HEAVY : STRAIN_FREE;
        }
        coupling_strain_limit(w, c, h);
    }
}

/* The collision response run again over paths something after it moved (keeping the marks of
 * the vertices it moved before), its time and counts added to the step's. */
static bool respond_again(sb_world *w, double h, collision_report *collisions, bool *needs_zones)
{
    collision_report again = {0};
    double start = wall_seconds();
    if (!collisions_resolve(&w->collision, w->cloths, w->cloth_count, w->colliders, w->collider_count, h,
                            zones_allowed(w, h), true, &again))
        return false;
    w->phases.pairs += again.pairs_seconds;
    w->phases.response += wall_seconds() - start - again.pairs_seconds;
    collisions->impulses += again.impulses, collisions->zone_rounds += again.zone_rounds;
    *needs_zones = again.needs_zones;
    return true;
}

static bool limit_responded_strain(sb_world *w, double h, step_outcome *outcome, collision_report *collisions,
                                   bool *violated)
{
    /* what the rounds give the pushed bodies is set aside for coupling_push_bodies */
    coupling_mark_reactions(w);
    for (int32_t round = 0; round < STRAIN_ROUNDS; round++) {
        if (responded_excess(w) <= STRAIN_SLACK) {
            coupling_set_aside_reactions(w);
            return true;
        }
        project_responded(w, h);
        /* the response marks the vertices it moves this time; those of the rounds before stay marked */
        bool needs_zones = false;
        if (!respond_again(w, h, collisions, &needs_zones)) return false;
        if (needs_zones) {
            *outcome = STEP_NEEDS_ZONES;
            return true;
        }
    }
    coupling_set_aside_reactions(w);
    *violated = responded_excess(w) > STRAIN_SLACK;
    return true;
}

/* The response may push a strand vertex through a collider (it keeps strands off each other
 * and off cloth, not off colliders: strand_collide.h): while the sweep stops some, let the
 * response check the paths it changed, for at most this many rounds. The response has the
 * last word, so strands never cross each other or cloth within a step, colliders or not; a
 * vertex it leaves beyond a collider's surface is pushed out by the contacts from the next
 * step on. */
enum { STRAND_SWEEP_ROUNDS = 4 };

static bool sweep_responded_strands(sb_world *w, double h, step_outcome *outcome, collision_report *collisions)
{
    for (int32_t round = 0; round < STRAND_SWEEP_ROUNDS; round++) {
        if (sweep_strands(w) == 0) return true;
        bool needs_zones = false;
        if (!respond_again(w, h, collisions, &needs_zones)) return false;
        if (needs_zones) {
            *outcome = STEP_NEEDS_ZONES;
            return true;
        }
    }
    return true;
}

static void accept_step(sb_world *w, double h, double end, bool lands, int32_t contacts, int32_t iterations,
                        const collision_report *collisions, bool strain_violated)
{
    coupling_push_bodies(w);
    w->stats.strain_violations += strain_violated;
    w->stats.rigid_pair_tests += w->rigid.pair_tests, w->stats.rigid_body_moves += w->rigid.body_moves;
    w->stats.collisions += collisions->impulses;
    w->stats.impact_zones += collisions->zone_rounds > 0;
    w->stats.last_contacts = contacts;
    for (int32_t i = 0; i < w->cloth_count; i++) cloth_commit_step(w->cloths[i], h);
    w->time = lands ? end : w->time + h;
    w->stats.steps++;
    w->stats.last_step = h;
    w->stats.last_cg_iterations = iterations;
    if (++w->accepted_in_row >= w->def.grow_after) {
        w->preferred_step = fmin(2.0 * w->preferred_step, w->def.max_step);
        w->accepted_in_row = 0;
    }
}

/* Everything back to the step's start and the next try at half the length; an error when
 * that would be shorter than min_step. */
static sb_result reject_step(sb_world *w, double h, step_outcome outcome, int32_t failed, const step_report *report)
{
    for (int32_t i = 0; i < w->cloth_count; i++) contacts_rollback(w->cloths[i]);
    rigid_system_undo_advance(&w->rigid);
    w->stats.rejected_steps++;
    w->accepted_in_row = 0;
    w->preferred_step = 0.5 * h;
    if (w->preferred_step >= w->def.min_step) return SB_OK;
    w->preferred_step = w->def.max_step;
    w->failure = (sb_failure){.kind = failure_kind(outcome), .object_kind = SB_OBJECT_CLOTH, .object = failed,
                              .cg_iterations = report->cg_iterations, .time = w->time, .step = h,
                              .cg_residual = report->cg_residual, .strain_change = report->max_strain_change,
                              .speed = report->max_speed};
    return error_set(SB_ERROR_SOLVER,
                     "cloth %d: no step of %g s or more works at t = %.6g s: %s "
                     "(strain change %.3g, CG residual %.3g after %d iterations, speed %.3g m/s); %s",
                     (int)failed, w->def.min_step, w->time, outcome_reason(outcome), report->max_strain_change,
                     report->cg_residual, (int)report->cg_iterations, report->max_speed, outcome_advice(outcome));
}

/* Adaptive implicit Euler: each step moves the colliders, prepares the contacts, solves every
 * cloth, limits its strain, resolves the collisions (limiting the strain again where they
 * moved the cloth), then is accepted or tried again at half its length. */
static sb_result step_implicit(sb_world *w, double end)
{
    implicit_params params = {
        .gravity = {w->def.gravity[0], w->def.gravity[1], w->def.gravity[2]},
        .cg_tolerance = w->def.cg_tolerance,
        .cg_max_iterations = w->def.cg_max_iterations,
        .max_strain_change = w->def.max_strain_change,
        .max_speed = w->def.max_speed,
    };
    /* until the world's first step is accepted, the cloths' warm accelerations are gravity and
     * the fields' push (cloth_fields.h); a cloth added to a world that has stepped starts with
     * its gravity alone */
    if (w->stats.steps == 0 && w->field_count > 0 && w->time < end)
        for (int32_t i = 0; i < w->cloth_count; i++) {
            field_list fields = world_fields_on(w, i, w->time);
            cloth_seed_field_acceleration(w->cloths[i], w->def.gravity, &fields);
        }
    while (w->time < end) {
        bool lands;
        double h = next_step(w, end, &lands);
        sb_result moved = move_colliders(w, h);
        if (moved != SB_OK) return moved;
        if (untangle_due(&w->untangle) && (!untangle_analyse(&w->untangle, w->cloths, w->cloth_count, w->colliders,
                                                             w->collider_count) ||
                                           !collisions_set_untangle(&w->collision, &w->untangle))) {
            rigid_system_undo_advance(&w->rigid);
            return out_of_memory(w, "analysing intersections");
        }
        int32_t contacts = 0;
        for (int32_t i = 0; i < w->cloth_count; i++)
            contacts += contacts_prepare(w->cloths[i], w->colliders, w->collider_count, h, params.gravity);
        int32_t failed = -1, iterations = 0;
        step_report report = {0};
        collision_report collisions = {0};
        step_outcome outcome;
        if (!solve_cloths(w, h, &params, &report, &failed, &iterations, &outcome)) {
            rigid_system_undo_advance(&w->rigid);
            return out_of_memory(w, "coupling bodies to cloth");
        }
        /* a body that feels the cloth and would not hold over this step: half of it (never
         * below min_step, where the step is taken as it is) */
        if (outcome == STEP_ACCEPTED && 0.5 * h >= w->def.min_step && !coupling_stable(w))
            outcome = STEP_STIFF_COUPLING;
        bool strain_violated = false;
        if (outcome == STEP_ACCEPTED) limit_solved_strain(w, h);
        if (outcome == STEP_ACCEPTED) untangle_pull(&w->untangle, w->cloths, w->cloth_count, h);
        if (outcome == STEP_ACCEPTED && (!resolve_collisions(w, h, &outcome, &collisions) ||
                                         (outcome == STEP_ACCEPTED &&
                                          !limit_responded_strain(w, h, &outcome, &collisions, &strain_violated)))) {
            rigid_system_undo_advance(&w->rigid);
            return out_of_memory(w, "resolving collisions");
        }
        if (outcome == STEP_ACCEPTED && !sweep_responded_strands(w, h, &outcome, &collisions)) {
            rigid_system_undo_advance(&w->rigid);
            return out_of_memory(w, "resolving collisions");
        }
        if (outcome == STEP_ACCEPTED) {
            accept_step(w, h, end, lands, contacts, iterations, &collisions, strain_violated);
            continue;
        }
        sb_result rejected = reject_step(w, h, outcome, failed, &report);
        if (rejected != SB_OK) return rejected;
    }
    return SB_OK;
}

/* The whole world as one ODE: per cloth [x (3n), v (3n)]. Pinned vertices move with their
 * target's velocity and do not accelerate. */
static void world_derivative(void *ctx, double t, const double *state, double *dxdt)
{
    sb_world *w = ctx;
    size_t offset = 0;
    for (int32_t ci = 0; ci < w->cloth_count; ci++) {
        cloth *c = w->cloths[ci];
        size_t len = 3 * (size_t)c->model.vertex_count;
        const double *x = state + offset, *v = state + offset + len;
        double *dx = dxdt + offset, *dv = dxdt + offset + len;
        field_list fields = world_fields_on(w, ci, t);
        cloth_forces(c, t, x, v, w->def.gravity, &fields, c->scratch.force);
        for (int32_t i = 0; i < c->model.vertex_count; i++)
            for (int a = 0; a < 3; a++) {
                size_t k = 3 * (size_t)i + (size_t)a;
                dx[k] = v[k];
                dv[k] = c->scratch.force[k] / c->model.mass[i];
            }
        for (int32_t p = 0; p < c->model.pin_count; p++) {
            double pos[3], vel[3];
            cloth_pin_state(c, p, t, pos, vel);
            size_t k = 3 * (size_t)c->model.pins[p];
            for (int a = 0; a < 3; a++) dx[k + a] = vel[a], dv[k + a] = 0.0;
        }
        offset += 2 * len;
    }
}

static void gather_state(const sb_world *w, double *state, bool gather)
{
    size_t offset = 0;
    for (int32_t ci = 0; ci < w->cloth_count; ci++) {
        cloth *c = w->cloths[ci];
        size_t bytes = 3 * (size_t)c->model.vertex_count * sizeof(double);
        if (gather) {
            memcpy(state + offset, c->state.x, bytes);
            memcpy(state + offset + 3 * (size_t)c->model.vertex_count, c->state.v, bytes);
        } else {
            memcpy(c->state.x, state + offset, bytes);
            memcpy(c->state.v, state + offset + 3 * (size_t)c->model.vertex_count, bytes);
        }
        offset += 6 * (size_t)c->model.vertex_count;
    }
}

static sb_result step_explicit(sb_world *w, double end)
{
    static const ode_method methods[] = {ODE_EULER, ODE_EULER, ODE_MIDPOINT, ODE_RK4};
    ode_method method = methods[w->def.integrator];
    size_t dim = 0;
    for (int32_t i = 0; i < w->cloth_count; i++) dim += 6 * (size_t)w->cloths[i]->model.vertex_count;
    ode_model model = {dim, w, world_derivative};
    ode_workspace ws;
    double *state = malloc((dim + 1) * sizeof *state), *next = malloc((dim + 1) * sizeof *next);
    if (!state || !next || !ode_workspace_init(&ws, dim)) {
        free(state), free(next);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory for the explicit integrator");
    }
    gather_state(w, state, true);
    double tol = w->def.error_tolerance, exponent = 1.0 / (ode_order(method) + 1);
    sb_result result = SB_OK;
    while (w->time < end) {
        bool lands;
        double h = next_step(w, end, &lands);
        double err = ode_step_doubling(&model, method, w->time, h, state, next, &ws);
        /* error per step grows as h^(p+1): rescale the step towards the tolerance */
        double factor = err > 0.0 ? 0.9 * pow(tol / err, exponent) : 2.0;
        if (err <= tol) {
            memcpy(state, next, dim * sizeof *state);
            w->time = lands ? end : w->time + h;
            w->stats.steps++;
            w->stats.last_step = h;
            if (!lands || factor < 1.0)
                w->preferred_step = fmin(h * fmin(fmax(factor, 1.0), 2.0), w->def.max_step);
            continue;
        }
        w->stats.rejected_steps++;
        w->preferred_step = h * fmax(fmin(factor, 0.5), 0.1);
        if (w->preferred_step < w->def.min_step) {
            w->preferred_step = w->def.max_step;
            w->failure = (sb_failure){.kind = SB_FAILURE_TOLERANCE, .time = w->time, .step = h};
            result = error_set(SB_ERROR_SOLVER,
                               "explicit integrator: error %.3g above error_tolerance %g even with a "
                               "step of %g s at t = %.6g s; the cloth is too stiff for an explicit "
                               "method, use the implicit integrator",
                               err, tol, w->def.min_step, w->time);
            break;
        }
    }
    gather_state(w, state, false);
    ode_workspace_free(&ws);
    free(state);
    free(next);
    return result;
}

sb_result world_step_to(sb_world *w, double time)
{
    if (w->def.integrator == SB_INTEGRATOR_IMPLICIT_EULER) return step_implicit(w, time);
    return step_explicit(w, time);
}
