/* A force field of the world (simbake.h, "Force fields", has the formulas): its definition,
 * its straight-line path between two times (as pins and colliders move), and the force it
 * gives per unit area of cloth at a point, with the derivatives the implicit solve takes. */
#ifndef SB_FORCE_FIELD_H
#define SB_FORCE_FIELD_H

#include <stdbool.h>

#include "math3.h"
#include "simbake.h"

/* Where a field is and how strong, at one time. */
typedef struct field_pose {
    vec3 origin, axis; /* axis: unit */
    double strength;
} field_pose;

typedef struct force_field {
    sb_field_def def;             /* as given, the axis normalised */
    field_pose from, to;          /* state: the path from time_from to time_to */
    double time_from, time_to;
    double *cloth_weight;         /* weight_count: of cloths 0..; cloths beyond have weight 1 */
    int32_t weight_count;
} force_field;

/* The fields acting on one cloth (index `cloth`) at time `time`. */
typedef struct field_list {
    force_field *const *fields;
    int32_t count;
    int32_t cloth;
    double time;
} field_list;

/* Checks the definition; SB_OK or the error, message set. */
sb_result field_validate(const sb_field_def *def);
/* A field standing still at its definition's pose from `time`, felt with weight 1 by every cloth. */
void field_init(force_field *f, const sb_field_def *def, double time);
void field_free(force_field *f);

field_pose field_pose_at(const force_field *f, double t);
double field_cloth_weight(const force_field *f, int32_t cloth);

/* What a field does to one point at one time. */
typedef struct field_sample {
    double falloff;   /* fo, the cloth's weight included; 0: the field does nothing here */
    double strength;  /* s, noise included */
    vec3 to_point;    /* d */
} field_sample;

field_sample field_sample_at(const force_field *f, const field_pose *pose, double weight, double t, vec3 x);

/* Force per m² at x moving at v (not for wind), with ∂/∂x and ∂/∂v of it where the solve
 * takes them (zero where it does not: see the .c). */
vec3 field_point_force(const force_field *f, const field_pose *pose, const field_sample *s, vec3 x, vec3 v,
                       mat3 *dfdx, mat3 *dfdv);

#endif
