package import Foundation

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request` and waits for its answer: `data(for:)` for every system the package
    /// supports (that one needs iOS 15 and macOS 12), over a data task. Cancelling the waiting
    /// task cancels the request. Here rather than in TallyKit so that the OCSP transport, which
    /// lives below it, shares it.
    /// - Parameter request: the request.
    /// - Returns: the body and the response.
    /// - Throws: the `URLError` of a request that got no answer, or was cancelled.
    package func answer(to request: URLRequest) async throws -> (Data, URLResponse) {
        let handle = DataTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }
}

/// The data task of one ``Foundation/URLSession/answer(to:)``, which a cancellation may reach
/// before the task exists: then the task is cancelled as it starts.
private final class DataTaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        let cancelled = lock.withLock {
            self.task = task
            return self.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
