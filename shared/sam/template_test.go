package sam

import (
	"maps"
	"path/filepath"
	"reflect"
	"testing"
)

const sample = `
Parameters:
  Stage: {Type: String, Default: dev}
  Origins: {Type: CommaDelimitedList, Default: "https://a.example, chrome-extension://abc"}
  Key: {Type: String, Default: ""}
Conditions:
  HasKey: !Not [!Equals [!Ref Key, ""]]
  IsProd: {"Fn::Equals": [{"Ref": Stage}, prod]}
Globals:
  Function:
    Runtime: provided.al2023
    Handler: bootstrap
    Timeout: 29
    Environment:
      Variables:
        STAGE: !Ref Stage
        TABLE: !Ref Table
        SHARED: global
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      CorsConfiguration:
        AllowOrigins: !Ref Origins
        AllowMethods: [GET, POST]
        MaxAge: 600
  FnA:
    Type: AWS::Serverless::Function
    Metadata: {BuildMethod: go1.x}
    Properties:
      CodeUri: functions/a/
      Timeout: 5
      Environment:
        Variables:
          SHARED: own
          ARN: !GetAtt Table.Arn
          URL: !Sub "https://${Api}.execute-api.${AWS::Region}.amazonaws.com/${Stage}"
          KEYED: !If [HasKey, yes, no]
          PROD: !If [IsProd, "1", "0"]
          JOINED: !Join ["-", [!Ref Stage, x]]
          LITERAL: !Sub "${!NotAVar}"
      Events:
        Get:
          Type: HttpApi
          Properties: {ApiId: !Ref Api, Path: "/items/{id}", Method: get}
        Cron:
          Type: ScheduleV2
          Properties: {ScheduleExpression: "rate(1 hour)"}
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions:
        - {AttributeName: PK, AttributeType: S}
        - {AttributeName: G, AttributeType: N}
      KeySchema:
        - {AttributeName: PK, KeyType: HASH}
      GlobalSecondaryIndexes:
        - IndexName: ByG
          KeySchema: [{AttributeName: G, KeyType: HASH}]
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [a, b]}
      TimeToLiveSpecification: {AttributeName: expiresAt, Enabled: true}
`

