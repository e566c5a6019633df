// Package e2e is codeloc's end-to-end harness: etcd, kube-apiserver,
// controller-manager, scheduler, KWOK nodes, redis, Argo CD's
// application-controller and repo-server, codeloc-sidecar, PostgreSQL,
// Dagster's webserver and daemon and file:// git repos, all real processes
// started once by TestMain; only the kubelet (which runs the Job pods, the
// code servers and the run workers as local processes) and, for Dagster,
// kube-proxy and the cluster DNS are played by the harness (see README.md). The tests are the
// scenarios of the design: first deploy, preflight failure and recovery,
// render refused, dependency not ready, new revision, removal, a storm.
package e2e
