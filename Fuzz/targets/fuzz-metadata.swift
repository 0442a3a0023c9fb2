// The $metadata the JSON decoder target types its values with.
let fuzzMetadata = #"""
<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
    xmlns:sap="http://www.sap.com/Protocols/SAPData">
  <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
    <Schema Namespace="edmexampleModel" Alias="Self" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <!-- vendor annotations and unknown elements must be ignored -->
      <Annotations Target="Self.Person"><ValueAnnotation Term="x.y"/></Annotations>
      <EntityType Name="Person" sap:label="A person">
        <Key><PropertyRef Name="personID"/></Key>
        <Property Name="personID" Type="Edm.Int32" Nullable="false" sap:label="ID"/>
        <Property Name="firstName" Type="Edm.String" MaxLength="50"/>
        <Property Name="lastName" Type="Edm.String" MaxLength="Max"/>
        <Property Name="ssn" Type="Edm.String"/>
        <Property Name="createDate" Type="Edm.DateTime" ConcurrencyMode="Fixed"/>
        <Property Name="balance" Type="Edm.Decimal" Precision="19" Scale="4"/>
        <Property Name="serial" Type="Edm.Int64"/>
        <Property Name="address" Type="Self.Address"/>
        <NavigationProperty Name="PersonCar" Relationship="Self.FK_PersonCar_Person" FromRole="Person" ToRole="PersonCar"/>
      </EntityType>
      <ComplexType Name="Address">
        <Property Name="city" Type="Edm.String"/>
        <Property Name="since" Type="Edm.DateTimeOffset"/>
      </ComplexType>
      <EntityType Name="PersonCar">
        <Key><PropertyRef Name="personCarID"/></Key>
        <Property Name="personCarID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="createStamp" Type="Edm.DateTime"/>
        <NavigationProperty Name="Person" Relationship="Self.FK_PersonCar_Person" FromRole="PersonCar" ToRole="Person"/>
        <NavigationProperty Name="Car" Relationship="edmexampleModel.FK_PersonCar_Car" FromRole="PersonCar" ToRole="Car"/>
      </EntityType>
      <EntityType Name="Car">
        <Key><PropertyRef Name="carID"/></Key>
        <Property Name="carID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="make" Type="Edm.String"/>
        <Property Name="model" Type="Edm.String"/>
        <Property Name="manufactureDate" Type="Edm.DateTime"/>
        <Property Name="createStamp" Type="Edm.DateTime"/>
        <Property Name="serviceTime" Type="Edm.Time"/>
        <NavigationProperty Name="PersonCar" Relationship="Self.FK_PersonCar_Car" FromRole="Car" ToRole="PersonCar"/>
      </EntityType>
      <Association Name="FK_PersonCar_Person">
        <End Role="Person" Type="Self.Person" Multiplicity="1"/>
        <End Role="PersonCar" Type="Self.PersonCar" Multiplicity="*"/>
        <ReferentialConstraint>
          <Principal Role="Person"><PropertyRef Name="personID"/></Principal>
          <Dependent Role="PersonCar"><PropertyRef Name="personID"/></Dependent>
        </ReferentialConstraint>
      </Association>
      <Association Name="FK_PersonCar_Car">
        <End Role="Car" Type="Self.Car" Multiplicity="0..1"/>
        <End Role="PersonCar" Type="Self.PersonCar" Multiplicity="*"/>
      </Association>
    </Schema>
    <Schema Namespace="CarDealerContainer" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityContainer Name="CarDealerEntities" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Person" EntityType="edmexampleModel.Person" sap:creatable="false"/>
        <EntitySet Name="PersonCar" EntityType="edmexampleModel.PersonCar"/>
        <EntitySet Name="Car" EntityType="edmexampleModel.Car"/>
        <AssociationSet Name="FK_PersonCar_Person" Association="edmexampleModel.FK_PersonCar_Person">
          <End Role="Person" EntitySet="Person"/>
          <End Role="PersonCar" EntitySet="PersonCar"/>
        </AssociationSet>
        <AssociationSet Name="FK_PersonCar_Car" Association="edmexampleModel.FK_PersonCar_Car">
          <End Role="Car" EntitySet="Car"/>
          <End Role="PersonCar" EntitySet="PersonCar"/>
        </AssociationSet>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""#
