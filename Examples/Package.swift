// swift-tools-version: 6.0
// The example apps: what an app team writes on top of Tally. Each is a library with the app's
// screens and state; an Xcode app target adds it and the one file in its `App/` folder. Their
// logic is tested on Linux against the simulated App Store (and, for the photo app, a Tally
// server in the test process) by Server/Tests/TallyKitServerTests; their Apple-only sources are
// typechecked against stand-ins by scripts/check_apple_sources.sh.
import PackageDescription

let package = Package(
    name: "TallyExamples",
    // The photo app's state is @Observable (iOS 17); the reports app runs from iOS 14.
    platforms: [.macOS(.v14), .iOS(.v14)],
    products: [
        .library(name: "PhotoCredits", targets: ["PhotoCredits"]),
        .library(name: "AstrologyReports", targets: ["AstrologyReports"]),
    ],
    dependencies: [.package(name: "Tally", path: "..")],
    targets: [
        // An AI photo app on a Tally server (SwiftUI): 2 free credits, 1 credit per photo.
        .target(
            name: "PhotoCredits",
            dependencies: [.product(name: "TallyKit", package: "Tally"), .product(name: "TallyUI", package: "Tally")],
            path: "PhotoCredits/Sources/PhotoCredits"
        ),
        // An astrology app with one credit per report, on the device, no backend (UIKit).
        .target(
            name: "AstrologyReports",
            dependencies: [
                .product(name: "TallyKit", package: "Tally"), .product(name: "TallyVerify", package: "Tally"),
                .product(name: "TallyUI", package: "Tally"),
            ],
            path: "AstrologyReports/Sources/AstrologyReports"
        ),
    ]
)
