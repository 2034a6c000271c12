import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with a peer Handover does not control: a team's backend (Back-Channel
/// Logout), a webhook receiver, an MDM.
///
/// A hostile or broken peer must cost the server no more than a few KB and ``timeout``:
/// - the reply's body is read up to ``replyLimit`` bytes, never more; a longer one (by its
///   `Content-Length`, or as it streams, an endless one included) ends the exchange with
///   ``OutboundFailure/replyTooLong(status:limit:)``, and the connection is closed;
/// - the whole exchange, the body included, ends by ``timeout``: a peer that trickles its
///   reply a byte at a time is cut off like one that never answers.
package struct OutboundExchange: Sendable {
    /// What an outbox reads of a reply: enough for a status line's worth of explanation.
    package static let outboxReplyLimit = 8 * 1024

    package let client: HTTPClient
    package var timeout: TimeAmount = .seconds(10)
    package var replyLimit = OutboundExchange.outboxReplyLimit

    package init(client: HTTPClient, timeout: TimeAmount = .seconds(10), replyLimit: Int = OutboundExchange.outboxReplyLimit) {
        self.client = client
        self.timeout = timeout
        self.replyLimit = replyLimit
    }

    /// A reply whose body was read whole, within the limit.
    package struct Reply: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: ByteBuffer

        /// The start of the body as text, for a log line or a stored error.
        package func text(prefix: Int = 200) -> String {
            String(decoding: body.readableBytesView.prefix(prefix), as: UTF8.self)
        }
    }

    /// Sends `request` and reads its reply within ``timeout`` and ``replyLimit``. Throws
    /// ``OutboundFailure`` only.
    package func send(_ request: HTTPClientRequest) async throws(OutboundFailure) -> Reply {
        let deadline = NIODeadline.now() + timeout
        let limit = replyLimit
        let client = client
        let timeout = timeout
        do {
            return try await withThrowingTaskGroup(of: Reply?.self) { group in
                group.addTask {
                    try await Self.exchange(request, client: client, deadline: deadline, seconds: timeout.nanoseconds / 1_000_000_000, limit: limit)
                }
                // The body is not covered by the client's deadline (it ends with the head): this one covers all.
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(0, timeout.nanoseconds)))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let reply = first else { throw OutboundFailure.timedOut(seconds: timeout.nanoseconds / 1_000_000_000) }
                return reply
            }
        } catch let failure as OutboundFailure {
            throw failure
        } catch {
            throw OutboundFailure.unreachable(host: request.hostForMessages, detail: "\(error)")
        }
    }

    private static func exchange(_ request: HTTPClientRequest, client: HTTPClient, deadline: NIODeadline, seconds: Int64,
                                 limit: Int) async throws -> Reply {
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw OutboundFailure.timedOut(seconds: seconds)
        } catch {
            throw OutboundFailure.unreachable(host: request.hostForMessages, detail: "\(error)")
        }
        let status = Int(response.status.code)
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > limit {
            throw OutboundFailure.replyTooLong(status: status, limit: limit)
        }
        var body = ByteBuffer()
        do {
            for try await var chunk in response.body {
                guard body.readableBytes + chunk.readableBytes <= limit else {
                    // Leaving the loop drops the body's iterator: the client cancels the request
                    // and closes the connection, so nothing more is read.
                    throw OutboundFailure.replyTooLong(status: status, limit: limit)
                }
                body.writeBuffer(&chunk)
            }
        } catch let failure as OutboundFailure {
            throw failure
        } catch {
            throw OutboundFailure.unreachable(host: request.hostForMessages, detail: "the reply broke off: \(error)")
        }
        return Reply(status: status, headers: response.headers, body: body)
    }
}

/// Why an exchange with a peer failed; its description is what the outbox records.
package enum OutboundFailure: Error, Equatable, CustomStringConvertible {
    /// No connection, a refused one, or one that broke before the reply was whole.
    case unreachable(host: String, detail: String)
    /// No whole reply within the exchange's time.
    case timedOut(seconds: Int64)
    /// The reply's body was longer than the exchange reads (an endless one included).
    case replyTooLong(status: Int, limit: Int)

    package var description: String {
        switch self {
        case .unreachable(let host, let detail):
            "\(host) could not be reached: \(detail.prefix(300))"
        case .timedOut(let seconds):
            "no whole reply within \(seconds) s"
        case .replyTooLong(let status, let limit):
            "HTTP \(status) with a reply body over \(limit) bytes: not read further, the attempt counts as failed"
        }
    }
}

extension HTTPClientRequest {
    /// The request's host, for messages.
    package var hostForMessages: String { URL(string: url)?.host ?? "the peer" }
}
