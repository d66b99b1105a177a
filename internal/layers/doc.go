// Package layers holds no code: its test checks that outlast's packages
// import each other only in the one direction the design allows,
//
//	run directories → ingest → dataset → stats → report, compare, export, replay → cmd
//
// with schema and textpos at the bottom, internal helpers beside them, and
// the simulator (fixtures) using schema alone.
package layers
