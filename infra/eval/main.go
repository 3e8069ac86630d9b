// Command eval is the proving ground (`make eval`): it starts the backend, the scenario sites,
// the model (the oracle by default; a real one when OPENAI_API_KEY is set) and Chromium, runs
// every scenario through the reference thin client on the interact and run APIs, prints a
// table, and writes .local/eval/report.md (steps, thoughts, screenshots) and results.json. It
// exits non-zero when a scenario expected to pass fails.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/eval/scenario"
	"github.com/screenagent/backend/infra/eval/suite"
)

// Default prices: gpt-4o-mini, USD per million tokens.
const (
	defaultPriceIn  = 0.15
	defaultPriceOut = 0.60
)

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
	}
	os.Exit(code)
}

func run() (int, error) {
	filter := flag.String("scenario", "", "run only scenarios whose name contains this")
	apiFlag := flag.String("api", "both", "interact, run or both")
	reportDir := flag.String("report", "", "report folder (default <repo>/.local/eval)")
	priceIn := flag.Float64("price-in", envFloat("EVAL_PRICE_IN", defaultPriceIn), "USD per million prompt tokens (EVAL_PRICE_IN)")
	priceOut := flag.Float64("price-out", envFloat("EVAL_PRICE_OUT", defaultPriceOut), "USD per million completion tokens (EVAL_PRICE_OUT)")
	verbose := flag.Bool("v", false, "print the stack's logs here too (VERBOSE=1 with make eval)")
	slow := flag.Bool("slow", os.Getenv("EVAL_SLOW") == "1", "raise the functions', LLM, step and case time limits for a slow model (EVAL_SLOW=1)")
	batch := flag.Bool("batch", true, "the thin client declares actionBatch and runs several actions per answer (-batch=false: one action per step)")
	repeat := flag.Bool("repeat", true, "run every case a second time after the first pass (the action cache's repeat pass)")
	flag.Parse()

	apis, err := parseAPIs(*apiFlag)
	if err != nil {
		return 2, err
	}
	root, err := ddblocal.RepoRoot()
	if err != nil {
		return 1, err
	}
	dir := cmp.Or(*reportDir, filepath.Join(root, ".local", "eval"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	model := suite.Model{Name: "oracle", PriceIn: *priceIn, PriceOut: *priceOut}
	if key := os.Getenv("OPENAI_API_KEY"); key != "" {
		model.Key = key
		model.BaseURL = cmp.Or(os.Getenv("OPENAI_BASE_URL"), "https://api.openai.com/v1")
		model.Name = cmp.Or(os.Getenv("OPENAI_MODEL"), "gpt-4o-mini")
	}
	// The stack's request, function and metric lines (hundreds) go to a file, so the terminal
	// shows one line per case and the table.
	logPath := filepath.Join(root, ".local", "logs", "eval.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return 1, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return 1, err
	}
	defer logFile.Close()
	var log io.Writer = logFile
	if *verbose {
		log = io.MultiWriter(logFile, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "The stack's logs (JSON) go to %s; -v (VERBOSE=1 make eval) shows them here too.\n", relPath(root, logPath))
	rep, err := suite.Run(ctx, suite.Config{
		Cases: scenario.Cases(*filter, apis), Model: model, DynamoDBEndpoint: os.Getenv("DYNAMODB_TEST_ENDPOINT"),
		Progress: os.Stderr, Log: log, Slow: *slow, Batch: *batch, Repeat: *repeat,
	})
	if err != nil {
		return 1, err
	}
	fmt.Println()
	rep.WriteTable(os.Stdout)
	if err := rep.Write(dir); err != nil {
		return 1, fmt.Errorf("write the report: %w", err)
	}
	fmt.Printf("report: %s\n", relPath(root, filepath.Join(dir, "report.md")))
	if f := rep.Failures(); len(f) > 0 {
		return 1, fmt.Errorf("%d scenario(s) expected to pass failed", len(f))
	}
	return 0, nil
}

func parseAPIs(s string) ([]scenario.API, error) {
	switch s {
	case "both":
		return []scenario.API{scenario.Interact, scenario.Run}, nil
	case "interact":
		return []scenario.API{scenario.Interact}, nil
	case "run":
		return []scenario.API{scenario.Run}, nil
	}
	return nil, fmt.Errorf("-api must be interact, run or both, got %q", s)
}

func envFloat(name string, fallback float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return fallback
}

// relPath is path relative to root when inside it: shorter to read, and it works from the root.
func relPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
