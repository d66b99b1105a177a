package readertest

import (
	"bytes"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// decodeYAMLFile decodes the YAML file at path into v, and fails the test
// if the file cannot be read, is not YAML, or has a field v lacks (a
// misspelt key would otherwise go unchecked).
func decodeYAMLFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
