import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct RendererTests {
    /// The SVG is well-formed XML, its size is (modules + 2 × quiet zone) × module size, and its
    /// path covers exactly the dark modules.
    @Test func svgIsWellFormedAndDrawsExactlyTheDarkModules() throws {
        let code = try QRCode(encoding: "https://example.com/svg", correction: .high)
        let quietZone = 4, moduleSize = 5
        let svg = code.svg(moduleSize: moduleSize, quietZone: quietZone)

        let collector = SVGCollector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        #expect(parser.parse(), "parse error: \(String(describing: parser.parserError))")
        let root = try #require(collector.elements.first)
        let side = code.size + 2 * quietZone
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["width"] == "\(side * moduleSize)" && root.attributes["viewBox"] == "0 0 \(side) \(side)")

        // Rasterise the path: each subpath is "Mx,yhNv1h-Nz", a rectangle N modules wide and 1 high.
        let path = try #require(collector.elements.first { $0.name == "path" }?.attributes["d"])
        var painted = Set<[Int]>()
        for subpath in path.split(separator: "z") {
            let numbers = subpath.split(whereSeparator: { "Mhv,".contains($0) }).compactMap { Int($0) }
            #expect(numbers.count == 5 && numbers[3] == 1 && numbers[4] == -numbers[2])
            for dx in 0..<numbers[2] { #expect(painted.insert([numbers[0] + dx - quietZone, numbers[1] - quietZone]).inserted) }
        }
        for y in 0..<code.size {
            for x in 0..<code.size { #expect(painted.contains([x, y]) == code.isDark(x: x, y: y)) }
        }
        #expect(painted.count == code.modules.joined().filter { $0 }.count)
    }

    /// Each character is a column of two modules; reading the block characters back gives the
    /// modules, inverted for a dark terminal background.
    @Test(arguments: [QRCode.TerminalBackground.dark, .light])
    func terminalTextReadsBackAsTheModules(background: QRCode.TerminalBackground) throws {
        let code = try QRCode(encoding: "terminal", correction: .low)
        let quietZone = 4
        let lines = code.terminalText(quietZone: quietZone, background: background).split(separator: "\n", omittingEmptySubsequences: false)
        let side = code.size + 2 * quietZone
        #expect(lines.count == (side + 1) / 2)
        for (row, line) in lines.enumerated() {
            let characters = Array(line)
            #expect(characters.count == side)
            for (x, character) in characters.enumerated() {
                let halves: (top: Bool, bottom: Bool) = switch character {
                case "█": (true, true)
                case "▀": (true, false)
                case "▄": (false, true)
                default: (false, false)
                }
                for (y, drawn) in [(2 * row, halves.top), (2 * row + 1, halves.bottom)] where y < side {
                    let dark = code.isDark(x: x - quietZone, y: y - quietZone)
                    #expect(drawn == (background == .dark ? !dark : dark), "(\(x), \(y))")
                }
            }
        }
    }
}

/// Collects elements and their attributes.
final class SVGCollector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append((elementName, attributes))
    }
}
