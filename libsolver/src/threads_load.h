/* How many threads a world of sb_world_def.threads = 0 runs on: OpenMP's count, fewer when
 * other processes keep the cores busy.
 *
 * Why: the solver's threads meet at a barrier many times per step (every CG iteration), and
 * OpenMP's waiting threads spin. When another process holds one of two cores, the thread the
 * others wait for is often off its core while they spin, and every barrier costs a scheduler
 * time slice: a cloth test took 168 s on two threads against 3.1 s on one. OMP_WAIT_POLICY
 * would stop the spinning, but OpenMP reads it once, when its runtime starts, and Blender
 * loads the library late; so the library counts the cores the other processes leave free
 * and asks for no more threads than that. Results are the same bits on any thread count, so
 * the choice changes the speed only. */
#ifndef SB_THREADS_LOAD_H
#define SB_THREADS_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The machine's CPU time over an interval is sampled at most this often: /proc/stat counts
 * in ticks of 10 ms, so over 0.25 s on two cores an estimate is within 0.1 of a core. */
#define THREADS_LOAD_INTERVAL_S 0.25

/* What the last choice was made from (part of a world; not saved: it changes no result). */
typedef struct thread_load {
    bool sampled;
    double wall_s;        /* when sampled */
    double machine_busy_s; /* CPU time of the cores this process may run on, all processes */
    double own_cpu_s;     /* this process's CPU time */
    int32_t chosen;       /* the count chosen then */
} thread_load;

/* A core counts as free when other processes use at most this much of it: a second thread that another process keeps off its core costs far more (the
 * others spin at every barrier: ten times slower, bench/run's contention rows) than a second
 * core left idle (at most twice as slow), so a core half taken is not counted. */
#define THREADS_LOAD_SLACK 0.25

/* The thread count for `free_cores` cores left free by other processes (fractional: an
 * average over an interval): floor(free_cores + THREADS_LOAD_SLACK), at least 1, at most
 * `ceiling`. */
int32_t threads_for_free_cores(int32_t ceiling, double free_cores);

/* Sums over the lines of /proc/stat (proc_stat_line). */
typedef struct proc_stat_sum {
    double busy_ticks; /* busy time of the CPUs counted, in USER_HZ ticks */
    int32_t cpus;      /* CPUs counted */
} proc_stat_sum;

enum { PROC_STAT_LINE_MAX = 256 }; /* longer lines are none of those read */

/* Adds one line of /proc/stat (without its newline): a "cpuN user nice system idle iowait irq
 * softirq steal ..." line of a CPU in `mask` (bit i of word i / 64 for cpu i; NULL: all) adds
 * its busy ticks: user, system, irq, softirq and steal (the hypervisor's), and nice too when
 * `count_nice` (a process at nice 0 wins its cores from niced ones, which so leave them free
 * to it); other lines, the "cpu" total among them, add nothing. */
void proc_stat_line(proc_stat_sum *sum, const char *line, const uint64_t *mask, int32_t mask_words,
                    bool count_nice);

/* The count for the next call of a world whose own count is 0, `ceiling` the caller's OpenMP
 * count: from the CPU time other processes took since the last sample (the machine's minus
 * this process's; at least THREADS_LOAD_INTERVAL_S apart, the last choice stands in between);
 * 1 at the first call, before an interval is measured. `ceiling` where
 * the machine cannot be read (not Linux, no /proc). */
int32_t threads_load_choose(thread_load *load, int32_t ceiling);

#endif
