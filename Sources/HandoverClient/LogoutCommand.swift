import Foundation
import LinkCallbacks

/// One accepted logout link, as the journal keeps it.
public struct LogoutCommand: Sendable, Equatable, Codable, Identifiable {
    /// A random identifier, also the journal file's name.
    public var id: String
    /// The link as received, in full.
    public var link: String
    /// When it was received (wall clock), for logs.
    public var receivedAt: Date
    /// Where it is in its life.
    public var state: CommandState

    public init(id: String, link: String, receivedAt: Date, state: CommandState) {
        self.id = id
        self.link = link
        self.receivedAt = receivedAt
        self.state = state
    }

    /// The parsed link. Parsing cannot fail for a journaled command, which was parsed before it
    /// was written; a corrupt file still gets an error rather than a trap.
    public func callback() throws(LinkError) -> UniversalLinkCallback {
        try UniversalLinkCallback(parsing: link)
    }

    /// What identifies "the same request" for joining duplicates: the link without
    /// `ulc-ts`/`ulc-sig`, so a re-signed copy of the same link joins too.
    static func requestKey(_ ulc: UniversalLinkCallback) -> String { ulc.unsigned.text }
}
