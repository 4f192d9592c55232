#!/bin/sh
# Builds the seed corpora of the fuzz targets from the real fixtures under
# fixtures/ (and, for the /proc and module-list parsers, from this machine's
# own /proc and the pinned guest kernel's module lists when present).
#
#   sh fuzz/seed-corpora.sh            # writes fuzz/corpus/<target>/seed-*
#   sh fuzz/seed-corpora.sh experiment_toml report_results   # only these
#
# Seeds are named seed-<what>; files the fuzzer adds (sha1 names) are left
# alone. Needs python3 (hex and netlink framing). Minimise afterwards with
# `cargo +nightly fuzz cmin -a <target>` (see fuzz/README.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$root" "$@" <<'PY'
import glob, gzip, json, os, struct, sys

root = sys.argv[1]
only = set(sys.argv[2:])
fx = os.path.join(root, "fixtures")
out = os.path.join(root, "fuzz", "corpus")

def put(target, name, data):
    if only and target not in only:
        return
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)

def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()

# --- ecn_frames: [mode][len u16 BE][pkttype][orig_len u32 BE][bytes]...
PKTTYPE = {"in": 0, "out": 4}
frames = {}
for p in sorted(glob.glob(os.path.join(fx, "ecn", "*.hex"))):
    meta, hexline = {}, ""
    for line in read(p).splitlines():
        if line.startswith("# direction="):
            meta = dict(kv.split("=", 1) for kv in line[2:].split())
        elif line and not line.startswith("#"):
            hexline += line.strip()
    body = bytes.fromhex(hexline)
    d = meta.get("direction", "in")
    pkttype = PKTTYPE.get(d, int(d[7:]) if d.startswith("pkttype") else 0)
    rec = struct.pack(">HBI", len(body), pkttype, int(meta.get("orig_len", len(body)))) + body
    name = os.path.basename(p)[:-4]
    frames[name] = rec
    put("ecn_frames", name, b"\x00" + rec)
flow = b"".join(frames[n] for n in ["host-syn-ece-cwr", "host-synack-ece", "guest-ce-data",
                                    "guest-ack-ece", "guest-cwr-data", "host-arp-request",
                                    "host-tcp-gro-truncated"] if n in frames)
put("ecn_frames", "whole-flow-lock", b"\x00" + flow)
put("ecn_frames", "whole-flow-known-port", b"\x01" + flow)

# --- qdisc dumps (binary) for qdisc_dump and topology_rtnl; hex text for qdisc_hex
requests = []
for p in sorted(glob.glob(os.path.join(fx, "qdisc", "*.requests.json"))):
    requests += json.load(open(p))
for p in sorted(glob.glob(os.path.join(fx, "qdisc", "*.hex"))):
    text = read(p)
    name = os.path.basename(p)[:-4]
    raw = bytes.fromhex("".join(l for l in text.split() if not l.startswith("#")))
    put("qdisc_dump", name, raw)
    put("topology_rtnl", "qdisc-" + name, raw)
    put("qdisc_hex", name, text)
for i, r in enumerate(requests):
    raw = bytes.fromhex(r["netlink_hex"])
    put("qdisc_dump", "request-%d-%s" % (i, r["kind"]), raw)
    put("qdisc_hex", "request-%d-%s" % (i, r["kind"]), r["netlink_hex"])

# --- topology dumps; the ethtool answers also seed topology_ethtool
for p in sorted(glob.glob(os.path.join(fx, "topology", "*.bin"))):
    put("topology_rtnl", os.path.basename(p)[:-4], read(p, "rb"))
    if "ethtool" in p or "features" in p:
        put("topology_ethtool", os.path.basename(p)[:-4], read(p, "rb"))

# --- sock_diag dump, and the INET_DIAG_INFO attribute inside it
diag = read(os.path.join(fx, "tcpload", "sock_diag_dump_reno_tbf5mbit.bin"), "rb")
put("tcpload_sock_diag", "reno_tbf5mbit", diag)
off = 0
while off + 16 <= len(diag):
    ln, ty = struct.unpack_from("=IH", diag, off)
    if ln < 16:
        break
    if ty == 20:  # SOCK_DIAG_BY_FAMILY answer: inet_diag_msg (72 bytes) + attrs
        a = off + 16 + 72
        while a + 4 <= off + ln:
            alen, atype = struct.unpack_from("=HH", diag, a)
            if alen < 4:
                break
            if atype & 0x3FFF == 2:  # INET_DIAG_INFO
                put("tcpload_tcp_info", "reno_tbf5mbit", diag[a + 4:a + alen])
            a += (alen + 3) & ~3
    off += (ln + 3) & ~3

