import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A local stand-in for `api.push.apple.com`: Apple's provider API over HTTP/2 and TLS on
/// 127.0.0.1 and an ephemeral port. For tests only; the shipped server and CLI never link it.
///
/// - TLS with a self-signed certificate for `localhost`/`127.0.0.1`, made at start;
///   ALPN offers `h2` only, so a client that cannot speak HTTP/2 fails as it would with Apple.
/// - `POST /3/device/<token>` checks what Apple checks: the `authorization: bearer` ES256 JWT
///   (signature by a key registered with ``registerKey(keyID:teamID:publicKey:)``, `iss` the
///   key's team, `iat` not older than an hour → 403 `ExpiredProviderToken`, anything else wrong
///   → 403 `InvalidProviderToken`; a new token less than 20 minutes after the one in use →
///   429 `TooManyProviderTokenUpdates`), `apns-topic` (400 `MissingTopic`), `apns-push-type`
///   (400 `InvalidPushType`), priority, expiration, `apns-id`, collapse id, a 64-hex-digit device
///   token (400 `BadDeviceToken`) and a payload of at most 4096 bytes (413 `PayloadTooLarge`).
/// - ``script(deviceToken:_:)`` makes a token answer 410, 429, 500… in turn.
/// - Every request is kept in ``requests``.
///
/// Time comes from the `now` closure, so tests move the server's clock with the client's.
public final class APNsTestServer: Sendable {
    public let port: Int
    /// The server's certificate (DER), for a client's trust roots.
    public let certificateDER: [UInt8]

    /// The same certificate as PEM, for a client configured with a trust file (such as
    /// `PushConfiguration.trustedCertificatesPEM`).
    public var certificatePEM: String {
        "-----BEGIN CERTIFICATE-----\n"
            + Data(certificateDER).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            + "\n-----END CERTIFICATE-----\n"
    }
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let state: NIOLockedValueBox<APNsTestState>

    /// Starts the server; `now` is its clock.
    public static func start(now: @escaping @Sendable () -> Date = { Date() }) async throws -> APNsTestServer {
        let certificate = try SelfSignedCertificate(now: Date())
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate.certificate)],
                                                           privateKey: .privateKey(certificate.privateKey))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let state = NIOLockedValueBox(APNsTestState())
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers(
                                HTTP2FramePayloadToHTTP1ServerCodec(), APNsStreamHandler(state: state, now: now))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return APNsTestServer(channel: channel, group: group, state: state, certificateDER: certificate.derBytes)
    }

    private init(channel: any Channel, group: MultiThreadedEventLoopGroup, state: NIOLockedValueBox<APNsTestState>, certificateDER: [UInt8]) {
        self.channel = channel
        self.group = group
        self.state = state
        self.certificateDER = certificateDER
        port = channel.localAddress?.port ?? 0
    }

    /// `https://127.0.0.1:<port>`: the origin to give the client instead of `api.push.apple.com`.
    public var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }

    /// A client TLS configuration that trusts this server's certificate (and nothing else).
    public var clientTLSConfiguration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let certificate = try? NIOSSLCertificate(bytes: certificateDER, format: .der) {
            tls.trustRoots = .certificates([certificate])
        }
        return tls
    }

    /// Closes the socket and stops the event loop. Calling it again does nothing.
    public func shutdown() async throws {
        let first = state.withLockedValue { state in
            defer { state.isShutDown = true }
            return !state.isShutDown
        }
        guard first else { return }
        try await channel.close()
        try await group.shutdownGracefully()
    }

    // MARK: Set-up

    /// Accepts provider tokens with `kid` = `keyID` signed by the private half of `publicKey`
    /// and `iss` = `teamID`.
    public func registerKey(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey) {
        state.withLockedValue { $0.keys[keyID] = .init(teamID: teamID, publicKey: publicKey) }
    }

    /// Queues answers for requests to `deviceToken`, used one per request in order after the
    /// request passed the protocol checks; afterwards the token is answered normally (or 410
    /// for ever, after ``ScriptedAnswer/unregistered(since:)``).
    public func script(deviceToken: String, _ answers: [ScriptedAnswer]) {
        state.withLockedValue { $0.scripts[deviceToken, default: []].append(contentsOf: answers) }
    }

    /// Whether a new provider token within 20 minutes of the one in use is refused with 429
    /// `TooManyProviderTokenUpdates`, as Apple does (on by default).
    public func setEnforcesTokenUpdateInterval(_ enforces: Bool) {
        state.withLockedValue { $0.enforceTokenUpdateInterval = enforces }
    }

    // MARK: What happened

    /// Every request, in arrival order.
    public var requests: [RecordedPush] { state.withLockedValue { $0.records } }

    /// Requests for one device token.
    public func requests(for deviceToken: String) -> [RecordedPush] {
        state.withLockedValue { $0.records.filter { $0.deviceToken == deviceToken } }
    }

    /// Forgets the recorded requests.
    public func clearRequests() {
        state.withLockedValue { $0.records.removeAll() }
    }
}
