import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Testing

@testable import HearthServer

/// `HearthRouter` answers a route without parameters from its table and everything else through Hummingbird's trie,
/// and the two must never disagree: a literal path that another route's pattern also matches is left to the trie.
@Suite("Routing by table and trie")
struct HearthRouterTests {
    /// Records the endpoint path the route saw (what metrics label a request with) in the answer.
    static func routes(on router: some RouterMethods<HearthRequestContext>) {
        // Registered before its literal sibling `/a/b`, which the trie still prefers.
        router.get("/a/{x}") { _, context in "pattern \(context.endpointPath ?? "-")" }
        router.get("/a/b") { _, context in "literal a/b \(context.endpointPath ?? "-")" }
        router.get("/c/d") { _, context in "literal c/d \(context.endpointPath ?? "-")" }
        router.post("/c/d") { _, _ in "post c/d" }
        router.get("/e/{x}:f") { _, _ in "suffix pattern" }
        router.get("/e/g:f") { _, _ in "literal e/g:f" }
        router.get("/gone") { _, _ -> String in throw HTTPError(.gone, message: "no longer") }
    }

    static func answers(_ app: some ApplicationProtocol) async throws -> [String] {
        try await app.test(.router) { client in
            var out: [String] = []
            for (method, path) in [
                (HTTPRequest.Method.get, "/a/b"), (.get, "/a/z"), (.get, "/c/d"), (.post, "/c/d"), (.put, "/c/d"),
                (.get, "/c/d/"), (.get, "/e/g:f"), (.get, "/e/h:f"), (.get, "/gone"), (.get, "/nowhere"),
            ] {
                let response = try await client.execute(uri: path, method: method)
                out.append("\(method) \(path) → \(response.status.code) \(String(buffer: response.body))")
            }
            return out
        }
    }

    @Test func answersAsHummingbirdsRouterDoes() async throws {
        let hearth = HearthRouter()
        Self.routes(on: hearth)
        let plain = Router(context: HearthRequestContext.self)
        Self.routes(on: plain)
        let viaTable = try await Self.answers(Application(router: hearth))
        let viaTrie = try await Self.answers(Application(router: plain))
        #expect(viaTable == viaTrie)
        // What the trie does, spelled out: a literal route wins over a pattern that also matches; a path is
        // labelled with its route; another method on a literal path, or a trailing slash, still reaches the trie.
        #expect(viaTable[0] == "GET /a/b → 200 literal a/b /a/b")
        #expect(viaTable[1] == "GET /a/z → 200 pattern /a/{x}")
        #expect(viaTable[2] == "GET /c/d → 200 literal c/d /c/d")
        #expect(viaTable[3] == "POST /c/d → 200 post c/d")
        #expect(viaTable[5] == "GET /c/d/ → 200 literal c/d /c/d")
        #expect(viaTable[6] == "GET /e/g:f → 200 literal e/g:f")
        #expect(viaTable[7] == "GET /e/h:f → 200 suffix pattern")
        #expect(viaTable[8].hasPrefix("GET /gone → 410"))
    }

    @Test func onlyUnambiguousLiteralRoutesAreInTheTable() {
        let hearth = HearthRouter()
        Self.routes(on: hearth)
        let table = Set(hearth.buildResponder().literalRoutes.keys.map { "\($0.method) \($0.path)" })
        #expect(table == ["GET /c/d", "POST /c/d", "GET /gone"])
    }

    @Test func hearthsOwnHotRoutesAreInTheTable() async throws {
        let h = try await Harness()
        let responder = HearthApplication.router(engine: h.engine).buildResponder()
        let table = Set(responder.literalRoutes.keys.map { "\($0.method) \($0.path)" })
        for route in [
            "POST /v1/accounts:lookup", "POST /v1/token", "POST /v1/accounts:signInWithPassword", "GET /",
            "POST /v2/accounts/passkeySignIn:finalize",
        ] {
            #expect(table.contains(route), "\(route)")
        }
    }
}

/// `WireRequest.queryItems` splits a lone `name=value` itself and gives everything else to Hummingbird's parser; both
/// must read a query alike.
@Suite("Reading a request's query")
struct QueryItemsTests {
    @Test(arguments: [
        "/p?key=abc", "/p?key=", "/p?key", "/p?=abc", "/p?key=a=b", "/p?key=a%20b", "/p?key=a+b", "/p?a=1&key=2",
        "/p?key=1&key=2", "/p?a&&key=3", "/p", "/p?", "/p?tenant_id=t1",
    ])
    func readsAsHummingbirdDoes(uri: String) {
        let parsed = URI(uri)
        let ours = WireRequest.queryItems(parsed).map { "\($0.key)=\($0.value)" }
        let theirs = parsed.queryParameters.map { "\($0.key)=\($0.value)" }
        #expect(ours == theirs)
    }
}