func mustParse(t *testing.T) *Template {
	t.Helper()
	tmpl, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestFunctionsMergeGlobals(t *testing.T) {
	tmpl := mustParse(t)
	fns := tmpl.Functions()
	if len(fns) != 1 || fns[0].LogicalID != "FnA" {
		t.Fatalf("functions = %+v, want FnA only", fns)
	}
	f := fns[0]
	if f.CodeURI != "functions/a" || f.Runtime != "provided.al2023" || f.Handler != "bootstrap" || f.Timeout != 5 {
		t.Errorf("got %+v, want CodeURI functions/a, globals' runtime and handler, own timeout 5", f)
	}
	env, err := tmpl.ResolveEnvironment(f, Env{Parameters: map[string]string{"Stage": "local"}, Resources: map[string]string{"Table": "local-Table", "Api": "abc"}, Region: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"STAGE": "local", "TABLE": "local-Table", "SHARED": "own",
		"ARN":   "arn:aws:dynamodb:eu-west-1:000000000000:table/local-Table",
		"URL":   "https://abc.execute-api.eu-west-1.amazonaws.com/local",
		"KEYED": "no", "PROD": "0", "JOINED": "local-x", "LITERAL": "${NotAVar}",
	}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("environment = %v\nwant %v", env, want)
	}
	env, err = tmpl.ResolveEnvironment(f, Env{Parameters: map[string]string{"Key": "k", "Stage": "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if env["KEYED"] != "yes" || env["PROD"] != "1" || env["TABLE"] != "Table" {
		t.Errorf("KEYED=%s PROD=%s TABLE=%s, want yes 1 Table", env["KEYED"], env["PROD"], env["TABLE"])
	}
}

func TestRoutes(t *testing.T) {
	routes := mustParse(t).Routes()
	if len(routes) != 1 {
		t.Fatalf("got %d routes, want 1 (schedules are not routes)", len(routes))
	}
	r := routes[0]
	if r.Function != "FnA" || r.Method != "GET" || r.Path != "/items/{id}" {
		t.Errorf("route = %+v, want FnA GET /items/{id}", r)
	}
	if got, want := r.APIID, (Intrinsic{Name: "Ref", Arg: "Api"}); !reflect.DeepEqual(got, want) {
		t.Errorf("ApiId = %#v, want %#v", got, want)
	}
}

func TestCors(t *testing.T) {
	c, err := mustParse(t).HTTPAPICors(Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Cors{AllowOrigins: []string{"https://a.example", "chrome-extension://abc"}, AllowMethods: []string{"GET", "POST"}, MaxAge: 600}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("cors = %+v, want %+v", c, want)
	}
}

func TestTables(t *testing.T) {
	tables := mustParse(t).Tables()
	want := []Table{{
		LogicalID:            "Table",
		AttributeDefinitions: []Attribute{{"PK", "S"}, {"G", "N"}},
		KeySchema:            []Key{{"PK", "HASH"}},
		GlobalSecondaryIndexes: []Index{{Name: "ByG", KeySchema: []Key{{"G", "HASH"}},
			ProjectionType: "INCLUDE", NonKeyAttributes: []string{"a", "b"}}},
		TTLAttribute: "expiresAt",
	}}
	if !reflect.DeepEqual(tables, want) {
		t.Errorf("tables = %+v\nwant %+v", tables, want)
	}
}

func TestResolveErrors(t *testing.T) {
	tmpl := mustParse(t)
	cases := map[string]any{
		"unknown ref":         Intrinsic{Name: "Ref", Arg: "Nope"},
		"unsupported":         Intrinsic{Name: "Fn::ImportValue", Arg: "x"},
		"unknown condition":   Intrinsic{Name: "Fn::If", Arg: []any{"Nope", "a", "b"}},
		"bad getatt":          Intrinsic{Name: "Fn::GetAtt", Arg: []any{"Table"}},
		"select out of range": Intrinsic{Name: "Fn::Select", Arg: []any{"5", []any{"a"}}},
	}
	for name, v := range cases {
		if _, err := tmpl.Resolve(v, Env{}); err == nil {
			t.Errorf("%s: Resolve() error = nil, want an error", name)
		}
	}
}

// The project's own template must parse and resolve completely, as the emulator needs it to.
func TestProjectTemplateResolves(t *testing.T) {
	tmpl, err := Load(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpl.Functions()) == 0 || len(tmpl.Tables()) == 0 || len(tmpl.Routes()) == 0 {
		t.Fatalf("template has %d functions, %d tables, %d routes; want some of each", len(tmpl.Functions()), len(tmpl.Tables()), len(tmpl.Routes()))
	}
	for _, f := range tmpl.Functions() {
		if _, err := tmpl.ResolveEnvironment(f, Env{}); err != nil {
			t.Errorf("%s: %v", f.LogicalID, err)
		}
	}
	if _, err := tmpl.HTTPAPICors(Env{}); err != nil {
		t.Error(err)
	}
}

func TestWebSocketAPIsOfTheProjectTemplate(t *testing.T) {
	tmpl, err := Load("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	apis := tmpl.WebSocketAPIs()
	if len(apis) != 1 {
		t.Fatalf("got %d WebSocket APIs, want 1", len(apis))
	}
	got := map[string]string{}
	for _, r := range apis[0].Routes {
		got[r.Key] = r.Function
	}
	want := map[string]string{
		"$connect": "WsConnectFunction", "$disconnect": "WsDisconnectFunction", "$default": "WsDefaultFunction",
		"subscribe": "WsSubscribeFunction", "unsubscribe": "WsUnsubscribeFunction",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got routes %v, want %v", got, want)
	}
	if apis[0].RouteSelection != "$request.body.action" {
		t.Errorf("got route selection %q, want $request.body.action", apis[0].RouteSelection)
	}
}
