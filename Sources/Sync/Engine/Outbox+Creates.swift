import EntityCache
import Foundation
import ODataCore

/// Creates in the outbox: the request that makes an entity (and, on v2, the link posted through it in one
/// changeset), the service's key taking the temporary one's place, and what a refused link left on the service.
extension Outbox {
    /// Why a write was refused, as the outbox shows it. A link refused after the entity it was made with was
    /// created says what that left on the service, and what the user can do about it.
    static func refusal(of entry: OutboxEntry, failure: String) -> String {
        guard let made = entry.madeWithIt else { return failure }
        return "\(failure) So \(made.canonical), made with it, is on the service linked to nobody: e changes this "
            + "\(entry.entitySet) and sends it again, x drops it and deletes \(made.canonical) from the service."
    }

    /// `POST Set` with the properties, or `POST Parent(k)/Navigation` for one linked to its parent; a link
    /// entity binds the entity it links (`"Car":{"__metadata":{"uri":"…/Car(7)"}}`). Keys left empty (or
    /// temporary) are the service's to give; null values are left out.
    /// `reference`: what names the bound entity instead of its URL (`$1`, the create made with it in one changeset).
    func createRequest(
        _ entry: OutboxEntry, shownIn: ShownIn?, binding: OutboxEntry.Binding?,
        attempt: WriteRequestBuilder.Attempt, reference: String? = nil
    ) -> TransportRequest {
        var path: ResourcePath
        if let parent = shownIn?.parent, let navigation = shownIn?.navigation, shownIn?.list == nil {
            // (through the parent's own path: a contained parent's goes through its container)
            path = ResourcePath(parent).appending(navigation)
        } else {
            path = ResourcePath(set: entry.entitySet)
        }
        var bindings: [(navigation: String, uri: String)] = []
        if let reference, model?.dialect != .v4, let joined = version2Join(entry) {
            // v2 names a new entity by its Content-ID in a URL only: posted through it, binding the parent.
            path = ResourcePath(segments: [
                ResourcePath.Segment(name: reference), ResourcePath.Segment(name: joined.through),
            ])
            bindings.append((joined.back, builder.url(ResourcePath(joined.parent), QueryOptions())))
        } else if let binding {
            bindings.append(
                (binding.navigation, reference ?? builder.url(ResourcePath(binding.target), QueryOptions())))
        }
        return writes.create(
            at: path, properties: entry.changes, types: propertyTypes(of: entry.entitySet, changes: entry.changes),
            bindings: bindings,
            attempt: attempt)
    }

    /// How a v2 link entity goes in one changeset with the new entity it binds: `POST $1/PersonCar` (`through`, the
    /// new car's navigation to its ownerships) binding the person it is shown under (`back`, the ownership's
    /// navigation to them). Nil when the service's model has either navigation missing: then it goes after the create.
    func version2Join(_ link: OutboxEntry) -> (through: String, back: String, parent: EntityKey)? {
        guard let model, case .create(let shownIn, let binding?, _) = link.write,
            let parent = shownIn?.parent, let navigation = shownIn?.navigation, shownIn?.list == nil,
            let through = model.partnerNavigation(binding.navigation, fromSet: link.entitySet),
            let back = model.partnerNavigation(navigation, fromSet: parent.entitySet),
            let created = model.resolveNavigation(binding.navigation, fromSet: link.entitySet)?.targetSet,
            model.resolveNavigation(through, fromSet: created)?.targetSet == link.entitySet,
            model.resolveNavigation(back, fromSet: link.entitySet)?.targetSet == parent.entitySet
        else { return nil }
        return (through, back, parent)
    }

    /// A `201`: the service's key (from the answer's entity, else its `Location`) replaces the temporary one.
    func settleCreate(_ entry: OutboxEntry, response: TransportResponse) async {
        var serverKey: EntityKey?
        var copy: [ODataProperty]?
        var type: String?
        var etag = response.etag
        if !response.body.isEmpty,
            case .entity(let entity)? = try? runner.decoder.decode(response.body, entitySet: entry.entitySet)
        {
            serverKey = entity.key
            copy = entity.properties
            type = entity.metadata.type
            etag = etag ?? entity.metadata.etag
        }
        if serverKey == nil, let location = response.headers["location"] {
            if let path = ResourcePath.parse(uri: location, serviceRoot: builder.serviceRoot),
                let values = path.segments.last?.key
            {
                // (a contained entity's names its container first: `Person(1)/Trips(3)`)
                let container = ResourcePath(segments: path.segments.dropLast()).canonical
                serverKey = EntityKey(
                    entitySet: (container.isEmpty ? "" : container + "/") + path.segments[path.segments.count - 1].name,
                    values: values)
            } else if let key = model?.keyAsSegmentKey(location) {
                // (`…/Staff/3`, from a service that takes keys as segments)
                serverKey = key
            }
        }
        guard let serverKey, serverKey.entitySet == entry.entitySet else {
            // Made, but we cannot tell under which key: the list shows it once fetched again.
            await record {
                try $0.failOutbox(
                    entry.id,
                    error: "The service made it but did not say under which key; refresh (Ctrl-R) to see it.")
            }
            return
        }
        let (settled, madeType, madeCopy, madeEtag) = (clock.now(), type, copy, etag)
        await record {
            try $0.settleCreate(
                entry.id, serverKey: serverKey, type: madeType, serverCopy: madeCopy, etag: madeEtag, at: settled)
        }
        await sayWhatTheServiceChanged(entry.changes, answer: copy, of: serverKey)
    }

    /// Says once (on the status line) which typed values the service's answer holds otherwise.
    func sayWhatTheServiceChanged(_ typed: [ODataProperty], answer: [ODataProperty]?, of key: EntityKey) async {
        guard let answer,
            let sentence = ChangedByService.sentence(
                ChangedByService.differences(typed: typed, answer: answer), of: key)
        else { return }
        await engine?.note(failure: sentence)
    }
}
