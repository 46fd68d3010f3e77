/* One implicit-Euler step of a cloth (Baraff & Witkin 1998): assemble, filtered CG,
 * and the checks that decide whether the step is kept. */
#ifndef SB_CLOTH_STEP_H
#define SB_CLOTH_STEP_H

#include "cloth.h"
#include "force_field.h"

typedef struct implicit_params {
    double gravity[3];
    double cg_tolerance;
    int32_t cg_max_iterations;
    double max_strain_change;
    double max_speed;          /* a free vertex faster than this: the energy blew up */
    field_list fields;         /* the world's fields on this cloth (time: ignored, the step's end) */
    const struct coupled_bodies *coupling; /* bodies solved with the cloth (coupled_solve.h), or NULL */
} implicit_params;

typedef enum step_outcome {
    STEP_ACCEPTED = 0,
    STEP_TOO_MUCH_STRAIN,  /* some triangle's stretch changed more than allowed */
    STEP_CG_FAILED,        /* the linear solve did not get anywhere near the tolerance */
    STEP_NOT_FINITE,       /* NaN or Inf in the new state */
    STEP_TOO_FAST,         /* a free vertex faster than max_speed */
    STEP_NEEDS_ZONES,      /* impulses left collisions that only impact zones would end */
    STEP_STIFF_COUPLING    /* a body feeling the cloth is too light for it over the step
                              (two_way_coupling.h) */
} step_outcome;

typedef struct step_report {
    int32_t cg_iterations;
    double cg_residual;
    double max_strain_change;
    double max_speed;          /* of a free vertex */
    double assembly_seconds, solve_seconds; /* wall clock of cloth_build_system and cg_solve */
} step_report;

/* Fills c->system, c->rhs, c->z (pinned Δv) and c->correction for a step t -> t + h. */
void cloth_build_system(cloth *c, double t, double h, const implicit_params *params);
/* Computes the state at t + h into c->x_new, c->v_new; c->x, c->v are untouched. */
step_outcome cloth_implicit_step(cloth *c, double t, double h, const implicit_params *params,
                                 step_report *report);
/* Makes x_new, v_new the current state of a step of size h. */
void cloth_commit_step(cloth *c, double h);

#endif
