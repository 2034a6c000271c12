/// The QR code of a tester link, as inline SVG, to scan with the phone's camera.
enum TesterQR {
    static func svg(_ text: String) -> String? { nil }
}
