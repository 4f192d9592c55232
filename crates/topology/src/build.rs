//! The ordered list of rtnetlink requests that builds A–R–B (pure).

use std::os::fd::RawFd;

use crate::addresses::*;
use crate::naming::Role;
use crate::rtnl::{self, address, default_route, link_up, veth_end, Request, LOOPBACK_IFINDEX};
use crate::spec::TopologySpec;

/// Fds of the open namespace files of A, R and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetnsFds {
    /// A's namespace file.
    pub a: RawFd,
    /// R's namespace file.
    pub r: RawFd,
    /// B's namespace file.
    pub b: RawFd,
}

/// The requests that build the topology, each with the namespace whose
/// rtnetlink socket sends it. Both veth pairs are created from R's socket
/// with each end placed straight into its namespace; R's links come up
/// before A's and B's routes are added.
pub fn build_requests(spec: &TopologySpec, fds: NetnsFds) -> Vec<(Role, Request)> {
    let [na, nr, nb] = spec.netns_names();
    vec![
        (
            Role::R,
            rtnl::new_veth_pair(
                &veth_end(A_IF, fds.a, A_IFINDEX),
                &veth_end(R_A_IF, fds.r, R_A_IFINDEX),
                spec.mtu,
                format!(
                    "creating veth {A_IF} (netns {na}) / {R_A_IF} (netns {nr}) with MTU {}",
                    spec.mtu
                ),
            ),
        ),
        (
            Role::R,
            rtnl::new_veth_pair(
                &veth_end(R_B_IF, fds.r, R_B_IFINDEX),
                &veth_end(B_IF, fds.b, B_IFINDEX),
                spec.mtu,
                format!(
                    "creating veth {R_B_IF} (netns {nr}) / {B_IF} (netns {nb}) with MTU {}",
                    spec.mtu
                ),
            ),
        ),
        (Role::R, link_up(LOOPBACK_IFINDEX, "lo", &nr)),
        (Role::R, address(R_A_IFINDEX, R_A_ADDR, R_A_IF, &nr)),
        (Role::R, address(R_B_IFINDEX, R_B_ADDR, R_B_IF, &nr)),
        (Role::R, link_up(R_A_IFINDEX, R_A_IF, &nr)),
        (Role::R, link_up(R_B_IFINDEX, R_B_IF, &nr)),
        (Role::A, link_up(LOOPBACK_IFINDEX, "lo", &na)),
        (Role::A, address(A_IFINDEX, A_ADDR, A_IF, &na)),
        (Role::A, link_up(A_IFINDEX, A_IF, &na)),
        (Role::A, default_route(R_A_ADDR, &na)),
        (Role::B, link_up(LOOPBACK_IFINDEX, "lo", &nb)),
        (Role::B, address(B_IFINDEX, B_ADDR, B_IF, &nb)),
        (Role::B, link_up(B_IFINDEX, B_IF, &nb)),
        (Role::B, default_route(R_B_ADDR, &nb)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming::RunId;

    #[test]
    fn build_requests_name_every_step_and_order_r_first() {
        let spec = TopologySpec::new(RunId::parse("7f3a").unwrap(), "1");
        let requests = build_requests(&spec, NetnsFds { a: 3, r: 4, b: 5 });
        assert_eq!(requests.len(), 15);
        let steps: Vec<&str> = requests.iter().map(|(_, r)| r.step.as_str()).collect();
        assert!(steps.contains(&"adding 10.20.1.2/24 to a0 in netns nl-7f3a-1-a"));
        assert!(steps.contains(&"adding default route via 10.20.2.1 in netns nl-7f3a-1-b"));
        assert!(steps.contains(&"setting lo up in netns nl-7f3a-1-r"));
        let first_a = requests.iter().position(|(r, _)| *r == Role::A).unwrap();
        assert!(requests[..first_a].iter().all(|(r, _)| *r == Role::R));
        // no request is sent from the host namespace: every role is A, R or B
        assert_eq!(
            requests
                .iter()
                .filter(|(_, r)| r.step.starts_with("creating veth"))
                .count(),
            2
        );
    }
}
