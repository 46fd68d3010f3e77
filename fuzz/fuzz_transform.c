/* Fuzz target: sb_transform_points and its float32 <-> float64 variants with hostile
 * matrices, points and counts (never larger than the buffers).
 *
 * Input: matrix (fuzz_read_matrix) | point count (<= 64) | points (doubles) | count lie
 * byte | in-place flag. Past the end: defaults. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"

enum { MAX_POINTS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = fuzz_input_make(data, size);
    double matrix[16];
    fuzz_read_matrix(&in, matrix);
    int32_t point_count = fuzz_count(&in, MAX_POINTS);
    size_t values = 3 * (size_t)point_count;
    double *points = fuzz_alloc(values * sizeof *points), *out = fuzz_alloc(values * sizeof *out);
    float *points32 = fuzz_alloc(values * sizeof *points32), *out32 = fuzz_alloc(values * sizeof *out32);
    fuzz_doubles(&in, points, values, 0.0);
    for (size_t i = 0; i < values; i++) points32[i] = (float)points[i];
    int32_t count = point_count;
    switch (fuzz_byte(&in) % 4) {
    case 1: count = point_count > 0 ? point_count - 1 : 0; break;
    case 2: count = -1; break;
    case 3: count = INT32_MIN; break;
    default: break;
    }

    if (CHECKED(sb_transform_points(matrix, points, out, count)) == SB_OK && count > 0 && points[0] == 0.0 &&
        points[1] == 0.0 && points[2] == 0.0)
        fuzz_require(out[0] == matrix[3]); /* the origin goes where the translation says */
    CHECKED(sb_transform_points_f32_to_f64(matrix, points32, out, count));
    CHECKED(sb_transform_points_f64_to_f32(matrix, points, out32, count));
    if (fuzz_bool(&in)) /* in and out may be the same buffer */
        CHECKED(sb_transform_points(matrix, points, points, count));

    double *no_points = NULL;
    CHECKED(sb_transform_points(NULL, points, out, count));
    CHECKED(sb_transform_points(matrix, no_points, out, count));
    CHECKED(sb_transform_points(matrix, points, no_points, count));
    CHECKED(sb_transform_points_f32_to_f64(matrix, NULL, out, count));
    CHECKED(sb_transform_points_f64_to_f32(matrix, points, NULL, count));
    free(points), free(out), free(points32), free(out32);
    return 0;
}
