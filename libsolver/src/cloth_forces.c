#include "cloth_forces.h"

#include <string.h>

#include "cloth_colouring.h"
#include "cloth_pressure.h"

typedef struct assembly {
    bsr *system;
    double h;
    const double *u; /* the vector ∂f/∂x multiplies on the right-hand side */
    double *rhs;     /* accumulates h² ∂f/∂x u; h f0 is added at the end */
    double *pressure_gradient, *pressure_sigma; /* with pressure: ∇V and σ of the rank-one term */
} assembly;

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

static void evaluate(const cloth *c, const double *x, const double *v, const double gravity[3],
                     double *f, const assembly *as)
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
#pragma omp parallel if (c->model.triangle_count > PARALLEL_ELEMENTS)
    {
        walk_colours(&c->model.triangle_colours, triangle_forces, c, x, v, f, as);
        if (m->k_bend > 0.0) walk_colours(&c->model.hinge_colours, hinge_forces, c, x, v, f, as);
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

void cloth_forces(const cloth *c, const double *x, const double *v, const double gravity[3],
                  double *f)
{
    evaluate(c, x, v, gravity, f, NULL);
}

void cloth_assemble(cloth *c, const double *x, const double *v, const double *u,
                    const double gravity[3], double h)
{
    bsr_zero(&c->scratch.system);
    memset(c->scratch.rhs, 0, 3 * (size_t)c->model.vertex_count * sizeof *c->scratch.rhs);
    c->scratch.pressure_sigma = 0.0;
    assembly as = {&c->scratch.system, h, u, c->scratch.rhs, c->scratch.pressure_gradient,
                   &c->scratch.pressure_sigma};
    evaluate(c, x, v, gravity, c->scratch.force, &as);
}
