import Foundation
@testable import HandoverServer
import Yams

/// Every bound `openapi.yaml` declares (`minimum`, `maximum`, `minLength`, `maxLength`,
/// `minItems`, `maxItems`) on a query or path parameter or a field of a JSON request body, read
/// from the document with a YAML parser of its own (Yams), `$ref`s resolved: what
/// `DeclaredBoundsTests` tries on each side and the route fuzzer draws from. Independent of the
/// server's generated table, so a mistake in the generator shows.
struct DocumentBounds {
    /// Where a bounded value goes in a request.
    enum Location: String { case query, path, body }

    /// One step of a body field's path: an object's member, or an array's first item.
    enum Step: Equatable {
        case member(String)
        case item
    }

    /// One bound of one value, and a value on each side of it.
    struct Case: CustomStringConvertible {
        var method: String
        /// The path template, `/api/v1/custody`.
        var template: String
        var operationID: String
        var location: Location
        /// The parameter's name, or the body field's path as the server names it (`delivery.endpoint_url`, `ack[0]`).
        var field: String
        /// The body field's steps.
        var steps: [Step]
        /// `maximum 100000`.
        var bound: String
        /// The bound itself (accepted as far as bounds go).
        var inside: Any
        /// One past it (refused).
        var outside: Any
        /// The operation's request example, which the values are set into.
        var example: Any?

        var description: String { "\(method) \(template) \(location.rawValue) \(field) \(bound)" }
    }

    /// An operation's declared parameters, for the fuzzer: each parameter's type and bounds.
    struct Parameter {
        var name: String
        var location: Location
        var type: String
        var minimum: Int64?
        var maximum: Int64?
        var minLength: Int?
        var maxLength: Int?
    }

    let document: [String: Any]

    init(yaml: String = OpenAPIDocument.yaml) throws {
        document = (try Yams.load(yaml: yaml) as? [String: Any]) ?? [:]
    }

    private static let methods = ["get", "put", "post", "delete", "patch"]

    /// A `$ref`'s target, followed until it is not one.
    func resolved(_ node: Any?) -> [String: Any] {
        var node = node as? [String: Any] ?? [:]
        var hops = 0
        while let reference = node["$ref"] as? String, hops < 20 {
            var target: Any? = document
            for part in reference.dropFirst(2).split(separator: "/") { target = (target as? [String: Any])?[String(part)] }
            node = target as? [String: Any] ?? [:]
            hops += 1
        }
        return node
    }

