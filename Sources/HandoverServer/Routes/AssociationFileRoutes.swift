import Foundation
import HandoverCore
import HandoverSchema
import NIOHTTP1
import Vapor

/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
///
/// Apple's CDN fetches the file with no redirects and at most 128 KB; iOS wants JSON with status
/// 200. Both files are generated from the registry and validated before they are served, carry
/// an ETag (answering `If-None-Match` with 304) and a Cache-Control, and are 404 when empty.
struct AssociationFileRoutes: RouteCollection {
    let origin: PublicOrigin
    /// Whether the files claim the email sign-in link's path (SMTP or a mail folder is configured).
    let claimsEmailSignIn: Bool
    let cache: AssociationFileCache
    let clock: ServerClock
    let databases: ServerDatabases

    func boot(routes: RoutesBuilder) throws {
        routes.get(".well-known", "apple-app-site-association", use: apple)
        routes.get(".well-known", "assetlinks.json", use: android)
    }

    // Not `async`: a file in the cache is answered on the event loop, with no hop to a task.

    @Sendable func apple(_ request: Request) -> EventLoopFuture<Response> {
        serve(.apple, request) {
            let apps = try await RegisteredApp.allByRegistration(on: databases.primary)
            return try AssociationFiles(publicURL: origin.url, claimsEmailSignIn: claimsEmailSignIn).appleFile(apps: apps)
        }
    }

    @Sendable func android(_ request: Request) -> EventLoopFuture<Response> {
        serve(.android, request) {
            let apps = try await RegisteredApp.allByRegistration(on: databases.primary)
            return try AssociationFiles(publicURL: origin.url, claimsEmailSignIn: claimsEmailSignIn).assetLinks(apps: apps)
        }
    }

    /// The cached file at once when it is fresh; otherwise `make` runs in a task (a database read).
    private func serve(_ file: AssociationFileCache.File, _ request: Request,
                       make: @escaping @Sendable () async throws -> Data?) -> EventLoopFuture<Response> {
        let now = clock.now()
        if let entry = cache.fresh(file, now: now) {
            return request.eventLoop.makeCompletedFuture(withResultOf: { try Self.respond(request, entry) })
        }
        let cache = cache
        return request.eventLoop.makeFutureWithTask {
            try Self.respond(request, try await cache.entry(file, now: now, make: make))
        }
    }

    private static func respond(_ request: Request, _ entry: AssociationFileCache.Entry) throws -> Response {
        guard let body = entry.buffer, let etag = entry.etag else {
            throw APIError(.notFound, code: "not_found", reason: "No registered app claims links on this domain yet.")
        }
        if let match = request.headers.first(name: .ifNoneMatch), match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
        }) {
            return Response(status: .notModified, headers: entry.headers)
        }
        return Response(status: .ok, headers: entry.headers, body: .init(buffer: body))
    }
}
