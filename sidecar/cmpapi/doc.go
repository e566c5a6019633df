// Package cmpapi is Argo CD's Config Management Plugin gRPC API
// (plugin.ConfigManagementPluginService), generated from a copy of Argo
// CD's own proto files, plus the few constants and stream helpers of Argo
// CD's cmpserver that a plugin server and its tests need. It lets
// codeloc-sidecar speak Argo CD's wire protocol without linking Argo CD,
// whose module pins Kubernetes' libraries to its own release.
package cmpapi

//go:generate protoc --proto_path=. --proto_path=/usr/include --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative plugin.proto repository.proto
