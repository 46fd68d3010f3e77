/* An assembled implicit-step system for the solver tests: a square cloth pinned at two
 * corners, deformed and moving, so every term of the Hessian is active. */
#ifndef SB_SYSTEM_FIXTURE_H
#define SB_SYSTEM_FIXTURE_H

#include <stdint.h>

#include "linalg_bsr.h"
#include "cloth.h"

/* n x n vertices over 1 m, pinned at the two corners of the row y = -0.5, with the system of
 * one implicit step at one step per frame in c->system, c->rhs and c->z. */
cloth *hanging_cloth_with_system(int32_t n);

/* Dense copy of the block-sparse matrix, row-major 3n x 3n (calloc'd). */
double *dense_from_bsr(const bsr *m);

/* sqrt(|a - b|² / |b|²) over n values */
double relative_difference(const double *a, const double *b, size_t n);

#endif
