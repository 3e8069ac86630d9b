package retrieval

import (
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/config"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     config.Config
		cache   string
		wantErr string // "" for success
	}{
		{"built-in store", config.Config{AccountsTable: "A", KnowledgeTable: "K"}, "", ""},
		{"external service", config.Config{AccountsTable: "A", KnowledgeServiceURL: "https://kb.example.com/base"}, "0", ""},
		{"no knowledge table", config.Config{AccountsTable: "A"}, "", "KNOWLEDGE_TABLE is required"},
		{"no accounts table", config.Config{KnowledgeTable: "K"}, "", "ACCOUNTS_TABLE is required"},
		{"bad service URL", config.Config{AccountsTable: "A", KnowledgeServiceURL: "https://kb.example.com/?x=1"}, "", "KNOWLEDGE_SERVICE_URL"},
		{"bad cache seconds", config.Config{AccountsTable: "A", KnowledgeTable: "K"}, "soon", "KNOWLEDGE_CACHE_SECONDS must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvCacheSeconds, tt.cache)
			svc, err := New(tt.cfg, nil)
			switch {
			case tt.wantErr == "" && (err != nil || svc == nil):
				t.Errorf("New = %v, %v; want a service", svc, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("New error = %v, want one saying %q", err, tt.wantErr)
			}
		})
	}
}

func TestCacheTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{"": DefaultCacheTTL, "0": 0, "45": 45 * time.Second} {
		if got, err := cacheTTL(in); err != nil || got != want {
			t.Errorf("cacheTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "1.5", "x"} {
		if _, err := cacheTTL(in); err == nil {
			t.Errorf("cacheTTL(%q) accepted it", in)
		}
	}
}
