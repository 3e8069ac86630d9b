package metrics

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestEmitWritesEMF(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, "ScreenAgent")
	r.now = func() time.Time { return time.UnixMilli(1700000000123) }
	if err := r.Emit(map[string]string{"Route": "interact"}, Value{"PromptTokens", Count, 120}, Value{"LLMLatency", Milliseconds, 850}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Route        string
		PromptTokens float64
		LLMLatency   float64
		AWS          struct {
			Timestamp         int64
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("line %q is not JSON: %v", buf.String(), err)
	}
	if got.Route != "interact" || got.PromptTokens != 120 || got.LLMLatency != 850 || got.AWS.Timestamp != 1700000000123 {
		t.Errorf("values = %+v, want route, both values and the timestamp", got)
	}
	d := got.AWS.CloudWatchMetrics
	if len(d) != 1 || d[0].Namespace != "ScreenAgent" || len(d[0].Dimensions) != 1 || d[0].Dimensions[0][0] != "Route" ||
		len(d[0].Metrics) != 2 || d[0].Metrics[1].Unit != Milliseconds {
		t.Errorf("directive = %+v, want one with the namespace, the Route dimension and two metrics", d)
	}
	if bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
		t.Errorf("wrote %q, want exactly one line", buf.String())
	}
}
