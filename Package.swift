// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Tally",
    defaultLocalization: "en",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "TallyCore", targets: ["TallyCore"]),
        .library(name: "TallyVerify", targets: ["TallyVerify"]),
        .library(name: "TallyTesting", targets: ["TallyTesting"]),
        .library(name: "TallyTestingServer", targets: ["TallyTestingServer"]),
        .library(name: "TallyServer", targets: ["TallyServer"]),
        .library(name: "TallyKit", targets: ["TallyKit"]),
        .library(name: "TallyKitTesting", targets: ["TallyKitTesting"]),
        .executable(name: "tally", targets: ["tally"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        .target(name: "TallyCore", swiftSettings: strict),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "TallySQLite",
            dependencies: [.target(name: "CSQLite", condition: .when(platforms: [.linux]))],
            swiftSettings: strict
        ),
        .target(
            name: "TallyVerify",
            dependencies: [
                "TallyCore",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA for legacy app receipts; swift-certificates depends on it already.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TallyTesting",
            dependencies: [
                "TallyCore", "TallyVerify",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TallyTestingServer",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TallyServer",
            dependencies: [
                "TallyCore", "TallyVerify", "TallySQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/openapi.yaml")],
            swiftSettings: strict
        ),
        .target(
            name: "TallyKit",
            dependencies: ["TallyCore", "TallyVerify", "TallySQLite"],
            resources: [.process("Resources")],
            swiftSettings: strict
        ),
        .target(
            name: "TallyKitTesting",
            dependencies: ["TallyCore", "TallyVerify", "TallyKit", "TallyTesting"],
            swiftSettings: strict
        ),
        .target(
            name: "TallyBenchmarks",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting", "TallyServer", "TallyKit", "TallyKitTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tally",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting", "TallyTestingServer", "TallyServer", "TallyBenchmarks",
                "TallyKit", "TallyKitTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(name: "TallyTestSupport", path: "Tests/TallyTestSupport", swiftSettings: strict),
        .testTarget(name: "TallyCoreTests", dependencies: ["TallyCore", "TallyTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TallyVerifyTests",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting", "TallyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyTestingTests",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting", "TallyTestingServer", "TallyTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyServerTests",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting", "TallyServer", "TallySQLite", "TallyTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyKitTests",
            dependencies: [
                "TallyCore", "TallyVerify", "TallyTesting", "TallyKit", "TallyKitTesting", "TallyServer", "TallySQLite", "TallyTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyCLITests",
            dependencies: ["tally", "TallyCore", "TallyTesting", "TallyVerify", "TallySQLite"],
            swiftSettings: strict
        ),
    ]
)
