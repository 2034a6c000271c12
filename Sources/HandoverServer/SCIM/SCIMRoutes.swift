import Foundation
import HandoverCore
import HandoverProtocol
import NIOFoundationCompat
import SCIM
import Vapor

/// `/scim/v2`: Handover as a SCIM 2.0 service provider (RFC 7644) for the organisation's
/// directory: `Users` and `Groups` (create, read, list with `filter` and paging, replace, patch,
/// delete, `/.search`), and the discovery endpoints. Every request carries the configured bearer
/// token (``DirectorySettings``); every error is an RFC 7644 §3.12 body.
struct SCIMRoutes: RouteCollection {
    /// Nil when the server has no SCIM token: everyone is answered 401.
    let provisioning: DirectoryProvisioning?
    let tokens: [String]
    let throttle: Throttle
    let origin: PublicOrigin

    static let mediaType = HTTPMediaType(type: "application", subType: "scim+json", parameters: ["charset": "utf-8"])
    static let bodyLimit: ByteCount = "1mb"

    func boot(routes: RoutesBuilder) throws {
        let scim = routes.grouped("scim", "v2")
        scim.get("ServiceProviderConfig") { try await self.answer($0) { _, base in (.ok, SCIMDiscovery.serviceProviderConfig(base: base)) } }
        scim.get("ResourceTypes") { try await self.answer($0) { _, base in
            let types = SCIMDiscovery.resourceTypes(base: base)
            return (.ok, SCIMDiscovery.listResponse(types, total: types.count, startIndex: 1))
        } }
        scim.get("ResourceTypes", ":id") { try await self.answer($0) { request, base in
            let id = request.parameters.get("id") ?? ""
            guard let type = SCIMDiscovery.resourceTypes(base: base).first(where: { $0.member("id")?.stringValue == id }) else {
                throw SCIMError(status: 404, detail: "No resource type is named '\(id.prefix(64))'; there are User and Group.")
            }
            return (.ok, type)
        } }
        scim.get("Schemas") { try await self.answer($0) { _, base in
            let schemas = SCIMDiscovery.schemas(base: base)
            return (.ok, SCIMDiscovery.listResponse(schemas, total: schemas.count, startIndex: 1))
        } }
        scim.get("Schemas", ":id") { try await self.answer($0) { request, base in
            let id = request.parameters.get("id") ?? ""
            guard let schema = SCIMDiscovery.schemas(base: base).first(where: { $0.member("id")?.stringValue == id }) else {
                throw SCIMError(status: 404, detail: "No schema has the id '\(id.prefix(120))'.")
            }
            return (.ok, schema)
        } }
        for kind in SCIMResourceKind.allCases {
            let resources = scim.grouped(.constant(kind.endpoint))
            resources.get { try await self.list($0, kind) }
            resources.on(.POST, ".search", body: .collect(maxSize: Self.bodyLimit)) { try await self.search($0, kind) }
            resources.on(.POST, body: .collect(maxSize: Self.bodyLimit)) { try await self.create($0, kind) }
            resources.get(":id") { try await self.read($0, kind) }
            resources.on(.PUT, ":id", body: .collect(maxSize: Self.bodyLimit)) { try await self.replace($0, kind) }
            resources.on(.PATCH, ":id", body: .collect(maxSize: Self.bodyLimit)) { try await self.patch($0, kind) }
            resources.delete(":id") { try await self.delete($0, kind) }
        }
        scim.on(.POST, ".search", body: .collect(maxSize: Self.bodyLimit)) { try await self.searchEverything($0) }
        // The discovery endpoints are read-only: any other method is a 405 (RFC 7644 §3.12: "the
        // service provider does not support the requested operation" for the endpoint).
        for endpoint in ["ServiceProviderConfig", "ResourceTypes", "Schemas"] {
            for method in [HTTPMethod.POST, .PUT, .PATCH, .DELETE] {
                for path in [[PathComponent(stringLiteral: endpoint)], [PathComponent(stringLiteral: endpoint), ":id"]] {
                    scim.on(method, path, body: .collect(maxSize: Self.bodyLimit)) { request in
                        let response = try await self.answer(request) { _, _ in
                            throw SCIMError(status: 405, detail: "/\(endpoint) is read-only: use GET.")
                        }
                        if response.status == .methodNotAllowed { response.headers.replaceOrAdd(name: .allow, value: "GET") }
                        return response
                    }
                }
            }
        }
        for method in [HTTPMethod.GET, .POST, .PUT, .PATCH, .DELETE] {
            scim.on(method, "**") { try await self.answer($0) { request, _ in
                throw SCIMError(status: 404, detail: "There is no SCIM endpoint at \(request.url.path.prefix(200)); there are /Users, /Groups, /ServiceProviderConfig, /ResourceTypes and /Schemas.")
            } }
        }
    }

