/// EntityCache: the local SQLite store the screens read.
///
/// Owns the GRDB database (WAL through `DatabasePool`), its migrations, the
/// flat records (one row per canonical entity key, relations as ordered rows
/// of keys, lists as stored query results keyed by their non-fielded
/// endpoint), the **read API** for screens with main-actor observation, the
/// **write API** used only by Sync, the sync status and request log the
/// status line and inspector read. What a screen is and asks for lives in
/// ScreenSeam, not here.
///
/// It must not do I/O beyond its database file, and it never stores object
/// graphs: records refer to each other by ``ODataCore/EntityKey/canonical``.
public enum EntityCacheModule {}
