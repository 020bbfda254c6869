/// A request the App Store Server API would refuse, found while reading it: the code Apple
/// answers with, and why. Equal by code.
///
/// ```swift
/// do {
///     let request = try TransactionHistoryRequest(queryItems: items)
/// } catch {
///     let body = APIErrorResponse(code: error.code, message: error.reason) // answer 400
/// }
/// ```
public struct APIRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The App Store Server API error code for the refusal.
    public let code: APIErrorCode
    /// What is wrong, for logs.
    public let reason: String
    /// The source file that found the problem.
    public let file: String
    /// The source line that found the problem.
    public let line: Int

    /// An error with `code` and `reason`, located where it is made.
    /// - Parameters:
    ///   - code: The App Store Server API error code.
    ///   - reason: What is wrong, for logs.
    public init(_ code: APIErrorCode, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// The body the App Store answers with.
    public var response: APIErrorResponse { APIErrorResponse(code: code, message: reason) }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, as ``==`` compares it only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
