// Package metrics writes CloudWatch Embedded Metric Format lines: one JSON log line carries both
// the values and the instructions CloudWatch needs to turn them into metrics, with no API call
// and no extra latency on the request path.
package metrics

import (
	"encoding/json"
	"io"
	"sort"
	"sync"
	"time"
)

// Units of CloudWatch.
const (
	Count        = "Count"
	Milliseconds = "Milliseconds"
)

// Value is one metric value.
type Value struct {
	Name  string
	Unit  string
	Value float64
}

// Recorder writes EMF lines under one namespace.
type Recorder struct {
	mu        sync.Mutex
	w         io.Writer
	namespace string
	now       func() time.Time
}

// New returns a recorder writing to w (the function's stdout in Lambda).
func New(w io.Writer, namespace string) *Recorder {
	return &Recorder{w: w, namespace: namespace, now: time.Now}
}

type metricDef struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

type directive struct {
	Namespace  string      `json:"Namespace"`
	Dimensions [][]string  `json:"Dimensions"`
	Metrics    []metricDef `json:"Metrics"`
}

// Emit writes one line with the values under the dimensions. Dimensions must have low
// cardinality (route, model): every distinct combination is a separate, billed metric.
func (r *Recorder) Emit(dimensions map[string]string, values ...Value) error {
	line := map[string]any{}
	dimNames := make([]string, 0, len(dimensions))
	for k, v := range dimensions {
		dimNames = append(dimNames, k)
		line[k] = v
	}
	sort.Strings(dimNames)
	defs := make([]metricDef, 0, len(values))
	for _, v := range values {
		defs = append(defs, metricDef{Name: v.Name, Unit: v.Unit})
		line[v.Name] = v.Value
	}
	line["_aws"] = map[string]any{
		"Timestamp":         r.now().UnixMilli(),
		"CloudWatchMetrics": []directive{{Namespace: r.namespace, Dimensions: [][]string{dimNames}, Metrics: defs}},
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.w.Write(append(b, '\n'))
	return err
}
