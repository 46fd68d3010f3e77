/* Allocation failures, injected: every C test is linked with --wrap for malloc, calloc and
 * realloc (tests/CMakeLists.txt), so the library's and the tests' own calls pass through
 * allocation_failures.c (Criterion's, in its own library, do not). */
#ifndef SB_TEST_ALLOCATION_FAILURES_H
#define SB_TEST_ALLOCATION_FAILURES_H

/* After `n` more successful allocations the next one fails, and only that one; -1: none
 * fails. Returns how many allocations have failed since the last call (0 or 1). */
long test_fail_allocations_after(long n);

#endif
