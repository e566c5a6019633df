package render

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// checkImages checks the images of every pod spec.
func (in *instance) checkImages(objs []*yaml.RNode) validate.Problems {
	var ps validate.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		if spec, specPath := podSpec(o); spec != nil {
			ps = append(ps, in.checkPodImages(o, spec, specPath)...)
		}
	}
	return ps
}

// checkPodImages requires images of the code-location to carry the revision.
func (in *instance) checkPodImages(o, spec *yaml.RNode, specPath string) validate.Problems {
	var ps validate.Problems
	prefix := strings.TrimSuffix(in.c.Registry, "/") + "/" + in.d.CodeLocation
	for _, f := range containerFields {
		for i, c := range containers(spec, f) {
			image := yaml.GetValue(c.Field("image").Value)
			name, tag := splitImage(image)
			if !ownsImage(name, prefix) || tag == in.d.Revision {
				continue
			}
			shown := tag
			if shown == "" {
				shown = "no tag"
			}
			ps = append(ps, in.problem(o, CodeImageRevision, fmt.Sprintf("%s.%s[%d].image", specPath, f, i),
				fmt.Sprintf("image %q has %s, not the declared revision %s", image, shown, in.d.Revision),
				fmt.Sprintf("tag it %s:%s (kustomize images: newTag), or update revision", name, in.d.Revision)))
		}
	}
	return ps
}

// ownsImage reports whether an image name belongs to the code-location:
// <registry>/<codeLocation> exactly or followed by '-', '_', '.' or '/'.
func ownsImage(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	rest := name[len(prefix):]
	return rest == "" || strings.ContainsAny(rest[:1], "-_./")
}

// splitImage splits an image reference into its name and tag (digest dropped).
func splitImage(image string) (name, tag string) {
	name, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(name, "/")
	if colon := strings.LastIndex(name, ":"); colon > slash {
		return name[:colon], name[colon+1:]
	}
	return name, ""
}
