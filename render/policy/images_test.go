package policy

import (
	_ "crypto/sha256" // digest.Parse validates only the algorithms linked in
	_ "crypto/sha512"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"

	"github.com/codeloc/codeloc/validate"
)

// imagePod is a Pod citation-app whose container app runs image.
func imagePod(image string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: citation-app}
spec:
  containers:
    - name: app
      image: ` + image + "\n"
}

func TestCheckImages(t *testing.T) {
	const field = "Pod/citation-app.spec.containers[0].image"
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name, objects string
		registries    []string
		want          []string
	}{
		{name: "own image at the revision", objects: imagePod("registry:80/citation-dagster:a3f9c1d")},
		{name: "own image by digest", objects: imagePod("registry:80/citation-dagster@" + digest)},
		{name: "own image by digest: the digest wins over the tag", objects: imagePod("registry:80/citation-dagster:old@" + digest)},
		{name: "own image at another tag", objects: imagePod("registry:80/citation:latest"), want: []string{
			`policy-image-revision ` + field + `: image "registry:80/citation:latest" has latest, not the declared revision a3f9c1d`,
		}},
		{name: "own image without tag", objects: imagePod("registry:80/citation/worker"), want: []string{
			`policy-image-revision ` + field + `: image "registry:80/citation/worker" has no tag, not the declared revision a3f9c1d`,
		}},
		{name: "another code-location's name prefix is not own", objects: imagePod("registry:80/citationx:2.0")},
		{name: "docker hub, latest: one problem, the registry", objects: imagePod("docker.io/library/busybox:latest"), want: []string{
			`policy-image-registry ` + field + `: image "docker.io/library/busybox:latest" does not come from registry:80`,
		}},
		{name: "no host is docker hub", objects: imagePod("busybox:1.36"), want: []string{
			`policy-image-registry ` + field + `: image "busybox:1.36" does not come from registry:80`,
		}},
		{name: "a longer port is another registry", objects: imagePod("registry:800/citation-dagster:a3f9c1d"), want: []string{
			`policy-image-registry ` + field + `: image "registry:800/citation-dagster:a3f9c1d" does not come from registry:80`,
		}},
		{name: "the registry as a path segment is not the registry", objects: imagePod("evil.io/registry:80/x:1"), want: []string{
			`policy-image-registry ` + field + `: image "evil.io/registry:80/x:1" does not come from registry:80`,
		}},
		{name: "third-party image at latest", objects: imagePod("registry:80/busybox:latest"), want: []string{
			`policy-image-unpinned ` + field + `: image "registry:80/busybox:latest" has tag latest: what it pulls changes whenever the tag moves`,
		}},
		{name: "third-party image without tag", objects: imagePod("registry:80/busybox"), want: []string{
			`policy-image-unpinned ` + field + `: image "registry:80/busybox" has no tag: it pulls latest, whatever that is at the time`,
		}},
		{name: "third-party image at a version", objects: imagePod("registry:80/busybox:1.36")},
		{name: "third-party image by digest", objects: imagePod("registry:80/busybox@" + digest)},
		{name: "a digest that is none", objects: imagePod("registry:80/busybox@latest"), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@latest": "latest" after @ is not a digest: it is not algorithm:hex; the kubelet cannot pull it`,
		}},
		{name: "a sha512 digest", objects: imagePod("registry:80/busybox@sha512:" + strings.Repeat(digest[7:], 2))},
		{name: "a tag and a sha512 digest", objects: imagePod("registry:80/busybox:1.36@sha512:" + strings.Repeat(digest[7:], 2))},
		{name: "a digest too short", objects: imagePod("registry:80/busybox@sha256:xyz"), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@sha256:xyz": "sha256:xyz" after @ is not a digest: sha256 takes 64 hex digits, not 3; the kubelet cannot pull it`,
		}},
		{name: "a sha256 digest of sha512's length", objects: imagePod("registry:80/busybox@sha256:" + strings.Repeat(digest[7:], 2)), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@sha256:` + strings.Repeat(digest[7:], 2) + `": "sha256:` + strings.Repeat(digest[7:], 2) + `" after @ is not a digest: sha256 takes 64 hex digits, not 128; the kubelet cannot pull it`,
		}},
		{name: "upper-case hex", objects: imagePod("registry:80/busybox@" + strings.ToUpper(digest[:7]) + strings.ToUpper(digest[7:])), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@SHA256:` + strings.ToUpper(digest[7:]) + `": "SHA256:` + strings.ToUpper(digest[7:]) + `" after @ is not a digest: "SHA256" is not sha256 or sha512; the kubelet cannot pull it`,
		}},
		{name: "upper-case hex digits", objects: imagePod("registry:80/busybox@sha256:" + strings.ToUpper(digest[7:])), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@sha256:` + strings.ToUpper(digest[7:]) + `": "sha256:` + strings.ToUpper(digest[7:]) + `" after @ is not a digest: sha256 takes lowercase hex digits (0-9, a-f) only; the kubelet cannot pull it`,
		}},
		{name: "sha384, which go-digest knows", objects: imagePod("registry:80/busybox@sha384:" + digest[7:] + digest[7:39]), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@sha384:` + digest[7:] + digest[7:39] + `": "sha384:` + digest[7:] + digest[7:39] + `" after @ is not a digest: "sha384" is not sha256 or sha512; the kubelet cannot pull it`,
		}},
		{name: "an empty digest does not fall back to the tag", objects: imagePod("registry:80/busybox:1.36@"), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox:1.36@": "" after @ is not a digest: it is empty; the kubelet cannot pull it`,
		}},
		{name: "no hex after the algorithm", objects: imagePod(`"registry:80/busybox@sha256:"`), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@sha256:": "sha256:" after @ is not a digest: it is not algorithm:hex; the kubelet cannot pull it`,
		}},
		{name: "two digests", objects: imagePod("registry:80/busybox@" + digest + "@" + digest), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/busybox@` + digest + "@" + digest + `": "` + digest + "@" + digest + `" after @ is not a digest: sha256 takes 64 hex digits, not 136; the kubelet cannot pull it`,
		}},
		{name: "own image with a bad digest", objects: imagePod("registry:80/citation-dagster:a3f9c1d@sha256:0"), want: []string{
			`policy-image-digest ` + field + `: image "registry:80/citation-dagster:a3f9c1d@sha256:0": "sha256:0" after @ is not a digest: sha256 takes 64 hex digits, not 1; the kubelet cannot pull it`,
		}},
		{name: "an allowed extra registry", registries: []string{"ghcr.io/acme"}, objects: imagePod("ghcr.io/acme/tool:1.0")},
		{name: "an extra registry's sibling path", registries: []string{"ghcr.io/acme"}, objects: imagePod("ghcr.io/acmex/tool:1.0"), want: []string{
			`policy-image-registry ` + field + `: image "ghcr.io/acmex/tool:1.0" does not come from registry:80 or ghcr.io/acme`,
		}},
		{name: "the registry listed again is named once", registries: []string{"registry:80", "ghcr.io/acme"}, objects: imagePod("quay.io/x/y:1"), want: []string{
			`policy-image-registry ` + field + `: image "quay.io/x/y:1" does not come from registry:80 or ghcr.io/acme`,
		}},
		{name: "an extra registry pins too", registries: []string{"ghcr.io/acme"}, objects: imagePod("ghcr.io/acme/tool"), want: []string{
			`policy-image-unpinned ` + field + `: image "ghcr.io/acme/tool" has no tag: it pulls latest, whatever that is at the time`,
		}},
		{name: "docker hub's library allowed: short names are in it", registries: []string{"docker.io/library"}, objects: imagePod("busybox:1.36")},
		{name: "docker hub allowed, other host name", registries: []string{"docker.io"}, objects: imagePod("index.docker.io/bitnami/redis:7.2")},
		{name: "no image", objects: `apiVersion: v1
kind: Pod
metadata: {name: citation-app}
spec:
  containers:
    - name: app
`, want: []string{`policy-image-registry ` + field + `: the container has no image`}},
		{name: "an image that is not a string is wellFormedRule's", objects: imagePod("[x]")},
		{name: "init and ephemeral containers, in a Job", objects: `apiVersion: batch/v1
kind: Job
metadata: {name: citation-seed}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers:
        - {name: wait, image: "busybox:1.36"}
      containers:
        - {name: seed, image: "registry:80/citation-seed:a3f9c1d"}
      ephemeralContainers:
        - {name: debug, image: "registry:80/busybox"}
`, want: []string{
			`policy-image-registry Job/citation-seed.spec.template.spec.initContainers[0].image: image "busybox:1.36" does not come from registry:80`,
			`policy-image-unpinned Job/citation-seed.spec.template.spec.ephemeralContainers[0].image: image "registry:80/busybox" has no tag: it pulls latest, whatever that is at the time`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, func(c *validate.Contract) { c.Policy.Registries = tt.registries })
			got := podRuleLines(check(t, imageRule{}, in, parseObjects(t, tt.objects)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImageHints(t *testing.T) {
	in := podRuleInstance(t, nil)
	tests := []struct{ image, want string }{
		{"busybox:1.36", "push it to registry:80 and pull it from there (kustomize images: newName), or ask the platform to add its registry to policy.registries"},
		{"registry:80/busybox", "pin it with a version tag (registry:80/busybox:1.2.3) or a digest (registry:80/busybox@sha256:...; kustomize images: newTag or digest)"},
		{"registry:80/citation-dagster:main", "tag it registry:80/citation-dagster:a3f9c1d (kustomize images: newTag), or update revision"},
		{"registry:80/busybox@sha256:x", "write registry:80/busybox@sha256: and the image's 64 lowercase hex digits as the registry shows them (kustomize images: digest), or pin a tag instead"},
	}
	for _, tt := range tests {
		if _, _, hint := in.imageFault(tt.image); hint != tt.want {
			t.Errorf("%s: hint %q, want %q", tt.image, hint, tt.want)
		}
	}
}

func TestParseImage(t *testing.T) {
	tests := []struct {
		image string
		want  imageRef
	}{
		{"busybox", imageRef{name: "busybox", normalized: "docker.io/library/busybox"}},
		{"bitnami/redis:7.2", imageRef{name: "bitnami/redis", tag: "7.2", normalized: "docker.io/bitnami/redis"}},
		{"docker.io/busybox:1", imageRef{name: "docker.io/busybox", tag: "1", normalized: "docker.io/library/busybox"}},
		{"index.docker.io/library/busybox", imageRef{name: "index.docker.io/library/busybox", normalized: "docker.io/library/busybox"}},
		{"localhost/x:1", imageRef{name: "localhost/x", tag: "1", normalized: "localhost/x"}},
		{"registry:80/a/b:c@sha256:ff", imageRef{name: "registry:80/a/b", tag: "c", digest: "sha256:ff", pinned: true, normalized: "registry:80/a/b"}},
		{"registry:80/a@sha256:ff", imageRef{name: "registry:80/a", digest: "sha256:ff", pinned: true, normalized: "registry:80/a"}},
		{"registry:80/a:1@", imageRef{name: "registry:80/a", tag: "1", pinned: true, normalized: "registry:80/a"}},
	}
	for _, tt := range tests {
		if got := parseImage(tt.image); got != tt.want {
			t.Errorf("parseImage(%q) = %+v, want %+v", tt.image, got, tt.want)
		}
	}
}

// goDigestFault is digestFault as it was written with go-digest: the oracle
// of the hand-written checks.
func goDigestFault(d string) string {
	algorithm, encoded, found := strings.Cut(d, ":")
	_, err := digest.Parse(d)
	a := digest.Algorithm(algorithm)
	switch {
	case d == "":
		return "it is empty"
	case !found || algorithm == "" || encoded == "":
		return "it is not algorithm:hex"
	case a != digest.SHA256 && a != digest.SHA512:
		return fmt.Sprintf("%q is not sha256 or sha512", algorithm)
	case errors.Is(err, digest.ErrDigestInvalidLength):
		return fmt.Sprintf("%s takes %d hex digits, not %d", a, a.Size()*2, len(encoded))
	case err != nil:
		return fmt.Sprintf("%s takes lowercase hex digits (0-9, a-f) only", a)
	}
	return ""
}

func TestDigestFaultAgreesWithGoDigest(t *testing.T) {
	hex64 := strings.Repeat("0123456789abcdef", 4)
	cases := []string{"", ":", "sha256", "sha256:", ":" + hex64, "latest", "sha384:" + hex64 + hex64[:32],
		"md5:abc", "SHA256:" + hex64, "sha256:" + hex64, "sha512:" + hex64 + hex64, "sha256:" + hex64[1:],
		"sha256:" + hex64 + "0", "sha256:" + strings.ToUpper(hex64), "sha256:" + hex64[:63] + ":",
		"sha256:" + hex64[:63] + "g", "sha512:" + hex64, "sha256:" + hex64[:63] + "é", "sha256::" + hex64[1:]}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789abcdefABCDEFg:-+._=é"
	for range 5000 {
		var b strings.Builder
		b.WriteString([]string{"sha256:", "sha512:", "sha384:", "sha256", ""}[rng.IntN(5)])
		n := []int{64, 128, 63, 65, 127, rng.IntN(140)}[rng.IntN(6)]
		for range n {
			if rng.IntN(50) == 0 {
				b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
			} else {
				b.WriteByte(alphabet[rng.IntN(16)])
			}
		}
		cases = append(cases, b.String())
	}
	for _, d := range cases {
		if got, want := digestFault(d), goDigestFault(d); got != want {
			t.Errorf("digestFault(%q) = %q, go-digest says %q", d, got, want)
		}
	}
}
