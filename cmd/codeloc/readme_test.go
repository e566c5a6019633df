package main

import (
	"os"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/preflight"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// TestEveryCodeIsDocumented keeps the README's error-code tables complete:
// every stable problem code of every package is listed, with a sentence.
func TestEveryCodeIsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, docs := range map[string]map[string]string{
		"validate": validate.CodeDocs, "render": render.CodeDocs, "plugin": plugin.CodeDocs,
		"preflight": preflight.CodeDocs, "appofapps": appofapps.CodeDocs,
	} {
		for code, doc := range docs {
			if doc == "" || !strings.Contains(string(readme), "`"+code+"`") {
				t.Errorf("%s code %s is not in the README", pkg, code)
			}
		}
	}
}
