/* Compound bodies: several convex parts (spheres, boxes, convex hulls, capsules, cylinders,
 * cones) as one rigid body.
 * Each part is described, checked and built as a body of its shape would be (its fields are
 * those of sb_body_def of the same names); their solids add up to the body's mass properties
 * (rigid_mass_properties.c: mass_properties_combine), and each collides on its own
 * (rigid_narrowphase.c). */
#ifndef SB_RIGID_COMPOUND_H
#define SB_RIGID_COMPOUND_H

#include "rigid_body.h"

/* Most parts of one compound body. */
#define COMPOUND_PARTS_MAX 4096

/* Part i of a compound definition as the definition of a body of its shape (type, and no
 * material: only its shape is read). */
sb_body_def compound_part_def(const sb_body_def *d, int32_t i);
/* The error in sb_last_error() said again of part i. */
sb_result compound_part_error(sb_result r, int32_t i);
/* Into m->parts: each part as built (in world space) by `build` from its definition; *center
 * the mean of the parts' centres. */
sb_result compound_build(const sb_body_def *d, rigid_body_model *m, vec3 *center,
                         sb_result (*build)(const sb_body_def *part, rigid_body_model *out, vec3 *center));
/* The parts moved from world space into the body frame, p_b = rt p + shift, the body's reach
 * (m->radius) and where each part's placed copy starts in the narrow phase's arrays. */
void compound_to_body_frame(rigid_body_model *m, mat3 rt, vec3 shift);
/* World bounds of part i at the pose (x, R). */
aabb compound_part_bounds(const rigid_part *p, vec3 x, mat3 r);
void compound_free(rigid_body_model *m);

#endif
