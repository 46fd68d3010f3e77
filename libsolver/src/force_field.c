#include "force_field.h"

#include <math.h>
#include <stdlib.h>

#include "api_error.h"
#include "field_noise.h"

/* The strength's noise changes over this many seconds (Blender draws a new random strength
 * at every evaluation; a smooth noise keeps the implicit step's force continuous in time). */
#define STRENGTH_NOISE_PERIOD 0.1

static bool non_negative(double x) { return isfinite(x) && x >= 0.0; }

sb_result field_validate(const sb_field_def *d)
{
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "field definition is NULL");
    if ((unsigned)d->type > SB_FIELD_HARMONIC)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field type %d is none of SB_FIELD_WIND..SB_FIELD_HARMONIC (0..5)",
                         (int)d->type);
    if ((unsigned)d->shape > SB_FIELD_PLANE)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field shape %d is none of POINT, LINE, PLANE (0..2)", (int)d->shape);
    if ((unsigned)d->falloff > SB_FALLOFF_TUBE)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field falloff %d is neither SPHERE (0) nor TUBE (1)",
                         (int)d->falloff);
    if ((unsigned)d->side > SB_FIELD_NEGATIVE_SIDE)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field side %d is none of BOTH, POSITIVE, NEGATIVE (0..2)",
                         (int)d->side);
    for (int k = 0; k < 3; k++)
        if (!isfinite(d->position[k]) || fabs(d->position[k]) > MAX_COORDINATE)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "field position is not finite or beyond %.0g m", MAX_COORDINATE);
    vec3 axis = v3_load(d->axis);
    if (!v3_isfinite(axis) || !(v3_len(axis) > 1e-12))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field axis (%g, %g, %g) must be finite and not of length 0",
                         axis.x, axis.y, axis.z);
    if (!isfinite(d->strength))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field strength must be finite, got %g", d->strength);
    /* flow and noise as Blender bounds them: a negative flow would push along the motion */
    const struct { double value; const char *name; } positive[] = {
        {d->flow, "flow"}, {d->noise, "noise"},
        {d->falloff_power, "falloff_power"}, {d->min_distance, "min_distance"}, {d->max_distance, "max_distance"},
        {d->radial_power, "radial_power"},   {d->min_radius, "min_radius"},     {d->max_radius, "max_radius"},
        {d->rest_length, "rest_length"},     {d->damping, "damping"},           {d->linear_drag, "linear_drag"},
        {d->quadratic_drag, "quadratic_drag"}};
    for (size_t i = 0; i < sizeof positive / sizeof *positive; i++)
        if (!non_negative(positive[i].value))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "field %s must be zero or positive, got %g", positive[i].name,
                             positive[i].value);
    if (!(isfinite(d->noise_size) && d->noise_size >= 1e-6))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field noise_size must be at least 1e-6 m, got %g", d->noise_size);
    return SB_OK;
}

void field_init(force_field *f, const sb_field_def *def, double time)
{
    *f = (force_field){.def = *def};
    vec3 axis = v3_load(def->axis);
    v3_store(f->def.axis, v3_scale(axis, 1.0 / v3_len(axis)));
    f->from = f->to = (field_pose){v3_load(def->position), v3_load(f->def.axis), def->strength};
    f->time_from = f->time_to = time;
}

void field_free(force_field *f)
{
    free(f->cloth_weight);
    f->cloth_weight = NULL;
    f->weight_count = 0;
}

field_pose field_pose_at(const force_field *f, double t)
{
    if (!(t < f->time_to) || !(f->time_to > f->time_from)) return f->to;
    double s = t <= f->time_from ? 0.0 : (t - f->time_from) / (f->time_to - f->time_from);
    vec3 axis = v3_add(v3_scale(f->from.axis, 1.0 - s), v3_scale(f->to.axis, s));
    double len = v3_len(axis);
    /* an axis turning through exactly 180° passes through 0 half way: keep the old one there */
    axis = len > 1e-12 ? v3_scale(axis, 1.0 / len) : f->from.axis;
    return (field_pose){v3_add(v3_scale(f->from.origin, 1.0 - s), v3_scale(f->to.origin, s)), axis,
                        f->from.strength * (1.0 - s) + f->to.strength * s};
}

double field_cloth_weight(const force_field *f, int32_t cloth)
{
    return cloth >= 0 && cloth < f->weight_count ? f->cloth_weight[cloth] : 1.0;
}

/* Blender's falloff of distance q: 0 beyond max, 1 within min, else (1 + q - min)^-power. */
static double falloff_of(double q, bool use_min, double min, bool use_max, double max, double power)
{
    if (use_max && q > max) return 0.0;
    if (use_min && q < min) return 1.0;
    return power == 0.0 ? 1.0 : pow(1.0 + q - (use_min ? min : 0.0), -power);
}

