// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthStore", targets: ["HearthStore"]),
        .library(name: "HearthTokens", targets: ["HearthTokens"]),
        .library(name: "HearthProviders", targets: ["HearthProviders"]),
        .library(name: "HearthEngine", targets: ["HearthEngine"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .library(name: "HearthAdmin", targets: ["HearthAdmin"]),
        .library(name: "HearthAdminHummingbird", targets: ["HearthAdminHummingbird"]),
        .library(name: "HearthAuth", targets: ["HearthAuth"]),
        .library(name: "HearthWebAuthn", targets: ["HearthWebAuthn"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already resolved through hummingbird; declared because HearthServer and HearthPages import HTTPTypes.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Tests only: the local HTTP/2 TLS server that plays APNs (already resolved through hummingbird).
    ],
    targets: [
        // Every target declares each product and target it imports (nothing reaches a module through another's
        // dependencies), and the store's targets build with Hummingbird's upcoming features.
        // Domain types, error catalogue, validation, password hashing. No I/O.
        .target(
            name: "HearthCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The AuthStore protocol every backend implements.
        .target(name: "HearthStore", dependencies: ["HearthCore"], swiftSettings: storeSettings),
        .target(
            name: "HearthSQLite",
            dependencies: [
                "HearthCore", "HearthStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: storeSettings
        ),
        .target(
            name: "HearthPostgres",
            dependencies: [
                "HearthCore", "HearthStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: storeSettings
        ),
        // Signing keys, ID tokens, refresh tokens.
        .target(
            name: "HearthTokens",
            dependencies: [
                "HearthCore", "HearthStore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The one HTTP client for the server's outbound calls: the URL policy checked, no redirect followed.
        .target(
            name: "HearthOutbound",
            dependencies: [
                "HearthCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Outbound messages: SMS providers and e-mail senders (SMTP on SwiftNIO, a webhook) behind small protocols.
        .target(
            name: "HearthMessaging",
            dependencies: [
                "HearthCore", "HearthStore", "HearthOutbound",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Identity providers: provider-token verification, the remote-JWKS cache, provider HTTP calls.
        .target(
            name: "HearthProviders",
            dependencies: [
                "HearthCore", "HearthTokens", "HearthOutbound",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Use cases: typed requests in, typed results or AuthError out.
        .target(
            name: "HearthEngine",
            dependencies: [
                "HearthCore", "HearthStore", "HearthTokens", "HearthMessaging", "HearthProviders", "HearthWebAuthn",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Hummingbird routes: decode, call the engine, encode.
        .target(
            name: "HearthServer",
            dependencies: [
                "HearthCore", "HearthEngine", "HearthMessaging", "HearthStore", "HearthProviders", "HearthTokens",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // TLS with HTTP/2 (ALPN) for deployments without a proxy.
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Server-rendered pages (the e-mail action handler) over the same engine use cases as the JSON routes.
        .target(
            name: "HearthPages",
            dependencies: [
                "HearthCore", "HearthServer", "HearthEngine", "HearthStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The operator's console: server-rendered pages on the operator listener over the engine's use cases.
        .target(
            name: "HearthConsole",
            dependencies: [
                "HearthCore", "HearthServer", "HearthEngine", "HearthStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The server-side SDK for backends: verify tokens, mint custom tokens, manage users over HTTP.
        .target(
            name: "HearthAdmin",
            dependencies: [
                "HearthCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "HearthAdminHummingbird",
            dependencies: ["HearthAdmin", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        .executableTarget(
            name: "hearth",
            dependencies: [
                "HearthCore", "HearthStore", "HearthTokens", "HearthEngine", "HearthServer", "HearthPages",
                "HearthConsole", "HearthSQLite", "HearthPostgres", "HearthMessaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            // Release builds link with lld and pack relative relocations (DT_RELR, glibc 2.36+): the loader reads a
            // 30 KB bitmap instead of 3.7 MB of RELA entries at every start, which kept about 4 MiB of the binary
            // resident for nothing (idle RSS 42 → 39 MiB, measured by scripts/bench). And lld lays out first the
            // functions a serving process runs (linker/hearth.order, written by scripts/symbol-order), so the
            // pages the kernel maps around them hold code that runs rather than neighbours that never do
            // (idle RSS 40 → 29 MiB with scripts/build-release's function sections).
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-static-stdlib", "-l_FoundationICU", "-l_FoundationCollections", "-l_FoundationCShims", "-lCoreFoundation", "-lswiftDispatch",
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linker/hearth.order",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),

        // The client SDK: FirebaseAuth's API over URLSession. Foundation and swift-crypto only; no server module.
        .target(name: "HearthAuth", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),

        // Tests only: what more than one test target uses: starting programs (the `hearth` binary, openssl, Python
        // servers) without Foundation's Process, a whole Hearth behind its router (`Harness`), the loopback
        // servers that play an identity provider and an SMTP server.
        .target(
            name: "HearthTestSupport",
            dependencies: [
                "HearthCore", "HearthStore", "HearthTokens", "HearthEngine", "HearthServer", "HearthSQLite",
                "HearthMessaging", "HearthProviders", "HearthPages",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/HearthTestSupport"
        ),
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore"]),
        .testTarget(
            name: "HearthStoreTests",
            dependencies: [
                "HearthCore", "HearthStore", "HearthSQLite", "HearthPostgres", "HearthTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: storeSettings
        ),
        .testTarget(
            name: "HearthTokensTests",
            dependencies: [
                "HearthCore", "HearthStore", "HearthTokens", "HearthSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "HearthCore", "HearthStore", "HearthTokens", "HearthEngine", "HearthServer", "HearthSQLite",
                "HearthMessaging", "HearthProviders", "HearthAdmin", "HearthAdminHummingbird", "HearthPages",
                "HearthTestSupport", "HearthWebAuthnTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Runs the real `hearth` binary (built beside the tests, or HEARTH_BINARY).
        .testTarget(
            name: "HearthAuthTests",
            dependencies: [
                "HearthAuth", "HearthTestSupport", "HearthWebAuthnTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // Tests only: "Apple's" Game Center certificate.
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // WebAuthn relying-party verification (CBOR, COSE keys, authenticator data, client data, attestation):
        // bytes in, verified facts out; no HTTP, no store.
        .target(
            name: "HearthWebAuthn",
            dependencies: [
                "HearthCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // Tests only: a WebAuthn software authenticator (and the CBOR encoding it needs, which the server never does).
        .target(
            name: "HearthWebAuthnTestSupport",
            dependencies: [
                "HearthCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/HearthWebAuthnTestSupport"
        ),
        // Vectors made by the software authenticator in the tests.
        .testTarget(
            name: "HearthWebAuthnTests",
            dependencies: [
                "HearthWebAuthn", "HearthWebAuthnTestSupport", "HearthCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
    ]
)

/// The store's targets: `any` spelled out for existentials, and members visible only from modules a file imports.
var storeSettings: [SwiftSetting] {
    [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
}
