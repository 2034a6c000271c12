import Foundation
import LinkCallbacks

/// Dispatches incoming x-callback-url links (`myapp://x-callback-url/<action>?…`) to handlers,
/// and replies through `x-success`, `x-error` or `x-cancel`, whose targets must pass the
/// router's `CallbackPolicy` (its host allowlist and allowed custom schemes).
///
/// ```swift
/// let router = XCallbackRouter(scheme: "notes", policy: CallbackPolicy(allowedCustomSchemes: ["launcher"]), opener: opener)
/// router.register("add") { request in
///     guard let text = request.parameter("text") else { return .failure(code: 400, message: "text is missing") }
///     return .success(["id": try await store.add(text)])
/// }
/// await router.handle(url)
/// ```
public final class XCallbackRouter: Sendable {
    /// A handler for one action.
    public typealias Handler = @Sendable (XCallbackRequest) async -> XCallbackOutcome

    /// What happened to one incoming link.
    public enum Dispatch: Sendable, Equatable {
        /// The action ran; `reply` is the URL opened, or `nil` when the request named no target
        /// for this outcome.
        case handled(action: String, outcome: XCallbackOutcome, reply: URL?)
        /// The action ran, but its reply target was refused by the policy and not opened.
        case replyRefused(action: String, outcome: XCallbackOutcome, reason: LinkError)
        /// The link is not an x-callback-url request for this app's scheme.
        case notAnXCallback(LinkError)
        /// No handler is registered for the action; `x-error` (if allowed) was opened with code 404.
        case unknownAction(String, reply: URL?)
    }

    /// The app's own scheme (`notes`).
    public let scheme: String
    private let policy: CallbackPolicy
    private let opener: any URLOpener
    private let handlers = Protected<[String: Handler]>([:])

    public init(scheme: String, policy: CallbackPolicy, opener: any URLOpener) {
        self.scheme = scheme.lowercased()
        self.policy = policy
        self.opener = opener
    }

    /// Registers (or replaces) the handler for `action`.
    public func register(_ action: String, handler: @escaping Handler) {
        handlers.withLock { $0[action] = handler }
    }

    /// Registers a typed action: its input is decoded from the request first, and a decoding
    /// failure replies through `x-error` with code 400.
    public func register<Input: XCallbackInput>(_ input: Input.Type,
                                                handler: @escaping @Sendable (Input) async -> XCallbackOutcome) {
        register(Input.action) { request in
            do {
                return await handler(try Input(request: request))
            } catch {
                return .failure(code: 400, message: "\(error)")
            }
        }
    }

    /// Parses, dispatches and replies.
    @discardableResult
    public func handle(_ url: URL) async -> Dispatch {
        let request: XCallbackRequest
        do {
            request = try XCallbackRequest(parsing: url.absoluteString)
        } catch {
            return .notAnXCallback(error)
        }
        guard request.scheme.lowercased() == scheme else {
            return .notAnXCallback(LinkError(parameter: "scheme", problem: .disallowedScheme,
                                             detail: "the scheme is \(request.scheme)", accepted: scheme))
        }
        guard let handler = handlers.withLock({ $0[request.action] }) else {
            let reply = await open(request.errorReply(code: 404, message: "unknown action \(request.action)"), parameter: "x-error")
            return .unknownAction(request.action, reply: (try? reply.get()) ?? nil)
        }
        let outcome = await handler(request)
        let target: URL?
        let parameter: String
        switch outcome {
        case .success(let results):
            target = XCallbackRequest.reply(to: request.success, results.sorted { $0.key < $1.key }
                .map { QueryParameter(name: $0.key, value: $0.value) })
            parameter = "x-success"
        case .failure(let code, let message):
            target = request.errorReply(code: code, message: message)
            parameter = "x-error"
        case .cancelled:
            target = request.cancelReply()
            parameter = "x-cancel"
        }
        switch await open(target, parameter: parameter) {
        case .success(let opened): return .handled(action: request.action, outcome: outcome, reply: opened)
        case .failure(let reason): return .replyRefused(action: request.action, outcome: outcome, reason: reason)
        }
    }

    private func open(_ target: URL?, parameter: String) async -> Swift.Result<URL?, LinkError> {
        guard let target else { return .success(nil) }
        do {
            try policy.checkCallback(target.absoluteString, parameter: parameter, allowsCustomScheme: true)
        } catch {
            return .failure(error)
        }
        _ = await opener.open(target)
        return .success(target)
    }
}

extension XCallbackRequest {
    fileprivate static func reply(to target: URL?, _ items: [QueryParameter]) -> URL? {
        target.flatMap { reply(to: $0, items) }
    }
}

/// A typed x-callback action: its name and how its input is read from a request.
public protocol XCallbackInput: Sendable {
    /// The action's name, the path after `x-callback-url/`.
    static var action: String { get }
    /// Reads the input from the request's parameters, or throws a `LinkError` naming the
    /// parameter at fault.
    init(request: XCallbackRequest) throws(LinkError)
}