field_sample field_sample_at(const force_field *f, const field_pose *pose, double weight, double t, vec3 x)
{
    const sb_field_def *d = &f->def;
    vec3 a = pose->axis, r = v3_sub(x, pose->origin);
    double along = v3_dot(a, r);
    vec3 across = v3_madd(r, a, -along);
    field_sample s = {0.0, pose->strength, r};
    if (d->shape == SB_FIELD_PLANE && d->type != SB_FIELD_VORTEX) s.to_point = v3_scale(a, along);
    else if (d->shape != SB_FIELD_POINT) s.to_point = across;
    if ((d->side == SB_FIELD_POSITIVE_SIDE && along < 0.0) || (d->side == SB_FIELD_NEGATIVE_SIDE && along > 0.0))
        return s;
    double fo;
    if (d->falloff == SB_FALLOFF_SPHERE) {
        fo = falloff_of(v3_len(s.to_point), d->use_min_distance, d->min_distance, d->use_max_distance,
                        d->max_distance, d->falloff_power);
    } else {
        fo = falloff_of(fabs(along), d->use_min_distance, d->min_distance, d->use_max_distance, d->max_distance,
                        d->falloff_power);
        if (fo != 0.0)
            fo *= falloff_of(v3_len(across), d->use_min_radius, d->min_radius, d->use_max_radius, d->max_radius,
                             d->radial_power);
    }
    s.falloff = fo * weight;
    if (d->noise != 0.0) s.strength += d->noise * noise_in_time(t, STRENGTH_NOISE_PERIOD, (uint32_t)d->seed);
    return s;
}

/* Which terms enter the implicit solve. It needs a symmetric positive definite matrix, so it
 * takes -∂f/∂v and -∂f/∂x where they are symmetric and positive semi-definite: the velocity
 * terms (flow, drag, harmonic damping) and the harmonic pull, when the weighted falloff is not
 * negative. The falloff's own gradient is left out of them (it would make the matrix
 * unsymmetric); so are Force's push away from the field (its Jacobian is indefinite for a
 * repelling field), Vortex's swirl (antisymmetric) and Turbulence's noise (unsymmetric). These
 * change over the field's size, not over the cloth's edges, so taken explicitly they stay
 * stable at the step sizes the cloth's own stiffness allows. */
vec3 field_point_force(const force_field *f, const field_pose *pose, const field_sample *s, vec3 x, vec3 v,
                       mat3 *dfdx, mat3 *dfdv)
{
    const sb_field_def *d = &f->def;
    double fo = s->falloff, strength = s->strength;
    vec3 a = pose->axis, dvec = s->to_point, force = v3(0, 0, 0);
    double dist = v3_len(dvec);
    *dfdx = m3_zero(), *dfdv = m3_zero();
    if (fo == 0.0) return force;
    bool implicit = fo > 0.0;
    switch (d->type) {
    case SB_FIELD_WIND: return force; /* on faces and segments: cloth_fields.c, strand_wind.c */
    case SB_FIELD_FORCE:
        if (dist > 0.0) force = v3_scale(dvec, fo * strength / dist);
        break;
    case SB_FIELD_VORTEX: {
        vec3 around = v3_cross(a, dvec);
        double len = v3_len(around);
        if (len > 0.0) force = v3_scale(around, fo * strength * dist / len);
        break;
    }
    case SB_FIELD_TURBULENCE: {
        vec3 q = d->global_coordinates ? x : v3_add(v3_sub(x, pose->origin), a);
        force = v3_scale(noise_turbulence3(v3_scale(q, 1.0 / d->noise_size), (uint32_t)d->seed), fo * strength);
        break;
    }
    case SB_FIELD_DRAG: {
        /* f = -fo (c1 + c2 |v|) v;  ∂f/∂v = -fo (c1 I + c2 (|v| I + v vᵀ/|v|)) */
        double speed = v3_len(v), c1 = d->linear_drag, c2 = d->quadratic_drag;
        force = v3_scale(v, -fo * (c1 + c2 * speed));
        if (implicit) {
            *dfdv = m3_scale(m3_identity(), -fo * (c1 + c2 * speed));
            if (speed > 0.0) *dfdv = m3_add(*dfdv, m3_scale(m3_outer(v, v), -fo * c2 / speed));
        }
        return force;
    }
    case SB_FIELD_HARMONIC: {
        /* e = d (|d| - L)/|d|, f = -fo s e - c v, with d = P r (P the shape's projector):
         * ∂e/∂x = d̂ d̂ᵀ + (1 - L/|d|)(P - d̂ d̂ᵀ); the second term is dropped where |d| < L
         * (it goes negative there, as a compressed spring's does) */
        double L = d->rest_length;
        if (L > 0.0 && dist > 0.0) force = v3_scale(dvec, -fo * strength * (dist - L) / dist);
        else if (L == 0.0) force = v3_scale(dvec, -fo * strength);
        force = v3_madd(force, v, -d->damping);
        *dfdv = m3_scale(m3_identity(), -d->damping);
        if (implicit && strength >= 0.0) {
            mat3 proj = m3_identity();
            if (d->shape == SB_FIELD_PLANE) proj = m3_outer(a, a);
            else if (d->shape == SB_FIELD_LINE) proj = m3_add(proj, m3_scale(m3_outer(a, a), -1.0));
            mat3 de = proj;
            if (L > 0.0 && dist > 0.0) {
                vec3 dh = v3_scale(dvec, 1.0 / dist);
                mat3 radial = m3_outer(dh, dh);
                de = m3_add(radial, m3_scale(m3_add(proj, m3_scale(radial, -1.0)), fmax(0.0, 1.0 - L / dist)));
            } else if (L > 0.0) {
                de = m3_zero();
            }
            *dfdx = m3_scale(de, -fo * strength);
        }
        return force;
    }
    }
    /* Force, Vortex, Turbulence: the air they carry drags with -fo flow v */
    force = v3_madd(force, v, -fo * d->flow);
    if (implicit && d->flow > 0.0) *dfdv = m3_scale(m3_identity(), -fo * d->flow);
    return force;
}
