package history

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/httpapi"
)

func query(raw string) Query {
	return NewQuery(httptest.NewRequest("GET", "/x?"+raw, nil))
}

// field is the field a 400 names, or "" for no error.
func field(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e := httpapi.AsError(err)
	if e.Code != httpapi.CodeValidation {
		t.Fatalf("error %v answers %s, want VALIDATION_ERROR", err, e.Code)
	}
	return e.Details["field"].(string)
}

func TestQueryReads(t *testing.T) {
	const id = "0F8FAD5B-D9CB-469F-A165-70867728950E"
	cases := []struct {
		name, raw string
		read      func(Query) (any, error)
		want      any
		field     string
	}{
		{"int default", "", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, 7, ""},
		{"int", "n=9", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, 9, ""},
		{"int leading zeros", "n=009", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, 9, ""},
		{"int over", "n=10", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, nil, "n"},
		{"int sign", "n=%2B1", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, nil, "n"},
		{"int space", "n=+1", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, nil, "n"},
		{"int twice", "n=1&n=1", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, nil, "n"},
		{"bad encoding", "m=%zz&n=1", func(q Query) (any, error) { return q.Int("n", 7, 1, 9) }, nil, "query"},
		{"bool", "b=true", func(q Query) (any, error) { return q.Bool("b", false) }, true, ""},
		{"bool upper", "b=TRUE", func(q Query) (any, error) { return q.Bool("b", false) }, nil, "b"},
		{"id lower-cased", "id=" + id, func(q Query) (any, error) { return q.ID("id") }, strings.ToLower(id), ""},
		{"id absent", "", func(q Query) (any, error) { return q.ID("id") }, "", ""},
		{"id urn", "id=urn:uuid:" + id, func(q Query) (any, error) { return q.ID("id") }, nil, "id"},
		{"id braces", "id={" + id + "}", func(q Query) (any, error) { return q.ID("id") }, nil, "id"},
		{"time", "t=2026-01-27T01:00:00.5%2B01:00", func(q Query) (any, error) { return q.Time("t") }, time.Date(2026, 1, 27, 0, 0, 0, 5e8, time.UTC), ""},
		{"time unencoded plus", "t=2026-01-27T01:00:00+01:00", func(q Query) (any, error) { return q.Time("t") }, time.Date(2026, 1, 27, 0, 0, 0, 0, time.UTC), ""},
		{"time without zone", "t=2026-01-27T01:00:00", func(q Query) (any, error) { return q.Time("t") }, nil, "t"},
		{"enum", "s=b", func(q Query) (any, error) { return q.Enum("s", "a", "b") }, "b", ""},
		{"enum other", "s=c", func(q Query) (any, error) { return q.Enum("s", "a", "b") }, nil, "s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.read(query(tc.raw))
			if f := field(t, err); f != tc.field {
				t.Fatalf("error on %q, want on %q (%v)", f, tc.field, err)
			}
			if tc.field != "" {
				return
			}
			if tt, ok := got.(time.Time); ok {
				if !tt.Equal(tc.want.(time.Time)) {
					t.Errorf("got %v, want %v", tt, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// Whatever a client sends, the readers either fail with a 400 or return a value within their rules.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"n=5", "n=-1&n=2", "t=2026-01-27T00:00:00Z", "id=0f8fad5b-d9cb-469f-a165-70867728950e", "%", "t=2026-01-27T00:00:00 01:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/x", nil)
		r.URL.RawQuery = raw
		q := NewQuery(r)
		if n, err := q.Int("n", 5, 1, 200); err == nil && (n < 1 || n > 200) {
			t.Errorf("Int = %d, outside 1..200", n)
		} else if err != nil {
			field(t, err)
		}
		if id, err := q.ID("id"); err == nil && id != "" {
			if u, perr := uuid.Parse(id); perr != nil || u.String() != id {
				t.Errorf("ID = %q, not a canonical lower-case UUID", id)
			}
		} else if err != nil {
			field(t, err)
		}
		if tt, err := q.Time("t"); err == nil && tt.Location() != time.UTC {
			t.Errorf("Time = %v, not in UTC", tt)
		} else if err != nil {
			field(t, err)
		}
	})
}
