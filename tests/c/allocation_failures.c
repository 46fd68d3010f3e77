/* Allocation failures, injected (allocation_failures.h). */
#include "allocation_failures.h"

#include <stdbool.h>
#include <stddef.h>

static long allocations_left = -1, allocations_failed = 0;

long test_fail_allocations_after(long n)
{
    long failed = allocations_failed;
    allocations_left = n, allocations_failed = 0;
    return failed;
}

static bool allocation_fails(void)
{
    if (allocations_left < 0) return false;
    if (allocations_left-- > 0) return false;
    allocations_failed++; /* this one, and no other */
    return true;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t count, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) { return allocation_fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t count, size_t n) { return allocation_fails() ? NULL : __real_calloc(count, n); }
void *__wrap_realloc(void *p, size_t n) { return allocation_fails() ? NULL : __real_realloc(p, n); }
