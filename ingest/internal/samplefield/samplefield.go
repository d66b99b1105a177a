// Package samplefield names the optional fields of a schema.EngineSample,
// so that a reader's table of what each key or metric means can say which
// field it feeds, and the values of a sample's fields can sit in an array.
package samplefield

import "github.com/outlast-dev/outlast/schema"

// Float is an optional number field of a sample.
type Float int

// The number fields. Those an engine log feeds come first, so that a log
// reader's values fit in an array of NumLogFloats.
const (
	NoFloat Float = iota
	Running
	Waiting
	KVUsage
	PromptTput
	GenTput
	LoggedHitRate
	Preemptions
	IntervalS
	PrefixQueries
	PrefixHits
	PromptTokens
	GenerationTokens
	NumFloats
)

// NumLogFloats bounds the number fields an engine log feeds.
const NumLogFloats = Preemptions + 1

// Of returns the field f of s, nil for NoFloat.
func (f Float) Of(s *schema.EngineSample) **float64 {
	switch f {
	case Running:
		return &s.Running
	case Waiting:
		return &s.Waiting
	case KVUsage:
		return &s.KVUsage
	case PromptTput:
		return &s.PromptTput
	case GenTput:
		return &s.GenTput
	case LoggedHitRate:
		return &s.LoggedHitRate
	case Preemptions:
		return &s.Preemptions
	case IntervalS:
		return &s.IntervalS
	case PrefixQueries:
		return &s.PrefixQueries
	case PrefixHits:
		return &s.PrefixHits
	case PromptTokens:
		return &s.PromptTokens
	case GenerationTokens:
		return &s.GenerationTokens
	}
	return nil
}

// Count is an optional count field of a sample.
type Count int

// The count fields.
const (
	NoCount Count = iota
	TokensUsed
	NewSeqs
	NewTokens
	CachedTokens
	NumCounts
)

// Of returns the field c of s, nil for NoCount.
func (c Count) Of(s *schema.EngineSample) **int64 {
	switch c {
	case TokensUsed:
		return &s.TokensUsed
	case NewSeqs:
		return &s.NewSeqs
	case NewTokens:
		return &s.NewTokens
	case CachedTokens:
		return &s.CachedTokens
	}
	return nil
}
