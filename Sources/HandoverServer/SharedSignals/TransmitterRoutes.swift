import Foundation
import HandoverCore
import SessionTokens
import Vapor

/// Handover as a Shared Signals transmitter over HTTP (SSF 1.0 §7 and §8): the configuration
/// metadata, stream management, status, subjects, verification, and each poll stream's endpoint
/// (RFC 8936). Every route but the metadata takes `Authorization: Bearer` with a token of the
/// client credentials grant (`POST /oauth/token`); the stream belongs to that client. Wrong
/// bearers slow their sender (``RateLimits/Policy/wrongBearer``); a right one is always served.
///
/// Like OpenID discovery, it needs an issuer that is a URL (`--public-url`): without one every
/// route answers 404 `not_configured`. Refusals use the API's error body; the statuses are the
/// ones SSF §8.1 lists for each endpoint.
struct TransmitterRoutes: RouteCollection {
    let sessions: SessionAuthority
    let targets: OutboundTargets
    let clock: ServerClock
    let retention: TimeInterval
    let throttle: Throttle
    let databases: ServerDatabases

    func boot(routes: RoutesBuilder) throws {
        routes.get(".well-known", "ssf-configuration", use: metadata)
        let ssf = routes.grouped("ssf")
        ssf.on(.POST, "stream", body: .collect(maxSize: "64kb"), use: create)
        ssf.get("stream", use: read)
        ssf.on(.PATCH, "stream", body: .collect(maxSize: "64kb"), use: update)
        ssf.on(.PUT, "stream", body: .collect(maxSize: "64kb"), use: replace)
        ssf.delete("stream", use: delete)
        ssf.get("status", use: status)
        ssf.on(.POST, "status", body: .collect(maxSize: "16kb"), use: setStatus)
        ssf.on(.POST, "subjects:add", body: .collect(maxSize: "16kb"), use: addSubject)
        ssf.on(.POST, "subjects:remove", body: .collect(maxSize: "16kb"), use: removeSubject)
        ssf.on(.POST, "verify", body: .collect(maxSize: "16kb"), use: verify)
        ssf.on(.POST, "poll", ":streamID", body: .collect(maxSize: "1mb"), use: poll)
    }

    /// The transmitter on this request's database, or 404 without an issuer URL.
    private func transmitter(_ request: Request) throws -> SharedSignalsTransmitter {
        let issuer = sessions.ring.issuer
        guard issuer.hasPrefix("https://") || issuer.hasPrefix("http://") else {
            throw APIError(.notFound, code: "not_configured",
                           reason: "Shared Signals needs an issuer URL: start the server with --public-url https://your.host (or HANDOVER_PUBLIC_URL).")
        }
        return SharedSignalsTransmitter(issuer: issuer, database: databases.primary, sealer: sessions.sealer, targets: targets, clock: clock, retention: retention)
    }

    /// The client the bearer token names (RFC 6750 §2.1), or 401; a wrong bearer past the limit, 429.
    private func client(_ request: Request) async throws -> String {
        guard let token = request.headers.bearerAuthorization?.token,
              let client = try await ClientCredentialsTokens.client(of: token, on: try databases.sql(), now: clock.now()) else {
            if request.headers.bearerAuthorization != nil, let wait = throttle.attempt(.wrongBearer, request) {
                throw APIError.tooManyRequests(retryAfter: wait)
            }
            throw APIError(.unauthorized, code: "invalid_token",
                           reason: "Send Authorization: Bearer with a token from POST /oauth/token (grant_type=client_credentials, a registered client's credentials).")
        }
        return client
    }

    private func body<Body: Decodable>(_ type: Body.Type, _ request: Request) throws -> Body {
        guard let buffer = request.body.data, buffer.readableBytes > 0 else {
            throw APIError(.badRequest, code: "invalid_request", reason: "The body must be a JSON object.")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError(.badRequest, code: "invalid_request", reason: "The body could not be read: \(Self.describe(error)).")
        }
    }

    /// A decoding error for people: which field, what was wrong.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: "\((context.codingPath + [key]).map(\.stringValue).joined(separator: ".")) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        case .dataCorrupted(let context)?:
            context.codingPath.isEmpty ? "it is not JSON" : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not valid"
        default: "it is not JSON"
        }
    }

    private func json(_ value: some Encodable, status: HTTPResponseStatus = .ok) throws -> Response {
        let response = Response(status: status)
        try response.content.encode(value, using: JSONEncoder.api)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    private func empty(_ status: HTTPResponseStatus) -> Response {
        let response = Response(status: status)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// A stream id from the query (SSF §8.1.1.2), when given.
    private func streamID(_ request: Request, required: Bool) throws -> String? {
        let id = request.query[String.self, at: "stream_id"]
        if required, id == nil || id?.isEmpty == true {
            throw APIError(.badRequest, code: "invalid_request", reason: "stream_id is required as a query parameter.", field: "stream_id")
        }
        return id
    }

    @Sendable func metadata(request: Request) async throws -> Response {
        let response = try json(TransmitterConfiguration(issuer: try transmitter(request).issuer))
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=3600")
        return response
    }

    @Sendable func create(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        return try json(try await transmitter.create(try body(StreamConfigurationRequest.self, request), client: client), status: .created)
    }

    @Sendable func read(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        if let id = try streamID(request, required: false) {
            return try json(try await transmitter.read(id, client: client)[0])
        }
        return try json(try await transmitter.read(nil, client: client))
    }

    @Sendable func update(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        return try json(try await transmitter.update(try body(StreamConfigurationRequest.self, request), client: client, replacing: false))
    }

    @Sendable func replace(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        return try json(try await transmitter.update(try body(StreamConfigurationRequest.self, request), client: client, replacing: true))
    }

    @Sendable func delete(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        try await transmitter.delete(try streamID(request, required: true) ?? "", client: client)
        return empty(.noContent)
    }

    @Sendable func status(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        return try json(try await transmitter.status(try streamID(request, required: true) ?? "", client: client))
    }

    @Sendable func setStatus(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        return try json(try await transmitter.setStatus(try body(StreamStatusBody.self, request), client: client))
    }

    @Sendable func addSubject(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        try await transmitter.setSubject(try body(StreamSubjectRequest.self, request), removed: false, client: client)
        return empty(.ok)
    }

    @Sendable func removeSubject(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        try await transmitter.setSubject(try body(StreamSubjectRequest.self, request), removed: true, client: client)
        return empty(.noContent)
    }

    @Sendable func verify(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        try await transmitter.verify(try body(VerificationRequest.self, request), client: client)
        return empty(.noContent)
    }

    /// RFC 8936 §2: acknowledgements in, SETs out. An empty body is a poll with the defaults.
    @Sendable func poll(request: Request) async throws -> Response {
        let transmitter = try transmitter(request), client = try await client(request)
        let pollRequest = request.body.data.map { $0.readableBytes > 0 } == true ? try body(PollRequest.self, request) : PollRequest()
        let poll = SharedSignalsPoll(transmitter: transmitter, ring: sessions.ring)
        return try json(try await poll.poll(stream: request.parameters.get("streamID") ?? "", pollRequest, client: client))
    }
}
