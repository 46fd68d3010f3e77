/* A force field in a saved world state (world_state.c): its path written whole, and the
 * fingerprint of its definition and cloth weights that a state must match to be loaded. */
#ifndef SB_FIELD_STATE_H
#define SB_FIELD_STATE_H

#include "force_field.h"
#include "state_io.h"

uint64_t field_hash(const force_field *f);
void field_state_write(const force_field *f, state_writer *out);
/* Reads what field_state_write wrote, in the reader's pass, into field `index`; false with the
 * error set. */
bool field_state_read(force_field *f, int32_t index, state_reader *in);

#endif
