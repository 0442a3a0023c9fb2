import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's draft-enabled set (issue 36): work orders at the v4 root, edited as an SAP CAP service edits
/// a set it keeps in drafts — edit, change the draft, prepare, activate — with ALICE's draft locked to everyone else,
/// activation checking what a work order needs, and a request id honoured once. Each outcome is read back with plain
/// requests on a data file of the test's own.
@Suite struct WorkOrderDraftTests {
    struct Held: Equatable {
        var active: Bool
        var title: String?
        var carID: Int64?
        var hasDraft: Bool
    }

    /// The copies of work order `id` the service holds, the active one first.
    func held(_ service: LiveService, _ id: Int) async throws -> [Held] {
        let root = service.server.version4URL
        let response = try await service.get(root + "WorkOrder?$filter=ID%20eq%20\(id)")
        guard
            case .collection(let listed) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(
                Array(response.body))
        else { return [] }
        return listed.entities.map { entity in
            var held = Held(active: false, title: nil, carID: nil, hasDraft: false)
            if case .bool(let flag)? = entity["IsActiveEntity"] { held.active = flag }
            if case .string(let text)? = entity["title"] { held.title = text }
            if case .int(let number)? = entity["carID"] { held.carID = number }
            if case .bool(let flag)? = entity["HasDraftEntity"] { held.hasDraft = flag }
            return held
        }
    }

    /// `METHOD v4root + relative`, with a JSON body when one is given.
    func send(
        _ service: LiveService, _ method: String, _ relative: String, _ body: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, headers: [String: String], text: String) {
        let response = try await service.get(
            service.server.version4URL + relative, headers: headers, method: method, body: body)
        return (response.status, response.headers, String(decoding: response.body, as: UTF8.self))
    }

    static let edit = "edmexampleModel.draftEdit"
    static let prepare = "edmexampleModel.draftPrepare"
    static let activate = "edmexampleModel.draftActivate"

