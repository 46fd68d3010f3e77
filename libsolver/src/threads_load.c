/* The thread count of a world of sb_world_def.threads = 0 from the machine's load (see
 * threads_load.h for why). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "threads_load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#endif

int32_t threads_for_free_cores(int32_t ceiling, double free_cores)
{
    if (ceiling < 1) return 1;
    if (!(free_cores >= 1.0)) return 1; /* NaN too */
    double whole = floor(free_cores + THREADS_LOAD_SLACK);
    return whole >= (double)ceiling ? ceiling : (int32_t)whole;
}

static bool in_mask(const uint64_t *mask, int32_t mask_words, long cpu)
{
    if (!mask) return true;
    if (cpu < 0 || cpu / 64 >= mask_words) return false;
    return (mask[cpu / 64] >> (cpu % 64)) & 1u;
}

void proc_stat_line(proc_stat_sum *sum, const char *line, const uint64_t *mask, int32_t mask_words,
                    bool count_nice)
{
    if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') return;
    char *end = NULL;
    long cpu = strtol(line + 3, &end, 10);
    if (!in_mask(mask, mask_words, cpu)) return;
    unsigned long long t[8] = {0}; /* a column the kernel does not write reads 0 */
    for (int i = 0; i < 8 && *end; i++) t[i] = strtoull(end, &end, 10);
    sum->busy_ticks += (double)(t[0] + (count_nice ? t[1] : 0) + t[2] + t[5] + t[6] + t[7]);
    sum->cpus++;
}

#ifdef __linux__
/* Reads /proc/stat line by line into `sum`, without allocating (the library may run where
 * memory is short; the C tests count allocations). False if it cannot be read. */
static bool read_proc_stat(proc_stat_sum *sum, const uint64_t *mask, int32_t mask_words, bool count_nice)
{
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char chunk[4096], line[PROC_STAT_LINE_MAX];
    size_t length = 0; /* of the line so far, kept up to PROC_STAT_LINE_MAX - 1 bytes */
    ssize_t got;
    *sum = (proc_stat_sum){0};
    while ((got = read(fd, chunk, sizeof chunk)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (chunk[i] != '\n') {
                if (length < sizeof line - 1) line[length++] = chunk[i];
                continue;
            }
            line[length] = '\0';
            proc_stat_line(sum, line, mask, mask_words, count_nice);
            length = 0;
        }
    }
    close(fd);
    return got == 0 && sum->cpus > 0;
}

static double clock_seconds(clockid_t clock)
{
    struct timespec t;
    if (clock_gettime(clock, &t) != 0) return NAN;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int32_t threads_load_choose(thread_load *load, int32_t ceiling)
{
    if (ceiling <= 1) return ceiling;
    double wall = clock_seconds(CLOCK_MONOTONIC);
    if (load->sampled && wall - load->wall_s < THREADS_LOAD_INTERVAL_S)
        return load->chosen < ceiling ? load->chosen : ceiling;
    cpu_set_t set;
    uint64_t mask[CPU_SETSIZE / 64] = {0};
    int32_t mask_words = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &set)) mask[cpu / 64] |= (uint64_t)1 << (cpu % 64);
        mask_words = CPU_SETSIZE / 64;
    }
    bool niced = getpriority(PRIO_PROCESS, 0) > 0; /* our own time is counted as nice, then */
    double own = clock_seconds(CLOCK_PROCESS_CPUTIME_ID), tick = (double)sysconf(_SC_CLK_TCK);
    proc_stat_sum sum;
    if (!read_proc_stat(&sum, mask_words ? mask : NULL, mask_words, niced) || !isfinite(wall) || !isfinite(own) ||
        !(tick > 0.0))
        return ceiling;
    double busy = sum.busy_ticks / tick;
    /* no interval yet: one thread until one is measured. Two threads beside a busy process
     * can be ten times slower than one; one thread on a free machine loses at most one call's
     * share of the second core */
    int32_t chosen = 1;
    if (load->sampled) {
        double others = ((busy - load->machine_busy_s) - (own - load->own_cpu_s)) / (wall - load->wall_s);
        chosen = threads_for_free_cores(ceiling, sum.cpus - (others > 0.0 ? others : 0.0));
    }
    *load = (thread_load){.sampled = true, .wall_s = wall, .machine_busy_s = busy, .own_cpu_s = own,
                          .chosen = chosen};
    return chosen;
}
#else
int32_t threads_load_choose(thread_load *load, int32_t ceiling)
{
    (void)load;
    return ceiling;
}
#endif
