package bench

import (
	"math"
	"slices"
	"time"
)

// Prices are AWS's published on-demand prices in us-east-1 (Lambda arm64 first tier, API Gateway
// HTTP API first 300 million requests, DynamoDB on-demand since the November 2024 reduction).
type Prices struct {
	LambdaGBSecond  float64 // per GB-second, arm64
	LambdaRequest   float64 // per invocation
	HTTPAPIRequest  float64 // per request, metered in 512 KB increments
	ReadUnit        float64 // per read request unit
	WriteUnit       float64 // per write request unit
	StorageGBMonth  float64 // per GB-month
	HTTPAPIMeterKiB int     // the metering increment of HTTP API requests
}

// USEast1 are the prices the report uses.
var USEast1 = Prices{
	LambdaGBSecond:  0.0000133334,
	LambdaRequest:   0.20 / 1e6,
	HTTPAPIRequest:  1.00 / 1e6,
	ReadUnit:        0.125 / 1e6,
	WriteUnit:       0.625 / 1e6,
	StorageGBMonth:  0.25,
	HTTPAPIMeterKiB: 512,
}

// FullVCPUMemoryMB is the memory at which Lambda gives a function one full vCPU; below it the
// CPU share is proportional to memory.
const FullVCPUMemoryMB = 1769

// StepProfile is what one step costs in measured figures.
type StepProfile struct {
	// Work is the server work at one full vCPU (this machine's core stands in for it).
	Work time.Duration
	// LLMWait is the time spent waiting for the LLM in one step (calls × assumed latency).
	LLMWait       time.Duration
	RequestBytes  int
	ReadUnits     float64
	WriteUnits    float64
	StoredBytes   int     // bytes a step adds to the tables
	RetainedMonth float64 // how long they are kept, in months
}

// WorkAt scales CPU-bound work to a memory size: below FullVCPUMemoryMB the function gets that
// share of a vCPU; above it a single-threaded step gains nothing.
func WorkAt(work time.Duration, memoryMB int) time.Duration {
	share := math.Min(1, float64(memoryMB)/FullVCPUMemoryMB)
	return time.Duration(float64(work) / share)
}

// CostBreakdown is the cost of 1,000 steps, in dollars.
type CostBreakdown struct {
	MemoryMB int
	Work     time.Duration // server work at this memory
	Lambda   float64
	APIGW    float64
	Dynamo   float64
	Storage  float64
}

// Total is the sum of the parts.
func (c CostBreakdown) Total() float64 { return c.Lambda + c.APIGW + c.Dynamo + c.Storage }

// Per1000Steps is the infra cost of 1,000 steps at a memory size: Lambda bills the whole
// invocation (server work and the LLM wait) at the configured memory.
func (p Prices) Per1000Steps(s StepProfile, memoryMB int) CostBreakdown {
	const steps = 1000
	work := WorkAt(s.Work, memoryMB)
	seconds := (work + s.LLMWait).Seconds()
	meters := math.Ceil(float64(max(s.RequestBytes, 1)) / float64(p.HTTPAPIMeterKiB*1024))
	return CostBreakdown{
		MemoryMB: memoryMB,
		Work:     work,
		Lambda:   steps * (float64(memoryMB)/1024*seconds*p.LambdaGBSecond + p.LambdaRequest),
		APIGW:    steps * meters * p.HTTPAPIRequest,
		Dynamo:   steps * (s.ReadUnits*p.ReadUnit + s.WriteUnits*p.WriteUnit),
		Storage:  steps * float64(s.StoredBytes) / (1 << 30) * p.StorageGBMonth * s.RetainedMonth,
	}
}

// MemorySizes are the sizes the report compares.
var MemorySizes = []int{128, 256, 512, 768, 1024, 1536, 1769, 2048, 3008}

// Cheapest is the memory size with the lowest cost whose server work stays under limit, with
// every size's breakdown; ok is false when no size meets the limit.
func (p Prices) Cheapest(s StepProfile, limit time.Duration) (best CostBreakdown, all []CostBreakdown, ok bool) {
	for _, m := range MemorySizes {
		c := p.Per1000Steps(s, m)
		all = append(all, c)
		if c.Work < limit && (!ok || c.Total() < best.Total()) {
			best, ok = c, true
		}
	}
	return best, all, ok
}

// Percentile is the nearest-rank percentile (0 < q ≤ 100) of ds.
func Percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}