# --- tc words: arm and tbf argv of the captured requests, and their values
arm_words, tbf_words = [], []
for r in requests:
    argv = r["tc_argv"]
    words = argv[argv.index(r["kind"]):]
    (tbf_words if r["kind"] == "tbf" else arm_words).append(" ".join(words))
# tc's own 40gbit request of fixtures/qdisc/requests (command in its README)
tbf_words += ["tbf rate 40gbit burst 1mb limit 4mb"]
arm_words += ["pfifo limit 256",
              "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn"]
# every other kind Arm::parse knows, with its documented options
arm_words += ["bfifo limit 64kb", "codel limit 1000 target 5ms interval 100ms ecn",
              "fq limit 10000 flow_limit 100 quantum 3028",
              "cake bandwidth 5mbit besteffort flows",
              "pie limit 1000 target 15ms ecn", "fq_pie limit 10240 target 15ms ecn"]
for i, w in enumerate(arm_words):
    put("qdisc_arm", "arm-%d" % i, w)
for i, w in enumerate(tbf_words):
    put("qdisc_tbf", "tbf-%d" % i, w)
values = sorted({v for w in arm_words + tbf_words for v in w.split() if v[0].isdigit()})
for v in values:
    for t in ("qdisc_rate", "qdisc_size", "qdisc_time"):
        put(t, "word-" + v, v)

# --- /proc/net/psched of this host (the tick factors qdisc decoding uses)
if os.path.exists("/proc/net/psched"):
    put("qdisc_psched", "host", read("/proc/net/psched"))
put("qdisc_psched", "modern", "000003e8 00000040 000f4240 3b9aca00\n")

# --- probe: the fixtures' RTTs and timeouts replayed against the schedule:
# records [advance_ms][len][datagram]; len 0 = just advance and poll.
def adv(ms):
    b = b""
    while ms > 255:
        b += b"\xff\x00"; ms -= 255
    return b + bytes([int(ms), 0])
for p in sorted(glob.glob(os.path.join(fx, "probe", "*.json"))):
    reqs = json.load(open(p)).get("requests", [])
    seq, b = 0, adv(0)  # first poll sends seq 0
    for r in reqs:
        kind = r["outcome"]["kind"]
        if kind == "reply" and r.get("rtt_ms") is not None:
            rtt = min(999, max(1, round(r["rtt_ms"])))
            last = min(rtt, 255)
            b += adv(rtt - last) + bytes([last, 4]) + struct.pack(">I", seq)
            b += adv(max(0, 200 - rtt))  # next send after the spacing
        else:
            b += adv(1000) + adv(1)  # timeout, then the next send
        seq += 1
    b += b"\x01\x04" + struct.pack(">I", 12345)  # a stale, wrong-seq reply
    put("probe_replies", os.path.basename(p)[:-5], b)

# --- receipts state file (the shape write_state writes)
state = {"schema": 1, "run_id": "abcd01", "owner": {"pid": 4242, "start_time": 987654},
         "resources": [{"kind": "namespace", "name": "nl-abcd01-1-a"},
                       {"kind": "child", "pid": 4243, "start_time": 987700, "label": "receiver"},
                       {"kind": "guest", "pid": 4250, "start_time": 987800},
                       {"kind": "state_file", "path": "/run/netlab/abcd01.json"}]}
put("receipts_state", "full", json.dumps(state, indent=2))
put("receipts_state", "wrong-schema", json.dumps(dict(state, schema=2)))

# --- /proc/<pid>/stat lines: this machine's, and an odd comm
for pid in ("self", "1"):
    try:
        put("receipts_proc_stat", "proc-" + pid, read("/proc/%s/stat" % pid))
    except OSError:
        pass
put("receipts_proc_stat", "odd-comm",
    "4242 (we ird) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615")

