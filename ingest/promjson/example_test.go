package promjson_test

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/promjson"
)

// A query_range answer as Prometheus writes it: one sample per evaluation
// time, counters as deltas; a point with a value of the wrong type is an
// error at its line and column, and the samples at its time are left out.
func ExampleReader() {
	answer := `{"status":"success","data":{"resultType":"matrix","result":[
{"metric":{"__name__":"vllm:prefix_cache_queries_total","engine":"0","job":"vllm"},"values":[[1793102405,"1000"],[1793102410,"1500"],[1793102415,"2600"]]},
{"metric":{"__name__":"vllm:prefix_cache_hits_total","engine":"0","job":"vllm"},"values":[[1793102405,"600"],[1793102410,900],[1793102415,"1500"]]}]}}`
	lr, _ := lineio.NewReader(strings.NewReader(answer), "query_range.json")
	r := promjson.NewReader([]*lineio.Reader{lr}, promjson.Options{T0: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)})
	for {
		s, err := r.Next()
		if err != nil {
			if err != io.EOF {
				fmt.Println(err)
				continue
			}
			break
		}
		if s.PrefixQueries == nil {
			fmt.Printf("t=%gs first sample\n", s.TS)
			continue
		}
		fmt.Printf("t=%gs hits %g of %g queries\n", s.TS, *s.PrefixHits, *s.PrefixQueries)
	}
	// Output:
	// query_range.json:3:122: value: want a string such as "0.5", got a number (900)
	// t=5s first sample
	// t=15s hits 900 of 1600 queries
}
