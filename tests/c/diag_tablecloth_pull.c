/* Diagnostic, not a ctest test (built on demand: `cmake --build build --target diag_tablecloth_pull`,
 * then `OMP_NUM_THREADS=1 build/tests/diag_tablecloth_pull --verbose`): it fails on main.
 * Issue 32's tablecloth trick: a 0.6 m cloth of the library's default cloth (n² vertices, friction
 * 0.5) lying on a static table (a box body for the cup, a box collider for the cloth), its +x edge
 * pinned, and on its middle a 0.3 kg box cup (8 x 8 x 10 cm) that feels the cloth; after 0.25 s the
 * pins go 0.5 m along +x, in 0.1 s (fast) or 2 s (slow). What should hold: resting, the cup stands on
 * the cloth (its bottom 2 x 7 mm above the table); fast, Coulomb friction (μ 0.5 cloth-cup, 0.25
 * cup-table) moves it 34 mm at most, upright; slow, it moves with the cloth (0.5 m); with a
 * frictionless cloth it stays put.
 *
 * On main (2026-11-27, grids 21², 25², 29², default steps; 2 min 15 s on one loaded core for all four):
 *   resting: the cup's bottom sinks to 3.9, 4.3, 1.4 mm above the table (the cloth's layer is 14 mm),
 *     tilting by up to 0.16-0.20 rad, drifting 5-12 mm;
 *   fast: carried 0.261, 0.061, 0.331 m, up to 0.96, 0.42, 1.17 m/s (Coulomb: 0.33), thrown up to 57,
 *     12, 47 mm, tilted 2.25, 0.22, 2.37 rad (on its side or over at 21² and 29²);
 *   slow: moved 0.408, 0.527, 0.559 m, but tilted 1.68, 0.25, 1.77 rad (tipped over at 21² and 29²);
 *   frictionless, slow: dragged 0.586, 0.866, 0.496 m (thrown 46 mm up and over at 25²).
 * The 25² grid nearly passes the done-when (fast 6 cm, slow 0.53 m, upright) by chance: 21², 29², a
 * 10 cm cup (0.57 m carried) or steps of at most 0.01 s (on its side) fail. An 11² or 13² grid (one
 * vertex under the cup) fails worse: at 13² fast 0.085 m, thrown 5 cm; slow 0.48 m on its side.
 * Again on 76957be (2026-11-27 evening, after the squeeze springs, the strain limit's cap and the
 * rest since), grids 21², 25², 29², one run each (`OMP_NUM_THREADS=1 build/tests/diag_tablecloth_pull
 * --verbose`), still failing all four tests:
 *   resting: bottom at least 3.9, 4.8, 6.6 mm above the table, drifting 2-4 mm, tilting 0.07-0.17 rad;
 *   fast: carried 0.027, 0.357, 0.012 m (21² and 29² upright, within Coulomb's 34 mm; 25² tipped,
 *     2.06 rad, 1.2 m/s);
 *   slow: moved 0.395, 0.232, 0.004 m, tilting 0.08-0.15 rad: dragged along on 21² only;
 *   frictionless, slow: dragged 0.422, 0.247, 0.517 m (the edge springs still push it like a wall).
 *
 * What carries the cup (measured with the library instrumented: the cup's momentum from the coupled
 * solve, split into vertex and edge contacts, the contacts' friction, the response, the strain limit):
 * - A cloth vertex takes one collider, the one it is deepest in (cloth_contact.c, deepest_collider),
 *   the table winning the tie: the vertices squeezed between cup and table are held by the table,
 *   none by the cup (at every frame's end of the 13² runs), so no vertex contact carries the cup. It sinks
 *   through the cloth's layer: at 13² onto the table's rigid contact (bottom 1.5 mm above the table,
 *   4 rigid contacts carrying its 2.94 N), at 21²-29² to 1.4-4.3 mm.
 * - Its push comes from the coupled solve's edge contacts (coupled_solve.c: the cup's sharp bottom
 *   edges pressing on the cloth's edges through implicit springs, frictionless): 13², frictionless,
 *   pulled in 2 s: the solve gave +0.66 N·s along x, all of it the edge contacts' (+0.659), the
 *   response +0.044, the strain limit +0.006, the contacts' friction 0. With the cup sunk into the
 *   cloth's layer, the cloth's edges meet its bottom edges from the side, the springs' normals tilted
 *   towards the horizontal: the pulled cloth pushes the cup like a wall, however low its friction.
 *   4-16% of these springs pull (negative impulse: the spring is not one-sided).
 * - The table's body lowered 12 mm (the cup cannot reach its rigid contact): the cup sinks all the
 *   same (bottom 4 mm above the table, held by the edge springs) and a frictionless 2 s pull drags it
 *   0.60 m. With feels_cloth 0 the cup stands on the table through the cloth, which blows up (a
 *   vertex at 2.6e3 m/s at frame 8, fast; frame 34, slow).
 * - Found on the way: the bodies' own step takes substeps of rigid_max_step (1/240 s), so over a
 *   cloth step of h its collider's points move (x1 - x0) / h = v0 + ½ g h while the body ends at
 *   v1 = v0 + g h; the held vertices follow the points and the solve stops them, so a body resting
 *   on cloth ends every step with ½ g h downward (-0.205 m/s at 1/24 s) without moving. Resting on a
 *   tablecloth, that speed met the table's speculative rigid contact: kicks of 31-36 N, +0.33 m/s.
 *   Since fixed for resting bodies that fly free (two_way_coupling.h, "Resting on cloth").
 *
 * Tried and not kept (the library patch is described in the report of branch tablepull):
 * (a) bodies that feel the cloth ending their step at x0 + h v1, q1 = exp(h ω1) q0 (consistent with
 *     the cloth's backward Euler): with (b) the resting cup's speed stays within 0.013 m/s, but (a)
 *     alone makes the trick no better: 13², 25²: fast 0.150, 0.109 m; slow 0.505, 0.559 m;
 *     frictionless 0.533, 0.618 m; and test_hammock changes (passing): sag +9.4% (was +7.1%), the
 *     box losing 0.43 J in its 2 cm free fall (every awake body that feels the cloth, touching it or
 *     not, gets first-order positions);
 * (b) with (a), a vertex within reach of a body that feels the cloth held on that body first, and
 *     pushed out of the other collider by a stiff implicit spring in the coupled solve (h² κ = 20 x
 *     the body's mass per vertex, its impulse counted as the cloth's from outside, so that the
 *     vertex's contact with the cup carries the cup's weight as its normal force): while settling the
 *     cup's bottom stays 13.8-13.9 mm above the table on every grid (14 mm: on the cloth), and at rest
 *     on 25² it stands still (centre 0.0648-0.0651 m, tilt at most 0.033 rad, no rigid contact); but
 *     at rest on 21² it is thrown 45 mm up and tilts 0.63 rad, on 29² a step fails in frame 2 (a
 *     vertex at 3.9e4 m/s), and the pulls on 25² get worse: fast, the cup is thrown up at 10 m/s
 *     (a sticking contact carries the pulled cloth's tension unbounded within the step, friction
 *     being checked against μ N only after it; the stiff supports turn the tipping into a vertical
 *     kick); slow, a step fails at 1.02 s (4e4 m/s); frictionless, still dragged 0.51 m (a vertex in
 *     the band beyond the contact distance, near the cup's bottom edge, is held at its distance and
 *     pushes the cup as the cloth slides under the edge);
 * (c) with (a) and (b), contacts on such bodies never sticking (only kinetic friction, μ N from the
 *     last step, so bounded): resting, the cup walks 0.18 and 0.07 m and tips over (21², 25²), and
 *     29² fails in frame 1.
 * What a fix needs, by these figures: a vertex squeezed between two colliders held against both in
 * the solve (the cup's weight carried by the cloth, not by a rigid contact through it nor by edge
 * springs at its side); a sticking contact's tangential impulse bounded by μ N within the step; and
 * the band beyond the contact distance not holding a vertex that slides under a body's edge. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "world.h"

static const double FPS = 24.0;
#define SPAN 0.6       /* m, the cloth's side */
#define PULL 0.5       /* m, how far its +x edge is pulled */
#define SETTLE 0.25    /* s, the cup settling on the cloth before the pull */
#define CUP_MASS 0.3   /* kg */

