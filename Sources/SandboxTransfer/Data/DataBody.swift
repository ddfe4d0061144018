import AsyncHTTPClient
import Foundation
import NIOCore
import SandboxStore

/// A data task's body as chunks of bytes, in order, as they arrive: `URLSession.AsyncBytes` by
/// chunk.
///
/// Reading pulls from the connection: while no one asks for the next chunk, the client stops
/// reading from the socket and the server waits (back-pressure), so memory holds a few chunks at
/// most. Iterate it once. Dropping it before the end cancels the request.
///
/// Iteration throws ``/SandboxCore/SandboxError``: `too-large` as soon as the bytes pass
/// the request's ``DataRequest/maximumSize`` (the chunk that passes it is not handed over),
/// ``SandboxCore/SandboxError/Code/invalidResponse`` when the body ends before its `Content-Length`,
/// ``SandboxCore/SandboxError/Code/stalled``, ``SandboxCore/SandboxError/Code/network`` or
/// ``SandboxCore/SandboxError/Code/cancelled`` as a download would.
public struct DataBody: AsyncSequence, Sendable {
    /// A chunk of the body, as it arrived.
    public typealias Element = Data
    /// Iteration throws only ``/SandboxCore/SandboxError``.
    public typealias Failure = SandboxError

    let body: HTTPClientResponse.Body
    /// Kept so that its client, which reads the body, is not shut down while the body is read.
    let session: DataSession
    let url: String
    let limit: Int64
    let expectedLength: Int64?

    /// The iterator over the chunks. Make one: the body is read from the connection once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator(), url: url, limit: limit, expectedLength: expectedLength)
    }

    /// Reads the chunks in order; see ``DataBody``.
    public struct Iterator: AsyncIteratorProtocol {
        /// A chunk of the body, as it arrived.
        public typealias Element = Data
        /// Iteration throws only ``/SandboxCore/SandboxError``.
        public typealias Failure = SandboxError

        var base: HTTPClientResponse.Body.AsyncIterator
        let url: String
        let limit: Int64
        let expectedLength: Int64?
        var received: Int64 = 0
        var ended = false

        /// The next chunk, `nil` after the last one.
        ///
        /// - Throws: as ``DataBody`` says.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(SandboxError) -> Data? {
            guard !ended else { return nil }
            let chunk: ByteBuffer?
            do {
                chunk = try await base.next(isolation: actor)
            } catch {
                ended = true
                throw AttemptFailure.classify(error, url: url).error
            }
            guard let chunk else {
                ended = true
                if let expectedLength, received != expectedLength {
                    throw SandboxError(
                        .invalidResponse,
                        "\(url) sent \(received) of the \(expectedLength) bytes its Content-Length announced.",
                        url: url)
                }
                return nil
            }
            received += Int64(chunk.readableBytes)
            if received > limit {
                ended = true
                throw DataBody.tooLarge(url, limit: limit, size: nil)
            }
            return Data(chunk.readableBytesView)
        }

        /// The next chunk, `nil` after the last one; ``next(isolation:)`` without an actor.
        ///
        /// - Throws: as ``DataBody`` says.
        public mutating func next() async throws(SandboxError) -> Data? {
            try await next(isolation: nil)
        }
    }

    /// The `too-large` error of `url`'s body, whose `size` is known when announced.
    static func tooLarge(_ url: String, limit: Int64, size: Int64?) -> SandboxError {
        let what = size.map { "announces \($0) bytes" } ?? "runs past it"
        return SandboxError(
            .tooLarge,
            "The body of \(url) \(what): more than the \(limit) bytes the request allows; raise its maximum size.",
            url: url)
    }
}
