package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Extra secret the harness's contract lets code-locations declare, absent
// from the cluster until a scenario creates it. Not quotes-*: a platform
// name in a code-location's names is refused (code-location-owns-platform).
const lateSecret = "late-api-token"

// cloneCodeLocation copies the atlas folder from into to, renaming the
// code-location (names, labels and images follow it), and applies edit to
// the manifest's text.
func (h *harness) cloneCodeLocation(from, to string, edit func(string) string) error {
	files := map[string]string{}
	src := filepath.Join(h.atlas.dir, from)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		text := strings.ReplaceAll(string(data), from, to)
		if rel == "code-location.manifest.yaml" && edit != nil {
			text = edit(text)
		}
		files[filepath.Join(to, rel)] = text
		return nil
	})
	if err != nil {
		return err
	}
	return h.atlas.write(files)
}

// editAtlas rewrites one atlas file with edit and commits it.
func (h *harness) editAtlas(msg, file string, edit func(string) string) error {
	text, err := h.atlas.read(file)
	if err != nil {
		return err
	}
	out := edit(text)
	if out == text {
		return fmt.Errorf("edit of %s changed nothing", file)
	}
	return h.atlas.push(msg, map[string]string{file: out})
}

// replace returns an edit replacing old by new, once.
func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// refreshAll asks Argo CD to refresh the root and every code-location now.
func (h *harness) refreshAll(ctx context.Context) error {
	list, err := h.dyn.Resource(applications).Namespace(argocdNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, app := range list.Items {
		if err := h.refresh(ctx, app.GetName(), "normal"); err != nil {
			return err
		}
	}
	return nil
}

// waitRefreshed refreshes every Application until cond holds on name: a
// refresh is cheap, and the controller may miss one while it syncs.
func (h *harness) waitRefreshed(ctx context.Context, name string, timeout time.Duration, what string, cond func(appState) bool) (appState, error) {
	last := time.Time{}
	return h.waitApp(ctx, name, timeout, what, func(s appState) bool {
		if time.Since(last) > 5*time.Second {
			_ = h.refreshAll(ctx)
			last = time.Now()
		}
		return cond(s)
	})
}
