import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time that processes used, read from Linux's `/proc/<pid>/stat` (`utime`, `stime`,
/// `cutime` and `cstime`, fields 14 to 17 of proc(5), in clock ticks); nil on other systems or
/// for a process that is gone.
enum ProcessCPU {
    /// One process's figures from `/proc/<pid>/stat`.
    struct Stat: Equatable {
        var parent: Int32
        /// User and system time of the process itself, in seconds.
        var ownSeconds: Double
        /// User and system time of its children that exited and were waited for, in seconds.
        var waitedChildrenSeconds: Double
    }

    /// Reads the fields after the command (which may hold spaces and parentheses, so the text is
    /// cut at the last `)`): state, ppid, …, utime (14), stime (15), cutime (16), cstime (17).
    static func parse(_ text: String, ticksPerSecond: Double) -> Stat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3): field n is fields[n - 3].
        guard fields.count >= 15, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]),
              let childUser = Double(fields[13]), let childSystem = Double(fields[14]), ticksPerSecond > 0 else { return nil }
        return Stat(parent: parent, ownSeconds: (user + system) / ticksPerSecond, waitedChildrenSeconds: (childUser + childSystem) / ticksPerSecond)
    }

    static func stat(of pid: Int32) -> Stat? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return parse(text, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
        #else
        return nil
        #endif
    }

    /// The seconds of CPU a process has used so far.
    static func seconds(of pid: Int32) -> Double? { stat(of: pid)?.ownSeconds }

    /// PostgreSQL's CPU so far: the postmaster, every process it started that is running
    /// (backends, checkpointer, WAL writer, autovacuum: vacuuming the updates is part of the cost),
    /// and those that exited (the postmaster's waited-children time).
    static func postgresSeconds(postmaster: Int32) -> Double? {
        #if os(Linux)
        guard let root = stat(of: postmaster),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        var total = root.ownSeconds + root.waitedChildrenSeconds
        for entry in entries {
            guard let pid = Int32(entry), pid != postmaster, let child = stat(of: pid), child.parent == postmaster else { continue }
            total += child.ownSeconds
        }
        return total
        #else
        return nil
        #endif
    }
}
