package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/outlast-dev/outlast/schema"
)

// A prefill/decode-disaggregated deployment (SGLang's
// --disaggregation-mode prefill|decode, vLLM's KV connectors such as
// NIXL) runs its requests' prefill and decode on different engines, each
// with its own log; run.yaml gives them by role (files.prefill_log,
// files.decode_log, one file or one per node or rank). Each side says what
// it decides:
//
//   - the prefill side caches prefixes, so its startup arguments say
//     whether caching is on (a decode server runs without a radix cache
//     unless told: SGLang forces disable_radix_cache=True, "KV cache is
//     forced as chunk cache for decode server", server_args.py), its
//     start-up lines give the KV pool, and its batch lines the prefill
//     batches, cached tokens and KV usage included, and the queue of
//     requests waiting to be prefilled;
//   - the decode side's lines give the requests running and the decode
//     throughput.
//
// So a prefill log's samples keep their prefill fields and lose the
// running and decode ones, and a decode log's the reverse.

// roleLog is one engine log given by role.
type roleLog struct {
	role, name string
}

// roleLogs lists the run's engine logs by role, prefill first.
func (r *runReader) roleLogs() []roleLog {
	var out []roleLog
	for _, n := range r.m.Files.PrefillLogs {
		out = append(out, roleLog{"prefill", n})
	}
	for _, n := range r.m.Files.DecodeLogs {
		out = append(out, roleLog{"decode", n})
	}
	return out
}

// readRoleLogs reads the engine logs of a disaggregated run, each for its
// role, and returns the log whose startup arguments say whether prefix
// caching is on: the first prefill log, "" without one.
func (r *runReader) readRoleLogs(gw span) (string, error) {
	d := r.res.Data
	var listing strings.Builder
	startup, format := "", ""
	var pool int64
	for _, l := range r.roleLogs() {
		p, err := findFile(r.dir, l.name, true)
		if err != nil {
			return "", err
		}
		sp, sum, sha, err := r.readLogFor(p, r.m.Engine.Name, l.role)
		if err != nil {
			return "", err
		}
		r.checkSpan(l.role+" log "+filepath.Base(p)+" samples", sp, gw)
		fmt.Fprintf(&listing, "%s  %s:%s\n", sha, l.role, l.name)
		if format == "" {
			format = sum.logFormat()
		}
		if l.role != "prefill" {
			continue
		}
		if startup == "" {
			startup = p
		}
		if pool == 0 {
			pool = sum.kvPoolTokens
		}
	}
	if startup == "" {
		r.warnf("WARNING: files gives no prefill log: whether prefix caching is on, and the KV pool, are the prefill side's to say; the decode side's startup arguments are not read for them")
	}
	d.Run.EngineLogFormat = format
	sum := sha256.Sum256([]byte(listing.String()))
	d.Run.EngineLogSHA256 = hex.EncodeToString(sum[:])
	if pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "engine_log"
	} else if pool > 0 && *d.Run.KVPoolTokens != pool {
		r.warnf("%s: KV pool %d tokens in the prefill log, %d in the manifest (the manifest wins)", filepath.Base(startup), pool, *d.Run.KVPoolTokens)
	}
	return startup, nil
}

// roleKeeps are the filters of the engine logs' roles: each keeps what
// its side of a disaggregated deployment decides.
var roleKeeps = map[string]func(*schema.EngineSample) bool{"prefill": keepPrefill, "decode": keepDecode}

// keepPrefill keeps what a prefill log's sample says of the prefill side,
// reporting whether anything is left: its prefill batches (an SGLang
// decode line of the prefill server is left out) and, of a vLLM stats
// line, all but the running requests and the generation throughput.
func keepPrefill(s *schema.EngineSample) bool {
	if s.Kind == schema.LineDecode {
		return false
	}
	s.Running, s.GenTput = nil, nil
	return true
}

// keepDecode keeps what a decode log's sample says of the decode side:
// its decode batches, the requests running and the decode throughput;
// the pool, its usage, the queue and the prefix cache are the prefill
// side's.
func keepDecode(s *schema.EngineSample) bool {
	if s.Kind == schema.LinePrefill {
		return false
	}
	s.Waiting, s.KVUsage, s.TokensUsed, s.PromptTput, s.LoggedHitRate = nil, nil, nil, nil, nil
	s.NewSeqs, s.NewTokens, s.CachedTokens = nil, nil, nil
	return true
}
