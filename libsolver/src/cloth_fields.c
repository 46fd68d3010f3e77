#include "cloth_fields.h"

#include <string.h>

#include "strand_wind.h"

static double *diagonal_block(const assembly *as, int32_t i) { return &as->system->vals[9 * (size_t)as->system->diag[i]]; }

/* Wind on triangle t. Corner k feels w_k = fo_k s_k a - fo flow v_k (fo the triangle's mean
 * weighted falloff in the flow term, so its derivative is symmetric); the pressure
 * p_k = w_k·n̂ varies linearly over the triangle, and integrating p n̂ against the corners'
 * hat functions gives corner i the force A (Σp + p_i)/12 n̂. The flow term's derivative,
 *     ∂f_i/∂v_j = -(A fo flow / 12)(1 + δij) n̂ n̂ᵀ,
 * is symmetric negative semi-definite and goes into the solve. How the pressure turns with
 * the triangle (its ∂/∂x) does not: a follower load's derivative is unsymmetric. */
static void wind_on_triangle(const cloth *c, int32_t t, const force_field *field, const field_pose *pose,
                             double weight, double time, const double *x, const double *v, double *f,
                             const assembly *as)
{
    const int32_t *tri = &c->model.triangles[3 * (size_t)t];
    vec3 p[3], vel[3];
    for (int k = 0; k < 3; k++) p[k] = v3_load(&x[3 * (size_t)tri[k]]), vel[k] = v3_load(&v[3 * (size_t)tri[k]]);
    vec3 n = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
    double twice_area = v3_len(n);
    if (!(twice_area > 0.0)) return;
    n = v3_scale(n, 1.0 / twice_area);
    double area = 0.5 * twice_area, pressure[3], push[3], mean_falloff = 0.0;
    for (int k = 0; k < 3; k++) {
        field_sample s = field_sample_at(field, pose, weight, time, p[k]);
        push[k] = s.falloff * s.strength * v3_dot(pose->axis, n);
        mean_falloff += s.falloff / 3.0;
    }
    double flow = mean_falloff * field->def.flow, total = 0.0;
    for (int k = 0; k < 3; k++) total += pressure[k] = push[k] - flow * v3_dot(vel[k], n);
    for (int k = 0; k < 3; k++) {
        double *fk = &f[3 * (size_t)tri[k]];
        for (int a = 0; a < 3; a++) fk[a] += area * (total + pressure[k]) / 12.0 * v3_comp(n, a);
    }
    if (!as || !(flow > 0.0)) return;
    double k_flow = as->h * area * flow / 12.0; /* -h ∂f/∂v, per (1 + δij) n̂ n̂ᵀ */
    const int32_t *blocks = &c->scratch.triangle_blocks[9 * (size_t)t];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double *blk = &as->system->vals[9 * (size_t)blocks[3 * i + j]];
            double scale = k_flow * (i == j ? 2.0 : 1.0);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) blk[3 * a + b] += scale * v3_comp(n, a) * v3_comp(n, b);
        }
}

/* A vertex field on vertex i: force per m² times the vertex's rest area; the matrix gets
 * -h A ∂F/∂v - h² A ∂F/∂x and the right-hand side h² A ∂F/∂x u. */
static void field_on_vertex(const cloth *c, int32_t i, const force_field *field, const field_pose *pose,
                            double weight, double time, const double *x, const double *v, double *f,
                            const assembly *as)
{
    size_t k = 3 * (size_t)i;
    vec3 xi = v3_load(&x[k]);
    field_sample s = field_sample_at(field, pose, weight, time, xi);
    if (s.falloff == 0.0) return;
    mat3 dfdx, dfdv;
    double area = c->model.vertex_area[i];
    vec3 force = field_point_force(field, pose, &s, xi, v3_load(&v[k]), &dfdx, &dfdv);
    for (int a = 0; a < 3; a++) f[k + (size_t)a] += area * v3_comp(force, a);
    if (!as) return;
    double *blk = diagonal_block(as, i), h = as->h;
    vec3 ku = m3_mul_v(dfdx, v3_load(&as->u[k]));
    for (int a = 0; a < 3; a++) {
        as->rhs[k + (size_t)a] += h * h * area * v3_comp(ku, a);
        for (int b = 0; b < 3; b++) blk[3 * a + b] -= area * (h * dfdv.m[a][b] + h * h * dfdx.m[a][b]);
    }
}

void cloth_field_forces(const cloth *c, const field_list *fields, const double *x, const double *v, double *f,
                        const assembly *as)
{
    if (!fields) return;
    for (int32_t k = 0; k < fields->count; k++) {
        const force_field *field = fields->fields[k];
        double weight = field_cloth_weight(field, fields->cloth);
        if (weight == 0.0) continue;
        field_pose pose = field_pose_at(field, fields->time);
        if (field->def.type == SB_FIELD_WIND && c->model.strands) {
            for (int32_t s = 0; s < c->model.springs.count; s++)
                strand_wind_on_segment(c, s, field, &pose, weight, fields->time, x, v, f, as);
        } else if (field->def.type == SB_FIELD_WIND) {
            for (int32_t t = 0; t < c->model.triangle_count; t++)
                wind_on_triangle(c, t, field, &pose, weight, fields->time, x, v, f, as);
        } else {
            for (int32_t i = 0; i < c->model.vertex_count; i++)
                field_on_vertex(c, i, field, &pose, weight, fields->time, x, v, f, as);
        }
    }
}

void cloth_seed_field_acceleration(cloth *c, const double gravity[3], const field_list *fields)
{
    size_t len = 3 * (size_t)c->model.vertex_count;
    double *f = c->scratch.force;
    memset(f, 0, len * sizeof *f);
    cloth_field_forces(c, fields, c->state.x, c->state.v, f, NULL);
    for (size_t k = 0; k < len; k++)
        c->state.accel[k] = gravity[k % 3] * c->model.gravity_scale + f[k] / c->model.mass[k / 3];
}
