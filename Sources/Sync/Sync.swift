/// Sync: the background fetcher.
///
/// Owns the HTTP transport (a protocol, with an AsyncHTTPClient implementation, and the
/// proxy it takes from `http_proxy` / `https_proxy` / `no_proxy`: ``ProxySettings``), the
/// request registry (``SyncEngine``: priority queue, de-duplication, cancel,
/// retry with backoff, ETag revalidation, request log, offline state), the
/// ``PrefetchPolicy`` that turns screen intents into `$expand` requests, and the
/// ``Normaliser`` that writes responses into the cache as flat rows.
///
/// Screens never call Sync directly: they publish intents through
/// `EntityCache.SyncIntents`, which ``SyncEngine`` implements.
public enum SyncModule {}
