/// Held by the values a consumer owns (a sequence, its iterator): when the last of them goes away,
/// the producer is cancelled, so that an abandoned read stops and returns its buffers.
final class ConsumerToken<Element: Sendable>: Sendable {
    let producer: PooledProducer<Element>

    init(_ producer: PooledProducer<Element>) {
        self.producer = producer
    }

    deinit {
        producer.cancel(.rule(.interrupted, "Nobody is reading the parts any more."))
    }
}
