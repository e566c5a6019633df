package cmpapi

import (
	"math"
	"os"
	"strconv"
	"time"
)

// Names and defaults of Argo CD's cmp-server (Argo CD's common package),
// which the plugin's install and the repo-server agree on.
const (
	// EnvPluginSockFilePath overrides the folder of the plugin sockets.
	EnvPluginSockFilePath = "ARGOCD_PLUGINSOCKFILEPATH"
	// DefaultPluginSockFilePath is the folder of the plugin sockets.
	DefaultPluginSockFilePath = "/home/argocd/cmp-server/plugins"
	// DefaultPluginConfigFilePath is the folder of plugin.yaml.
	DefaultPluginConfigFilePath = "/home/argocd/cmp-server/config"
	// PluginConfigFileName is the plugin's configuration file.
	PluginConfigFileName = "plugin.yaml"
	// EnvGRPCMaxSizeMB overrides the largest gRPC message, in MiB.
	EnvGRPCMaxSizeMB = "ARGOCD_GRPC_MAX_SIZE_MB"
	// EnvGRPCKeepAliveMin overrides the keepalive enforcement minimum.
	EnvGRPCKeepAliveMin = "ARGOCD_GRPC_KEEP_ALIVE_MIN"
)

// MaxGRPCMessageSize is the largest gRPC message the server takes and
// sends: ARGOCD_GRPC_MAX_SIZE_MB MiB, 100 MiB when unset or not a number,
// as Argo CD's cmp-server reads it; unlike Argo CD, a value past 2047 MiB
// (whose bytes would overflow an int32) also falls back to 100.
var MaxGRPCMessageSize = maxMessageSize(os.Getenv(EnvGRPCMaxSizeMB))

func maxMessageSize(mb string) int {
	n, err := strconv.Atoi(mb)
	if err != nil || n < 0 || n > math.MaxInt32/(1024*1024) {
		n = 100
	}
	return n * 1024 * 1024
}

// KeepAliveEnforcementMinimum is the shortest keepalive interval a client
// may use: ARGOCD_GRPC_KEEP_ALIVE_MIN, 10s by default (Argo CD's).
func KeepAliveEnforcementMinimum() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(EnvGRPCKeepAliveMin)); err == nil {
		return d
	}
	return 10 * time.Second
}

// PluginSockFilePath is the folder of the plugin sockets the repo-server
// scans: ARGOCD_PLUGINSOCKFILEPATH, else the default.
func PluginSockFilePath() string {
	if p := os.Getenv(EnvPluginSockFilePath); p != "" {
		return p
	}
	return DefaultPluginSockFilePath
}

// StreamReceiver is the receiving side of a client stream of
// AppStreamRequest (GenerateManifest, MatchRepository,
// GetParametersAnnouncement).
type StreamReceiver interface {
	Recv() (*AppStreamRequest, error)
}

// StreamSender is the sending side of such a stream.
type StreamSender interface {
	Send(*AppStreamRequest) error
}

// FileRequest is one chunk of the repository's tgz.
func FileRequest(chunk []byte) *AppStreamRequest {
	return &AppStreamRequest{Request: &AppStreamRequest_File{File: &File{Chunk: chunk}}}
}

// MetadataRequest is the stream's first message: the Application's name,
// its path in the tgz, the tgz's sha256 and size, and the environment.
func MetadataRequest(appName, appRelPath, checksum string, size int64, env []*EnvEntry) *AppStreamRequest {
	return &AppStreamRequest{Request: &AppStreamRequest_Metadata{Metadata: &ManifestRequestMetadata{
		AppName: appName, AppRelPath: appRelPath, Checksum: checksum, Size: size, Env: env,
	}}}
}
