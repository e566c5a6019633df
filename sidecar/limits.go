package sidecar

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/codeloc/codeloc/internal/yamlbound"
	"github.com/codeloc/codeloc/render"
)

// Limits bound what one GenerateManifest or MatchRepository request may
// unpack. They are enforced while the repository streams in: a request
// over a limit is refused before the bytes past it are written anywhere.
// A zero field takes its default (DefaultLimits).
//
// The defaults fit an atlas repository with room to spare. Argo CD sends
// MatchRepository the whole repository at every render (discovery runs even
// for an Application that names the plugin), and GenerateManifest the
// Application's folder with manifest-generate-paths, else the whole
// repository as well: so each limit is sized for a whole repository of
// code-locations (manifests, SQL migrations, the code-locations' own
// sources), which stays in the tens of MiB and a few thousand entries,
// not for one code-location's folder. What they stop is a repository that
// expands past anything a render reads (a committed file of zeros, an
// archive bomb) and would fill the sidecar's memory: each request is
// unpacked in memory, so ExpandedBytes times Concurrent bounds what the
// copies of the repository hold (64Mi × 4 by default, under the 512Mi the
// install gives the container).
type Limits struct {
	// RepoBytes bounds the compressed stream, the .tar.gz as sent. Source
	// text compresses several times over, so this is mostly reached by
	// committed binaries.
	RepoBytes int64
	// ExpandedBytes bounds the uncompressed archive: the files' contents
	// plus the archive's own headers. It bounds what one request in flight
	// holds in memory (its files' contents).
	ExpandedBytes int64
	// Entries bounds the files, folders and links of the archive.
	Entries int64
	// Depth bounds how many names deep an entry's repository path goes:
	// kustomize overlays and source packages stay well under it, a
	// generated or hostile tree does not.
	Depth int64
	// FileBytes bounds one file: manifests and migrations are far smaller
	// (a migration travels in a ConfigMap), so a larger file is data that
	// no render reads.
	FileBytes int64
	// Concurrent bounds the GenerateManifest requests held in memory at
	// once, from receiving to the end of their render: others wait their
	// turn (until their deadline). What the requests' copies of the
	// repository hold is at most Concurrent times ExpandedBytes.
	Concurrent int64
	// YAMLBytes, YAMLAliasNodes and YAMLDepth bound each YAML file a
	// render reads, before anything expands it (yamlbound.Limits): its
	// size, the nodes its aliases add once expanded, its nesting.
	YAMLBytes      int64
	YAMLAliasNodes int64
	YAMLDepth      int64
	// RenderSeconds bounds how long one render may take before its request
	// is answered with the budget's problem (render.BudgetProblem).
	RenderSeconds int64
}

// DefaultLimits are the limits a zero Limits field takes.
func DefaultLimits() Limits {
	return Limits{
		RepoBytes:     64 << 20,
		ExpandedBytes: 64 << 20,
		Entries:       10000,
		Depth:         32,
		FileBytes:     32 << 20,
		Concurrent:    4,

		YAMLBytes:      yamlbound.DefaultBytes,
		YAMLAliasNodes: yamlbound.DefaultAliasNodes,
		YAMLDepth:      yamlbound.DefaultDepth,
		RenderSeconds:  render.DefaultRenderSeconds,
	}
}

// RenderBudget is RenderSeconds as a duration.
func (l Limits) RenderBudget() time.Duration {
	return time.Duration(min(l.RenderSeconds, 1<<30)) * time.Second
}

// YAML is the render's share of the limits.
func (l Limits) YAML() yamlbound.Limits {
	return yamlbound.Limits{Bytes: l.YAMLBytes, AliasNodes: l.YAMLAliasNodes, Depth: int(min(l.YAMLDepth, 1<<20))}.WithDefaults()
}

// withDefaults returns l with each zero or negative field set to its
// default.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, def *int64 }{
		{&l.RepoBytes, &d.RepoBytes}, {&l.ExpandedBytes, &d.ExpandedBytes}, {&l.Entries, &d.Entries},
		{&l.Depth, &d.Depth}, {&l.FileBytes, &d.FileBytes}, {&l.Concurrent, &d.Concurrent},
		{&l.YAMLBytes, &d.YAMLBytes}, {&l.YAMLAliasNodes, &d.YAMLAliasNodes}, {&l.YAMLDepth, &d.YAMLDepth},
		{&l.RenderSeconds, &d.RenderSeconds},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return l
}

// LogValue logs the limits by flag name.
func (l Limits) LogValue() slog.Value {
	var attrs []slog.Attr
	for _, s := range l.Settings() {
		attrs = append(attrs, slog.String(s.Flag, FormatLimit(*s.Value, s.Bytes)))
	}
	return slog.GroupValue(attrs...)
}

// LimitSetting is one limit as the command line and the environment set
// it: codeloc-sidecar registers one flag per setting, whose default comes
// from the environment variable.
type LimitSetting struct {
	// Flag is the flag name, without dashes.
	Flag string
	// Env is the environment variable that sets the flag's default.
	Env string
	// Usage says what the limit bounds.
	Usage string
	// Bytes says the value is a size (64Mi, 1Gi, 500M or a byte count);
	// otherwise it is a count.
	Bytes bool
	// Value is the Limits field the setting fills.
	Value *int64
}

