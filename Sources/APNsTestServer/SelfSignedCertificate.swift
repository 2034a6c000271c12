import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate for `localhost` and `127.0.0.1`, signed by its own P-256 key: generated at each
/// start, so no key material is committed.
struct SelfSignedCertificate {
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey
    let derBytes: [UInt8]

    init(now: Date = Date()) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("Handover APNs test server")
            OrganizationName("Handover tests")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(7 * 24 * 3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        derBytes = serializer.serializedBytes
        self.certificate = try NIOSSLCertificate(bytes: derBytes, format: .der)
        self.privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }
}
