/// A first-in, first-out queue with amortized O(1) operations.
///
/// Taken slots are cleared at once, so a queue of buffers never keeps a consumed one alive.
struct FIFO<Element> {
    private var slots: [Element?] = []
    private var head = 0

    var count: Int { slots.count - head }
    var isEmpty: Bool { head == slots.count }
    var first: Element? { isEmpty ? nil : slots[head] }

    mutating func append(_ element: Element) {
        slots.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes and returns the first element that satisfies `predicate`.
    mutating func removeFirst(where predicate: (Element) -> Bool) -> Element? {
        guard let index = slots[head...].firstIndex(where: { $0.map(predicate) ?? false }) else { return nil }
        let element = slots.remove(at: index)
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        }
        return element
    }

    /// Removes and returns every element, oldest first.
    mutating func removeAll() -> [Element] {
        let elements = slots[head...].compactMap { $0 }
        slots.removeAll()
        head = 0
        return elements
    }
}
