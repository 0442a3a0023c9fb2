/// How to run the demo service; the defaults are what the browser's built-in demo uses.
public struct DemoServerConfiguration: Sendable {
    /// The interface to listen on; loopback by default.
    public var host = "127.0.0.1"
    /// The port; 0 asks the system for a free one (see ``RunningDemoServer/port``).
    public var port = 0
    /// People to generate; nil takes what a cached data file holds, or 200.
    public var people: Int?
    /// The SQLite file to reuse or generate; nil uses a cache file in the temporary directory.
    public var dataPath: String?
    /// Server-driven page size (the most entities per collection response).
    public var pageSize = 100
    /// Added latency per request in milliseconds, plus up to ``latencyJitterMilliseconds`` more.
    public var latencyMilliseconds = 0
    public var latencyJitterMilliseconds = 0
    /// Probability (0…1) that a request fails with an injected 503.
    public var failRate = 0.0
    /// Serve the hostile data variant: strings with escape sequences, controls, bidi overrides and 100 KB
    /// values (``HostileStrings``), to check that no server data can take over a terminal.
    public var hostile = false
    /// Refuse every change with 403 (`cardealer serve --read-only`).
    public var readOnly = false
    /// Read the data at background QoS (on Linux, threads at nice 10), for a service that shares its process and
    /// cores with people typing: the browser's built-in demo and `serve-ssh`'s sessions, whose keypresses should
    /// win the cores over an answer. `cardealer serve` keeps GRDB's default.
    public var readsInBackground = false

    public init(
        host: String = "127.0.0.1", port: Int = 0, people: Int? = nil, dataPath: String? = nil, pageSize: Int = 100,
        latencyMilliseconds: Int = 0, latencyJitterMilliseconds: Int = 0, failRate: Double = 0,
        hostile: Bool = false, readOnly: Bool = false
    ) {
        self.readOnly = readOnly
        self.host = host
        self.port = port
        self.people = people
        self.dataPath = dataPath
        self.pageSize = pageSize
        self.latencyMilliseconds = latencyMilliseconds
        self.latencyJitterMilliseconds = latencyJitterMilliseconds
        self.failRate = failRate
        self.hostile = hostile
    }
}
