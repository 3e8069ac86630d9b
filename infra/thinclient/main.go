// Command thinclient runs one task against a Screen Agent API in a headless Chromium, the way
// the extension would, and prints each step:
//
//	go run ./infra/thinclient -url https://example.com -task "Find the contact email"
//
// It talks to the stack `make run` runs in this checkout (found through .local/stack.json) unless
// -base names an API. The agent's questions are asked on the terminal. -api run uses the run API
// (-mode careful asks before risky steps); -out keeps a screenshot per step. Answers of 429 and 503
// with Retry-After are waited out (bounded, each wait printed), as an extension must. -watch prints
// the task's real-time events (step_progress, variable_extracted, task_status, run_step) from the
// WebSocket API as they arrive.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/localstack"
	"github.com/screenagent/backend/infra/thinclient/browser"
	"github.com/screenagent/backend/infra/thinclient/drive"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "thinclient:", err)
		os.Exit(1)
	}
}

func run() error {
	base := flag.String("base", "", "API base URL (default: the API of the make run stack of this checkout)")
	email := flag.String("email", envOr("DEMO_EMAIL", "demo@example.com"), "login email")
	password := flag.String("password", envOr("DEMO_PASSWORD", "demo-password-123"), "login password")
	api := flag.String("api", "interact", "interact or run")
	mode := flag.String("mode", "careful", "careful or autonomous (both APIs; careful asks before an action the payment gate holds)")
	startURL := flag.String("url", "", "page to start on")
	task := flag.String("task", "", "the task")
	out := flag.String("out", "", "folder for a screenshot per step")
	rules := flag.String("host-resolver-rules", "", `Chromium host resolver rules, e.g. "MAP *.test 127.0.0.1"`)
	maxSteps := flag.Int("max-steps", 25, "steps before the client gives up")
	watch := flag.Bool("watch", false, "subscribe to the task's real-time events and print them as they arrive")
	secrets := drive.Vault{}
	flag.Func("secret", "a secret the client keeps and fills itself, name=value or name@origin=value (repeatable); the server sees only the name", secrets.Add)
	batch := flag.Bool("batch", true, "declare actionBatch: run several actions per answer (-batch=false: one per step)")
	flag.Parse()
	if *startURL == "" || *task == "" {
		flag.Usage()
		return fmt.Errorf("-url and -task are required")
	}
	if *api != "interact" && *api != "run" {
		return fmt.Errorf("-api must be interact or run, got %q", *api)
	}
	if *base == "" {
		root, err := ddblocal.RepoRoot()
		if err != nil {
			return err
		}
		st, err := localstack.Find(root, "-base URL")
		if err != nil {
			return err
		}
		*base = st.API
		fmt.Fprintf(os.Stderr, "thinclient: talking to %s\n", st.Describe())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	client, err := drive.Login(ctx, *base, *email, *password)
	if err != nil {
		return err
	}
	b, err := browser.Launch(ctx, browser.Options{HostResolverRules: *rules})
	if err != nil {
		return err
	}
	defer b.Close()
	tab, err := b.NewTab(ctx)
	if err != nil {
		return err
	}
	defer tab.Close()

	in := bufio.NewScanner(os.Stdin)
	t := drive.Task{Text: *task, StartURL: *startURL, Mode: *mode, MaxSteps: *maxSteps, Secrets: secrets, Batch: *batch, User: func(q string) (string, bool) {
		fmt.Printf("\nThe agent asks: %s\nYour answer (empty declines): ", q)
		if !in.Scan() {
			return "", false
		}
		reply := strings.TrimSpace(in.Text())
		return reply, reply != "" && !strings.EqualFold(reply, "no")
	}}
	if *watch {
		w, err := client.Watch(ctx, os.Stdout)
		if err != nil {
			return err
		}
		defer w.Close()
		t.Started = func(field, id string) {
			if err := w.Subscribe(ctx, field, id); err != nil {
				fmt.Fprintln(os.Stderr, "thinclient: watch:", err)
			}
		}
	}
	start := time.Now()
	var tr drive.Transcript
	if *api == "run" {
		tr = drive.Run(ctx, client, tab, t)
	} else {
		tr = drive.Interact(ctx, client, tab, t)
	}
	for _, s := range tr.Steps {
		status := "ok"
		if !s.OK {
			status = "FAILED"
		}
		fmt.Printf("%2d. %s\n    %s → %s: %s\n", s.N, s.URL, s.Action, status, s.Result)
		if s.Thought != "" {
			fmt.Printf("    thought: %s\n", s.Thought)
		}
		if *out != "" && s.Screenshot != nil {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("step-%02d.png", s.N)), s.Screenshot, 0o644); err != nil {
				return err
			}
		}
	}
	fmt.Printf("\n%s after %d steps in %s", tr.End, len(tr.Steps), time.Since(start).Round(time.Millisecond))
	if tr.Answer != "" {
		fmt.Printf(": %s", tr.Answer)
	}
	if tr.Reason != "" {
		fmt.Printf(": %s", tr.Reason)
	}
	fmt.Println()
	if tr.End != drive.Finished {
		os.Exit(2)
	}
	return nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
