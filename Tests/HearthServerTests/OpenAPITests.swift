import Foundation
import HearthPages
import HearthServer
import Hummingbird
import Testing

/// docs/openapi.yaml describes exactly what the router serves: every route is documented, and every documented
/// operation is a route (with `--emulator` and the action pages, the largest router).
@Suite("OpenAPI description")
struct OpenAPITests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")

    /// `METHOD path` for each operation in the YAML: paths are the two-space keys under `paths:`, methods the
    /// four-space keys under them (the file is generated in that layout).
    static func documented() throws -> Set<String> {
        let text = try String(contentsOf: file, encoding: .utf8)
        var operations = Set<String>()
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") { inPaths = line == "paths:" }
            guard inPaths else { continue }
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), let path {
                let method = line.dropFirst(4).dropLast()
                if ["get", "post", "patch", "delete", "put"].contains(method) {
                    operations.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    /// The router's routes, with the host-prefixed aliases folded into the path they repeat.
    static func served() async throws -> Set<String> {
        let h = try await Harness(emulator: true)
        let router = HearthApplication.router(
            engine: h.engine,
            pages: {
                ActionPages(engine: h.engine).register(on: $0)
                AuthHandlerPage(engine: h.engine, publicURL: nil).register(on: $0)
                EmulatorSignInPages(engine: h.engine).register(on: $0)
            })
        let all = Set(router.routes.map { "\($0.method) \($0.path)" })
        return Set(
            all.map { route in
                let (method, path) = route.split(separator: " ", maxSplits: 1).map(String.init).pair
                for host in ["/identitytoolkit.googleapis.com", "/securetoken.googleapis.com", "/www.googleapis.com"]
                where path.hasPrefix(host + "/") {
                    let bare = String(path.dropFirst(host.count))
                    if all.contains("\(method) \(bare)") { return "\(method) \(bare)" }
                }
                return route
            })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() async throws {
        let documented = try Self.documented()
        let served = try await Self.served()
        #expect(documented.count > 100, "the YAML was read")
        #expect(served.subtracting(documented).sorted() == [], "served but missing from docs/openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
    }
}

extension Array where Element == String {
    fileprivate var pair: (String, String) { (self[0], count > 1 ? self[1] : "") }
}