    // MARK: the operations

    func list(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, base in
            let query = try SCIMQuery(filter: request.query[String.self, at: "filter"], startIndex: request.query[String.self, at: "startIndex"],
                                      count: request.query[String.self, at: "count"], attributes: request.query[String.self, at: "attributes"],
                                      excludedAttributes: request.query[String.self, at: "excludedAttributes"])
            return (.ok, try await listed(query, kind, base: base))
        }
    }

    func search(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, base in
            let body = try Self.body(request)
            return (.ok, try await listed(try SCIMQuery(searchRequest: body), kind, base: base))
        }
    }

    /// `POST /.search` (RFC 7644 §3.4.3): people, then groups, as one list.
    func searchEverything(_ request: Request) async throws -> Response {
        try await answer(request) { request, base in
            let query = try SCIMQuery(searchRequest: try Self.body(request))
            var everything = query
            everything.startIndex = 1
            everything.count = SCIMQuery.maximumCount
            var resources: [SCIMValue] = []
            var total = 0
            for kind in SCIMResourceKind.allCases {
                let list = try await listed(everything, kind, base: base)
                if case .integer(let count)? = list.member("totalResults") { total += Int(count) }
                resources += list.member("Resources")?.arrayValue ?? []
            }
            let page = Array(resources.dropFirst(query.startIndex - 1).prefix(query.count))
            return (.ok, SCIMDiscovery.listResponse(page, total: total, startIndex: query.startIndex))
        }
    }

    func listed(_ query: SCIMQuery, _ kind: SCIMResourceKind, base: String) async throws -> SCIMValue {
        let provisioning = try provisioning(for: kind)
        let found = switch kind {
        case .users: try await provisioning.users(filter: query.filter, startIndex: query.startIndex, count: query.count, base: base)
        case .groups:
            try await provisioning.groups(filter: query.filter, startIndex: query.startIndex, count: query.count, base: base,
                                          withMembers: !query.excludedAttributes.contains { $0.attribute.lowercased() == "members" })
        }
        let projected = found.page.map { kind.schema.projected($0, attributes: query.attributes, excludedAttributes: query.excludedAttributes) }
        return SCIMDiscovery.listResponse(projected, total: found.total, startIndex: query.startIndex)
    }

    func create(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, base in
            let provisioning = try provisioning(for: kind)
            let body = try Self.body(request)
            let outcome = switch kind {
            case .users: try await provisioning.createUser(body, client: Self.client, base: base)
            case .groups: try await provisioning.createGroup(body, client: Self.client, base: base)
            }
            return (.created, outcome.resource)
        }
    }

    func read(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, base in
            let provisioning = try provisioning(for: kind)
            let id = request.parameters.get("id") ?? ""
            let resource = switch kind {
            case .users: try await provisioning.user(id, base: base)
            case .groups: try await provisioning.group(id, base: base)
            }
            let attributes = try SCIMAttributePath.list(parsing: request.query[String.self, at: "attributes"] ?? "")
            let excluded = try SCIMAttributePath.list(parsing: request.query[String.self, at: "excludedAttributes"] ?? "")
            return (.ok, kind.schema.projected(resource, attributes: attributes, excludedAttributes: excluded))
        }
    }

    func replace(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, base in
            let provisioning = try provisioning(for: kind)
            let (id, body, ifMatch) = (request.parameters.get("id") ?? "", try Self.body(request), request.headers.first(name: .ifMatch))
            let outcome = switch kind {
            case .users: try await provisioning.replaceUser(id, body, ifMatch: ifMatch, client: Self.client, base: base)
            case .groups: try await provisioning.replaceGroup(id, body, ifMatch: ifMatch, client: Self.client, base: base)
            }
            return (.ok, outcome.resource)
        }
    }

    func patch(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, base in
            let provisioning = try provisioning(for: kind)
            let (id, ifMatch) = (request.parameters.get("id") ?? "", request.headers.first(name: .ifMatch))
            let patch = try SCIMPatchRequest(body: try Self.body(request))
            let outcome = switch kind {
            case .users: try await provisioning.patchUser(id, patch, ifMatch: ifMatch, client: Self.client, base: base)
            case .groups: try await provisioning.patchGroup(id, patch, ifMatch: ifMatch, client: Self.client, base: base)
            }
            return (.ok, outcome.resource)
        }
    }

    func delete(_ request: Request, _ kind: SCIMResourceKind) async throws -> Response {
        try await answer(request) { request, _ in
            let provisioning = try provisioning(for: kind)
            let (id, ifMatch) = (request.parameters.get("id") ?? "", request.headers.first(name: .ifMatch))
            switch kind {
            case .users: try await provisioning.deleteUser(id, ifMatch: ifMatch, client: Self.client)
            case .groups: try await provisioning.deleteGroup(id, ifMatch: ifMatch, client: Self.client)
            }
            return (.noContent, nil)
        }
    }

    // MARK: the exchange

    /// Who the audit log names for a change: the directory's SCIM client.
    static let client = "the directory's SCIM client"

    func provisioning(for kind: SCIMResourceKind) throws -> DirectoryProvisioning {
        guard let provisioning else { throw SCIMError(status: 401, detail: "This server takes no SCIM requests: HANDOVER_SCIM_TOKEN is not set.") }
        return provisioning
    }

    static func body(_ request: Request) throws(SCIMError) -> SCIMValue {
        guard let buffer = request.body.data, buffer.readableBytes > 0 else {
            throw SCIMError.bad(.invalidSyntax, "The request has no body; send a JSON object (application/scim+json).")
        }
        do {
            let value = try JSONDecoder().decode(SCIMValue.self, from: Data(buffer: buffer))
            guard case .object = value else { throw SCIMError.bad(.invalidSyntax, "The body is not a JSON object.") }
            return value
        } catch let error as SCIMError {
            throw error
        } catch {
            throw SCIMError.bad(.invalidSyntax, "The body is not JSON (RFC 8259): \(String(describing: error).prefix(200)).")
        }
    }

    /// Checks the bearer token, runs `work` with the base URL of locations, and answers its
    /// resource (with its `ETag`) or its error as RFC 7644 §3.12 says.
    func answer(_ request: Request, _ work: (Request, String) async throws -> (HTTPStatus, SCIMValue?)) async throws -> Response {
        var base = origin.url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        base += "/scim/v2"
        do {
            try authenticate(request)
            let (status, value) = try await work(request, base)
            return try Self.response(status, value)
        } catch let error as SCIMError {
            return try Self.response(HTTPStatus(statusCode: error.status), error.body)
        } catch let error as DomainError {
            // The domain's refusals (a rate limit, a conflict) keep their status, in SCIM's body.
            let status = APIError(error).status
            let response = try Self.response(status, SCIMError(status: Int(status.code), detail: error.reason).body)
            if let wait = error.retryAfter { response.headers.replaceOrAdd(name: .retryAfter, value: String(wait)) }
            return response
        }
    }

    /// The token compared in constant time with each configured one; a wrong one counted against
    /// its address (``RateLimits/Policy/wrongBearer``), a right one never.
    func authenticate(_ request: Request) throws {
        let given = request.headers.bearerAuthorization?.token ?? ""
        let digest = BearerSecret.digest(given)
        var matched = false
        for token in tokens where CallbackNonce.constantTimeEqual(digest, BearerSecret.digest(token)) { matched = true }
        guard matched, !given.isEmpty else {
            if let wait = throttle.attempt(.wrongBearer, request) { throw DomainError.rateLimited(retryAfter: wait) }
            throw SCIMError(status: 401, detail: tokens.isEmpty ? "This server takes no SCIM requests: HANDOVER_SCIM_TOKEN is not set."
                                : "Send Authorization: Bearer with the token in HANDOVER_SCIM_TOKEN.")
        }
    }

    static func response(_ status: HTTPStatus, _ value: SCIMValue?) throws -> Response {
        let response = Response(status: status)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        guard let value else { return response }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        response.body = .init(data: try encoder.encode(value))
        response.headers.contentType = mediaType
        if let version = value.member("meta")?.member("version")?.stringValue { response.headers.replaceOrAdd(name: .eTag, value: version) }
        if status == .created, let location = value.member("meta")?.member("location")?.stringValue {
            response.headers.replaceOrAdd(name: .location, value: location)
        }
        return response
    }
}

/// The two resource types Handover provisions.
enum SCIMResourceKind: CaseIterable {
    case users, groups

    var endpoint: String { self == .users ? "Users" : "Groups" }
    var schema: SCIMResourceSchema { self == .users ? .user : .group }
}
