/* A collider's part of a saved world state (collider_state.c). */
#ifndef SB_COLLIDER_STATE_H
#define SB_COLLIDER_STATE_H

#include "collider.h"
#include "state_io.h"

/* Hash of what the collider's definition gave: a state fits only a collider with the same. */
uint64_t collider_model_hash(const collider_model *m);
/* Sizes, the model's hash, then the whole collider_state. */
void collider_state_write(const collider *k, state_writer *out);
/* Reads what collider_state_write wrote, in the reader's pass. False with the error set. */
bool collider_state_read(collider *k, int32_t index, state_reader *in);

#endif
