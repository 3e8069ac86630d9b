package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestItemSize(t *testing.T) {
	cases := []struct {
		name string
		item map[string]types.AttributeValue
		want int
	}{
		{"string", map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "TENANT#a"}}, 2 + 8},
		{"number", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "12345"}}, 1 + 4},
		{"binary and bool", map[string]types.AttributeValue{"b": &types.AttributeValueMemberB{Value: make([]byte, 100)}, "ok": &types.AttributeValueMemberBOOL{Value: true}}, 1 + 100 + 2 + 1},
		{"map and list", map[string]types.AttributeValue{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"k": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "ab"}}},
		}}}, 1 + 3 + 1 + 1 + (3 + 1 + 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ItemSize(tc.item); got != tc.want {
				t.Errorf("ItemSize() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestWriteUnits(t *testing.T) {
	cases := []struct {
		size          int
		transactional bool
		want          float64
	}{
		{0, false, 1}, {1024, false, 1}, {1025, false, 2}, {1025, true, 4}, {300, true, 2},
	}
	for _, tc := range cases {
		if got := WriteUnits(tc.size, tc.transactional); got != tc.want {
			t.Errorf("WriteUnits(%d, %v) = %v, want %v", tc.size, tc.transactional, got, tc.want)
		}
	}
}

func TestUnitsByOperation(t *testing.T) {
	total := types.ConsumedCapacity{CapacityUnits: aws.Float64(3)}
	split := types.ConsumedCapacity{CapacityUnits: aws.Float64(5), ReadCapacityUnits: aws.Float64(1), WriteCapacityUnits: aws.Float64(4)}
	cases := []struct {
		op          string
		cc          types.ConsumedCapacity
		read, write float64
	}{
		{"GetItem", total, 3, 0}, {"Query", total, 3, 0}, {"TransactWriteItems", total, 0, 3}, {"UpdateItem", total, 0, 3}, {"TransactWriteItems", split, 1, 4},
	}
	for _, tc := range cases {
		if r, w := units(tc.op, tc.cc); r != tc.read || w != tc.write {
			t.Errorf("units(%s) = %v/%v, want %v/%v", tc.op, r, w, tc.read, tc.write)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond} {
		if got := Percentile(ds, q); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", q, got, want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
}

func TestWorkAtScalesWithCPUShare(t *testing.T) {
	cases := []struct {
		memory int
		want   time.Duration
	}{
		{FullVCPUMemoryMB, 40 * time.Millisecond}, {3008, 40 * time.Millisecond}, {884, 40 * time.Millisecond * FullVCPUMemoryMB / 884},
	}
	for _, tc := range cases {
		got := WorkAt(40*time.Millisecond, tc.memory)
		if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("WorkAt(40ms, %d MB) = %v, want %v", tc.memory, got, tc.want)
		}
	}
}

func TestPer1000Steps(t *testing.T) {
	s := StepProfile{Work: 0, LLMWait: time.Second, RequestBytes: 600 << 10, ReadUnits: 4, WriteUnits: 20, StoredBytes: 1 << 20, RetainedMonth: 3}
	c := USEast1.Per1000Steps(s, 1024)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"lambda: 1 GB × 1 s × 1,000 + requests", c.Lambda, 1000*0.0000133334 + 0.0002},
		{"api gateway: a 600 KB request meters as 2", c.APIGW, 0.002},
		{"dynamodb", c.Dynamo, 1000 * (4*0.125 + 20*0.625) / 1e6},
		{"storage: 1,000 MB for 3 months", c.Storage, 1000.0 / 1024 * 0.25 * 3},
	}
	for _, ch := range checks {
		if math.Abs(ch.got-ch.want) > 1e-9 {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestCheapestKeepsTheWorkLimit(t *testing.T) {
	// 60 ms at one vCPU: 128 MB would take 830 ms, so the cheapest size is the smallest under 100 ms.
	s := StepProfile{Work: 60 * time.Millisecond, LLMWait: 2 * time.Second, RequestBytes: 1000}
	best, all, ok := USEast1.Cheapest(s, 100*time.Millisecond)
	if !ok || best.MemoryMB != 1536 || len(all) != len(MemorySizes) {
		t.Errorf("Cheapest() = %d MB (ok %v, %d sizes), want 1536 MB, the smallest with work under 100 ms", best.MemoryMB, ok, len(all))
	}
	if _, _, ok := USEast1.Cheapest(StepProfile{Work: time.Second}, 100*time.Millisecond); ok {
		t.Error("Cheapest() found a size for 1 s of work, want none under 100 ms")
	}
}

// TestMarkdownTellsBoundedUnits: units that stop growing after the first steps are explained as
// the task item's bounded memory, not as growth.
func TestMarkdownTellsBoundedUnits(t *testing.T) {
	r := &Report{Units: []StepUnits{{Step: 1, Read: 3.5, Write: 89}, {Step: 10, Read: 6.5, Write: 147}, {Step: 40, Read: 6.5, Write: 147}}}
	var out bytes.Buffer
	r.Markdown(&out)
	if got := out.String(); !strings.Contains(got, "nothing grows with the task: step 40 costs what step 10 costs") || strings.Contains(got, "something the step reads") {
		t.Errorf("report does not explain bounded units:\n%s", got)
	}
}

func TestMarkdownSaysWhatIsMissed(t *testing.T) {
	r := &Report{
		Sizes:        []Size{{Function: "auth-login", Bytes: 16 << 20, Limit: LimitPlain}},
		Inits:        []Init{{Function: "auth-login", Median: 30 * time.Millisecond, Samples: 5}},
		MinimalInit:  10 * time.Millisecond,
		InitPackages: []PackageInit{{"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas", 4 * time.Millisecond}, {"net", 500 * time.Microsecond}},
		Pages:        []Page{{Chars: 500_000, Timing: Timing{P50: 80 * time.Millisecond, P99: 90 * time.Millisecond, Samples: 3}, PromptExact: 100, PromptEst: 95}},
		Units:        []StepUnits{{Step: 1, Read: 2, Write: 10}, {Step: 40, Read: 30, Write: 10}},
		LLMLatency:   2 * time.Second,
	}
	var out bytes.Buffer
	r.Markdown(&out)
	for _, want := range []string{"**over by 1.0 MB**", "**missed by 1.70×**", "**missed by 30.0 ms**", "reads 2.0 → 30.0",
		"grows with the task", "n/a — run `make eval`", "-5.0%",
		"auth-login spends 4.5 ms initializing packages (the costliest: github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas 4.0 ms, net 0.5 ms)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
