/* Bulk affine transforms of point arrays, so callers without numpy (Blender's Python)
 * can move whole meshes between object and world space in one call. */
#include <math.h>
#include <stddef.h>

#include "api_error.h"
#include "simbake.h"

static sb_result check_transform_args(const double m[16], const void *in, const void *out,
                                      int32_t count)
{
    if (!m || !in || !out)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "matrix, input or output is NULL");
    if (count < 0) return error_set(SB_ERROR_INVALID_ARGUMENT, "point count %d is negative", (int)count);
    for (int k = 0; k < 12; k++)
        if (!isfinite(m[k])) return error_set(SB_ERROR_INVALID_ARGUMENT, "matrix is not finite");
    return SB_OK;
}

/* out = M (x, y, z, 1), rows 0..2 of the row-major 4x4 M */
static inline void transform_one(const double m[16], double x, double y, double z, double out[3])
{
    for (int row = 0; row < 3; row++)
        out[row] = m[4 * row] * x + m[4 * row + 1] * y + m[4 * row + 2] * z + m[4 * row + 3];
}

SB_API sb_result sb_transform_points(const double m[16], const double *in, double *out,
                                     int32_t count)
{
    sb_result r = check_transform_args(m, in, out, count);
    if (r != SB_OK) return r;
    for (size_t i = 0; i < (size_t)count; i++)
        transform_one(m, in[3 * i], in[3 * i + 1], in[3 * i + 2], &out[3 * i]);
    return SB_OK;
}

SB_API sb_result sb_transform_points_f32_to_f64(const double m[16], const float *in,
                                                double *out, int32_t count)
{
    sb_result r = check_transform_args(m, in, out, count);
    if (r != SB_OK) return r;
    for (size_t i = 0; i < (size_t)count; i++)
        transform_one(m, in[3 * i], in[3 * i + 1], in[3 * i + 2], &out[3 * i]);
    return SB_OK;
}

SB_API sb_result sb_transform_points_f64_to_f32(const double m[16], const double *in,
                                                float *out, int32_t count)
{
    sb_result r = check_transform_args(m, in, out, count);
    if (r != SB_OK) return r;
    for (size_t i = 0; i < (size_t)count; i++) {
        double p[3];
        transform_one(m, in[3 * i], in[3 * i + 1], in[3 * i + 2], p);
        for (int k = 0; k < 3; k++) out[3 * i + (size_t)k] = (float)p[k];
    }
    return SB_OK;
}
