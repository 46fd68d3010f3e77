/* threads_load.h: a world of sb_world_def.threads = 0 runs on fewer threads when other
 * processes keep the cores busy. The choice is made from the machine's /proc/stat; its parts
 * are tested here on given figures (the choice changes no result: test_threads). */
#include <criterion/criterion.h>
#include <math.h>

#include "threads_load.h"

Test(threads_load, the_count_is_the_free_cores_rounded_between_one_and_the_ceiling)
{
    /* two cores, nothing else running: both */
    cr_assert_eq(threads_for_free_cores(2, 2.0), 2);
    cr_assert_eq(threads_for_free_cores(2, 1.9), 2);
    /* a busy process beside a bake of two spinning threads gets 2/3 of a core: one thread */
    cr_assert_eq(threads_for_free_cores(2, 2.0 - 2.0 / 3.0), 1);
    cr_assert_eq(threads_for_free_cores(2, 1.0), 1);
    /* more busy processes than cores: one thread still */
    cr_assert_eq(threads_for_free_cores(2, -3.0), 1);
    cr_assert_eq(threads_for_free_cores(2, 0.0), 1);
    /* a core counts when other processes use a quarter of it or less: a thread kept off its
     * core costs more than a core left idle */
    cr_assert_eq(threads_for_free_cores(2, 2.0 - THREADS_LOAD_SLACK), 2);
    cr_assert_eq(threads_for_free_cores(2, 1.74), 1);
    cr_assert_eq(threads_for_free_cores(2, 1.5), 1);
    /* never more than the caller's count, whatever is free */
    cr_assert_eq(threads_for_free_cores(4, 16.0), 4);
    cr_assert_eq(threads_for_free_cores(16, 5.8), 6);
    cr_assert_eq(threads_for_free_cores(16, 5.7), 5);
    cr_assert_eq(threads_for_free_cores(1, 16.0), 1);
    cr_assert_eq(threads_for_free_cores(0, 16.0), 1);
    cr_assert_eq(threads_for_free_cores(8, NAN), 1);
    cr_assert_eq(threads_for_free_cores(8, INFINITY), 8);
}

static proc_stat_sum read_lines(const char *const *lines, int count, const uint64_t *mask, int32_t words, bool nice)
{
    proc_stat_sum sum = {0};
    for (int i = 0; i < count; i++) proc_stat_line(&sum, lines[i], mask, words, nice);
    return sum;
}

Test(threads_load, proc_stat_busy_time_counts_the_cpus_of_the_mask_and_nice_only_when_asked)
{
    /* columns: user nice system idle iowait irq softirq steal guest guest_nice */
    const char *lines[] = {
        "cpu  1000 1000 1000 1000 1000 1000 1000 1000 0 0", /* the total: never counted */
        "cpu0 100 20 30 400 50 6 7 8 0 0",
        "cpu1 1000 200 300 4000 500 60 70 80 0 0",
        "intr 20254973 0 0 0 0 0",
        "cpu7 1 1 1 1",                                      /* an older kernel's four columns */
        "softirq 1 2 3 cpu9 4",
    };
    int count = sizeof lines / sizeof *lines;
    proc_stat_sum all = read_lines(lines, count, NULL, 0, false);
    cr_assert_eq(all.cpus, 3);
    /* user + system + irq + softirq + steal */
    cr_assert_float_eq(all.busy_ticks, (100 + 30 + 6 + 7 + 8) + (1000 + 300 + 60 + 70 + 80) + (1 + 1), 0.0);
    proc_stat_sum niced = read_lines(lines, count, NULL, 0, true);
    cr_assert_float_eq(niced.busy_ticks, all.busy_ticks + 20 + 200 + 1, 0.0);

    uint64_t only_cpu1[2] = {1u << 1, 0}, only_cpu7[2] = {1u << 7, 0}, beyond[1] = {0};
    proc_stat_sum one = read_lines(lines, count, only_cpu1, 2, false);
    cr_assert_eq(one.cpus, 1);
    cr_assert_float_eq(one.busy_ticks, 1000 + 300 + 60 + 70 + 80, 0.0);
    cr_assert_eq(read_lines(lines, count, only_cpu7, 2, false).cpus, 1);
    cr_assert_eq(read_lines(lines, count, beyond, 1, false).cpus, 0);

    const char *none[] = {"intr 1 2 3", "ctxt 5"};
    proc_stat_sum empty = read_lines(none, 2, NULL, 0, false);
    cr_assert_eq(empty.cpus, 0);
    cr_assert_float_eq(empty.busy_ticks, 0.0, 0.0);
}

Test(threads_load, the_choice_stays_within_the_ceiling_and_stands_between_samples)
{
    thread_load load = {0};
    cr_assert_eq(threads_load_choose(&load, 1), 1, "one thread asked: one, unread");
    cr_assert_not(load.sampled);
    int32_t first = threads_load_choose(&load, 4);
    cr_assert(first >= 1 && first <= 4, "%d", first);
#ifdef __linux__
    cr_assert(load.sampled, "/proc/stat was not read");
    cr_assert_eq(first, 1, "one thread until an interval is measured");
    cr_assert_eq(load.chosen, first);
    /* within the interval the choice stands, bounded by a lower ceiling */
    cr_assert_eq(threads_load_choose(&load, 4), first);
    cr_assert_eq(threads_load_choose(&load, 1), 1);
    /* a sample older than the interval is taken again, from the CPU time since */
    thread_load old = load;
    old.wall_s -= 2 * THREADS_LOAD_INTERVAL_S, old.chosen = 99;
    int32_t again = threads_load_choose(&old, 4);
    cr_assert(again >= 1 && again <= 4, "%d", again);
    cr_assert_eq(old.chosen, again);
    cr_assert_gt(old.wall_s, load.wall_s);
#endif
}
