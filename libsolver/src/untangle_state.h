/* Saving and loading the untangling plan (untangle.h) with the world's state. */
#ifndef SB_UNTANGLE_STATE_H
#define SB_UNTANGLE_STATE_H

#include "state_io.h"
#include "untangle.h"

void untangle_state_write(const untangle_plan *p, state_writer *out);
/* vertex_count: the world's cloth and collider vertices, the plan's numbering. */
bool untangle_state_read(untangle_plan *p, cloth *const *cloths, int32_t cloth_count, int32_t vertex_count,
                         state_reader *in);

#endif
