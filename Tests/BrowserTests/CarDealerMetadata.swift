/// The CarDealer `$metadata` (a copy of what the demo server generates) for screen tests.
let carDealerEDMX = """
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"><edmx:DataServices>
    <Schema Namespace="edmexampleModel">
    <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key>
      <Property Name="personID" Type="Edm.Int32" Nullable="false"/><Property Name="firstName" Type="Edm.String"/>
      <Property Name="lastName" Type="Edm.String"/><Property Name="ssn" Type="Edm.String"/>
      <Property Name="createDate" Type="Edm.DateTime"/>
      <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.FK_PersonCar_Person" FromRole="Person" ToRole="PersonCar"/></EntityType>
    <EntityType Name="Car"><Key><PropertyRef Name="carID"/></Key>
      <Property Name="carID" Type="Edm.Int32" Nullable="false"/><Property Name="make" Type="Edm.String"/>
      <Property Name="model" Type="Edm.String"/><Property Name="manufactureDate" Type="Edm.DateTime"/>
      <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.FK_PersonCar_Car" FromRole="Car" ToRole="PersonCar"/></EntityType>
    <EntityType Name="PersonCar"><Key><PropertyRef Name="personCarID"/></Key>
      <Property Name="personCarID" Type="Edm.Int32" Nullable="false"/>
      <NavigationProperty Name="Person" Relationship="edmexampleModel.FK_PersonCar_Person" FromRole="PersonCar" ToRole="Person"/>
      <NavigationProperty Name="Car" Relationship="edmexampleModel.FK_PersonCar_Car" FromRole="PersonCar" ToRole="Car"/>
      <NavigationProperty Name="PersonCarMaintenance" Relationship="edmexampleModel.FK_PCM_PersonCar" FromRole="PersonCar" ToRole="PersonCarMaintenance"/></EntityType>
    <EntityType Name="Maintenance"><Key><PropertyRef Name="maintenanceID"/></Key>
      <Property Name="maintenanceID" Type="Edm.Int32" Nullable="false"/><Property Name="description" Type="Edm.String"/>
      <Property Name="serviceDate" Type="Edm.DateTime"/><Property Name="mileage" Type="Edm.Int32"/>
      <Property Name="cost" Type="Edm.Decimal"/>
      <NavigationProperty Name="PersonCarMaintenance" Relationship="edmexampleModel.FK_PCM_Maintenance" FromRole="Maintenance" ToRole="PersonCarMaintenance"/></EntityType>
    <EntityType Name="PersonCarMaintenance"><Key><PropertyRef Name="personCarMaintenanceID"/></Key>
      <Property Name="personCarMaintenanceID" Type="Edm.Int32" Nullable="false"/>
      <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.FK_PCM_PersonCar" FromRole="PersonCarMaintenance" ToRole="PersonCar"/>
      <NavigationProperty Name="Maintenance" Relationship="edmexampleModel.FK_PCM_Maintenance" FromRole="PersonCarMaintenance" ToRole="Maintenance"/></EntityType>
    <Association Name="FK_PersonCar_Person"><End Role="Person" Type="edmexampleModel.Person" Multiplicity="1"/><End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
    <Association Name="FK_PersonCar_Car"><End Role="Car" Type="edmexampleModel.Car" Multiplicity="1"/><End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
    <Association Name="FK_PCM_PersonCar"><End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="1"/><End Role="PersonCarMaintenance" Type="edmexampleModel.PersonCarMaintenance" Multiplicity="*"/></Association>
    <Association Name="FK_PCM_Maintenance"><End Role="Maintenance" Type="edmexampleModel.Maintenance" Multiplicity="1"/><End Role="PersonCarMaintenance" Type="edmexampleModel.PersonCarMaintenance" Multiplicity="*"/></Association>
    <EntityContainer Name="CarDealerEntities" m:IsDefaultEntityContainer="true" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
      <EntitySet Name="Person" EntityType="edmexampleModel.Person"/><EntitySet Name="Car" EntityType="edmexampleModel.Car"/>
      <EntitySet Name="PersonCar" EntityType="edmexampleModel.PersonCar"/><EntitySet Name="Maintenance" EntityType="edmexampleModel.Maintenance"/>
      <EntitySet Name="PersonCarMaintenance" EntityType="edmexampleModel.PersonCarMaintenance"/>
      <AssociationSet Name="FK_PersonCar_Person" Association="edmexampleModel.FK_PersonCar_Person"><End Role="Person" EntitySet="Person"/><End Role="PersonCar" EntitySet="PersonCar"/></AssociationSet>
      <AssociationSet Name="FK_PersonCar_Car" Association="edmexampleModel.FK_PersonCar_Car"><End Role="Car" EntitySet="Car"/><End Role="PersonCar" EntitySet="PersonCar"/></AssociationSet>
      <AssociationSet Name="FK_PCM_PersonCar" Association="edmexampleModel.FK_PCM_PersonCar"><End Role="PersonCar" EntitySet="PersonCar"/><End Role="PersonCarMaintenance" EntitySet="PersonCarMaintenance"/></AssociationSet>
      <AssociationSet Name="FK_PCM_Maintenance" Association="edmexampleModel.FK_PCM_Maintenance"><End Role="Maintenance" EntitySet="Maintenance"/><End Role="PersonCarMaintenance" EntitySet="PersonCarMaintenance"/></AssociationSet>
    </EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
    """
