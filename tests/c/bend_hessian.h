/* The bending condition's Hessian, which only the tests ask for: the solver never takes
 * bending's second-order term (cloth_forces.c), so it lives here, built on the derivatives
 * the library's gradient uses (hinge_derivatives, cloth_energy.h). */
#ifndef SB_TEST_BEND_HESSIAN_H
#define SB_TEST_BEND_HESSIAN_H

#include "cloth_energy.h"

/* bend_condition with out->hess filled in (zeroed, with the rest, when a wing has no area). */
bool bend_condition_with_hessian(const vec3 x[4], condition *out);

#endif
