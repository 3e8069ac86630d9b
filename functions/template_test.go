// Package functions_test checks that functions/ and template.yaml agree: every folder is exactly
// one function of the template and every function's CodeUri is a folder here.
package functions_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/screenagent/backend/shared/sam"
)

func TestEveryFolderIsOneTemplateFunction(t *testing.T) {
	tmpl, err := sam.Load(filepath.Join("..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	folders := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			folders["functions/"+e.Name()] = true
		}
	}
	byCodeURI := map[string][]string{}
	for _, f := range tmpl.Functions() {
		byCodeURI[f.CodeURI] = append(byCodeURI[f.CodeURI], f.LogicalID)
	}
	for folder := range folders {
		if ids := byCodeURI[folder]; len(ids) != 1 {
			sort.Strings(ids)
			t.Errorf("folder %s is the CodeUri of %d functions %v, want exactly 1", folder, len(ids), ids)
		}
	}
	for uri, ids := range byCodeURI {
		if !folders[uri] {
			t.Errorf("functions %v have CodeUri %s, which is not a folder of functions/", ids, uri)
		}
		if _, err := os.Stat(filepath.Join("..", uri, "main.go")); err != nil {
			t.Errorf("CodeUri %s has no main.go", uri)
		}
	}
}

func TestEveryFunctionIsBuiltTheSameWay(t *testing.T) {
	tmpl, err := sam.Load(filepath.Join("..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tmpl.Functions() {
		if f.Runtime != "provided.al2023" || f.Handler != "bootstrap" {
			t.Errorf("%s: runtime %q handler %q, want provided.al2023 and bootstrap", f.LogicalID, f.Runtime, f.Handler)
		}
		if got := tmpl.Resources[f.LogicalID].Metadata["BuildMethod"]; got != "go1.x" {
			t.Errorf("%s: Metadata.BuildMethod = %v, want go1.x", f.LogicalID, got)
		}
		for _, e := range f.Events {
			if e.Type == "HttpApi" && e.Properties["ApiId"] == nil {
				t.Errorf("%s event %s names no ApiId", f.LogicalID, e.Name)
			}
		}
	}
}
