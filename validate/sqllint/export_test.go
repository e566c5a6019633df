package sqllint

import "testing"

// EnableCacheForTest turns the parse cache on for t: the build information
// of a test binary (of a package other than main) names no module
// versions, so the cache is off in this package's tests (see buildKey)
// unless a test stands in a key for the build.
func EnableCacheForTest(t testing.TB) {
	old := buildKey
	buildKey = func() string { return "test build\n" }
	t.Cleanup(func() { buildKey = old })
}
