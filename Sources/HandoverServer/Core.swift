// The domain core is part of the server's API (the clock, the models the CLI reads).
@_exported import HandoverCore
