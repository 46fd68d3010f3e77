#include "cloth_forces.h"

#include <string.h>

#include "cloth_colouring.h"
#include "cloth_fields.h"
#include "cloth_pressure.h"
#include "strand_bend.h"

/* Adds one condition's force and, with an assembly, its matrix blocks and h² K v0. Inlined
 * with nv, the condition's vertex count, a constant: the loops then unroll. */
static inline __attribute__((always_inline)) void add_condition(const condition *cd, int nv, const int32_t *verts,
                                                                const int32_t *blocks, double kw, double kdw,
                                                                double rest_value, bool second_order,
                                                                const double *v, double *f, const assembly *as)
{
    int dofs = 3 * nv;
    double d = cd->value - rest_value;
    double cdot = 0.0; /* Ċ = ∇C · v */
    for (int i = 0; i < nv; i++)
        for (int a = 0; a < 3; a++) cdot += cd->grad[3 * i + a] * v[3 * (size_t)verts[i] + a];
    double fs = -(kw * d + kdw * cdot);
    for (int i = 0; i < nv; i++)
        for (int a = 0; a < 3; a++) f[3 * (size_t)verts[i] + a] += fs * cd->grad[3 * i + a];
    if (!as) return;

    double h = as->h, h2 = h * h;
    double alpha = h * kdw + h2 * kw; /* on ∇C ∇Cᵀ */
    double beta = second_order ? h2 * kw * d : 0.0; /* on ∇²C */
    /* h² K u = -h² k w (∇C (∇C·u) + (C - C0) ∇²C u) */
    double gu = 0.0;
    for (int i = 0; i < nv; i++)
        for (int a = 0; a < 3; a++) gu += cd->grad[3 * i + a] * as->u[3 * (size_t)verts[i] + a];
    for (int i = 0; i < dofs; i++) {
        double hu = 0.0;
        if (beta != 0.0)
            for (int j = 0; j < nv; j++)
                for (int b = 0; b < 3; b++)
                    hu += cd->hess[i * dofs + 3 * j + b] * as->u[3 * (size_t)verts[j] + b];
        as->rhs[3 * (size_t)verts[i / 3] + (size_t)(i % 3)] -= h2 * kw * (cd->grad[i] * gu + d * hu);
    }
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
            double *blk = &as->system->vals[9 * (size_t)blocks[i * nv + j]];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    double val = alpha * cd->grad[3 * i + a] * cd->grad[3 * j + b];
                    if (beta != 0.0) val += beta * cd->hess[(3 * i + a) * dofs + 3 * j + b];
                    blk[3 * a + b] += val;
                }
        }
}

/* Stretch and shear of triangle t. */
static void triangle_forces(const cloth *c, int32_t t, const double *x, const double *v, double *f,
                            const assembly *as)
{
    static const int32_t no_blocks[9] = {0};
    const cloth_material *m = &c->model.material;
    const int32_t *tri = &c->model.triangles[3 * (size_t)t];
    const tri_rest *rest = &c->model.rest[t];
    const int32_t *blocks = as ? &c->scratch.triangle_blocks[9 * (size_t)t] : no_blocks;
    vec3 p[3] = {v3_load(&x[3 * (size_t)tri[0]]), v3_load(&x[3 * (size_t)tri[1]]), v3_load(&x[3 * (size_t)tri[2]])};
    condition su, sv, sh;
    /* factors of 1 where none are given: k × 1 is k to the bit */
    const cloth_model *model = &c->model;
    double stretch_scale = model->triangle_stretch_scale ? model->triangle_stretch_scale[t] : 1.0;
    double compression_scale = model->triangle_compression_scale ? model->triangle_compression_scale[t] : 1.0;
    double shear_scale = model->triangle_shear_scale ? model->triangle_shear_scale[t] : 1.0;
    if (m->k_stretch > 0.0 || m->k_compress > 0.0) {
        stretch_conditions(rest, p, &su, &sv, as != NULL);
        /* each direction stiff as stretched or as compressed: C² and its gradient are smooth at
         * rest, so the energy is C¹ however different the two stiffnesses */
        condition *s[2] = {&su, &sv};
        for (int d = 0; d < 2; d++) {
            double k = s[d]->value < 0.0 ? m->k_compress * compression_scale : m->k_stretch * stretch_scale;
            double kw = k * rest->area, kdw = m->damping * kw;
            add_condition(s[d], 3, tri, blocks, kw, kdw, 0.0, s[d]->value > 0.0, v, f, as);
        }
    }
    if (m->k_shear > 0.0) {
        shear_condition(rest, p, &sh, false);
        double kw = m->k_shear * shear_scale * rest->area;
        add_condition(&sh, 3, tri, blocks, kw, m->damping * kw, 0.0, false, v, f, as);
    }
}

