/// # Browser
///
/// The screens: a ``NavigationStack`` of plain controllers (one per screen, holding
/// no other controller), the chrome around them (breadcrumb, status line, help),
/// and ``BrowserApp``, which turns terminal events into one frame per batch.
///
/// What this module must not do: touch the network. It reads only the local cache
/// (`EntityCache`'s read API) and tells the background fetcher what it shows through
/// `SyncIntents`; it does not import `Sync`, so the compiler keeps that promise.
public enum BrowserModule {}
