/* Wall-clock time for the step's phase timers (world.h: phase_seconds). */
#ifndef SB_WALL_CLOCK_H
#define SB_WALL_CLOCK_H

#include <time.h>

static inline double wall_seconds(void)
{
    struct timespec t;
    if (timespec_get(&t, TIME_UTC) != TIME_UTC) return 0.0;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
