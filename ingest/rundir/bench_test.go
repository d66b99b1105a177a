package rundir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/internal/benchgen"
	"github.com/outlast-dev/outlast/internal/cputime"
)

// BenchmarkIngestGateway measures a whole run directory with a generated
// 64 MB gateway log going into a staged dataset: parsing, the cross-line
// rules and the Parquet writing together; cpu-ms/op is the process's CPU
// time (user and system) per ingest.
func BenchmarkIngestGateway(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "gw")
	st, err := benchgen.WriteRunDir(dir, "gw", benchgen.Options{Bytes: 64e6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "ds")
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	defer cputime.Report(b, "cpu-ms/op", 1)()
	for b.Loop() {
		stage, err := dataset.NewStage(out, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Stream(dir, Options{Version: "bench"}, stageSink(stage)); err != nil {
			b.Fatal(err)
		}
		if err := stage.Abort(); err != nil {
			b.Fatal(err)
		}
	}
	os.RemoveAll(out)
}
