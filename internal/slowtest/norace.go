//go:build !race

package slowtest

// Race is whether the test binary was built with the race detector.
const Race = false
