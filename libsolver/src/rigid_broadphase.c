#include "rigid_broadphase.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

bool broadphase_pairs(broadphase *bp, const aabb *boxes, int32_t count, broadphase_filter wanted,
                      broadphase_report report, void *ctx)
{
    if (count != bp->count) { /* bodies were added: start from the id order */
        if (!grow((void **)&bp->order, &bp->capacity, count, sizeof *bp->order)) return false;
        for (int32_t i = 0; i < count; i++) bp->order[i] = i;
        bp->count = count;
    }
    int32_t *order = bp->order;
    for (int32_t i = 1; i < count; i++) { /* insertion sort: last step's order is nearly right */
        int32_t id = order[i], j = i - 1;
        double key = boxes[id].lo.x;
        while (j >= 0 && boxes[order[j]].lo.x > key) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = id;
    }
    for (int32_t i = 0; i < count; i++) {
        const aabb *a = &boxes[order[i]];
        for (int32_t j = i + 1; j < count && boxes[order[j]].lo.x <= a->hi.x; j++) {
            const aabb *b = &boxes[order[j]];
            if (a->lo.y > b->hi.y || b->lo.y > a->hi.y || a->lo.z > b->hi.z || b->lo.z > a->hi.z) continue;
            int32_t lo = order[i] < order[j] ? order[i] : order[j], hi = order[i] < order[j] ? order[j] : order[i];
            if (wanted(ctx, lo, hi)) report(ctx, lo, hi);
        }
    }
    return true;
}

void broadphase_free(broadphase *bp)
{
    free(bp->order);
    memset(bp, 0, sizeof *bp);
}
