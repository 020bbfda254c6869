import Logging
import NIOConcurrencyHelpers
import Testing

@testable import TallyServer

/// `tally`'s log lines: swift-log's `StreamLogHandler`'s, with the logger's metadata formatted
/// only for a line that is written.
@Suite struct TallyLogHandlerTests {
    /// A stream that keeps what is written to it.
    final class Lines: TextOutputStream, Sendable {
        private let text = NIOLockedValueBox("")
        var written: String { text.withLockedValue { $0 } }
        func write(_ string: String) { text.withLockedValue { $0 += string } }
    }

    /// A metadata value that counts how often it is formatted.
    final class Counted: CustomStringConvertible, Sendable {
        private let count = NIOLockedValueBox(0)
        var formatted: Int { count.withLockedValue { $0 } }
        var description: String {
            count.withLockedValue { $0 += 1 }
            return "counted"
        }
    }

    /// The logger a request has: three keys set, then a line or none.
    private static func logger(_ handler: some LogHandler, _ counted: Counted) -> Logger {
        var logger = Logger(label: "tally") { _ in handler }
        logger.logLevel = .info
        logger[metadataKey: "hb.request.id"] = .stringConvertible(counted)
        logger[metadataKey: "request_id"] = "r1"
        logger[metadataKey: "client"] = "127.0.0.1"
        return logger
    }

    @Test func theLinesAreTheStreamHandlersLines() {
        let (ours, theirs) = (Lines(), Lines())
        let counted = Counted()
        let tally = Self.logger(TallyLogHandler(stream: StreamLogHandler(label: "tally", stream: ours, metadataProvider: nil)), counted)
        let stream = Self.logger(StreamLogHandler(label: "tally", stream: theirs, metadataProvider: nil), counted)
        for logger in [tally, stream] {
            logger.info("started")
            // The line's own value wins over the logger's for the same key.
            logger.warning("request answered 503", metadata: ["route": "/v1/me", "client": "10.0.0.1"])
            logger.debug("not written")
        }
        // Each line begins with the time to the second: compared without it.
        func withoutTime(_ text: String) -> [Substring] { text.split(separator: "\n").map { $0.drop { $0 != " " } } }
        #expect(withoutTime(ours.written) == withoutTime(theirs.written))
        #expect(
            withoutTime(ours.written) == [
                " info tally: client=127.0.0.1 hb.request.id=counted request_id=r1 [TallyServerTests] started",
                " warning tally: client=10.0.0.1 hb.request.id=counted request_id=r1 route=/v1/me [TallyServerTests] request answered 503",
            ])
    }

    /// With a metadata provider (which wins over the logger's metadata, and loses to the line's
    /// own) and a line with an error attached, the lines are still the stream handler's.
    @Test func withAProviderAndAnErrorTheLinesAreTheStreamHandlersLines() {
        struct Refused: Error {}
        let provider = Logger.MetadataProvider { ["client": "provided", "trace": "t1"] }
        let (ours, theirs) = (Lines(), Lines())
        let counted = Counted()
        let tally = Self.logger(
            TallyLogHandler(stream: StreamLogHandler(label: "tally", stream: ours, metadataProvider: nil), metadataProvider: provider), counted)
        let stream = Self.logger(StreamLogHandler(label: "tally", stream: theirs, metadataProvider: provider), counted)
        for logger in [tally, stream] {
            logger.info("started")
            logger.error("request failed", error: Refused(), metadata: ["trace": "own"])
        }
        func withoutTime(_ text: String) -> [Substring] { text.split(separator: "\n").map { $0.drop { $0 != " " } } }
        #expect(withoutTime(ours.written) == withoutTime(theirs.written))
        #expect(withoutTime(ours.written).first == " info tally: client=provided hb.request.id=counted request_id=r1 trace=t1 [TallyServerTests] started")
        #expect(withoutTime(ours.written).last?.contains("error.type=") == true)
    }

    @Test func settingMetadataFormatsNothingUntilALineIsWritten() {
        let counted = Counted()
        let logger = Self.logger(TallyLogHandler(stream: StreamLogHandler(label: "tally", stream: Lines(), metadataProvider: nil)), counted)
        logger.debug("below the level: not written")
        #expect(counted.formatted == 0)
        logger.info("written")
        #expect(counted.formatted == 1)

        // swift-log's own handler formats the whole metadata at every key set.
        let streamed = Counted()
        _ = Self.logger(StreamLogHandler(label: "tally", stream: Lines(), metadataProvider: nil), streamed)
        #expect(streamed.formatted == 3)
    }
}
