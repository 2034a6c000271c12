import Foundation
import HandoverCore
import HandoverProtocol
import TransparencyLog
import Vapor

/// The proof routes: a run's signed receipt, and the audit log read as RFC 9162 and C2SP say
/// (`openapi.yaml` documents each). Plain routes: their answers are a JWS, a signed note and
/// proofs, not the generated API's JSON bodies.
///
/// - `GET /api/v1/logout-runs/{runID}/receipt`: `application/jwt`; any role, or the run's device key.
/// - `GET /api/v1/audit/checkpoint`: the latest signed checkpoint, as the note's text; `POST`
///   signs one of the log as it is now first.
/// - `GET /api/v1/audit/key`: the checkpoints' verifier key, `<name>+<hash>+<key>`.
/// - `GET /api/v1/audit/entries?start=&end=`: entries by index, at most 1,000 at a time.
/// - `GET /api/v1/audit/proofs/inclusion?index=&size=`, `…/consistency?from=&to=`.
///
/// The log's routes take an admin key (or an admin's session key).
struct AuditRoutes: RouteCollection {
    let api: APIServices
    let audit: AuditService

    func boot(routes: RoutesBuilder) throws {
        routes.grouped(RequireScope(role: .viewer, device: true)).get("logout-runs", ":runID", "receipt", use: receipt)
        let log = routes.grouped("audit").grouped(RequireScope(role: .admin))
        log.get("checkpoint", use: checkpoint)
        log.post("checkpoint", use: signCheckpoint)
        log.get("key", use: key)
        log.get("entries", use: entries)
        log.get("proofs", "inclusion", use: inclusion)
        log.get("proofs", "consistency", use: consistency)
    }

    @Sendable func receipt(_ request: Request) async throws -> Response {
        let view = try await api.handler(for: request).authorizedView(request.parameters.get("runID") ?? "")
        guard let jws = try await RunReceipts.receipt(of: view.id, on: try api.databases.readSQL()) else {
            throw DomainError(.notFound, code: "no_receipt",
                              reason: view.isRunning ? "the run is still running: its receipt is signed when it ends."
                                  : "this run ended before receipts were kept.")
        }
        return Self.text(jws, type: "application/jwt")
    }

    @Sendable func checkpoint(_ request: Request) async throws -> Response {
        guard let checkpoint = try await AuditLog(sql: try api.databases.readSQL()).latestCheckpoint() else {
            throw DomainError(.notFound, code: "no_checkpoint", reason: "no checkpoint has been signed yet: the first is signed within a minute of the first entry.")
        }
        return Self.text(checkpoint.note, type: "text/plain; charset=utf-8")
    }

    /// Signs a checkpoint of the log as it is now (when it grew since the last), and answers the
    /// latest: before an export, a checkpoint that covers every entry written so far.
    @Sendable func signCheckpoint(_ request: Request) async throws -> Response {
        try await audit.checkpoint()
        return try await checkpoint(request)
    }

    @Sendable func key(_ request: Request) async throws -> Response {
        Self.text(try await audit.verifierKey().description + "\n", type: "text/plain; charset=utf-8")
    }

    @Sendable func entries(_ request: Request) async throws -> Response {
        let log = AuditLog(sql: try api.databases.readSQL())
        let size = try await log.size()
        let start = try Self.integer("start", in: request, default: 0, range: 0...size)
        let end = try Self.integer("end", in: request, default: min(size, start + 1_000), range: start...min(size, start + 1_000))
        let entries = try await log.entries(from: start, to: end).map { entry in
            AuditEntryView(index: entry.index, leaf: entry.leaf.base64EncodedString(), entry: try? AuditEvent.decode(leaf: entry.leaf))
        }
        return try Self.json(AuditEntriesView(treeSize: size, entries: entries))
    }

    @Sendable func inclusion(_ request: Request) async throws -> Response {
        let log = AuditLog(sql: try api.databases.readSQL())
        let size = try Self.integer("size", in: request, default: nil, range: 1...(try await log.size()))
        let index = try Self.integer("index", in: request, default: nil, range: 0...(size - 1))
        let path = try await log.tree(size: size).inclusionProof(index: index, size: size)
        return try Self.json(InclusionProofView(index: index, treeSize: size, path: path.map { $0.base64 }))
    }

    @Sendable func consistency(_ request: Request) async throws -> Response {
        let log = AuditLog(sql: try api.databases.readSQL())
        let to = try Self.integer("to", in: request, default: nil, range: 0...(try await log.size()))
        let from = try Self.integer("from", in: request, default: nil, range: 0...to)
        let path = try await log.tree(size: to).consistencyProof(from: from, to: to)
        return try Self.json(ConsistencyProofView(from: from, to: to, path: path.map { $0.base64 }))
    }

    // MARK: Reading and writing

    /// A query parameter that must be a whole number in `range` (and is required without a default).
    static func integer(_ name: String, in request: Request, default fallback: Int?, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.query[String.self, at: name] else {
            guard let fallback else {
                throw DomainError(.badRequest, code: "missing_parameter", reason: "\(name): required, a whole number from \(range.lowerBound) to \(range.upperBound).", field: name)
            }
            return fallback
        }
        guard let value = Int(text), range.contains(value) else {
            throw DomainError(.badRequest, code: "invalid_parameter",
                              reason: "\(name): \"\(text.prefix(40))\" is not a whole number from \(range.lowerBound) to \(range.upperBound).", field: name)
        }
        return value
    }

    static func text(_ body: String, type: String) -> Response {
        let response = Response(status: .ok, body: .init(string: body))
        response.headers.replaceOrAdd(name: .contentType, value: type)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return text(String(decoding: try encoder.encode(value), as: UTF8.self), type: "application/json")
    }
}

/// `GET /api/v1/audit/entries`'s answer.
struct AuditEntriesView: Encodable {
    var treeSize: Int
    var entries: [AuditEntryView]
}

/// One entry: its index, `leaf` (base64 of the exact bytes hashed), and the entry decoded for people.
struct AuditEntryView: Encodable {
    var index: Int
    var leaf: String
    var entry: AuditEvent?
}

/// RFC 9162 §2.1.3's inclusion proof: the path from the leaf up, as base64 hashes.
struct InclusionProofView: Encodable {
    var index: Int
    var treeSize: Int
    var path: [String]
}

/// RFC 9162 §2.1.4's consistency proof, as base64 hashes.
struct ConsistencyProofView: Encodable {
    var from: Int
    var to: Int
    var path: [String]
}