    /// Each operation as `(method, template, operation)`, in the document's order of paths.
    func operations() -> [(method: String, template: String, operation: [String: Any], common: [Any])] {
        let paths = document["paths"] as? [String: Any] ?? [:]
        var result: [(String, String, [String: Any], [Any])] = []
        for template in paths.keys.sorted() {
            let item = paths[template] as? [String: Any] ?? [:]
            for method in Self.methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                result.append((method.uppercased(), template, operation, item["parameters"] as? [Any] ?? []))
            }
        }
        return result
    }

    /// The query and path parameters of an operation (`METHOD /template`), with their bounds.
    func parameters(of key: String) -> [Parameter] {
        guard let match = operations().first(where: { "\($0.method) \($0.template)" == key }) else { return [] }
        return (match.common + (match.operation["parameters"] as? [Any] ?? [])).compactMap { node in
            let parameter = resolved(node)
            guard let name = parameter["name"] as? String, let place = parameter["in"] as? String,
                  let location = Location(rawValue: place) else { return nil }
            let schema = resolved(parameter["schema"])
            return Parameter(name: name, location: location, type: schema["type"] as? String ?? "string",
                             minimum: Self.integer(schema["minimum"]), maximum: Self.integer(schema["maximum"]),
                             minLength: Self.integer(schema["minLength"]).map(Int.init), maxLength: Self.integer(schema["maxLength"]).map(Int.init))
        }
    }

    /// Every bound of every operation, a case for each.
    func cases() -> [Case] {
        var cases: [Case] = []
        for (method, template, operation, common) in operations() {
            let operationID = operation["operationId"] as? String ?? ""
            for node in common + (operation["parameters"] as? [Any] ?? []) {
                let parameter = resolved(node)
                guard let name = parameter["name"] as? String, let place = parameter["in"] as? String,
                      let location = Location(rawValue: place) else { continue }
                for (bound, inside, outside) in Self.sides(of: resolved(parameter["schema"])) {
                    cases.append(Case(method: method, template: template, operationID: operationID, location: location, field: name,
                                      steps: [], bound: bound, inside: inside, outside: outside, example: nil))
                }
            }
            let body = resolved(operation["requestBody"])
            guard let json = (body["content"] as? [String: Any])?["application/json"] as? [String: Any] else { continue }
            walk(resolved(json["schema"]), steps: []) { steps, bound, inside, outside in
                cases.append(Case(method: method, template: template, operationID: operationID, location: .body,
                                  field: Self.fieldName(steps), steps: steps, bound: bound, inside: inside, outside: outside,
                                  example: json["example"]))
            }
        }
        return cases
    }

    private func walk(_ schema: [String: Any], steps: [Step], depth: Int = 0, _ visit: ([Step], String, Any, Any) -> Void) {
        guard depth < 8 else { return }
        for (bound, inside, outside) in Self.sides(of: schema) { visit(steps, bound, inside, outside) }
        for (name, property) in (schema["properties"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            walk(resolved(property), steps: steps + [.member(name)], depth: depth + 1, visit)
        }
        if let items = schema["items"] { walk(resolved(items), steps: steps + [.item], depth: depth + 1, visit) }
    }

    /// `delivery.endpoint_url`, `ack[0]`.
    static func fieldName(_ steps: [Step]) -> String {
        var name = ""
        for step in steps {
            switch step {
            case .member(let member): name += (name.isEmpty ? "" : ".") + member
            case .item: name += "[0]"
            }
        }
        return name
    }

    static func integer(_ value: Any?) -> Int64? {
        switch value {
        case let number as Int: Int64(number)
        case let number as Int64: number
        case let number as Double where number == number.rounded(): Int64(exactly: number)
        default: nil
        }
    }

    /// Each bound of a schema, with the bound's value and the one just past it.
    static func sides(of schema: [String: Any]) -> [(String, Any, Any)] {
        var sides: [(String, Any, Any)] = []
        let type = schema["type"] as? String
        if type == "integer" || type == "number" {
            if let minimum = integer(schema["minimum"]), minimum > .min { sides.append(("minimum \(minimum)", minimum, minimum - 1)) }
            if let maximum = integer(schema["maximum"]), maximum < .max { sides.append(("maximum \(maximum)", maximum, maximum + 1)) }
        }
        if type == "string" || type == nil {
            if let minimum = integer(schema["minLength"]), minimum > 0 {
                sides.append(("minLength \(minimum)", String(repeating: "a", count: Int(minimum)), String(repeating: "a", count: Int(minimum) - 1)))
            }
            if let maximum = integer(schema["maxLength"]) {
                sides.append(("maxLength \(maximum)", String(repeating: "a", count: Int(maximum)), String(repeating: "a", count: Int(maximum) + 1)))
            }
        }
        if type == "array" {
            let item: Any = (schema["items"] as? [String: Any])?["type"] as? String == "integer" ? 1 : "a"
            if let minimum = integer(schema["minItems"]), minimum > 0 {
                sides.append(("minItems \(minimum)", Array(repeating: item, count: Int(minimum)), Array(repeating: item, count: Int(minimum) - 1)))
            }
            if let maximum = integer(schema["maxItems"]) {
                sides.append(("maxItems \(maximum)", Array(repeating: item, count: Int(maximum)), Array(repeating: item, count: Int(maximum) + 1)))
            }
        }
        return sides
    }

    /// `body` with `value` at `steps` (objects and arrays made on the way; an array holds just the value).
    static func setting(_ value: Any, at steps: ArraySlice<Step>, in body: Any?) -> Any {
        guard let step = steps.first else { return value }
        switch step {
        case .member(let name):
            var object = body as? [String: Any] ?? [:]
            object[name] = setting(value, at: steps.dropFirst(), in: object[name])
            return object
        case .item:
            return [setting(value, at: steps.dropFirst(), in: (body as? [Any])?.first)]
        }
    }

    /// A parameter's value as text in a URL.
    static func text(_ value: Any) -> String {
        switch value {
        case let number as Int64: String(number)
        case let text as String: text
        default: "\(value)"
        }
    }
}
