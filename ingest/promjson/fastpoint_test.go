package promjson

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// readBothWays reads a document with fastPoint and without it.
func readBothWays(t testing.TB, d string) (fast, general []string) {
	t.Helper()
	defer func() { fastPoints = true }()
	fastPoints = true
	fast, _ = read(t, d)
	fastPoints = false
	general, _ = read(t, d)
	return fast, general
}

// TestFastPointSameAsGeneral reads answers with and without fastPoint:
// the exports of the fixtures, points of every form fastPoint leaves to
// the general way, and random mutations of them, which must give the same
// samples and the same errors at the same places.
func TestFastPointSameAsGeneral(t *testing.T) {
	series := func(points string) string {
		return doc(`{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"values":[`+points+`]}`,
			`{"metric":{"__name__":"vllm:prompt_tokens_total","engine":"0"},"values":[`+points+`]}`)
	}
	docs := []string{
		bigExport(40),
		series(`[1790000005,"1"],[1790000010.5,"2.25"],[1790000015.125,"3e2"]`),
		series(`[ 1790000005,"1"],[1790000010 ,"2"],[1790000015, "3"],[1790000020,"4" ]`),
		series(`[01790000005,"1"],[1790000010,"0x1p3"],[1790000015,"\u0031"],[1790000020,"NaN"],[-1790000025,"5"]`),
		series(`[1790000005,"1","2"],[1790000010,2],["1790000015","3"],[1.79e9,"4"],[1790000025.,"5"],[1790000030,""]`),
		series(`[1790000005,"1"],[1790000005,"2"],[1790000001,"3"]`),
	}
	for _, name := range []string{"query_range_all.json"} {
		b, err := os.ReadFile(filepath.Join(exports, name))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	for _, d := range docs {
		if fast, general := readBothWays(t, d); strings.Join(fast, "\n") != strings.Join(general, "\n") {
			t.Fatalf("%.200q:\nfast:\n%s\ngeneral:\n%s", d, strings.Join(fast, "\n"), strings.Join(general, "\n"))
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := []byte(`[]",.0123456789 eE-+\n` + "\x01")
	for range 800 {
		b := readertest.Mutate(rng, []byte(docs[1+rng.IntN(len(docs)-2)]), alphabet)
		if fast, general := readBothWays(t, string(b)); strings.Join(fast, "\n") != strings.Join(general, "\n") {
			t.Fatalf("%q:\nfast:\n%s\ngeneral:\n%s", b, strings.Join(fast, "\n"), strings.Join(general, "\n"))
		}
	}
}
