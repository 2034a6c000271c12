import Foundation
import QRCode

/// The QR code of a tester link, as inline SVG, to scan with the phone's camera.
package enum TesterQR {
    /// The SVG markup (only the `<svg>` element), or `nil` when the link is too long for a code.
    package static func svg(_ text: String) -> String? {
        guard let code = try? QRCode(encoding: text, correction: .medium) else { return nil }
        let svg = code.svg(moduleSize: 4, quietZone: 4)
        guard let start = svg.range(of: "<svg") else { return nil }
        return String(svg[start.lowerBound...])
    }
}
