package check_test

import (
	"errors"
	"fmt"

	"github.com/outlast-dev/outlast/compare/check"
	"github.com/outlast-dev/outlast/textpos"
)

// A rules file with a misspelt key is refused at the key's line and column,
// with the key it most likely meant; errors.As recovers the position, as
// for every reader's input.
func ExampleParse() {
	rules := `rules:
  - name: prevention never collapses
    where: {design: prevention}
    requre: {persistent_runs: 0}
`
	_, err := check.Parse([]byte(rules), "gate.yaml")
	fmt.Println(err)
	var pe *textpos.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Pos.Line, pe.Column)
	}
	// Output:
	// gate.yaml:4:5: unknown key "requre" in a rule (did you mean require?); known keys: name, where, dataset, compare, require
	// 4 5
}
