import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// This server polling its identity provider's poll endpoint (RFC 8936 §2) for SETs, when
/// `HANDOVER_SSF_TRANSMITTER_POLL_URL` is set: each pass acknowledges what the last one received
/// (and reports what it refused in `setErrs`), asks for what is waiting without blocking, and
/// hands each SET to ``SharedSignalsReceiver/receive(_:via:)``.
///
/// Acknowledgements are held in memory until the next request: a crash before it loses them, and
/// the transmitter sends those SETs again, which the receiver recognises by their `jti`.
package actor SharedSignalsPollClient {
    package let receiver: SharedSignalsReceiver
    private let http: HTTPClient
    private let logger: Logger
    private var acknowledged: [String] = []
    private var refused: [String: PollRequest.SetError] = [:]

    package init(receiver: SharedSignalsReceiver, http: HTTPClient, logger: Logger) {
        self.receiver = receiver
        self.http = http
        self.logger = logger
    }

    private struct Body: Encodable {
        var ack: [String]
        var setErrs: [String: PollRequest.SetError]
        var maxEvents: Int
        var returnImmediately: Bool
    }

    /// One poll; returns how many SETs came.
    @discardableResult
    package func pass() async throws -> Int {
        guard let url = receiver.settings.pollURL else { return 0 }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let authorization = receiver.settings.pollAuthorization { request.headers.add(name: "Authorization", value: authorization) }
        let sent = Body(ack: acknowledged, setErrs: refused, maxEvents: 100, returnImmediately: true)
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(sent)))
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok else {
            logger.warning("polling the identity provider for security events failed", metadata: ["status": "\(response.status.code)"])
            return 0
        }
        // Delivered: those acknowledgements and errors need not be sent again.
        acknowledged.removeAll { sent.ack.contains($0) }
        for jti in sent.setErrs.keys { refused[jti] = nil }
        let answer = try JSONDecoder().decode(PollResponse.self, from: Data(body.readableBytesView))
        for (jti, token) in answer.sets.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try await receiver.receive(token, via: "poll")
                acknowledged.append(jti)
            } catch where error.err == "temporarily_unavailable" {
                continue  // neither acknowledged nor refused: it comes again
            } catch {
                refused[jti] = PollRequest.SetError(err: error.err, description: error.description)
            }
        }
        return answer.sets.count
    }
}
