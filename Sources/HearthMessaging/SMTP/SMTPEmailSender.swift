import Foundation
import HearthCore
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Sends e-mail through an SMTP server (a provider's relay or the operator's own), one connection per message.
///
/// TLS is implicit (`tls`, port 465) or negotiated (`starttls`, port 587); either way the certificate is verified
/// against the system's roots plus `caFile`, and a server that does not offer STARTTLS gets nothing, never the
/// message in plaintext. AUTH PLAIN or LOGIN when a username is set. The whole exchange has one deadline.
public struct SMTPEmailSender: EmailSender {
    public enum Security: String, Sendable, Codable {
        case none
        case starttls
        case tls
    }

    public struct Configuration: Sendable, Equatable, Codable {
        public var host: String
        /// Default: 465 for `tls`, 587 for `starttls`, 25 for `none`.
        public var port: Int?
        public var security: Security
        public var username: String?
        /// From HEARTH_SMTP_PASSWORD; better kept out of the config file.
        public var password: String?
        /// The envelope sender and From address.
        public var from: String
        public var fromName: String?
        public var replyTo: String?
        /// A PEM bundle trusted besides the system's roots (a private relay's CA).
        public var caFile: String?
        /// Deadline for a whole message: connect, TLS, AUTH, DATA (default 30 s).
        public var timeoutSeconds: Double?
        /// The name given in EHLO (default: the host name).
        public var heloName: String?

        public init(
            host: String, port: Int? = nil, security: Security = .starttls, username: String? = nil,
            password: String? = nil, from: String, fromName: String? = nil, replyTo: String? = nil,
            caFile: String? = nil, timeoutSeconds: Double? = nil, heloName: String? = nil
        ) {
            self.host = host
            self.port = port
            self.security = security
            self.username = username
            self.password = password
            self.from = from
            self.fromName = fromName
            self.replyTo = replyTo
            self.caFile = caFile
            self.timeoutSeconds = timeoutSeconds
            self.heloName = heloName
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, port, security, username, password, from, fromName, replyTo, caFile, timeoutSeconds, heloName
        }

        /// A misspelt setting is refused, not ignored (a typo in `caFile` must not go unnoticed).
        public init(from decoder: Decoder) throws {
            try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            host = try c.decode(String.self, forKey: .host)
            port = try c.decodeIfPresent(Int.self, forKey: .port)
            security = try c.decodeIfPresent(Security.self, forKey: .security) ?? .starttls
            username = try c.decodeIfPresent(String.self, forKey: .username)
            password = try c.decodeIfPresent(String.self, forKey: .password)
            from = try c.decode(String.self, forKey: .from)
            fromName = try c.decodeIfPresent(String.self, forKey: .fromName)
            replyTo = try c.decodeIfPresent(String.self, forKey: .replyTo)
            caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
            timeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
            heloName = try c.decodeIfPresent(String.self, forKey: .heloName)
        }

        public var effectivePort: Int {
            port ?? (security == .tls ? 465 : security == .starttls ? 587 : 25)
        }

        var isLoopback: Bool { ["localhost", "127.0.0.1", "::1"].contains(host.lowercased()) }

        /// What is wrong with it, if anything.
        public var problem: String? {
            if host.isEmpty { return "host is missing" }
            if !(1...65535).contains(effectivePort) { return "port must be 1–65535" }
            if !from.contains("@") || from.contains(where: { $0.isNewline || $0 == "<" || $0 == ">" }) {
                return "from must be an e-mail address"
            }
            if username != nil && (password ?? "").isEmpty { return "username is set but HEARTH_SMTP_PASSWORD is not" }
            // A password crosses the network only inside TLS.
            if username != nil && security == .none && !isLoopback {
                return "security \"none\" would send the password in plaintext; use \"starttls\" or \"tls\""
            }
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { return "caFile \(caFile) is not readable" }
            return nil
        }
    }

    let configuration: Configuration
    let tlsContext: NIOSSLContext?
    let group: any EventLoopGroup

    public init(configuration: Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton)
        throws
    {
        self.configuration = configuration
        self.group = group
        if configuration.security == .none {
            tlsContext = nil
        } else {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            tls.certificateVerification = .fullVerification
            if let caFile = configuration.caFile { tls.additionalTrustRoots = [.file(caFile)] }
            tlsContext = try NIOSSLContext(configuration: tls)
        }
    }

