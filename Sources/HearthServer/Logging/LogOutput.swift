import Foundation
import Logging
import Synchronization

/// How the server writes its log: `text` (swift-log's line format) or `json` (one object per line, for log
/// shippers), both on standard error, both with the request id of the request a line belongs to.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json

    private static let bootstrapped = Mutex(false)

    /// Installs the format for the whole process. Only the first call counts (swift-log allows one bootstrap);
    /// loggers made before it keep swift-log's default handler.
    public func bootstrap() {
        let first = Self.bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        switch self {
        case .text:
            LoggingSystem.bootstrap(
                { label, provider in TextLogHandler(label: label, metadataProvider: provider) },
                metadataProvider: RequestID.metadataProvider)
        case .json:
            LoggingSystem.bootstrap(
                { label, provider in JSONLogHandler(label: label, metadataProvider: provider) },
                metadataProvider: RequestID.metadataProvider)
        }
    }
}

/// swift-log's text line on standard error, with the logger's metadata formatted when a line is written rather
/// than whenever it is set: `StreamLogHandler` formats all of it on every set, and Hummingbird sets the request id
/// on every request's logger (about 2 µs a request, for lines that are mostly never written).
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    private var stream: StreamLogHandler

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        stream = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
    }

    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var stream = stream
        stream.metadata = metadata
        stream.log(event: event)
    }
}

/// One JSON object per line on standard error: `time` (ISO 8601, UTC, milliseconds), `level`, `label`,
/// `message`, `source`, then the metadata (`request`, `project`, `uid`, …) as top-level keys. Nested metadata
/// becomes nested JSON; keys named like the fixed fields are prefixed with `meta.`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    let label: String

    static let fixedKeys: Set<String> = ["time", "level", "label", "message", "source"]
    /// One writer at a time, so lines from concurrent requests never interleave.
    static let output = Mutex(())

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let line = Self.line(
            time: Date(), level: event.level, label: label, message: "\(event.message)", source: event.source,
            metadata: merged)
        let bytes = Array(line.utf8)
        Self.output.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }

    /// The JSON line for one event, newline included.
    static func line(
        time: Date, level: Logger.Level, label: String, message: String, source: String, metadata: Logger.Metadata
    ) -> String {
        var out = "{\"time\":\"\(timestamp(time))\",\"level\":\"\(level.rawValue)\",\"label\":"
        appendString(label, to: &out)
        out += ",\"message\":"
        appendString(message, to: &out)
        out += ",\"source\":"
        appendString(source, to: &out)
        for key in metadata.keys.sorted() {
            out += ","
            appendString(fixedKeys.contains(key) ? "meta." + key : key, to: &out)
            out += ":"
            appendValue(metadata[key]!, to: &out)
        }
        return out + "}\n"
    }

    static func appendValue(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let s): appendString(s, to: &out)
        case .stringConvertible(let c): appendString(c.description, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                appendValue(item, to: &out)
            }
            out += "]"
        case .dictionary(let dict):
            out += "{"
            for (i, key) in dict.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                appendString(key, to: &out)
                out += ":"
                appendValue(dict[key]!, to: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, everything else as UTF-8.
    static func appendString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int = 2) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(millis), 3))Z"
    }
}