static const double CUP_HALF[3] = {0.04, 0.04, 0.05}; /* an 8 x 8 x 10 cm box */

typedef struct pull_run {
    double moved;      /* m, the cup's centre along x from the pull's start to the end */
    double rest_z;     /* m, the cup's centre height when the pull starts */
    double lowest_bottom; /* m, the cup's bottom above the table, least over the settling */
    int rigid_contacts; /* the cup's rigid contacts (with the table) when the pull starts */
    double lift;       /* m, the highest the cup's centre rose above rest_z */
    double tilt;       /* rad, the most the cup's vertical leaned */
    double speed;      /* m/s, the cup's largest horizontal speed */
    double end_z;      /* m, the cup's centre height at the end */
    bool failed;       /* a step failed (the world's message printed) */
} pull_run;

/* A 2 m table whose top is z = 0 (a static box body the cup meets, a box collider the cloth
 * meets), a SPAN cloth of n² vertices lying on it at the contact distance, its +x edge pinned, the
 * cup on the cloth's middle at the contact distance, feeling the cloth. After SETTLE s the pins go
 * PULL m along +x in pull_time s (pull_time 0: no pull); the run lasts until `end` s. The cloth's
 * friction is cloth_friction, the colliders' 1 (the defaults), so the cloth-cup and cloth-table
 * contacts take μ = cloth_friction; the cup's and table's bodies 0.5 each (μ = 0.25). */
