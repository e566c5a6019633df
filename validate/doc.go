// Package validate reads an atlas code-location's declaration
// (code-location.manifest.yaml) and the cluster contract, strictly and
// with every position, checks them against each other and against the
// repo (migration files, the migrations' lint), and reports every problem
// it finds as an internal/problem Problem with a stable code, a field path
// and a position. It also holds the declaration's JSON Schema and the
// embedded example contract.
package validate
