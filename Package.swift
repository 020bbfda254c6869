// swift-tools-version: 6.0
// The client package: what an app adds by this repository's URL. It depends on Apple's
// crypto packages only; the purchase server and the `tally` command are the package in
// `Server/`, which depends on this one by path.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Tally",
    defaultLocalization: "en",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS("6.2"), .visionOS(.v1)],
    products: [
        .library(name: "TallyCore", targets: ["TallyCore"]),
        .library(name: "TallyVerify", targets: ["TallyVerify"]),
        .library(name: "TallyKit", targets: ["TallyKit"]),
        // SwiftUI views and UIKit view controllers over TallyKit's models; apps that draw their
        // own screens do not link it.
        .library(name: "TallyUI", targets: ["TallyUI"]),
        .library(name: "TallyTesting", targets: ["TallyTesting"]),
        .library(name: "TallyKitTesting", targets: ["TallyKitTesting"]),
        .library(name: "TallySQL", targets: ["TallySQL"]),
        .library(name: "TallyLedger", targets: ["TallyLedger"]),
        // What the tests of this package and of Server/ share; apps do not need it.
        .library(name: "TallyTestSupport", targets: ["TallyTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .target(name: "TallyCore", swiftSettings: strict),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The SQL foundation of the device's database and the server's: values, rows, the
        // executor and database protocol, migrations and their runner, and SQLite.
        .target(
            name: "TallySQL",
            dependencies: ["TallyCore", .target(name: "CSQLite", condition: .when(platforms: [.linux]))],
            swiftSettings: strict
        ),
        // The rules of credits (positions, lots, holds, debt, refunds) and their tables, hosted
        // by the device's ledger and by the server.
        .target(name: "TallyLedger", dependencies: ["TallyCore", "TallySQL"], swiftSettings: strict),
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
            name: "TallyKit",
            dependencies: ["TallyCore", "TallyVerify", "TallySQL", "TallyLedger"],
            resources: [.process("Resources")],
            swiftSettings: strict
        ),
        .target(name: "TallyUI", dependencies: ["TallyKit"], swiftSettings: strict),
        .target(
            name: "TallyKitTesting",
            dependencies: ["TallyCore", "TallyVerify", "TallyKit", "TallyTesting"],
            swiftSettings: strict
        ),
        .target(
            name: "TallyTestSupport",
            dependencies: ["TallyCore", "TallyVerify", "TallyTesting", "TallySQL", "TallyLedger", "TallyKit", "TallyKitTesting"],
            path: "Tests/TallyTestSupport",
            swiftSettings: strict),
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
                "TallyCore", "TallyVerify", "TallyTesting", "TallyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyKitTests",
            dependencies: ["TallyCore", "TallyVerify", "TallyTesting", "TallyKit", "TallyKitTesting", "TallySQL", "TallyTestSupport"],
            // The reviewed schema snapshot, read in place by DeviceSchemaSnapshotTests.
            exclude: ["Persistence/Schema"],
            swiftSettings: strict
        ),
        .testTarget(name: "TallyLedgerTests", dependencies: ["TallyCore", "TallySQL", "TallyLedger", "TallyTestSupport"], swiftSettings: strict),
        .testTarget(name: "TallySQLTests", dependencies: ["TallySQL", "TallyTestSupport"], swiftSettings: strict),
    ]
)
