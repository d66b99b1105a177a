package campaign

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestRunDirs builds campaign trees and checks which run directories
// RunDirs finds in them, and in what order.
func TestRunDirs(t *testing.T) {
	tests := []struct {
		name string
		// tree lists the directories to make: a name ending in "*" holds a
		// run.yaml; "a -> b" is a symbolic link a to b; a name ending in
		// the dataset's lock file name is that file.
		tree []string
		args []string
		want []string // "" for an error
		err  string
		// skipped lists what Find says it passed over: "DIR" (nothing
		// there), "DIR dataset", or "DIR GATEWAY".
		skipped []string
	}{
		{name: "one run", tree: []string{"r*"}, args: []string{"r"}, want: []string{"r"}},
		{name: "flat campaign", tree: []string{"c/b*", "c/a*", "c/notes"}, args: []string{"c"}, want: []string{"c/a", "c/b"}, skipped: []string{"c/notes"}},
		{
			name:    "nested campaign",
			tree:    []string{"c/m1/rate2/s1*", "c/m1/rate1/s2*", "c/m1/rate1/s1*", "c/m0/s9*", "c/empty"},
			args:    []string{"c"},
			want:    []string{"c/m0/s9", "c/m1/rate1/s1", "c/m1/rate1/s2", "c/m1/rate2/s1"},
			skipped: []string{"c/empty"},
		},
		{
			name:    "an empty tree listed by its top",
			tree:    []string{"c/r*", "c/notes/a/b", "c/notes/c"},
			args:    []string{"c"},
			want:    []string{"c/r"},
			skipped: []string{"c/notes"},
		},
		{
			name:    "gateway logs without run.yaml",
			tree:    []string{"c/r*", "c/s1/profile_export.jsonl", "c/s2/x/benchmarks.json", "c/s2/y", "c/s3/gateway.jsonl.gz"},
			args:    []string{"c"},
			want:    []string{"c/r"},
			skipped: []string{"c/s1 profile_export.jsonl", "c/s2/x benchmarks.json", "c/s2/y", "c/s3 gateway.jsonl.gz"},
		},
		{
			name: "nothing but a gateway log",
			tree: []string{"c/s1/benchmarks.json"},
			args: []string{"c"},
			err:  `c: no run.yaml here or in any directory under it; c/s1 holds the gateway log benchmarks.json: write its manifest with "outlast init c/s1"`,
		},
		{name: "a run is not searched", tree: []string{"c/r*", "c/r/inner*"}, args: []string{"c"}, want: []string{"c/r"}},
		{name: "hidden directories passed over", tree: []string{"c/.git/x*", "c/.staging-1/y*", "c/r*"}, args: []string{"c"}, want: []string{"c/r"}},
		{name: "a dataset passed over", tree: []string{"c/ds/.outlast.lock", "c/ds/runs/run=r/x*", "c/r*"}, args: []string{"c"}, want: []string{"c/r"}, skipped: []string{"c/ds dataset"}},
		{
			name: "links followed, each directory once",
			tree: []string{"real/r1*", "real/r2*", "c/latest -> ../real/r2", "c/all -> ../real", "c/loop -> ..", "c/dangling -> nowhere"},
			args: []string{"c"},
			want: []string{"c/all/r1", "c/all/r2"},
		},
		{name: "hidden directories not listed", tree: []string{"c/.git/objects", "c/r*"}, args: []string{"c"}, want: []string{"c/r"}},
		{name: "overlapping arguments", tree: []string{"c/a*", "c/b*"}, args: []string{"c/b", "c"}, want: []string{"c/b", "c/a"}},
		{name: "nothing under it", tree: []string{"c/x/y"}, args: []string{"c"}, err: "c: no run.yaml here or in any directory under it"},
		{name: "a file", tree: []string{"c/r*"}, args: []string{"c/r/run.yaml"}, err: "not a directory"},
		{name: "missing", args: []string{"nope"}, err: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range tt.tree {
				if from, to, ok := strings.Cut(d, " -> "); ok {
					if err := os.MkdirAll(filepath.Join(root, filepath.Dir(from)), 0o777); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(to, filepath.Join(root, from)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if strings.HasSuffix(d, schema.DatasetLockName) || strings.Contains(filepath.Base(d), ".json") {
					if err := os.MkdirAll(filepath.Join(root, filepath.Dir(d)), 0o777); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(root, d), nil, 0o666); err != nil {
						t.Fatal(err)
					}
					continue
				}
				p := filepath.Join(root, strings.TrimSuffix(d, "*"))
				if err := os.MkdirAll(p, 0o777); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(d, "*") {
					if err := os.WriteFile(filepath.Join(p, "run.yaml"), nil, 0o666); err != nil {
						t.Fatal(err)
					}
				}
			}
			t.Chdir(root)
			got, skipped, err := Find(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want the error %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = filepath.FromSlash(w)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			var skips []string
			for _, s := range skipped {
				k := filepath.ToSlash(s.Dir)
				switch {
				case s.Dataset:
					k += " dataset"
				case s.Gateway != "":
					k += " " + s.Gateway
				}
				skips = append(skips, k)
			}
			if !slices.Equal(skips, tt.skipped) {
				t.Errorf("skipped %q, want %q", skips, tt.skipped)
			}
			if dirs, err := RunDirs(tt.args); err != nil || !slices.Equal(dirs, got) {
				t.Errorf("RunDirs = %q, %v; Find gave %q", dirs, err, got)
			}
		})
	}
}
