import HandoverCore

// The conformance tester's logic is the domain's (`HandoverCore/Tester`); its results keep their
// public names here, where the server's API (`createTesterRun`, `testerVerdict`, …) returns them.

/// The verdict of a conformance test (``HandoverCore/TesterVerdict``).
public typealias TesterVerdict = HandoverCore.TesterVerdict
/// One round of a conformance test (``HandoverCore/TesterRound``).
public typealias TesterRound = HandoverCore.TesterRound
/// What the tester found in the app's association file (``HandoverCore/TesterAssociationReport``).
public typealias TesterAssociationReport = HandoverCore.TesterAssociationReport
/// A simulated phone the tester may drive (``HandoverCore/TesterSimulator``).
public typealias TesterSimulator = HandoverCore.TesterSimulator
/// An app a ``TesterSimulator`` installed (``HandoverCore/SimulatedTesterApp``).
public typealias SimulatedTesterApp = HandoverCore.SimulatedTesterApp
