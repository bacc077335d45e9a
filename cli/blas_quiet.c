/*
 * OpenBLAS (when it is the BLAS linked) starts its worker threads as the program is loaded,
 * before main, and they spin in sched_yield for about 0.1 s (2^28 cycles) after each parallel
 * call and after their start, whether work comes or not. For a short run that is a second core
 * kept busy, counted in the process's CPU time that the commands report (`cpu_s`): a 0.2 s run
 * of the n-four-bar measured 180–450 µs per Newton iteration with the workers and 143–155 µs
 * without, and its wall time 0.11–0.23 s against 0.10 s. The tool's work is one thread: the
 * steps, and factorizations that are small or sparse (`liedyn modes n-four-bar` took 0.12 s of
 * wall time either way, 0.11 s of CPU on one thread and 0.20 s with two). So the tool runs
 * OpenBLAS on one thread, as the library's dense solver does, and stops the workers already
 * started. A user who sets OPENBLAS_NUM_THREADS or OPENBLAS_THREAD_TIMEOUT keeps what they set.
 * The symbols are weak: with another BLAS nothing is called.
 */
#include <stdlib.h>

#include "cli.h"

extern void openblas_set_num_threads(int) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

int ld_cli_quiet_blas(void) {
    if (!openblas_set_num_threads || !blas_thread_shutdown_ || getenv("OPENBLAS_NUM_THREADS") ||
        getenv("OPENBLAS_THREAD_TIMEOUT"))
        return 0;
    openblas_set_num_threads(1); /* no parallel call starts them again */
    blas_thread_shutdown_();
    return 1;
}
