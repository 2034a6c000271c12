import Crypto
import Foundation
import HandoverProtocol
import HandoverSchema
import LinkCallbacks
import UniversalLinks

/// Builds this server's `apple-app-site-association` and `assetlinks.json` from the registry.
///
/// Every app's registered paths are claimed on this server's domain; launchers also claim
/// `/ulc/cb/*`, so callbacks reach them as universal links; a target app whose logout action is
/// on this domain claims that path too. The generator validates what it builds.
package struct AssociationFiles {
    package let publicURL: URL
    /// Whether email-link sign-in is on (SMTP configured): its link path is then claimed for
    /// every registered app.
    package var claimsEmailSignIn = false
    /// The path of email sign-in links.
    package static let emailSignInPath = "/auth/email/verify"

    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
        /// The size the file would have had, when its size is what is wrong.
        package var oversizedBytes: Int?
    }

    /// The file's bytes, or nil when no app claims anything.
    package func appleFile(apps: [RegisteredApp]) throws -> Data? {
        var registrations: [AppRegistration] = []
        for app in apps {
            var paths = app.paths
            if app.role == .launcher { paths.append(CallbackURL.associationPattern) }
            // Email sign-in links open the app; the first installed app listed takes them.
            if claimsEmailSignIn { paths.append(Self.emailSignInPath) }
            if let action = app.logoutAction, let url = URL(string: action), url.host?.lowercased() == publicURL.host?.lowercased(),
               url.port == publicURL.port {
                paths.append(url.path.isEmpty ? "/" : url.path)
            }
            guard !paths.isEmpty else { continue }
            var unique: [String] = []
            for path in paths where !unique.contains(path) { unique.append(path) }
            registrations.append(AppRegistration(appIDs: app.appIDs, paths: unique))
        }
        guard !registrations.isEmpty else { return nil }
        let data: Data
        do {
            data = Data(try AssociationGenerator.appleFile(for: registrations).prettyText.utf8)
        } catch {
            throw Invalid(description: error.description)
        }
        // iOS reads at most 128 KB of the file: a larger one is one the server must never serve.
        guard data.count <= AssociationValidator.maximumSize else {
            throw Invalid(description: "it would be \(data.count) bytes, and iOS reads at most \(AssociationValidator.maximumSize) bytes (128 KB)",
                          oversizedBytes: data.count)
        }
        return data
    }

    /// `assetlinks.json` bytes, or nil when no app has an Android package.
    package func assetLinks(apps: [RegisteredApp]) throws -> Data? {
        let statements = apps.compactMap { app in
            app.androidPackage.map { AssetLinksStatement(packageName: $0, fingerprints: app.androidFingerprints) }
        }
        guard !statements.isEmpty else { return nil }
        do {
            return Data(try AssociationGenerator.assetLinks(for: statements).prettyText.utf8)
        } catch {
            throw Invalid(description: error.description)
        }
    }

    /// A strong ETag for a body.
    package static func etag(_ body: Data) -> String {
        "\"" + Hex.lowercase(SHA256.hash(data: body).prefix(16)) + "\""
    }

    package init(publicURL: URL, claimsEmailSignIn: Bool = false) {
        self.publicURL = publicURL
        self.claimsEmailSignIn = claimsEmailSignIn
    }
}
