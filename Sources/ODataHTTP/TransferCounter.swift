import Synchronization

/// Bytes of response bodies received so far, as they arrive (after decompression): what a waiting screen
/// shows to say that something is coming.
public final class TransferCounter: Sendable {
    private let bytes = Mutex(0)

    public init() {}

    /// Every body byte received by the transports that count into this.
    public var total: Int { bytes.withLock { $0 } }

    func add(_ count: Int) {
        bytes.withLock { $0 += count }
    }
}
