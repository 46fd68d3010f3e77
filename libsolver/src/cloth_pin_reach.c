#include "cloth_pin_reach.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cloth_strain_limit.h"

/* Rest length of the edge between corners k and l of a triangle. */
static double rest_edge(const tri_rest *r, int k, int l)
{
    double u[3], v[3];
    tri_rest_corners(r, u, v);
    return hypot(u[k] - u[l], v[k] - v[l]);
}

/* Shortest rest path from each vertex to a pin over the triangles' edges, and that pin:
 * Bellman-Ford relaxation, sweeping the triangles forwards and backwards until nothing
 * shortens (a grid takes about its diameter in sweeps, once per cloth). */
static void find_reaches(const cloth_model *m, double *reach, int32_t *pin)
{
    for (int32_t v = 0; v < m->vertex_count; v++) reach[v] = m->pinned[v] ? 0.0 : INFINITY, pin[v] = v;
    bool changed = true;
    for (int32_t pass = 0; changed && pass <= m->vertex_count; pass++) {
        changed = false;
        for (int32_t n = 0; n < m->triangle_count; n++) {
            int32_t t = pass % 2 ? m->triangle_count - 1 - n : n;
            const int32_t *tri = &m->triangles[3 * (size_t)t];
            for (int k = 0; k < 3; k++) {
                int l = (k + 1) % 3;
                int32_t a = tri[k], b = tri[l];
                double len = rest_edge(&m->rest[t], k, l);
                if (!isfinite(len)) continue;
                if (reach[a] + len < reach[b]) reach[b] = reach[a] + len, pin[b] = pin[a], changed = true;
                if (reach[b] + len < reach[a]) reach[a] = reach[b] + len, pin[a] = pin[b], changed = true;
            }
        }
    }
}

int32_t pin_reach_project(cloth *c, double stretch, double h)
{
    const cloth_model *m = &c->model;
    cloth_scratch *s = &c->scratch;
    int32_t moved = 0;
    if (m->pin_count == 0 || m->strands) return 0;
    if (!s->pin_reach) {
        double *reach = malloc((size_t)m->vertex_count * sizeof *reach);
        int32_t *pin = malloc((size_t)m->vertex_count * sizeof *pin);
        if (!reach || !pin) {
            free(reach), free(pin);
            return 0;
        }
        find_reaches(m, reach, pin);
        s->pin_reach = reach, s->reach_pin = pin;
    }
    for (int32_t v = 0; v < m->vertex_count; v++) {
        if (s->held[v] != STRAIN_FREE || !isfinite(s->pin_reach[v])) continue;
        size_t at = 3 * (size_t)v;
        vec3 p = v3_load(&s->x_new[3 * (size_t)s->reach_pin[v]]), x = v3_load(&s->x_new[at]);
        vec3 d = v3_sub(x, p);
        double len = v3_len(d), most = stretch * s->pin_reach[v];
        if (!(len > most)) continue;
        vec3 shift = v3_scale(d, most / len - 1.0);
        v3_store(&s->x_new[at], v3_add(x, shift));
        v3_store(&s->v_new[at], v3_madd(v3_load(&s->v_new[at]), shift, 1.0 / h));
        moved++;
    }
    return moved;
}
