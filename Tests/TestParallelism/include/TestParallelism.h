#ifndef HANDOVER_TEST_PARALLELISM_H
#define HANDOVER_TEST_PARALLELISM_H

/// The number of tests run at once that the test binary set before `main` (eight per online
/// core), or 0 when SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH was set already.
long handover_test_parallelization_width(void);

#endif
