import Foundation
import Vapor

/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
///
/// Apple's CDN fetches the file with no redirects and at most 128 KB; iOS wants JSON with status
/// 200. Both files are generated from the registry and validated before they are served, carry
/// an ETag (answering `If-None-Match` with 304) and a Cache-Control, and are 404 when empty.
struct AssociationFileRoutes: RouteCollection {
    let context: ServerContext

    func boot(routes: RoutesBuilder) throws {
        routes.get(".well-known", "apple-app-site-association", use: apple)
        routes.get(".well-known", "assetlinks.json", use: android)
    }

    @Sendable func apple(_ request: Request) async throws -> Response {
        let entry = try await context.associationFiles.entry(.apple, now: context.clock.now()) {
            let apps = try await RegisteredApp.query(on: request.db).sort(\.$createdAt).all()
            return try AssociationFiles(publicURL: context.publicURL, claimsEmailSignIn: context.mailer != nil).appleFile(apps: apps)
        }
        return try respond(request, entry)
    }

    @Sendable func android(_ request: Request) async throws -> Response {
        let entry = try await context.associationFiles.entry(.android, now: context.clock.now()) {
            let apps = try await RegisteredApp.query(on: request.db).sort(\.$createdAt).all()
            return try AssociationFiles(publicURL: context.publicURL, claimsEmailSignIn: context.mailer != nil).assetLinks(apps: apps)
        }
        return try respond(request, entry)
    }

    private func respond(_ request: Request, _ entry: AssociationFileCache.Entry) throws -> Response {
        guard let body = entry.body, let etag = entry.etag else {
            throw APIError(.notFound, code: "not_found", reason: "No registered app claims links on this domain yet.")
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .eTag, value: etag)
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=300")
        headers.contentType = .json
        if request.headers.first(name: .ifNoneMatch)?.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
        }) == true {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(data: body))
    }
}
