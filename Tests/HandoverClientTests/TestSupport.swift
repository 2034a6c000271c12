import Clocks
import Foundation
import HandoverClient
import LinkCallbacks

/// Records every URL it is asked to open.
final class RecordingOpener: URLOpener, @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []
    private let onOpen: (@Sendable (URL) async -> Void)?

    init(onOpen: (@Sendable (URL) async -> Void)? = nil) { self.onOpen = onOpen }

    func open(_ url: URL) async -> Bool {
        lock.withLock { urls.append(url) }
        await onOpen?(url)
        return true
    }

    var opened: [URL] { lock.withLock { urls } }
}

/// Counts calls and answers from a script, one entry per call (the last repeats).
final class ScriptedHandler: LogoutHandler, @unchecked Sendable {
    enum Step: Sendable { case succeed, nobody, fail(LogoutFailure), wait(Duration), hang }
    private let lock = NSLock()
    private var script: [Step]
    private var count = 0
    private var times: [Duration] = []
    private let clock: any Clock<Duration>
    private let elapsed: @Sendable () -> Duration

    init(_ script: [Step], clock: any Clock<Duration>) {
        self.script = script
        self.clock = clock
        elapsed = Self.elapsed(since: clock)
    }

    private static func elapsed<C: Clock<Duration>>(since clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    var calls: Int { lock.withLock { count } }

    /// When each call came, on the clock (from the handler's creation): what the code under
    /// test did, whenever the test happens to look.
    var callTimes: [Duration] { lock.withLock { times } }

    func logOut(_ command: LogoutCommand) async throws -> LogoutOutcome {
        let step: Step = lock.withLock {
            count += 1
            times.append(elapsed())
            return script.count > 1 ? script.removeFirst() : script[0]
        }
        switch step {
        case .succeed: return .signedOut
        case .nobody: return .nobodySignedIn
        case .fail(let failure): throw failure
        case .wait(let duration):
            try await clock.sleep(for: duration)
            return .signedOut
        case .hang:
            // Ignores cancellation on purpose: the receiver must answer without waiting for it.
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return .signedOut
        }
    }
}

/// A fresh folder under the temp directory.
func temporaryFolder(_ name: String = #function) -> URL {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("handover-tests-\(safe)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Yields until `condition` holds, without sleeping; `false` if it never does.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<20_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// Lets every ready task run.
func settle() async {
    for _ in 0..<200 { await Task.yield() }
}

func ulc(_ action: String = "https://app.example.com/logout",
         success: String = "https://launcher.example.com/ok?n=1",
         error: String = "https://launcher.example.com/fail?n=1") -> URL {
    // Test input is fixed and valid; a failure here is a bug in the test.
    (try? UniversalLinkCallback(actionText: action, successText: success, errorText: error).url) ?? URL(fileURLWithPath: "/invalid")
}

/// Moves a test clock forward in small steps until `condition` holds, letting tasks run
/// between steps (a task may register its sleep a moment after the test saw it start).
/// Returns the simulated time it took, or `nil` if `limit` passed first.
@discardableResult
func advance(_ clock: TestClock<Duration>, step: Duration = .milliseconds(10), limit: Duration = .seconds(120),
             until condition: () -> Bool) async -> Duration? {
    var elapsed = Duration.zero
    while !condition() {
        guard elapsed < limit else { return nil }
        await settle()
        await clock.advance(by: step)
        elapsed += step
    }
    return elapsed
}

/// A value set after it is captured (a receiver its own opener calls back into), behind a lock.
final class Late<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Replaces the value with `change(value)` and returns the new value.
    @discardableResult
    func update(_ change: (Value?) -> Value) -> Value {
        lock.withLock {
            let next = change(stored)
            stored = next
            return next
        }
    }
}
