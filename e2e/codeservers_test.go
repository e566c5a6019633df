package e2e

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestWithHost: the code server binds the pod's address whichever way its
// args give the host.
func TestWithHost(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"dagster", "api", "grpc", "-h", "0.0.0.0", "-p", "3030"}, []string{"dagster", "api", "grpc", "-h", "127.0.2.1", "-p", "3030"}},
		{[]string{"dagster", "code-server", "start", "--host=0.0.0.0"}, []string{"dagster", "code-server", "start", "--host=127.0.2.1"}},
		{[]string{"dagster", "api", "grpc", "-p", "3030"}, []string{"dagster", "api", "grpc", "-p", "3030", "--host", "127.0.2.1"}},
	} {
		if got := withHost(c.in, "127.0.2.1"); !slices.Equal(got, c.want) {
			t.Errorf("withHost(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestIsCodeServerAndSplitImage(t *testing.T) {
	for _, c := range []struct {
		ct   corev1.Container
		want bool
	}{
		{corev1.Container{Args: []string{"dagster", "api", "grpc"}}, true},
		{corev1.Container{Command: []string{"/usr/local/bin/dagster"}, Args: []string{"code-server", "start"}}, true},
		{corev1.Container{Args: []string{"dagster-daemon", "run"}}, false},
		{corev1.Container{Command: []string{"codeloc-jobs"}, Args: []string{"reload"}}, false},
	} {
		if got := isCodeServer(c.ct); got != c.want {
			t.Errorf("isCodeServer(%v %v) = %v", c.ct.Command, c.ct.Args, got)
		}
	}
	for in, want := range map[string][2]string{
		"registry:80/citation-dagster:a3f9c1d": {"registry:80/citation-dagster", "a3f9c1d"},
		"registry:80/citation-dagster":         {"registry:80/citation-dagster", "latest"},
		"citation":                             {"citation", "latest"},
	} {
		if r, tag := splitImage(in); r != want[0] || tag != want[1] {
			t.Errorf("splitImage(%s) = %s %s", in, r, tag)
		}
	}
}

// TestHasImageFolder: the fixtures' images run their own code server, a
// copy's (the storm's) uses the shared one.
func TestHasImageFolder(t *testing.T) {
	for image, want := range map[string]bool{
		"registry:80/mediawatch-dagster:5d2e8b4": true,
		"registry:80/citation-dagster:b4d0e2f":   true,
		"registry:80/citation-dagster:0000000":   false,
		"registry:80/storm-000-dagster:5d2e8b4":  false,
		sharedImage:                              false,
	} {
		if got := hasImageFolder(image); got != want {
			t.Errorf("hasImageFolder(%s) = %v, want %v", image, got, want)
		}
	}
}
