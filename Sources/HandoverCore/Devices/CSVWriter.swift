import Foundation

/// Writes CSV that ``CSVTable`` reads back (RFC 4180, CRLF line ends) and that a spreadsheet
/// opens without running anything: the one writer of every CSV file Handover makes.
///
/// OWASP's advice on CSV injection: a field that starts with `=`, `+`, `-`, `@`, a tab (U+0009)
/// or a carriage return (U+000D) is one Excel, LibreOffice and Google Sheets may read as a
/// formula (`=cmd|' /C calc'!A0`, `+HYPERLINK(…)`), so it is written with a single quote
/// before it, which the spreadsheet shows as text. A field holding a comma, a double quote or a
/// line break goes in double quotes, with its quotes doubled.
package enum CSVWriter {
    /// The first characters that make a spreadsheet read a cell as a formula.
    package static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// Whether `field` would be read as a formula.
    package static func startsWithFormula(_ field: String) -> Bool {
        field.unicodeScalars.first.map { formulaStarts.contains($0) } ?? false
    }

    /// `field` as a spreadsheet may open it: a formula start neutralised with `'`.
    package static func neutralised(_ field: String) -> String {
        startsWithFormula(field) ? "'" + field : field
    }

    /// One field as written: neutralised, then quoted when it must be. `alone` says the field
    /// is its row's only one, where an empty field is quoted so the row is not a blank line.
    package static func field(_ text: String, alone: Bool = false) -> String {
        let field = neutralised(text)
        // Scalars, not characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        let needsQuotes = field.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" } || field.isEmpty && alone
        return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    /// `rows` as CSV text, each line ended by CRLF.
    package static func render(_ rows: [[String]]) -> String {
        rows.map { row in row.map { field($0, alone: row.count == 1) }.joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }
}
