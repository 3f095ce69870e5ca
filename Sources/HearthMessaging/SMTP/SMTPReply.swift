import NIOCore

/// One SMTP reply: a three-digit code and its text lines (`250-…` continuation lines folded in).
struct SMTPReply: Sendable {
    let code: Int
    let lines: [String]
    var text: String { lines.joined(separator: " / ") }
}

/// Splits the server's byte stream into replies.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > 4096 { throw SMTPProtocolError("a reply line longer than 4096 bytes") }
            return .needMoreData
        }
        var line = buffer.readString(length: newline - buffer.readerIndex + 1) ?? ""
        while line.last == "\n" || line.last == "\r" || line.last == "\r\n" { line.removeLast() }
        guard line.utf8.count >= 3, let code = Int(line.prefix(3)), (200...599).contains(code) else {
            throw SMTPProtocolError("not an SMTP reply: \(line.prefix(80))")
        }
        let separator = line.dropFirst(3).first
        lines.append(String(line.dropFirst(4)))
        if separator == "-" {
            if lines.count > 200 { throw SMTPProtocolError("a reply of more than 200 lines") }
            return .continue
        }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        context.fireChannelRead(wrapInboundOut(reply))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

struct SMTPProtocolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
