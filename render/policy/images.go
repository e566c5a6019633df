package policy

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// imageRule checks the image of every container of every pod spec:
// from the contract's registry (or policy.registries), and pinned.
type imageRule struct{}

// Codes of imageRule: stable, contracts, fixtures and scripts name them.
const (
	CodeImageRevision = "policy-image-revision"
	CodeImageRegistry = "policy-image-registry"
	CodeImageUnpinned = "policy-image-unpinned"
	CodeImageDigest   = "policy-image-digest"
)

// Codes are the codes imageRule emits.
func (imageRule) Codes() []Code {
	return []Code{
		{CodeImageRevision, "An image of the code-location does not carry the declared revision as its tag."},
		{CodeImageRegistry, "An image does not come from the contract's registry (or policy.registries)."},
		{CodeImageUnpinned, "An image has neither a digest nor a tag other than latest."},
		{CodeImageDigest, "An image reference has an @ but no valid digest (sha256: and 64 lowercase hex digits, or sha512: and 128)."},
	}
}

func (imageRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
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

func (in *Context) checkPodImages(o, spec *yaml.RNode, specPath string) problem.Problems {
	var ps problem.Problems
	for _, f := range containerFields {
		for i, c := range node.Sequence(spec, f) {
			field := fmt.Sprintf("%s.%s[%d].image", specPath, f, i)
			if p := in.checkImage(o, c, field); p != nil {
				ps = append(ps, *p)
			}
		}
	}
	return ps
}

// checkImage says the first thing wrong with a container's image, if any.
func (in *Context) checkImage(o, c *yaml.RNode, field string) *problem.Problem {
	image := ""
	if n := c.Field("image"); n != nil {
		if n.Value.YNode().Kind != yaml.ScalarNode {
			return nil // not a string: wellFormedRule says so
		}
		image = n.Value.YNode().Value
	}
	code, msg, hint := in.imageFault(image)
	if code == "" {
		return nil
	}
	p := in.problem(o, code, field, msg, hint)
	return &p
}

// imageFault checks an image's registry, then (own images) its revision,
// then its pinning; "" when it is fine. A digest pins an image whatever its
// tag says: the runtime pulls the digest, so the tag is not checked.
func (in *Context) imageFault(image string) (code, msg, hint string) {
	ref := parseImage(image)
	pin := fmt.Sprintf("pin it with a version tag (%s:1.2.3) or a digest (%s@sha256:...; kustomize images: newTag or digest)", ref.name, ref.name)
	switch {
	case image == "":
		return CodeImageRegistry, "the container has no image", "set image to an image of " + in.c.Registry
	case !in.allowedRegistry(ref.normalized):
		return CodeImageRegistry, fmt.Sprintf("image %q does not come from %s", image, strings.Join(in.registries(), " or ")),
			fmt.Sprintf("push it to %s and pull it from there (kustomize images: newName), or ask the platform to add its registry to policy.registries", in.c.Registry)
	case ref.pinned:
		if reason := digestFault(ref.digest); reason != "" {
			return CodeImageDigest, fmt.Sprintf("image %q: %q after @ is not a digest: %s; the kubelet cannot pull it", image, ref.digest, reason),
				fmt.Sprintf("write %s@sha256: and the image's 64 lowercase hex digits as the registry shows them (kustomize images: digest), or pin a tag instead", ref.name)
		}
		return "", "", ""
	case ownsImage(ref.normalized, dockerHubAlias(in.ownPrefix())):
		if ref.tag == in.d.Revision {
			return "", "", ""
		}
		shown := ref.tag
		if shown == "" {
			shown = "no tag"
		}
		return CodeImageRevision, fmt.Sprintf("image %q has %s, not the declared revision %s", image, shown, in.d.Revision),
			fmt.Sprintf("tag it %s:%s (kustomize images: newTag), or update revision", ref.name, in.d.Revision)
	case ref.tag == "":
		return CodeImageUnpinned, fmt.Sprintf("image %q has no tag: it pulls latest, whatever that is at the time", image), pin
	case ref.tag == "latest":
		return CodeImageUnpinned, fmt.Sprintf("image %q has tag latest: what it pulls changes whenever the tag moves", image), pin
	}
	return "", "", ""
}

// digestFault says why d is not a digest an image may be pinned to, ""
// when it is one: sha256 with 64 lowercase hex digits or sha512 with 128,
// what go-digest's Parse accepts of those two algorithms, as the container
// runtimes do (sha384, which it also knows, is no algorithm of the OCI
// image spec). Written out rather than through go-digest, whose package
// initialization compiles four regular expressions in every process
// (TestDigestFaultAgreesWithGoDigest holds the two together).
func digestFault(d string) string {
	algorithm, encoded, found := strings.Cut(d, ":")
	var size int // hex digits
	switch algorithm {
	case "sha256":
		size = 64
	case "sha512":
		size = 128
	}
	switch {
	case d == "":
		return "it is empty"
	case !found || algorithm == "" || encoded == "":
		return "it is not algorithm:hex"
	case size == 0:
		return fmt.Sprintf("%q is not sha256 or sha512", algorithm)
	case len(encoded) != size:
		return fmt.Sprintf("%s takes %d hex digits, not %d", algorithm, size, len(encoded))
	case strings.ContainsFunc(encoded, func(r rune) bool { return (r < '0' || r > '9') && (r < 'a' || r > 'f') }):
		return fmt.Sprintf("%s takes lowercase hex digits (0-9, a-f) only", algorithm)
	}
	return ""
}

// ownPrefix is the name prefix of the code-location's own images.
func (in *Context) ownPrefix() string {
	return strings.TrimSuffix(in.c.Registry, "/") + "/" + in.d.CodeLocation
}

// registries are the registries images may come from, the contract's first.
func (in *Context) registries() []string {
	rs := []string{in.c.Registry}
	for _, r := range in.c.Policy.Registries {
		if !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	return rs
}

// allowedRegistry reports whether a normalized image name lies under one
// of the registries, on a whole path segment: registry:80/x is under
// registry:80, registry:800/x is not.
func (in *Context) allowedRegistry(name string) bool {
	for _, r := range in.registries() {
		if strings.HasPrefix(name, dockerHubAlias(r)+"/") {
			return true
		}
	}
	return false
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

// imageRef is an image reference split into its parts.
type imageRef struct {
	name, tag, digest string
	// pinned is true when the reference has an @: what follows must be a
	// digest, even when empty.
	pinned bool
	// normalized is the name with the registry the runtime pulls from
	// spelled out: busybox is docker.io/library/busybox.
	normalized string
}

// parseImage splits [host[:port]/]path[:tag][@digest].
func parseImage(image string) imageRef {
	var r imageRef
	r.name, r.digest, r.pinned = strings.Cut(image, "@")
	slash := strings.LastIndex(r.name, "/")
	if colon := strings.LastIndex(r.name, ":"); colon > slash {
		r.name, r.tag = r.name[:colon], r.name[colon+1:]
	}
	r.normalized = normalizeImageName(r.name)
	return r
}

// normalizeImageName applies the container runtimes' rule: a first path
// segment is a registry host only if it has a '.' or a ':' or is
// localhost; otherwise the image is Docker Hub's (docker.io), where a
// single-segment name is in the library/ namespace.
func normalizeImageName(name string) string {
	first, _, found := strings.Cut(name, "/")
	if !found || (!strings.ContainsAny(first, ".:") && first != "localhost") {
		name = "docker.io/" + name
	}
	name = dockerHubAlias(name)
	if host, path, _ := strings.Cut(name, "/"); host == "docker.io" && !strings.Contains(path, "/") {
		return "docker.io/library/" + path
	}
	return name
}

// dockerHubAlias spells Docker Hub's other host name as docker.io.
func dockerHubAlias(name string) string {
	if rest, ok := strings.CutPrefix(name, "index.docker.io/"); ok {
		return "docker.io/" + rest
	}
	if name == "index.docker.io" {
		return "docker.io"
	}
	return name
}
