package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// envFile is an env.json in `sam local --env-vars` format: "Parameters" holds variables for
// every function, any other key is a function's logical ID and holds variables for it alone.
type envFile map[string]map[string]string

const envFileGlobal = "Parameters"

func loadEnvFile(name string) (envFile, error) {
	if name == "" {
		return envFile{}, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("env file: %w", err)
	}
	var raw map[string]map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("env file %s: %w", name, err)
	}
	out := make(envFile, len(raw))
	for scope, vars := range raw {
		out[scope] = make(map[string]string, len(vars))
		for k, v := range vars {
			// sam local accepts numbers and booleans and passes them on as text.
			switch x := v.(type) {
			case string:
				out[scope][k] = x
			case json.Number:
				out[scope][k] = x.String()
			case bool:
				out[scope][k] = fmt.Sprint(x)
			default:
				return nil, fmt.Errorf("env file %s: %s.%s is not a string, number or boolean", name, scope, k)
			}
		}
	}
	return out, nil
}
