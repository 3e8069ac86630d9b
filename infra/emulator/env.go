package emulator

import (
	"cmp"
	"log/slog"
	"maps"
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/sam"
)

// callerPrefixes name the caller's variables that reach every function: keys and switches a
// developer keeps in their shell rather than in a file.
var callerPrefixes = []string{"OPENAI_", "TAVILY_", "DEMO_"}

// callerDefaults are the caller's variables a function starts with, as a Lambda function starts
// with its role's credentials; every layer of configuration may replace them.
var callerDefaults = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "PATH", "HOME"}

// envLayers are the sources of a function's environment besides the template.
type envLayers struct {
	file      envFile
	caller    map[string]string
	overrides map[string]string
	log       *slog.Logger
}

// environment composes a function's environment, later layers winning: Lambda's defaults, the
// template's variables, env.json, the caller's OPENAI_/TAVILY_/DEMO_ variables, the overrides,
// and last the variables Lambda reserves. Nothing else of the caller's environment gets in, so a
// function that works here does not secretly depend on the developer's shell.
func (l envLayers) environment(t *sam.Template, fn sam.Function, f *function, env sam.Env) (map[string]string, error) {
	declared, err := t.ResolveEnvironment(fn, env)
	if err != nil {
		return nil, err
	}
	logFormat, logLevel, err := loggingConfig(t, fn.LogicalID, env)
	if err != nil {
		return nil, err
	}

	out := map[string]string{
		"AWS_REGION":            env.Region,
		"AWS_DEFAULT_REGION":    env.Region,
		"TZ":                    ":UTC",
		"AWS_LAMBDA_LOG_FORMAT": logFormat,
	}
	if logLevel != "" {
		out["AWS_LAMBDA_LOG_LEVEL"] = logLevel
	}
	for _, k := range callerDefaults {
		if v, ok := l.caller[k]; ok {
			out[k] = v
		}
	}
	maps.Copy(out, declared)
	// Like sam local, env.json only replaces variables the template declares, so what works
	// here works there too.
	for _, scope := range []string{envFileGlobal, fn.LogicalID} {
		for k, v := range l.file[scope] {
			if _, ok := declared[k]; ok {
				out[k] = v
			} else if scope != envFileGlobal {
				l.log.Warn("env.json variable is not declared in the template; ignored, as sam local does",
					"function", fn.LogicalID, "variable", k)
			}
		}
	}
	for k, v := range l.caller {
		if hasAnyPrefix(k, callerPrefixes) {
			out[k] = v
		}
	}
	maps.Copy(out, l.overrides)

	out["AWS_LAMBDA_FUNCTION_NAME"] = f.name
	out["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = strconv.Itoa(f.memoryMB)
	out["AWS_LAMBDA_FUNCTION_VERSION"] = "$LATEST"
	out["_HANDLER"] = f.handler
	out["LAMBDA_TASK_ROOT"] = f.taskRoot
	return out, nil
}

// loggingConfig derives what Lambda derives from LoggingConfig (the function's keys over
// Globals'). The format defaults to JSON, the format every function of this project logs in.
func loggingConfig(t *sam.Template, id string, env sam.Env) (format, level string, err error) {
	lc := map[string]any{}
	if m, ok := t.GlobalFunction["LoggingConfig"].(map[string]any); ok {
		maps.Copy(lc, m)
	}
	if m, ok := t.Resources[id].Properties["LoggingConfig"].(map[string]any); ok {
		maps.Copy(lc, m)
	}
	if format, err = t.ResolveString(lc["LogFormat"], env); err != nil {
		return "", "", err
	}
	format = cmp.Or(format, "JSON")
	// Lambda passes the application log level only to functions that log JSON.
	if format == "JSON" {
		if level, err = t.ResolveString(lc["ApplicationLogLevel"], env); err != nil {
			return "", "", err
		}
	}
	return format, level, nil
}

// environList renders a function's environment for exec, with its process's Runtime API address.
func environList(env map[string]string, runtimeAPI string) []string {
	out := make([]string, 0, len(env)+1)
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return append(out, "AWS_LAMBDA_RUNTIME_API="+runtimeAPI)
}

func environMap(environ []string) map[string]string {
	out := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

func callerRegion(caller map[string]string) string {
	return cmp.Or(caller["AWS_REGION"], caller["AWS_DEFAULT_REGION"], "us-east-1")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
