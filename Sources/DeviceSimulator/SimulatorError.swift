/// Something the simulated phone could not do.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
