package policy

import (
	"slices"
	"sync"
)

// Code is a problem code a rule emits and what it means in one sentence.
// Each rule declares its codes beside its Check (Rule.Codes): the codes
// table and docs/codes are derived from the rule list, never kept apart.
type Code struct {
	Name string // stable: contracts, fixtures and scripts name it
	Doc  string // one sentence for the docs; "" when another rule documents it (Reuse)
}

// Reuse declares codes a rule emits though another rule owns and documents
// them (the container context checks what a pod spec would be).
func Reuse(names ...string) []Code {
	out := make([]Code, len(names))
	for i, n := range names {
		out[i] = Code{Name: n}
	}
	return out
}

// Codes of the stage after the rules (Conflicts).
const (
	CodeNameConflict = "policy-name-conflict"
)

// conflictCodes are the codes Conflicts emits.
var conflictCodes = []Code{
	{CodeNameConflict, "An object has the name of one codeloc emits."},
}

// Codes are the codes rules document, in rule order: those each rule owns,
// not those it reuses.
func Codes(rules []Rule) []Code {
	var out []Code
	for _, r := range rules {
		out = append(out, slices.DeleteFunc(r.Codes(), func(c Code) bool { return c.Doc == "" })...)
	}
	return out
}

// KubernetesCodeDocs describes each code of KubernetesRules and Conflicts
// in a sentence, derived from the rule list. The map is shared: read it
// only.
func KubernetesCodeDocs() map[string]string { return kubernetesCodeDocs() }

// kubernetesCodeDocs builds KubernetesCodeDocs' map at first use, not in
// the init every process runs.
var kubernetesCodeDocs = sync.OnceValue(func() map[string]string {
	return DocsOf(append(Codes(KubernetesRules), conflictCodes...))
})

// DocsOf maps each code to its sentence.
func DocsOf(codes []Code) map[string]string {
	m := make(map[string]string, len(codes))
	for _, c := range codes {
		m[c.Name] = c.Doc
	}
	return m
}
