import ODataCore

/// A CAP-shaped service of one set edited through drafts (issue 36), `Orders`: its key holds `IsActiveEntity`, its
/// `Common.DraftRoot` names `S.draftEdit` and `S.draftActivate`, its `total` is the service's to set
/// (`Core.Computed`), and a changed `title` changes the total (`Common.SideEffects`).
public enum DraftOrders {
    public static let root = "http://cap.test/odata/v4/orders/"

    public static let document = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
          <edmx:Include Alias="Common" Namespace="com.sap.vocabularies.Common.v1"/>
        </edmx:Reference>
        <edmx:DataServices><Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Orders"><Key><PropertyRef Name="ID"/><PropertyRef Name="IsActiveEntity"/></Key>
            <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="title" Type="Edm.String"/>
            <Property Name="note" Type="Edm.String"/>
            <Property Name="total" Type="Edm.Int32"/>
            <Property Name="IsActiveEntity" Type="Edm.Boolean" Nullable="false" DefaultValue="true"/>
          </EntityType>
          <Action Name="draftEdit" IsBound="true" EntitySetPath="in">
            <Parameter Name="in" Type="S.Orders"/><Parameter Name="PreserveChanges" Type="Edm.Boolean"/>
            <ReturnType Type="S.Orders"/></Action>
          <Action Name="draftActivate" IsBound="true" EntitySetPath="in">
            <Parameter Name="in" Type="S.Orders"/><ReturnType Type="S.Orders"/></Action>
          <EntityContainer Name="EntityContainer"><EntitySet Name="Orders" EntityType="S.Orders"/></EntityContainer>
          <Annotations Target="S.EntityContainer/Orders">
            <Annotation Term="Common.DraftRoot"><Record Type="Common.DraftRootType">
              <PropertyValue Property="ActivationAction" String="S.draftActivate"/>
              <PropertyValue Property="EditAction" String="S.draftEdit"/>
            </Record></Annotation>
          </Annotations>
          <Annotations Target="S.Orders/total">
            <Annotation Term="Org.OData.Core.V1.Computed" Bool="true"/></Annotations>
          <Annotations Target="S.Orders">
            <Annotation Term="Common.SideEffects" Qualifier="Total"><Record>
              <PropertyValue Property="SourceProperties"><Collection><PropertyPath>title</PropertyPath>
              </Collection></PropertyValue>
              <PropertyValue Property="TargetProperties"><Collection><String>total</String></Collection>
              </PropertyValue></Record></Annotation>
          </Annotations>
        </Schema></edmx:DataServices></edmx:Edmx>
        """

    public static let model: ServiceModel = {
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    /// Order 1: the active one, or its draft.
    public static func key(active: Bool) -> EntityKey {
        EntityKey(
            entitySet: "Orders",
            values: [.init(name: "ID", value: .int(1)), .init(name: "IsActiveEntity", value: .bool(active))])
    }
}
