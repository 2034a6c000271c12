import ArgumentParser
import Foundation
import UniversalLinks

/// `handover aasa check DOMAIN --cdn`: the origin's file, checked, against the copy devices get
/// from Apple's CDN.
struct AASACDNCheck {
    /// Where devices on iOS 14 and later fetch association files, followed by the domain.
    static let appleCDN = "https://app-site-association.cdn-apple.com/a/v1/"

    var domain: String
    var insecureHTTP: Bool
    var cdnBaseURL: String

    func run() async throws {
        var host = domain
        for prefix in ["https://", "http://"] where host.lowercased().hasPrefix(prefix) { host = String(host.dropFirst(prefix.count)) }
        if let slash = host.firstIndex(of: "/") { host = String(host[..<slash]) }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "@" }) else {
            throw ValidationError("'\(domain)' is not a domain; give one such as example.com")
        }
        let origin = "\(insecureHTTP ? "http" : "https")://\(host)/.well-known/apple-app-site-association"
        let copyURL = cdnBaseURL + host
        print("origin: \(origin)")
        let originResponse = try await AssociationFetcher.fetch(origin)
        let report = HostingCheck.check(originResponse, allowInsecureHTTP: insecureHTTP)
        print(AASACheckCommand.text(report).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        print("Apple's CDN: \(copyURL)")
        let copyResponse = try await AssociationFetcher.fetch(copyURL)
        guard copyResponse.statusCode == 200 else {
            print("  the CDN answers HTTP \(copyResponse.statusCode): it has no copy, so devices cannot associate the domain. "
                  + "The CDN fetches the file from the origin itself; check that the origin answers 200 to any client, without a redirect")
            throw ExitCode(1)
        }
        guard let originFile = try? AssociationFileParser.parse(originResponse.body) else {
            print("  the origin's file does not parse, so it cannot be compared")
            throw ExitCode(1)
        }
        guard let copy = try? AssociationFileParser.parse(copyResponse.body) else {
            print("  the CDN's copy does not parse as an association file")
            throw ExitCode(1)
        }
        let differences = AssociationFileComparison.differences(origin: originFile, copy: copy)
        if differences.isEmpty {
            print(originResponse.body == copyResponse.body
                  ? "  the CDN's copy is the origin's file, byte for byte"
                  : "  the CDN's copy says the same as the origin's file (the bytes differ only in layout)")
        } else {
            for difference in differences { print("  " + difference.description) }
            print("\(differences.count) difference(s): devices see the CDN's copy. Apple's CDN refreshes it periodically, on a schedule Apple does not publish; "
                  + "on a development device, applinks:\(host)?mode=developer fetches from the origin instead")
        }
        if report.hasErrors || !differences.isEmpty { throw ExitCode(1) }
    }
}
