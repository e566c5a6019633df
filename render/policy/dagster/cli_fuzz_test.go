package dagster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"
)

// FuzzKubeletExpansion holds podEnv.expand to Kubernetes' own expansion
// (third_party/forked/golang/expansion, what the kubelet runs) on values
// codeloc can read: same text, nothing unknown.
func FuzzKubeletExpansion(f *testing.F) {
	for _, s := range []string{"$(A)", "$$(A)", "$(A", "x$(B)y$(A)$", "$(A)$(A)", "$$$(A)", "$(", "$()", "$(UNSET)", "$(A_PORT)"} {
		f.Add(s, "value of A", "B")
	}
	f.Fuzz(func(t *testing.T, in, a, b string) {
		vars := map[string]string{"A": a, "B": b}
		want := expansion.Expand(in, expansion.MappingFuncFor(vars))
		env := podEnv{vars: map[string]envVar{"A": {value: a}, "B": {value: b}}}
		got, unknownAt, why := env.expand(in)
		if unknownAt >= 0 {
			// Only a reference the kubelet may fill from a Service is unknown
			// here; the text keeps the reference, never a value.
			ref, ok := strings.CutPrefix(got[unknownAt:], "$(")
			name, _, closed := strings.Cut(ref, ")")
			if !ok || !closed || !serviceLinkName(name) {
				t.Fatalf("expand(%q) marks an unknown at %d: %s", in, unknownAt, why)
			}
			return
		}
		if got != want {
			t.Fatalf("expand(%q) = %q, the kubelet's %q", in, got, want)
		}
	})
}

// FuzzCommandLine reads any command line, exec form and shell line, with
// values codeloc can and cannot read: it ends, and every word's unknown
// part starts inside the word.
func FuzzCommandLine(f *testing.F) {
	for _, c := range cliCases {
		f.Add(c.container, "")
	}
	for _, s := range []string{
		`dagster api grpc -p $OPTS`, `dagster api grpc "$(cat f)" -h 0.0.0.0`, "dagster api grpc `x` -p 1", `A=$S dagster code-server start -p ${S}`,
		`eval x; dagster api grpc -p 1`, `dagster api grpc <<EOF`, `dagster api grpc 'unterminated`, `sh -c "sh -c 'sh -c \"dagster api grpc\"'"`,
		`dagster api grpc -p$S`, `dagster api grpc --port=$(S)`, `${S:-x} api grpc`, `dagster api grpc -- -p 1`,
	} {
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, arg, script string) {
		ct := &corev1.Container{
			Command: []string{"sh", "-c", script},
			Args:    []string{arg, "$(S)", "$(P)"},
			Env: []corev1.EnvVar{
				{Name: "P", Value: "3030"},
				{Name: "S", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}},
				{Name: "DAGSTER_CONTAINER_CONTEXT", Value: arg},
			},
		}
		for _, c := range []*corev1.Container{ct, {Command: []string{"dagster", "api", "grpc", script, arg}, Env: ct.Env}} {
			for _, inv := range invocations(c, "c", nil) {
				for _, given := range inv.parse.given {
					for _, g := range given {
						if g.field == "" {
							t.Fatalf("a setting without its field: %+v", g)
						}
					}
				}
				_ = inv.value(paramPort)
			}
			found, unreadable := settingSources(c, "c", nil, paramContext, nil)
			for _, s := range append(found, unreadable...) {
				if s.field == "" {
					t.Fatalf("a source without its field: %+v", s)
				}
			}
		}
	})
}
