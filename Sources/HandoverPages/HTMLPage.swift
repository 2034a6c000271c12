/// A small, self-contained HTML page (no scripts, no external assets) that reads well on a phone.
package struct HTMLPage: Sendable {
    package var title: String
    package var heading: String
    package var paragraphs: [String]
    /// More markup after the paragraphs (a form), built with ``HTML`` so every value is escaped.
    package var extra: HTML = .empty

    package init(title: String, heading: String, paragraphs: [String], extra: HTML = .empty) {
        self.title = title
        self.heading = heading
        self.paragraphs = paragraphs
        self.extra = extra
    }

    /// Escapes text for HTML.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    package var html: String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Self.escape(title))</title>
        <style>body{font-family:-apple-system,system-ui,sans-serif;margin:2rem auto;max-width:32rem;padding:0 1rem;line-height:1.5;color:#1d1d1f}
        h1{font-size:1.4rem}</style></head>
        <body><h1>\(Self.escape(heading))</h1>
        \(paragraphs.map { "<p>\(Self.escape($0))</p>" }.joined(separator: "\n"))
        \(extra.rendered)
        </body></html>
        """
    }
}
