package main

import (
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"
)

// commit is the source revision the binary was built from, when the build
// set it (go build -ldflags "-X main.commit=REV", for a build outside a
// git checkout); otherwise it is read from the build's VCS stamp.
var commit string

func init() {
	commands["version"] = command{summary: "print outlast's version and the commit it was built from", run: runVersion}
}

const versionHelp = `Usage: outlast version

Version prints outlast's version, the commit it was built from and the Go
version that built it. "outlast --version" prints the same line. The
version (not the commit) is what the dataset's files record as created_by,
so that the same inputs give the same bytes whatever commit wrote them.

The commit comes from the build: go build in a git checkout records it
(with "-dirty" when files differed from it); a build outside one may give
it with -ldflags "-X main.commit=REV"; otherwise it is "unknown".

Examples:
  outlast version              # outlast 0.1.0 (commit 8e58ceb…, go1.26.8)
  outlast --version
`

func runVersion(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("version", versionHelp)
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf("version takes no arguments")
	}
	bi, _ := debug.ReadBuildInfo()
	_, err := fmt.Fprintln(stdout, versionLine(bi, commit))
	return err
}

// pseudoVersion matches a Go module pseudo-version (v0.0.0-20261201120000-abcdef012345)
// and takes its commit.
var pseudoVersion = regexp.MustCompile(`[.-]\d{14}-([0-9a-f]{12})(\+incompatible)?$`)

// versionLine is "outlast VERSION (commit REV, GOVERSION)". VERSION is the
// module's when it was built as a release (go install …@v1.2.3), else the
// constant the dataset records. REV is override when set, else the VCS
// revision of bi ("-dirty" for a modified tree), else the commit of a
// pseudo-version (go install …@COMMIT), else "unknown".
func versionLine(bi *debug.BuildInfo, override string) string {
	v, rev, gov := version, override, "go?"
	if bi != nil {
		gov = bi.GoVersion
		switch m := pseudoVersion.FindStringSubmatch(bi.Main.Version); {
		case m != nil:
			// go install …@COMMIT: a pseudo-version names the commit.
			if rev == "" {
				rev = m[1]
			}
		case bi.Main.Version != "" && bi.Main.Version != "(devel)":
			v = strings.TrimPrefix(bi.Main.Version, "v") // go install …@v1.2.3
		}
		if rev == "" {
			var modified bool
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
			if rev != "" && modified {
				rev += "-dirty"
			}
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	return fmt.Sprintf("outlast %s (commit %s, %s)", v, rev, gov)
}
