/// Sync: the background fetcher.
///
/// Sends through any `ODataCore.ODataTransport` (the AsyncHTTPClient one lives in ODataHTTP; Sync imports no
/// HTTP library). Owns the request registry (``SyncEngine``: priority queue, de-duplication, cancel,
/// retry with backoff, ETag revalidation, request log, offline state), the
/// ``PrefetchPolicy`` that turns screen intents into `$expand` requests, and the
/// ``Normaliser`` that writes responses into the cache as flat rows.
///
/// Screens never call Sync directly: they publish intents through
/// `ScreenSeam.SyncIntents`, which ``SyncEngine`` implements.
public enum SyncModule {}
