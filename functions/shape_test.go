package functions_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxEngineFunc bounds a function of the engines, in lines: a step reads as named phases, each
// a function a newcomer takes in at once.
const maxEngineFunc = 40

// engine reports a package of the two engines or of the page model they read.
func engine(pkg string) bool {
	for _, root := range []string{"shared/agent", "shared/runs", "shared/pagemodel"} {
		if pkg == root || strings.HasPrefix(pkg, root+"/") {
			return true
		}
	}
	return false
}

// parseFiles parses names in dir.
func parseFiles(t *testing.T, fset *token.FileSet, dir string, names []string) []*ast.File {
	t.Helper()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestEngineFunctionsAreShort keeps every function of the engines' code within maxEngineFunc
// lines; a longer one is split into named steps.
func TestEngineFunctionsAreShort(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range packages(t, "./shared/...") {
		if !engine(p.ImportPath) {
			continue
		}
		for _, f := range parseFiles(t, fset, p.Dir, p.GoFiles) {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxEngineFunc {
					t.Errorf("%s: %s is %d lines, want at most %d: split it into named steps", fset.Position(fd.Pos()), fd.Name.Name, n, maxEngineFunc)
				}
			}
		}
	}
}

// clockWaits are the time functions a test would wait or measure with: a test waits on an event
// (a channel the code under test closes, llmtest.Held, waitbuf.Buffer.Await) or moves an
// injected clock (fakeclock), and asserts no durations.
var clockWaits = []string{"Sleep", "After", "AfterFunc", "Tick", "NewTicker", "NewTimer", "Since", "Until"}

// measuring are the packages whose tests measure durations for a report and assert none.
var measuring = []string{"infra/bench"}

// TestTestsWaitOnEvents keeps sleeps, polls on the clock and wall-time assertions out of tests.
func TestTestsWaitOnEvents(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range packages(t, "./...") {
		if slices.Contains(measuring, p.ImportPath) {
			continue
		}
		for _, f := range parseFiles(t, fset, p.Dir, append(p.TestGoFiles, p.XTestGoFiles...)) {
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "time" && slices.Contains(clockWaits, sel.Sel.Name) {
					t.Errorf("%s: time.%s in a test: wait on an event or move a fakeclock instead", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
}
