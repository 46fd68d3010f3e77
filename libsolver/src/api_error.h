/* Thread-local error message behind sb_last_error(). */
#ifndef SB_ERROR_H
#define SB_ERROR_H

#include <stdint.h>

#include "simbake.h"

/* Records a printf-style message for this thread and returns `code`. */
sb_result error_set(sb_result code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void error_clear(void);

/* Largest coordinate or size every entry point accepts, m: beyond it double precision can
 * no longer resolve millimetres (and qhull breaks down). */
#define MAX_COORDINATE 1e7

/* Most vertices or triangles of one mesh, and vertices of all a world's cloths and colliders
 * together: indices stay int32 with room for several values per vertex. */
#define MAX_MESH_COUNT (INT32_MAX / 16)

#endif
