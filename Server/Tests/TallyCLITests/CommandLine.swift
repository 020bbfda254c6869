import Foundation
import TallyTestSupport

/// Runs the built `tally` executable, as a user would.
enum CommandLine {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The repository's root: commands run there, as the README runs them.
    static let repository = Repository.root

    /// The `tally` binary beside the test bundle (SwiftPM builds it for this test target).
    static let executable: URL = {
        let runner = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        var folder = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("tally")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return Repository.server.appendingPathComponent(".build/debug/tally")
    }()

    /// Runs `tally` with `arguments` and waits for it on a thread of its own: the wait blocks,
    /// and on the cooperative pool (as many threads as cores) a few such waits at once would
    /// stall every other test.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(arguments, stdin: stdin, environment: environment) })
            }
        }
    }

    private static func runBlocking(_ arguments: [String], stdin: String?, environment: [String: String]) throws -> Run {
        let child = try ChildProcess(
            executable, arguments, environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            directory: repository, mergingErrors: false, withInput: true)
        if let stdin, let input = child.input { input.write(Data(stdin.utf8)) }
        try child.input?.close()
        let out = child.output.readDataToEndOfFile()
        let err = child.errors?.readDataToEndOfFile() ?? Data()
        child.waitUntilExit()
        return Run(status: child.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    static func json(_ line: some StringProtocol) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }
}