/* Bending of hinge e. */
static void hinge_forces(const cloth *c, int32_t e, const double *x, const double *v, double *f,
                         const assembly *as)
{
    static const int32_t no_blocks[16] = {0};
    const cloth_material *m = &c->model.material;
    const int32_t *hv = &c->model.hinges[4 * (size_t)e];
    vec3 p[4];
    for (int k = 0; k < 4; k++) p[k] = v3_load(&x[3 * (size_t)hv[k]]);
    condition bend;
    if (!bend_condition(p, &bend)) return;
    double bend_scale = c->model.hinge_bend_scale ? c->model.hinge_bend_scale[e] : 1.0;
    double kw = m->k_bend * bend_scale * c->model.hinge_weight[e];
    const int32_t *blocks = as ? &c->scratch.hinge_blocks[16 * (size_t)e] : no_blocks;
    add_condition(&bend, 4, hv, blocks, kw, m->damping * kw, c->model.hinge_rest_angle[e], false, v, f, as);
}

/* Bending of a strand at interior vertex e (strand_bend.h): E = ½ k (θ - θ0)². Like the
 * hinges, only the k ∇θ ∇θᵀ part of its stiffness enters the system: (θ - θ0) ∇²θ is
 * indefinite, and grows as 1/sin θ near straight. */
static void angle_forces(const cloth *c, int32_t e, const double *x, const double *v, double *f,
                         const assembly *as)
{
    static const int32_t no_blocks[9] = {0};
    const int32_t *av = &c->model.angles[3 * (size_t)e];
    vec3 p[3];
    for (int k = 0; k < 3; k++) p[k] = v3_load(&x[3 * (size_t)av[k]]);
    condition bend;
    if (!turning_angle_condition(p, &bend, false)) return;
    double kw = c->model.angle_stiffness[e];
    const int32_t *blocks = as ? &c->scratch.angle_blocks[9 * (size_t)e] : no_blocks;
    add_condition(&bend, 3, av, blocks, kw, c->model.material.damping * kw, c->model.angle_rest[e], false, v, f, as);
}

/* Extra spring s (cloth_springs.h). With K = ∂f_j/∂x_j and D = ∂f_j/∂v_j the spring's blocks
 * are K on the diagonal and -K off it (the same for D), so its part of the system is
 * A = -h D - h² K at (i, i), (j, j) and -A at (i, j), (j, i), and h² ∂f/∂x u is
 * ±h² K (u_j - u_i). */
