#!/usr/bin/env python3
"""Write expect.json beside each real tool-written output under fixtures/.

The values are read from the raw files with Python's json, re and zoneinfo,
following the field tables of docs/run-format.md ("Which field gives ready,
sent, first token and done"), never with outlast: the real-outputs corpus
test (ingest/rundir/realcorpus_test.go) reads the same files with outlast's
readers and compares. Run from the repository's root:

    python3 scripts/real-expected.py          # writes every expect.json
    python3 scripts/real-expected.py --check  # fails if one would change

Times are Unix seconds, except inference-perf's, which are its perf_counter
seconds ("clock": "perf_counter": only their differences are compared).
"""

import datetime
import json
import re
import sys
import zoneinfo
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures"


def turn(ready, sent, first, done, prompt, output, cached, status):
    return {
        "ready": ready, "sent": sent, "first_token": first, "done": done,
        "prompt_tokens": prompt, "output_tokens": output,
        "cached_tokens": cached, "status": status,
    }


def by_sent(turns):
    return sorted(turns, key=lambda t: (t["sent"], t["done"]))


# GuideLLM: ready by strategy (a schedule's targeted start, a closed loop's
# dequeue), sent request_start, first token first_token_iteration (v0.3:
# first_token_time), done request_end; an incomplete request with an empty
# output produced nothing.
CLOSED_LOOP = {"synchronous", "concurrent", "throughput"}
SCHEDULED = {"constant", "poisson", "trace"}
BUCKET_STATUS = {"successful": "ok", "errored": "error", "incomplete": "aborted"}


def guidellm(path):
    doc = json.loads(path.read_text())
    out = []
    for b in doc["benchmarks"]:
        cfg = b.get("config") or b.get("args")
        strategy = cfg["strategy"]["type_"]
        # The measured window (GuideLLM's get_within_range): v0.4+
        # scheduler_metrics.measure_start_time/measure_end_time, v0.3 the
        # benchmark's start_time/end_time. A request ending before it, or
        # sent after it, is not the run's.
        sm = b.get("scheduler_metrics") or {}
        if sm.get("measure_start_time") is not None:
            window = (sm["measure_start_time"], sm["measure_end_time"])
        else:
            window = (b["start_time"], b["end_time"])
        for bucket, status in BUCKET_STATUS.items():
            for r in b["requests"].get(bucket) or []:
                if "scheduler_info" in r:  # v0.3
                    si = r["scheduler_info"]
                    ready = si["dequeued_time"] if strategy in CLOSED_LOOP else (
                        si["targeted_start_time"] if strategy in SCHEDULED else None)
                    sent, done = si["request_start"], si["request_end"]
                    first = r.get("first_token_time")
                else:  # v0.4 and later
                    tm = r["info"]["timings"]
                    ready = tm["dequeued"] if strategy in CLOSED_LOOP else (
                        tm["targeted_start"] if strategy in SCHEDULED else None)
                    sent = tm["request_start"] if tm["request_start"] is not None else tm["resolve_start"]
                    done = tm["request_end"] if tm["request_end"] is not None else tm["resolve_end"]
                    first = tm["first_token_iteration"]
                if done < window[0] or (sent if sent is not None else done) > window[1]:
                    continue
                output = r.get("output_tokens") or 0
                if status != "ok" and not r.get("output"):
                    output = 0
                elif status != "ok" and r.get("output_tokens") is None and "info" in r:
                    # Cut off while streaming, so no usage came: the
                    # token chunks it received (v0.4+).
                    output = r["info"]["timings"].get("token_iterations") or 0
                out.append(turn(ready, sent, first, done, r["prompt_tokens"], output,
                                r.get("cached_tokens"), status))
    return out


# AIPerf: ready credit_issued_ns, sent request_start_ns, done request_end_ns
# (less clock_offset_ns), first token sent + time_to_first_token; usage
# counts before the client's; a cancelled request is aborted.
UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "sec": 1.0, "s": 1.0}


