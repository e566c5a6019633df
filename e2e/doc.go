// Package e2e is codeloc's end-to-end harness: etcd, kube-apiserver,
// controller-manager, scheduler, KWOK nodes, redis, Argo CD's
// application-controller and repo-server, codeloc-sidecar, PostgreSQL and
// file:// git repos, all real processes started once by TestMain; only the
// kubelet is played by the harness (see README.md). The tests are the
// scenarios of the design: first deploy, preflight failure and recovery,
// render refused, dependency not ready, new revision, removal, a storm.
package e2e
