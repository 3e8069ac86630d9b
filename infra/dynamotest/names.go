package dynamotest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// AttributeNames lists every attribute path of an item, nested maps joined with "." and list
// members as "[]" (`memory.recent[].thought`), sorted. A store's test compares it with a
// literal list, so that renaming a field of a record cannot silently change what is stored
// and leave the items already stored unread.
func AttributeNames(item map[string]types.AttributeValue) []string {
	seen := map[string]bool{}
	var walk func(prefix string, v types.AttributeValue)
	walk = func(prefix string, v types.AttributeValue) {
		seen[prefix] = true
		switch v := v.(type) {
		case *types.AttributeValueMemberM:
			for k, e := range v.Value {
				walk(prefix+"."+k, e)
			}
		case *types.AttributeValueMemberL:
			for _, e := range v.Value {
				walk(prefix+"[]", e)
			}
		}
	}
	for k, v := range item {
		walk(k, v)
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Unset lists the exported fields v leaves at their zero value, followed into structs, pointers
// to structs and the first element of slices (`Task.Memory.Recent[0].Result`); a struct type is
// checked where it first occurs, so recursive and repeated types are checked once. A store's
// round-trip test builds a value with every field set and checks this is empty: a field added to
// a domain type then fails the test until the store's record carries it too.
func Unset(v any) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch {
		case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct:
			walk(path, v.Elem())
			return
		case v.Kind() == reflect.Slice && v.Len() > 0:
			walk(path+"[0]", v.Index(0))
			return
		case v.Kind() == reflect.Struct && v.Type() != reflect.TypeFor[time.Time]():
			t := v.Type()
			if seen[t] {
				return
			}
			seen[t] = true
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() {
					walk(path+"."+f.Name, v.Field(i))
				}
			}
			return
		}
		if v.IsZero() {
			out = append(out, path)
		}
	}
	val := reflect.ValueOf(v)
	walk(val.Type().Name(), val)
	return out
}

// RoundTrip stores a record as an attribute and reads it back, as a store's round-trip test does
// between its conversions.
func RoundTrip[R any](t testing.TB, r R) R {
	t.Helper()
	av, err := attributevalue.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back R
	if err := attributevalue.Unmarshal(av, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
