/* Timing helpers shared by the benchmarks. */
#ifndef SB_BENCH_UTIL_H
#define SB_BENCH_UTIL_H

#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* qsort comparison of doubles, for medians. */
static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
