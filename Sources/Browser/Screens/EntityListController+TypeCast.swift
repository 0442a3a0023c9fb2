import ODataCore
import ScreenSeam
import Terminal

/// A list of a base type narrowed to one of its derived types (issue 37): `:type Mechanic` opens the set's list
/// through a type-cast segment (`Staff/NS.Mechanic`), the service's own filter, whose columns are that type's.
extension EntityListController {
    /// The derived type a list request casts its set to (`Staff/NS.Mechanic`), when it is such a request.
    static func cast(of request: ListRequest, model: ServiceModel) -> EntityType? {
        let segments = request.path.segments
        guard segments.count == 2, segments[0].key == nil, segments[1].key == nil, !segments[1].isCall else {
            return nil
        }
        let set = model.listedSet(ofSegment: segments[0].name) ?? segments[0].name
        return model.castType(segments[1].name, onSet: set)
    }

    /// `:type NAME`: this set's list of the derived type `name` (its name or qualified name, in any case), opened
    /// over this one; or the sentence why not.
    func typeCast(to name: String) -> Result<EntityListController, TypeCastRefusal> {
        let model = environment.model
        guard case .list(let request) = source, let set = shownSet, let setType = model.entityType(ofSet: set),
            request.path.segments.count <= 2, request.path.segments[0].key == nil
        else { return .failure(TypeCastRefusal("Only a list of an entity set narrows to a type.")) }
        let derived = model.derivedTypes(of: setType)
        guard model.isVersion4 else {
            return .failure(TypeCastRefusal("OData v2 has no type casts: the service lists \(kindTitle) whole."))
        }
        guard !derived.isEmpty else {
            return .failure(TypeCastRefusal("\(kindTitle) are all of one type: the service derives none from it."))
        }
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard
            let type = derived.first(where: {
                $0.name.lowercased() == wanted || $0.qualifiedName.lowercased() == wanted
            })
        else {
            let names = derived.map { TextSanitizer.sanitize($0.name) }.joined(separator: ", ")
            return .failure(TypeCastRefusal("\(kindTitle) have these types besides their own: \(names)."))
        }
        var path = ResourcePath(entitySet: request.path.segments[0].name)
        path.segments.append(ResourcePath.Segment(name: type.qualifiedName))
        let title = TextSanitizer.sanitize(type.ui.typeNamePlural ?? type.name)
        return .success(
            EntityListController(
                environment: environment, source: .list(ListRequest(path: path, options: request.options)),
                breadcrumb: title, kindTitle: title))
    }
}

/// Why `:type` did not narrow a list, as a sentence.
struct TypeCastRefusal: Error {
    var sentence: String

    init(_ sentence: String) {
        self.sentence = sentence
    }
}
