/// A piece of HTML built in Swift. Text is escaped when it is added, so no value from a user,
/// a device or the database can inject markup; only ``raw(_:)`` takes markup, and only for
/// markup this server generated itself (an SVG QR code, a constant script).
///
/// ```swift
/// let row: HTML = .element("tr") {
///     HTML.element("td") { app.name }          // a String is escaped text
///     HTML.element("td", ["class": "status"]) { status }
/// }
/// ```
package struct HTML: Sendable, ExpressibleByStringLiteral {
    /// The markup.
    package private(set) var rendered: String

    private init(rendered: String) { self.rendered = rendered }

    /// Escaped text.
    package init(_ text: String) { rendered = HTMLPage.escape(text) }

    package init(stringLiteral value: String) { self.init(value) }

    /// Nothing.
    package static let empty = HTML(rendered: "")

    /// Markup taken as is: only for markup this server produced.
    package static func raw(_ markup: String) -> HTML { HTML(rendered: markup) }

    /// Several pieces one after another.
    package static func join(_ parts: [HTML]) -> HTML { HTML(rendered: parts.map(\.rendered).joined()) }

    /// `<name attributes>content</name>`; attribute values are escaped; a `nil` value omits
    /// the attribute and an empty one writes it bare (`checked`).
    package static func element(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:],
                        @HTMLBuilder _ content: () -> HTML = { .empty }) -> HTML {
        var open = "<" + name
        for (key, value) in attributes {
            guard let value else { continue }
            open += value.isEmpty ? " \(key)" : " \(key)=\"\(HTMLPage.escape(value))\""
        }
        open += ">"
        if Self.voidElements.contains(name) { return HTML(rendered: open) }
        return HTML(rendered: open + content().rendered + "</\(name)>")
    }

    private static let voidElements: Set<String> = ["br", "input", "meta", "link", "img", "hr"]
}

/// Lets ``HTML/element(_:_:_:)`` take its content as a block of pieces, strings and loops.
@resultBuilder
package enum HTMLBuilder {
    package static func buildExpression(_ html: HTML) -> HTML { html }
    package static func buildExpression(_ text: String) -> HTML { HTML(text) }
    package static func buildExpression(_ parts: [HTML]) -> HTML { .join(parts) }
    package static func buildBlock(_ parts: HTML...) -> HTML { .join(parts) }
    package static func buildArray(_ parts: [HTML]) -> HTML { .join(parts) }
    package static func buildOptional(_ part: HTML?) -> HTML { part ?? .empty }
    package static func buildEither(first: HTML) -> HTML { first }
    package static func buildEither(second: HTML) -> HTML { second }
}
