//! The seed's address plan (method §1): the interfaces, interface
//! indexes and addresses of A, R and B on their two /24 links. Hosts from
//! 2 on take theirs from [`crate::hosts`].

use std::net::Ipv4Addr;

/// A's interface (toward R).
pub const A_IF: &str = "a0";
/// R's interface toward A.
pub const R_A_IF: &str = "r0";
/// R's interface toward B (the bottleneck egress).
pub const R_B_IF: &str = "r1";
/// B's interface (toward R).
pub const B_IF: &str = "b0";

/// A's address, 10.20.1.2/24.
pub const A_ADDR: Ipv4Addr = Ipv4Addr::new(10, 20, 1, 2);
/// R's address toward A, 10.20.1.1/24 (A's gateway).
pub const R_A_ADDR: Ipv4Addr = Ipv4Addr::new(10, 20, 1, 1);
/// R's address toward B, 10.20.2.1/24 (B's gateway).
pub const R_B_ADDR: Ipv4Addr = Ipv4Addr::new(10, 20, 2, 1);
/// B's address, 10.20.2.2/24.
pub const B_ADDR: Ipv4Addr = Ipv4Addr::new(10, 20, 2, 2);
/// Prefix length of both links.
pub const PREFIX_LEN: u8 = 24;

/// Requested ifindex of `a0` in A.
pub const A_IFINDEX: u32 = 2;
/// Requested ifindex of `r0` in R.
pub const R_A_IFINDEX: u32 = 2;
/// Requested ifindex of `r1` in R.
pub const R_B_IFINDEX: u32 = 3;
/// Requested ifindex of `b0` in B.
pub const B_IFINDEX: u32 = 2;