static pull_run pull_cloth(int32_t n, double pull_time, double cloth_friction, double end)
{
    solid_mesh table;
    double reach;
    sb_world *w = world_with_table(&table, &reach);
    cr_assert(w, "%s", sb_last_error());
    grid_mesh sheet = grid_mesh_make(n, SPAN, reach);
    sb_cloth_def cd = grid_cloth_def(&sheet);
    cd.friction = cloth_friction;
    int32_t *pins = malloc((size_t)n * sizeof *pins);
    double *targets = malloc(3 * (size_t)n * sizeof *targets);
    for (int32_t j = 0; j < n; j++) pins[j] = j * n + n - 1;
    cd.pin_count = n, cd.pins = pins;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth_id), SB_OK, "%s", sb_last_error());

    double cup_center[3] = {0.0, 0.0, 2.0 * reach + CUP_HALF[2]};
    sb_body_def bd = sb_default_body_def();
    bd.shape = SB_SHAPE_BOX, bd.mass = CUP_MASS, bd.feels_cloth = 1;
    memcpy(bd.half_extents, CUP_HALF, sizeof bd.half_extents);
    memcpy(bd.center, cup_center, sizeof cup_center);
    sb_body_id cup;
    cr_assert_eq(sb_world_add_body(w, &bd, &cup), SB_OK, "%s", sb_last_error());
    solid_mesh cup_mesh = box_mesh(CUP_HALF, cup_center);
    sb_collider_def ccd = solid_collider_def(&cup_mesh);
    sb_collider_id cup_collider;
    cr_assert_eq(sb_world_add_collider(w, &ccd, &cup_collider), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(w, cup_collider, cup), SB_OK, "%s", sb_last_error());

    pull_run run = {.lowest_bottom = INFINITY};
    sb_body_state s;
    double x0 = 0.0;
    for (int f = 1; f <= (int)lround(end * FPS); f++) {
        double t = f / FPS;
        if (sb_world_step_to(w, t) != SB_OK) {
            fprintf(stderr, "grid %d², pull in %.2f s, friction %.2f: frame %d: %s\n", (int)n, pull_time,
                    cloth_friction, f, sb_last_error());
            run.failed = true;
            break;
        }
        sb_body_get_state(w, cup, &s);
        double m[16];
        sb_body_get_transform(w, cup, m);
        run.tilt = fmax(run.tilt, acos(fmin(1.0, m[10]))); /* the cup's z axis against the world's */
        if (t <= SETTLE + 1e-9) run.lowest_bottom = fmin(run.lowest_bottom, s.position[2] - CUP_HALF[2]);
        if (fabs(t - SETTLE) < 1e-9) { /* the pull starts */
            x0 = s.position[0], run.rest_z = s.position[2], run.rigid_contacts = s.contacts;
            if (pull_time > 0.0) {
                const cloth *c = w->cloths[cloth_id.index];
                for (int32_t j = 0; j < n; j++)
                    for (int a = 0; a < 3; a++)
                        targets[3 * j + a] = c->state.x[3 * (size_t)pins[j] + a] + (a == 0 ? PULL : 0.0);
                cr_assert_eq(sb_cloth_set_pin_targets(w, cloth_id, SETTLE + pull_time, targets, n), SB_OK, "%s",
                             sb_last_error());
            }
        }
        if (t > SETTLE) {
            run.lift = fmax(run.lift, s.position[2] - run.rest_z);
            run.speed = fmax(run.speed, hypot(s.linear_velocity[0], s.linear_velocity[1]));
        }
    }
    run.moved = s.position[0] - x0, run.end_z = s.position[2];
    sb_world_destroy(w);
    grid_mesh_free(&sheet);
    solid_mesh_free(&table), solid_mesh_free(&cup_mesh);
    free(pins), free(targets);
    return run;
}

static const int32_t GRIDS[] = {21, 25, 29}; /* 3, 2.5, 2.1 cm between vertices */
#define GRID_COUNT (int)(sizeof GRIDS / sizeof *GRIDS)

static void log_run(const char *what, int32_t n, const pull_run *r)
{
    cr_log_info("%s, %d² cloth: cup moved %+.3f m, fastest %.3f m/s, rose %.3f m, tilted up to %.3f rad, centre "
                "at %.4f m at the end (%.4f m at the pull's start, %d rigid contacts then)%s",
                what, (int)n, r->moved, r->speed, r->lift, r->tilt, r->end_z, r->rest_z, r->rigid_contacts,
                r->failed ? "; a step FAILED" : "");
}