# --- namespace names
for n in ["nl-abcd01-1-a", "nl-abcd01-pfifo_r1-r", "nl-7f3a-scratch", "nl-deadbeef-x-b", "ns-foreign"]:
    put("topology_names", n, n)

# --- guest module lists: the pinned kernel's, cut to a few lines each
for dep in sorted(glob.glob("/usr/lib/uml/modules/*/modules.dep")):
    d = os.path.dirname(dep)
    lines = [l for l in read(dep).splitlines() if "sch_" in l or "veth" in l or "tcp_" in l][:20]
    bpath = os.path.join(d, "modules.builtin")
    builtin = read(bpath).splitlines()[:20] if os.path.exists(bpath) else []
    put("guest_modules", "uml-" + os.path.basename(d), "\n".join(lines) + "\n\0" + "\n".join(builtin) + "\n")
put("guest_modules", "small", "kernel/net/sched/sch_tbf.ko:\nkernel/net/sched/sch_fq_codel.ko: kernel/x.ko\n\0kernel/net/sched/sch_fifo.ko\n")

# --- os_wire: [family header length][bytes]: the qdisc dumps and
# requests (tcmsg, 20 bytes), the topology dumps (ifinfomsg 16, ifaddrmsg 8,
# rtmsg 12), and the sock_diag dump (inet_diag_msg, 72 % 32 = 8)
HDR = {"link": 16, "addr": 8, "route": 12}
for p in sorted(glob.glob(os.path.join(fx, "qdisc", "*.hex"))):
    raw = bytes.fromhex("".join(l.strip() for l in read(p).splitlines()
                                if l.strip() and not l.startswith("#")))
    put("os_wire", "qdisc-" + os.path.basename(p)[:-4], bytes([20]) + raw)
for p in sorted(glob.glob(os.path.join(fx, "topology", "*.bin"))):
    name = os.path.basename(p)[:-4]
    hl = next((v for k, v in HDR.items() if k in name), 16)
    put("os_wire", "rtnl-" + name, bytes([hl]) + read(p, "rb"))
put("os_wire", "sock-diag", bytes([72 % 32]) + diag)
# an NLMSG_ERROR with an extended ack (NLM_F_ACK_TLVS | NLM_F_CAPPED)
echo = struct.pack("=IHHII", 36, 36, 0x5, 1, 0)
tlv = struct.pack("=HH", 4 + 12, 1) + b"bad request\0"
body = struct.pack("=i", -22) + echo + tlv
put("os_wire", "error-ext-ack",
    bytes([0]) + struct.pack("=IHHII", 16 + len(body), 2, 0x300, 1, 0) + body)

# --- experiment_toml: the shipped experiments
for p in sorted(glob.glob(os.path.join(root, "experiments", "*.toml"))):
    put("experiment_toml", os.path.basename(p)[:-5], read(p))

# --- report_results: results.json cut small (every list to its first two
# items, one scenario per arm), from the golden orchestrator run (schema 1),
# the report fixture (schema 1) and the shard fixture (schema 2, a run of
# today); plus a future schema. Every field is kept (the typed reader
# refuses a file at its first missing field); hex dumps are cut to 64
# characters.
def cut(x):
    if isinstance(x, dict):
        return {k: cut(v) for k, v in x.items()}
    if isinstance(x, list):
        return [cut(v) for v in x[:2]]
    if isinstance(x, str) and all(c in "0123456789abcdef" for c in x):
        return x[:64]
    return x
def small_results(doc):
    seen, keep = set(), []
    for s in doc.get("scenarios", []):
        arm = json.dumps(s.get("arm"), sort_keys=True)
        if arm not in seen:
            seen.add(arm)
            keep.append(s)
    return dict(cut(doc), scenarios=[cut(s) for s in keep])
golden = json.load(open(os.path.join(fx, "orchestrator", "golden", "results.json")))
put("report_results", "golden", json.dumps(small_results(golden)))
uml = json.loads(gzip.open(os.path.join(fx, "report", "run-uml-3rounds", "results.json.gz")).read())
put("report_results", "uml-3rounds", json.dumps(small_results(uml)))
shard = json.load(open(os.path.join(fx, "orchestrator", "shard", "results.json")))
put("report_results", "shard-v2", json.dumps(small_results(shard)))
put("report_results", "future-schema", json.dumps(dict(small_results(golden), schema_version=99)))
PY
