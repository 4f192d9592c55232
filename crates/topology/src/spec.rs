//! What to build: the A–R–B topology of method §1, as data.

use serde::{Deserialize, Serialize};

use crate::hosts::{SenderHost, MAX_SENDER_HOSTS};
use crate::naming::{netns_name, validate_label, Role, RunId, PREFIX};
use crate::TopologyError;

/// Sysctl key of IPv4 forwarding.
pub const IP_FORWARD: &str = "net.ipv4.ip_forward";
/// Sysctl key of TCP ECN.
pub const TCP_ECN: &str = "net.ipv4.tcp_ecn";
// tcp_rmem's key and how A and B start their receive buffers: one type
// with the experiment's `[path] receive_buffer` (netlab-path-settings).
pub use netlab_path_settings::{ReceiveBuffer, TCP_RMEM};
// The veths' offloads and every link's MTU: one type with the experiment's
// `[path] offloads` and `[path] mtu` (netlab-path-settings).
pub use netlab_path_settings::{Offloads, DEFAULT_MTU};

use netlab_path_settings::{DEFAULT_PROBE_PORT, DEFAULT_TCP_PORT};

fn default_mtu() -> u32 {
    DEFAULT_MTU
}

fn one_host() -> u16 {
    1
}

fn is_one_host(n: &u16) -> bool {
    *n == 1
}

/// One topology to build: run id, scenario label, ports and the ECN
/// setting of A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologySpec {
    /// The run this topology belongs to.
    pub run_id: RunId,
    /// Scenario label (`[a-z0-9_]`, 1–24 characters).
    pub scenario: String,
    /// TCP load port (method §1: 46020).
    pub tcp_port: u16,
    /// UDP probe port (method §1: 46021).
    pub udp_port: u16,
    /// `net.ipv4.tcp_ecn` written in A (method §1.3: 1).
    pub tcp_ecn_a: u8,
    /// `net.ipv4.tcp_ecn` written in B (method §1.3: 1).
    pub tcp_ecn_b: u8,
    /// How A and B, the two ends that receive, start their TCP receive
    /// buffers (method §1.3: the kernel's, [`ReceiveBuffer::Kernel`]). A
    /// spec serialized before this field existed ran with the kernel's.
    #[serde(default)]
    pub receive_buffer: ReceiveBuffer,
    /// The segmentation and receive offloads of the four veth ends
    /// (method §1.6: the kernel's, [`Offloads::Kernel`]). A spec serialized
    /// before this field existed ran with the kernel's.
    #[serde(default)]
    pub offloads: Offloads,
    /// MTU of every veth end, set when the pairs are created (method §1.6:
    /// 1500, what the kernel gives a veth). A spec serialized before this
    /// field existed ran with 1500.
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// How many sender hosts sit behind R (method §1.7): 1 is the seed's
    /// A alone; hosts 2 on are added as [`crate::hosts`] plans. A spec
    /// serialized before this field existed had one, and one is not
    /// written, so the seed's spec reads as it always did.
    #[serde(default = "one_host", skip_serializing_if = "is_one_host")]
    pub sender_hosts: u16,
}

impl TopologySpec {
    /// The method §1 topology for `scenario` of run `run_id`.
    pub fn new(run_id: RunId, scenario: impl Into<String>) -> TopologySpec {
        TopologySpec {
            run_id,
            scenario: scenario.into(),
            tcp_port: DEFAULT_TCP_PORT,
            udp_port: DEFAULT_PROBE_PORT,
            tcp_ecn_a: 1,
            tcp_ecn_b: 1,
            receive_buffer: ReceiveBuffer::Kernel,
            offloads: Offloads::Kernel,
            mtu: DEFAULT_MTU,
            sender_hosts: 1,
        }
    }

    /// Checks the scenario label, the number of sender hosts and the MTU
    /// (before anything is built).
    pub fn validate(&self) -> Result<(), TopologyError> {
        validate_label(&self.scenario)?;
        SenderHost::new(self.sender_hosts)?;
        netlab_path_settings::check_mtu(self.mtu).map_err(|reason| TopologyError::InvalidMtu {
            mtu: self.mtu,
            reason,
        })
    }

    /// Namespace name of `role`: `nl-<runid>-<scenario>-<a|r|b>`.
    pub fn netns_name(&self, role: Role) -> String {
        netns_name(&self.run_id, &self.scenario, role)
    }

    /// The three namespace names in build order (A, R, B).
    pub fn netns_names(&self) -> [String; 3] {
        Role::ALL.map(|r| self.netns_name(r))
    }

    /// The sender hosts, host 1 (the seed's A) first.
    pub fn hosts(&self) -> impl Iterator<Item = SenderHost> {
        (1..=self.sender_hosts.clamp(1, MAX_SENDER_HOSTS))
            .map(|n| SenderHost::new(n).expect("within the plan"))
    }

    /// Namespace name of sender host `host`: `nl-<runid>-<scenario>-a`
    /// for host 1 (A), `…-a<i>` for host `i`.
    pub fn host_netns_name(&self, host: SenderHost) -> String {
        format!(
            "{PREFIX}{}-{}-{}",
            self.run_id,
            self.scenario,
            host.suffix()
        )
    }

