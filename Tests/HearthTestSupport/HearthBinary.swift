import Foundation

/// The `hearth` executable the tests start: `HEARTH_BINARY`, or the one SwiftPM built next to the test bundle
/// (.build/<triple>/<config>/).
public enum HearthBinary {
    public static var url: URL {
        if let path = ProcessInfo.processInfo.environment["HEARTH_BINARY"] { return URL(fileURLWithPath: path) }
        let bundle = Bundle.main.bundleURL
        let beside = bundle.appendingPathComponent("hearth")
        return FileManager.default.isExecutableFile(atPath: beside.path)
            ? beside : bundle.deletingLastPathComponent().appendingPathComponent("hearth")
    }
}
