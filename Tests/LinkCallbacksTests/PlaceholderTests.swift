import Testing
@testable import LinkCallbacks
@Test func placeholder() {}
