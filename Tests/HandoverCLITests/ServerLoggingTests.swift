import Logging
import Testing
@testable import handover

/// The server commands' log handlers. Vapor makes several loggers per request, so making one
/// must not read the process environment (that parsed every variable, three times a request).
@Suite(.timeLimit(.minutes(5))) struct ServerLoggingTests {
    @Test func theLevelIsReadOnceNotPerLogger() {
        let reads = ReadCounter()
        let make = ServerLogging.handlerFactory(defaultLevel: .info) {
            reads.increment()
            return ["LOG_LEVEL": "error"]
        }
        for index in 0..<100 {
            #expect(make("logger \(index)").logLevel == .error)
        }
        #expect(reads.count == 1)
    }

    @Test func anUnknownOrMissingLevelFallsBackToTheDefault() {
        #expect(ServerLogging.handlerFactory(defaultLevel: .warning) { ["LOG_LEVEL": "loud"] }("x").logLevel == .warning)
        #expect(ServerLogging.handlerFactory(defaultLevel: .info) { [:] }("x").logLevel == .info)
        #expect(ServerLogging.handlerFactory(defaultLevel: .info) { ["LOG_LEVEL": "debug"] }("x").logLevel == .debug)
    }

    @Test func metadataBelongsToEachLogger() {
        let make = ServerLogging.handlerFactory(defaultLevel: .info) { [:] }
        var first = make("first")
        first[metadataKey: "request-id"] = "r-1"
        let second = make("second")
        #expect(first[metadataKey: "request-id"] == "r-1")
        #expect(first.metadata == ["request-id": "r-1"])
        #expect(second[metadataKey: "request-id"] == nil)
    }
}

final class ReadCounter: @unchecked Sendable {
    private var value = 0
    func increment() { value += 1 }
    var count: Int { value }
}
