import Foundation

/// How a paywall describes a product, in one language. Prices are not here: they come from the store.
public struct PaywallText: Sendable, Hashable, Codable {
    /// The title ("Career Insights").
    public var title: String
    /// What it is, one or two sentences.
    public var description: String
    /// What the customer gets, as bullet points.
    public var benefits: [String]
    /// How the AI analysis works, when the product is one.
    public var aiExplanation: String?

    /// - Parameters:
    ///   - title: the title.
    ///   - description: what it is.
    ///   - benefits: bullet points.
    ///   - aiExplanation: how the AI analysis works.
    public init(title: String, description: String, benefits: [String] = [], aiExplanation: String? = nil) {
        self.title = title
        self.description = description
        self.benefits = benefits
        self.aiExplanation = aiExplanation
    }
}
