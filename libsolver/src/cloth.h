/* A cloth: topology, rest state, masses, pins and its current state (x, v). */
#ifndef SB_CLOTH_H
#define SB_CLOTH_H

#include <stdint.h>

#include "bsr.h"
#include "cg.h"
#include "cloth_energy.h"
#include "simbake.h"

typedef struct cloth_material {
    double k_stretch, k_shear, k_bend; /* N/m, N/m, N·m */
    double damping;                    /* s: k_d = damping * k for every condition */
    double air_drag;                   /* kg/(m² s) */
} cloth_material;

typedef struct cloth {
    int32_t vertex_count;
    double *x, *v;        /* vertex_count x 3, current state */
    double *mass;         /* vertex_count, kg (area x density, lumped) */
    double *vertex_area;  /* vertex_count, m² (a third of each adjacent triangle) */

    int32_t triangle_count; /* triangles with area only */
    int32_t *triangles;     /* triangle_count x 3 */
    tri_rest *rest;         /* triangle_count */

    int32_t hinge_count;
    int32_t *hinges;             /* hinge_count x 4: edge x0-x1, wings x2 and x3 */
    double *hinge_weight;        /* 3|e|²/(A1+A2) at rest, so bending is mesh-independent */
    double *hinge_rest_angle;

    cloth_material material;

    int32_t pin_count;
    int32_t *pins;
    double *pin_from, *pin_to;   /* pin_count x 3: straight path between two times */
    double pin_time_from, pin_time_to;
    uint8_t *filter_kind;        /* vertex_count, FILTER_FIXED for pinned vertices */

    /* implicit solver: matrix pattern built once, element block tables, work vectors */
    bsr system;
    int32_t *triangle_blocks;    /* triangle_count x 9 */
    int32_t *hinge_blocks;       /* hinge_count x 16 */
    double *force, *rhs, *dv, *z, *x_new, *v_new, *correction; /* vertex_count x 3 each */
    double *accel;               /* vertex_count x 3: Δv/h of the last accepted step */
    cg_workspace cg;

    sb_cloth_info info;
} cloth;

/* Validates the definition and builds the cloth at `time` under `gravity`; on failure
 * returns the error (message set) and *out stays NULL. */
sb_result cloth_create(const sb_cloth_def *def, double time, const double gravity[3], cloth **out);
void cloth_destroy(cloth *c);

/* Target position and velocity of pin p at time t. */
void cloth_pin_state(const cloth *c, int32_t p, double t, double pos[3], double vel[3]);

double cloth_kinetic_energy(const cloth *c, const double *v);

#endif
