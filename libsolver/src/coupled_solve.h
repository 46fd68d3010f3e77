/* The cloth's implicit solve with the rigid bodies it holds in it (two-way coupling, issue 32).
 *
 * A vertex held on a pushed body's collider moves, in its constrained directions C_i = I - S_i
 * (the normal of a sliding contact, all three of a sticking one), with the body's point:
 *     Δv_i = C_i z_i + S_i y_i + C_i J_i ΔU,   J_i ΔU = ΔV + ΔΩ × r_i,
 * ΔU = (ΔV, ΔΩ) the change the cloth makes to the body's velocity over the step (its own forces
 * and rigid contacts are already in the velocity its step gave it). The solve is backward Euler
 * on cloth and body together: it minimises ½ Δvᵀ A Δv - Δvᵀ b + ½ ΔUᵀ M_b ΔU over y and ΔU, M_b =
 * diag(m, I_world), that is, with Q the map from (y, ΔU) to Δv,
 *     (Qᵀ A Q + diag(0, M_b)) (y, ΔU) = Qᵀ (b - A C z),
 * symmetric positive definite as A is. Its body rows say M_b ΔU = -Σ_i J_iᵀ C_i (A Δv - b)_i:
 * the body takes, in the same solve, the opposite of the impulse the contacts gave the cloth.
 * Nothing is explicit between them, so a stiff contact cannot pump energy into the body (the
 * staggered scheme before it did: two_way_coupling.h). Preconditioned by blocks: 3x3 per
 * vertex as cg_solve's block Jacobi, 6x6 per body.
 * Pins carried by a body that feels the cloth (sb_cloth_attach_pins_to_body) are such vertices
 * held in all three directions (FILTER_FIXED: C_i = I), r_i to the pin's point at the step's end.
 * A body on joints has ΔU kept in the null space of its joints' locked rows (G ΔU = 0, G's rows
 * orthonormal: ΔU = (I - GᵀG) u, the body's rows and its preconditioner projected alike), so the
 * solve moves it only as its joints let it; it then takes M_b ΔU, the joints the rest of the
 * cloth's impulse (to the world: a joint to another body treats that body as fixed over the
 * solve, which then takes nothing). Left free, a 0.05 kg pole on a hinge under a 0.8 kg flag was
 * thrown off its hinge by the solve and the joint's correction jerked it back: the cloth failed
 * at frame 17, vertices at 83 m/s (tests/c/test_body_pins_two_way.c). */
#ifndef SB_COUPLED_SOLVE_H
#define SB_COUPLED_SOLVE_H

#include "cloth.h"
#include "collider.h"
#include "linalg_cg.h"
#include "math3.h"

/* doubles of a body's own in the solve */
enum { COUPLED_BODY_WORK = 66 };

typedef struct coupled_body {
    vec3 center;    /* centre of mass at the step's end */
    double mass;
    mat3 inertia;   /* world frame, at the step's end */
    vec3 v0, w0;    /* its velocity before the cloths' solves */
    vec3 impulse, moment; /* out: what the last solve gave it, the moment about its centre */
    /* its joints' locked rows (to the world or another body, that body taken as fixed over the
     * solve), orthonormal: ΔU stays in their null space, and the joint takes the rest */
    double held[6][6];
    int32_t held_count;
    double *work;   /* COUPLED_BODY_WORK doubles of the solve's own */
} coupled_body;

/* A sharp edge of a coupled body's collider pressing on an edge of the cloth (between its
 * vertices, where no vertex contact holds it: a box's bottom edge between two columns of a coarse
 * cloth). The gap d between the edges' closest points, the cloth's at (1 - t) x_i + t x_j, is held
 * at the contact distance by a stiff spring κ (reach - d) n in the same backward Euler solve:
 * over the step its impulse is h κ (reach - d0 - h w), w the relative normal speed at the step's
 * end, linear in (Δv, ΔU) (w = w0 + gᵀ(Δv, ΔU)): the system takes h² κ g gᵀ and the right side
 * h κ (reach - d0 - h w0) g. Implicit, so however stiff it is it takes energy, never gives it. */
