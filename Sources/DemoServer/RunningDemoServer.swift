/// A demo server running in this process, from ``DemoServer/start(_:logger:)``.
public final class RunningDemoServer: Sendable {
    /// The port it listens on (the real one when port 0 was asked for).
    public let port: Int
    /// The service root, e.g. `http://127.0.0.1:54321/CarDealer.svc/`.
    public let baseURL: String
    /// The same service in OData v4, e.g. `http://127.0.0.1:54321/v4/CarDealer.svc/`.
    public var version4URL: String {
        guard let range = baseURL.range(of: ODataResponder.servicePath + "/", options: .backwards) else {
            return baseURL
        }
        return String(baseURL[..<range.lowerBound]) + ODataResponder.version4Path + "/"
    }
    /// The data it serves.
    public let store: DataStore
    private let task: Task<Void, any Error>

    init(port: Int, baseURL: String, store: DataStore, task: Task<Void, any Error>) {
        self.port = port
        self.baseURL = baseURL
        self.store = store
        self.task = task
    }

    /// Stops listening and waits until the server has shut down.
    ///
    /// A client that has just gone (a browser quit a moment ago) leaves its connections' handlers finishing
    /// their answers; cancelling the server under them ends a response writer unfinished, which swift-nio
    /// stops the process for in a debug build (seen once in CI). So they get a quarter of a second first.
    public func stop() async {
        try? await Task.sleep(for: .milliseconds(250))
        task.cancel()
        _ = try? await task.value
    }
}