    @Test func declared_as_a_draft_root_which_the_clients_model_reads() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let model = try EDMXParser.parse(Array(try await service.get(service.server.version4URL + "$metadata").body))
        #expect(
            model.draftActions(ofSet: "WorkOrder")
                == DraftActions(
                    activation: "edmexampleModel.draftActivate", edit: "edmexampleModel.draftEdit",
                    preparation: "edmexampleModel.draftPrepare"))
        let type = try #require(model.entityType(ofSet: "WorkOrder"))
        #expect(model.keyProperties(of: type) == ["ID", "IsActiveEntity"])
        #expect(type.properties.first { $0.name == "ID" }?.isCreatable == false)
        #expect(type.properties.first { $0.name == "carID" }?.label == "Car number")
        #expect(model.draftAdministration(ofSet: "WorkOrder") == "DraftAdministrativeData")
        #expect(model.draftAdministration(ofSet: "Car") == nil)
        #expect(
            String(decoding: try await service.get(service.server.version4URL).body, as: UTF8.self).contains(
                #""name":"WorkOrder""#))
        // v2 drafts are another choreography: the v2 root does not offer the set
        let version2 = String(decoding: try await service.get("$metadata").body, as: UTF8.self)
        #expect(!version2.contains("WorkOrder"))
    }

    @Test func a_change_goes_edit_patch_prepare_activate_and_leaves_no_draft() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let before = try await send(service, "GET", "WorkOrder(ID=1,IsActiveEntity=true)")
        let version = try #require(before.headers["etag"])
        let edited = try await send(
            service, "POST", "WorkOrder(ID=1,IsActiveEntity=true)/\(Self.edit)", #"{"PreserveChanges":false}"#,
            headers: ["If-Match": version])
        #expect(edited.status == 201 && edited.text.contains(#""IsActiveEntity":false"#), "\(edited.text)")
        #expect(edited.headers["location"]?.hasSuffix("WorkOrder(ID=1,IsActiveEntity=false)") == true)
        #expect(try await held(service, 1).map(\.active) == [true, false])
        #expect(try await held(service, 1).first?.hasDraft == true)
        let patched = try await send(
            service, "PATCH", "WorkOrder(ID=1,IsActiveEntity=false)", #"{"title":"Brake pads and discs"}"#,
            headers: ["If-Match": "*"])
        #expect(patched.status == 200, "\(patched.text)")
        // (the active one is as it was until the draft is activated)
        #expect(try await held(service, 1).first?.title == "Replace the brake pads")
        #expect(
            try await send(service, "POST", "WorkOrder(ID=1,IsActiveEntity=false)/\(Self.prepare)", "{}").status == 200)
        let activated = try await send(service, "POST", "WorkOrder(ID=1,IsActiveEntity=false)/\(Self.activate)", "{}")
        #expect(activated.status == 200 && activated.text.contains(#""IsActiveEntity":true"#), "\(activated.text)")
        #expect(activated.headers["etag"] != nil && activated.headers["etag"] != version)
        #expect(
            try await held(service, 1)
                == [Held(active: true, title: "Brake pads and discs", carID: 1, hasDraft: false)])
    }

    @Test func the_active_one_is_not_changed_in_place_and_a_stale_version_makes_no_draft() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let inPlace = try await send(service, "PATCH", "WorkOrder(ID=2,IsActiveEntity=true)", #"{"title":"x"}"#)
        #expect(inPlace.status == 409 && inPlace.text.contains("through its draft"), "\(inPlace.text)")
        let stale = try await send(
            service, "POST", "WorkOrder(ID=2,IsActiveEntity=true)/\(Self.edit)", #"{"PreserveChanges":false}"#,
            headers: ["If-Match": #"W/"1""#])
        #expect(stale.status == 412, "\(stale.text)")
        #expect(
            try await held(service, 2) == [Held(active: true, title: "Rotate the tyres", carID: 2, hasDraft: false)])
    }

    @Test func alices_draft_is_locked_to_everyone_else_and_says_who_holds_it() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let before = try await held(service, 3)
        #expect(before.map(\.active) == [true, false] && before[0].hasDraft)
        for (method, relative, body) in [
            ("PATCH", "WorkOrder(ID=3,IsActiveEntity=false)", #"{"title":"Mine"}"#),
            ("POST", "WorkOrder(ID=3,IsActiveEntity=true)/\(Self.edit)", #"{"PreserveChanges":false}"#),
            ("POST", "WorkOrder(ID=3,IsActiveEntity=false)/\(Self.activate)", "{}"),
            ("DELETE", "WorkOrder(ID=3,IsActiveEntity=false)", nil),
            ("DELETE", "WorkOrder(ID=3,IsActiveEntity=true)", nil),
        ] {
            // (her lock is the reason, whatever version is named)
            let answer = try await send(service, method, relative, body, headers: ["If-Match": #"W/"1""#])
            #expect(answer.status == 423 && answer.text.contains("ALICE is editing its draft since"), "\(answer.text)")
        }
        #expect(try await held(service, 3) == before)
    }

    @Test func a_new_one_is_a_draft_activated_only_with_a_title_and_a_car_that_exists() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let unknown = try await send(service, "POST", "WorkOrder", #"{"title":"Paint","colour":"red"}"#)
        #expect(unknown.status == 400 && unknown.text.contains("colour"), "\(unknown.text)")
        let made = try await send(service, "POST", "WorkOrder", #"{"title":"Fit winter tyres","carID":999999}"#)
        #expect(made.status == 201, "\(made.text)")
        let location = try #require(made.headers["location"])
        #expect(location.hasSuffix("WorkOrder(ID=5,IsActiveEntity=false)"))
        let refused = try await send(service, "POST", "WorkOrder(ID=5,IsActiveEntity=false)/\(Self.activate)", "{}")
        #expect(refused.status == 400 && refused.text.contains("There is no car 999999"), "\(refused.text)")
        #expect(
            try await held(service, 5) == [
                Held(active: false, title: "Fit winter tyres", carID: 999999, hasDraft: false)
            ])
        _ = try await send(service, "PATCH", "WorkOrder(ID=5,IsActiveEntity=false)", #"{"carID":2}"#)
        let activated = try await send(service, "POST", "WorkOrder(ID=5,IsActiveEntity=false)/\(Self.activate)", "{}")
        // (a new one made active: 201, and where it is, as CAP answers)
        #expect(activated.status == 201, "\(activated.text)")
        #expect(activated.headers["location"]?.hasSuffix("WorkOrder(ID=5,IsActiveEntity=true)") == true)
        #expect(
            try await held(service, 5) == [Held(active: true, title: "Fit winter tyres", carID: 2, hasDraft: false)])
        // A draft without a title is not activated either
        _ = try await send(service, "POST", "WorkOrder", #"{"carID":1}"#)
        let untitled = try await send(service, "POST", "WorkOrder(ID=6,IsActiveEntity=false)/\(Self.activate)", "{}")
        #expect(untitled.status == 400 && untitled.text.contains("needs a title"), "\(untitled.text)")
    }

    @Test func a_request_id_seen_before_gets_its_first_answer_and_changes_nothing() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let first = try await send(
            service, "POST", "WorkOrder(ID=4,IsActiveEntity=true)/\(Self.edit)", #"{"PreserveChanges":false}"#,
            headers: ["Repeatability-Request-ID": "edit-4"])
        _ = try await send(
            service, "PATCH", "WorkOrder(ID=4,IsActiveEntity=false)", #"{"title":"Oil and filter"}"#)
        // The edit again would make the draft anew (dropping the title): with its id, it is the first answer
        let again = try await send(
            service, "POST", "WorkOrder(ID=4,IsActiveEntity=true)/\(Self.edit)", #"{"PreserveChanges":false}"#,
            headers: ["Repeatability-Request-ID": "edit-4"])
        #expect(again.status == first.status && again.text == first.text)
        #expect(try await held(service, 4).last?.title == "Oil and filter")
        let activated = try await send(
            service, "POST", "WorkOrder(ID=4,IsActiveEntity=false)/\(Self.activate)", "{}",
            headers: ["Repeatability-Request-ID": "activate-4"])
        // The draft is gone; the activation again answers as it did the first time, not 404
        let replayed = try await send(
            service, "POST", "WorkOrder(ID=4,IsActiveEntity=false)/\(Self.activate)", "{}",
            headers: ["Repeatability-Request-ID": "activate-4"])
        #expect(activated.status == 200 && replayed.status == 200 && replayed.text == activated.text)
        #expect(try await held(service, 4) == [Held(active: true, title: "Oil and filter", carID: 4, hasDraft: false)])
    }

    @Test func discarding_a_draft_leaves_the_active_one_as_it_was() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        _ = try await send(service, "POST", "WorkOrder(ID=2,IsActiveEntity=true)/\(Self.edit)", "{}")
        _ = try await send(service, "PATCH", "WorkOrder(ID=2,IsActiveEntity=false)", #"{"title":"Dropped"}"#)
        let discarded = try await send(service, "DELETE", "WorkOrder(ID=2,IsActiveEntity=false)")
        #expect(discarded.status == 204)
        #expect(
            try await held(service, 2) == [Held(active: true, title: "Rotate the tyres", carID: 2, hasDraft: false)])
        #expect(try await send(service, "DELETE", "WorkOrder(ID=2,IsActiveEntity=false)").status == 404)
    }

    @Test func in_a_batch_changeset_a_refused_activation_takes_the_draft_back_with_it() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        func batch(_ title: String) async throws -> String {
            let body = DemoBatchTests.multipart([
                [
                    ("1", "POST WorkOrder(ID=1,IsActiveEntity=true)/\(Self.edit)", #"{"PreserveChanges":false}"#),
                    ("2", "PATCH WorkOrder(ID=1,IsActiveEntity=false)", #"{"title":"\#(title)"}"#),
                    ("3", "POST WorkOrder(ID=1,IsActiveEntity=false)/\(Self.activate)", "{}"),
                ]
            ])
            let response = try await service.get(
                service.server.version4URL + "$batch", headers: ["Content-Type": "multipart/mixed; boundary=b"],
                method: "POST", body: body)
            return String(decoding: response.body, as: UTF8.self)
        }
        let refused = try await batch("  ")
        #expect(refused.contains("needs a title"), "\(refused)")
        #expect(
            try await held(service, 1) == [
                Held(active: true, title: "Replace the brake pads", carID: 1, hasDraft: false)
            ])
        let done = try await batch("Pads")
        #expect(done.contains("HTTP/1.1 200"), "\(done)")
        #expect(try await held(service, 1) == [Held(active: true, title: "Pads", carID: 1, hasDraft: false)])
    }

    @Test func its_list_filters_sorts_counts_and_selects_and_says_what_it_does_not_do() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        func titles(_ query: String) async throws -> [String] {
            let answer = try await send(service, "GET", "WorkOrder?" + query)
            let json = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
            return (json?["value"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        #expect(
            try await titles("$filter=IsActiveEntity%20eq%20true%20and%20contains(tolower(title),'tyre')")
                == ["Rotate the tyres"])
        #expect(
            try await titles("$filter=IsActiveEntity%20eq%20true&$orderby=title%20desc&$top=2")
                == ["Rotate the tyres", "Replace the brake pads"])
        #expect(try await titles("$filter=not%20IsActiveEntity") == ["Check the lights and the horn"])
        let counted = try await send(service, "GET", "WorkOrder?$filter=IsActiveEntity%20eq%20true&$count=true&$top=0")
        #expect(counted.text.contains(#""@odata.count":4"#), "\(counted.text)")
        #expect(try await send(service, "GET", "WorkOrder/$count").text == "5")
        let selected = try await send(service, "GET", "WorkOrder?$select=title&$top=1")
        #expect(selected.text.contains(#""ID":1,"IsActiveEntity":true,"title""#) && !selected.text.contains("carID"))
        for (query, status) in [
            ("$filter=colour%20eq%201", 400), ("$filter=title%20eq%201", 400), ("$filter=ID%20add%201%20eq%202", 501),
            ("$expand=Car", 400), ("$search=oil", 501),
        ] {
            let answer = try await send(service, "GET", "WorkOrder?" + query)
            #expect(answer.status == status && answer.text.contains(#""error""#), "\(query): \(answer.text)")
        }
        #expect(try await send(service, "GET", "WorkOrder(1)").status == 400)
        #expect(
            try await send(service, "GET", "WorkOrder(ID=1,IsActiveEntity=true)/edmexampleModel.nothing").status == 404)
    }

    @Test func who_edits_a_draft_and_since_when_is_its_administrative_data_expanded_or_followed() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        // ALICE's draft of work order 3, with the active ones
        let listed = try await send(
            service, "GET", "WorkOrder?$filter=IsActiveEntity%20eq%20true&$expand=DraftAdministrativeData")
        let json = try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any]
        let rows = json?["value"] as? [[String: Any]] ?? []
        #expect(rows.count == 4)
        let third = try #require(rows.first { $0["ID"] as? Int == 3 }?["DraftAdministrativeData"] as? [String: Any])
        #expect(third["InProcessByUser"] as? String == "ALICE" && third["DraftIsProcessedByMe"] as? Bool == false)
        #expect(third["CreationDateTime"] as? String == "2025-11-24T16:01:00Z")
        #expect(rows.first { $0["ID"] as? Int == 1 }?["DraftAdministrativeData"] is NSNull)
        // Followed: none for an order without a draft; the user's own once they edit it
        #expect(
            try await send(service, "GET", "WorkOrder(ID=1,IsActiveEntity=true)/DraftAdministrativeData").status == 204)
        _ = try await send(service, "POST", "WorkOrder(ID=1,IsActiveEntity=true)/\(Self.edit)", "{}")
        let mine = try await send(service, "GET", "WorkOrder(ID=1,IsActiveEntity=false)/DraftAdministrativeData")
        #expect(mine.status == 200 && mine.text.contains(#""DraftIsProcessedByMe":true"#), "\(mine.text)")
        // The set of them, one by its DraftUUID, and no writes
        let all = try await send(service, "GET", "DraftAdministrativeData")
        let uuid = try #require(
            (try JSONSerialization.jsonObject(with: Data(all.text.utf8)) as? [String: Any]).flatMap {
                ($0["value"] as? [[String: Any]])?.first { $0["InProcessByUser"] as? String == "ALICE" }?["DraftUUID"]
                    as? String
            })
        #expect(try await send(service, "GET", "DraftAdministrativeData(\(uuid))").text.contains("ALICE"))
        #expect(try await send(service, "GET", "DraftAdministrativeData(not-a-guid)").status == 400)
        #expect(try await send(service, "DELETE", "DraftAdministrativeData(\(uuid))").status == 405)
        // The client's model reads it back whole
        let model = try EDMXParser.parse(Array(try await service.get(service.server.version4URL + "$metadata").body))
        let admin = try #require(model.entityType(ofSet: "DraftAdministrativeData"))
        #expect(admin.properties.first { $0.name == "InProcessByUser" }?.label == "Being edited by")
        #expect(
            model.resolveNavigation("DraftAdministrativeData", fromSet: "WorkOrder")?.targetSet
                == "DraftAdministrativeData")
    }

    @Test func a_number_is_never_given_twice_and_a_replay_is_the_first_answer_whole() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let made = try await send(
            service, "POST", "WorkOrder", #"{"title":"Wash","carID":1}"#, headers: ["Repeatability-Request-ID": "new-1"]
        )
        #expect(made.headers["location"]?.hasSuffix("WorkOrder(ID=5,IsActiveEntity=false)") == true)
        #expect(try await send(service, "DELETE", "WorkOrder(ID=5,IsActiveEntity=false)").status == 204)
        // The next one is 6, not 5 again
        let next = try await send(service, "POST", "WorkOrder", #"{"title":"Polish","carID":1}"#)
        #expect(next.headers["location"]?.hasSuffix("WorkOrder(ID=6,IsActiveEntity=false)") == true, "\(next.headers)")
        // The first create's id again: its answer whole (status, body, where, what it is), and nothing made
        let replayed = try await send(
            service, "POST", "WorkOrder", #"{"title":"Wash","carID":1}"#, headers: ["Repeatability-Request-ID": "new-1"]
        )
        #expect(replayed.status == 201 && replayed.text == made.text)
        #expect(replayed.headers["location"] == made.headers["location"])
        #expect(replayed.headers["content-type"]?.hasPrefix("application/json") == true)
        let (seventh, fifth) = (try await held(service, 7), try await held(service, 5))
        #expect(seventh.isEmpty && fifth.isEmpty)
        // The same id on another request is refused, not answered with that one's answer
        let misused = try await send(
            service, "PATCH", "WorkOrder(ID=6,IsActiveEntity=false)", #"{"title":"x"}"#,
            headers: ["Repeatability-Request-ID": "new-1"])
        #expect(misused.status == 400 && misused.text.contains("used by another request"), "\(misused.text)")
    }

    @Test func a_work_orders_answer_is_not_revalidated_by_its_version_alone() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let before = try await send(service, "GET", "WorkOrder(ID=2,IsActiveEntity=true)")
        let version = try #require(before.headers["etag"])
        #expect(before.text.contains(#""HasDraftEntity":false"#))
        _ = try await send(service, "POST", "WorkOrder(ID=2,IsActiveEntity=true)/\(Self.edit)", "{}")
        // A draft made leaves the version as it was, and the answer says it has one (not 304)
        let after = try await send(
            service, "GET", "WorkOrder(ID=2,IsActiveEntity=true)", headers: ["If-None-Match": version])
        #expect(after.status == 200 && after.text.contains(#""HasDraftEntity":true"#), "\(after.status)")
        #expect(after.headers["etag"] == version)
    }
}
