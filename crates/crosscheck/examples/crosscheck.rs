//! Runs the cross-check and writes `crosscheck.md` +
//! `crosscheck.json` into `--out`.
//!
//! ```text
//! cargo run --release -p netlab-crosscheck --example crosscheck -- \
//!     [--rounds 10] [--out /tmp/crosscheck] [--kernel uml|host] [--short]
//!     [--arms pfifo|fq_codel|both] [--loads netlab,iperf3,netlab:block=16384,iperf3:l=16384,netlab:recv=131072,netlab:delay=100,netlab:prime=37:delay=50,netlab:rbuf=0,iperf3:rbuf=0]
//!     [--tcp-sample-ms 200] [--offloads kernel|off]
//! cargo run --release -p netlab-crosscheck --example crosscheck -- --render DIR
//!     (rewrites DIR/crosscheck.md from DIR/crosscheck.json)
//!     [--no-irtt] [--no-readback] [--iso-probe]
//! ```
//!
//! `--kernel uml` (default) boots the user-mode-linux guest and runs the
//! same binary inside it (the output folder must be under /tmp or /run; it
//! is shared into the guest); `--kernel host` runs here (pfifo only).

use std::path::PathBuf;
use std::time::Duration;

use netlab_crosscheck::{
    run_to_dir, CrosscheckConfig, CrosscheckRun, CrosscheckTimeline, Iperf3Load, Load, NetlabLoad,
};
use netlab_topology::ReceiveBuffer;

fn die(msg: &str) -> ! {
    eprintln!("crosscheck: {msg}");
    std::process::exit(2)
}

/// `rbuf=0`: the kernel's tcp_rmem; `rbuf=1`: its default raised to its max.
fn rbuf(v: usize) -> ReceiveBuffer {
    match v {
        0 => ReceiveBuffer::Kernel,
        1 => ReceiveBuffer::StartAtMax,
        _ => die("rbuf: 0 (kernel's tcp_rmem) or 1 (default raised to max)"),
    }
}

