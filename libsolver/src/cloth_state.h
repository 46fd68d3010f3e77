/* A cloth's part of a saved world state (cloth_state.c). */
#ifndef SB_CLOTH_STATE_H
#define SB_CLOTH_STATE_H

#include "cloth.h"
#include "state_io.h"

/* Hash of what the cloth's definition gave: a state fits only a cloth with the same. */
uint64_t cloth_model_hash(const cloth_model *m);
/* Sizes, the model's hash, then the whole cloth_state. */
void cloth_state_write(const cloth *c, state_writer *out);
/* Reads what cloth_state_write wrote, in the reader's pass; cloth `index` of a world with
 * `collider_count` colliders (the contacts name them). False with the error set. */
bool cloth_state_read(cloth *c, int32_t index, int32_t collider_count, state_reader *in);

#endif
