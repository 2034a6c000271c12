// How many tests the suite runs at once.
//
// Swift Testing starts every test of `swift test` at once unless told otherwise, and a test's
// time limit counts from its start; on a machine of two cores the suite's 1,300 tests then share
// the CPU, and a quick test waiting behind the others runs out of its limit without being slow
// (a 2-minute test of a scripted server, whose waits pass on a test clock, was cut off after 154 s
// of waiting for the CPU). Swift Testing bounds the tests run at once with
// SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH, read when the run starts and counted before a
// test's time limit: this sets it, before `main`, to eight tests per core, unless it is set
// already (a developer's own width wins; 1 runs the tests one by one).
//
// Linked into the test binary only (TestPeers depends on it); nothing of it ships in `handover`.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "TestParallelism.h"

/// Tests run at once per core.
static const long testsPerCore = 8;
/// The width this file set; 0 when the environment had one already.
static long widthSet = 0;

__attribute__((constructor)) static void handover_bound_test_parallelism(void) {
    if (getenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH") != NULL) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    char width[32];
    snprintf(width, sizeof width, "%ld", cores * testsPerCore);
    if (setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", width, 0) == 0) widthSet = cores * testsPerCore;
}

long handover_test_parallelization_width(void) {
    return widthSet;
}