static void spring_forces(const cloth *c, int32_t s, const double *x, const double *v, double *f,
                          const assembly *as)
{
    const spring_set *sp = &c->model.springs;
    int32_t i = sp->pairs[2 * (size_t)s], j = sp->pairs[2 * (size_t)s + 1];
    mat3 K, D;
    vec3 fj = spring_force(v3_load(&x[3 * (size_t)i]), v3_load(&x[3 * (size_t)j]), v3_load(&v[3 * (size_t)i]),
                           v3_load(&v[3 * (size_t)j]), sp->rest[s], sp->stiffness[2 * (size_t)s],
                           sp->stiffness[2 * (size_t)s + 1], sp->max_force[s], c->model.material.damping, true,
                           as ? &K : NULL, as ? &D : NULL);
    v3_store(&f[3 * (size_t)j], v3_add(v3_load(&f[3 * (size_t)j]), fj));
    v3_store(&f[3 * (size_t)i], v3_sub(v3_load(&f[3 * (size_t)i]), fj));
    if (!as) return;
    double h = as->h, h2 = h * h;
    mat3 A = m3_add(m3_scale(D, -h), m3_scale(K, -h2));
    const int32_t *blocks = &c->scratch.spring_blocks[4 * (size_t)s]; /* (i,i) (i,j) (j,i) (j,j) */
    for (int b = 0; b < 4; b++) {
        double sign = (b == 0 || b == 3) ? 1.0 : -1.0;
        double *blk = &as->system->vals[9 * (size_t)blocks[b]];
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) blk[3 * r + q] += sign * A.m[r][q];
    }
    vec3 ku = v3_scale(m3_mul_v(K, v3_sub(v3_load(&as->u[3 * (size_t)j]), v3_load(&as->u[3 * (size_t)i]))), h2);
    v3_store(&as->rhs[3 * (size_t)j], v3_add(v3_load(&as->rhs[3 * (size_t)j]), ku));
    v3_store(&as->rhs[3 * (size_t)i], v3_sub(v3_load(&as->rhs[3 * (size_t)i]), ku));
}

/* Elements below this many are assembled on one thread. */
enum { PARALLEL_ELEMENTS = 2048 };

typedef void element_forces(const cloth *c, int32_t element, const double *x, const double *v, double *f,
                            const assembly *as);

/* Every element, colour by colour, shared among the threads of the enclosing parallel region
 * a group at a time: no two groups of a colour share a vertex, so none share a force entry or
 * a matrix block, and every sum takes its terms in the same order on any number of threads. */
static inline void walk_group(const colouring *cc, int32_t g, element_forces *fn, const cloth *c, const double *x,
                              const double *v, double *f, const assembly *as)
{
    for (int32_t e = g * cc->group_size, end = colouring_group_end(cc, g); e < end; e++) fn(c, e, x, v, f, as);
}

static void walk_colours(const colouring *cc, element_forces *fn, const cloth *c, const double *x, const double *v,
                         double *f, const assembly *as)
{
    for (int32_t k = 0; k < cc->colour_count; k++) {
        if (cc->last_serial && k + 1 == cc->colour_count) {
#pragma omp single
            for (int32_t g = cc->start[k]; g < cc->start[k + 1]; g++) walk_group(cc, cc->groups[g], fn, c, x, v, f, as);
        } else {
#pragma omp for schedule(dynamic, cc->chunk)
            for (int32_t g = cc->start[k]; g < cc->start[k + 1]; g++) walk_group(cc, cc->groups[g], fn, c, x, v, f, as);
        }
    }
}

/* Goal p's spring at the goal's position at t1, with its mean velocity over [t0, t1]:
 *   f = -k (x - g) - c (v - ġ),   ∂f/∂x = -k I,   ∂f/∂v = -c I,
 * so it adds (h c + h² k) I to the vertex's diagonal block and h² ∂f/∂x u = -h² k u to the
 * right-hand side. In a step t -> t + h the goal is taken where it is at t + h, as backward
 * Euler takes every force: a goal moving at constant speed is then followed without the lag
 * of h ġ an explicit goal would add. */
static void goal_force(const cloth *c, int32_t p, double t0, double t1, const double *x, const double *v,
                       double *f, const assembly *as)
{
    int32_t i = c->model.goals[p];
    double k = c->model.goal_stiffness[p], damping = c->model.goal_damping, g[3], gdot[3];
    cloth_goal_motion(c, p, t0, t1, g, gdot);
    size_t at = 3 * (size_t)i;
    for (int a = 0; a < 3; a++) f[at + a] -= k * (x[at + a] - g[a]) + damping * (v[at + a] - gdot[a]);
    if (!as) return;
    double *blk = &as->system->vals[9 * (size_t)as->system->diag[i]];
    for (int a = 0; a < 3; a++) {
        blk[4 * a] += as->h * damping + as->h * as->h * k;
        as->rhs[at + a] -= as->h * as->h * k * as->u[at + a];
    }
}

