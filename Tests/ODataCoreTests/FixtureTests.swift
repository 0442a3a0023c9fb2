import Foundation
import Testing

@Test func the_seed_fixture_is_bundled() throws {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/seed-person-1-expand-personcar-car", withExtension: "json"))
    #expect(try Data(contentsOf: url).count > 1000)
}
