import Foundation
@testable import handover
import PropertyBased
import Testing

/// `/proc/<pid>/stat` as proc(5) lays it out: `pid (comm) state ppid … utime stime cutime cstime …`,
/// where `comm` may hold spaces and parentheses (so the fields start after the last `)`), and
/// the times are clock ticks.
@Suite struct ProcessCPUTests {
    @Test func anyCommandNameIsSkippedAndTheTimesAreRead() async {
        let name = Gen<Character?>.element(of: Array("ab )(x 9")).map { $0 ?? "a" }.string(of: 0...15)
        let ticks = Gen<Int>.int(in: 0...10_000_000)
        await propertyCheck(count: 300, input: name, zip(ticks, ticks, ticks, ticks), Gen<Int>.int(in: 1...4_000_000)) { comm, times, parent in
            let (user, system, childUser, childSystem) = times
            // Fields 1 to 22 (and more after): pid (comm) state ppid pgrp session tty_nr tpgid flags
            // minflt cminflt majflt cmajflt utime stime cutime cstime priority nice num_threads ...
            let line = "4242 (\(comm)) S \(parent) 1 1 0 -1 4194560 120 0 0 0 \(user) \(system) \(childUser) \(childSystem) 20 0 4 0 12345 1000 50\n"
            let stat = ProcessCPU.parse(line, ticksPerSecond: 100)
            #expect(stat?.parent == Int32(parent))
            #expect(stat?.ownSeconds == Double(user + system) / 100)
            #expect(stat?.waitedChildrenSeconds == Double(childUser + childSystem) / 100)
        }
        #expect(ProcessCPU.parse("4242 (cut short) S 1 2 3", ticksPerSecond: 100) == nil)
        #expect(ProcessCPU.parse("no parenthesis at all", ticksPerSecond: 100) == nil)
    }

    #if os(Linux)
    @Test func thisProcessHasUsedSomeCPU() {
        #expect((ProcessCPU.seconds(of: getpid()) ?? 0) > 0)
        #expect(ProcessCPU.stat(of: getpid())?.parent == getppid())
    }
    #endif
}
