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

/* Most threads a world may ask for (sb_world_def.threads). */
enum { MAX_THREADS = 1024 };

/* A world's own thread count around one public call: with threads > 0, the calling thread's
 * parallel regions get that many threads until threads_leave, which puts back the count it
 * had (threads_enter returns it); 0 leaves the caller's count as it is. Both do nothing
 * without OpenMP. */
static inline int32_t threads_enter(int32_t threads)
{
#ifdef _OPENMP
    if (threads <= 0) return 0;
    int32_t previous = omp_get_max_threads();
    if (previous != threads) omp_set_num_threads(threads);
    return previous;
#else
    (void)threads;
    return 0;
#endif
}

static inline void threads_leave(int32_t previous)
{
#ifdef _OPENMP
    if (previous > 0 && omp_get_max_threads() != previous) omp_set_num_threads(previous);
#else
    (void)previous;
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

/* Uneven work (pairs crowd where cloth folds) is shared out in chunks, taken dynamically:
 * up to CHUNKS_PER_THREAD per thread, none smaller than ITEMS_PER_CHUNK items. */
enum { CHUNKS_PER_THREAD = 8, ITEMS_PER_CHUNK = 256 };

static inline int32_t chunk_count(int32_t items)
{
    int32_t most = CHUNKS_PER_THREAD * thread_count(), chunks = items / ITEMS_PER_CHUNK + 1;
    return chunks < most ? chunks : most;
}

/* The first item of chunk c of `chunks` over `items` (chunk c ends where c + 1 starts). */
static inline int32_t chunk_start(int32_t items, int32_t c, int32_t chunks)
{
    return (int32_t)((int64_t)items * c / chunks);
}

#endif