fn parse_load(s: &str) -> Load {
    let mut parts = s.split(':');
    let tool = parts.next().unwrap_or_default();
    let kv: Vec<(String, usize)> = parts
        .flat_map(|p| p.split(','))
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .unwrap_or_else(|| die(&format!("load option {p:?}: want key=value")));
            (
                k.to_string(),
                v.parse()
                    .unwrap_or_else(|_| die(&format!("load option {p:?}: not a number"))),
            )
        })
        .collect();
    match tool {
        "netlab" => {
            let mut n = NetlabLoad::default();
            for (k, v) in kv {
                match k.as_str() {
                    "block" => n.block_size = v,
                    "recv" => n.recv_buf = v,
                    "delay" => n.start_delay_ms = v as u64,
                    "prime" => n.prime_bytes = v,
                    "rbuf" => n.receive_buffer = Some(rbuf(v)),
                    _ => die(&format!(
                        "netlab load option {k:?}: block, recv, delay, prime or rbuf"
                    )),
                }
            }
            Load::Netlab(n)
        }
        "ordinary" | "netlab>ordinary" | "ordinary>netlab" => {
            use netlab_crosscheck::{End, OrdinaryLoad};
            let (sender, receiver) = match tool {
                "ordinary" => (End::Ordinary, End::Ordinary),
                "netlab>ordinary" => (End::Netlab, End::Ordinary),
                _ => (End::Ordinary, End::Netlab),
            };
            let mut o = OrdinaryLoad {
                sender,
                receiver,
                receive_buffer: None,
            };
            for (k, v) in kv {
                match k.as_str() {
                    "rbuf" => o.receive_buffer = Some(rbuf(v)),
                    _ => die(&format!("{tool} load option {k:?}: rbuf")),
                }
            }
            Load::Ordinary(o)
        }
        "iperf3" => {
            let mut i = Iperf3Load::default();
            for (k, v) in kv {
                match k.as_str() {
                    "l" => i.length = Some(v),
                    "rbuf" => i.receive_buffer = Some(rbuf(v)),
                    _ => die(&format!("iperf3 load option {k:?}: l or rbuf")),
                }
            }
            Load::Iperf3(i)
        }
        _ => die(&format!(
            "load {tool:?}: netlab, iperf3, ordinary, netlab>ordinary or ordinary>netlab"
        )),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cfg = CrosscheckConfig::new(10);
    let mut out = PathBuf::from("/tmp/netlab-crosscheck");
    let mut kernel = "uml".to_string();
    let mut loads_text: Option<String> = None;
    let mut i = 0;
    let val = |i: usize| {
        args.get(i + 1)
            .cloned()
            .unwrap_or_else(|| die(&format!("{} needs a value", args[i])))
    };
    while i < args.len() {
        match args[i].as_str() {
            "--render" => {
                // Re-render crosscheck.md from a run's crosscheck.json.
                let dir = PathBuf::from(val(i));
                let run = CrosscheckRun::read(&dir.join("crosscheck.json"))
                    .unwrap_or_else(|e| die(&e.to_string()));
                let md = dir.join("crosscheck.md");
                std::fs::write(&md, run.markdown())
                    .unwrap_or_else(|e| die(&format!("{}: {e}", md.display())));
                println!("wrote {}", md.display());
                return;
            }
            "--rounds" => {
                cfg.rounds = val(i).parse().unwrap_or_else(|_| die("--rounds: a number"));
                i += 1;
            }
            "--out" => {
                out = PathBuf::from(val(i));
                i += 1;
            }
            "--kernel" => {
                kernel = val(i);
                i += 1;
            }
            "--short" => cfg.timeline = CrosscheckTimeline::SHORT,
            "--arms" => {
                let a = val(i);
                let all = CrosscheckConfig::new(1).arms;
                cfg.arms = match a.as_str() {
                    "pfifo" => vec![all[0].clone()],
                    "fq_codel" => vec![all[1].clone()],
                    "both" => all,
                    _ => die("--arms: pfifo, fq_codel or both"),
                };
                i += 1;
            }
            "--loads" => {
                loads_text = Some(val(i));
                i += 1;
            }
            "--no-irtt" => cfg.irtt = false,
            "--iso-probe" => cfg.iso_probe = true,
            "--tcp-sample-ms" => {
                cfg.tcp_sample_ms = val(i)
                    .parse()
                    .unwrap_or_else(|_| die("--tcp-sample-ms: a number"));
                i += 1;
            }
            "--no-readback" => cfg.readback_check = false,
            "--offloads" => {
                cfg.offloads = netlab_topology::Offloads::from_file_word(&val(i))
                    .unwrap_or_else(|| die("--offloads: kernel or off"));
                i += 1;
            }
            other => die(&format!("unknown argument {other:?}")),
        }
        i += 1;
    }
    if let Some(t) = &loads_text {
        cfg.loads = t
            .split(';')
            .flat_map(|s| s.split('+'))
            .map(parse_load)
            .collect();
    }
    if let Err(e) = cfg.validate() {
        die(&e.to_string());
    }
    if kernel == "uml" && !netlab_guest::in_guest() {
        let per = cfg.timeline.end().as_secs_f64() + 12.0;
        let n = cfg.schedule().len() as f64;
        let deadline = Duration::from_secs_f64(per * n + 120.0);
        std::fs::create_dir_all(&out).unwrap_or_else(|e| die(&format!("{}: {e}", out.display())));
        let exe = std::env::current_exe().unwrap_or_else(|e| die(&e.to_string()));
        eprintln!("crosscheck: booting the guest kernel (deadline {deadline:?})");
        let outcome = netlab_guest::Guest::new(exe)
            .args(std::env::args().skip(1))
            .modules(["veth", "sch_tbf", "sch_fq_codel"])
            .share_dir(&out)
            .mem("1024M")
            .stream_output(true)
            .deadline(deadline)
            .run()
            .unwrap_or_else(|e| die(&format!("guest: {e}")));
        eprintln!(
            "crosscheck: guest {} exited {}",
            outcome.release, outcome.status
        );
        std::process::exit(if outcome.status.success() { 0 } else { 1 });
    }
    // Rewritten after every scenario: a run cut short keeps what it measured.
    let result =
        run_to_dir(&cfg, &out, |line| eprintln!("{line}")).unwrap_or_else(|e| die(&e.to_string()));
    let (md, json) = (out.join("crosscheck.md"), out.join("crosscheck.json"));
    println!(
        "{}\n\nwrote {} and {}",
        result.markdown(),
        md.display(),
        json.display()
    );
}
