public import Foundation

/// Carries an OCSP request to a responder and brings back its answer.
///
/// A seam so that revocation checks run against a real responder over HTTP
/// (``URLSessionOCSPTransport``) or an in-process one in tests (TallyTesting's
/// `TestOCSPResponder`).
public protocol OCSPTransport: Sendable {
    /// Posts a DER-encoded OCSP request to `responderURI` and returns the DER-encoded response.
    func send(_ request: [UInt8], to responderURI: String) async throws -> [UInt8]
}

/// Online revocation checking (OCSP) of App Store chains. Off unless configured.
///
/// When on, chains are validated at the current time, as Apple's libraries do online; a
/// chain whose status was confirmed within ``freshness`` is not asked about again.
public struct RevocationChecking: Sendable {
    /// How requests reach the responder.
    public var transport: any OCSPTransport
    /// How long a "good" answer is reused for a cached chain, in seconds.
    public var freshness: TimeInterval

    /// - Parameters:
    ///   - transport: how requests reach the responder.
    ///   - freshness: how long a "good" answer is reused, in seconds; 15 minutes by default.
    public init(transport: any OCSPTransport, freshness: TimeInterval = 15 * 60) {
        self.transport = transport
        self.freshness = freshness
    }
}
