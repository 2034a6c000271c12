import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends the signed answer to the redeem URL: the one network effect of ``OutOfBandClient``.
/// Tests inject a fake or a loopback server.
public protocol RedeemTransport: Sendable {
    /// POSTs `body` (JSON) to `url` and returns the status and body of the answer; throws only
    /// when there was no answer.
    func post(_ body: Data, to url: URL) async throws -> RedeemResponse
}

/// The server's answer to a redeem.
public struct RedeemResponse: Sendable, Equatable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// ``RedeemTransport`` over `URLSession`.
public struct URLSessionRedeemTransport: RedeemTransport {
    private let session: URLSession
    private let timeout: TimeInterval

    public init(session: URLSession = .shared, timeout: TimeInterval = 20) {
        self.session = session
        self.timeout = timeout
    }

    public func post(_ body: Data, to url: URL) async throws -> RedeemResponse {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return RedeemResponse(status: http.statusCode, body: data)
    }
}
