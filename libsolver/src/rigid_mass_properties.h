/* Mass properties of a solid bounded by a closed triangle mesh, by the divergence theorem:
 * volume integrals of 1, x, x², xy, ... become sums over the surface triangles (Mirtich 1996,
 * in the form of Eberly's "Polyhedral Mass Properties"). Exact up to round-off. */
#ifndef SB_MASS_PROPERTIES_H
#define SB_MASS_PROPERTIES_H

#include <stdbool.h>
#include <stdint.h>

#include "math3.h"

typedef struct mass_properties {
    double volume;  /* m³ */
    vec3 center;    /* centre of mass (uniform density) */
    mat3 inertia;   /* inertia tensor about the centre, per unit density (m⁵) */
} mass_properties;

/* Whether the triangles form a closed, consistently oriented surface: every edge used once
 * in each direction. */
bool mesh_is_closed(const int32_t *triangles, int32_t triangle_count, int32_t vertex_count);

/* Mass properties of the solid; a surface wound inward (negative volume) counts as its
 * outward twin. False when the volume is zero. */
bool mesh_mass_properties(const double *vertices, int32_t vertex_count, const int32_t *triangles,
                          int32_t triangle_count, mass_properties *out);

/* The mass properties of the solids of `count` parts taken together (at one density): volumes
 * add up, the centre is the volume-weighted mean of the parts' centres, and each part's
 * inertia tensor moves to that centre by the parallel-axis theorem,
 * I = Σ I_i + V_i (|d_i|² E - d_i d_iᵀ), d_i = c_i - c. False when the volume is zero. */
bool mass_properties_combine(const mass_properties *parts, int32_t count, mass_properties *out);

/* Mass properties of a capsule: the points within r of the segment a-b, per unit density.
 * With h = |b - a|: V = π r² h + 4/3 π r³; about its axis V_c r²/2 + V_s 2r²/5, across it
 * V_c (r²/4 + h²/12) + V_s (2r²/5 + h²/4 + 3hr/8) (V_c the cylinder's volume, V_s the two
 * hemispheres'). */
void capsule_mass_properties(vec3 a, vec3 b, double r, mass_properties *out);

/* Principal moments (ascending) and the rotation whose columns are the principal axes
 * (right-handed), through LAPACKE's symmetric eigensolver. */
bool principal_axes(mat3 inertia, vec3 *moments, mat3 *axes);

#endif
