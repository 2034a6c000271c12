import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program a test starts: `posix_spawn`, the child closing its own descriptors (glibc's
/// `posix_spawn_file_actions_addclosefrom_np`, found with `dlsym`; Darwin's
/// `POSIX_SPAWN_CLOEXEC_DEFAULT`), and a thread of its own that reaps it. Every child of the
/// tests starts here, not with Foundation's `Process`, but the servers they stop with SIGTERM
/// (``ChildProcess/start(_:)``).
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` before every spawn, to close each
/// descriptor in the child, and copies each entry's whole 256-byte name. With the 1,000 to 2,000
/// descriptors the test process holds while its servers run, such a copy read past its buffer
/// and crashed full runs twice (`__memcpy_avx512_unaligned_erms` in `Process.run()`, entry names
/// "1361" and "1365" in the registers). The listing also raced with other threads: a pipe made
/// in that moment leaked into the child, and its reader waited for two children to close it.
public final class SpawnedProgram: @unchecked Sendable {
    /// The child's process id (valid until it is reaped; ``signal(_:)`` never reaches another).
    public let pid: pid_t

    private let lock = NSLock()
    private var reaped = false
    private var killed = false
    private var status: Int32?
    private let ended = DispatchGroup()

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    #if canImport(Glibc)
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
    #endif

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: added to this process's environment.
    ///   - input: the pipe the child reads as standard input; nil: `/dev/null`.
    ///   - output: the pipe its standard output goes to; nil: `/dev/null`.
    ///   - errors: the pipe its standard error goes to (may be `output`); nil: `/dev/null`.
    ///   - inputFile: a file read as standard input instead of `input`.
    ///
    /// Make the pipes with ``ChildProcess/pipe()``. Once the child holds them, this process
    /// closes its own copies of the child's ends, so that a reader sees the end of the output
    /// when the child ends.
    public static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                             input: Pipe? = nil, output: Pipe? = nil, errors: Pipe? = nil,
                             inputFile: URL? = nil) throws -> SpawnedProgram {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        let file = inputFile.map { open($0.path, O_RDONLY | O_CLOEXEC) }
        defer {
            close(null)
            if let file { close(file) }
        }
        if file == -1 { throw Failure(description: "cannot open \(inputFile?.path ?? "")") }
        // Its own process group, as Foundation starts a child: a signal to the tests' group does not
        // reach it. Every signal unblocked and at its default action: the spawning thread may be
        // one of libdispatch's, which block signals, and a child would inherit SIGTERM blocked.
        #if canImport(Glibc)
        guard let addCloseFrom else {
            throw Failure(description: "the tests start programs with posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, file ?? input?.fileHandleForReading.fileDescriptor ?? null, 0)
        posix_spawn_file_actions_adddup2(&actions, output?.fileHandleForWriting.fileDescriptor ?? null, 1)
        posix_spawn_file_actions_adddup2(&actions, errors?.fileHandleForWriting.fileDescriptor ?? null, 2)
        #if canImport(Glibc)
        _ = addCloseFrom(&actions, 3)
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable.path): \(String(cString: strerror(spawned)))") }
        try? input?.fileHandleForReading.close()
        try? output?.fileHandleForWriting.close()
        if errors !== output { try? errors?.fileHandleForWriting.close() }
        let program = SpawnedProgram(pid: pid)
        program.ended.enter()
        Thread.detachNewThread { program.reap() }
        return program
    }

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// Waits (on the reaping thread) for the end, marks it reaped before the id is released,
    /// then keeps the status: its exit status, or the number of the signal that ended it (as
    /// Foundation's `terminationStatus` gives it).
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        lock.withLock { reaped = true }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let signal = raw & 0x7f
        lock.withLock { status = signal == 0 ? (raw >> 8) & 0xff : signal }
        ended.leave()
    }

    /// Sends `signal` unless the program has ended; returns whether it was sent.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        lock.withLock {
            guard !reaped else { return false }
            if signal == SIGKILL { killed = true }
            return kill(pid, signal) == 0
        }
    }

    /// Whether ``signal(_:)`` sent it SIGKILL before it ended.
    public var wasKilled: Bool { lock.withLock { killed } }

    /// Whether it is still running.
    public var isRunning: Bool { lock.withLock { status == nil } }

    /// Its status once it has ended, blocking the calling thread: for a thread of its own, not
    /// one of Swift's cooperative threads (there, ``exitStatus()``).
    public func wait() -> Int32 {
        ended.wait()
        return lock.withLock { status ?? -1 }
    }

    /// Its status once it has ended, awaited without holding a thread.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            ended.notify(queue: .global()) { continuation.resume(returning: self.lock.withLock { self.status ?? -1 }) }
        }
    }

    /// Calls `handler` with its status once it has ended.
    public func onExit(_ handler: @escaping @Sendable (Int32) -> Void) {
        ended.notify(queue: .global()) { handler(self.lock.withLock { self.status ?? -1 }) }
    }
}
