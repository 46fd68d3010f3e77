/* OpenMP's thread numbers, or those of a single thread when built without it. */
#ifndef SB_THREADS_H
#define SB_THREADS_H

#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Threads a parallel region may get. */
static inline int32_t thread_count(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* This thread's number in its team, and the team's size. */
static inline int32_t thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static inline int32_t team_size(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

#endif
