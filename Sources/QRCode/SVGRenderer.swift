/// Draws a ``QRCode`` as an SVG document.
enum SVGRenderer {
    /// A standalone SVG: a white background and one black path made of a rectangle per horizontal
    /// run of dark modules, in module units (the `viewBox`), scaled to `moduleSize` pixels.
    static func svg(_ code: QRCode, moduleSize: Int, quietZone: Int) -> String {
        precondition(moduleSize >= 1, "moduleSize must be at least 1")
        precondition(quietZone >= 0, "the quiet zone cannot be negative")
        let side = code.size + 2 * quietZone
        var path = ""
        for y in 0..<code.size {
            var x = 0
            while x < code.size {
                guard code.isDark(x: x, y: y) else { x += 1; continue }
                var run = 1
                while code.isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + quietZone),\(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(side * moduleSize)" height="\(side * moduleSize)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
            <rect width="\(side)" height="\(side)" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
    }
}

extension QRCode {
    /// The code as an SVG document: black modules on white, `moduleSize` pixels per module, with
    /// a light border of `quietZone` modules (4 is what the standard asks for). The picture
    /// scales without blur, so `moduleSize` only sets its default width and height.
    ///
    /// - Precondition: `moduleSize` ≥ 1 and `quietZone` ≥ 0.
    public func svg(moduleSize: Int = 8, quietZone: Int = 4) -> String {
        SVGRenderer.svg(self, moduleSize: moduleSize, quietZone: quietZone)
    }
}
