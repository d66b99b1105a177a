package promscrape_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/promscrape"
)

// Sniff tells the forms of exposition text apart; TimedReader reads those
// whose samples carry timestamps, here two /federate polls.
func ExampleTimedReader() {
	in := `# TYPE vllm:num_requests_running untyped
vllm:num_requests_running{engine="0",instance="vllm-0:8000",job="vllm"} 3 1793102405000
# TYPE vllm:prompt_tokens_total untyped
vllm:prompt_tokens_total{engine="0",instance="vllm-0:8000",job="vllm"} 1200 1793102405000
# TYPE vllm:num_requests_running untyped
vllm:num_requests_running{engine="0",instance="vllm-0:8000",job="vllm"} 5 1793102410000
# TYPE vllm:prompt_tokens_total untyped
vllm:prompt_tokens_total{engine="0",instance="vllm-0:8000",job="vllm"} 3000 1793102410000
`
	lr, _ := lineio.NewReader(strings.NewReader(in), "federate.prom")
	form, _ := promscrape.Sniff(lr)
	fmt.Println(form)

	lr, _ = lineio.NewReader(strings.NewReader(in), "federate.prom")
	r := promscrape.NewTimedReader(lr, form, promscrape.Options{T0: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)})
	for {
		s, err := r.Next()
		if err != nil {
			break
		}
		prompt := "-"
		if s.PromptTokens != nil {
			prompt = fmt.Sprint(*s.PromptTokens)
		}
		fmt.Printf("t=%gs running=%g prompt tokens since the previous sample: %s\n", s.TS, *s.Running, prompt)
	}
	// Output:
	// prometheus-text
	// t=5s running=3 prompt tokens since the previous sample: -
	// t=10s running=5 prompt tokens since the previous sample: 1800
}
