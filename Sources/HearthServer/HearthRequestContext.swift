import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage plus the client's address for abuse limits.
public struct HearthRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The client's IP address for abuse limits: the socket's peer, or what a trusted proxy says it forwarded for
    /// (`ClientAddress`).
    public var clientIP: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientIP = ClientAddress.text(of: remoteAddress)
    }

    /// Identity Toolkit bodies are small; batch imports are the largest and stay well under this.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }
}