/* Resting: the cup stands on the cloth, which lies on the table: its bottom stays about two contact
 * distances (cloth to table, cup to cloth: 2 x 7 mm) above the table, not on it through the cloth. */
Test(tablecloth_pull, the_cup_rests_on_the_cloth, .timeout = 600)
{
    double reach = sb_default_cloth_def().thickness + sb_default_collider_def().thickness;
    int bad = 0;
    for (int k = 0; k < GRID_COUNT; k++) {
        pull_run r = pull_cloth(GRIDS[k], 0.0, 0.5, SETTLE + 0.5);
        log_run("no pull", GRIDS[k], &r);
        cr_log_info("  the cup's bottom at least %.4f m above the table while settling (the cloth holds it at %.4f m)",
                    r.lowest_bottom, 2.0 * reach);
        bad += r.failed || r.lowest_bottom < 1.5 * reach || r.rigid_contacts > 0 || fabs(r.moved) > 0.002 || r.tilt > 0.02;
    }
    cr_expect_eq(bad, 0, "%d of %d grids: the cup sank through the cloth onto the table, or moved", bad, GRID_COUNT);
}

/* Fast (0.5 m in 0.1 s, 5 m/s): under Coulomb friction μ = 0.5 the cloth changes the cup's speed by
 * at most μ g t_c, t_c = (SPAN/2 + the cup's half width) / 5 m/s = 0.068 s: 0.33 m/s, the cup moving
 * ½ μ g t_c² = 11 mm meanwhile, then sliding on the table (μ = 0.25) (μ g t_c)² / (2 · 0.25 g) = 22
 * mm: 34 mm in all at most. It stays on the table, upright. */
Test(tablecloth_pull, a_fast_pull_leaves_the_cup_on_the_table, .timeout = 600)
{
    double mu = 0.5, g = 9.81, t_c = (0.5 * SPAN + CUP_HALF[0]) / (PULL / 0.1);
    double speed_bound = mu * g * t_c, reach_bound = 0.5 * mu * g * t_c * t_c + speed_bound * speed_bound / (2 * 0.25 * g);
    int bad = 0;
    for (int k = 0; k < GRID_COUNT; k++) {
        pull_run r = pull_cloth(GRIDS[k], 0.1, mu, SETTLE + 0.1 + 0.5);
        log_run("pulled in 0.1 s", GRIDS[k], &r);
        bad += r.failed || r.speed > 1.1 * speed_bound || fabs(r.moved) > reach_bound + 0.01 || r.tilt > 0.1 ||
               r.lift > 0.01;
    }
    cr_log_info("Coulomb: at most %.3f m/s and %.3f m", speed_bound, reach_bound);
    cr_expect_eq(bad, 0, "%d of %d grids: the cup was carried off, thrown up or turned over", bad, GRID_COUNT);
}

/* Slow (0.5 m in 2 s, 0.25 m/s): μ g = 4.9 m/s² brings the cup to the cloth's speed within 0.05 s
 * (6 mm of slip) and it slides on by as much when the pins stop: it moves with the cloth, 0.5 m. */
Test(tablecloth_pull, a_slow_pull_drags_the_cup_along, .timeout = 600)
{
    int bad = 0;
    for (int k = 0; k < GRID_COUNT; k++) {
        pull_run r = pull_cloth(GRIDS[k], 2.0, 0.5, SETTLE + 2.0 + 0.5);
        log_run("pulled in 2 s", GRIDS[k], &r);
        bad += r.failed || fabs(r.moved - PULL) > 0.05 || r.tilt > 0.1 || r.lift > 0.01;
    }
    cr_expect_eq(bad, 0, "%d of %d grids: the cup did not move with the cloth, upright", bad, GRID_COUNT);
}

/* Control: a frictionless cloth pulled slowly gives the cup no horizontal force (a flat cloth under a
 * flat bottom pushes along the normal only): it stays where it is. */
Test(tablecloth_pull, a_frictionless_cloth_slides_from_under_the_cup, .timeout = 600)
{
    int bad = 0;
    for (int k = 0; k < GRID_COUNT; k++) {
        pull_run r = pull_cloth(GRIDS[k], 2.0, 0.0, SETTLE + 2.0 + 0.5);
        log_run("frictionless, pulled in 2 s", GRIDS[k], &r);
        bad += r.failed || fabs(r.moved) > 0.01 || r.tilt > 0.1 || r.lift > 0.01;
    }
    cr_expect_eq(bad, 0, "%d of %d grids: a frictionless cloth moved the cup", bad, GRID_COUNT);
}
