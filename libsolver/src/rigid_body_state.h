/* A rigid body's part of a saved world state (rigid_body_state.c). */
#ifndef SB_RIGID_BODY_STATE_H
#define SB_RIGID_BODY_STATE_H

#include "rigid_body.h"
#include "state_io.h"

/* Hash of every value of the body's model: a state fits only a body with the same. */
uint64_t rigid_body_model_hash(const rigid_body_model *m);
/* The model's hash, then the whole rigid_body_state. */
void rigid_body_state_write(const rigid_body *b, state_writer *out);
/* Reads what rigid_body_state_write wrote, in the reader's pass; body `index` (of the world's
 * body_count) names it in the message. False with the error set. */
bool rigid_body_state_read(rigid_body *b, int32_t index, int32_t body_count, state_reader *in);

#endif
