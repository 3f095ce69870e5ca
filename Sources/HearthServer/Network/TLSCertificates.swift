import NIOCore
import NIOSSL
import Synchronization

/// The server's certificate chain and private key, read from PEM files, and read again on `reload()` (SIGHUP)
/// so a renewed certificate is served without a restart: every new handshake takes the pair read last,
/// connections already open keep theirs.
public final class TLSCertificates: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: Mutex<NIOSSLContextConfigurationOverride>

    /// Reads both files; throws `TLSFileError` when they hold no usable certificate and key.
    public init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        current = Mutex(try Self.read(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// Reads both files again. When they are unusable (half-written, mismatched) the pair in use stays and
    /// the error is thrown, so a bad renewal never takes TLS down.
    public func reload() throws {
        let fresh = try Self.read(certificatePath: certificatePath, keyPath: keyPath)
        current.withLock { $0 = fresh }
    }

    /// TLS 1.2 or later with the current pair; each handshake asks for the pair read last.
    public func serverConfiguration() -> TLSConfiguration {
        let now = current.withLock { $0 }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: now.certificateChain ?? [], privateKey: now.privateKey!)
        tls.minimumTLSVersion = .tlsv12
        tls.sslContextCallback = { [self] _, promise in promise.succeed(current.withLock { $0 }) }
        return tls
    }

    static func read(certificatePath: String, keyPath: String) throws -> NIOSSLContextConfigurationOverride {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw TLSFileError("cannot read a PEM certificate chain from \(certificatePath): \(error)")
        }
        guard !chain.isEmpty else { throw TLSFileError("no certificate in \(certificatePath)") }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw TLSFileError("cannot read a PEM private key from \(keyPath): \(error)")
        }
        var pair = NIOSSLContextConfigurationOverride()
        pair.certificateChain = chain.map { .certificate($0) }
        pair.privateKey = .privateKey(key)
        // A key that is not the certificate's would fail every handshake; BoringSSL checks the pair here.
        do {
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: pair.certificateChain!, privateKey: pair.privateKey!))
        } catch {
            throw TLSFileError("the key in \(keyPath) does not fit the certificate in \(certificatePath): \(error)")
        }
        return pair
    }
}

/// Certificate or key files the server cannot use; the message names the file.
public struct TLSFileError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
