/// The OpenAPI description of the JSON API, served at `/openapi.yaml`.
enum OpenAPIDocument {
    static let yaml = """
    openapi: 3.0.3
    info:
      title: Handover
      version: "1"
    paths: {}
    """
}
