import Testing
@testable import UniversalLinks

@Test func moduleLinks() { _ = UniversalLinksModule.self }
