import NIOConcurrencyHelpers
import Testing

/// A trait that stops, after each test, every ``TestServer`` the test started and left running:
/// a test that fails half-way (a failed `#require`, a thrown error) would otherwise leave a
/// server and its HTTP clients behind, and a client released without shutting down traps and
/// takes the whole test process (and every other test's report) with it.
struct StopsTestServers: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil || !test.isSuite else { return try await function() }
        let started = StartedServers()
        try await StartedServers.$current.withValue(started) {
            do {
                try await function()
            } catch {
                await started.stopAll()
                throw error
            }
            await started.stopAll()
        }
    }
}

extension Trait where Self == StopsTestServers {
    /// Stops the servers a test leaves running (see ``StopsTestServers``).
    static var stopsTestServers: Self { StopsTestServers() }
}

/// The servers started within one test (a task-local, inherited by the tasks the test starts).
final class StartedServers: Sendable {
    @TaskLocal static var current: StartedServers?
    private let servers = NIOLockedValueBox<[TestServer]>([])

    func add(_ server: TestServer) { servers.withLockedValue { $0.append(server) } }

    func stopAll() async {
        for server in servers.withLockedValue({ list in defer { list = [] }; return list }) {
            try? await server.stop()
        }
    }
}
