import Foundation
import TestParallelism
import Testing

/// The suite runs a bounded number of tests at once (`Tests/TestParallelism`): Swift Testing reads
/// `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH` when the run starts, and the test binary sets
/// it before `main` to eight tests per core unless the developer set it. Without it, every test
/// starts at once and on two cores a quick test's time limit runs out while it waits for the CPU.
@Suite struct TestParallelismTests {
    @Test func theWidthIsSetBeforeTheRunStarts() throws {
        let value = try #require(ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"],
                                 "the test binary did not set the width: is Tests/TestParallelism linked?")
        let width = try #require(Int(value), "\(value)")
        #expect(width >= 1)
        // Unless the developer chose a width, it is the one set before `main`: eight per core.
        let set = handover_test_parallelization_width()
        if set > 0 {
            #expect(width == set)
            // The cores online, as the C code counts them (Foundation's `activeProcessorCount` may
            // count a container's CPU quota instead, and differ).
            #expect(set == 8 * max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        }
    }
}
