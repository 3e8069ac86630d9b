package dynamotest

import (
	"slices"

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