// Names of the limit settings: each refusal names the flag and the
// environment variable that raise its limit.
const (
	FlagMaxRepoBytes     = "max-repo-bytes"
	FlagMaxExpandedBytes = "max-expanded-bytes"
	FlagMaxEntries       = "max-entries"
	FlagMaxDepth         = "max-depth"
	FlagMaxFileBytes     = "max-file-bytes"
	FlagMaxConcurrent    = "max-concurrent"

	EnvMaxRepoBytes     = "CODELOC_SIDECAR_MAX_REPO_BYTES"
	EnvMaxExpandedBytes = "CODELOC_SIDECAR_MAX_EXPANDED_BYTES"
	EnvMaxEntries       = "CODELOC_SIDECAR_MAX_ENTRIES"
	EnvMaxDepth         = "CODELOC_SIDECAR_MAX_DEPTH"
	EnvMaxFileBytes     = "CODELOC_SIDECAR_MAX_FILE_BYTES"
	EnvMaxConcurrent    = "CODELOC_SIDECAR_MAX_CONCURRENT"
)

// Settings lists l's limits with their flag and environment names; each
// Value points into l.
func (l *Limits) Settings() []LimitSetting {
	return []LimitSetting{
		{FlagMaxRepoBytes, EnvMaxRepoBytes, "largest compressed repository stream one request may send", true, &l.RepoBytes},
		{FlagMaxExpandedBytes, EnvMaxExpandedBytes, "largest uncompressed repository one request may unpack", true, &l.ExpandedBytes},
		{FlagMaxEntries, EnvMaxEntries, "most files, folders and links one request may unpack", false, &l.Entries},
		{FlagMaxDepth, EnvMaxDepth, "deepest path (in names) one request may unpack", false, &l.Depth},
		{FlagMaxFileBytes, EnvMaxFileBytes, "largest single file one request may unpack", true, &l.FileBytes},
		{FlagMaxConcurrent, EnvMaxConcurrent, "most renders held in memory at once (others wait their turn)", false, &l.Concurrent},
		{yamlbound.FlagBytes, yamlbound.EnvBytes, "largest YAML file a render reads", true, &l.YAMLBytes},
		{yamlbound.FlagAliasNodes, yamlbound.EnvAliasNodes, "most nodes the YAML aliases of one file may add once expanded", false, &l.YAMLAliasNodes},
		{yamlbound.FlagDepth, yamlbound.EnvDepth, "deepest nesting of a YAML document, aliases expanded", false, &l.YAMLDepth},
		{render.FlagRenderSeconds, render.EnvRenderSeconds, "longest a render may take, in seconds, before its request is refused (the render ends in the background, holding its slot)", false, &l.RenderSeconds},
	}
}

// ParseLimit reads a limit's value: a positive count, or for a size a
// Kubernetes quantity (64Mi, 1Gi, 500M) or a plain byte count.
func ParseLimit(s string, bytes bool) (int64, error) {
	s = strings.TrimSpace(s)
	if !bytes {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a positive whole number", s)
		}
		return n, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("%q is not a positive size (e.g. 64Mi, 1Gi, 500M or a byte count)", s)
	}
	return q.Value(), nil
}

// FormatLimit shows a limit's value as ParseLimit reads it.
func FormatLimit(v int64, bytes bool) string {
	if !bytes {
		return fmt.Sprint(v)
	}
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if v >= u.size && v%u.size == 0 {
			return fmt.Sprintf("%d%s", v/u.size, u.suffix)
		}
	}
	return fmt.Sprint(v)
}

// showBytes shows a size in a message: in binary units when round, else
// in bytes.
func showBytes(v int64) string {
	if f := FormatLimit(v, true); f != fmt.Sprint(v) {
		return f
	}
	return fmt.Sprintf("%d bytes", v)
}

// limitError is a request refused by a limit. Its message is one line
// that says what went over which limit and the flag and environment
// variable that raise it; it wraps errRepo.
type limitError struct {
	// Flag is the setting of the limit that refused the request.
	Flag string
	msg  string
}

func (e *limitError) Error() string { return errRepo.Error() + ": " + e.msg }
func (e *limitError) Unwrap() error { return errRepo }

// refuse builds the limitError of the limit behind flag; sentence holds
// one %s, where the limit goes.
func refuse(flag, env string, limit int64, bytes bool, sentence string) error {
	shownLimit := fmt.Sprint(limit)
	if bytes {
		shownLimit = showBytes(limit)
	}
	return &limitError{Flag: flag, msg: fmt.Sprintf(sentence, shownLimit) + fmt.Sprintf(" (raise the limit with --%s or %s)", flag, env)}
}

func (l Limits) repoBytesError() error {
	return refuse(FlagMaxRepoBytes, EnvMaxRepoBytes, l.RepoBytes, true, "the compressed repository stream is larger than %s")
}

func (l Limits) expandedBytesError() error {
	return refuse(FlagMaxExpandedBytes, EnvMaxExpandedBytes, l.ExpandedBytes, true, "the repository expands past %s")
}

func (l Limits) entriesError() error {
	return refuse(FlagMaxEntries, EnvMaxEntries, l.Entries, false, "the repository holds more than %s files, folders and links")
}

func (l Limits) depthError(name string) error {
	return refuse(FlagMaxDepth, EnvMaxDepth, l.Depth, false, "the path "+escapePercent(shown(name))+" is more than %s names deep")
}

func (l Limits) fileBytesError(name string, size int64) error {
	return refuse(FlagMaxFileBytes, EnvMaxFileBytes, l.FileBytes, true,
		"the file "+escapePercent(shown(name))+" ("+showBytes(size)+") is larger than %s")
}

func escapePercent(s string) string { return strings.ReplaceAll(s, "%", "%%") }