typedef struct edge_contact {
    int32_t i, j, slot;
    double t;
    vec3 n, r;             /* from the body's surface to the cloth; the body's point from its centre */
    vec3 arm;              /* the body's angular row: ω·arm its surface's speed along n there (r × n
                            * for a point that moves with it; coupled_squeeze.c's differs) */
    double stiffness;      /* h² κ */
    double gap_impulse;    /* h κ (reach - d0 - h w0) */
    double impulse;        /* out: what the cloth's point took along n */
} edge_contact;

/* How far inside the contact distance a spring's step would end if it did not act (its
 * gap_impulse over h κ): the approach at w0 over the step, plus what the spring starts inside it,
 * undone at COUPLED_PUSH_SPEED at most. All of it at once is (inside) / h: over a step halved
 * down to microseconds, kicks of 10⁴ N·s (the tablecloth sample's cone on its tip, issue 32). */
#define COUPLED_PUSH_SPEED 0.1 /* m/s */
static inline double coupled_gap(double inside, double w0, double h)
{
    return fmin(inside, COUPLED_PUSH_SPEED * h) - h * w0;
}

typedef struct coupled_bodies {
    int32_t count;
    coupled_body *bodies;
    int32_t *slot; /* per collider: the slot of the body it pushes, or -1 */
    int32_t *body_slot; /* per rigid body: its slot, or -1 */
    int32_t *slot_body; /* per slot: the rigid body's id */
    double *work;  /* the bodies' work, one block */
    double h;      /* the step */
    collider *const *colliders;
    int32_t collider_count;
    edge_contact *edges;
    int32_t edge_count, edge_capacity;
} coupled_bodies;

/* Adds row g (6: linear, angular) to body b's held rows, orthonormalised (dropped when it is
 * within the span of those already there). */
void coupled_hold_row(coupled_body *b, const double g[6]);
/* (I - S_i) v: the part of v along vertex i's constrained directions. */
vec3 coupled_held_part(const cloth *c, int32_t i, vec3 v);
/* The coupled body slot holding vertex i of cloth c, or -1: for a pin carried by a body
 * (sb_cloth_attach_pins_to_body) that body's, held in all three directions (FILTER_FIXED),
 * else the body of the collider its contact holds it on. */
int32_t coupled_slot(const cloth *c, const coupled_bodies *cb, int32_t i);
/* From body slot's centre to where the collider's point under vertex i goes over the step: J_i's
 * lever arm. */
vec3 coupled_lever(const cloth *c, const coupled_bodies *cb, int32_t i, int32_t slot);
/* The edge contacts of cloth c with the coupled bodies' colliders at the step's start, and its
 * squeezed vertices', into cb->edges; false when out of memory. */
bool coupled_find_edges(const cloth *c, coupled_bodies *cb);
/* Appends e to cb's edge contacts; false when out of memory. */
bool coupled_push_edge(coupled_bodies *cb, const edge_contact *e);
/* The vertices of c held on a collider whose body does not feel the cloth and squeezed by a
 * coupled body (coupled_squeeze.c), as edge contacts from the vertex (i = j) to the body, into
 * cb->edges; false when out of memory. coupled_find_edges calls it last. */
bool coupled_find_squeezed(const cloth *c, coupled_bodies *cb);
/* Whether any vertex of c is held on a coupled body. */
bool coupled_any(const cloth *c, const coupled_bodies *cb);
/* Solves c's system (cloth_build_system made it) with the bodies; c->scratch.dv holds the initial
 * guess on entry and Δv on return. The bodies' own state is not changed. */
cg_result coupled_solve(cloth *c, const coupled_bodies *cb, double tolerance, int32_t max_iterations);
/* The impulse the constraint gave coupled vertex i over the step, C_i (A Δv - b)_i, g_dv the
 * pressure gradient times Δv. */
vec3 coupled_constraint_impulse(const cloth *c, int32_t i, double g_dv);

#endif
