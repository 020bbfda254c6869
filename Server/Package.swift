// swift-tools-version: 6.0
// The server package: the purchase server, the simulated App Store over HTTP, the benchmarks
// and the `tally` command. It builds on the client package at the repository's root.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "TallyServer",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "TallyServer", targets: ["TallyServer"]),
        .library(name: "TallyTestingServer", targets: ["TallyTestingServer"]),
        .executable(name: "tally", targets: ["tally"]),
    ],
    dependencies: [
        .package(name: "Tally", path: ".."),
        // The example apps, whose logic TallyKitServerTests runs against this server.
        .package(name: "TallyExamples", path: "../Examples"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The App Store Server API client.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The web console's templates.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
    ],
    targets: [
        .target(
            name: "TallyServer",
            dependencies: [
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallySQL", package: "Tally"),
                .product(name: "TallyLedger", package: "Tally"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/openapi.yaml")],
            swiftSettings: strict
        ),
        .target(
            name: "TallyTestingServer",
            dependencies: [
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TallyBenchmarks",
            dependencies: [
                "TallyServer",
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallySQL", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "TallyKit", package: "Tally"),
                .product(name: "TallyKitTesting", package: "Tally"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tally",
            dependencies: [
                "TallyServer", "TallyTestingServer", "TallyBenchmarks",
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "TallyKit", package: "Tally"),
                .product(name: "TallyKitTesting", package: "Tally"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyServerTests",
            dependencies: [
                "TallyServer", "TallyTestingServer", .product(name: "TallyTestSupport", package: "Tally"),
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallySQL", package: "Tally"),
                .product(name: "TallyLedger", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The reviewed schema snapshots, read in place by SchemaSnapshotTests.
            exclude: ["Storage/Schema"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyTestingServerTests",
            dependencies: [
                "TallyTestingServer", .product(name: "TallyTestSupport", package: "Tally"),
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyKitServerTests",
            dependencies: [
                "TallyServer", .product(name: "TallyTestSupport", package: "Tally"),
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "TallyKit", package: "Tally"),
                .product(name: "TallyKitTesting", package: "Tally"),
                .product(name: "TallySQL", package: "Tally"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PhotoCredits", package: "TallyExamples"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AstrologyReports", package: "TallyExamples"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyCLITests",
            dependencies: [
                "tally", .product(name: "TallyTestSupport", package: "Tally"),
                .product(name: "TallyCore", package: "Tally"),
                .product(name: "TallySQL", package: "Tally"),
                .product(name: "TallyTesting", package: "Tally"),
                .product(name: "TallyVerify", package: "Tally"),
            ],
            swiftSettings: strict
        ),
    ]
)
