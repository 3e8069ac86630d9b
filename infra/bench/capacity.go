// Package bench measures what decides the cost and latency of a step: binary sizes, cold starts,
// server work per step, DynamoDB request units, prompt tokens, LLM calls, and the infra cost they
// add up to. `make bench` runs BenchmarkReport, which prints one table and writes it to
// RESULTS.md beside this file; this package holds the pieces that need no server.
package bench

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Call is one DynamoDB call with the request units it consumed.
type Call struct {
	Operation   string
	Read, Write float64
	// Items are the keys a TransactWriteItems wrote, in order, for the item-by-item account.
	Items []TransactItem
}

// TransactItem is one item of a TransactWriteItems.
type TransactItem struct {
	Kind  string // Put, Update, Delete, ConditionCheck
	Table string
	Key   map[string]types.AttributeValue
	// Size is the item's size in bytes for a Put (what it charges); 0 otherwise.
	Size int
}

// Capacity records the request units of every call made through a client it instruments. Calls
// are appended in order; Take returns and clears them, so a caller brackets one step with it.
type Capacity struct {
	mu    sync.Mutex
	calls []Call
}

// Instrument makes every call of clients built with o ask for ReturnConsumedCapacity TOTAL and
// records what they consumed. Only the bench installs it: the functions never ask for it.
func (c *Capacity) Instrument(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("BenchConsumedCapacity", c.handle), middleware.After)
	})
}

func (c *Capacity) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	setField(in.Parameters, "ReturnConsumedCapacity", reflect.ValueOf(types.ReturnConsumedCapacityTotal))
	out, md, err := next.HandleInitialize(ctx, in)
	op := awsmiddleware.GetOperationName(ctx)
	call := Call{Operation: op}
	for _, cc := range consumed(out.Result) {
		r, w := units(op, cc)
		call.Read += r
		call.Write += w
	}
	if tw, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
		call.Items = transactItems(tw)
	}
	c.mu.Lock()
	c.calls = append(c.calls, call)
	c.mu.Unlock()
	return out, md, err
}

// Take returns the calls recorded since the last Take.
func (c *Capacity) Take() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	c.calls = nil
	return calls
}

// setField sets a struct pointer's field when it has one of v's type.
func setField(ptr any, name string, v reflect.Value) {
	rv := reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return
	}
	f := rv.Elem().FieldByName(name)
	if f.IsValid() && f.CanSet() && f.Type() == v.Type() {
		f.Set(v)
	}
}

// consumed reads an output's ConsumedCapacity, single (GetItem, Query, ...) or per table
// (BatchGetItem, TransactWriteItems, ...).
func consumed(result any) []types.ConsumedCapacity {
	rv := reflect.ValueOf(result)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	switch v := rv.Elem().FieldByName("ConsumedCapacity"); {
	case !v.IsValid():
		return nil
	case v.Type() == reflect.TypeFor[*types.ConsumedCapacity]():
		if v.IsNil() {
			return nil
		}
		return []types.ConsumedCapacity{*v.Interface().(*types.ConsumedCapacity)}
	case v.Type() == reflect.TypeFor[[]types.ConsumedCapacity]():
		return v.Interface().([]types.ConsumedCapacity)
	}
	return nil
}

var readOperations = []string{"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"}

// units splits a ConsumedCapacity into read and write units. With TOTAL, DynamoDB may give only
// CapacityUnits; the operation says which kind they are.
func units(op string, cc types.ConsumedCapacity) (read, write float64) {
	if cc.ReadCapacityUnits != nil || cc.WriteCapacityUnits != nil {
		return deref(cc.ReadCapacityUnits), deref(cc.WriteCapacityUnits)
	}
	if slices.Contains(readOperations, op) {
		return deref(cc.CapacityUnits), 0
	}
	return 0, deref(cc.CapacityUnits)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func transactItems(in *dynamodb.TransactWriteItemsInput) []TransactItem {
	items := make([]TransactItem, 0, len(in.TransactItems))
	for _, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			items = append(items, TransactItem{Kind: "Put", Table: deref(ti.Put.TableName), Key: ti.Put.Item, Size: ItemSize(ti.Put.Item)})
		case ti.Update != nil:
			items = append(items, TransactItem{Kind: "Update", Table: deref(ti.Update.TableName), Key: ti.Update.Key})
		case ti.Delete != nil:
			items = append(items, TransactItem{Kind: "Delete", Table: deref(ti.Delete.TableName), Key: ti.Delete.Key})
		case ti.ConditionCheck != nil:
			items = append(items, TransactItem{Kind: "ConditionCheck", Table: deref(ti.ConditionCheck.TableName), Key: ti.ConditionCheck.Key})
		}
	}
	return items
}

// ItemSize is an item's size as DynamoDB bills it: attribute names plus values, numbers at about
// one byte per two digits, maps and lists with their 3-byte overhead and 1 byte per element.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

func numberSize(s string) int {
	digits := len(strings.TrimLeft(strings.NewReplacer("-", "", ".", "", "+", "").Replace(s), "0"))
	return int(math.Ceil(float64(digits)/2)) + 1
}

// WriteUnits is what a transactional write of size bytes costs: 2 units per started KB.
func WriteUnits(size int, transactional bool) float64 {
	u := math.Ceil(float64(max(size, 1)) / 1024)
	if transactional {
		u *= 2
	}
	return u
}
