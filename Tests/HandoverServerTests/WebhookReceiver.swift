import Foundation
import HandoverServer
import NIOConcurrencyHelpers
import Vapor

/// A separate HTTP server on loopback that records the webhook POSTs it receives, and answers
/// with the status codes it is told to (to exercise retries).
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var event: String
        /// The Standard Webhooks headers.
        var id: String
        var timestamp: String
        var signature: String
        var body: Data

        /// Whether one of its signatures is valid under `secret` (and its timestamp a number).
        func isSigned(with secret: String) -> Bool {
            guard let time = Int(timestamp) else { return false }
            return WebhookSignature.verify(id: id, timestamp: time, body: body, header: signature, secret: secret)
        }
    }

    let application: Application
    let port: Int
    private let received: NIOLockedValueBox<[Received]>
    private let plannedStatuses: NIOLockedValueBox<[UInt]>

    var url: String { "http://127.0.0.1:\(port)/hooks" }
    var deliveries: [Received] { received.withLockedValue { $0 } }

    /// The next responses, in order; 200 once they run out.
    func respond(with statuses: [UInt]) { plannedStatuses.withLockedValue { $0 = statuses } }

    static func start() async throws -> WebhookReceiver {
        let application = try await Application.make(Environment(name: "testing", arguments: ["receiver"]))
        application.logger.logLevel = .error
        let box = NIOLockedValueBox<[Received]>([])
        let statuses = NIOLockedValueBox<[UInt]>([])
        application.post("hooks") { request -> HTTPStatus in
            let body = request.body.data.map { Data(buffer: $0) } ?? Data()
            let status = statuses.withLockedValue { $0.isEmpty ? 200 : $0.removeFirst() }
            if status == 200 {
                box.withLockedValue {
                    $0.append(Received(event: request.headers.first(name: "Handover-Event") ?? "",
                                       id: request.headers.first(name: WebhookSignature.idHeader) ?? "",
                                       timestamp: request.headers.first(name: WebhookSignature.timestampHeader) ?? "",
                                       signature: request.headers.first(name: WebhookSignature.signatureHeader) ?? "", body: body))
                }
            }
            return HTTPResponseStatus(statusCode: Int(status))
        }
        application.http.server.configuration.port = 0
        try await application.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = application.http.server.shared.localAddress?.port ?? 0
        return WebhookReceiver(application: application, port: port, received: box, statuses: statuses)
    }

    private init(application: Application, port: Int, received: NIOLockedValueBox<[Received]>, statuses: NIOLockedValueBox<[UInt]>) {
        self.application = application
        self.port = port
        self.received = received
        self.plannedStatuses = statuses
    }

    func stop() async throws {
        await application.server.shutdown()
        try await application.asyncShutdown()
    }
}