def aiperf(path):
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        md, m = r["metadata"], r.get("metrics") or {}
        if md.get("benchmark_phase") == "warmup":
            continue
        off = md.get("clock_offset_ns") or 0

        def ns(k):
            v = md.get(k)
            return None if v is None else (v - off) / 1e9

        def val(*keys):
            for k in keys:
                if k in m and m[k] is not None:
                    return m[k]
            return None

        sent, done = ns("request_start_ns"), ns("request_end_ns")
        ttft = val("time_to_first_token", "ttft")
        first = None if ttft is None else sent + ttft["value"] * UNIT_S[ttft["unit"]]
        prompt = val("usage_prompt_tokens", "input_sequence_length", "error_isl")
        output = val("usage_completion_tokens", "output_sequence_length")
        cached = val("usage_prompt_cache_read_tokens")
        status = "aborted" if md.get("was_cancelled") else ("error" if r.get("error") else "ok")
        out.append(turn(ns("credit_issued_ns"), sent, first, done,
                        prompt["value"] if prompt else 0, output["value"] if output else 0,
                        cached["value"] if cached else None, status))
    return out


# inference-perf: no ready; sent start_time, done end_time, first token
# output_token_times[0], all perf_counter; tokens from the server's usage
# (response_metrics.server_usage), else the client's counts.
def inference_perf(path):
    out = []
    for r in json.loads(path.read_text()):
        info = r.get("info") or {}
        rm = info.get("response_metrics") or info.get("response_info") or {}
        times = rm.get("output_token_times") or []
        usage = rm.get("server_usage") or {}
        prompt = usage.get("prompt_tokens")
        if prompt is None:
            prompt = (info.get("request_metrics") or {}).get("text", {}).get("input_tokens", info.get("input_tokens", 0))
        output = usage.get("completion_tokens", rm.get("output_tokens", 0))
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens")
        status = "error" if r.get("error") else "ok"
        out.append(turn(None, r["start_time"], times[0] if times else None, r["end_time"],
                        prompt, output, cached, status))
    return out


