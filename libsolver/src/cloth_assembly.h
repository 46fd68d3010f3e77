/* What the force code adds to while it builds the implicit system (cloth_forces.c,
 * cloth_fields.c): the matrix M - h ∂f/∂v - h² ∂f/∂x and the right-hand side's h² ∂f/∂x u. */
#ifndef SB_CLOTH_ASSEMBLY_H
#define SB_CLOTH_ASSEMBLY_H

#include "linalg_bsr.h"

typedef struct assembly {
    bsr *system;
    double h;
    const double *u; /* the vector ∂f/∂x multiplies on the right-hand side */
    double *rhs;     /* accumulates h² ∂f/∂x u; h f0 is added at the end */
    double *pressure_gradient, *pressure_sigma; /* with pressure: ∇V and σ of the rank-one term */
} assembly;

#endif
