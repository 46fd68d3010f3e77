/* The static assertions below fail when a field is added to force_field or sb_field_def: the
 * writer, the reader and the fingerprint here are then to be extended before the sizes are
 * updated, so nothing is saved (or left out) by oversight. */
#include "field_state.h"

#include <math.h>

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(sb_field_def) == 224, "an sb_field_def field was added: fingerprint it in field_hash");
_Static_assert(sizeof(force_field) == 224 + 2 * 56 + 16 + 8 + 8, "a force_field field was added: save it in "
                                                                 "field_state_write/read or fingerprint it");
#endif

/* The definition member by member (its padding holds whatever the caller's struct held), and
 * the weights of the cloths. */
uint64_t field_hash(const force_field *f)
{
    const sb_field_def *d = &f->def;
    uint64_t h = STATE_HASH_START;
    STATE_HASH(h, d->type), STATE_HASH(h, d->shape), STATE_HASH(h, d->position), STATE_HASH(h, d->axis);
    STATE_HASH(h, d->strength), STATE_HASH(h, d->flow), STATE_HASH(h, d->noise), STATE_HASH(h, d->seed);
    STATE_HASH(h, d->falloff), STATE_HASH(h, d->side), STATE_HASH(h, d->falloff_power);
    STATE_HASH(h, d->use_min_distance), STATE_HASH(h, d->min_distance), STATE_HASH(h, d->use_max_distance);
    STATE_HASH(h, d->max_distance), STATE_HASH(h, d->radial_power), STATE_HASH(h, d->use_min_radius);
    STATE_HASH(h, d->min_radius), STATE_HASH(h, d->use_max_radius), STATE_HASH(h, d->max_radius);
    STATE_HASH(h, d->noise_size), STATE_HASH(h, d->global_coordinates), STATE_HASH(h, d->rest_length);
    STATE_HASH(h, d->damping), STATE_HASH(h, d->linear_drag), STATE_HASH(h, d->quadratic_drag);
    STATE_HASH(h, f->weight_count);
    return state_hash(h, f->cloth_weight, (size_t)f->weight_count * sizeof *f->cloth_weight);
}

static void write_pose(state_writer *out, const field_pose *p)
{
    STATE_PUT(out, p->origin), STATE_PUT(out, p->axis), STATE_PUT(out, p->strength);
}

void field_state_write(const force_field *f, state_writer *out)
{
    uint64_t fingerprint = field_hash(f);
    STATE_PUT(out, fingerprint);
    write_pose(out, &f->from), write_pose(out, &f->to);
    STATE_PUT(out, f->time_from), STATE_PUT(out, f->time_to);
}

static bool read_pose(state_reader *in, field_pose *p)
{
    field_pose saved;
    if (!state_doubles(in, (double *)&saved.origin, 3, true, MAX_COORDINATE, "a field's position") ||
        !STATE_TAKE_VALUES(in, saved.axis, "a field's axis") || !STATE_TAKE_VALUES(in, saved.strength, "a field's strength"))
        return false;
    if (in->pass == PASS_CHECK && !(fabs(v3_len(saved.axis) - 1.0) < 1e-9)) return state_damaged(in, "a field's axis");
    if (in->pass == PASS_APPLY) *p = saved;
    return true;
}

bool field_state_read(force_field *f, int32_t index, state_reader *in)
{
    uint64_t fingerprint = 0;
    if (!STATE_TAKE(in, fingerprint)) return state_damaged(in, "it ends inside a field");
    if (in->pass == PASS_CHECK && fingerprint != field_hash(f))
        return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state does not fit this world: field %d's definition "
                         "or its weights on the cloths differ from the state's", (int)index);
    return read_pose(in, &f->from) && read_pose(in, &f->to) &&
           state_read_doubles(in, &f->time_from, 1, "field times") && state_read_doubles(in, &f->time_to, 1, "field times");
}