/* Every force at (x, v); the goals at t1 with their mean velocity over [t0, t1], the fields at
 * their own time (NULL: none). */
static void evaluate(const cloth *c, const double *x, const double *v, const double gravity[3], double t0,
                     double t1, const field_list *fields, double *f, const assembly *as)
{
    const cloth_material *m = &c->model.material;
    const double g[3] = {gravity[0] * c->model.gravity_scale, gravity[1] * c->model.gravity_scale,
                         gravity[2] * c->model.gravity_scale};
    memset(f, 0, 3 * (size_t)c->model.vertex_count * sizeof *f);
    /* pressure first, on one thread: its volume is one sum over every triangle */
    if (c->model.pressure.on) {
        if (as)
            pressure_forces(c, x, f, as->system, c->scratch.triangle_blocks, as->h, as->u, as->rhs,
                            as->pressure_gradient, as->pressure_sigma);
        else
            pressure_forces(c, x, f, NULL, NULL, 0.0, NULL, NULL, NULL, NULL);
    }
#pragma omp parallel if (c->model.triangle_count + c->model.angle_count > PARALLEL_ELEMENTS)
    {
        walk_colours(&c->model.triangle_colours, triangle_forces, c, x, v, f, as);
        if (m->k_bend > 0.0) walk_colours(&c->model.hinge_colours, hinge_forces, c, x, v, f, as);
        if (c->model.angle_count > 0) walk_colours(&c->model.angle_colours, angle_forces, c, x, v, f, as);
        /* before the vertex loop below, which adds h f to the right-hand side (and only with
         * goals: the same test on every thread, so none waits at the loop's barrier for nothing) */
        if (c->model.goal_count > 0) {
#pragma omp for schedule(static)
            for (int32_t p = 0; p < c->model.goal_count; p++) goal_force(c, p, t0, t1, x, v, f, as);
        }
        if (c->model.springs.count > 0) walk_colours(&c->model.spring_colours, spring_forces, c, x, v, f, as);
        if (fields && fields->count > 0) {
#pragma omp single
            cloth_field_forces(c, fields, x, v, f, as);
        }
#pragma omp for schedule(static)
        for (int32_t i = 0; i < c->model.vertex_count; i++) {
            double drag = m->air_drag * c->model.vertex_area[i];
            for (int a = 0; a < 3; a++)
                f[3 * (size_t)i + a] += c->model.mass[i] * g[a] - drag * v[3 * (size_t)i + a];
            if (as) {
                double *blk = &as->system->vals[9 * (size_t)as->system->diag[i]];
                for (int a = 0; a < 3; a++) blk[4 * a] += c->model.mass[i] + as->h * drag;
                for (int a = 0; a < 3; a++) as->rhs[3 * (size_t)i + a] += as->h * f[3 * (size_t)i + a];
            }
        }
    }
}

void cloth_forces(const cloth *c, double t, const double *x, const double *v, const double gravity[3],
                  const field_list *fields, double *f)
{
    evaluate(c, x, v, gravity, t, t, fields, f, NULL);
}

void cloth_assemble(cloth *c, double t, const double *x, const double *v, const double *u,
                    const double gravity[3], const field_list *fields, double h)
{
    bsr_zero(&c->scratch.system);
    memset(c->scratch.rhs, 0, 3 * (size_t)c->model.vertex_count * sizeof *c->scratch.rhs);
    c->scratch.pressure_sigma = 0.0;
    assembly as = {&c->scratch.system, h, u, c->scratch.rhs, c->scratch.pressure_gradient,
                   &c->scratch.pressure_sigma};
    evaluate(c, x, v, gravity, t, t + h, fields, c->scratch.force, &as);
}
