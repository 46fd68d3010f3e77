#include "colouring.h"

#include <stdlib.h>
#include <string.h>

bool colouring_build(colouring *out, const int32_t *elements, int32_t element_count, int32_t per_element,
                     int32_t vertex_count)
{
    memset(out, 0, sizeof *out);
    uint64_t *used = calloc((size_t)vertex_count + 1, sizeof *used); /* per vertex: colours it has */
    uint8_t *colour = malloc((size_t)element_count + 1);
    out->start = calloc(COLOURING_MAX + 1, sizeof *out->start);
    out->order = malloc(((size_t)element_count + 1) * sizeof *out->order);
    if (!used || !colour || !out->start || !out->order) {
        free(used), free(colour), colouring_free(out);
        return false;
    }
    const int serial = COLOURING_MAX - 1;
    int32_t counts[COLOURING_MAX] = {0};
    for (int32_t e = 0; e < element_count; e++) {
        const int32_t *v = &elements[(size_t)e * (size_t)per_element];
        uint64_t taken = 0;
        for (int32_t k = 0; k < per_element; k++) taken |= used[v[k]];
        int c = 0;
        while (c < serial && (taken >> c) & 1u) c++;
        if (c < serial)
            for (int32_t k = 0; k < per_element; k++) used[v[k]] |= (uint64_t)1 << c;
        colour[e] = (uint8_t)c;
        counts[c]++;
    }
    /* colours in use, in order; the serial one (if any) last */
    int32_t next = 0;
    for (int c = 0; c < COLOURING_MAX; c++) {
        if (counts[c] == 0) continue;
        out->start[out->colour_count] = next;
        out->last_serial = c == serial;
        next += counts[c];
        counts[c] = out->colour_count++; /* now: the colour's place */
    }
    out->start[out->colour_count] = next;
    int32_t *fill = calloc((size_t)out->colour_count + 1, sizeof *fill);
    if (!fill) {
        free(used), free(colour), colouring_free(out);
        return false;
    }
    for (int32_t e = 0; e < element_count; e++) {
        int32_t place = counts[colour[e]];
        out->order[out->start[place] + fill[place]++] = e;
    }
    free(fill), free(used), free(colour);
    return true;
}

void colouring_free(colouring *c)
{
    free(c->start), free(c->order);
    memset(c, 0, sizeof *c);
}
