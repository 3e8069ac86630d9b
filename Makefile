# The README's two commands are `make run` and `make test`; the rest serve them or deployment.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GO        ?= go
# The local emulator builds functions with cgo off (as Lambda does); tests and vet use the same
# setting so the Go build cache serves both instead of compiling everything twice.
export CGO_ENABLED := 0
FUNCTIONS := $(patsubst functions/%/,%,$(sort $(dir $(wildcard functions/*/main.go))))
LOCAL_BIN := .local/bin/local
ENV       ?= default

# Lambda binaries: static, no RPC shim (provided.al2023 speaks the Runtime API), arm64.
LAMBDA_FLAGS := -tags lambda.norpc -trimpath -ldflags "-s -w"

.PHONY: all build run test lint fmt-check vet cfn-lint unit bench invoke deploy sam-check clean local-bin chromium eval

all: build

## build: a plain arm64 build of every function to build/<name>/bootstrap, then `sam build` when SAM CLI is installed.
build:
	@for fn in $(FUNCTIONS); do \
		echo "build $$fn"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(LAMBDA_FLAGS) -o build/$$fn/bootstrap ./functions/$$fn; \
	done
	@if command -v sam >/dev/null 2>&1; then sam build --parallel; else echo "sam not installed: skipped sam build"; fi

# The launcher is compiled before anything listens: on an empty Go cache that takes a minute, so say so.
local-bin:
	@mkdir -p $(dir $(LOCAL_BIN))
	@test -x $(LOCAL_BIN) || echo "compiling the launcher (infra/local; about a minute on an empty Go build cache)"
	@$(GO) build -o $(LOCAL_BIN) ./infra/local

## run: DynamoDB Local + tables + demo account + the API on http://127.0.0.1:3000 and its WebSocket API on ws://127.0.0.1:3001,
## in the foreground. Ctrl-C stops all of it. ADDR=127.0.0.1:3100, WS_ADDR=127.0.0.1:3101 and DYNAMODB_PORT=8100 choose other ports; VERBOSE=1 shows the JSON logs (else in .local/logs/).
## Data is kept in .local/dynamodb; FRESH=1 deletes it first, IN_MEMORY=1 keeps none.
## FAKE_SEARCH=1 answers web searches from a local fake Tavily API; FAKE_SEARCH_SCRIPT=<file> gives it scripted results.
run: local-bin
	@exec $(LOCAL_BIN) run $(if $(ADDR),--addr $(ADDR)) $(if $(WS_ADDR),--ws-addr $(WS_ADDR)) $(if $(DYNAMODB_PORT),--dynamodb-port $(DYNAMODB_PORT)) $(if $(VERBOSE),-v) \
		$(if $(FRESH),--fresh) $(if $(IN_MEMORY),--in-memory) $(if $(FAKE_SEARCH),--fake-search) $(if $(FAKE_SEARCH_SCRIPT),--fake-search-script $(FAKE_SEARCH_SCRIPT))

## test: everything CI checks.
test: lint unit

lint: fmt-check vet cfn-lint

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

cfn-lint:
	@command -v cfn-lint >/dev/null 2>&1 || { echo "cfn-lint is missing: install it with 'pip install cfn-lint' (it ships the SAM translator)"; exit 1; }
	cfn-lint template.yaml

## chromium: Debian's chromium for the proving ground (installed with apt-get when missing and running as root).
chromium:
	@bash infra/eval/install-chromium.sh

## unit: every Go test, unit and integration, against one DynamoDB Local started for the run.
## The functions package runs ~20 stacks: on a busy 2-core machine it outlasts go test's 10-minute default.
unit: local-bin chromium
	$(LOCAL_BIN) with-dynamodb -- $(GO) test -count=1 -p 2 -timeout 30m ./...

## eval: the proving ground — every scenario in Chromium against both APIs (the oracle model, or a real one with
## OPENAI_API_KEY); a table, then .local/eval/report.md and results.json. EVAL_FLAGS passes -scenario, -api, -report, -batch=false;
## EVAL_SLOW=1 raises every time limit for a slow model (docs/proving-ground.md).
eval: chromium
	@$(GO) run ./infra/eval $(if $(VERBOSE),-v) $(EVAL_FLAGS)

## bench: the report of infra/bench (binary sizes, cold starts, server work, request units, tokens, cost per 1,000
## steps), printed and written to infra/bench/RESULTS.md, then the packages' micro-benchmarks. Figures are never asserted.
MICRO_BENCH := $(sort $(dir $(shell grep -rl --include='*_test.go' '^func Benchmark' shared)))
bench: local-bin
	$(LOCAL_BIN) with-dynamodb -- bash -c "$(GO) test -run='^$$' -bench=Report -benchtime=1x -timeout=20m ./infra/bench && \
		$(GO) test -run='^$$' -bench=. -benchmem $(addprefix ./,$(MICRO_BENCH))"

## invoke FN=<function folder> EVENT=<file>: one invocation, like `sam local invoke -e`, against the DynamoDB Local of the running `make run`.
## EVENT defaults to infra/events/<FN>.json when that file exists (e.g. make invoke FN=cleanup).
invoke: EVENT ?= $(wildcard infra/events/$(FN).json)
invoke: local-bin
	@test -n "$(FN)" || { echo "usage: make invoke FN=<function folder> [EVENT=<file>]"; exit 2; }
	$(LOCAL_BIN) invoke --function $(FN) $(if $(EVENT),--event $(EVENT))

## deploy: sam deploy with samconfig.toml (ENV=default or ENV=prod).
deploy: sam-check build
	sam deploy --config-env $(ENV)

sam-check:
	@command -v sam >/dev/null 2>&1 || { echo "make deploy needs the AWS SAM CLI: install it (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/install-sam-cli.html, or 'pip install aws-sam-cli'), configure AWS credentials, then run make deploy again."; exit 1; }

clean:
	rm -rf build .aws-sam .local
