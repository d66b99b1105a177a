package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionLine checks where the version line's commit comes from: the
// -ldflags override, else the build's VCS stamp (with -dirty), else a
// pseudo-version's commit, else "unknown"; and that a release's own
// version replaces the constant.
func TestVersionLine(t *testing.T) {
	stamp := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/outlast-dev/outlast", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	rev := "8e58ceb0c1d2e3f405162738495a6b7c8d9e0f1a"
	for _, tt := range []struct {
		name     string
		bi       *debug.BuildInfo
		override string
		want     string
	}{
		{"checkout", stamp("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "", "outlast " + version + " (commit " + rev + ", go1.26.8)"},
		{"modified", stamp("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "", "outlast " + version + " (commit " + rev + "-dirty, go1.26.8)"},
		{"ldflags", stamp("(devel)", "vcs.revision", rev), "abc123", "outlast " + version + " (commit abc123, go1.26.8)"},
		{"release", stamp("v1.2.3"), "", "outlast 1.2.3 (commit unknown, go1.26.8)"},
		{"pseudo", stamp("v0.0.0-20261201120000-8e58ceb0c1d2"), "", "outlast " + version + " (commit 8e58ceb0c1d2, go1.26.8)"},
		{"pseudo after a tag", stamp("v0.1.1-0.20261201120000-8e58ceb0c1d2"), "", "outlast " + version + " (commit 8e58ceb0c1d2, go1.26.8)"},
		{"nothing", stamp(""), "", "outlast " + version + " (commit unknown, go1.26.8)"},
		{"no build info", nil, "", "outlast " + version + " (commit unknown, go?)"},
	} {
		if got := versionLine(tt.bi, tt.override); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
