//! Fixture tool (not part of the product): captures real RTM_GETQDISC dump
//! bytes of R's r1 with the method TBF and a given arm, under a UDP burst
//! from A to B, and iproute2's view of the same state for comparison.
//!
//! ```sh
//! cargo build -p netlab-qdisc --example qdisc_capture
//! # host kernel
//! target/debug/examples/qdisc_capture fixtures/qdisc host_tbf_pfifo pfifo limit 256
//! # guest kernel (boots user-mode-linux via netlab-guest, runs this tool inside)
//! target/debug/examples/qdisc_capture --guest fixtures/qdisc guest_tbf_fq_codel \
//!     fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn
//! ```
//!
//! Writes `<name>.requests.json`, `<name>.loaded.hex` (dump 200 ms after
//! the burst, queue standing), `<name>.drained.hex` (dump once the arm's
//! queue is empty) and `<name>.drained.tc.json` (`tc -s -d -j qdisc show
//! dev r1` right after the drained dump; nothing moves then).

use std::net::{SocketAddrV4, UdpSocket};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use netlab_qdisc::{configure, read_psched, QdiscSocket};
use netlab_qdisc_model::{Arm, BottleneckSpec};
use netlab_topology::addresses::{B_ADDR, R_B_IF};
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let guest = args.first().is_some_and(|a| a == "--guest");
    if guest {
        args.remove(0);
    }
    if args.len() < 3 {
        eprintln!("usage: qdisc_capture [--guest] <out_dir> <name> <arm words...>");
        std::process::exit(2);
    }
    if guest {
        let exe = std::env::current_exe().expect("current exe");
        let out = netlab_guest::Guest::new(exe)
            .modules(["sch_tbf", "sch_fq_codel", "veth"])
            .args(args.clone())
            .current_dir(std::env::current_dir().expect("cwd"))
            .deadline(Duration::from_secs(120))
            .run()
            .expect("guest run");
        println!(
            "guest {} ({})\n{}\n{}",
            out.release, out.status, out.stdout, out.stderr
        );
        if !out.status.success() {
            println!("--- console ---\n{}", out.console_log);
            std::process::exit(1);
        }
        return;
    }
    let out_dir = PathBuf::from(&args[0]);
    let name = &args[1];
    let arm = Arm::parse(&args[2..].join(" ")).expect("arm words");
    let ect = matches!(arm, Arm::FqCodel(_));

    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "qdisc_capture")).expect("A-R-B");
    let done = configure(&topo.r, R_B_IF, &BottleneckSpec::spec(arm)).expect("configure");
    std::fs::write(
        out_dir.join(format!("{name}.requests.json")),
        serde_json::to_string_pretty(&done.requests).unwrap(),
    )
    .unwrap();
    let sock = QdiscSocket::open_in(&topo.r).expect("socket in R");

    topo.a
        .run(|| {
            let sock = UdpSocket::bind("0.0.0.0:0").expect("bind in A");
            if ect {
                nix::sys::socket::setsockopt(&sock, nix::sys::socket::sockopt::Ipv4Tos, &0x02)
                    .expect("ECT(0)");
            }
            let payload = vec![0x5au8; 1200];
            for _ in 0..600 {
                let _ = sock.send_to(&payload, SocketAddrV4::new(B_ADDR, 46099));
            }
        })
        .expect("burst from A");
    std::thread::sleep(Duration::from_millis(200));
    let loaded = sock.dump_raw().expect("dump");
    std::fs::write(
        out_dir.join(format!("{name}.loaded.hex")),
        hex::encode(&loaded) + "\n",
    )
    .unwrap();

    let deadline = Instant::now() + Duration::from_secs(10);
    let drained = loop {
        let raw = sock.dump_raw().expect("dump");
        let rb = netlab_qdisc_model::Readback::from_dump(&raw, done.ifindex, None, &read_psched())
            .expect("decode");
        if rb
            .stats_of(netlab_qdisc_model::ARM_HANDLE)
            .is_some_and(|s| s.qlen == 0)
        {
            break raw;
        }
        assert!(Instant::now() < deadline, "queue did not drain");
        std::thread::sleep(Duration::from_millis(50));
    };
    let tc = Command::new("tc")
        .args([
            "-n",
            topo.r.name(),
            "-s",
            "-d",
            "-j",
            "qdisc",
            "show",
            "dev",
            R_B_IF,
        ])
        .output()
        .expect("tc");
    std::fs::write(
        out_dir.join(format!("{name}.drained.hex")),
        hex::encode(&drained) + "\n",
    )
    .unwrap();
    std::fs::write(out_dir.join(format!("{name}.drained.tc.json")), &tc.stdout).unwrap();
    println!(
        "kernel {} psched {:?} ifindex {}: wrote {name}.* to {}",
        netlab_os::kernel_release().unwrap_or_default(),
        read_psched(),
        done.ifindex,
        out_dir.display()
    );
    println!("tc: {}", String::from_utf8_lossy(&tc.stdout));
}
