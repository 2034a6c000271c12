// The generator runs as `swift run --package-path Tools/OpenAPIGenerator swift-openapi-generator`.
