package realtime

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const id = "5e0b7c1e-7d3a-4c59-9a55-0c1f3f2d1a01"
	cases := []struct {
		name, body string
		want       Topic
		code       string
	}{
		{"session", `{"action":"subscribe","sessionId":"` + id + `"}`, Session(id), ""},
		{"run in upper case", `{"action":"unsubscribe","runId":"` + strings.ToUpper(id) + `"}`, Run(id), ""},
		{"since", `{"action":"subscribe","runId":"` + id + `","since":3}`, Run(id), ""},
		{"unknown action", `{"action":"publish","sessionId":"` + id + `"}`, Topic{}, CodeUnknownAction},
		{"no action", `{"sessionId":"` + id + `"}`, Topic{}, CodeUnknownAction},
		{"not json", `subscribe`, Topic{}, CodeBadRequest},
		{"an array", `[1]`, Topic{}, CodeBadRequest},
		{"no id", `{"action":"subscribe"}`, Topic{}, CodeBadRequest},
		{"both ids", `{"action":"subscribe","sessionId":"` + id + `","runId":"` + id + `"}`, Topic{}, CodeBadRequest},
		{"braced uuid", `{"action":"subscribe","sessionId":"{` + id + `}"}`, Topic{}, CodeBadRequest},
		{"negative since", `{"action":"subscribe","sessionId":"` + id + `","since":-1}`, Topic{}, CodeBadRequest},
		{"fractional since", `{"action":"subscribe","sessionId":"` + id + `","since":1.5}`, Topic{}, CodeBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, got, refusal := parse([]byte(tc.body))
			code := ""
			if refusal != nil {
				code = refusal.Code
			}
			if got != tc.want || code != tc.code {
				t.Errorf("got %+v refused %q, want %+v refused %q", got, code, tc.want, tc.code)
			}
		})
	}
}

// A client's message is untrusted text: parsing never panics, and what it accepts names one
// topic of a known kind by a lower-case canonical UUID.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"action":"subscribe","sessionId":"5e0b7c1e-7d3a-4c59-9a55-0c1f3f2d1a01"}`,
		`{"action":"unsubscribe","runId":"5E0B7C1E-7D3A-4C59-9A55-0C1F3F2D1A01","since":0}`, `{}`, `null`, `{"action":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, topic, refusal := parse(body)
		if refusal != nil {
			if refusal.Type != "error" || refusal.Code == "" || refusal.Message == "" {
				t.Errorf("refusal %+v lacks a type, code or message", refusal)
			}
			return
		}
		if topic.Kind != KindSession && topic.Kind != KindRun {
			t.Errorf("accepted kind %q", topic.Kind)
		}
		if id, ok := canonical(topic.ID); !ok || id != topic.ID {
			t.Errorf("accepted id %q, not a lower-case canonical UUID", topic.ID)
		}
		if req.Since != nil && *req.Since < 0 {
			t.Errorf("accepted since %d", *req.Since)
		}
	})
}
