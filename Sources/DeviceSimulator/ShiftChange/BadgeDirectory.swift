import Foundation

/// The customer's badge lookup, as the bench plays it on loopback: `GET /badges?id=<badge>`
/// answers `{"user": "<login>"}`, the login derived from the badge, so that every phone of a
/// storm is checked out to a person of its own (a person holds one device at a time).
///
/// A badge of the bench's shape, `B-<stamp>-<number>` (``badge(stamp:number:)``), names the
/// person `nurse-<stamp>-<number>@bench.example` (``login(for:)``); any other badge, or none,
/// is answered 404, as a lookup answers a badge it does not know.
///
/// ```swift
/// let directory = try await BadgeDirectory.start()
/// // handover serve --badge-lookup-url \(directory.lookupURL)
/// try await directory.shutdown()
/// ```
public final class BadgeDirectory: Sendable {
    /// The path it answers at.
    public static let path = "/badges"

    private let server: LoopbackServer

    private init(server: LoopbackServer) { self.server = server }

    /// Starts the directory on `127.0.0.1` and a port the system picks.
    public static func start() async throws -> BadgeDirectory {
        let server = try await LoopbackServer.start()
        server.setHandler(path) { request in answer(to: request.target) }
        return BadgeDirectory(server: server)
    }

    /// What a server's `--badge-lookup-url` is set to: `http://127.0.0.1:<port>/badges`.
    public var lookupURL: URL {
        // An origin and a fixed path always make a URL.
        URL(string: server.origin + Self.path) ?? URL(fileURLWithPath: "/")
    }

    /// Closes the socket and stops its event loop.
    public func shutdown() async throws {
        try await server.shutdown()
    }

    /// The badge of phone `number` of the storm `stamp`: `B-<stamp>-00042`.
    public static func badge(stamp: String, number: Int) -> String {
        "B-\(stamp)-" + String(format: "%05d", number)
    }

    /// The login the directory answers for `badge`, or nil for a badge not of the bench's shape
    /// (`B-`, a stamp of 1 to 16 lower-case letters and digits, `-`, 1 to 9 digits).
    public static func login(for badge: String) -> String? {
        let parts = badge.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "B" else { return nil }
        let stamp = parts[1], number = parts[2]
        guard (1...16).contains(stamp.count), stamp.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }),
              (1...9).contains(number.count), number.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return "nurse-\(stamp)-\(number)@bench.example"
    }

    /// The directory's answer to a request target such as `/badges?id=B-x1-00042`.
    static func answer(to target: String) -> LoopbackServer.Response {
        let badge = URLComponents(string: target)?.queryItems?.first { $0.name == "id" }?.value
        guard let badge, let login = login(for: badge),
              let body = try? JSONEncoder().encode(["user": login]) else {
            return LoopbackServer.Response(status: 404, contentType: "application/json", body: #"{"error":"unknown badge"}"#)
        }
        return LoopbackServer.Response(status: 200, contentType: "application/json", body: String(decoding: body, as: UTF8.self))
    }
}
