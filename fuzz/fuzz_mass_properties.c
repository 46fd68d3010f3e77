/* Fuzz target: sb_mass_properties with hostile meshes, densities and pointers.
 *
 * Input: mesh (<= 48 vertices, <= 96 triangles: fuzz_read_mesh) | density | lie byte
 * (counts that disagree with the arrays, NULL pointers). Past the end: defaults. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"

enum { MAX_VERTICES = 48, MAX_TRIANGLES = 96 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = fuzz_input_make(data, size);
    fuzz_mesh mesh = fuzz_read_mesh(&in, MAX_VERTICES, MAX_TRIANGLES);
    double density = fuzz_double(&in, 1000.0);
    const double *vertices = mesh.positions;
    const int32_t *triangles = mesh.triangles;
    int32_t vertex_count = mesh.vertex_count, triangle_count = mesh.triangle_count;
    /* never more than the arrays hold */
    switch (fuzz_byte(&in) % 8) {
    case 1: vertex_count -= 1; break;
    case 2: vertex_count = INT32_MIN; break;
    case 3: triangle_count -= 1; break;
    case 4: triangle_count = -1; break;
    case 5: vertices = NULL; break;
    case 6: triangles = NULL; break;
    default: break;
    }

    double mass = NAN, center[3], inertia[9];
    if (CHECKED(sb_mass_properties(vertices, vertex_count, triangles, triangle_count, density, &mass, center,
                                   inertia)) == SB_OK) {
        /* finite input, accepted: a finite mass (zero only by underflow of a tiny density),
         * a finite centre and a finite symmetric inertia (else the caller's body gets NaN) */
        fuzz_require(mass >= 0.0 && isfinite(mass));
        for (int i = 0; i < 3; i++) fuzz_require(isfinite(center[i]));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                fuzz_require(isfinite(inertia[3 * i + j]) && inertia[3 * i + j] == inertia[3 * j + i]);
    }
    CHECKED(sb_mass_properties(vertices, vertex_count, triangles, triangle_count, density, NULL, center, inertia));
    CHECKED(sb_mass_properties(vertices, vertex_count, triangles, triangle_count, density, &mass, NULL, inertia));
    CHECKED(sb_mass_properties(vertices, vertex_count, triangles, triangle_count, density, &mass, center, NULL));
    fuzz_mesh_free(&mesh);
    return 0;
}
