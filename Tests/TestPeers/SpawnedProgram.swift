#if canImport(Glibc)
import Foundation
import Glibc

/// A program started with `posix_spawn`, whose other descriptors the child closes itself
/// (glibc's `posix_spawn_file_actions_addclosefrom_np`, found with `dlsym`), for
/// ``ChildProcess/run(_:_:environment:input:mergingErrors:timeout:)``.
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` before every spawn, to close each
/// descriptor in the child, and copies each entry's whole 256-byte name: with the 1,000 to 2,000
/// descriptors the test process holds while its servers run, one such copy read past its buffer
/// and crashed a full run (`__memcpy_avx512_unaligned_erms` in `Process.run()`, entry names
/// "1361" and "1365" in the registers). The programs tests run to their end, the most of all
/// their children, are started here instead; nil from ``start(_:_:environment:input:output:errors:)``
/// means this glibc lacks the call, and the caller falls back to `Process`.
struct SpawnedProgram {
    let pid: pid_t

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// Whether this glibc can close a child's descriptors in the child.
    static var isAvailable: Bool { addCloseFrom != nil }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `executable` with `input`, `output` and `errors` as its standard streams (each is
    /// duplicated onto 0, 1 and 2; every other descriptor is closed in the child).
    static func start(_ executable: String, _ arguments: [String], environment: [String: String],
                      input: Int32, output: Int32, errors: Int32) throws -> SpawnedProgram {
        guard let addCloseFrom else { throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is not available") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        _ = addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as Foundation starts a child: a signal to the tests' group does not reach it.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(status)))") }
        return SpawnedProgram(pid: pid)
    }

    /// Waits for the program's end: its exit status, or the number of the signal that ended it
    /// (as Foundation's `terminationStatus` gives it). `beforeReaping` runs once it has ended and
    /// before its process id is released: nothing signals a reused id.
    func wait(beforeReaping: () -> Void) -> Int32 {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        beforeReaping()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }
}
#endif
