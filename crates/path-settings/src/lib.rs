//! netlab-path-settings: the settings of the A–R–B path that both the experiment
//! file (what is asked, `netlab-experiment`) and the topology (what is
//! built, `netlab-topology`) hold, defined once. Pure: no socket, no
//! namespace, no file; only serde, so the experiment parser uses it without
//! linking the netlink stack.
//!
//! [`ReceiveBuffer`] is how A and B start their TCP receive buffers
//! (method §1.3). It has two spellings, each owned here: the experiment
//! file's word (`[path] receive_buffer = "kernel" | "max"`,
//! [`ReceiveBuffer::file_word`]) and its serde name in results.json's
//! topology (`"kernel" | "start_at_max"`).
//!
//! ```
//! use netlab_path_settings::ReceiveBuffer;
//! let rb = ReceiveBuffer::from_file_word("max").unwrap();
//! assert_eq!(rb, ReceiveBuffer::StartAtMax);
//! assert_eq!(rb.file_word(), "max");
//! assert_eq!(
//!     rb.tcp_rmem("4096\t131072\t6291456"),
//!     Some(Ok("4096\t6291456\t6291456".to_string()))
//! );
//! assert_eq!(ReceiveBuffer::default(), ReceiveBuffer::Kernel);
//! ```
//!
//! [`Offloads`] says whether the veths keep the kernel's segmentation and
//! receive offloads (`[path] offloads = "kernel" | "off"`, method §1.6),
//! and [`check_mtu`] bounds the MTU every link gets (`[path] mtu`):
//!
//! ```
//! use netlab_path_settings::{check_mtu, Offloads, DEFAULT_MTU};
//! assert_eq!(Offloads::from_file_word("off"), Some(Offloads::Off));
//! assert_eq!(Offloads::default(), Offloads::Kernel);
//! assert!(check_mtu(DEFAULT_MTU).is_ok());
//! assert!(check_mtu(67).is_err()); // below IPv4's 68
//! ```
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};

/// Sysctl key of TCP's receive buffer sizes (min, default, max).
pub const TCP_RMEM: &str = "net.ipv4.tcp_rmem";

/// The TCP receive buffer a new connection starts with in A and B
/// (`net.ipv4.tcp_rmem`, per namespace; method §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiveBuffer {
    /// `"kernel"` (the default): the kernel's tcp_rmem, untouched (the
    /// method's path: the kernel's defaults plus the method's sysctls).
    #[default]
    Kernel,
    /// `"max"` in the experiment file; opt-in, a change to the path:
    /// tcp_rmem's default raised to its max (min and max as the namespace
    /// inherited them), so the receiver's window can open from the first
    /// round trip. It changes what any load does on the path, iperf3's
    /// included (method §1.3 has the measured effect).
    StartAtMax,
}

impl ReceiveBuffer {
    /// The experiment file's word (`[path] receive_buffer`).
    pub fn file_word(self) -> &'static str {
        match self {
            ReceiveBuffer::Kernel => "kernel",
            ReceiveBuffer::StartAtMax => "max",
        }
    }

    /// Reads the experiment file's word; `None` for any other word.
    pub fn from_file_word(word: &str) -> Option<ReceiveBuffer> {
        match word {
            "kernel" => Some(ReceiveBuffer::Kernel),
            "max" => Some(ReceiveBuffer::StartAtMax),
            _ => None,
        }
    }

    /// The tcp_rmem value to write, given the namespace's current one
    /// (`"min\tdefault\tmax"`); `None` when nothing is written.
    pub fn tcp_rmem(self, current: &str) -> Option<Result<String, String>> {
        match self {
            ReceiveBuffer::Kernel => None,
            ReceiveBuffer::StartAtMax => Some(
                match current
                    .split_whitespace()
                    .map(str::parse::<u32>)
                    .collect::<Result<Vec<_>, _>>()
                    .as_deref()
                {
                    // Tab-separated, as the kernel prints it back.
                    Ok([min, _, max]) => Ok(format!("{min}\t{max}\t{max}")),
                    _ => Err(format!("{TCP_RMEM} reads {current:?}, not three numbers")),
                },
            ),
        }
    }
}

/// What the kernel gives a new veth: `ETH_DATA_LEN`.
pub const DEFAULT_MTU: u32 = 1500;
/// The smallest MTU IPv4 works on (RFC 791: 68 bytes), also veth's minimum.
pub const MIN_MTU: u32 = 68;
/// The largest MTU a veth takes (`ETH_MAX_MTU`; less once XDP is attached,
/// which netlab never does).
pub const MAX_VETH_MTU: u32 = 65535;
/// Bytes of the Ethernet header a veth adds to each packet (no FCS, no
/// VLAN tag): what a qdisc sees is at most MTU + this without aggregation.
pub const LINK_HEADER: u32 = 14;
/// The TCP port of the first flow's load (A to B), unless the experiment
/// file gives one (`compare --tcp-port`).
pub const DEFAULT_TCP_PORT: u16 = 46020;
/// The UDP port of the stop-and-wait probe's echo in B, unless the
/// experiment file gives one (`compare --udp-port`).
pub const DEFAULT_PROBE_PORT: u16 = 46021;
/// The UDP port of the isochronous probe's echo in B, unless the
/// experiment file gives one.
pub const DEFAULT_ISO_PROBE_PORT: u16 = 46022;

