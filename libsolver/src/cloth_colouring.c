#include "cloth_colouring.h"

#include <stdlib.h>
#include <string.h>

bool colouring_build(colouring *out, const int32_t *elements, int32_t element_count, int32_t per_element,
                     int32_t vertex_count, int32_t group_size)
{
    memset(out, 0, sizeof *out);
    if (group_size < 1) group_size = 1;
    int32_t group_count = element_count / group_size + (element_count % group_size != 0);
    uint64_t *used = calloc((size_t)vertex_count + 1, sizeof *used); /* per vertex: colours it has */
    uint8_t *colour = malloc((size_t)group_count + 1);
    out->start = calloc(COLOURING_MAX + 1, sizeof *out->start);
    out->groups = malloc(((size_t)group_count + 1) * sizeof *out->groups);
    if (!used || !colour || !out->start || !out->groups) {
        free(used), free(colour), colouring_free(out);
        return false;
    }
    out->group_count = group_count, out->group_size = group_size, out->element_count = element_count;
    out->chunk = group_size < 64 ? 64 / group_size : 1;
    const int serial = COLOURING_MAX - 1;
    int32_t counts[COLOURING_MAX] = {0};
    for (int32_t g = 0; g < group_count; g++) {
        size_t begin = (size_t)g * (size_t)group_size * (size_t)per_element;
        size_t end = (size_t)colouring_group_end(out, g) * (size_t)per_element;
        uint64_t taken = 0;
        for (size_t k = begin; k < end; k++) taken |= used[elements[k]];
        int c = 0;
        while (c < serial && (taken >> c) & 1u) c++;
        if (c < serial)
            for (size_t k = begin; k < end; k++) used[elements[k]] |= (uint64_t)1 << c;
        colour[g] = (uint8_t)c;
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
    for (int32_t g = 0; g < group_count; g++) {
        int32_t place = counts[colour[g]];
        out->groups[out->start[place] + fill[place]++] = g;
    }
    free(fill), free(used), free(colour);
    return true;
}

void colouring_free(colouring *c)
{
    free(c->start), free(c->groups);
    memset(c, 0, sizeof *c);
}