# outlast's gateway.jsonl (the real-wild runs' stand-in request logs).
def rfc3339(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def gateway(path):
    out, span = [], []
    for line in path.read_text().splitlines():
        r = json.loads(line)
        span.append(r["ts"])
        if r["ev"] != "turn":
            continue
        ready, sent = rfc3339(r["ready_ts"]), rfc3339(r["sent_ts"])
        span.append(ready)
        out.append(turn(ready, sent, rfc3339(r["first_token_ts"]), r["ts"], r["prompt_tokens"],
                        r["output_tokens"], r["cached_tokens"], r.get("status", "ok")))
    return out, (min(span), max(span))


# Engine logs: the stats and batch lines, by their own regular expressions.
VLLM_STATS = re.compile(r"INFO (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) \[[^\]]*\] Engine (\d+): .*Running: (\d+) reqs")
VLLM_POOL = re.compile(r"GPU KV cache size: ([\d,]+) tokens")
SGLANG_BATCH = re.compile(r"^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) TP(\d+)\] (Prefill|Decode) batch.*#running-req: (\d+)")
SGLANG_POOL = re.compile(r"KV Cache is allocated\. #tokens: (\d+)")


def manifest(path):
    # The few keys needed, without a YAML library: "key: value" lines.
    m = {}
    for line in path.read_text().splitlines():
        mm = re.match(r"^(\s*)([a-z_]+):\s*(.*?)\s*(#.*)?$", line)
        if mm:
            m[mm.group(2)] = mm.group(3)
    return m


def engine_samples(log, role, year, tz):
    samples, pool = [], None
    for line in log.read_text().splitlines():
        if pool is None:
            p = VLLM_POOL.search(line) or SGLANG_POOL.search(line)
            if p:
                pool = int(p.group(1).replace(",", ""))
        v = VLLM_STATS.search(line)
        if v:
            mo, d, h, mi, s = map(int, v.groups()[:5])
            t = datetime.datetime(year, mo, d, h, mi, s, tzinfo=tz).timestamp()
            samples.append({"t": t, "kind": "stats", "running": int(v.group(7))})
            continue
        g = SGLANG_BATCH.search(line)
        if g:
            y, mo, d, h, mi, s = map(int, g.groups()[:6])
            if int(g.group(7)) != 0:
                continue  # the lowest rank's copy
            kind = g.group(8).lower()
            if (role == "prefill" and kind == "decode") or (role == "decode" and kind == "prefill"):
                continue
            t = datetime.datetime(y, mo, d, h, mi, s, tzinfo=tz).timestamp()
            samples.append({"t": t, "kind": kind, "running": int(g.group(9))})
    return samples, pool


LEAD_S, TAIL_S = 1.0, 5.0  # docs/run-format.md, "One engine log over several runs"


def rundir(d):
    m = manifest(d / "run.yaml")
    t0 = rfc3339(m["started_at"])
    dur = float(m["duration_s"])
    tz = zoneinfo.ZoneInfo(m.get("log_tz", "UTC"))
    year = int(m["started_at"][:4])
    turns, (gfirst, glast) = gateway(d / "gateway.jsonl")
    logs = []
    for key, role in (("prefill_log", "prefill"), ("decode_log", "decode")):
        if key in m:
            for n in re.findall(r"[^\[\],\s]+", m[key]):
                logs.append((d / n, role))
    if not logs:
        logs = [(d / "engine.log", "")]
    samples, pool = [], None
    for path, role in logs:
        s, p = engine_samples(path, role, year, tz)
        samples += s
        if pool is None and role != "decode":
            pool = p
    lo = min(0.0, gfirst - t0) - LEAD_S
    hi = max(dur, glast - t0) + TAIL_S
    rel = [dict(s, t=s["t"] - t0) for s in samples]
    kept = sorted((s for s in rel if lo <= s["t"] <= hi), key=lambda s: s["t"])
    return turns, {
        "samples": len(kept),
        "left_out_before": sum(1 for s in rel if s["t"] < lo),
        "left_out_after": sum(1 for s in rel if s["t"] > hi),
        "first_t": kept[0]["t"], "last_t": kept[-1]["t"],
        "kinds": sorted({s["kind"] for s in kept}),
        "running": sorted({s["running"] for s in kept}),
        "kv_pool_tokens": pool,
    }


FIXTURES = [
    # (directory, tool, file, how it must read, why not strictly)
    ("real/guidellm-0.3-pretty", "guidellm", "benchmarks.json", "lenient",
     "GuideLLM's authors stripped its requests to 1 of 46: it reads as sampled, which a strict reading refuses"),
    ("real/guidellm-0.5-sync", "guidellm", "benchmarks.json", "lenient",
     "an excerpt: 2 of the 10 sampled requests, which reads as sampled, refused strictly"),
    ("real/guidellm-0.5-poisson", "guidellm", "benchmarks.json", "lenient",
     "an excerpt: the last sampled successful request and the first incomplete one, which reads as sampled, refused strictly"),
    ("real/aiperf-0.10-qwen36", "aiperf", "profile_export.jsonl", "strict", None),
    ("real/inference-perf-slo-lab-smoke", "inference-perf", "per_request_lifecycle_metrics.json", "strict", None),
    ("real-wild/sglang-pd-2026", "run", "", "strict", None),
    ("real-wild/vllm-sweep-2026", "run", "", "strict", None),
]

READERS = {"guidellm": guidellm, "aiperf": aiperf, "inference-perf": inference_perf}


def expected(rel, tool, name, read, why):
    d = FIX / rel
    e = {"read": read}
    if why:
        e["lenient_why"] = why
    if tool == "run":
        turns, eng = rundir(d)
        e.update(kind="rundir", clock="unix", turns=by_sent(turns), engine=eng)
    else:
        e.update(kind="export", tool=tool, file=name,
                 clock="perf_counter" if tool == "inference-perf" else "unix",
                 turns=by_sent(READERS[tool](d / name)))
    return e


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for rel, tool, name, read, why in FIXTURES:
        text = json.dumps(expected(rel, tool, name, read, why), indent=1) + "\n"
        path = FIX / rel / "expect.json"
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
    if stale:
        sys.exit("stale: " + ", ".join(stale))


if __name__ == "__main__":
    main()
