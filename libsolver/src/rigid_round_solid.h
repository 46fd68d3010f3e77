/* Cylinders and cones: solids of revolution whose section through the axis is a polygon in
 * (ρ, t), ρ the distance from the axis and t the height above the base: a cylinder's rectangle
 * (0,0) (r,0) (r,H) (0,H), a cone's triangle (0,0) (r,0) (0,H) (its apex at t = H).
 *
 * Their contacts are exact where a flat face of the other body meets them: the deepest point of
 * each rim (and the apex), with points spread round the rims for a cap lying on the face, so a
 * cylinder lying on its side touches at the two ends of its lowest line and a cone at its apex
 * and the lowest point of its base. Where the axis of separation is the solid's own, the
 * separating-axis test runs on a circumscribed polytope (a prism or pyramid of PROXY_SIDES
 * sides whose faces touch the true surface along a line, rigid_round_solid_proxy): cap faces are
 * exact, and contacts found against a side face have their separation and normal taken again
 * from the true surface. Edge against edge, and the solid against a capsule or another round
 * solid (which meet it as its proxy), are exact up to the proxy's flats: 1/cos(π/32) - 1 =
 * 0.48% of the radius at most. Spheres meet it at the true nearest point. */
#ifndef SB_RIGID_ROUND_SOLID_H
#define SB_RIGID_ROUND_SOLID_H

#include "rigid_capsule.h"
#include "rigid_mass_properties.h"

enum { PROXY_SIDES = 32 };

/* A cylinder or cone in world space. */
typedef struct round_solid {
    bool cone;
    vec3 base, axis;     /* the base's centre, and the unit axis from it to the top or apex */
    vec3 across;         /* a unit vector across the axis, turning with the body */
    double height, radius;
    world_poly proxy;    /* the circumscribed polytope, placed */
} round_solid;

/* The circumscribed prism or pyramid of a solid whose base centre is `base`, apex or top
 * centre `top`. False when out of memory. */
bool rigid_round_solid_proxy(bool cone, vec3 base, vec3 top, double radius, polytope *out);

/* The solid whose axis runs from `base` to `top` in the body frame of a body at pose (x, r),
 * with its proxy placed in `proxy`. */
round_solid round_solid_placed(bool cone, vec3 x, mat3 r, vec3 base, vec3 top, double radius, world_poly proxy);

/* Mass properties per unit density. Cylinder (H the full height): V = π r² H, about its axis
 * V r²/2, across it V (3r² + H²)/12, the centre halfway. Cone: V = π r² H / 3, the centre H/4
 * above the base, about its axis 3 V r²/10, across it V (3r²/20 + 3H²/80). */
void round_solid_mass_properties(bool cone, vec3 base, vec3 top, double radius, mass_properties *out);

/* Signed distance from p to the solid (negative inside), the nearest point of its surface and
 * the outward unit normal there. */
double round_solid_distance(const round_solid *s, vec3 p, vec3 *nearest, vec3 *outward);

/* The solid (as A) against the polytope b closer than `margin`: contacts (normal from b to the
 * solid, points on b) into out[] (at most 4). */
int32_t round_solid_poly(const round_solid *s, const world_poly *b, double margin, rigid_contact *out);

#endif
