import Foundation

/// A CSV file read by RFC 4180: fields separated by commas, records by CRLF or LF, fields in
/// double quotes may hold commas, line breaks and doubled quotes (`""`). A byte-order mark is
/// skipped; blank lines are skipped. Each record keeps the line it started on, for reports.
/// ``CSVWriter`` writes what this reads.
package struct CSVTable: Sendable, Equatable {
    package struct Record: Sendable, Equatable {
        /// The 1-based line the record starts on.
        package var line: Int
        package var fields: [String]
    }

    package var records: [Record]

    /// Why a text is not CSV.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        /// A quoted field is never closed.
        case unclosedQuote(line: Int)
        /// Text follows a closing quote before the next comma or line end.
        case textAfterQuote(line: Int)

        package var description: String {
            switch self {
            case .unclosedQuote(let line): "line \(line): a quoted field is never closed (a \" is missing)"
            case .textAfterQuote(let line): "line \(line): text follows a closing quote; write \"\" for a quote inside a quoted field"
            }
        }
    }

    /// Reads `text`; throws ``Problem`` for text that cannot be split into records.
    package init(parsing text: String) throws(Problem) {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var line = 1
        var recordLine = 1
        var quoted = false
        var afterQuote = false
        var fieldStarted = false
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }

        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty && !fieldStarted) {
                records.append(Record(line: recordLine, fields: fields))
            }
            fields = []
            field = ""
            fieldStarted = false
        }

        var iterator = scalars.makeIterator()
        var pending: Unicode.Scalar? = iterator.next()
        while let scalar = pending {
            pending = iterator.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        field.unicodeScalars.append("\"")
                        pending = iterator.next()
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                fields.append(field)
                field = ""
                afterQuote = false
                fieldStarted = true
            case "\r" where pending == "\n":
                continue
            case "\n", "\r":
                endRecord()
                afterQuote = false
                line += 1
                recordLine = line
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
                fieldStarted = true
            default:
                if afterQuote { throw .textAfterQuote(line: line) }
                field.unicodeScalars.append(scalar)
                fieldStarted = true
            }
        }
        if quoted { throw .unclosedQuote(line: recordLine) }
        if !field.isEmpty || !fields.isEmpty || fieldStarted { endRecord() }
        self.records = records
    }
}
