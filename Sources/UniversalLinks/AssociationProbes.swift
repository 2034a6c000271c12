/// URLs that exercise an association file's patterns, for comparing two files
/// (`handover aasa diff` without a list of URLs).
///
/// For every component and legacy path of either file it writes, on `domain`:
/// - each path pattern with its wildcards filled in (`*` as `x1` and as nothing, `?` as `x`,
///   `$(name)` as the variable's first alternative);
/// - each query pattern filled in the same way, and for a query dictionary also each item left
///   out in turn;
/// - each fragment pattern filled in.
/// The list has no duplicates and keeps the order of first appearance.
public enum AssociationProbes {
    public static func urls(for files: [AssociationFile], domain: String) -> [String] {
        var seen: Set<String> = []
        var urls: [String] = []
        func add(_ path: String, _ query: String?, _ fragment: String?) {
            var path = path
            if !path.hasPrefix("/") { path = "/" + path }
            var url = "https://\(domain)\(path)"
            if let query { url += "?" + query }
            if let fragment { url += "#" + fragment }
            if seen.insert(url).inserted { urls.append(url) }
        }
        for file in files {
            guard let appLinks = file.appLinks else { continue }
            let variables = SubstitutionVariables(appLinks.substitutionVariables)
            for details in appLinks.details {
                for path in details.legacyPaths ?? [] {
                    let pattern = path.hasPrefix("NOT ") ? String(path.dropFirst(4)) : path
                    for filled in fillings(pattern, variables: nil) { add(filled, nil, nil) }
                }
                for component in details.components ?? [] {
                    let paths = fillings(component.path ?? "/", variables: variables)
                    var queries: [String?] = [nil]
                    switch component.query {
                    case .whole(let pattern)?:
                        queries = fillings(pattern, variables: variables).map { $0 }
                    case .items(let items)?:
                        let filled = items.map { item in "\(item.name)=\(fillings(item.pattern ?? "", variables: variables).first ?? "")" }
                        queries = [filled.joined(separator: "&")]
                        for left in filled.indices {
                            let rest = filled.enumerated().filter { $0.offset != left }.map(\.element)
                            queries.append(rest.isEmpty ? nil : rest.joined(separator: "&"))
                        }
                    case nil:
                        break
                    }
                    let fragments: [String?] = component.fragment.map { fillings($0, variables: variables).map { $0 } } ?? [nil]
                    for path in paths {
                        for query in queries {
                            for fragment in fragments { add(path, query, fragment) }
                        }
                    }
                }
            }
        }
        return urls
    }

    /// `pattern` with its wildcards filled in: `*` as `x1`, then (when it has one) `*` as nothing.
    static func fillings(_ pattern: String, variables: SubstitutionVariables?) -> [String] {
        var results: [String] = []
        for star in ["x1", ""] {
            var out = ""
            var rest = Substring(pattern)
            while let first = rest.first {
                if first == "*" {
                    out += star
                    rest = rest.dropFirst()
                } else if first == "?" {
                    out += "x"
                    rest = rest.dropFirst()
                } else if let variables, rest.hasPrefix("$("), let close = rest.firstIndex(of: ")") {
                    let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                    out += variables.alternatives(for: name)?.first ?? name
                    rest = rest[rest.index(after: close)...]
                } else {
                    out.append(first)
                    rest = rest.dropFirst()
                }
            }
            if !results.contains(out) { results.append(out) }
            if !pattern.contains("*") { break }
        }
        return results
    }
}
