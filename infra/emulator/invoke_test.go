package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/sam"
)

func TestEnvironment(t *testing.T) {
	t.Setenv("OPENAI_MODEL", "caller")
	t.Setenv("OPENAI_BASE_URL", "caller")
	t.Setenv("DEMO_FLAG", "on")
	t.Setenv("UNRELATED_SECRET", "leak")
	t.Setenv("AWS_REGION", "eu-west-3")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDLOCAL")
	e, _, logs := startEmulator(t, Config{
		Env: sam.Env{
			Parameters: map[string]string{"Stage": "local"},
			Resources:  map[string]string{"Table": "local-table"},
		},
		EnvFile:   "testdata/env.json",
		Overrides: map[string]string{"OPENAI_BASE_URL": "override"},
	})
	out, err := e.Invoke(context.Background(), "EnvFunction", []byte(`{}`))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	var got struct{ Env map[string]string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}

	tests := []struct{ name, want string }{
		{"FROM_TEMPLATE", "template"},
		{"STAGE", "local"},                            // parameter override
		{"TABLE_NAME", "local-table"},                 // !Ref to a resource
		{"FROM_ENV_FILE", "env.json for EnvFunction"}, // env.json: the function's beats Parameters
		{"OPENAI_MODEL", "caller"},                    // caller beats env.json
		{"OPENAI_BASE_URL", "override"},               // overrides beat the caller
		{"DEMO_FLAG", "on"},                           // caller's DEMO_ variables pass
		{"AWS_REGION", "eu-west-3"},                   // from the caller
		{"AWS_DEFAULT_REGION", "eu-west-3"},
		{"AWS_ACCESS_KEY_ID", "AKIDLOCAL"}, // caller's credentials pass
		{"AWS_LAMBDA_FUNCTION_NAME", "EnvFunction"},
		{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128"}, // the function's own over Globals' 256
		{"AWS_LAMBDA_FUNCTION_VERSION", "$LATEST"},
		{"AWS_LAMBDA_LOG_FORMAT", "JSON"},
		{"AWS_LAMBDA_LOG_LEVEL", "DEBUG"}, // LoggingConfig.ApplicationLogLevel
		{"_HANDLER", "bootstrap"},
		{"TZ", ":UTC"},
		{"LAMBDA_TASK_ROOT", filepath.Join(buildDir, "EnvFunction")},
	}
	for _, tt := range tests {
		if got.Env[tt.name] != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got.Env[tt.name], tt.want)
		}
	}
	for _, name := range []string{
		"UNRELATED_SECRET", // the rest of the caller's environment stays out
		"NOT_DECLARED",     // env.json can't add what the template doesn't declare
		"EXTRA",            // !If [..., !Ref AWS::NoValue] removes the variable
	} {
		if v, ok := got.Env[name]; ok {
			t.Errorf("%s: got %q, want it unset", name, v)
		}
	}
	if api := got.Env["AWS_LAMBDA_RUNTIME_API"]; !strings.HasPrefix(api, "127.0.0.1:") {
		t.Errorf("AWS_LAMBDA_RUNTIME_API: got %q, want 127.0.0.1:<port>", api)
	}
	if len(logs.find(t, "env.json variable is not declared in the template; ignored, as sam local does", "EnvFunction")) != 1 {
		t.Errorf("got no warning about NOT_DECLARED in env.json")
	}
}

func TestInvoke(t *testing.T) {
	e, _, _ := startEmulator(t, Config{})
	const event = `{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`
	tests := []struct {
		name     string
		function string
		event    string
		wantErr  error
	}{
		{"by logical ID", "EnvFunction", event, nil},
		{"by CodeUri folder", "env", event, nil},
		{"unknown", "Nope", event, ErrUnknownFunction},
		{"folder of two functions", "initfail", event, ErrUnknownFunction},
		{"function error", "FailFunction", event, &FunctionError{Type: "errorString", Message: "fail: error on purpose"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.Invoke(context.Background(), tt.function, []byte(tt.event))
			var fe *FunctionError
			switch want, isFunctionError := tt.wantErr.(*FunctionError); {
			case isFunctionError:
				if !errors.As(err, &fe) || *fe != *want {
					t.Fatalf("got error %v, want %v", err, want)
				}
			case !errors.Is(err, tt.wantErr):
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			var got struct{ Event json.RawMessage }
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("decode %s: %v", out, err)
			}
			if string(got.Event) != tt.event {
				t.Errorf("got event %s, want %s", got.Event, tt.event)
			}
		})
	}
	if _, err := e.Invoke(context.Background(), "EnvFunction", []byte("not json")); err == nil {
		t.Error("invalid JSON event: got no error, want one")
	}
}
