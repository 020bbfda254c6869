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

    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = repository
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    static func json(_ line: some StringProtocol) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }
}
