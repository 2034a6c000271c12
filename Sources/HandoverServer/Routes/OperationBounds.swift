import Foundation

/// The bounds one operation of `openapi.yaml` declares on its query and path parameters and on
/// its JSON request body, generated into ``OpenAPIDocument/bounds`` by
/// `scripts/openapi/query-parameters.py --bounds` and checked before the handler runs: the
/// parameters and a plain route's body by ``DeclaredBoundsGuard``, a generated operation's body
/// by ``DeclaredBodyBounds`` once its role is checked.
struct OperationBounds: Sendable {
    /// A bounded query or path parameter.
    struct Parameter: Sendable {
        enum Location: Sendable { case query, path }
        var name: String
        var location: Location
        var bounds: ValueBounds

        static func query(_ name: String, _ bounds: ValueBounds) -> Parameter { Parameter(name: name, location: .query, bounds: bounds) }
        static func path(_ name: String, _ bounds: ValueBounds) -> Parameter { Parameter(name: name, location: .path, bounds: bounds) }
    }

    let operationID: String
    /// Whether swift-openapi-generator serves it (`Tools/OpenAPIGenerator/server.yaml`): its body is
    /// checked after its role (``DeclaredBodyBounds``), a plain route's in front (``DeclaredBoundsGuard``).
    let generated: Bool
    let parameters: [Parameter]
    /// The body's bounds, nil when nothing in it is bounded (then it is not read here at all).
    let body: ValueBounds?
    /// The body's ``ValueBounds/shortestBreakingJSON``, worked out once.
    let shortestBreakingBody: Int

    init(operationID: String, generated: Bool, parameters: [Parameter], body: ValueBounds?) {
        self.operationID = operationID
        self.generated = generated
        self.parameters = parameters
        self.body = body
        shortestBreakingBody = body?.shortestBreakingJSON ?? .max
    }

    /// The first value of a JSON `body` outside the body's bounds, or nil; a body too short to
    /// break them is not read.
    func refusal(inBody body: Data) -> ValueBounds.Refusal? {
        guard let bounds = self.body, body.count >= shortestBreakingBody else { return nil }
        return BoundsProbe.refusal(in: body, bounds: bounds)
    }
}

extension OpenAPIDocument {
    /// Each generated operation whose body declares a bound, by operation id.
    static let generatedBodyBounds: [String: OperationBounds] = Dictionary(
        bounds.values.compactMap { operation in operation.generated && operation.body != nil ? (operation.operationID, operation) : nil },
        uniquingKeysWith: { first, _ in first })
}
