import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs another program (the `handover` binary, python3, psql, openssl, zbarimg, swift) to its
/// end for a test, waiting on a thread of its own.
///
/// Swift's cooperative pool has one thread per core: two on CI's machines. A test that waits for
/// a child with `waitUntilExit` on one of them holds it for as long as the child runs, and two
/// such waits at once stop every other test in the process; tests on a time limit then fail for
/// time they never had (a CI run of November 2026: `swift package dump-package` held both threads for
/// 88 seconds). Every test that runs a program to its end goes through here.
public enum ChildProcess {
    /// What a finished program left.
    public struct Result: Sendable {
        /// Its exit status (the signal's number when a signal ended it).
        public var status: Int32
        /// What it wrote to standard output.
        public var output: Data
        /// What it wrote to standard error (empty when `mergingErrors` sent it to `output`).
        public var errors: Data
        /// Whether it was still running at the time limit, and was killed.
        public var timedOut: Bool

        /// Standard output as UTF-8 text.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        /// Standard error as UTF-8 text.
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Runs `executable` with `arguments` to its end.
    ///
    /// - Parameters:
    ///   - environment: added to this process's environment (nil: inherited as it is).
    ///   - input: written to the program's standard input, which is then closed; without it the
    ///     program reads an empty input.
    ///   - mergingErrors: sends standard error to the same pipe as standard output.
    ///   - timeout: kills the program (SIGKILL) once it has run this long, and says so.
    ///
    /// At most ``concurrentPrograms`` run at once; the others wait their turn (without holding a
    /// thread), and a program's `timeout` counts from its start.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           input: Data? = nil, mergingErrors: Bool = false,
                           timeout: TimeInterval? = nil) async throws -> Result {
        await slots.acquire()
        do {
            let result = try await runNow(executable, arguments, environment: environment, input: input,
                                          mergingErrors: mergingErrors, timeout: timeout)
            await slots.release()
            return result
        } catch {
            await slots.release()
            throw error
        }
    }

    /// How many programs run at once. Waiting on threads of their own, the tests would otherwise
    /// start every `handover` they run together (dozens at a suite's start), and on 2 cores the
    /// tests with real timeouts beside them would pay for it.
    public static let concurrentPrograms = 4

    private static let slots = Slots(count: concurrentPrograms)

    private static func runNow(_ executable: URL, _ arguments: [String], environment: [String: String]?,
                               input: Data?, mergingErrors: Bool, timeout: TimeInterval?) async throws -> Result {
        // The input is read from a file: a pipe written here could fill while the program waits.
        let inputFile = try input.map { data -> URL in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-input-\(UUID().uuidString)")
            try data.write(to: file)
            return file
        }
        defer { inputFile.map { try? FileManager.default.removeItem(at: $0) } }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let out = pipe(), err = mergingErrors ? out : pipe()
                let program: SpawnedProgram
                do {
                    program = try SpawnedProgram.start(executable, arguments, environment: environment ?? [:],
                                                       output: out, errors: err, inputFile: inputFile)
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                if let timeout {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { program.signal(SIGKILL) }
                }
                let (output, errors) = drain(out, mergingErrors ? nil : err)
                let status = program.wait()
                continuation.resume(returning: Result(status: status, output: output, errors: errors, timedOut: program.wasKilled))
            }
        }
    }

    /// Reads a child's standard output and error to their ends (error on a thread of its own, so
    /// that neither pipe fills while the other is read), then closes both.
    private static func drain(_ out: Pipe, _ err: Pipe?) -> (output: Data, errors: Data) {
        let errors = ErrorDrain()
        if let err {
            Thread { errors.data = err.fileHandleForReading.readDataToEndOfFile(); errors.done.signal() }.start()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        if err != nil { errors.done.wait() }
        try? out.fileHandleForReading.close()
        try? err?.fileHandleForReading.close()
        return (output, errors.data)
    }

    /// A pipe for a child's standard input, output or error whose ends no other child inherits.
    ///
    /// The servers that tests stop with SIGTERM (`handover serve`, storms, `apns-loopback`) are
    /// still started with Foundation's `Process`, which closes a child's other descriptors by
    /// listing the open ones before it spawns: a pipe made by another thread in that moment is
    /// inherited, and its reader then waits for two children to close it (a restarted receiver
    /// seen running 20 s after it ended). These ends close on exec, and are made while no such
    /// child is being started (``start(_:)``). Every pipe a test gives a child comes from here.
    public static func pipe() -> Pipe {
        spawning.withLock {
            let pipe = Pipe()
            for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
                _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
            }
            return pipe
        }
    }

    /// Starts `process` with Foundation, one at a time in this test process: the descriptors
    /// Foundation makes for a child (its termination socket) are then never open while another
    /// is spawned. For the servers tests stop with SIGTERM only; every other child is a
    /// ``SpawnedProgram``.
    public static func start(_ process: Process) throws {
        try spawning.withLock { try process.run() }
    }

    private static let spawning = NSLock()

    /// Runs a program found on `PATH`, through `/usr/bin/env`: `arguments[0]` names it.
    public static func run(_ arguments: [String], environment: [String: String]? = nil, input: Data? = nil,
                           mergingErrors: Bool = false, timeout: TimeInterval? = nil) async throws -> Result {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), arguments, environment: environment, input: input,
                      mergingErrors: mergingErrors, timeout: timeout)
    }

    /// Whether `arguments` run to a zero exit (false also when the program cannot be started).
    public static func succeeds(_ arguments: [String]) async -> Bool {
        (try? await run(arguments))?.status == 0
    }

    /// Runs `body`, which waits synchronously (on child processes, pipes or real time), on a
    /// thread of its own and returns its value. Expectations belong after the await, on the
    /// test's task: a thread of its own has no current test to record them against.
    public static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// A counting semaphore that waits without a thread.
    private actor Slots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) { free = count }

        func acquire() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Hands the slot to the longest waiter, or frees it.
        func release() {
            if waiting.isEmpty {
                free += 1
            } else {
                waiting.removeFirst().resume()
            }
        }
    }

    /// Standard error, read to its end on a thread of its own (`done` is signalled after `data` is set).
    private final class ErrorDrain: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }
}
