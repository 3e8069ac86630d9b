package searchdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/search/searchtest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type fixture struct {
	db    *dynamotest.DB
	store *Store
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	db := dynamotest.New(t)
	// Real time: DynamoDB Local runs TTL, so items must not look expired to it.
	f := &fixture{db: db, now: time.Now().UTC().Truncate(time.Second)}
	f.store = New(db.Client, db.Tables["TasksTable"])
	f.store.Now = func() time.Time { return f.now }
	return f
}

var sample = search.Results{Query: "return policy", Scope: search.ScopeWeb, Domain: "shop.example", Items: []search.Item{
	{Title: "Returns", URL: "https://shop.example/returns", Content: "30 days.", Score: 0.9},
	{Title: "Other", URL: "https://other.example/r", Content: "Ünïcode ✓", Score: 0.25},
}}

func TestStoreRoundTrip(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.store.Put(ctx, "ten-a", "k1", sample, f.now.Add(15*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := f.store.Get(ctx, "ten-a", "k1")
	if err != nil || !ok {
		t.Fatalf("Get() = ok %v, %v; want the results", ok, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(sample) {
		t.Errorf("Get() = %+v, want %+v", got, sample)
	}
	empty := search.Results{Query: "nothing", Scope: search.ScopeWeb, Items: []search.Item{}}
	if err := f.store.Put(ctx, "ten-a", "k2", empty, f.now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := f.store.Get(ctx, "ten-a", "k2"); err != nil || !ok || len(got.Items) != 0 || got.Items == nil {
		t.Errorf("Get() of empty results = %+v, %v, %v; want found with an empty list", got, ok, err)
	}
}

func TestStoreAbsent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.store.Put(ctx, "ten-a", "k1", sample, f.now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, tenant, key string
		later             time.Duration
	}{
		{"another tenant", "ten-b", "k1", 0},
		{"another key", "ten-a", "k2", 0},
		{"expired, not yet removed by TTL", "ten-a", "k1", time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f.store.Now = func() time.Time { return f.now.Add(tc.later) }
			if got, ok, err := f.store.Get(ctx, tc.tenant, tc.key); err != nil || ok {
				t.Errorf("Get() = %+v, ok %v, %v; want absent", got, ok, err)
			}
		})
	}
	if _, _, err := f.store.Get(ctx, "", "k1"); err == nil {
		t.Error("Get() without tenant: error = nil, want one")
	}
}

func TestStoreItemLayout(t *testing.T) {
	f := newFixture(t)
	exp := f.now.Add(15 * time.Minute)
	if err := f.store.Put(context.Background(), "ten-a", "abc", sample, exp); err != nil {
		t.Fatal(err)
	}
	pk := "TENANT#ten-a#SEARCH#abc"
	out, err := f.db.Client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "SEARCH"}},
	})
	if err != nil || out.Item == nil {
		t.Fatalf("item %s / SEARCH: %v (found %v)", pk, err, out != nil && out.Item != nil)
	}
	// What is stored: items already in the table must still read, so the attribute names change
	// only with a migration.
	want := strings.Fields("PK RetentionPK RetentionSK SK createdAt domain expiresAt query results results[] results[].content results[].score results[].title results[].url scope tenantId")
	if got := dynamotest.AttributeNames(out.Item); !slices.Equal(got, want) {
		t.Errorf("the item is stored as %v, want %v", got, want)
	}
	wantPK, wantSK := expiry.Keys(pk, exp)
	str := func(name string) string {
		switch v := out.Item[name].(type) {
		case *types.AttributeValueMemberS:
			return v.Value
		case *types.AttributeValueMemberN:
			return v.Value
		}
		return ""
	}
	if str("expiresAt") != fmt.Sprint(exp.Unix()) || str("RetentionPK") != wantPK || str("RetentionSK") != wantSK || str("tenantId") != "ten-a" {
		t.Errorf("item expiresAt %s RetentionPK %s RetentionSK %s tenantId %s, want %d %s %s ten-a",
			str("expiresAt"), str("RetentionPK"), str("RetentionSK"), str("tenantId"), exp.Unix(), wantPK, wantSK)
	}
}

