/// Checks of an app identifier: a 10-character team ID, a dot, then the bundle ID
/// (`ABCDE12345.com.example.app`).
public enum AppIdentifier {
    /// A sentence saying what is wrong with `appID`, or nil when it is well formed.
    public static func problem(with appID: String) -> String? {
        let bytes = Array(appID.utf8)
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else {
            return "\"\(appID)\" is not an app ID; write the 10-character team ID, a dot, then the bundle ID, e.g. \"ABCDE12345.com.example.app\""
        }
        let team = bytes[..<dot], bundle = bytes[(dot + 1)...]
        guard team.count == 10, team.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }) else {
            return "\"\(appID)\" does not start with a team ID; a team ID is 10 upper-case letters or digits (e.g. \"ABCDE12345\"), followed by a dot and the bundle ID"
        }
        guard !bundle.isEmpty, bundle.first != UInt8(ascii: "."), bundle.last != UInt8(ascii: "."),
              !bundle.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains(where: \.isEmpty),
              bundle.allSatisfy({ SplitURL.isLetter($0) || SplitURL.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else {
            return "\"\(appID)\" has an invalid bundle ID after the team ID; a bundle ID is dot-separated parts of letters, digits and hyphens, e.g. \"com.example.app\""
        }
        return nil
    }
}
