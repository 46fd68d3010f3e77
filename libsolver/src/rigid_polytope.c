#include "rigid_polytope.h"

#include <libqhull_r/qhull_ra.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fills planes, edges and the radius from vertices and face loops. */
/* Is p a box (six faces in three pairs of opposite faces, the pairs at right angles)? Then its
 * edges by direction and faces (box_topology), for the boxes' edge query. */
static void find_box(polytope *p)
{
    p->is_box = false;
    if (p->vertex_count != 8 || p->face_count != 6 || p->edge_count != 12) return;
    int8_t pair_of[6] = {-1, -1, -1, -1, -1, -1}, sign_of[6] = {0};
    int8_t pairs = 0;
    for (int8_t f = 0; f < 6; f++) {
        if (pair_of[f] >= 0) continue;
        for (int8_t g = f + 1; g < 6 && pair_of[f] < 0; g++)
            if (pair_of[g] < 0 && v3_dot(p->normals[f], p->normals[g]) < -1.0 + 1e-12) {
                if (pairs == 3) return;
                pair_of[f] = pair_of[g] = pairs, sign_of[g] = 1, p->box.back[pairs] = g, p->box.face[pairs++] = f;
            }
        if (pair_of[f] < 0) return;
    }
    for (int k = 0; k < 3; k++)
        for (int l = k + 1; l < 3; l++)
            if (fabs(v3_dot(p->normals[p->box.face[k]], p->normals[p->box.face[l]])) > 1e-13) return;
    memset(p->box.edge, -1, sizeof p->box.edge);
    for (int8_t e = 0; e < 12; e++) {
        int32_t f = p->edge_faces[2 * e], g = p->edge_faces[2 * e + 1];
        if (pair_of[f] == pair_of[g]) return;
        if (pair_of[f] > pair_of[g]) f = p->edge_faces[2 * e + 1], g = p->edge_faces[2 * e];
        int8_t *slot = &p->box.edge[3 - pair_of[f] - pair_of[g]][sign_of[f]][sign_of[g]];
        if (*slot >= 0) return;
        *slot = e;
    }
    p->is_box = true;
}

static bool finish(polytope *p)
{
    p->normals = malloc(((size_t)p->face_count + 1) * sizeof *p->normals);
    p->offsets = malloc(((size_t)p->face_count + 1) * sizeof *p->offsets);
    int32_t loop_total = p->face_first[p->face_count];
    p->edges = malloc(((size_t)loop_total + 1) * sizeof *p->edges);
    p->edge_faces = malloc(((size_t)loop_total + 1) * sizeof *p->edge_faces);
    if (!p->normals || !p->offsets || !p->edges || !p->edge_faces) return false;
    for (int32_t f = 0; f < p->face_count; f++) {
        /* Newell's normal of the loop, and the plane through its centroid */
        vec3 n = v3(0, 0, 0), centroid = v3(0, 0, 0);
        int32_t first = p->face_first[f], size = p->face_first[f + 1] - first;
        for (int32_t k = 0; k < size; k++) {
            vec3 a = p->vertices[p->face_loops[first + k]], b = p->vertices[p->face_loops[first + (k + 1) % size]];
            n = v3_add(n, v3(( a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y)));
            centroid = v3_add(centroid, a);
        }
        double len = v3_len(n);
        if (!(len > 0.0)) return false;
        p->normals[f] = v3_scale(n, 1.0 / len);
        p->offsets[f] = v3_dot(p->normals[f], v3_scale(centroid, 1.0 / size));
    }
    /* each undirected edge once: kept where it runs from the lower to the higher id in one
     * face; the other face is the one running it the other way */
    int32_t count = 0;
    for (int32_t f = 0; f < p->face_count; f++) {
        int32_t first = p->face_first[f], size = p->face_first[f + 1] - first;
        for (int32_t k = 0; k < size; k++) {
            int32_t a = p->face_loops[first + k], b = p->face_loops[first + (k + 1) % size];
            if (a > b) continue;
            int32_t other = -1;
            for (int32_t g = 0; g < p->face_count && other < 0; g++) {
                int32_t gf = p->face_first[g], gs = p->face_first[g + 1] - gf;
                for (int32_t j = 0; j < gs; j++)
                    if (p->face_loops[gf + j] == b && p->face_loops[gf + (j + 1) % gs] == a) other = g;
            }
            if (other < 0) return false; /* not a closed polytope */
            p->edges[2 * count] = a, p->edges[2 * count + 1] = b;
            p->edge_faces[2 * count] = f, p->edge_faces[2 * count + 1] = other;
            count++;
        }
    }
    p->edge_count = count;
    p->radius = 0.0;
    for (int32_t v = 0; v < p->vertex_count; v++) p->radius = fmax(p->radius, v3_len(p->vertices[v]));
    find_box(p);
    return true;
}

