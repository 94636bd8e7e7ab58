/// At most `perHost` downloads at once from one host; the others wait in arrival order.
///
///     let gate = HostGate(perHost: 6)
///     await gate.acquire("cdn.example.com")
///     defer { Task { await gate.release("cdn.example.com") } }
package actor HostGate {
    package let perHost: Int
    private var active: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    package init(perHost: Int) { self.perHost = max(1, perHost) }

    package func acquire(_ host: String) async {
        if active[host, default: 0] < perHost {
            active[host, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Hands the slot to the next waiter, if any (the count stays), else frees it.
    package func release(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()
            return
        }
        let count = active[host, default: 1] - 1
        active[host] = count > 0 ? count : nil
    }
}