// TestSearcherCaches runs the Searcher against the fake Tavily server and this store.
func TestSearcherCaches(t *testing.T) {
	f := newFixture(t)
	srv := searchtest.New(t)
	srv.Add("return policy", searchtest.Result{Title: "Returns", URL: "https://shop.example/returns", Content: "30 days.", Score: 0.9})
	client, err := search.NewClient(search.Options{BaseURL: srv.URL(), APIKey: searchtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(client, f.store, nil)
	s.Now = f.store.Now
	ctx := context.Background()
	req := search.Request{TenantID: "ten-a", TaskID: "t1", Query: "return policy", PageURL: "https://www.shop.example/cart"}

	first, err := s.Search(ctx, req)
	if err != nil || first.Cached || srv.Calls() != 2 {
		t.Fatalf("first search: cached %v, %v, %d calls; want a fresh search of the domain, then the web", first.Cached, err, srv.Calls())
	}

	steps := []struct {
		name      string
		req       search.Request
		later     time.Duration
		wantCalls int
		wantCache bool
	}{
		{"same task, same query: the cache", req, time.Minute, 2, true},
		{"another task of the tenant, spelled differently: the cache", search.Request{TenantID: "ten-a", TaskID: "t2", Query: "  Return POLICY", PageURL: "https://shop.example/"}, 2 * time.Minute, 2, true},
		{"another tenant: a search of its own", search.Request{TenantID: "ten-b", TaskID: "t3", Query: "return policy", PageURL: "https://shop.example/"}, 2 * time.Minute, 4, false},
		{"another site: a search of its own", search.Request{TenantID: "ten-a", TaskID: "t1", Query: "return policy", PageURL: "https://other.example/"}, 2 * time.Minute, 6, false},
		{"after the TTL: searched again", req, 16 * time.Minute, 8, false},
		{"then cached again", req, 17 * time.Minute, 8, true},
	}
	for _, st := range steps {
		f.store.Now = func() time.Time { return f.now.Add(st.later) }
		s.Now = f.store.Now
		got, err := s.Search(ctx, st.req)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.Cached != st.wantCache || srv.Calls() != st.wantCalls {
			t.Errorf("%s: cached %v after %d server calls, want %v after %d", st.name, got.Cached, srv.Calls(), st.wantCache, st.wantCalls)
		}
		if got.Query == "" || len(got.Items) != 1 {
			t.Errorf("%s: got %+v, want the one result", st.name, got)
		}
	}
}

func TestSearcherDoesNotCacheFailures(t *testing.T) {
	f := newFixture(t)
	srv := searchtest.New(t)
	srv.Add("q", searchtest.Result{Title: "only", URL: "https://shop.example/1", Content: "c"})
	client, err := search.NewClient(search.Options{BaseURL: srv.URL(), APIKey: searchtest.Key, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(client, f.store, nil)
	ctx := context.Background()
	req := search.Request{TenantID: "ten-a", Query: "q", PageURL: "https://shop.example/"}

	srv.Fail(400)
	if _, err := s.Search(ctx, req); err == nil {
		t.Fatal("Search() with the service refusing: error = nil, want one")
	}
	// One domain result, then a failed widening: the partial results are answered, not kept.
	srv.Pass()
	srv.Fail(401)
	if got, err := s.Search(ctx, req); err != nil || got.Scope != search.ScopeDomain || len(got.Items) != 1 {
		t.Fatalf("Search() = %+v, %v; want the domain's one result", got, err)
	}
	calls := srv.Calls()
	if got, err := s.Search(ctx, req); err != nil || got.Cached || srv.Calls() != calls+2 {
		t.Errorf("next Search(): cached %v, %v, %d new calls; want a fresh search (domain and web)", got.Cached, err, srv.Calls()-calls)
	}
}
