import Foundation
import LinkCallbacks

/// What this module accepts of the URLs it reads, on top of the one strict reader,
/// `LinkCallbacks.RawURL`: links, redeem URLs and callback targets.
///
/// `RawURL` splits a URL as written and refuses what no URL may hold; these rules add what an
/// out-of-band link needs (an authority, an ASCII host, no user info, a port that is a port) and
/// report every refusal as an ``OutOfBandError`` naming the field at fault.
enum URLRules {
    /// The longest text read: a QR code holds at most 2,953 bytes, and a link with a sealed
    /// payload and three callback targets stays well under this.
    static let maximumLength = 16_384

    /// Reads `text` as an absolute `scheme://host[:port]/…` URL; a refusal is a
    /// ``OutOfBandError/Problem/malformedLink`` naming `field`, or the link parameter that holds a
    /// broken percent-encoding.
    static func link(_ text: String, field: String, accepted: String) throws(OutOfBandError) -> RawURL {
        func failure(_ detail: String, _ problem: OutOfBandError.Problem = .malformedLink) -> OutOfBandError {
            OutOfBandError(field: field, problem: problem, detail: detail, accepted: accepted)
        }
        let length = text.utf8.count
        guard length <= maximumLength else { throw failure("it is \(length) bytes long, more than \(maximumLength)", .tooLong) }
        guard length > 0 else { throw failure("it is empty", .missing) }
        let url: RawURL
        do { url = try RawURL(text, parameter: field, blamingQueryItems: true) } catch {
            throw OutOfBandError(field: error.parameter, problem: .malformedLink, detail: error.detail,
                                 accepted: error.parameter == field ? accepted : error.accepted)
        }
        guard let host = url.host else { throw failure("there is no '//' after the scheme") }
        guard url.userInfo == nil else { throw failure("it carries a user name or password before '@'") }
        guard host.unicodeScalars.allSatisfy(\.isASCII) else { throw failure("the host holds non-ASCII text") }
        guard !host.isEmpty else { throw failure("it has no host") }
        if let port = url.port {
            guard !port.isEmpty, let value = Int(port), (0...65535).contains(value) else {
                throw failure("the port '\(OutOfBandError.excerpt(port))' is not a number from 0 to 65535")
            }
        }
        return url
    }

    /// The `name=value` items of the query, then of the fragment, percent-decoded; an item with
    /// no `=` has the empty value. A refusal names the item (or `field` for its name).
    static func parameters(of url: RawURL, field: String) throws(OutOfBandError) -> [(name: String, value: String)] {
        let items: [QueryParameter]
        do { items = try url.queryParameters(parameter: field) + url.fragmentParameters(parameter: field) } catch {
            throw OutOfBandError(field: error.parameter, problem: .malformedLink, detail: error.detail, accepted: error.accepted)
        }
        var result: [(name: String, value: String)] = []
        for item in items where !item.raw.isEmpty {
            for (text, blamed) in [(item.name, field), (item.value ?? "", item.name)] where hidesControlCharacter(text) {
                throw OutOfBandError(field: blamed, problem: .malformedLink, detail: "it hides a control character in percent-encoding",
                                     accepted: "text without control characters")
            }
            result.append((item.name, item.value ?? ""))
        }
        return result
    }

    /// Decodes one percent-encoded part (an x-callback action), refusing bytes that are not
    /// UTF-8 and decoded control characters.
    static func decoded(_ text: some StringProtocol, field: String) throws(OutOfBandError) -> String {
        guard let decoded = PercentEncoding.decode(text) else {
            throw OutOfBandError(field: field, problem: .malformedLink, detail: "the percent-encoded bytes are not UTF-8",
                                 accepted: "percent-encoded UTF-8")
        }
        guard !hidesControlCharacter(decoded) else {
            throw OutOfBandError(field: field, problem: .malformedLink, detail: "it hides a control character in percent-encoding",
                                 accepted: "text without control characters")
        }
        return decoded
    }

    private static func hidesControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether the host is this machine: `localhost`, `127.x.x.x` or `[::1]`.
    static func isLoopback(_ url: RawURL) -> Bool {
        CallbackPolicy.isLoopback(url.host)
    }

    /// A redeem URL: https, or http on a loopback host (development); no user info, no fragment.
    static func redeemURL(_ text: String, field: String = "redeemURL") throws(OutOfBandError) -> URL {
        let accepted = "an https URL (http only on localhost, 127.0.0.1 or [::1]) with no user info or fragment"
        let url: RawURL
        do { url = try link(text, field: field, accepted: accepted) } catch {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: error.detail, accepted: accepted)
        }
        let scheme = url.lowercasedScheme
        guard scheme == "https" || scheme == "http" && isLoopback(url) else {
            throw OutOfBandError(field: field, problem: .invalidValue,
                                 detail: "the scheme \(scheme) is not allowed for host \(OutOfBandError.excerpt(url.host ?? ""))", accepted: accepted)
        }
        guard url.fragment == nil else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "it has a fragment", accepted: accepted)
        }
        guard let foundation = URL(string: text) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "Foundation cannot read it as a URL", accepted: accepted)
        }
        return foundation
    }

    /// An x-callback target: any absolute `scheme://…` URL except script and data schemes.
    /// Whether the target is allowed is the app's policy, not this module's.
    static func callbackTarget(_ text: String, field: String) throws(OutOfBandError) -> URL {
        let accepted = "an absolute URL such as https://example.com/done or otherapp://x-callback-url/done"
        let url: RawURL
        do { url = try link(text, field: field, accepted: accepted) } catch {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: error.detail, accepted: accepted)
        }
        let scheme = url.lowercasedScheme
        guard !["javascript", "data", "file", "vbscript", "blob", "about"].contains(scheme) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "the scheme \(scheme) is never a callback", accepted: accepted)
        }
        guard let foundation = URL(string: text) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "Foundation cannot read it as a URL", accepted: accepted)
        }
        return foundation
    }

    /// Any absolute URL Foundation reads unchanged, its host put in ASCII (IDNA) form: the source
    /// documents' `redeem_url`, which names another system's server (its scheme is that system's
    /// business, as it was when LinkCallbacks read it).
    static func absoluteURL(_ text: String, field: String) throws(OutOfBandError) -> URL {
        let accepted = "an absolute URL, such as https://auth.example.com/redeem"
        do {
            var url = try RawURL(text, parameter: field)
            if let host = url.host, !host.unicodeScalars.allSatisfy(\.isASCII) {
                url.host = try HostName(host, parameter: field).ascii
            }
            guard let foundation = URL(string: url.text), foundation.absoluteString == url.text else {
                throw OutOfBandError(field: field, problem: .invalidValue,
                                     detail: "'\(OutOfBandError.excerpt(url.text))' is not a URL Foundation reads unchanged", accepted: accepted)
            }
            return foundation
        } catch let error as OutOfBandError {
            throw error
        } catch let error as LinkError {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: error.detail, accepted: accepted)
        } catch {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "\(error)", accepted: accepted)
        }
    }
}
