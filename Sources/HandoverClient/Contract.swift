// The contract (states, the callback URL, the wire types of runs) is part of the SDK's API:
// an app that imports HandoverClient sees it without a second import.
@_exported import HandoverProtocol
