package dynamo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Key is the primary key of an item of a table keyed by PK and SK, as every table here is.
func Key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": Str(pk), "SK": Str(sk)}
}

// Str and Num are attribute values of expressions and keys.
func Str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func Num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// Sortable formats t for a sort key, where string order must be time order: RFC 3339 in UTC with
// all nine fractional digits, because RFC3339Nano drops trailing zeros and "…:05Z" sorts after
// "…:05.1Z".
func Sortable(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// ParseTime reads a stored time. An absent one is the zero time; a corrupt one is an error, not
// a zero time that would pass for a real one.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t, nil
}

// Kinds names a store's items by sort key, as the retention cleanup counts what it deletes: a key
// ending in "#" names every sort key it begins, any other key only itself.
type Kinds map[string]string

// Of names the item with sort key sk (the longest prefix wins); ok is false for a key the store
// does not write.
func (k Kinds) Of(sk string) (name string, ok bool) {
	if name, ok := k[sk]; ok && !strings.HasSuffix(sk, "#") {
		return name, true
	}
	best := ""
	for prefix, n := range k {
		if strings.HasSuffix(prefix, "#") && strings.HasPrefix(sk, prefix) && len(prefix) > len(best) {
			best, name, ok = prefix, n, true
		}
	}
	return name, ok
}

// Int64Of and StringOf read one attribute of an item that is read for a few attributes only,
// without a record type: 0 or "" when it is absent or of another type.
func Int64Of(item map[string]types.AttributeValue, name string) int64 {
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

func StringOf(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// Convert converts each element of a record's or domain value's list with f, keeping nil apart
// from empty: a store's records read back as the domain values they were made from.
func Convert[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// Optional converts what p points to with f; nil stays nil.
func Optional[T, U any](p *T, f func(T) U) *U {
	if p == nil {
		return nil
	}
	u := f(*p)
	return &u
}