bool polytope_from_points(const vec3 *points, int32_t count, polytope *out)
{
    memset(out, 0, sizeof *out);
    if (count < 4) return false;
    coordT *coords = malloc(3 * (size_t)count * sizeof *coords);
    int32_t *remap = malloc((size_t)count * sizeof *remap);
    FILE *quiet = fopen("/dev/null", "w");
    bool ok = coords && remap && quiet;
    qhT qh_storage, *qh = &qh_storage;
    bool started = false; /* qhull's state exists only after qh_zero */
    if (ok) {
        for (int32_t i = 0; i < count; i++) {
            coords[3 * i] = points[i].x, coords[3 * i + 1] = points[i].y, coords[3 * i + 2] = points[i].z;
            remap[i] = -1;
        }
        qh_zero(qh, quiet);
        started = true;
        /* default options merge coplanar facets into polygons */
        char options[] = "qhull";
        ok = qh_new_qhull(qh, 3, count, coords, False, options, quiet, quiet) == 0;
    }
    if (ok) {
        facetT *facet;
        vertexT *vertex, **vertexp;
        int32_t faces = 0, loops = 0, vertices = 0;
        FORALLfacets {
            faces++;
            setT *set = qh_facet3vertex(qh, facet);
            FOREACHvertex_(set) loops++;
            qh_settempfree(qh, &set);
        }
        out->vertices = malloc((size_t)count * sizeof *out->vertices);
        out->face_first = malloc(((size_t)faces + 1) * sizeof *out->face_first);
        out->face_loops = malloc(((size_t)loops + 1) * sizeof *out->face_loops);
        ok = out->vertices && out->face_first && out->face_loops;
        int32_t f = 0, k = 0;
        FORALLfacets {
            if (!ok) break;
            out->face_first[f] = k;
            setT *set = qh_facet3vertex(qh, facet);
            FOREACHvertex_(set) {
                int32_t id = qh_pointid(qh, vertex->point);
                if (remap[id] < 0) {
                    remap[id] = vertices;
                    out->vertices[vertices++] = points[id];
                }
                out->face_loops[k++] = remap[id];
            }
            qh_settempfree(qh, &set);
            /* turn the loop counter-clockwise around qhull's outward normal */
            int32_t first = out->face_first[f], size = k - first;
            const int32_t *loop = &out->face_loops[first];
            vec3 normal = v3(facet->normal[0], facet->normal[1], facet->normal[2]);
            if (size >= 3 && v3_dot(v3_cross(v3_sub(out->vertices[loop[1]], out->vertices[loop[0]]),
                                             v3_sub(out->vertices[loop[2]], out->vertices[loop[0]])),
                                    normal) < 0.0)
                for (int32_t i = 0; i < size / 2; i++) {
                    int32_t t = out->face_loops[first + i];
                    out->face_loops[first + i] = out->face_loops[first + size - 1 - i];
                    out->face_loops[first + size - 1 - i] = t;
                }
            f++;
        }
        if (ok) {
            out->face_first[faces] = k;
            out->face_count = faces;
            out->vertex_count = vertices;
        }
    }
    if (started) {
        int curlong, totlong;
        qh_freeqhull(qh, !qh_ALL);
        qh_memfreeshort(qh, &curlong, &totlong);
    }
    if (quiet) fclose(quiet);
    free(coords);
    free(remap);
    if (!ok || !finish(out)) {
        polytope_free(out);
        return false;
    }
    return true;
}

bool polytope_box(vec3 half, polytope *out)
{
    memset(out, 0, sizeof *out);
    static const int32_t loops[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    out->vertices = malloc(8 * sizeof *out->vertices);
    out->face_first = malloc(7 * sizeof *out->face_first);
    out->face_loops = malloc(24 * sizeof *out->face_loops);
    if (!out->vertices || !out->face_first || !out->face_loops) {
        polytope_free(out);
        return false;
    }
    for (int32_t i = 0; i < 8; i++)
        out->vertices[i] = v3(i & 1 ? half.x : -half.x, i & 2 ? half.y : -half.y, i & 4 ? half.z : -half.z);
    for (int32_t f = 0; f < 6; f++) {
        out->face_first[f] = 4 * f;
        memcpy(&out->face_loops[4 * f], loops[f], sizeof loops[f]);
    }
    out->face_first[6] = 24;
    out->vertex_count = 8, out->face_count = 6;
    if (!finish(out)) {
        polytope_free(out);
        return false;
    }
    return true;
}

void polytope_transform(polytope *p, mat3 r, vec3 t)
{
    for (int32_t v = 0; v < p->vertex_count; v++) p->vertices[v] = v3_add(m3_mul_v(r, p->vertices[v]), t);
    for (int32_t f = 0; f < p->face_count; f++) {
        p->normals[f] = m3_mul_v(r, p->normals[f]);
        p->offsets[f] += v3_dot(p->normals[f], t);
    }
    p->radius = 0.0;
    for (int32_t v = 0; v < p->vertex_count; v++) p->radius = fmax(p->radius, v3_len(p->vertices[v]));
}

bool polytope_triangles(const polytope *p, int32_t **triangles, int32_t *triangle_count)
{
    int32_t count = 0;
    for (int32_t f = 0; f < p->face_count; f++) count += p->face_first[f + 1] - p->face_first[f] - 2;
    int32_t *t = malloc(3 * ((size_t)count + 1) * sizeof *t);
    if (!t) return false;
    int32_t k = 0;
    for (int32_t f = 0; f < p->face_count; f++) {
        const int32_t *loop = &p->face_loops[p->face_first[f]];
        for (int32_t i = 1; i + 1 < p->face_first[f + 1] - p->face_first[f]; i++) {
            t[k++] = loop[0], t[k++] = loop[i], t[k++] = loop[i + 1];
        }
    }
    *triangles = t;
    *triangle_count = count;
    return true;
}

void polytope_free(polytope *p)
{
    free(p->vertices), free(p->face_first), free(p->face_loops), free(p->normals), free(p->offsets);
    free(p->edges), free(p->edge_faces);
    memset(p, 0, sizeof *p);
}
