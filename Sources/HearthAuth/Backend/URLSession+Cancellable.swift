import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import Synchronization

    extension URLSession {
        /// `data(for:)` that survives being cancelled on Linux. FoundationNetworking's async `data(for:)` crashes
        /// ("a behaviour for a task that is not in the registry") or deadlocks (its cancel waits on the session's
        /// queue while holding the Swift task's status lock, which that queue's completion needs) when cancelled as
        /// the answer arrives, and `URLSessionTask.cancel()` itself crashes so when it races the completion. So a
        /// cancelled call is answered at once with `URLError(.cancelled)`, as Apple's is, and its request is left to
        /// finish (or time out) unheard: it is never cancelled.
        func cancellableData(for request: URLRequest) async throws -> (Data, URLResponse) {
            let call = AbandonableCall()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard call.wait(continuation) else { return }
                    dataTask(with: request) { data, response, error in
                        if let response, error == nil {
                            call.finish(.success((data ?? Data(), response)))
                        } else {
                            call.finish(.failure(error ?? URLError(.badServerResponse)))
                        }
                    }.resume()
                }
            } onCancel: {
                call.cancel()
            }
        }
    }

    /// The caller waiting for one request: answered once, by the request or by a cancel, whichever comes first.
    private final class AbandonableCall: Sendable {
        typealias Answer = Result<(Data, URLResponse), any Error>
        private let state = Mutex<(waiting: CheckedContinuation<(Data, URLResponse), any Error>?, cancelled: Bool)>(
            (nil, false))

        /// Keeps the continuation; false (and answered) when the call was cancelled before it started.
        func wait(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
            let cancelled = state.withLock { state in
                if !state.cancelled { state.waiting = continuation }
                return state.cancelled
            }
            if cancelled { continuation.resume(throwing: URLError(.cancelled)) }
            return !cancelled
        }

        /// The request's answer, unless the caller was answered already.
        func finish(_ answer: Answer) {
            take(cancelling: false)?.resume(with: answer)
        }

        /// Answers the caller with `URLError(.cancelled)` now, or at `wait` if it has not started.
        func cancel() {
            take(cancelling: true)?.resume(throwing: URLError(.cancelled))
        }

        private func take(cancelling: Bool) -> CheckedContinuation<(Data, URLResponse), any Error>? {
            state.withLock { state in
                if cancelling { state.cancelled = true }
                defer { state.waiting = nil }
                return state.waiting
            }
        }
    }
#else
    extension URLSession {
        /// Apple's URLSession cancels its async calls safely.
        func cancellableData(for request: URLRequest) async throws -> (Data, URLResponse) {
            try await data(for: request)
        }
    }
#endif
