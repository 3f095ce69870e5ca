import Foundation
import HearthCore
import Synchronization
import X509

/// Apple's rule for the certificate at `publicKeyUrl`: signed by Apple, that is issued to Apple (its subject's
/// organization) under a trusted root. The URL alone proves nothing once anything on an allowed host can be
/// fetched, so the chain is checked with swift-certificates' `Verifier` (RFC 5280: signatures, validity now, CA
/// constraints; validity against the system's time). GameKit sends no intermediates: they are fetched from the certificate's Authority Information
/// Access (`caIssuers`), through the same outbound client, and kept by URL.
final class GameCenterCertificateChain: Sendable {
    static let organization = "Apple Inc."
    static let defaultRoots: [Certificate] = (try? roots(fromPEM: [GameCenterRoots.defaultPEM])) ?? []

    let http: ProviderHTTP
    private let intermediates = Mutex<[String: Certificate]>([:])

    init(http: ProviderHTTP) { self.http = http }

    /// INVALID_IDP_RESPONSE unless `leaf` chains to one of `rootsPEM` (nil: Apple's) and is issued to Apple.
    func check(_ leaf: Certificate, rootsPEM: [String]?) async throws {
        let roots: [Certificate]
        if let rootsPEM {
            guard let configured = try? Self.roots(fromPEM: rootsPEM) else {
                throw AuthError(.invalidIDPResponse, "gameCenter.trustedRootCertificates holds no PEM certificate.")
            }
            roots = configured
        } else {
            roots = Self.defaultRoots
        }
        var found: [Certificate] = []
        for url in Self.issuerURLs(of: leaf).prefix(2) {
            if let certificate = try? await intermediate(url) { found.append(certificate) }
        }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) { RFC5280Policy() }
        guard case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore(found)),
            Self.isIssuedToApple(leaf)
        else {
            throw AuthError(.invalidIDPResponse, "The Game Center certificate is not Apple's.")
        }
    }

    /// The subject names Apple as its organization.
    static func isIssuedToApple(_ certificate: Certificate) -> Bool {
        certificate.subject.flatMap { $0 }.contains { attribute in
            attribute.type == .RDNAttributeType.organizationName && String(attribute.value) == organization
        }
    }

    /// The certificate at a `caIssuers` URL (DER or PEM), fetched once.
    func intermediate(_ url: String) async throws -> Certificate {
        if let known = intermediates.withLock({ $0[url] }) { return known }
        let bytes = try await http.getBytes(url)
        let certificate =
            try (try? Certificate(derEncoded: bytes)) ?? Certificate(pemEncoded: String(decoding: bytes, as: UTF8.self))
        intermediates.withLock { $0[url] = certificate }
        return certificate
    }

    static func issuerURLs(of certificate: Certificate) -> [String] {
        guard let access = try? certificate.extensions.authorityInformationAccess else { return [] }
        return access.compactMap { description in
            guard description.method == .issuingCA, case .uniformResourceIdentifier(let url) = description.location
            else { return nil }
            return url
        }
    }

    static func roots(fromPEM texts: [String]) throws -> [Certificate] {
        let end = "-----END CERTIFICATE-----"
        let certificates = try texts.flatMap { text in
            try text.components(separatedBy: end).filter { $0.contains("-----BEGIN CERTIFICATE-----") }.map {
                try Certificate(pemEncoded: $0.trimmingCharacters(in: .whitespacesAndNewlines) + "\n" + end)
            }
        }
        guard !certificates.isEmpty else { throw AuthError(.invalidIDPResponse) }
        return certificates
    }
}