/// Checks an MTU for every link of the path: the reason when it is outside
/// `MIN_MTU..=MAX_VETH_MTU`.
pub fn check_mtu(mtu: u32) -> Result<(), String> {
    if mtu < MIN_MTU {
        Err(format!(
            "{mtu} is below {MIN_MTU}, the smallest MTU IPv4 works on"
        ))
    } else if mtu > MAX_VETH_MTU {
        Err(format!(
            "{mtu} is above {MAX_VETH_MTU}, the largest MTU a veth takes"
        ))
    } else {
        Ok(())
    }
}

/// The veths' segmentation and receive offloads (GSO, TSO, GRO, LRO, the
/// UDP ones; method §1.6). With them on, one skb in R's queue can hold
/// several segments, so the queue holds aggregates, not packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Offloads {
    /// `"kernel"` (the default): as the kernel leaves a new veth (GSO, TSO
    /// and GRO on); nothing is changed, the state is still read back.
    #[default]
    Kernel,
    /// `"off"`: every aggregation feature off on every veth end of A, R
    /// and B, so each skb is one packet of at most MTU + 14 bytes.
    Off,
}

impl Offloads {
    /// The experiment file's word (`[path] offloads`), also its serde name.
    pub fn file_word(self) -> &'static str {
        match self {
            Offloads::Kernel => "kernel",
            Offloads::Off => "off",
        }
    }

    /// Reads the experiment file's word; `None` for any other word.
    pub fn from_file_word(word: &str) -> Option<Offloads> {
        match word {
            "kernel" => Some(Offloads::Kernel),
            "off" => Some(Offloads::Off),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offload_words_and_serde_names_agree() {
        for o in [Offloads::Kernel, Offloads::Off] {
            assert_eq!(Offloads::from_file_word(o.file_word()), Some(o));
            let json = serde_json::to_string(&o).unwrap();
            assert_eq!(json, format!("\"{}\"", o.file_word()));
            assert_eq!(serde_json::from_str::<Offloads>(&json).unwrap(), o);
        }
        assert_eq!(Offloads::from_file_word("on"), None);
        assert_eq!(Offloads::from_file_word("Off"), None);
    }

    #[test]
    fn mtu_bounds_are_ipv4s_floor_and_veths_ceiling() {
        assert!(check_mtu(68).is_ok());
        assert!(check_mtu(1500).is_ok());
        assert!(check_mtu(65535).is_ok());
        assert!(check_mtu(67).unwrap_err().contains("IPv4"));
        assert!(check_mtu(65536).unwrap_err().contains("veth"));
        assert!(check_mtu(0).is_err());
    }

    #[test]
    fn the_file_words_read_back() {
        for rb in [ReceiveBuffer::Kernel, ReceiveBuffer::StartAtMax] {
            assert_eq!(ReceiveBuffer::from_file_word(rb.file_word()), Some(rb));
        }
        assert_eq!(ReceiveBuffer::from_file_word("start_at_max"), None);
        assert_eq!(ReceiveBuffer::from_file_word("Max"), None);
    }

    #[test]
    fn serde_names_are_the_topology_spec_words() {
        // results.json's `topology.receive_buffer`, unchanged since the
        // field was added to netlab-topology's TopologySpec.
        let words = [
            (ReceiveBuffer::Kernel, "\"kernel\""),
            (ReceiveBuffer::StartAtMax, "\"start_at_max\""),
        ];
        for (rb, json) in words {
            assert_eq!(serde_json::to_string(&rb).unwrap(), json);
            assert_eq!(serde_json::from_str::<ReceiveBuffer>(json).unwrap(), rb);
        }
    }

    #[test]
    fn receive_buffer_raises_the_default_to_the_max_only() {
        let at_max = ReceiveBuffer::StartAtMax;
        assert_eq!(
            at_max.tcp_rmem("4096\t131072\t6291456"),
            Some(Ok("4096\t6291456\t6291456".into()))
        );
        assert_eq!(
            at_max.tcp_rmem("4096 131072 33554432\n"),
            Some(Ok("4096\t33554432\t33554432".into()))
        );
        assert!(matches!(at_max.tcp_rmem("4096 131072"), Some(Err(_))));
        assert!(matches!(at_max.tcp_rmem("a b c"), Some(Err(_))));
        assert_eq!(ReceiveBuffer::Kernel.tcp_rmem("4096 131072 6291456"), None);
    }
}
