/// The suites of the App Store Server API models, grouped so that
/// `swift test --filter ServerAPI` runs them all.
enum ServerAPI {}
