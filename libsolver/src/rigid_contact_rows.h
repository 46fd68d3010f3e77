/* Contact constraints between rigid bodies as rows of a Jacobian, and the complementarity
 * problem they make at the velocity level:
 *     w = J v⁺ + bias >= 0 (normal) ⟂ λ >= 0,  friction λ in [-μ λn, μ λn],
 *     v⁺ = v + M⁻¹ Jᵀ λ.
 * Groups small enough are solved exactly by pivoting on the dense A = J M⁻¹ Jᵀ (linalg_lcp.c);
 * larger ones by projected Gauss-Seidel on the rows. */
#ifndef SB_CONTACT_ROWS_H
#define SB_CONTACT_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "linalg_lcp.h"
#include "math3.h"

/* Velocities of every body, and how impulses move them (zero for non-dynamic bodies). */
typedef struct velocity_view {
    vec3 *v, *w;
    const double *inv_mass;
    const mat3 *inv_inertia; /* world */
} velocity_view;

typedef struct contact_row {
    int32_t a, b;           /* bodies: a gets +J, b gets -J */
    vec3 lin, ang_a, ang_b; /* J = [lin, r_a × lin] for a, [lin, r_b × lin] for b (negated) */
    double bias;            /* w = J v + bias */
    double lo, hi;          /* bounds (friction rows: from their normal) */
    double soft;            /* w = J v + bias + soft λ: a spring's compliance (0: rigid) */
    int32_t normal_back;    /* friction rows: how many rows before them their normal row is
                               (rows of one contact stay together); 0 for other rows */
    double mu;
    double lambda;          /* accumulated impulse */
    bool warm;              /* its contact was there the step before (lambda from then) */
    double inv_mass;        /* J M⁻¹ Jᵀ */
    vec3 turn_a, turn_b;    /* angular velocity change of a and b per unit impulse (I⁻¹ ang) */
} contact_row;

typedef struct row_solver {
    lcp problem;
    int32_t capacity;
    double *x;
    int8_t *state;
    int32_t *run_start; /* n + 1: where each run of rows on the same two bodies starts (A's build) */
    int *row_first, *row_last; /* n: each row's span of columns of A that may be nonzero */
    lcp_workspace workspace;
} row_solver;

/* J M⁻¹ Jᵀ of every row, and what its impulse does to the bodies (before row_apply). */
void rows_prepare(contact_row *rows, int32_t count, const velocity_view *view);
/* Relative velocity J v of a row. */
double row_velocity(const contact_row *r, const velocity_view *view);
/* v += M⁻¹ Jᵀ impulse. */
void row_apply(const contact_row *r, velocity_view *view, double impulse);

/* Solves the rows (λ starts from their warm values, which are applied first) and applies
 * the impulses: Gauss-Seidel, then (up to direct_max rows) pivoting from its answer to the
 * exact solution. With exact_start (every row warm from an exact solve the substep before)
 * the pivoting starts from the warm values directly; only if it gives up do Gauss-Seidel and
 * the pivoting from its answer follow. Returns the pivots taken, or -1 when Gauss-Seidel's
 * answer stands; -2 out of memory. */
int32_t rows_solve(row_solver *s, contact_row *rows, int32_t count, velocity_view *view, int32_t direct_max,
                   int32_t sweeps, bool exact_start);
void row_solver_free(row_solver *s);

#endif
