package retrieval

import (
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/config"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     config.Config
		wantErr string // "" for success
	}{
		{"built-in store", config.Config{AccountsTable: "A", KnowledgeTable: "K"}, ""},
		{"external service", config.Config{AccountsTable: "A", KnowledgeServiceURL: "https://kb.example.com/base"}, ""},
		{"no knowledge table", config.Config{AccountsTable: "A"}, "KNOWLEDGE_TABLE is required"},
		{"no accounts table", config.Config{KnowledgeTable: "K"}, "ACCOUNTS_TABLE is required"},
		{"bad service URL", config.Config{AccountsTable: "A", KnowledgeServiceURL: "https://kb.example.com/?x=1"}, "KNOWLEDGE_SERVICE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