    /// Every namespace of the topology in build order: A, R, B, then the
    /// hosts from 2 on. For the seed's one host, [`Self::netns_names`].
    pub fn all_netns_names(&self) -> Vec<String> {
        let mut names = self.netns_names().to_vec();
        names.extend(self.hosts().skip(1).map(|h| self.host_netns_name(h)));
        names
    }

    /// Sysctls written in each namespace, in order: (role, key, value).
    pub fn sysctl_writes(&self) -> Vec<(Role, &'static str, String)> {
        vec![
            (Role::A, IP_FORWARD, "0".into()),
            (Role::A, TCP_ECN, self.tcp_ecn_a.to_string()),
            (Role::R, IP_FORWARD, "1".into()),
            (Role::B, IP_FORWARD, "0".into()),
            (Role::B, TCP_ECN, self.tcp_ecn_b.to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_spec() {
        let s = TopologySpec::new(RunId::parse("7f3a").unwrap(), "1");
        assert_eq!((s.tcp_port, s.udp_port), (46020, 46021));
        assert_eq!(
            s.netns_names(),
            ["nl-7f3a-1-a", "nl-7f3a-1-r", "nl-7f3a-1-b"]
        );
        assert!(s.validate().is_ok());
        let writes = s.sysctl_writes();
        assert!(writes.contains(&(Role::R, IP_FORWARD, "1".into())));
        assert!(writes.contains(&(Role::A, TCP_ECN, "1".into())));
        assert!(!writes
            .iter()
            .any(|(r, k, _)| *r == Role::R && *k == TCP_ECN));
        assert!(TopologySpec::new(RunId::parse("7f3a").unwrap(), "a-b")
            .validate()
            .is_err());
    }

    #[test]
    fn receive_buffer_is_the_kernels_unless_asked() {
        let mut s = TopologySpec::new(RunId::parse("7f3a").unwrap(), "1");
        // The method's path: the kernel's tcp_rmem; raising it is opt-in.
        assert_eq!(s.receive_buffer, ReceiveBuffer::Kernel);
        s.receive_buffer = ReceiveBuffer::StartAtMax;
        // A spec written before the field existed ran with the kernel's.
        let mut j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["receive_buffer"], "start_at_max");
        j.as_object_mut().unwrap().remove("receive_buffer");
        let old: TopologySpec = serde_json::from_value(j).unwrap();
        assert_eq!(old.receive_buffer, ReceiveBuffer::Kernel);
    }

    #[test]
    fn offloads_and_mtu_are_the_kernels_unless_asked() {
        let mut s = TopologySpec::new(RunId::parse("7f3a").unwrap(), "1");
        assert_eq!((s.offloads, s.mtu), (Offloads::Kernel, 1500));
        s.offloads = Offloads::Off;
        s.mtu = 9000;
        let mut j = serde_json::to_value(&s).unwrap();
        assert_eq!(
            (j["offloads"].as_str(), j["mtu"].as_u64()),
            (Some("off"), Some(9000))
        );
        // A spec written before the fields existed ran with the kernel's.
        j.as_object_mut().unwrap().remove("offloads");
        j.as_object_mut().unwrap().remove("mtu");
        let old: TopologySpec = serde_json::from_value(j).unwrap();
        assert_eq!((old.offloads, old.mtu), (Offloads::Kernel, 1500));
        // A bad MTU is refused before anything is built.
        s.mtu = 67;
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("MTU 67") && e.contains("IPv4"), "{e}");
    }

    #[test]
    fn sender_hosts_add_namespaces_after_the_seeds_three() {
        let mut s = TopologySpec::new(RunId::parse("7f3a").unwrap(), "1");
        assert_eq!(s.all_netns_names(), s.netns_names().to_vec());
        // One host is not written: the seed's spec serializes as before.
        let j = serde_json::to_value(&s).unwrap();
        assert!(j.get("sender_hosts").is_none());
        assert_eq!(serde_json::from_value::<TopologySpec>(j).unwrap(), s);
        s.sender_hosts = 3;
        assert_eq!(
            s.all_netns_names(),
            [
                "nl-7f3a-1-a",
                "nl-7f3a-1-r",
                "nl-7f3a-1-b",
                "nl-7f3a-1-a2",
                "nl-7f3a-1-a3"
            ]
        );
        let j = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<TopologySpec>(&j).unwrap(), s);
        assert!(s.validate().is_ok());
        s.sender_hosts = MAX_SENDER_HOSTS + 1;
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("255 sender hosts"), "{e}");
        s.sender_hosts = 0;
        assert!(s.validate().is_err());
    }

    #[test]
    fn spec_serde_roundtrip() {
        let mut s = TopologySpec::new(RunId::parse("00ab12").unwrap(), "fq_codel");
        s.tcp_ecn_a = 0;
        let j = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<TopologySpec>(&j).unwrap(), s);
    }
}
