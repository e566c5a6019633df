// Package check is `codeloc check`: what a change of an atlas repo does to
// its code-locations, before merge, against the contract the cluster
// serves (ADR 0094: never a copy kept in atlas).
//
// Both revisions are read from the git repo on disk with the git CLI (no
// network, no go-git: the lean codeloc binary stays lean), exported into
// temporary folders within bounds. Declarations are read at both
// revisions over the whole repo (cheap: the dependency graph and waves);
// only the code-locations the change touches are rendered, each through
// plugin.Generate, the sidecar's own render path, so that the check
// refuses exactly what the cluster would.
package check