    public func send(_ message: EmailMessage) async throws {
        let seconds = configuration.timeoutSeconds ?? 30
        let open = OpenChannel()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.transact(message, open: open) }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    open.deadlinePassed.store(true, ordering: .sequentiallyConsistent)
                    open.channel.withLock { $0 }?.close(promise: nil)
                    throw EmailDeliveryError(provider: "smtp", detail: "no answer within \(seconds) s")
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            // The close at the deadline also fails the exchange, and either error may arrive first: past the
            // deadline the deadline is the cause. After the whole message was written, it may have arrived.
            let detail =
                open.deadlinePassed.load(ordering: .sequentiallyConsistent)
                ? "no answer within \(seconds) s"
                : (error as? EmailDeliveryError)?.detail ?? Self.describe(error)
            throw EmailDeliveryError(
                provider: "smtp", detail: detail,
                mayHaveArrived: open.awaitingReceipt.load(ordering: .sequentiallyConsistent))
        }
    }

    static func describe(_ error: any Error) -> String {
        if let ssl = error as? NIOSSLError { return "TLS failed: \(ssl)" }
        if let boring = error as? BoringSSLError { return "TLS failed: \(boring)" }
        return "\(error)"
    }

    /// The TLS server name: the host, unless it is an IP address (checked against the certificate's IP entries).
    var serverHostname: String? {
        (try? SocketAddress(ipAddress: configuration.host, port: 0)) == nil ? configuration.host : nil
    }

    func makeTLSHandler() throws -> NIOSSLClientHandler {
        guard let tlsContext else { throw SMTPProtocolError("TLS is not configured") }
        return try NIOSSLClientHandler(context: tlsContext, serverHostname: serverHostname)
    }

    /// The connection of a message in flight, so the deadline can close it, and how far the exchange got.
    final class OpenChannel: Sendable {
        let channel = Mutex<(any Channel)?>(nil)
        let deadlinePassed = Atomic<Bool>(false)
        /// The message and its final dot were written and the relay has not answered them yet.
        let awaitingReceipt = Atomic<Bool>(false)
    }

    func transact(_ message: EmailMessage, open: OpenChannel) async throws {
        let c = configuration
        let implicitTLS = c.security == .tls
        let sender = self
        let connection = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(Int64(max(1, c.timeoutSeconds ?? 30))))
            .connect(host: c.host, port: c.effectivePort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS { try channel.pipeline.syncOperations.addHandler(sender.makeTLSHandler()) }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let channel = connection.channel
        open.channel.withLock { $0 = channel }
        try await connection.executeThenClose { inbound, outbound in
            var session = SMTPSession(replies: inbound.makeAsyncIterator(), outbound: outbound)
            _ = try await session.expect([220], stage: "greeting")
            let helo = c.heloName ?? ProcessInfo.processInfo.hostName
            var extensions = try await session.command("EHLO \(helo)", expect: [250], stage: "EHLO").lines.dropFirst()
            if c.security == .starttls {
                guard extensions.contains(where: { $0.uppercased() == "STARTTLS" }) else {
                    throw EmailDeliveryError(
                        provider: "smtp", detail: "the server does not offer STARTTLS; the message was not sent")
                }
                try await session.command("STARTTLS", expect: [220], stage: "STARTTLS")
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(sender.makeTLSHandler(), position: .first)
                }.get()
                extensions = try await session.command("EHLO \(helo)", expect: [250], stage: "EHLO after STARTTLS")
                    .lines.dropFirst()
            }
            if let username = c.username {
                try await session.authenticate(
                    username: username, password: c.password ?? "", extensions: Array(extensions))
            }
            let mime = MIMEMessage(
                from: c.from, fromName: message.senderName ?? c.fromName, to: message.to,
                replyTo: message.replyTo ?? c.replyTo, subject: message.subject, text: message.text,
                html: message.html, date: message.sentAt, token: UUID().uuidString.lowercased())
            try await session.command("MAIL FROM:<\(c.from)>", expect: [250], stage: "MAIL FROM")
            try await session.command("RCPT TO:<\(message.to)>", expect: [250, 251], stage: "RCPT TO")
            try await session.command("DATA", expect: [354], stage: "DATA")
            try await session.write(Self.dotStuffed(mime.rendered()) + ".\r\n")
            open.awaitingReceipt.store(true, ordering: .sequentiallyConsistent)
            let receipt = try await session.reply(stage: "end of message")
            // Answered, whatever the answer: a refusal means the message did not arrive.
            open.awaitingReceipt.store(false, ordering: .sequentiallyConsistent)
            try SMTPSession.check(receipt, [250], stage: "end of message")
            try? await session.write("QUIT\r\n")
        }
    }

    /// A line of the message that starts with a dot gets a second one (RFC 5321 §4.5.2).
    static func dotStuffed(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") ? "." + $0 : String($0) }
            .joined(separator: "\r\n")
    }
}

/// The client side of one SMTP conversation.
struct SMTPSession {
    var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    mutating func expect(_ codes: Set<Int>, stage: String) async throws -> SMTPReply {
        let reply = try await reply(stage: stage)
        try Self.check(reply, codes, stage: stage)
        return reply
    }

    /// The server's next reply, whatever its code.
    mutating func reply(stage: String) async throws -> SMTPReply {
        guard let reply = try await replies.next() else {
            throw EmailDeliveryError(provider: "smtp", detail: "the server closed the connection at \(stage)")
        }
        return reply
    }

    static func check(_ reply: SMTPReply, _ codes: Set<Int>, stage: String) throws {
        guard codes.contains(reply.code) else {
            throw EmailDeliveryError(provider: "smtp", detail: "\(stage) answered \(reply.code) \(reply.text)")
        }
    }

    func write(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Sends one command line; `stage` names it in errors, so secrets in the line never reach a log.
    @discardableResult
    mutating func command(_ line: String, expect codes: Set<Int>, stage: String) async throws -> SMTPReply {
        try await write(line + "\r\n")
        return try await expect(codes, stage: stage)
    }

    mutating func authenticate(username: String, password: String, extensions: [String]) async throws {
        let mechanisms = extensions.first { $0.uppercased().hasPrefix("AUTH") }
            .map { $0.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).dropFirst().map(String.init) }
            ?? []
        func base64(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") {
            try await command("AUTH PLAIN " + base64("\0\(username)\0\(password)"), expect: [235], stage: "AUTH PLAIN")
        } else if mechanisms.contains("LOGIN") {
            try await command("AUTH LOGIN", expect: [334], stage: "AUTH LOGIN")
            try await command(base64(username), expect: [334], stage: "AUTH LOGIN username")
            try await command(base64(password), expect: [235], stage: "AUTH LOGIN password")
        } else {
            throw EmailDeliveryError(
                provider: "smtp",
                detail: "the server offers no AUTH PLAIN or LOGIN (offered: \(mechanisms.joined(separator: " ")))")
        }
    }
}
