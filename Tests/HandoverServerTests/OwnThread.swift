import Foundation

/// Runs a blocking socket exchange on a thread of its own. Tests used NIOThreadPool.singleton,
/// whose two threads (one per core here) also resolve the server's webhook hosts: under CI's
/// parallel load, slow-client exchanges held both and a 5-second exchange waited past its
/// test's one-minute limit.
enum OwnThread {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.start()
        }
    }
}
