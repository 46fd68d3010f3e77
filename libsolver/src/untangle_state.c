/* The untangling plan in a saved state (world_state.c): whether the scene was analysed, the
 * pairs found, and the pulls that go on from one analysis to the next, so that a resumed bake
 * pulls as the uninterrupted one does. Regions and tangles are found anew at each analysis
 * and are not saved. */
#include <float.h>

#include "api_error.h"
#include "untangle_state.h"

void untangle_state_write(const untangle_plan *p, state_writer *out)
{
    uint8_t analysed = p->analysed;
    int32_t n = p->analysed && p->pairs > 0 ? p->vertex_count : 0;
    STATE_PUT(out, analysed), STATE_PUT(out, p->pairs), STATE_PUT(out, p->pairs_at_start), STATE_PUT(out, n);
    if (n == 0) return;
    state_put(out, p->pulled, (size_t)n);
    state_put(out, p->push, (size_t)n * sizeof *p->push);
    state_put(out, p->target, (size_t)n * sizeof *p->target);
}

bool untangle_state_read(untangle_plan *p, cloth *const *cloths, int32_t cloth_count, int32_t vertex_count,
                         state_reader *in)
{
    uint8_t analysed = 0;
    int64_t pairs = 0, at_start = 0;
    int32_t n = 0;
    if (!STATE_TAKE(in, analysed) || !STATE_TAKE(in, pairs) || !STATE_TAKE(in, at_start) || !STATE_TAKE(in, n))
        return state_damaged(in, "it ends inside the untangling");
    if (in->pass == PASS_CHECK &&
        (analysed > 1 || pairs < 0 || at_start < -1 || (n != 0 && (n != vertex_count || !analysed || pairs == 0))))
        return state_damaged(in, "the untangling's counts");
    const uint8_t *pulled = state_span(in, (uint64_t)n);
    if (!pulled) return state_damaged(in, "it ends inside the untangling");
    for (int32_t i = 0; in->pass == PASS_CHECK && i < n; i++)
        if (pulled[i] > 1) return state_damaged(in, "the untangling's pulled vertices");
    if (in->pass == PASS_RESERVE && n > 0 && !untangle_reserve(p, n))
        return STATE_FAIL(in, SB_ERROR_OUT_OF_MEMORY, "out of memory loading the untangling");
    if (!state_doubles(in, n > 0 ? (double *)p->push : NULL, 3 * (size_t)n, false, DBL_MAX, "the untangling's pulls") ||
        !state_doubles(in, n > 0 ? p->target : NULL, (size_t)n, false, DBL_MAX, "the untangling's pulls"))
        return false;
    if (in->pass != PASS_APPLY) return true;
    if (n > 0) memcpy(p->pulled, pulled, (size_t)n), p->vertex_count = n;
    p->analysed = analysed, p->pairs = pairs, p->pairs_at_start = at_start, p->active = false;
    for (int32_t i = 0; i < cloth_count; i++) cloths[i]->scratch.untangling = NULL, cloths[i]->scratch.tangle = NULL;
    return true;
}
