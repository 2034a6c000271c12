import Vapor

extension Route {
    /// The operation this route serves as `openapi.yaml` names it, `METHOD /path/{parameter}`:
    /// the key of ``OpenAPIDocument/queryParameters`` and ``OpenAPIDocument/bounds``.
    var operationKey: String {
        var key = method.rawValue + " "
        for component in path {
            key += "/"
            switch component {
            case .constant(let text): key += text
            case .parameter(let name): key += "{" + name + "}"
            case .anything: key += "*"
            case .catchall: key += "**"
            }
        }
        return key
    }
}
