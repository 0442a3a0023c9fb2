import ODataCore
import Testing

/// Whether a set answers a free-text search (issues 33 and 37): v4 `Capabilities.SearchRestrictions` inline or in
/// `<Annotations>`, v2 `sap:searchable`; and how the search is written (`$search` in v4, SAP's `search` in v2).
@Suite struct SearchRestrictionTests {
    @Test func a_v4_set_says_it_searches_inline_or_from_an_annotations_block_and_silence_is_not_a_yes() throws {
        let model = try EDMXParser.parse(
            """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:Reference Uri="https://example.invalid/Capabilities.xml">
                <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/>
              </edmx:Reference>
              <edmx:DataServices>
                <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                  <EntityType Name="Car">
                    <Key><PropertyRef Name="id"/></Key>
                    <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                  </EntityType>
                  <EntityContainer Name="C">
                    <EntitySet Name="Cars" EntityType="S.Car">
                      <Annotation Term="Capabilities.SearchRestrictions">
                        <Record><PropertyValue Property="Searchable" Bool="true"/></Record>
                      </Annotation>
                    </EntitySet>
                    <EntitySet Name="Logs" EntityType="S.Car"/>
                    <EntitySet Name="Parts" EntityType="S.Car"/>
                    <EntitySet Name="Quiet" EntityType="S.Car"/>
                  </EntityContainer>
                  <Annotations Target="S.C/Logs">
                    <Annotation Term="Capabilities.SearchRestrictions">
                      <Record><PropertyValue Property="Searchable" Bool="false"/></Record>
                    </Annotation>
                  </Annotations>
                  <Annotations Target="S.C/Parts">
                    <Annotation Term="Capabilities.SearchRestrictions"><Record/></Annotation>
                  </Annotations>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """)
        #expect(model.searches("Cars"))
        #expect(!model.searches("Logs"))
        // A record that leaves Searchable out takes the vocabulary's default (true)
        #expect(model.searches("Parts"))
        // A set the service says nothing about is not searched: most such services refuse $search
        #expect(!model.searches("Quiet") && model.entitySet(named: "Quiet")?.isSearchable == nil)
        #expect(!model.searches("Nowhere"))
    }

    @Test func a_v2_set_is_searchable_only_where_sap_searchable_says_true() throws {
        let model = try EDMXParser.parse(
            """
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
             xmlns:sap="http://www.sap.com/Protocols/SAPData">
            <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
             m:DataServiceVersion="2.0">
            <Schema Namespace="T" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
            <EntityType Name="Note"><Key><PropertyRef Name="id"/></Key>
            <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Notes" EntityType="T.Note" sap:searchable="true"/>
            <EntitySet Name="Drafts" EntityType="T.Note" sap:searchable="false"/>
            <EntitySet Name="Others" EntityType="T.Note"/>
            </EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
            """)
        #expect(model.searches("Notes"))
        #expect(!model.searches("Drafts") && model.entitySet(named: "Drafts")?.isSearchable == false)
        #expect(!model.searches("Others") && model.entitySet(named: "Others")?.isSearchable == nil)
    }

    @Test func a_search_is_written_as_each_dialect_spells_it_and_names_the_list() {
        var options = QueryOptions(top: 50)
        options.search = "smith"
        #expect(options.queryText(for: .v4) == "$search=smith&$top=50")
        #expect(options.queryText(for: .v2) == "search=smith&$top=50")
        // Another search is another list; paging is not
        var other = options
        other.search = "jones"
        other.top = 10
        #expect(options.listIdentity == "$search=smith")
        #expect(
            ListKey(path: ResourcePath(entitySet: "People"), options: options)
                != ListKey(path: ResourcePath(entitySet: "People"), options: other))
    }

    @Test func text_that_is_not_one_plain_word_is_searched_for_as_one_phrase() {
        #expect(QueryOptions.searchExpression("Müller") == "Müller")
        #expect(QueryOptions.searchExpression("van der Berg") == "\"van der Berg\"")
        // The grammar's operators, quotes, backslashes and parentheses are the user's text, not the service's syntax
        #expect(QueryOptions.searchExpression("OR") == "\"OR\"")
        #expect(QueryOptions.searchExpression("say \"hi\"") == "\"say \\\"hi\\\"\"")
        #expect(QueryOptions.searchExpression("a\\b") == "\"a\\\\b\"")
        #expect(QueryOptions.searchExpression("(x)") == "\"(x)\"")
        #expect(QueryOptions.searchExpression("O'Brien") == "\"O'Brien\"")
    }
}
