import Foundation
import HandoverProtocol
import LinkCallbacks
import UniversalLinks

extension AppRegistrar {
    /// The body of `POST /api/v1/apps` and of the dashboard's form: read as it came, so that
    /// ``validated(actionPolicy:)`` can name the field at fault and what it accepts.
    package struct Input: Codable, Hashable, Sendable {
        package var name: String
        package var role: String?
        package var appIDs: [String]
        package var logoutAction: String?
        /// `ulc` (the default), `x-callback` or `backend-only`.
        package var logoutMethod: LogoutMethod?
        package var paths: [String]?
        package var allowedCallbackHosts: [String]?
        package var deadlineSeconds: Int?
        package var maxReissues: Int?
        package var androidPackage: String?
        package var androidFingerprints: [String]?
        package var backchannelLogoutURI: String?
        package var backchannelLogoutSessionRequired: Bool?

        /// Checks that `action` can carry ULC callbacks under `policy` (the registry's apps and the
        /// tester's targets), within ``LogoutActionRule``'s length; throws a 422 naming `field`.
        package static func checkLogoutAction(_ action: String, policy: CallbackPolicy, field: String) throws {
            do {
                try LogoutActionRule.check(action, xCallback: false)
                let probe = try UniversalLinkCallback(actionText: action, successText: "https://handover.invalid/ok",
                                                      errorText: "https://handover.invalid/error")
                _ = try policy.evaluate(probe.text)
            } catch {
                throw DomainError.invalid(field, "\(error.detail); accepted: \(error.accepted)")
            }
        }

        /// Checks an x-callback action: `scheme://x-callback-url/<action>` on a custom scheme that
        /// ``LogoutActionRule`` accepts (none that iOS keeps or that runs code), at most 2,048
        /// characters, with no x-success, x-error or x-cancel (each run adds its own callback URLs).
        package static func checkXCallbackAction(_ action: String) throws {
            do {
                try LogoutActionRule.check(action, xCallback: true)
            } catch {
                throw DomainError.invalid("logoutAction", "\(error.detail); accepted: \(error.accepted)")
            }
            let request: XCallbackRequest
            do {
                request = try XCallbackRequest(parsing: action)
            } catch {
                throw DomainError.invalid("logoutAction", "\(error.detail); accepted: scheme://x-callback-url/action on the app's custom scheme, such as notes://x-callback-url/logout")
            }
            guard request.success == nil, request.error == nil, request.cancel == nil else {
                throw DomainError.invalid("logoutAction", "leave x-success, x-error and x-cancel out: each run adds its own callback URLs")
            }
        }

        /// Checks every field with the pure modules, naming the first one at fault. A logout action
        /// must pass `actionPolicy`: https without a port, or also http on loopback in developer mode.
        package func validated(actionPolicy: CallbackPolicy = .default, targets: OutboundTargets? = nil) throws -> Input {
            var input = self
            input.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...100).contains(input.name.count) else { throw DomainError.invalid("name", "give 1 to 100 characters") }
            guard !input.name.containsControlCharacter else { throw DomainError.invalid("name", String.controlCharacterAdvice) }
            let roleText = role ?? AppRole.target.rawValue
            guard let role = AppRole(rawValue: roleText) else {
                throw DomainError.invalid("role", "'\(roleText)' is not a role; use target (an app to log out) or launcher (the app that starts logouts)")
            }
            input.role = role.rawValue
            guard !appIDs.isEmpty else { throw DomainError.invalid("appIDs", "give at least one app ID, such as ABCDE12345.com.example.app") }
            for (index, appID) in appIDs.enumerated() {
                if let problem = AppIdentifier.problem(with: appID) { throw DomainError.invalid("appIDs[\(index)]", problem) }
            }
            if role == .target {
                let method = logoutMethod ?? .ulc
                switch method {
                case .ulc:
                    guard let action = logoutAction else {
                        throw DomainError.invalid("logoutAction", "a target app needs its logout action, such as https://app.example.com/logout")
                    }
                    try Self.checkLogoutAction(action, policy: actionPolicy, field: "logoutAction")
                case .xCallback:
                    guard let action = logoutAction else {
                        throw DomainError.invalid("logoutAction", "an x-callback app needs its action URL, such as notes://x-callback-url/logout")
                    }
                    try Self.checkXCallbackAction(action)
                case .backendOnly:
                    guard logoutAction == nil else {
                        throw DomainError.invalid("logoutAction", "a backend-only app opens nothing on the device; leave logoutAction out")
                    }
                    guard backchannelLogoutURI != nil else {
                        throw DomainError.invalid("backchannelLogoutURI", "a backend-only app is logged out by its backend: give the backend's back-channel logout URI")
                    }
                }
                input.logoutMethod = method
            } else if logoutAction != nil {
                throw DomainError.invalid("logoutAction", "a launcher has no logout action; leave it out")
            } else if logoutMethod != nil {
                throw DomainError.invalid("logoutMethod", "a launcher is not logged out by a method; leave it out")
            }
            for (index, path) in (paths ?? []).enumerated() {
                guard !path.isEmpty, path.utf8.count <= 1024, !path.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                    throw DomainError.invalid("paths[\(index)]", "give a path pattern such as /logout or /items/*")
                }
            }
            input.allowedCallbackHosts = try Self.canonicalHosts(allowedCallbackHosts ?? [])
            let deadline = deadlineSeconds ?? 20
            guard (1...300).contains(deadline) else { throw DomainError.invalid("deadlineSeconds", "give 1 to 300 seconds (the ULC spec allows 20)") }
            input.deadlineSeconds = deadline
            let reissues = maxReissues ?? 2
            guard (0...10).contains(reissues) else { throw DomainError.invalid("maxReissues", "give 0 to 10 resends") }
            input.maxReissues = reissues
            if let package = androidPackage {
                guard AssetLinksValidator.isPackageName(package) else {
                    throw DomainError.invalid("androidPackage", "'\(package)' is not an Android package name such as com.example.app")
                }
                guard let fingerprints = androidFingerprints, !fingerprints.isEmpty else {
                    throw DomainError.invalid("androidFingerprints", "an Android app needs its SHA-256 signing-certificate fingerprints")
                }
                for (index, fingerprint) in fingerprints.enumerated() {
                    if let problem = AssetLinksValidator.fingerprintProblem(fingerprint) {
                        throw DomainError.invalid("androidFingerprints[\(index)]", problem)
                    }
                }
            } else if !(androidFingerprints ?? []).isEmpty {
                throw DomainError.invalid("androidPackage", "fingerprints were given without the package they sign")
            }
            if let uri = backchannelLogoutURI, let targets, let problem = BackChannelLogoutURI.problem(with: uri, targets: targets) {
                throw DomainError.invalid("backchannelLogoutURI", problem)
            }
            if backchannelLogoutSessionRequired != nil, backchannelLogoutURI == nil {
                throw DomainError.invalid("backchannelLogoutSessionRequired", "give backchannelLogoutURI too, or leave this out")
            }
            return input
        }

        /// At most this many callback hosts per app: a launcher has a handful; use `*.example.com`
        /// for many subdomains.
        package static let maximumCallbackHosts = 100

        /// The allowlist as stored and shown: each entry in its ASCII form (`xn--` labels for
        /// Unicode ones, lower case), each once, in the order given. Refuses a label that mixes
        /// scripts (UTS #39, highly restrictive), such as `аpple.com` with a Cyrillic `а`, and a list
        /// longer than ``maximumCallbackHosts``.
        package static func canonicalHosts(_ entries: [String]) throws -> [String] {
            var hosts: [String] = []
            for (index, entry) in entries.enumerated() {
                let field = "allowedCallbackHosts[\(index)]"
                if let mixed = ScriptRestriction.firstMixedLabel(in: entry) {
                    throw DomainError.invalid(field, "'\(entry)' has a label that mixes scripts ('\(mixed.label)': \(mixed.scripts.joined(separator: " and "))), "
                                           + "so it can pass for another host; accepted: each label in one script (UTS #39), such as example.com or bücher.example")
                }
                let ascii: String
                do {
                    ascii = try HostAllowlist([entry]).description
                } catch {
                    throw DomainError.invalid(field, "\(error.detail); accepted: \(error.accepted)")
                }
                if !hosts.contains(ascii) { hosts.append(ascii) }
            }
            guard hosts.count <= maximumCallbackHosts else {
                throw DomainError.invalid("allowedCallbackHosts", "\(hosts.count) different hosts were given, and an app may list at most \(maximumCallbackHosts); "
                                       + "use a wildcard such as *.example.com for many subdomains")
            }
            return hosts
        }

        package init(name: String, role: String? = nil, appIDs: [String], logoutAction: String? = nil, logoutMethod: LogoutMethod? = nil, paths: [String]? = nil, allowedCallbackHosts: [String]? = nil, deadlineSeconds: Int? = nil, maxReissues: Int? = nil, androidPackage: String? = nil, androidFingerprints: [String]? = nil, backchannelLogoutURI: String? = nil, backchannelLogoutSessionRequired: Bool? = nil) {
            self.name = name
            self.role = role
            self.appIDs = appIDs
            self.logoutAction = logoutAction
            self.logoutMethod = logoutMethod
            self.paths = paths
            self.allowedCallbackHosts = allowedCallbackHosts
            self.deadlineSeconds = deadlineSeconds
            self.maxReissues = maxReissues
            self.androidPackage = androidPackage
            self.androidFingerprints = androidFingerprints
            self.backchannelLogoutURI = backchannelLogoutURI
            self.backchannelLogoutSessionRequired = backchannelLogoutSessionRequired
        }
    }
}
